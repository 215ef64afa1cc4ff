// The q/k norms' plumbing (core/model/layers.h RmsNormSpans, run.h RunOptions::no_qk_norm): the norm of strided
// spans against a plain double loop, and the what-if refused where there is nothing to skip.
#include <cmath>
#include <random>
#include <vector>

#include "base/messages.h"
#include "model/layers.h"
#include "model/model.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::FixtureDir;

std::vector<float> Randn(size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = nd(rng);
  return v;
}

// Rows of ld floats whose first spans * d are normed span by span (the q columns of a q | k | v row, per head or
// whole); the columns past them stay as they were.
void ExpectSpansNormed(int n, int spans, int d, size_t ld) {
  const float eps = 1e-6f;
  const std::vector<float> before = Randn((size_t)n * ld, 7, 3.0f), w = Randn((size_t)d, 8);
  std::vector<float> x = before;
  Norm norm;
  norm.w = w.data();
  ASSERT_TRUE(RmsNormSpans(x.data(), n, spans, d, ld, norm, eps));
  for (int i = 0; i < n; ++i)
    for (int s = 0; s < spans; ++s) {
      const float* in = before.data() + (size_t)i * ld + (size_t)s * d;
      double ms = 0;
      for (int t = 0; t < d; ++t) ms += (double)in[t] * in[t];
      const double inv = 1.0 / std::sqrt(ms / d + eps);
      for (int t = 0; t < d; ++t)
        EXPECT_NEAR(x[(size_t)i * ld + (size_t)s * d + t], w[(size_t)t] * in[t] * inv, 1e-5)
            << "row " << i << " span " << s << " dim " << t;
    }
  for (int i = 0; i < n; ++i)
    for (size_t t = (size_t)spans * d; t < ld; ++t)
      EXPECT_EQ(x[(size_t)i * ld + t], before[(size_t)i * ld + t]) << "row " << i << " column " << t;
}

TEST(QkNorm, PerHeadSpansOfStridedRowsMatchADirectComputation) {
  ExpectSpansNormed(/*n=*/70, /*spans=*/4, /*d=*/16, /*ld=*/4 * 16 + 2 * 2 * 16);  // q of 4 heads, then k | v
}

TEST(QkNorm, AWholeProjectionAsOneSpanMatchesADirectComputation) {
  ExpectSpansNormed(/*n=*/9, /*spans=*/1, /*d=*/48, /*ld=*/48 + 2 * 24);
}

TEST(QkNorm, ANonFiniteSpanIsReported) {
  std::vector<float> x = Randn(4 * 8, 3), w(4, 1.0f);
  x[13] = INFINITY;
  Norm norm;
  norm.w = w.data();
  EXPECT_FALSE(RmsNormSpans(x.data(), 4, 2, 4, 8, norm, 1e-6f));
}

TEST(QkNorm, SkippingTheNormsOfAModelWithoutThemIsRefused) {
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  ASSERT_EQ(c.recipe.qk_norm, BlockRecipe::QkNorm::kNone);
  RunOptions o;
  o.no_qk_norm.assign((size_t)c.n_layer, false);
  EXPECT_TRUE(RunModel(**model, {1, 2}, o).ok()) << "every layer keeps its (absent) norms: nothing to refuse";
  o.no_qk_norm[(size_t)c.n_layer - 1] = true;
  const Status s = CheckRunInputs(c, {1, 2}, o);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("model_type llama has none"));
  EXPECT_EQ(RunModel(**model, {1, 2}, o).message(), s.message());
  o.no_qk_norm = {true};
  EXPECT_THAT(CheckRunInputs(c, {1, 2}, o).message(),
              HasSubstr("no_qk_norm has 1 entries; the model has " + std::to_string(c.n_layer) + " layers"));
}

}  // namespace
}  // namespace attnviz::model
