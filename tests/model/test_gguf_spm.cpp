// core/tokenize/spm_model.*: a GGUF SentencePiece vocabulary (tokenizer.ggml.model "llama") tokenizes as llama.cpp's
// SPM tokenizer does, on the small vocabularies of tests/fixtures/gguf/llama_cpp/make_spm_files.py, against
// llama.cpp's own ids (llama_cpp_spm_reference.json, made by llama_cpp_spm_reference.mjs): pieces whose prefix is not
// a piece, score ties, byte fallback, CJK, no byte tokens, every token type inside words, special tokens inside the
// text and leading spaces (the "▁" in front of each piece of text).
#include <fstream>

#include "gguf_test_util.h"
#include "model/gguf_vocab_reader.h"
#include "test_util.h"
#include "tokenize/gguf_tokenizer.h"

namespace attnviz::model {
namespace {

using testing::GgufFixture;
using ::testing::HasSubstr;

tokenize::GgufVocab VocabOf(const nlohmann::json& v) {
  tokenize::GgufVocab out;
  out.where = v["name"].get<std::string>() + ".gguf";
  out.model = "llama";
  out.tokens = v["tokens"].get<std::vector<std::string>>();
  for (double s : v["scores"]) out.scores.push_back((float)s);
  for (int t : v["types"]) out.types.push_back((tokenize::GgufTokenType)t);
  out.unk = 0, out.bos = 1, out.eos = 2;
  out.add_bos = false;
  out.add_space_prefix = v["add_space_prefix"].get<bool>();
  return out;
}

std::vector<int> IdsOf(const tokenize::Tokenizer& tok, const std::string& text) {
  auto tokens = tok.Encode(text);
  EXPECT_TRUE(tokens.ok()) << tokens.message();
  std::vector<int> ids;
  if (tokens.ok())
    for (const auto& t : *tokens) ids.push_back(t.id);
  return ids;
}

TEST(GgufSpm, TokenizesAsLlamaCppDoes) {
  std::ifstream in(GgufFixture("llama_cpp/llama_cpp_spm_reference.json"));
  const auto ref = nlohmann::json::parse(in);
  int compared = 0;
  for (const auto& v : ref["vocabs"]) {
    auto tok = tokenize::MakeGgufTokenizer(VocabOf(v));
    ASSERT_TRUE(tok.ok()) << tok.message();
    const auto texts = v["texts"].get<std::vector<std::string>>();
    for (size_t i = 0; i < texts.size(); ++i) {
      EXPECT_EQ(IdsOf(**tok, texts[i]), v["ids"][i].get<std::vector<int>>())
          << v["name"].get<std::string>() << ", text: " << texts[i];
      ++compared;
    }
  }
  EXPECT_GE(compared, 126);
}

// The committed tokenizers/llama_style.gguf read from its file (its add_bos_token: BOS first) gives llama.cpp's ids
// for every text of its expected.json.
TEST(GgufSpm, TheLlamaStyleFileTokenizesAsLlamaCppDoes) {
  auto f = GgufFile::Open(GgufFixture("tokenizers/llama_style.gguf"));
  ASSERT_TRUE(f.ok()) << f.message();
  auto v = ReadGgufVocab(**f);
  ASSERT_TRUE(v.ok()) << v.message();
  auto tok = tokenize::MakeGgufTokenizer(*v);
  ASSERT_TRUE(tok.ok()) << tok.message();
  std::ifstream in(GgufFixture("llama_cpp/llama_cpp_spm_reference.json"));
  const auto ref = nlohmann::json::parse(in);
  const nlohmann::json* fixture = nullptr;
  for (const auto& r : ref["vocabs"])
    if (r["name"] == "llama_style") fixture = &r;
  ASSERT_NE(fixture, nullptr);
  const auto texts = (*fixture)["texts"].get<std::vector<std::string>>();
  ASSERT_GT(texts.size(), 60u);
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<int> want = {*v->bos};
    for (int id : (*fixture)["ids"][i]) want.push_back(id);
    EXPECT_EQ(IdsOf(**tok, texts[i]), want) << "text: " << texts[i];
  }
}

// Each token covers the characters it was made of, bytes of one character each cover that character.
TEST(GgufSpm, TokensCoverTheirCharacters) {
  std::ifstream in(GgufFixture("llama_cpp/llama_cpp_spm_reference.json"));
  const auto ref = nlohmann::json::parse(in);
  auto tok = tokenize::MakeGgufTokenizer(VocabOf(ref["vocabs"][0]));  // prefix_not_piece
  ASSERT_TRUE(tok.ok()) << tok.message();
  const std::string text = "math matter";
  auto tokens = (*tok)->Encode(text);
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  std::vector<std::string> spans;
  for (const auto& t : *tokens) spans.push_back(text.substr(t.byte_begin, t.byte_end - t.byte_begin));
  EXPECT_EQ(spans, (std::vector<std::string>{"mat", "h", " mat", "t", "er"}));
}

// A character that is neither a piece nor written by byte tokens: llama.cpp aborts (std::out_of_range from its
// byte lookup); attnviz gives the vocabulary's unknown token, as SentencePiece does, or without one a message.
TEST(GgufSpm, ACharacterWithNoPieceAndNoByteIsTheUnknownTokenOrAMessage) {
  tokenize::GgufVocab v;
  v.where = "nobytes.gguf";
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a", "\xE2\x96\x81" "a"};
  v.types = {tokenize::GgufTokenType::kUnknown, tokenize::GgufTokenType::kControl, tokenize::GgufTokenType::kControl,
             tokenize::GgufTokenType::kNormal, tokenize::GgufTokenType::kNormal, tokenize::GgufTokenType::kNormal};
  v.scores = {0, 0, 0, -1, -2, -3};
  v.unk = 0, v.bos = 1, v.eos = 2;
  v.add_bos = false;
  auto tok = tokenize::MakeGgufTokenizer(v);
  ASSERT_TRUE(tok.ok()) << tok.message();
  EXPECT_EQ(IdsOf(**tok, "a\xC3\xA9" "a"), (std::vector<int>{5, 0, 4}));
  v.unk.reset();
  v.tokens[0] = "<pad>";
  v.types[0] = tokenize::GgufTokenType::kControl;
  tok = tokenize::MakeGgufTokenizer(v);
  ASSERT_TRUE(tok.ok()) << tok.message();
  auto refused = (*tok)->Encode("a\xC3\xA9" "a");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), HasSubstr("nobytes.gguf"));
  EXPECT_THAT(refused.message(), HasSubstr("U+00E9"));
  EXPECT_THAT(refused.message(), HasSubstr("<0xC3>"));
}

}  // namespace
}  // namespace attnviz::model
