#include "lessons/dot_variance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace attnviz;

TEST(DotVariance, StdOfQDotKGrowsLikeSqrtDk) {
  const int n = 20000;
  for (int d_k : {1, 16, 256}) {
    DotVariance v = SampleDotProducts(d_k, n, 16, 7);
    ASSERT_EQ(v.samples.size(), (size_t)n);
    EXPECT_DOUBLE_EQ(v.expected_std, std::sqrt((double)d_k));
    // The sample std's standard error: sigma * sqrt((kurtosis - 1) / (4n)); q.k has kurtosis 3 + 6/d_k.
    const double se = v.expected_std * std::sqrt((2.0 + 6.0 / d_k) / (4.0 * n));
    EXPECT_NEAR(v.std, v.expected_std, 5 * se) << "d_k=" << d_k;
    EXPECT_NEAR(v.mean, 0.0, 5 * v.expected_std / std::sqrt((double)n)) << "d_k=" << d_k;
  }
}

TEST(DotVariance, UnscaledRowPilesOntoOneKeyScaledRowDoesNot) {
  DotVariance v = SampleDotProducts(512, 100, 16, 3);
  ASSERT_EQ(v.row_unscaled.size(), 16u);
  const float max_unscaled = *std::max_element(v.row_unscaled.begin(), v.row_unscaled.end());
  const float max_scaled = *std::max_element(v.row_scaled.begin(), v.row_scaled.end());
  EXPECT_GT(max_unscaled, 0.99f);
  EXPECT_LT(max_scaled, 0.9f);
  for (const auto* row : {&v.row_unscaled, &v.row_scaled}) {
    EXPECT_NEAR(std::accumulate(row->begin(), row->end(), 0.0), 1.0, 1e-5);
    for (float p : *row) EXPECT_TRUE(std::isfinite(p) && p >= 0);
  }
  // The same key leads both rows (scaling divides every logit by one number).
  EXPECT_EQ(std::max_element(v.row_unscaled.begin(), v.row_unscaled.end()) - v.row_unscaled.begin(),
            std::max_element(v.row_scaled.begin(), v.row_scaled.end()) - v.row_scaled.begin());
  // Same seed, same picture.
  EXPECT_EQ(SampleDotProducts(512, 100, 16, 3).samples, v.samples);
}

TEST(DotVariance, HistogramCountsEverySampleOnce) {
  const std::vector<float> s = {-10, -1, -0.5f, 0, 0.25f, 0.9f, 10};
  const std::vector<int> c = HistogramCounts(s, 4, -1, 1);
  EXPECT_EQ(c, (std::vector<int>{2, 1, 2, 2}));  // -10 clamps into the first bin, 10 into the last
}
