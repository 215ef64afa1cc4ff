// SentencePiece tokenizers (tests/fixtures/tokenize/make_spm_fixtures.py): every sentence of sentences.json gives
// python3-sentencepiece's ids from the .model file (libsentencepiece), and Hugging Face's library's ids from the
// tokenizer.json convert_slow_tokenizer.py builds from it (BPE with byte fallback, Unigram), with and without the
// special tokens; pieces read back as the decoder shows them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tokenize/tokenizer.h"
#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

const std::string kFixtures = ATTNVIZ_TOKENIZE_FIXTURES;

nlohmann::json ReadJson(const std::string& path) { return testing::ReadJsonFile(path); }

using testing::Ids;

struct SpmCase {
  const char* folder;
  const char* model_file;
  bool from_json;  // tokenizer.json, else the .model
};

std::string CaseName(const ::testing::TestParamInfo<SpmCase>& info) {
  return std::string(info.param.folder) + (info.param.from_json ? "_json" : "_model");
}

class SentencePiecePeer : public ::testing::TestWithParam<SpmCase> {};

TEST_P(SentencePiecePeer, IdsMatchSentencePieceForEverySentence) {
  const SpmCase& c = GetParam();
  const std::string dir = kFixtures + "/" + c.folder;
  auto tokenizer = c.from_json ? LoadTokenizerJson(dir + "/tokenizer.json")
                               : LoadSentencePieceTokenizer(dir + "/" + c.model_file, dir + "/tokenizer_config.json");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  // The .model against sentencepiece, tokenizer.json against Hugging Face's library (the same ids but for the
  // few sentences where the converted pipeline differs: make_spm_json_peer.js).
  const nlohmann::json expected = ReadJson(dir + (c.from_json ? "/expected_json.json" : "/expected.json"));
  ASSERT_GE(expected.size(), 60u);
  for (const auto& item : expected) {
    const std::string text = item["text"].get<std::string>();
    auto tokens = (*tokenizer)->Encode(text);
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["ids"].get<std::vector<int>>()) << CaseName({c, 0}) << ": " << nlohmann::json(text);
    auto plain = (*tokenizer)->Encode(text, /*add_special_tokens=*/false);
    ASSERT_TRUE(plain.ok()) << plain.message();
    EXPECT_EQ(Ids(*plain), item["ids_no_special"].get<std::vector<int>>()) << nlohmann::json(text);
    size_t previous_begin = 0;
    for (const auto& t : *tokens) {
      ASSERT_LE(t.byte_begin, t.byte_end);
      ASSERT_LE(t.byte_end, text.size());
      if (!(t.special && t.byte_begin == t.byte_end)) {
        EXPECT_GE(t.byte_begin, previous_begin) << "spans out of order in " << nlohmann::json(text);
        previous_begin = t.byte_begin;
      }
      auto display = (*tokenizer)->IdToDisplay(t.id);
      ASSERT_TRUE(display.has_value()) << t.id;
      EXPECT_EQ(*display, t.display);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Peers, SentencePiecePeer,
                         ::testing::Values(SpmCase{"spm_bpe", "tokenizer.model", false},
                                           SpmCase{"spm_bpe", "tokenizer.model", true},
                                           SpmCase{"spm_unigram", "spiece.model", false},
                                           SpmCase{"spm_unigram", "spiece.model", true},
                                           SpmCase{"xlmr", "sentencepiece.bpe.model", false},
                                           SpmCase{"xlmr", "sentencepiece.bpe.model", true}),
                         CaseName);

// The decoder's view of pieces: "▁" reads as a space and a byte-fallback piece as its byte.
TEST(SentencePiece, PiecesReadAsTheDecoderShowsThem) {
  for (bool json : {false, true}) {
    auto tokenizer = json ? LoadTokenizerJson(kFixtures + "/spm_bpe/tokenizer.json")
                          : LoadSentencePieceTokenizer(kFixtures + "/spm_bpe/tokenizer.model", "");
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
    auto tokens = (*tokenizer)->Encode("Hello 🦀", /*add_special_tokens=*/false);  // no piece has the crab
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    std::string joined;
    int byte_pieces = 0;
    for (const auto& t : *tokens) {
      joined += t.bytes;
      byte_pieces += t.piece.rfind("<0x", 0) == 0;
    }
    EXPECT_EQ(joined, " Hello 🦀") << json;  // the dummy prefix is a space; the emoji's four bytes rejoin
    EXPECT_EQ(byte_pieces, 4) << json;
    EXPECT_EQ((*tokenizer)->IdToDisplay(1), "<s>");
  }
}

TEST(SentencePiece, LoaderPicksTheModelFileWithoutTokenizerJson) {
  testing::TempDir temp;
  const std::string dir = temp.path();
  std::filesystem::copy_file(kFixtures + "/xlmr/sentencepiece.bpe.model", dir + "/sentencepiece.bpe.model");
  auto tokenizer = LoadTokenizer(dir);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  EXPECT_NE((*tokenizer)->Describe().find("fairseq"), std::string::npos) << (*tokenizer)->Describe();
  auto tokens = (*tokenizer)->Encode("Hello world");
  ASSERT_TRUE(tokens.ok());
  EXPECT_EQ(Ids(*tokens), ReadJson(kFixtures + "/xlmr/expected.json")[0]["ids"].get<std::vector<int>>());
  EXPECT_EQ((*tokenizer)->IdToPiece(int((*tokenizer)->vocab_size()) - 1), "<mask>");
}

// XLM-R's real tokenizer.json starts with a Precompiled normalizer (sentencepiece's own tables), which is refused;
// the .model it was converted from, beside it, is the same tokenizer and is used instead.
TEST(SentencePiece, ModelFileStandsInForATokenizerJsonThatCannotBeRun) {
  testing::TempDir temp;
  std::filesystem::copy_file(kFixtures + "/xlmr/sentencepiece.bpe.model", temp.path() + "/sentencepiece.bpe.model");
  nlohmann::json converted = ReadJson(kFixtures + "/xlmr/tokenizer.json");
  converted["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA"}};
  temp.Write("tokenizer.json", converted.dump());
  ASSERT_FALSE(LoadTokenizerJson(temp.path() + "/tokenizer.json").ok());
  auto tokenizer = LoadTokenizer(temp.path());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  EXPECT_NE((*tokenizer)->Describe().find("sentencepiece.bpe.model"), std::string::npos) << (*tokenizer)->Describe();
  for (const auto& item : ReadJson(kFixtures + "/xlmr/expected.json")) {
    auto tokens = (*tokenizer)->Encode(item["text"].get<std::string>());
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["ids"].get<std::vector<int>>()) << item["text"];
  }
}

