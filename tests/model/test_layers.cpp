// core/model/layers.*: each layer against a plain double loop.
#include "model/layers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "base/check.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

std::vector<float> Randn(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = nd(rng);
  return v;
}

TEST(Layers, LinearBothLayoutsAndColumnBlocks) {
  const int n = 5, in = 7, out = 3;
  const auto x = Randn(n * in, 1), w = Randn(out * in, 2), b = Randn(out, 3);
  // nn.Linear [out, in]
  Linear l{w.data(), b.data(), in, out, false, in};
  std::vector<float> y(n * 4, 99.0f);
  LinearForward(x.data(), in, n, l, y.data(), 4);  // row stride 4 > out: column 3 untouched
  // Conv1D [in, out] = the transpose, taken as a column block of a wider [in, 2 out] weight
  std::vector<float> wt(in * 2 * out, 0.0f);
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; ++i) wt[i * 2 * out + out + o] = w[o * in + i];
  Linear c{wt.data() + out, b.data(), in, out, true, 2 * out};
  std::vector<float> y2(n * out);
  LinearForward(x.data(), in, n, c, y2.data(), out);
  for (int r = 0; r < n; ++r) {
    for (int o = 0; o < out; ++o) {
      double want = b[o];
      for (int i = 0; i < in; ++i) want += (double)x[r * in + i] * w[o * in + i];
      EXPECT_NEAR(y[r * 4 + o], want, 1e-5);
      EXPECT_NEAR(y2[r * out + o], want, 1e-5);
    }
    EXPECT_EQ(y[r * 4 + 3], 99.0f);
  }
}

// LayerNorm (w, b, eps 1e-5) and RMSNorm (w, eps 1e-6) of rows x [n, d] in double loops: {layer norm, rms norm}.
std::pair<std::vector<double>, std::vector<double>> DoubleNorms(const std::vector<float>& x, int n, int d,
                                                                const std::vector<float>& w,
                                                                const std::vector<float>& b) {
  std::vector<double> ln((size_t)n * d), rms((size_t)n * d);
  for (int i = 0; i < n; ++i) {
    double mean = 0, var = 0, ms = 0;
    for (int j = 0; j < d; ++j) mean += x[i * d + j] / (double)d;
    for (int j = 0; j < d; ++j) var += std::pow(x[i * d + j] - mean, 2) / d, ms += std::pow(x[i * d + j], 2) / d;
    for (int j = 0; j < d; ++j) {
      ln[i * d + j] = (x[i * d + j] - mean) / std::sqrt(var + 1e-5) * w[j] + b[j];
      rms[i * d + j] = x[i * d + j] / std::sqrt(ms + 1e-6) * w[j];
    }
  }
  return {ln, rms};
}

// The entry checks name the condition and both sides' shapes (core/base/check.h), then stop.
TEST(LayersDeathTest, ALinearOfTheWrongWidthStopsWithBothShapes) {
  const int n = 2, in = 4, out = 3;
  const auto x = Randn(n * in, 1), w = Randn(out * in, 2);
  Linear l{w.data(), nullptr, in, out, false, in};
  std::vector<float> y(n * out);
  EXPECT_DEATH(LinearForward(x.data(), in - 1, n, l, y.data(), out),
               "shape check failed at .*ldx >= l.in.* \\(x \\[2, 4\\] \\(ld 3\\) -> y \\[2, 3\\] \\(ld 3\\)\\)");
}

// One formatter for a tensor's size_t shape, a file's int64_t one and a braced list.
TEST(Layers, ShapeStringIsOneFormatterForEveryShape) {
  EXPECT_EQ(ShapeString(std::vector<size_t>{2, 3, 4}), "[2, 3, 4]");
  EXPECT_EQ(ShapeString(std::vector<int64_t>{32, -1}), "[32, -1]");
  EXPECT_EQ(ShapeString({size_t(5)}), "[5]");
  EXPECT_EQ(ShapeString(std::vector<int64_t>{}), "[]");
}

TEST(Layers, LayerNormAndRmsNorm) {
  const int n = 4, d = 9;
  const auto x = Randn(n * d, 4, 3.0f), w = Randn(d, 5), b = Randn(d, 6);
  std::vector<float> y(n * d), r(n * d);
  LayerNormForward(x.data(), n, d, Norm{w.data(), b.data()}, 1e-5f, y.data());
  RmsNormForward(x.data(), n, d, Norm{w.data(), nullptr}, 1e-6f, r.data());
  const auto [ln, rms] = DoubleNorms(x, n, d, w, b);
  for (size_t k = 0; k < y.size(); ++k) {
    EXPECT_NEAR(y[k], ln[k], 1e-5);
    EXPECT_NEAR(r[k], rms[k], 1e-5);
  }
  // In place.
  std::vector<float> z = x;
  LayerNormForward(z.data(), n, d, Norm{w.data(), b.data()}, 1e-5f, z.data());
  EXPECT_EQ(z, y);
}

