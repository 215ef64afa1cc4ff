// Exact ids for every sentence of sentences.json against the ids a peer gave (tests/fixtures/tokenize/README.md):
// GPT-2's own encoder (gpt-3-encoder) for vocab.json + merges.txt, Hugging Face's tokenizers library for every
// tokenizer.json and the BERT vocab.txt folders. Also: byte spans stay inside the text, in order, and cover
// every byte that is not whitespace or control.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tokenize/tokenizer.h"
#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

const std::string kFixtures = ATTNVIZ_TOKENIZE_FIXTURES;

nlohmann::json ReadJson(const std::string& path) { return testing::ReadJsonFile(path); }

std::string Escaped(const std::string& s) { return nlohmann::json(s).dump(); }

std::vector<int> Ids(const std::vector<Token>& tokens) {
  std::vector<int> ids;
  for (const auto& t : tokens) ids.push_back(t.id);
  return ids;
}

// Every byte of the text that a token does not cover must be one the pipeline drops (whitespace or control).
enum class Coverage {
  kTiles,           // byte-level BPE keeps every byte: spans are consecutive from 0 to the end
  kAllButSpace,     // only whitespace, controls and removed marks may be left out
  kInOrderOnly,     // the pre-tokenizer itself drops text (a delimiter, inverted matches)
};

void ExpectSpansCoverText(const std::string& text, const std::vector<Token>& tokens, Coverage coverage) {
  const bool tiles_exactly = coverage == Coverage::kTiles;
  std::vector<bool> covered(text.size(), false);
  size_t previous_begin = 0;
  for (const auto& t : tokens) {
    ASSERT_LE(t.byte_begin, t.byte_end) << Escaped(text);
    ASSERT_LE(t.byte_end, text.size()) << Escaped(text);
    if (t.special && t.byte_begin == t.byte_end) continue;
    EXPECT_GE(t.byte_begin, previous_begin) << "spans out of order in " << Escaped(text);
    previous_begin = t.byte_begin;
    for (size_t b = t.byte_begin; b < t.byte_end; ++b) covered[b] = true;
  }
  if (tiles_exactly) {
    // Byte-level BPE keeps every byte: non-special spans are consecutive, from 0 to the end.
    size_t at = 0;
    for (const auto& t : tokens) {
      if (t.byte_begin == t.byte_end) continue;  // inserted by the post-processor
      EXPECT_EQ(t.byte_begin, at) << Escaped(text);
      at = t.byte_end;
    }
    EXPECT_EQ(at, text.size()) << Escaped(text);
    return;
  }
  if (coverage == Coverage::kInOrderOnly) return;
  for (size_t b = 0; b < text.size(); ++b) {
    unsigned char c = static_cast<unsigned char>(text[b]);
    if (!covered[b] && c >= 0x80) continue;  // non-ASCII spaces, controls, marks a normalizer removed
    if (!covered[b]) {
      EXPECT_TRUE(c <= 0x20) << "byte " << b << " of " << Escaped(text) << " is in no token";
    }
  }
}

struct FixtureCase {
  const char* folder;
  bool has_no_special;  // expected.json also lists ids without special tokens
  Coverage coverage = Coverage::kAllButSpace;
};

class PeerFixture : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(PeerFixture, IdsMatchThePeerForEverySentence) {
  const FixtureCase& c = GetParam();
  const std::string dir = kFixtures + "/" + c.folder;
  auto tokenizer = LoadTokenizer(dir);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  nlohmann::json expected = ReadJson(dir + "/expected.json");
  nlohmann::json sentences = ReadJson(kFixtures + "/sentences.json");
  ASSERT_EQ(expected.size(), sentences.size()) << "expected.json is stale: run regenerate.sh";
  ASSERT_GE(expected.size(), 60u);
  for (const auto& item : expected) {
    const std::string text = item["text"].get<std::string>();
    auto tokens = (*tokenizer)->Encode(text);
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    EXPECT_EQ(Ids(*tokens), item["ids"].get<std::vector<int>>()) << c.folder << ": " << Escaped(text);
    ExpectSpansCoverText(text, *tokens, c.coverage);
    if (c.has_no_special) {
      auto plain = (*tokenizer)->Encode(text, /*add_special_tokens=*/false);
      ASSERT_TRUE(plain.ok()) << plain.message();
      EXPECT_EQ(Ids(*plain), item["ids_no_special"].get<std::vector<int>>()) << c.folder << ": " << Escaped(text);
    }
    for (const auto& t : *tokens) {
      auto piece = (*tokenizer)->IdToPiece(t.id);
      ASSERT_TRUE(piece.has_value()) << t.id;
      EXPECT_EQ(*piece, t.piece);
      // What the app's predictions show for an id reads as the same token in a text does.
      auto display = (*tokenizer)->IdToDisplay(t.id);
      ASSERT_TRUE(display.has_value()) << t.id;
      EXPECT_EQ(*display, t.display) << c.folder << ": id " << t.id;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Peers, PeerFixture,
    ::testing::Values(FixtureCase{"gpt2", false, Coverage::kTiles}, FixtureCase{"bytelevel_bpe", true, Coverage::kTiles},
                      FixtureCase{"roberta_style", true}, FixtureCase{"roberta_legacy", true},
                      FixtureCase{"qwen2_style", true},
                      FixtureCase{"llama3_style", true}, FixtureCase{"llama_style", true},
                      FixtureCase{"llama_legacy_style", true}, FixtureCase{"metaspace_split", true},
                      FixtureCase{"bert_uncased", true}, FixtureCase{"bert_cased", true},
                      FixtureCase{"bert_json", true}, FixtureCase{"wordpiece_misc", true},
                      FixtureCase{"split_removed", true}, FixtureCase{"split_isolated", true},
                      FixtureCase{"split_merged_previous", true},
                      FixtureCase{"split_merged_next", true}, FixtureCase{"split_contiguous", true},
                      FixtureCase{"split_invert", true, Coverage::kInOrderOnly}, FixtureCase{"pretokenizers_misc", true, Coverage::kInOrderOnly},
                      // The newer families' layouts (make_family_fixtures.js).
                      FixtureCase{"neox_style", true, Coverage::kTiles}, FixtureCase{"qwen3_style", true, Coverage::kTiles},
                      FixtureCase{"olmo2_style", true, Coverage::kTiles}, FixtureCase{"gemma_style", true},
                      FixtureCase{"phi3_style", true}, FixtureCase{"t5_style", true},
                      FixtureCase{"roberta_small", true}),
    [](const ::testing::TestParamInfo<FixtureCase>& info) { return std::string(info.param.folder); });

TEST(PeerFixtures, LoaderPicksTheFormatByFiles) {
  auto gpt2 = LoadTokenizer(kFixtures + "/gpt2");
  ASSERT_TRUE(gpt2.ok()) << gpt2.message();
  EXPECT_EQ((*gpt2)->vocab_size(), 50257u);
  EXPECT_NE((*gpt2)->Describe().find("GPT-2"), std::string::npos);
  auto bert = LoadTokenizer(kFixtures + "/bert_uncased");
  ASSERT_TRUE(bert.ok()) << bert.message();
  EXPECT_NE((*bert)->Describe().find("WordPiece"), std::string::npos);
  auto json = LoadTokenizer(kFixtures + "/qwen2_style");
  ASSERT_TRUE(json.ok()) << json.message();
  EXPECT_NE((*json)->Describe().find("tokenizer.json"), std::string::npos);
}

}  // namespace
}  // namespace attnviz::tokenize
