#include "sandbox/weights.h"
#include "base/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "attention/attention.h"
#include "sandbox/projection.h"
#include "sandbox/embedding.h"
#include "io/npy.h"

using namespace attnviz;

namespace {
AttentionConfig Cfg(int d_model, int n_head, int d_k, int d_v, QkvLayout layout) {
  AttentionConfig c;
  c.d_model = d_model;
  c.n_head = n_head;
  c.d_k = d_k;
  c.d_v = d_v;
  c.qkv = layout;
  c.seed = 42;
  return c;
}
std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("attnviz_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}
}  // namespace

TEST(Weights, FusedEqualsSeparateProjections) {
  for (int d_model : {16, 64, 512}) {
    auto fused_cfg = Cfg(d_model, 4, 24, 8, QkvLayout::kFused);
    auto sep_cfg = Cfg(d_model, 4, 24, 8, QkvLayout::kSeparate);
    ProjectionWeights fused, sep;
    InitWeights(fused_cfg, &fused);
    InitWeights(sep_cfg, &sep);
    ASSERT_EQ(fused.w_qkv.shape, (std::vector<size_t>{(size_t)d_model, 4 * (2 * 24 + 8)}));
    ASSERT_EQ(sep.w_q.shape, (std::vector<size_t>{(size_t)d_model, 96}));
    ASSERT_EQ(sep.w_v.shape, (std::vector<size_t>{(size_t)d_model, 32}));
    // The same numbers: column c of w_q is column c of the fused matrix, etc.
    for (int r = 0; r < d_model; ++r) {
      for (int c = 0; c < 96; ++c) {
        ASSERT_EQ(sep.w_q.data[r * 96 + c], fused.w_qkv.data[r * 224 + c]);
        ASSERT_EQ(sep.w_k.data[r * 96 + c], fused.w_qkv.data[r * 224 + 96 + c]);
      }
      for (int c = 0; c < 32; ++c) ASSERT_EQ(sep.w_v.data[r * 32 + c], fused.w_qkv.data[r * 224 + 192 + c]);
    }
    EXPECT_EQ(sep.w_o.data, fused.w_o.data);
    // And the projections agree (one GEMM then split vs three GEMMs).
    auto tokens = Tokenize("the quick brown fox jumps over the lazy dog");
    Tensor x, q1, k1, v1, q2, k2, v2;
    Embed(*tokens, d_model, 1, true, &x);
    Project(x, x, fused, &q1, &k1, &v1);
    Project(x, x, sep, &q2, &k2, &v2);
    ASSERT_EQ(q1.shape, (std::vector<size_t>{4, 9, 24}));
    ASSERT_EQ(v1.shape, (std::vector<size_t>{4, 9, 8}));
    for (size_t i = 0; i < q1.size(); ++i) ASSERT_NEAR(q1.data[i], q2.data[i], 1e-6f * (1 + std::fabs(q2.data[i])));
    for (size_t i = 0; i < k1.size(); ++i) ASSERT_NEAR(k1.data[i], k2.data[i], 1e-6f * (1 + std::fabs(k2.data[i])));
    for (size_t i = 0; i < v1.size(); ++i) ASSERT_NEAR(v1.data[i], v2.data[i], 1e-6f * (1 + std::fabs(v2.data[i])));
  }
}

TEST(Weights, InitStdIsOneOverSqrtDModel) {
  auto cfg = Cfg(256, 8, 64, 64, QkvLayout::kSeparate);
  ProjectionWeights w;
  InitWeights(cfg, &w);
  double sq = 0;
  for (float v : w.w_q.data) sq += v * v;
  EXPECT_NEAR(std::sqrt(sq / w.w_q.size()), 1.0 / 16.0, 0.002);
}

TEST(Weights, LoadRoundTripAndErrors) {
  auto cfg = Cfg(8, 2, 3, 5, QkvLayout::kSeparate);
  ProjectionWeights w;
  InitWeights(cfg, &w);
  const std::string dir = TempDir("weights");
  ASSERT_TRUE(WriteNpy(dir + "/wq.npy", w.w_q).ok());
  ASSERT_TRUE(WriteNpy(dir + "/wk.npy", w.w_k).ok());
  ASSERT_TRUE(WriteNpy(dir + "/wv.npy", w.w_v).ok());
  ASSERT_TRUE(WriteNpy(dir + "/wo.npy", w.w_o).ok());
  ProjectionWeights loaded;
  Status s = LoadWeights(dir, cfg, &loaded);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(loaded.w_q.data, w.w_q.data);
  EXPECT_EQ(loaded.w_o.data, w.w_o.data);
  EXPECT_EQ(loaded.layout, QkvLayout::kSeparate);

  // Wrong shape: names the file, the shape found and the expected one.
  auto other = Cfg(8, 2, 4, 5, QkvLayout::kSeparate);
  s = LoadWeights(dir, other, &loaded);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("wq.npy"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[8, 6]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[8, 8]"), std::string::npos) << s.message();

  // Missing file.
  std::filesystem::remove(dir + "/wo.npy");
  s = LoadWeights(dir, cfg, &loaded);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("wo.npy"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The d_k sweep's fast draws: standard normal (mean, variance, tails), fixed by (seed, stream, index) whatever
// the grouping, and a fast init keeps fused == separate.
TEST(FastNormals, AreStandardNormalAndFixedByTheirIndex) {
  const size_t n = 1 << 20;
  std::vector<float> a(n);
  FastNormals(3, 9, 0, n, 1.0f, a.data());
  double sum = 0, sq = 0;
  size_t beyond2 = 0;
  for (float x : a) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x, sq += (double)x * x;
    beyond2 += std::abs(x) > 2.0f;
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt((double)n));
  EXPECT_NEAR(var, 1.0, 0.01);
  EXPECT_NEAR((double)beyond2 / n, 0.0455, 0.002);  // P(|z| > 2)
  std::vector<float> part(37);
  FastNormals(3, 9, 1000, part.size(), 2.0f, part.data());  // another start and length: the same draws
  for (size_t i = 0; i < part.size(); ++i) EXPECT_EQ(part[i], 2.0f * a[1000 + i]);
  std::vector<float> other(16);
  FastNormals(4, 9, 0, other.size(), 1.0f, other.data());
  EXPECT_NE(std::vector<float>(a.begin(), a.begin() + 16), other);
}

TEST(FastNormals, FusedEqualsSeparateWithTheFastInit) {
  AttentionConfig c;
  c.d_model = 32;
  c.n_head = 2;
  ProjectionWeights fused, separate, exact;
  InitWeights(c, &fused, true);
  c.qkv = QkvLayout::kSeparate;
  InitWeights(c, &separate, true);
  InitWeights(c, &exact, false);
  const size_t ld = fused.w_qkv.dim(1), qk = separate.w_q.dim(1);
  for (size_t r = 0; r < 32; ++r)
    for (size_t j = 0; j < qk; ++j) {
      EXPECT_EQ(fused.w_qkv.data[r * ld + j], separate.w_q.data[r * qk + j]);
      EXPECT_EQ(fused.w_qkv.data[r * ld + qk + j], separate.w_k.data[r * qk + j]);
    }
  EXPECT_NE(separate.w_q.data, exact.w_q.data);  // other numbers than NormalAt's
}
