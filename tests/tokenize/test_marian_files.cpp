// Marian (opus-mt) folders against MarianTokenizer's ids and decoded texts (tests/fixtures/tokenize/marian/
// make_marian_fixtures.py: python3-sentencepiece and a re-implementation of MarianTokenizer's logic): source and
// target sides, shared and separate vocabularies, language codes, pieces missing from vocab.json, spans and
// display, and the errors that name the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenize/seq2seq_tokenizers.h"
#include "tokenize/tokenizer.h"
#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

const std::string kMarian = std::string(ATTNVIZ_TOKENIZE_FIXTURES) + "/marian";

using testing::Ids;

nlohmann::json Expected() { return testing::ReadJsonFile(kMarian + "/expected.json"); }

// A copy of the fixture folder whose files the test may change.
std::string CopyOfFixture(const testing::TempDir& temp) {
  for (const char* name : {"source.spm", "target.spm", "vocab.json", "target_vocab.json", "tokenizer_config.json"})
    std::filesystem::copy_file(kMarian + "/" + name, temp.path() + "/" + name);
  return temp.path();
}

TEST(MarianFiles, SourceIdsPiecesAndSpansMatchMarianTokenizer) {
  auto tokenizer = LoadMarianTokenizer(kMarian, /*target_side=*/false);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  const nlohmann::json expected = Expected();
  ASSERT_GE(expected["encode"].size(), 20u);
  for (const auto& item : expected["encode"]) {
    const std::string text = item["text"].get<std::string>();
    auto tokens = (*tokenizer)->Encode(text);
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["source_ids"].get<std::vector<int>>()) << nlohmann::json(text);
    const auto& pieces = item["source_pieces"];
    ASSERT_EQ(tokens->size(), pieces.size() + 1) << nlohmann::json(text);  // + </s>
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Token& t = (*tokens)[i];
      // A piece vocab.json lacks is <unk>; the others are the piece sentencepiece spelled.
      if (t.id != 1) {
        EXPECT_EQ(t.piece, pieces[i].get<std::string>()) << nlohmann::json(text) << " token " << i;
      }
      EXPECT_EQ((*tokenizer)->IdToDisplay(t.id), t.display);
      EXPECT_EQ((*tokenizer)->IdToBytes(t.id), t.bytes);
    }
    if (!item["source_spans"].is_null()) {
      const auto& spans = item["source_spans"];
      for (size_t i = 0; i < spans.size(); ++i) {
        if (spans[i].is_null()) continue;  // a bare "▁": no surface in sentencepiece
        EXPECT_EQ((*tokens)[i].byte_begin, spans[i][0].get<size_t>()) << nlohmann::json(text) << " token " << i;
        EXPECT_EQ((*tokens)[i].byte_end, spans[i][1].get<size_t>()) << nlohmann::json(text) << " token " << i;
      }
    }
    const Token& eos = tokens->back();
    EXPECT_TRUE(eos.special);
    EXPECT_EQ(eos.piece, "</s>");
    EXPECT_EQ(eos.byte_begin, eos.byte_end);
  }
}

TEST(MarianFiles, TargetIdsGoThroughTargetSpm) {
  auto tokenizer = LoadMarianTokenizer(kMarian, /*target_side=*/true);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  const nlohmann::json expected = Expected();  // kept: a range over a temporary's member would dangle
  ASSERT_GE(expected["encode"].size(), 20u);
  for (const auto& item : expected["encode"]) {
    auto tokens = (*tokenizer)->Encode(item["text"].get<std::string>());
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["target_ids"].get<std::vector<int>>()) << item["text"];
  }
}

