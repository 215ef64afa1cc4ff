#include "sweep.h"

#include <gtest/gtest.h>

using namespace attnviz;

namespace {
std::vector<Token> Words(const std::string& text) { return *Tokenize(text); }
}  // namespace

TEST(Sweep, HonoursTheScoreAndRawSources) {
  const std::vector<Token> tokens = Words("the cat sat on the extraordinarily warm mat");
  SweepOptions o;
  o.d_ks = {1, 4, 64};
  o.n_seeds = 1;
  AttentionConfig c;
  c.score = ScoreKind::kCosine;  // never divided by sqrt(d_k): the scaled and unscaled points agree
  auto cosine = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(cosine.ok()) << cosine.message();
  for (size_t i = 0; i < cosine->size(); i += 2) EXPECT_EQ((*cosine)[i].max_weight, (*cosine)[i + 1].max_weight);
  // Raw length features keep their width (1) at every d_k: every point is the same.
  c.query_from = c.key_from = FeatureSource::kLength;
  c.score = ScoreKind::kNegDistance;
  auto length = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(length.ok()) << length.message();
  for (const SweepPoint& p : *length) EXPECT_EQ(p.max_weight, (*length)[0].max_weight);
  // The default sweep differs from both (the sources and score are used, not ignored).
  auto plain = SweepDk({}, tokens, AttentionConfig(), o);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE((*plain)[4].max_weight, (*length)[4].max_weight);
  EXPECT_NE((*plain)[4].max_weight, (*cosine)[4].max_weight);
}

TEST(Sweep, RefusesTheDkThatMakesQueryAndKeyWidthsDiffer) {
  AttentionConfig c;
  c.query_from = FeatureSource::kLength;  // width 1 against projected keys of width d_k
  SweepOptions o;
  o.d_ks = {1, 2};
  o.n_seeds = 1;
  auto r = SweepDk({}, Words("a b c"), c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("d_k=2: a score needs d_q = d_k"), std::string::npos) << r.message();
  o.d_ks = {1};
  EXPECT_TRUE(SweepDk({}, Words("a b c"), c, o).ok());
}

TEST(Sweep, SampledRowsOfARawQueryFeatureKeepTheirPositions) {
  // q = k = position, dot score: row i's logits are i * j, so row 0 is uniform (max weight 1/40) and every other
  // row puts at least 1 - 1/e on the last key. One sampled row: renumbered from 0 it would always be uniform.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "w" + std::to_string(i % 7) + " ";
  AttentionConfig c;
  c.query_from = c.key_from = FeatureSource::kPosition;
  c.score = ScoreKind::kDot;
  SweepOptions o;
  o.d_ks = {8};
  o.n_seeds = 1;
  o.sample_above_rows = 10;
  o.sample_rows = 1;
  auto s = SweepDk({}, Words(text), c, o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ((*s)[0].rows, 1);
  EXPECT_GT((*s)[0].max_weight, 0.6f);
}
