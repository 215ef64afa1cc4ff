// core/maps/pooled_map.*: a map pooled in f x f blocks against a brute-force pooling of every block (max, and the
// mean over the cells covered), against the app's pyramid at its own factors, the pooled grid's mask against
// "every covered cell masked", the blocks' labels and the title's words.
#include "maps/pooled_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "attention/mask.h"
#include "base/tensor.h"

namespace attnviz {
namespace {

// Softmax-like rows [n, n] under `mask`: visible cells positive and summing to 1, masked cells exactly 0.
std::vector<float> MaskedRows(int n, const Mask& mask, uint32_t seed) {
  std::mt19937 rng(seed);
  std::exponential_distribution<float> e(1.0f);
  std::vector<float> p((size_t)n * n, 0.0f);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = mask.Begin(i); j < mask.End(i, n); ++j) s += p[(size_t)i * n + j] = e(rng);
    for (int j = mask.Begin(i); j < mask.End(i, n); ++j) p[(size_t)i * n + j] /= (float)s;
  }
  return p;
}

TEST(PooledMap, EveryBlockIsTheMaxOrTheMeanOfTheCellsItCovers) {
  for (int n : {1, 7, 13, 16, 33})
    for (int f : {1, 2, 3, 4, 8, 40})
      for (const Mask& mask : {Mask::Bidirectional(), Mask::Causal(), Mask::Causal(5)}) {
        SCOPED_TRACE("n " + std::to_string(n) + ", f " + std::to_string(f) + ", window " + std::to_string(mask.window));
        const std::vector<float> plane = MaskedRows(n, mask, (uint32_t)(n * 100 + f));
        const int nb = PooledSide(n, f);
        ASSERT_EQ(nb, (n + f - 1) / f);
        std::vector<float> max((size_t)nb * nb, -1.0f), mean((size_t)nb * nb, -1.0f);
        PoolMapPlane(plane.data(), n, n, f, PoolKind::kMax, max.data());
        PoolMapPlane(plane.data(), n, n, f, PoolKind::kMean, mean.data());
        for (int bi = 0; bi < nb; ++bi)
          for (int bj = 0; bj < nb; ++bj) {
            float m = 0;
            double s = 0;
            int cells = 0;
            for (int i = bi * f; i < std::min(n, (bi + 1) * f); ++i)
              for (int j = bj * f; j < std::min(n, (bj + 1) * f); ++j) m = std::max(m, plane[(size_t)i * n + j]), s += plane[(size_t)i * n + j], ++cells;
            EXPECT_EQ(max[(size_t)bi * nb + bj], m) << bi << "," << bj;
            EXPECT_NEAR(mean[(size_t)bi * nb + bj], s / cells, 1e-7) << bi << "," << bj;
          }
        // mean keeps the rows' sums: a block row's cells, each times the cells it covers, add up to its rows.
        for (int bi = 0; bi < nb; ++bi) {
          double total = 0;
          const int rows = std::min(n, (bi + 1) * f) - bi * f;
          for (int bj = 0; bj < nb; ++bj)
            total += (double)mean[(size_t)bi * nb + bj] * rows * (std::min(n, (bj + 1) * f) - bj * f);
          EXPECT_NEAR(total, rows, 1e-5) << "block row " << bi;
        }
      }
}

// The app's pooled view (maps/pyramid.h) at its factors: the same max bit for bit, the same mean within rounding.
TEST(PooledMap, AgreesWithThePyramidAtItsFactors) {
  const int n = 37;
  const Mask mask = Mask::Causal();
  const std::vector<float> plane = MaskedRows(n, mask, 7);
  Tensor probs;
  probs.Resize({1, (size_t)n, (size_t)n});
  std::copy(plane.begin(), plane.end(), probs.data.begin());
  MapPyramid pyramid;
  pyramid.Reset(1, n, n, 2, mask);
  pyramid.AddMap(probs);
  pyramid.Finish();
  int checked = 0;
  for (const PyramidLevel& level : pyramid.levels()) {
    const int nb = PooledSide(n, level.factor);
    ASSERT_EQ(level.rows, nb);
    std::vector<float> max((size_t)nb * nb), mean((size_t)nb * nb);
    PoolMapPlane(plane.data(), n, n, level.factor, PoolKind::kMax, max.data());
    PoolMapPlane(plane.data(), n, n, level.factor, PoolKind::kMean, mean.data());
    for (size_t c = 0; c < max.size(); ++c) {
      EXPECT_EQ(max[c], level.Plane(PoolKind::kMax, 0)[c]) << "factor " << level.factor << " cell " << c;
      EXPECT_NEAR(mean[c], level.Plane(PoolKind::kMean, 0)[c], 1e-6) << "factor " << level.factor << " cell " << c;
    }
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

// A pooled cell is masked (drawn grey) exactly when every cell it covers is masked.
TEST(PooledMap, ThePooledMaskHidesTheBlocksWhoseEveryCellIsMasked) {
  for (int n : {9, 24, 31})
    for (int f : {1, 2, 3, 4, 8})
      for (const Mask& mask : {Mask::Bidirectional(), Mask::Causal(), Mask::Causal(1), Mask::Causal(4),
                               Mask::Causal(5), Mask::Causal(8), Mask::Causal(9)}) {
        const Mask pooled = PooledMask(mask, f);
        const int nb = PooledSide(n, f);
        for (int bi = 0; bi < nb; ++bi)
          for (int bj = 0; bj < nb; ++bj) {
            bool all = true;
            for (int i = bi * f; i < std::min(n, (bi + 1) * f); ++i)
              for (int j = bj * f; j < std::min(n, (bj + 1) * f); ++j) all = all && mask.Masked(i, j, n);
            EXPECT_EQ(pooled.Masked(bi, bj, nb), all) << "n " << n << ", f " << f << ", window " << mask.window
                                                      << ": block " << bi << "," << bj;
          }
      }
}

TEST(PooledMap, BlocksAreLabelledByTheirTokensAndTheTitleNamesThePooling) {
  const std::vector<Token> blocks = BlockTokens(17, 8);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].display, "0-7");
  EXPECT_EQ(blocks[1].display, "8-15");
  EXPECT_EQ(blocks[2].display, "16");  // the last block holds one token
  EXPECT_EQ(BlockTokens(18, 8)[2].display, "16-17");
  EXPECT_EQ(PooledTitle(PoolKind::kMax, 8), "max-pooled 8x8");
  EXPECT_EQ(PooledTitle(PoolKind::kMean, 4), "mean-pooled 4x4");
}

}  // namespace
}  // namespace attnviz