// "▁" reads as a space; a language code is one token over its own bytes; a special token typed in the text is that
// token; </s> is appended at the end of the text.
TEST(MarianFiles, DisplayAndSpansOfCodesAndPieces) {
  auto tokenizer = LoadMarianTokenizer(kMarian, false);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  const std::string text = ">>kor<< the first of December 2026";
  auto tokens = (*tokenizer)->Encode(text);
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  ASSERT_GE(tokens->size(), 4u);
  EXPECT_EQ((*tokens)[0].piece, ">>kor<<");
  EXPECT_EQ((*tokens)[0].display, ">>kor<<");
  EXPECT_EQ((*tokens)[0].byte_begin, 0u);
  EXPECT_EQ((*tokens)[0].byte_end, 7u);
  EXPECT_EQ((*tokens)[1].piece, "\xE2\x96\x81th");
  EXPECT_EQ((*tokens)[1].display, " th");
  // sentencepiece's normalizer drops the space before "the" (extra whitespace), so the piece covers "th" alone.
  EXPECT_EQ(text.substr((*tokens)[1].byte_begin, (*tokens)[1].byte_end - (*tokens)[1].byte_begin), "th");
  std::string joined;
  for (size_t i = 1; i + 1 < tokens->size(); ++i) joined += (*tokens)[i].display;
  EXPECT_EQ(joined, " the first of December 2026");
  EXPECT_EQ(tokens->back().byte_begin, text.size());

  auto typed = (*tokenizer)->Encode("a </s> in the middle", /*add_special_tokens=*/false);
  ASSERT_TRUE(typed.ok()) << typed.message();
  ASSERT_GE(typed->size(), 3u);
  EXPECT_EQ((*typed)[2].piece, "</s>");
  EXPECT_TRUE((*typed)[2].special);
  EXPECT_EQ((*typed)[2].byte_begin, 2u);
  EXPECT_EQ((*typed)[2].byte_end, 6u);
  EXPECT_NE(typed->back().piece, "</s>");  // nothing appended without special tokens
}

TEST(MarianFiles, DecodingMatchesMarianTokenizer) {
  auto decoder = LoadMarianDecoder(kMarian);
  ASSERT_TRUE(decoder.ok()) << decoder.message();
  const nlohmann::json expected = Expected();
  ASSERT_GE(expected["decode"].size(), 10u);
  for (const auto& item : expected["decode"]) {
    auto text = (*decoder)->Decode(item["ids"].get<std::vector<int>>());
    ASSERT_TRUE(text.ok()) << text.message();
    EXPECT_EQ(*text, item["text"].get<std::string>()) << item["ids"];
  }
}

TEST(MarianFiles, SeparateVocabsUseTargetVocabJson) {
  testing::TempDir temp;
  const std::string dir = CopyOfFixture(temp);
  temp.Write("tokenizer_config.json", R"({"separate_vocabs": true})");
  auto source = LoadMarianTokenizer(dir, false);
  auto target = LoadMarianTokenizer(dir, true);
  auto decoder = LoadMarianDecoder(dir);
  ASSERT_TRUE(source.ok() && target.ok() && decoder.ok()) << source.message() << target.message() << decoder.message();
  const nlohmann::json expected = Expected();
  for (const auto& item : expected["encode"]) {
    const std::string text = item["text"].get<std::string>();
    EXPECT_EQ(Ids(*(*source)->Encode(text)), item["source_ids"].get<std::vector<int>>()) << nlohmann::json(text);
    EXPECT_EQ(Ids(*(*target)->Encode(text)), item["target_ids_separate"].get<std::vector<int>>()) << nlohmann::json(text);
  }
  for (const auto& item : expected["decode_separate"]) {
    auto text = (*decoder)->Decode(item["ids"].get<std::vector<int>>());
    ASSERT_TRUE(text.ok()) << text.message();
    EXPECT_EQ(*text, item["text"].get<std::string>()) << item["ids"];
  }
}

TEST(MarianFiles, LoadersTakeTheSourceSideAndThePair) {
  auto single = LoadTokenizer(kMarian);
  ASSERT_TRUE(single.ok()) << single.message();
  EXPECT_NE((*single)->Describe().find("source.spm"), std::string::npos) << (*single)->Describe();
  auto pair = LoadSeq2SeqTokenizers(kMarian);
  ASSERT_TRUE(pair.ok()) << pair.message();
  EXPECT_EQ(pair->model_type, "marian");
  EXPECT_NE(pair->source.get(), pair->target.get());
  const nlohmann::json expected = Expected();
  const auto& date = expected["encode"][4];
  ASSERT_EQ(date["text"], "2026-12-01");
  EXPECT_EQ(Ids(*(*single)->Encode("2026-12-01")), date["source_ids"].get<std::vector<int>>());
  EXPECT_EQ(Ids(*pair->source->Encode("2026-12-01")), date["source_ids"].get<std::vector<int>>());
  auto labels = pair->target->Encode("2026-12-01");
  ASSERT_TRUE(labels.ok());
  EXPECT_EQ(Ids(*labels), date["target_ids"].get<std::vector<int>>());
  EXPECT_EQ(pair->decoder->Decode(Ids(*labels)).value(), "2026-12-01");
}

