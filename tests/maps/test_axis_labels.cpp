// core/maps/axis_labels: a thinned axis names whole words at word starts, never bare fragments.
#include "maps/axis_labels.h"

#include <gtest/gtest.h>

namespace attnviz {
namespace {

Token Piece(const std::string& display, size_t begin, size_t end, bool special = false) {
  Token t;
  t.display = display;
  t.byte_begin = begin;
  t.byte_end = end;
  t.special = special;
  return t;
}

std::vector<std::string> Displays(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(t.display);
  return out;
}

// "The cat sat on the mat" cut as a small BPE vocabulary cuts it: " c|at", " s|at", " m|at".
std::vector<Token> CatSatMat() {
  return {Piece("The", 0, 3),  Piece(" c", 3, 5),  Piece("at", 5, 7),   Piece(" s", 7, 9), Piece("at", 9, 11),
          Piece(" on", 11, 14), Piece(" the", 14, 18), Piece(" m", 18, 20), Piece("at", 20, 22)};
}

TEST(AxisLabels, WordStartsFollowSpacesSkippedBytesAndSpecialTokens) {
  std::vector<bool> starts = WordStarts(CatSatMat());
  EXPECT_EQ(starts, (std::vector<bool>{true, true, false, true, false, true, true, true, false}));
  // BERT drops the spaces: "[CLS] play ##ing games [SEP]" starts a word where bytes were skipped.
  std::vector<Token> bert = {Piece("[CLS]", 0, 0, true), Piece("play", 0, 4), Piece("ing", 4, 7),
                             Piece("games", 8, 13), Piece("[SEP]", 13, 13, true)};
  EXPECT_EQ(WordStarts(bert), (std::vector<bool>{true, true, false, true, true}));
  // A newline token is a word of its own, and the token after it starts one.
  std::vector<Token> lines = {Piece("a", 0, 1), Piece("\n", 1, 2), Piece("b", 2, 3), Piece("c", 3, 4)};
  EXPECT_EQ(WordStarts(lines), (std::vector<bool>{true, true, true, false}));
}

TEST(AxisLabels, AThinnedAxisNamesWholeWordsNotFragments) {
  std::vector<Token> tokens = CatSatMat();
  std::vector<AxisLabel> labels = ThinnedAxisLabels(Displays(tokens), WordStarts(tokens), 0, 9, 2);
  std::vector<std::string> texts;
  for (const AxisLabel& l : labels) texts.push_back(l.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"The", " sat", " on", " mat"}));
  for (size_t k = 1; k < labels.size(); ++k) EXPECT_GE(labels[k].index - labels[k - 1].index, 2) << "labels overlap";
  for (const AxisLabel& l : labels) EXPECT_NE(l.text, "at") << "a fragment named at " << l.index;
}

TEST(AxisLabels, StepOneNamesEveryTokenByItsOwnText) {
  std::vector<Token> tokens = CatSatMat();
  std::vector<AxisLabel> labels = ThinnedAxisLabels(Displays(tokens), WordStarts(tokens), 2, 6, 1);
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[0].index, 2);
  EXPECT_EQ(labels[0].text, "at");
  EXPECT_EQ(labels[3].text, " on");
}

TEST(AxisLabels, ALongWordWithoutStartsIsStillLabelledAndCutWithAnEllipsis) {
  std::vector<std::string> texts(40, "x");
  std::vector<bool> starts(40, false);
  starts[0] = true;
  std::vector<AxisLabel> labels = ThinnedAxisLabels(texts, starts, 0, 40, 4);
  ASSERT_GE(labels.size(), 4u) << "a 40-token word must not leave the axis bare";
  EXPECT_EQ(labels[0].text, "xxxxxxxx\xE2\x80\xA6");
  for (size_t k = 1; k < labels.size(); ++k) EXPECT_LE(labels[k].index - labels[k - 1].index, 8);
  // A window that begins inside a word labels from its first token on.
  std::vector<AxisLabel> window = ThinnedAxisLabels(texts, starts, 10, 20, 4);
  ASSERT_FALSE(window.empty());
  EXPECT_EQ(window.front().index, 10);
  for (const AxisLabel& l : window) EXPECT_TRUE(l.index >= 10 && l.index < 20);
}

}  // namespace
}  // namespace attnviz
