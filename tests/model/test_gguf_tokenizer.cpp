// core/model/gguf_vocab_reader.* + core/tokenize/gguf_tokenizer.*: a GGUF file's tokenizer.ggml.* (written by
// tests/fixtures/gguf/make_gguf_fixtures.py from a tokenizer.json of tests/fixtures/tokenize) tokenizes every
// sentence of that fixture as Hugging Face's library does (expected.json), and bad keys are refused by name.
#include <fstream>

#include "gguf_test_util.h"
#include "model/gguf_vocab_reader.h"
#include "test_util.h"
#include "tokenize/gguf_tokenizer.h"

namespace attnviz::model {
namespace {

using testing::GgufBytes;
using testing::GgufFixture;
using testing::TempDir;
using testing::WriteBytes;
using ::testing::HasSubstr;

Result<std::unique_ptr<tokenize::Tokenizer>> Load(const std::string& path) {
  auto f = GgufFile::Open(path);
  if (!f) return f.status();
  auto v = ReadGgufVocab(**f);
  if (!v) return v.status();
  return tokenize::MakeGgufTokenizer(*v);
}

class GgufTokenizer : public ::testing::TestWithParam<std::string> {};

TEST_P(GgufTokenizer, TokenizesAsTheLibraryDoes) {
  const std::string name = GetParam();
  auto tok = Load(GgufFixture("tokenizers/" + name + ".gguf"));
  ASSERT_TRUE(tok.ok()) << tok.message();
  std::ifstream in(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/tokenize/" + name + "/expected.json");
  const auto expected = nlohmann::json::parse(in);
  int checked = 0, differ = 0;
  for (const auto& e : expected) {
    auto tokens = (*tok)->Encode(e["text"].get<std::string>());
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    std::vector<int> ids;
    for (const auto& t : *tokens) ids.push_back(t.id);
    const auto want = e["ids"].get<std::vector<int>>();
    if (ids != want) {
      ++differ;
      ADD_FAILURE() << name << ": " << e["text"].get<std::string>() << "\n got " << ::testing::PrintToString(ids)
                    << "\nwant " << ::testing::PrintToString(want);
    }
    ++checked;
  }
  EXPECT_GT(checked, 10);
  EXPECT_EQ(differ, 0);
}

// llama_style (SentencePiece) is held to llama.cpp's own ids instead (test_gguf_spm.cpp): they differ from the
// library's where a text starts with a space or holds a special token.
INSTANTIATE_TEST_SUITE_P(Fixtures, GgufTokenizer, ::testing::Values("bytelevel_bpe", "llama3_style", "qwen2_style"));

// Every regex set of llama.cpp's BPE pre-tokenizers, by the tokenizer.ggml.pre names its converter writes, against
// llama.cpp's own ids (llama_cpp/llama_cpp_pre_reference.json, made by llama_cpp_pre_reference.mjs): the byte-level
// vocabulary of llama3_style.gguf under each name, without add_bos_token, so each name's BOS default counts too.
TEST(GgufPreSplits, EachNameSplitsAsLlamaCppDoes) {
  auto f = GgufFile::Open(GgufFixture("tokenizers/llama3_style.gguf"));
  ASSERT_TRUE(f.ok()) << f.message();
  auto base = ReadGgufVocab(**f);
  ASSERT_TRUE(base.ok()) << base.message();
  base->add_bos.reset();
  std::ifstream in(GgufFixture("llama_cpp/llama_cpp_pre_reference.json"));
  const auto ref = nlohmann::json::parse(in);
  const auto texts = ref["texts"].get<std::vector<std::string>>();
  auto ids_of = [&](const std::string& pre, std::string* description) {
    tokenize::GgufVocab v = *base;
    v.pre = pre;
    auto tok = tokenize::MakeGgufTokenizer(v);
    EXPECT_TRUE(tok.ok()) << pre << ": " << tok.message();
    std::vector<std::vector<int>> out;
    if (!tok.ok()) return out;
    if (description) *description = (*tok)->Describe();
    for (const std::string& t : texts) {
      auto tokens = (*tok)->Encode(t);
      EXPECT_TRUE(tokens.ok()) << tokens.message();
      out.emplace_back();
      if (tokens.ok())
        for (const auto& token : *tokens) out.back().push_back(token.id);
    }
    return out;
  };
  std::vector<std::vector<int>> default_ids;
  int compared = 0;
  for (const auto& n : ref["names"]) {
    const std::string pre = n["pre"];
    if (n.contains("refused")) continue;  // below
    std::vector<std::vector<int>> want;
    for (const auto& row : n["ids"]) {
      want.push_back(n["add_bos"].get<bool>() ? std::vector<int>{*base->bos} : std::vector<int>{});
      for (int id : row.get<std::vector<int>>()) want.back().push_back(id);
    }
    const auto got = ids_of(pre, nullptr);
    ASSERT_EQ(got.size(), texts.size()) << pre;
    for (size_t i = 0; i < texts.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << "pre \"" << pre << "\", text: " << texts[i];
      ++compared;
    }
    if (pre == "default") default_ids = want;
  }
  EXPECT_GE(compared, 17 * 7);
  ASSERT_FALSE(default_ids.empty());
  // A name llama.cpp does not know: the llama.cpp of the reference refused it; newer ones take "default" with a
  // warning, and so does attnviz, saying so in the tokenizer's description (shown in the Model panel).
  std::string description;
  EXPECT_EQ(ids_of("made-up-pre", &description), default_ids);
  EXPECT_THAT(description, HasSubstr("\"made-up-pre\": llama.cpp's default split"));
  ids_of("smollm", &description);
  EXPECT_THAT(description, HasSubstr("pre smollm"));
}

// tokenizer.ggml.add_bos_token / add_eos_token as the file says, SentencePiece and byte-level alike; absent, each
// model's default (SentencePiece: BOS; byte-level: llama.cpp's default for the pre name, here none).
TEST(GgufTokenizer, AddBosAndEosFollowTheFile) {
  for (const char* name : {"llama_style", "llama3_style"}) {
    SCOPED_TRACE(name);
    auto f = GgufFile::Open(GgufFixture(std::string("tokenizers/") + name + ".gguf"));
    ASSERT_TRUE(f.ok()) << f.message();
    auto base = ReadGgufVocab(**f);
    ASSERT_TRUE(base.ok()) << base.message();
    if (!base->bos) base->bos = 0;
    if (!base->eos) base->eos = 1;
    auto ids = [&](std::optional<bool> bos, std::optional<bool> eos, const std::string& pre) {
      tokenize::GgufVocab v = *base;
      v.add_bos = bos;
      v.add_eos = eos;
      if (!pre.empty()) v.pre = pre;
      auto tok = tokenize::MakeGgufTokenizer(v);
      EXPECT_TRUE(tok.ok()) << tok.message();
      std::vector<int> out;
      if (!tok.ok()) return out;
      auto tokens = (*tok)->Encode("Hello world");
      EXPECT_TRUE(tokens.ok());
      if (tokens.ok())
        for (const auto& t : *tokens) out.push_back(t.id);
      return out;
    };
    const std::vector<int> plain = ids(false, false, "");
    ASSERT_FALSE(plain.empty());
    EXPECT_NE(plain.front(), *base->bos);
    std::vector<int> want = plain;
    want.insert(want.begin(), *base->bos);
    EXPECT_EQ(ids(true, false, ""), want);
    want.push_back(*base->eos);
    EXPECT_EQ(ids(true, true, ""), want);
    const bool spm = std::string(name) == "llama_style";
    // absent: SentencePiece adds BOS; byte-level under "gpt-2" does not, under "llama-bpe" it does
    EXPECT_EQ(ids(std::nullopt, std::nullopt, spm ? "" : "gpt-2").front() == *base->bos, spm);
    if (!spm) EXPECT_EQ(ids(std::nullopt, std::nullopt, "llama-bpe").front(), *base->bos);
  }
}

TEST(GgufTokenizer, RefusesBadKeysByName) {
  TempDir dir;
  auto tokens = [](GgufBytes& b, int n) {
    b.Str("tokenizer.ggml.tokens").Put<uint32_t>(9).Put<uint32_t>(8).Put<uint64_t>(n);
    for (int i = 0; i < n; ++i) b.Str("t" + std::to_string(i));
  };
  struct Case {
    GgufBytes bytes;
    std::string message;
  };
  std::vector<Case> cases;
  {
    Case c;
    c.bytes.Header(3, 0, 2).KvStr("tokenizer.ggml.model", "bert");
    tokens(c.bytes, 2);
    c.message = "tokenizer.ggml.model is \"bert\"; supported: gpt2";
    cases.push_back(c);
  }
  {
    Case c;
    c.bytes.Header(3, 0, 3).KvStr("tokenizer.ggml.model", "gpt2").KvStr("tokenizer.ggml.pre", "kimi-k2");
    tokens(c.bytes, 2);
    c.message = "tokenizer.ggml.pre is \"kimi-k2\", which llama.cpp splits with code of its own; supported: the names it splits by regexes (default, gpt-2, llama-bpe";
    cases.push_back(c);
  }
  {
    Case c;
    c.bytes.Header(3, 0, 3).KvStr("tokenizer.ggml.model", "llama").KvU32("tokenizer.ggml.bos_token_id", 7);
    tokens(c.bytes, 2);
    c.message = "key 'tokenizer.ggml.bos_token_id' = 7 is not a token id (allowed 0..1)";
    cases.push_back(c);
  }
  {
    Case c;
    c.bytes.Header(3, 0, 3).KvStr("tokenizer.ggml.model", "llama");
    tokens(c.bytes, 2);
    c.bytes.Str("tokenizer.ggml.scores").Put<uint32_t>(9).Put<uint32_t>(6).Put<uint64_t>(1).Put<float>(0);
    c.message = "key 'tokenizer.ggml.scores' has 1 entries but 'tokenizer.ggml.tokens' has 2";
    cases.push_back(c);
  }
  {
    Case c;
    c.bytes.Header(3, 0, 2).KvStr("tokenizer.ggml.model", "llama").KvStr("tokenizer.ggml.tokens", "abc");
    c.message = "key 'tokenizer.ggml.tokens' has type string; expected array of string";
    cases.push_back(c);
  }
  {
    Case c;
    c.bytes.Header(3, 0, 1).KvStr("general.architecture", "llama");
    c.message = "missing key 'tokenizer.ggml.model'";
    cases.push_back(c);
  }
  for (const Case& c : cases) {
    WriteBytes(dir.File("t.gguf"), c.bytes.str());
    auto t = Load(dir.File("t.gguf"));
    ASSERT_FALSE(t.ok()) << c.message;
    EXPECT_THAT(t.message(), HasSubstr(c.message));
    EXPECT_THAT(t.message(), HasSubstr("t.gguf"));
  }
}

}  // namespace
}  // namespace attnviz::model