TEST(MarianFiles, ErrorsNameTheFile) {
  {
    testing::TempDir temp;
    const std::string dir = CopyOfFixture(temp);
    std::filesystem::remove(dir + "/target.spm");
    auto pair = LoadSeq2SeqTokenizers(dir);
    ASSERT_FALSE(pair.ok());
    EXPECT_NE(pair.message().find("target.spm"), std::string::npos) << pair.message();
    EXPECT_TRUE(LoadMarianTokenizer(dir, false).ok());  // the source side needs no target.spm
  }
  {
    testing::TempDir temp;
    const std::string dir = CopyOfFixture(temp);
    temp.Write("vocab.json", R"(["</s>", "<unk>"])");
    auto tokenizer = LoadMarianTokenizer(dir, false);
    ASSERT_FALSE(tokenizer.ok());
    EXPECT_NE(tokenizer.message().find("vocab.json"), std::string::npos) << tokenizer.message();
    EXPECT_NE(tokenizer.message().find("JSON object"), std::string::npos) << tokenizer.message();
  }
  {
    testing::TempDir temp;
    const std::string dir = CopyOfFixture(temp);
    temp.Write("vocab.json", R"({"</s>": 0, "<unk>": 1, "▁th": 99999999999})");
    auto tokenizer = LoadMarianTokenizer(dir, false);
    ASSERT_FALSE(tokenizer.ok());
    EXPECT_NE(tokenizer.message().find("vocab.json"), std::string::npos) << tokenizer.message();
    EXPECT_NE(tokenizer.message().find("99999999999"), std::string::npos) << tokenizer.message();
  }
  {
    testing::TempDir temp;
    const std::string dir = CopyOfFixture(temp);
    temp.Write("vocab.json", R"({"</s>": 0, "▁th": 1})");
    auto tokenizer = LoadMarianTokenizer(dir, false);
    ASSERT_FALSE(tokenizer.ok());
    EXPECT_NE(tokenizer.message().find("vocab.json"), std::string::npos) << tokenizer.message();
    EXPECT_NE(tokenizer.message().find("<unk>"), std::string::npos) << tokenizer.message();
  }
  {
    testing::TempDir temp;
    const std::string dir = CopyOfFixture(temp);
    temp.Write("tokenizer_config.json", R"({"separate_vocabs": "yes"})");
    auto tokenizer = LoadMarianTokenizer(dir, true);
    ASSERT_FALSE(tokenizer.ok());
    EXPECT_NE(tokenizer.message().find("tokenizer_config.json"), std::string::npos) << tokenizer.message();
    EXPECT_NE(tokenizer.message().find("separate_vocabs"), std::string::npos) << tokenizer.message();
  }
  {
    testing::TempDir temp;
    const std::string dir = CopyOfFixture(temp);
    temp.Write("tokenizer_config.json", R"({"separate_vocabs": true})");
    std::filesystem::remove(dir + "/target_vocab.json");
    auto decoder = LoadMarianDecoder(dir);
    ASSERT_FALSE(decoder.ok());
    EXPECT_NE(decoder.message().find("target_vocab.json"), std::string::npos) << decoder.message();
  }
  auto decoder = LoadMarianDecoder(kMarian);
  ASSERT_TRUE(decoder.ok()) << decoder.message();
  auto out_of_range = (*decoder)->Decode({5, 143});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.message().find("vocab.json"), std::string::npos) << out_of_range.message();
  EXPECT_NE(out_of_range.message().find("143"), std::string::npos) << out_of_range.message();
  EXPECT_NE(out_of_range.message().find("0..142"), std::string::npos) << out_of_range.message();
  EXPECT_FALSE((*decoder)->Decode({-1}).ok());
}

}  // namespace
}  // namespace attnviz::tokenize
