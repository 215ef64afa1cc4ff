// core/model/rope.*: inv_freq per scaling kind (HF's formulas re-derived), and the rotate_half layout.
#include "model/rope.h"

#include <cmath>

#include "test_util.h"

namespace attnviz::model {
namespace {

ModelConfig Cfg(int d_head, double theta) {
  ModelConfig c;
  c.recipe.rope = true;
  c.d_head = d_head;
  c.rope_theta = theta;
  return c;
}

TEST(Rope, DefaultAndLinear) {
  ModelConfig c = Cfg(8, 10000.0);
  auto f = RopeInvFreq(c);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  EXPECT_NEAR(f[1], 0.1, 1e-8);  // float32, as HF computes inv_freq
  EXPECT_NEAR(f[3], 1e-3, 1e-10);
  EXPECT_EQ(f[1], (double)(float)f[1]);
  c.rope_scaling.kind = RopeScaling::Kind::kLinear;
  c.rope_scaling.factor = 4.0;
  auto g = RopeInvFreq(c);
  for (size_t j = 0; j < f.size(); ++j) EXPECT_DOUBLE_EQ(g[j], f[j] / 4.0);
}

TEST(Rope, Llama3HasThreeRegimes) {
  // d_head 16, theta 1e4: wavelengths 2 pi 10^(j/2) = 6.3, 19.9, 62.8, ...; old context 32 with factors 1 and 4:
  // high-frequency cutoff 8, low-frequency cutoff 32.
  ModelConfig c = Cfg(16, 10000.0);
  const auto base = RopeInvFreq(c);
  c.rope_scaling.kind = RopeScaling::Kind::kLlama3;
  c.rope_scaling.factor = 8.0;
  c.rope_scaling.low_freq_factor = 1.0;
  c.rope_scaling.high_freq_factor = 4.0;
  c.rope_scaling.original_max_position_embeddings = 32;
  const auto f = RopeInvFreq(c);
  EXPECT_DOUBLE_EQ(f[0], base[0]);  // wavelength 6.3 < 8: unchanged
  const double wl = 2 * M_PI / base[1];  // 19.9: smooth
  const double s = (32.0 / wl - 1.0) / (4.0 - 1.0);
  EXPECT_NEAR(f[1], (1 - s) * base[1] / 8.0 + s * base[1], 1e-12);
  EXPECT_GT(f[1], base[1] / 8.0);
  EXPECT_LT(f[1], base[1]);
  for (size_t j = 2; j < f.size(); ++j) EXPECT_DOUBLE_EQ(f[j], base[j] / 8.0);  // > 32: divided by factor
}

TEST(Rope, RotatesTheTwoHalvesOfEachHead) {
  // One position, two heads of width 4: pairs (0, 2) and (1, 3) of each head rotate together.
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<double> inv = {1.0, 0.5};
  std::vector<float> cos, sin;
  RopeTables(inv, 2, &cos, &sin);
  ASSERT_EQ(cos.size(), 4u);
  EXPECT_EQ(cos[0], 1.0f);  // position 0
  // Position 1 (second row of the table).
  std::vector<float> y = x;
  ApplyRope(y.data(), 8, 1, 2, 4, cos.data() + 2, sin.data() + 2);
  for (int h = 0; h < 2; ++h)
    for (int j = 0; j < 2; ++j) {
      const double a = x[h * 4 + j], b = x[h * 4 + j + 2], t = 1 * inv[j];
      EXPECT_NEAR(y[h * 4 + j], a * std::cos(t) - b * std::sin(t), 1e-6);
      EXPECT_NEAR(y[h * 4 + j + 2], b * std::cos(t) + a * std::sin(t), 1e-6);
    }
}

}  // namespace
}  // namespace attnviz::model