// spiece.model is T5Tokenizer's only in a T5 folder (config.json model_type, or tokenizer_config.json's
// tokenizer_class): </s> appended unless the text ends with it, <extra_id_N> counted down from the last id.
TEST(SentencePiece, SpieceModelIsT5TokenizerInAT5Folder) {
  const nlohmann::json expected = ReadJson(kFixtures + "/t5/expected.json")["encode"];
  const std::string text = expected[0]["text"].get<std::string>();
  std::vector<int> ids = expected[0]["ids"].get<std::vector<int>>();
  ASSERT_EQ(ids.back(), 1);

  testing::TempDir plain;
  std::filesystem::copy_file(kFixtures + "/t5/spiece.model", plain.path() + "/spiece.model");
  auto albert_style = LoadTokenizer(plain.path());
  ASSERT_TRUE(albert_style.ok()) << albert_style.message();
  EXPECT_EQ(Ids(*(*albert_style)->Encode(text)), std::vector<int>(ids.begin(), ids.end() - 1));  // nothing added
  EXPECT_EQ((*albert_style)->vocab_size(), 120u);

  plain.Write("tokenizer_config.json", R"({"tokenizer_class": "T5Tokenizer"})");
  auto t5 = LoadTokenizer(plain.path());
  ASSERT_TRUE(t5.ok()) << t5.message();
  EXPECT_NE((*t5)->Describe().find("T5"), std::string::npos) << (*t5)->Describe();
  EXPECT_EQ(Ids(*(*t5)->Encode(text)), ids);
  EXPECT_EQ(Ids(*(*t5)->Encode(text + "</s>")), ids);  // not twice
  EXPECT_EQ(Ids(*(*t5)->Encode(text, /*add_special_tokens=*/false)), std::vector<int>(ids.begin(), ids.end() - 1));
  EXPECT_EQ((*t5)->vocab_size(), 220u);  // T5Tokenizer's default 100 extra ids
  EXPECT_EQ((*t5)->IdToPiece(219), "<extra_id_0>");
  EXPECT_EQ((*t5)->IdToPiece(120), "<extra_id_99>");

  plain.Write("tokenizer_config.json", R"({"tokenizer_class": "T5Tokenizer", "legacy": false})");
  auto non_legacy = LoadTokenizer(plain.path());
  ASSERT_FALSE(non_legacy.ok());
  EXPECT_NE(non_legacy.message().find("tokenizer_config.json"), std::string::npos) << non_legacy.message();
  EXPECT_NE(non_legacy.message().find("legacy"), std::string::npos) << non_legacy.message();

  plain.Write("tokenizer_config.json", R"({"extra_ids": -2})");
  plain.Write("config.json", R"({"model_type": "mt5"})");
  auto bad_extra = LoadTokenizer(plain.path());
  ASSERT_FALSE(bad_extra.ok());
  EXPECT_NE(bad_extra.message().find("extra_ids"), std::string::npos) << bad_extra.message();
}