// Rows long enough for the vector lanes and a tail (773 = 24 x 32 + 5), one with a large mean (the second pass sums
// the squared gaps): within float rounding of double loops, and the same bits wherever a row sits (a resumed run's
// rows are copies at other addresses; sums that started their lanes at the first aligned element would differ).
TEST(Layers, NormsOfLongRowsMatchDoubleAndKeepTheirBitsAtAnyAddress) {
  const int n = 3, d = 773;
  auto x = Randn(n * d, 8, 2.0f);
  for (int j = 0; j < d; ++j) x[d + j] += 1000.0f;  // row 1: mean ~1000, spread 2
  const auto w = Randn(d, 9), b = Randn(d, 10);
  std::vector<float> y(n * d), r(n * d);
  LayerNormForward(x.data(), n, d, Norm{w.data(), b.data()}, 1e-5f, y.data());
  RmsNormForward(x.data(), n, d, Norm{w.data(), nullptr}, 1e-6f, r.data());
  const auto [ln, rms] = DoubleNorms(x, n, d, w, b);
  for (size_t k = 0; k < y.size(); ++k) {
    ASSERT_NEAR(y[k], ln[k], 2e-4 * (1 + std::abs(ln[k]))) << "row " << k / d << ", column " << k % d;
    ASSERT_NEAR(r[k], rms[k], 1e-5 * (1 + std::abs(rms[k]))) << "row " << k / d << ", column " << k % d;
  }
  for (int shift = 1; shift < 16; ++shift) {
    std::vector<float> moved(n * d + shift), y2(n * d), r2(n * d);
    std::copy(x.begin(), x.end(), moved.begin() + shift);
    LayerNormForward(moved.data() + shift, n, d, Norm{w.data(), b.data()}, 1e-5f, y2.data());
    RmsNormForward(moved.data() + shift, n, d, Norm{w.data(), nullptr}, 1e-6f, r2.data());
    EXPECT_EQ(y2, y) << "shift " << shift;
    EXPECT_EQ(r2, r) << "shift " << shift;
  }
}

TEST(Layers, Activations) {
  const size_t count = 70000;  // several chunks
  auto x = Randn(count, 7, 4.0f);
  x[0] = -100.0f, x[1] = 100.0f, x[2] = 0.0f;
  for (Activation a : {Activation::kGeluTanh, Activation::kGeluErf, Activation::kSilu, Activation::kRelu}) {
    std::vector<float> y = x;
    ActivateInPlace(a, y.data(), count);
    for (size_t i = 0; i < count; ++i) {
      const double v = x[i];
      double want = 0;
      switch (a) {
        case Activation::kGeluTanh:
          want = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
          break;
        case Activation::kGeluErf: want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); break;
        case Activation::kSilu: want = v / (1 + std::exp(-v)); break;
        case Activation::kRelu: want = v > 0 ? v : 0; break;
      }
      ASSERT_NEAR(y[i], want, 2e-6 * std::max(1.0, std::fabs(want))) << ActivationName(a) << " at " << v;
    }
  }
  std::vector<float> g = x, up = Randn(count, 8);
  GatedTile(Activation::kSilu, g.data(), up.data(), 1, count, count);
  for (size_t i = 0; i < count; i += 97) EXPECT_NEAR(g[i], x[i] / (1 + std::exp(-(double)x[i])) * up[i], 1e-4);
}

// An activated value's bits depend on the value alone: not on where it sits (the alignment of its buffer), nor on
// whether a whole buffer or a product's tile is activated (the MLP activates each tile of its product as it is
// made; a streamed run and a resumed one must agree bit for bit with a full one).
TEST(Layers, ActivationBitsFollowNeitherPositionNorTiling) {
  const size_t rows = 9, cols = 37, ld = 53;  // odd widths: tails in every row
  const auto x = Randn(rows * ld, 11, 3.0f);
  for (Activation a : {Activation::kGeluTanh, Activation::kGeluErf, Activation::kSilu, Activation::kRelu}) {
    std::vector<float> whole = x;
    ActivateInPlace(a, whole.data(), whole.size());
    for (size_t shift = 1; shift < 16; ++shift) {  // the same values, `shift` floats further on
      std::vector<float> moved(x.size() + 16);
      std::copy(x.begin(), x.end(), moved.begin() + shift);
      ActivateInPlace(a, moved.data() + shift, x.size());
      ASSERT_EQ(0, std::memcmp(whole.data(), moved.data() + shift, x.size() * sizeof(float)))
          << ActivationName(a) << " shifted by " << shift;
    }
    std::vector<float> tiled = x;
    ActivateTile(a, tiled.data() + 5, rows - 1, cols, ld);  // rows 0..7, columns 5..41: one tile
    for (size_t r = 0; r < rows; ++r)
      for (size_t j = 0; j < ld; ++j) {
        const bool inside = r < rows - 1 && j >= 5 && j < 5 + cols;
        const float want = inside ? whole[r * ld + j] : x[r * ld + j];
        ASSERT_EQ(0, std::memcmp(&tiled[r * ld + j], &want, sizeof(float)))
            << ActivationName(a) << " " << r << ", " << j;
      }
  }
  std::vector<float> g = x, gt = x, up = Randn(rows * ld, 12);
  GatedTile(Activation::kSilu, g.data(), up.data(), 1, g.size(), g.size());  // one long row
  GatedTile(Activation::kSilu, gt.data(), up.data(), rows, ld, ld);           // rows of the same values
  EXPECT_EQ(0, std::memcmp(g.data(), gt.data(), g.size() * sizeof(float)));
}

}  // namespace
}  // namespace attnviz::model
