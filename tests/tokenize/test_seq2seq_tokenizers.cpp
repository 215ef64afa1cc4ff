// Encoder-decoder folders: T5 (spiece.model: T5Tokenizer's ids with </s> appended unless present, <extra_id_N>,
// decoding; tests/fixtures/tokenize/t5 from marian/make_marian_fixtures.py), BART (vocab.json + merges.txt:
// <s> ... </s>, byte-level decoding), and the folders refused by name. Marian's pair: test_marian_files.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenize/seq2seq_tokenizers.h"
#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

const std::string kFixtures = ATTNVIZ_TOKENIZE_FIXTURES;

using testing::Ids;

TEST(Seq2SeqTokenizers, T5FolderAppendsEosAsT5TokenizerDoes) {
  auto pair = LoadSeq2SeqTokenizers(kFixtures + "/t5");
  ASSERT_TRUE(pair.ok()) << pair.message();
  EXPECT_EQ(pair->model_type, "t5");
  EXPECT_EQ(pair->source.get(), pair->target.get());
  EXPECT_EQ(pair->source->vocab_size(), 123u);  // 120 pieces + 3 extra ids
  const nlohmann::json expected = testing::ReadJsonFile(kFixtures + "/t5/expected.json");
  ASSERT_GE(expected["encode"].size(), 20u);
  for (const auto& item : expected["encode"]) {
    const std::string text = item["text"].get<std::string>();
    auto tokens = pair->source->Encode(text);
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["ids"].get<std::vector<int>>()) << nlohmann::json(text);
    ASSERT_FALSE(tokens->empty());
    EXPECT_EQ(tokens->back().id, 1);
    EXPECT_TRUE(tokens->back().special);
  }
  for (const auto& item : expected["decode"]) {
    auto text = pair->decoder->Decode(item["ids"].get<std::vector<int>>());
    ASSERT_TRUE(text.ok()) << text.message();
    EXPECT_EQ(*text, item["text"].get<std::string>()) << item["ids"];
  }
  EXPECT_EQ(pair->source->IdToPiece(122), "<extra_id_0>");
  EXPECT_TRUE(pair->source->IsSpecialId(122));
  EXPECT_FALSE(pair->source->IsSpecialId(6));
  auto out_of_range = pair->decoder->Decode({6, 123});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.message().find("123"), std::string::npos) << out_of_range.message();
  EXPECT_NE(out_of_range.message().find("0..122"), std::string::npos) << out_of_range.message();
}

// A T5 folder with tokenizer.json (T5TokenizerFast's: Unigram, "$A </s>"): LoadTokenizer's pipeline on both sides;
// the decoder drops </s> and the leading "▁".
TEST(Seq2SeqTokenizers, T5FolderWithTokenizerJson) {
  testing::TempDir temp;
  std::filesystem::copy_file(kFixtures + "/t5_style/tokenizer.json", temp.path() + "/tokenizer.json");
  temp.Write("config.json", R"({"model_type": "t5"})");
  auto pair = LoadSeq2SeqTokenizers(temp.path());
  ASSERT_TRUE(pair.ok()) << pair.message();
  EXPECT_EQ(pair->source.get(), pair->target.get());
  const nlohmann::json expected = testing::ReadJsonFile(kFixtures + "/t5_style/expected.json");
  for (const auto& item : expected) {
    auto tokens = pair->target->Encode(item["text"].get<std::string>());
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["ids"].get<std::vector<int>>()) << item["text"];
  }
  ASSERT_EQ(expected[0]["text"], "Hello world");
  auto text = pair->decoder->Decode(expected[0]["ids"].get<std::vector<int>>());
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(*text, "Hello world");
}

// BART's vocab.json + merges.txt (RoBERTa's files): <s> ... </s> on both sides; the decoder gives the text back.
TEST(Seq2SeqTokenizers, BartFolderIsRobertaStyleBothWays) {
  testing::TempDir temp;
  for (const char* name : {"vocab.json", "merges.txt"})
    std::filesystem::copy_file(kFixtures + "/roberta_legacy/" + name, temp.path() + "/" + name);
  temp.Write("config.json", R"({"model_type": "bart"})");
  auto pair = LoadSeq2SeqTokenizers(temp.path());
  ASSERT_TRUE(pair.ok()) << pair.message();
  EXPECT_EQ(pair->model_type, "bart");
  EXPECT_EQ(pair->source.get(), pair->target.get());
  const nlohmann::json expected = testing::ReadJsonFile(kFixtures + "/roberta_legacy/expected.json");
  int round_trips = 0;
  for (const auto& item : expected) {
    const std::string text = item["text"].get<std::string>();
    auto tokens = pair->source->Encode(text);
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    const std::vector<int> ids = Ids(*tokens);
    EXPECT_EQ(ids, item["ids"].get<std::vector<int>>()) << nlohmann::json(text);
    EXPECT_EQ(tokens->front().piece, "<s>");
    EXPECT_EQ(tokens->back().piece, "</s>");
    if (text.find('<') != std::string::npos) continue;  // special-token text is left out when decoding
    auto decoded = pair->decoder->Decode(ids);
    ASSERT_TRUE(decoded.ok()) << decoded.message();
    EXPECT_EQ(*decoded, text);  // byte-level BPE loses nothing
    ++round_trips;
  }
  EXPECT_GE(round_trips, 40);
}

TEST(Seq2SeqTokenizers, OtherFoldersAreRefusedByName) {
  testing::TempDir temp;
  temp.Write("config.json", R"({"model_type": "pegasus"})");
  auto pegasus = LoadSeq2SeqTokenizers(temp.path());
  ASSERT_FALSE(pegasus.ok());
  EXPECT_NE(pegasus.message().find("pegasus"), std::string::npos) << pegasus.message();
  EXPECT_NE(pegasus.message().find("config.json"), std::string::npos) << pegasus.message();

  testing::TempDir empty;
  auto nothing = LoadSeq2SeqTokenizers(empty.path());
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.message().find("no tokenizer files"), std::string::npos) << nothing.message();

  auto missing = LoadSeq2SeqTokenizers(empty.path() + "/absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("no such folder"), std::string::npos) << missing.message();
}

}  // namespace
}  // namespace attnviz::tokenize
