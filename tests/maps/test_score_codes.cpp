// core/maps/score_codes: raw scores as 16-bit codes, within half a step of the scores, and valid only for the
// q and k they were made from.
#include "maps/score_codes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include "base/random.h"

using namespace attnviz;

namespace {
// scores [rows, n_k]: normal draws times `spread`, plus a spike in row 1.
std::vector<float> SomeScores(size_t rows, size_t n_k, float spread) {
  std::vector<float> s(rows * n_k);
  for (size_t i = 0; i < s.size(); ++i) s[i] = spread * NormalAt(7, 3, i);
  s[1 * n_k + 5] = 60.0f * spread;
  return s;
}
}  // namespace

TEST(ScoreCodes, DecodedScoresAreWithinHalfAStepOfEachRow) {
  const size_t n_head = 2, n_q = 24, n_k = 300;
  ScoreCodes c;
  c.Reset(n_head, n_q, n_k);
  for (float spread : {1e-3f, 1.0f, 8.0f, 1e4f}) {
    const std::vector<float> s = SomeScores(8, n_k, spread);
    ASSERT_TRUE(EncodeScoreRows(s.data(), 1, 16, 8, &c));
    std::vector<float> back(8 * n_k);
    DecodeScoreRows(c, 1, 16, 8, back.data());
    for (size_t r = 0; r < 8; ++r) {
      float lo = s[r * n_k], hi = lo;
      for (size_t j = 0; j < n_k; ++j) lo = std::min(lo, s[r * n_k + j]), hi = std::max(hi, s[r * n_k + j]);
      const float bound = (hi - lo) / 65535.0f * 0.5f + 4 * std::numeric_limits<float>::epsilon() * std::abs(hi - lo) +
                          std::numeric_limits<float>::epsilon() * std::max(std::abs(lo), std::abs(hi));
      for (size_t j = 0; j < n_k; ++j) ASSERT_LE(std::abs(back[r * n_k + j] - s[r * n_k + j]), bound) << spread;
    }
  }
}

TEST(ScoreCodes, AConstantRowIsExactAndANonFiniteRowIsRefused) {
  ScoreCodes c;
  c.Reset(1, 2, 4);
  const float same[4] = {2.5f, 2.5f, 2.5f, 2.5f};
  ASSERT_TRUE(EncodeScoreRows(same, 0, 0, 1, &c));
  float back[4];
  DecodeScoreRows(c, 0, 0, 1, back);
  for (float b : back) EXPECT_EQ(b, 2.5f);
  const float inf[4] = {1.0f, std::numeric_limits<float>::infinity(), 0.0f, 2.0f};
  EXPECT_FALSE(EncodeScoreRows(inf, 0, 1, 1, &c));
  const float wide[4] = {-3e38f, 3e38f, 0.0f, 1.0f};  // max - min overflows float
  EXPECT_FALSE(EncodeScoreRows(wide, 0, 1, 1, &c));
}

TEST(ScoreCodes, ValidOnlyForTheQueriesAndKeysTheyWereMadeFrom) {
  auto q = std::make_shared<Tensor>(), k = std::make_shared<Tensor>();
  q->Resize({1, 2, 3});
  k->Resize({1, 2, 3});
  for (size_t i = 0; i < 6; ++i) q->data[i] = (float)i, k->data[i] = (float)(6 - i);
  ScoreCodes c;
  c.Reset(1, 2, 2);
  EXPECT_FALSE(c.MadeFrom(*q, *k));  // being written
  c.q = q, c.k = k;
  EXPECT_TRUE(c.MadeFrom(*q, *k));
  Tensor equal_q = *q;  // another tensor with the same numbers (the twin's q)
  EXPECT_TRUE(c.MadeFrom(equal_q, *k));
  equal_q.data[4] += 1e-6f;
  EXPECT_FALSE(c.MadeFrom(equal_q, *k));
  c.Reset(1, 2, 2);
  EXPECT_FALSE(c.MadeFrom(*q, *k));
}
