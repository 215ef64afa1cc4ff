// Error messages name the file and the problem: missing files, bad JSON (byte offset, line), unsupported types
// by name, invalid UTF-8 input (byte offset), oversized and non-regular files, inconsistent vocabularies.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

using testing::TempDir;

const std::string kFixtures = ATTNVIZ_TOKENIZE_FIXTURES;

::testing::AssertionResult Contains(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' does not contain '" << part << "'";
}

// A minimal valid tokenizer.json with one section replaced.
std::string TokenizerJson(const std::string& normalizer, const std::string& pre_tokenizer,
                          const std::string& model = R"({"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"})",
                          const std::string& post = "null") {
  return R"({"version": "1.0", "added_tokens": [], "normalizer": )" + normalizer + R"(, "pre_tokenizer": )" +
         pre_tokenizer + R"(, "post_processor": )" + post + R"(, "decoder": null, "model": )" + model + "}";
}

TEST(TokenizerErrors, MinimalFileLoads) {
  TempDir dir;
  dir.Write("tokenizer.json", TokenizerJson("null", R"({"type": "Whitespace"})"));
  auto tok = LoadTokenizer(dir.path());
  ASSERT_TRUE(tok.ok()) << tok.message();
  auto r = (*tok)->Encode("a b");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(testing::Ids(*r), (std::vector<int>{0, 1}));
}

TEST(TokenizerErrors, MissingFolderAndFiles) {
  auto none = LoadTokenizer("/nonexistent/attnviz/model");
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(Contains(none.message(), "/nonexistent/attnviz/model"));
  TempDir empty;
  auto nothing = LoadTokenizer(empty.path());
  ASSERT_FALSE(nothing.ok());
  EXPECT_TRUE(Contains(nothing.message(), "no tokenizer files"));
  TempDir half;
  half.Write("vocab.json", "{}");
  auto no_merges = LoadTokenizer(half.path());
  ASSERT_FALSE(no_merges.ok());
  EXPECT_TRUE(Contains(no_merges.message(), "merges.txt: missing"));
  auto direct = LoadTokenizerJson(empty.path() + "/tokenizer.json");
  ASSERT_FALSE(direct.ok());
  EXPECT_TRUE(Contains(direct.message(), "tokenizer.json: cannot open"));
}

TEST(TokenizerErrors, BadJsonNamesOffsetAndLine) {
  TempDir dir;
  dir.Write("tokenizer.json", "{\n  \"model\": {,}\n}\n");
  auto tok = LoadTokenizer(dir.path());
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(Contains(tok.message(), dir.path() + "/tokenizer.json: invalid JSON at byte offset 14"));
  EXPECT_TRUE(Contains(tok.message(), "line 2, column 13"));
}

TEST(TokenizerErrors, UnsupportedTypesAreNamed) {
  TempDir dir;
  dir.Write("tokenizer.json", TokenizerJson("null", R"({"type": "UnicodeScripts"})"));
  auto pre = LoadTokenizer(dir.path());
  ASSERT_FALSE(pre.ok());
  EXPECT_TRUE(Contains(pre.message(), "tokenizer.json: pre_tokenizer type 'UnicodeScripts' is not supported"));

  dir.Write("tokenizer.json", TokenizerJson("null", R"({"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "FixedLength", "length": 5}]})"));
  auto nested = LoadTokenizer(dir.path());
  ASSERT_FALSE(nested.ok());
  EXPECT_TRUE(Contains(nested.message(), "pre_tokenizer type 'FixedLength' is not supported (at pre_tokenizer.pretokenizers[1])"));

  dir.Write("tokenizer.json", TokenizerJson(R"({"type": "Precompiled", "precompiled_charsmap": ""})", "null"));
  auto norm = LoadTokenizer(dir.path());
  ASSERT_FALSE(norm.ok());
  EXPECT_TRUE(Contains(norm.message(), "normalizer type 'Precompiled' is not supported"));

  dir.Write("tokenizer.json", TokenizerJson("null", "null", R"({"type": "CharLevel", "vocab": [["a", 0.0]]})"));
  auto model = LoadTokenizer(dir.path());
  ASSERT_FALSE(model.ok());
  EXPECT_TRUE(Contains(model.message(), "model type 'CharLevel' is not supported")) << model.message();

  dir.Write("tokenizer.json", TokenizerJson("null", "null", R"({"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"})",
                                            R"({"type": "Whatever"})"));
  auto post = LoadTokenizer(dir.path());
  ASSERT_FALSE(post.ok());
  EXPECT_TRUE(Contains(post.message(), "post_processor type 'Whatever' is not supported"));

  dir.Write("tokenizer.json", TokenizerJson("null", "null", R"({"type": "BPE", "dropout": 0.1, "vocab": {"a": 0}, "merges": []})"));
  auto dropout = LoadTokenizer(dir.path());
  ASSERT_FALSE(dropout.ok());
  EXPECT_TRUE(Contains(dropout.message(), "dropout is not supported"));
}

