// core/base/matmul.*: the one tiled product equals the plain product, in both weight layouts and with row
// strides, at sizes that leave partial tiles; its bits do not depend on the thread count.
#include "base/matmul.h"

#include "base/tensor.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace attnviz {
namespace {

std::vector<float> RandomFloats(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(count);
  for (float& f : v) f = normal(rng);
  return v;
}

struct Case {
  size_t n, depth, cols;
};

// n and cols not multiples of the tile (partial tiles on both edges), and one product below the threading threshold.
const Case kCases[] = {{1, 7, 5}, {3, 64, 1100}, {1100, 96, 530}, {700, 300, 1025}};

TEST(MatMulTiled, EqualsThePlainProductInBothLayoutsWithStrides) {
  for (const Case& c : kCases) {
    for (WeightLayout layout : {WeightLayout::kInOut, WeightLayout::kOutIn}) {
      const size_t ldx = c.depth + 3, ldy = c.cols + 5;
      const size_t ldw = (layout == WeightLayout::kInOut ? c.cols : c.depth) + 2;
      const size_t w_rows = layout == WeightLayout::kInOut ? c.depth : c.cols;
      const std::vector<float> x = RandomFloats(c.n * ldx, 1), w = RandomFloats(w_rows * ldw, 2);
      std::vector<float> y(c.n * ldy, -7.0f);  // the stride's gap must keep its -7
      MatMulTiled(x.data(), ldx, c.n, c.depth, w.data(), ldw, layout, c.cols, y.data(), ldy);
      // The reference: double sums, one dot product per cell.
      double worst = 0;
      for (size_t i = 0; i < c.n; ++i) {
        for (size_t j = 0; j < c.cols; ++j) {
          double s = 0, scale = 0;
          for (size_t k = 0; k < c.depth; ++k) {
            const double wk = layout == WeightLayout::kInOut ? w[k * ldw + j] : w[j * ldw + k];
            s += (double)x[i * ldx + k] * wk;
            scale += std::abs((double)x[i * ldx + k] * wk);
          }
          worst = std::max(worst, std::abs(y[i * ldy + j] - s) / (scale + 1e-30));
        }
        for (size_t j = c.cols; j < ldy; ++j) ASSERT_EQ(y[i * ldy + j], -7.0f) << "row " << i << " col " << j;
      }
      EXPECT_LT(worst, 1e-6) << "n " << c.n << " depth " << c.depth << " cols " << c.cols << " layout "
                             << (layout == WeightLayout::kInOut ? "in_out" : "out_in");
    }
  }
}

TEST(MatMulTiled, BitsDoNotDependOnTheThreadCount) {
  const Case c{1100, 96, 1030};
  const std::vector<float> x = RandomFloats(c.n * c.depth, 3), w = RandomFloats(c.depth * c.cols, 4);
  std::vector<float> one(c.n * c.cols), two(c.n * c.cols);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  MatMulTiled(x.data(), c.depth, c.n, c.depth, w.data(), c.cols, WeightLayout::kInOut, c.cols, one.data(), c.cols);
  omp_set_num_threads(2);
  MatMulTiled(x.data(), c.depth, c.n, c.depth, w.data(), c.cols, WeightLayout::kInOut, c.cols, two.data(), c.cols);
  omp_set_num_threads(saved);
  EXPECT_EQ(0, std::memcmp(one.data(), two.data(), one.size() * sizeof(float)));
}

// The bias added to each tile after its product equals the product first, then the bias over all of y, bit for bit
// (in both layouts, with strides and partial tiles); the stride's gap is left alone.
TEST(MatMulTiled, ABiasAddedPerTileIsTheProductThenTheBias) {
  for (const Case& c : kCases) {
    for (WeightLayout layout : {WeightLayout::kInOut, WeightLayout::kOutIn}) {
      const size_t ldx = c.depth + 1, ldy = c.cols + 3, ldw = (layout == WeightLayout::kInOut ? c.cols : c.depth);
      const std::vector<float> x = RandomFloats(c.n * ldx, 5), bias = RandomFloats(c.cols, 6);
      const std::vector<float> w = RandomFloats((layout == WeightLayout::kInOut ? c.depth : c.cols) * ldw, 7);
      std::vector<float> want(c.n * ldy, -7.0f), got(c.n * ldy, -7.0f);
      MatMulTiled(x.data(), ldx, c.n, c.depth, w.data(), ldw, layout, c.cols, want.data(), ldy);
      for (size_t i = 0; i < c.n; ++i)
        for (size_t j = 0; j < c.cols; ++j) want[i * ldy + j] += bias[j];
      MatMulTiled(x.data(), ldx, c.n, c.depth, w.data(), ldw, layout, c.cols, got.data(), ldy, bias.data());
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)))
          << "n " << c.n << " depth " << c.depth << " cols " << c.cols;
    }
  }
}