TEST(SentencePiece, NotAModelFileIsNamed) {
  auto tokenizer = LoadSentencePieceTokenizer(kFixtures + "/sentences.json", "");
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_NE(tokenizer.message().find("sentences.json"), std::string::npos) << tokenizer.message();
  EXPECT_NE(tokenizer.message().find("SentencePiece"), std::string::npos) << tokenizer.message();
}

TEST(SentencePiece, UnigramEntryAndUnkIdAreChecked) {
  testing::TempDir temp;
  auto write = [&](const std::string& text) { return LoadTokenizerJson(temp.Write("bad_unigram.json", text)); };
  auto bad_entry = write(R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a", -1.0], ["b"]]}})");
  ASSERT_FALSE(bad_entry.ok());
  EXPECT_NE(bad_entry.message().find("vocab entry 1"), std::string::npos) << bad_entry.message();
  auto bad_unk = write(R"({"model": {"type": "Unigram", "unk_id": 5, "vocab": [["a", -1.0], ["b", -2.0]]}})");
  ASSERT_FALSE(bad_unk.ok());
  EXPECT_NE(bad_unk.message().find("unk_id = 5"), std::string::npos) << bad_unk.message();
  EXPECT_NE(bad_unk.message().find("0..1"), std::string::npos) << bad_unk.message();
}

}  // namespace
}  // namespace attnviz::tokenize

namespace attnviz::tokenize {
namespace {

// A folder with tokenizer.model and no tokenizer.json (as Gemma and Llama 2 folders can come) opens through
// LoadTokenizer: the .model, <bos> in front as the file's name says, python3-sentencepiece's ids.
TEST(SentencePiece, AFolderWithOnlyTokenizerModelOpens) {
  const std::string dir = std::string(ATTNVIZ_TOKENIZE_FIXTURES) + "/spm_gemma_model";
  ASSERT_FALSE(std::filesystem::exists(dir + "/tokenizer.json"));
  auto tokenizer = LoadTokenizer(dir);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  EXPECT_NE((*tokenizer)->Describe().find("tokenizer.model"), std::string::npos) << (*tokenizer)->Describe();
  EXPECT_EQ((*tokenizer)->vocab_size(), 90u);
  const nlohmann::json expected = testing::ReadJsonFile(dir + "/expected.json");
  ASSERT_GE(expected.size(), 60u);
  for (const auto& item : expected) {
    const std::string text = item["text"].get<std::string>();
    auto tokens = (*tokenizer)->Encode(text);
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(testing::Ids(*tokens), item["ids"].get<std::vector<int>>()) << nlohmann::json(text);
    auto plain = (*tokenizer)->Encode(text, /*add_special_tokens=*/false);
    ASSERT_TRUE(plain.ok()) << plain.message();
    EXPECT_EQ(testing::Ids(*plain), item["ids_no_special"].get<std::vector<int>>()) << nlohmann::json(text);
  }
}

}  // namespace
}  // namespace attnviz::tokenize
