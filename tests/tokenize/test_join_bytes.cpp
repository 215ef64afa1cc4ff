// Token::bytes / display and JoinBytePieces: byte-level tokens that cut a character are grouped back into it.
#include <gtest/gtest.h>

#include "tokenize/shown_text.h"
#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

const std::string kFixtures = ATTNVIZ_TOKENIZE_FIXTURES;

Token Bytes(const std::string& bytes, size_t begin, size_t end, bool special = false) {
  Token t;
  t.bytes = bytes;
  t.display = ReadableBytes(bytes);
  t.byte_begin = begin;
  t.byte_end = end;
  t.special = special;
  return t;
}

TEST(JoinBytePieces, JoinsASyllableSplitAcrossTokens) {
  // "나" is EB 82 98.
  std::vector<Token> tokens = {Bytes(" ", 0, 1), Bytes("\xEB\x82", 1, 3), Bytes("\x98", 3, 4), Bytes("a", 4, 5)};
  EXPECT_EQ(tokens[1].display, "<0xEB><0x82>");
  auto groups = JoinBytePieces(tokens);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[1].first, 1u);
  EXPECT_EQ(groups[1].count, 2u);
  EXPECT_EQ(groups[1].display, "나");
  EXPECT_EQ(groups[1].byte_begin, 1u);
  EXPECT_EQ(groups[1].byte_end, 4u);
  EXPECT_EQ(groups[2].display, "a");
}

TEST(JoinBytePieces, SpecialTokensStayAloneAndLooseBytesStayReadable) {
  std::vector<Token> tokens = {Bytes("[CLS]", 0, 0, true), Bytes("\xEB", 0, 1), Bytes("[SEP]", 1, 1, true)};
  auto groups = JoinBytePieces(tokens);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].display, "[CLS]");
  EXPECT_EQ(groups[1].display, "<0xEB>");
  EXPECT_EQ(groups[2].display, "[SEP]");
}

TEST(JoinBytePieces, Gpt2HangulRoundTrips) {
  auto tok = LoadTokenizer(kFixtures + "/gpt2");
  ASSERT_TRUE(tok.ok()) << tok.message();
  const std::string text = "나는 사과를 먹었다";
  auto tokens = (*tok)->Encode(text);
  ASSERT_TRUE(tokens.ok());
  // GPT-2 has few Hangul tokens: some syllables are cut into byte pieces.
  bool some_piece_is_partial = false;
  for (const auto& t : *tokens) some_piece_is_partial |= t.display.find("<0x") != std::string::npos;
  EXPECT_TRUE(some_piece_is_partial);
  auto groups = JoinBytePieces(*tokens);
  std::string joined;
  for (const auto& g : groups) {
    EXPECT_EQ(g.display.find("<0x"), std::string::npos) << g.display;
    EXPECT_EQ(text.substr(g.byte_begin, g.byte_end - g.byte_begin), g.display);
    joined += g.display;
  }
  EXPECT_EQ(joined, text);
  EXPECT_LT(groups.size(), tokens->size());
}

TEST(TokenDisplay, ByteLevelMetaspaceAndByteFallbackPiecesReadBack) {
  auto gpt2 = LoadTokenizer(kFixtures + "/gpt2");
  ASSERT_TRUE(gpt2.ok());
  auto t = (*gpt2)->Encode("Hello world\n");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ((*t)[1].piece, "\xC4\xA0world");  // "Ġworld"
  EXPECT_EQ((*t)[1].display, " world");
  EXPECT_EQ((*t)[2].display, "\n");

  auto llama = LoadTokenizer(kFixtures + "/llama_style");
  ASSERT_TRUE(llama.ok());
  auto l = (*llama)->Encode("나");
  ASSERT_TRUE(l.ok());
  // <s>, "▁", then the three byte-fallback tokens of 나.
  ASSERT_EQ(l->size(), 5u);
  EXPECT_TRUE((*l)[0].special);
  EXPECT_EQ((*l)[1].display, " ");
  EXPECT_EQ((*l)[2].piece, "<0xEB>");
  EXPECT_EQ((*l)[2].bytes, "\xEB");
  auto groups = JoinBytePieces(*l);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[2].display, "나");
}

// One way a token is written for a person: a leading space shows ("·Pluto"), Ġ/Ċ are read back to their bytes, a
// newline is written "\n", and a loose byte of a cut character is <0xNN>, never U+FFFD.
TEST(TokenDisplay, ShownTextMakesLeadingSpacesAndLooseBytesVisible) {
  auto gpt2 = LoadTokenizer(kFixtures + "/gpt2");
  ASSERT_TRUE(gpt2.ok());
  auto t = (*gpt2)->Encode("Hello world\n");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ(ShownText((*t)[0].display), "Hello");
  EXPECT_EQ(ShownText((*t)[1].display), "\xC2\xB7world");  // "·world", from "Ġworld"
  EXPECT_EQ(ShownText((*t)[2].display), "\\n");            // from "Ċ"
  auto id = (*gpt2)->IdToDisplay((*t)[1].id);
  ASSERT_TRUE(id);
  EXPECT_EQ(ShownText(*id), ShownText((*t)[1].display));
  EXPECT_EQ(ShownText("  a b"), "\xC2\xB7\xC2\xB7" "a b");  // inner spaces stay spaces
  EXPECT_EQ(ShownText(" \xEB"), "\xC2\xB7<0xEB>");      // a cut character's first byte
  EXPECT_EQ(ShownText("\x01"), "<0x01>");
  auto korean = (*gpt2)->Encode("나는 사과를");
  ASSERT_TRUE(korean.ok());
  for (const auto& token : *korean) {
    const std::string shown = ShownText(token.display);
    EXPECT_EQ(shown.find("\xEF\xBF\xBD"), std::string::npos) << shown;  // U+FFFD
    EXPECT_EQ(shown.find("\xC4\xA0"), std::string::npos) << shown;      // Ġ
  }
}

}  // namespace
}  // namespace attnviz::tokenize