TEST(TokenizerErrors, InconsistentVocabularies) {
  TempDir dir;
  dir.Write("tokenizer.json", TokenizerJson("null", "null", R"({"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]})"));
  auto merge = LoadTokenizer(dir.path());
  ASSERT_FALSE(merge.ok());
  EXPECT_TRUE(Contains(merge.message(), "merge 1 ('a' 'b'): 'ab' is not in the vocabulary"));

  TempDir gpt;
  gpt.Write("vocab.json", R"({"a": 0, "b": 1, "ab": 2})");
  gpt.Write("merges.txt", "#version: 0.2\na b\na b c\n");
  auto bad_line = LoadTokenizer(gpt.path());
  ASSERT_FALSE(bad_line.ok());
  EXPECT_TRUE(Contains(bad_line.message(), "merges.txt:3: 'a b c' is not two tokens"));

  TempDir bert;
  bert.Write("vocab.txt", "[PAD]\n[CLS]\n[SEP]\nhello\n");
  auto no_unk = LoadTokenizer(bert.path());
  ASSERT_FALSE(no_unk.ok());
  EXPECT_TRUE(Contains(no_unk.message(), "vocab.txt: the unknown token '[UNK]' is not in the vocabulary"));
}

TEST(TokenizerErrors, InvalidUtf8NamesTheByteOffset) {
  auto tok = LoadTokenizer(kFixtures + "/gpt2");
  ASSERT_TRUE(tok.ok());
  auto r = (*tok)->Encode("ab\xFF" "cd");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "invalid UTF-8 at byte offset 2"));
  auto truncated = (*tok)->Encode("나\xEB\x82");
  ASSERT_FALSE(truncated.ok());
  EXPECT_TRUE(Contains(truncated.message(), "byte offset 3"));
}

TEST(TokenizerErrors, FilesAreReadBounded) {
  TempDir big;
  std::string path = big.Write("tokenizer.json", "{}");
  std::filesystem::resize_file(path, (64u << 20) + 1);  // sparse: no 64 MiB written
  auto too_big = LoadTokenizer(big.path());
  ASSERT_FALSE(too_big.ok());
  EXPECT_TRUE(Contains(too_big.message(), "too large"));

  TempDir folder;
  std::filesystem::create_directory(folder.path() + "/tokenizer.json");
  auto is_folder = LoadTokenizer(folder.path());
  ASSERT_FALSE(is_folder.ok());
  EXPECT_TRUE(Contains(is_folder.message(), "tokenizer.json: is a folder"));

  TempDir fifo;
  ASSERT_EQ(::mkfifo((fifo.path() + "/vocab.txt").c_str(), 0600), 0);
  auto is_fifo = LoadTokenizer(fifo.path());  // must not block waiting for a writer
  ASSERT_FALSE(is_fifo.ok());
  EXPECT_TRUE(Contains(is_fifo.message(), "vocab.txt: is not a regular file"));
}

}  // namespace
}  // namespace attnviz::tokenize