// tile_done sees every cell of y exactly once, and when it does the cell holds its final value (bias included).
TEST(MatMulTiled, TileDoneSeesEachTileOnceWhenItIsFinal) {
  for (const Case& c : kCases) {
    const size_t ldy = c.cols + 2;
    const std::vector<float> x = RandomFloats(c.n * c.depth, 8), w = RandomFloats(c.depth * c.cols, 9);
    const std::vector<float> bias = RandomFloats(c.cols, 10);
    std::vector<float> want(c.n * ldy), y(c.n * ldy);
    MatMulTiled(x.data(), c.depth, c.n, c.depth, w.data(), c.cols, WeightLayout::kInOut, c.cols, want.data(), ldy,
                bias.data());
    std::vector<int> seen(c.n * ldy, 0);
    std::vector<int> final_when_seen(c.n * ldy, 0);
    const TileDone done = [&](size_t r0, size_t rows, size_t c0, size_t width) {
      for (size_t i = r0; i < r0 + rows; ++i)
        for (size_t j = c0; j < c0 + width; ++j) {
          seen[i * ldy + j] += 1;  // distinct cells per call: no two threads write one
          final_when_seen[i * ldy + j] = std::memcmp(&y[i * ldy + j], &want[i * ldy + j], sizeof(float)) == 0;
        }
    };
    const int saved = omp_get_max_threads();
    omp_set_num_threads(2);
    MatMulTiled(x.data(), c.depth, c.n, c.depth, w.data(), c.cols, WeightLayout::kInOut, c.cols, y.data(), ldy,
                bias.data(), &done);
    omp_set_num_threads(saved);
    for (size_t i = 0; i < c.n; ++i)
      for (size_t j = 0; j < c.cols; ++j) {
        ASSERT_EQ(seen[i * ldy + j], 1) << "n " << c.n << " cols " << c.cols << " cell " << i << ", " << j;
        ASSERT_EQ(final_when_seen[i * ldy + j], 1) << "n " << c.n << " cols " << c.cols << " cell " << i << ", " << j;
      }
  }
}

TEST(MatMulTiled, InsideAParallelRegionEachThreadGetsItsOwnProduct) {
  const Case c{600, 64, 700};
  const std::vector<float> x = RandomFloats(c.n * c.depth, 5), w = RandomFloats(c.depth * c.cols, 6);
  std::vector<float> alone(c.n * c.cols);
  MatMulTiled(x.data(), c.depth, c.n, c.depth, w.data(), c.cols, WeightLayout::kInOut, c.cols, alone.data(), c.cols);
  std::vector<std::vector<float>> each(4, std::vector<float>(c.n * c.cols));
#pragma omp parallel for num_threads(2)
  for (int t = 0; t < 4; ++t)
    MatMulTiled(x.data(), c.depth, c.n, c.depth, w.data(), c.cols, WeightLayout::kInOut, c.cols, each[t].data(), c.cols);
  for (const auto& e : each) EXPECT_EQ(0, std::memcmp(alone.data(), e.data(), e.size() * sizeof(float)));
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// The rows [s, n) of a product, run alone with first_row = s, are the bits of the product over [0, n) when s is a
// multiple of kMatMulRowGroup and neither product has a 1-row last tile the other has not (the rule a causal run
// continuing from a kept prefix follows, core/model/prefix_cache.h). Starting at any row instead changes some rows:
// the rule is needed, not a precaution.
TEST(MatMulTiled, RowsAfterAGroupStartAreTheLongerProductsBits) {
  const size_t n = 1100;
  size_t naive_differ = 0;
  for (const size_t depth : {16, 64, 576}) {
    for (const size_t cols : {3, 64, 576}) {
      for (const WeightLayout layout : {WeightLayout::kInOut, WeightLayout::kOutIn}) {
        const std::vector<float> x = RandomFloats(n * depth, 11), w = RandomFloats(depth * cols, 12);
        const size_t ldw = layout == WeightLayout::kInOut ? cols : depth;
        std::vector<float> full(n * cols), part(n * cols);
        MatMulTiled(x.data(), depth, n, depth, w.data(), ldw, layout, cols, full.data(), cols);
        for (const size_t s : {16, 496, 512, 528, 1040, 1088}) {
          SCOPED_TRACE("depth " + std::to_string(depth) + " cols " + std::to_string(cols) + " from row " +
                       std::to_string(s));
          MatMulTiled(x.data() + s * depth, depth, n - s, depth, w.data(), ldw, layout, cols, part.data(), cols,
                      nullptr, nullptr, s);
          ASSERT_EQ(0, std::memcmp(part.data(), full.data() + s * cols, (n - s) * cols * sizeof(float)));
        }
        for (const size_t p : {1, 1093, 1099}) {  // not a group start: a product cut elsewhere
          MatMulTiled(x.data() + p * depth, depth, n - p, depth, w.data(), ldw, layout, cols, part.data(), cols);
          naive_differ += std::memcmp(part.data(), full.data() + p * cols, (n - p) * cols * sizeof(float)) != 0;
        }
      }
    }
  }
  EXPECT_GT(naive_differ, 0u) << "rows cut anywhere kept their bits here: the test no longer shows why the rule is";
}

}  // namespace
}  // namespace attnviz
