// The sandbox's two knobs from today's families (config.h qk_norm, softcap): the q/k norm in SourceQkv
// (qkv_source.h NormQueryKeyRows) and the soft cap in every pass of the pipeline, the exact rows of a pooled run and
// the d_k sweep. Invariants: normed rows have RMS 1, every capped logit is within +-cap and equals cap * tanh(l / cap)
// of the uncapped one, rows sum to 1, a toggle reruns only the stage it dirties and equals a fresh run.
#include <gtest/gtest.h>

#include <cmath>

#include "attention/attention.h"
#include "sandbox/config.h"
#include "sandbox/exact_maps.h"
#include "sandbox/pipeline.h"
#include "sandbox/qkv_source.h"
#include "sandbox/sweep.h"

using namespace attnviz;

namespace {
const char* const kText = "the cat sat on the mat because it was warm and the dog was not";

Pipeline RunPipeline(const AttentionConfig& c, Stage through = Stage::kOutput, size_t pooled_above = 0) {
  Pipeline p;
  EXPECT_TRUE(p.SetText(kText).ok());
  if (pooled_above) p.set_pooled_above_cells(pooled_above);
  EXPECT_TRUE(p.SetConfig(c).ok());
  Status s = p.Run(through);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

// Each row of the last axis: mean of squares.
double MaxRmsError(const Tensor& t) {
  const size_t d = t.shape.back();
  double worst = 0;
  for (size_t r = 0; r < t.size() / d; ++r) {
    double ms = 0;
    for (size_t j = 0; j < d; ++j) ms += (double)t.data[r * d + j] * t.data[r * d + j];
    worst = std::max(worst, std::fabs(std::sqrt(ms / (double)d) - 1.0));
  }
  return worst;
}
}  // namespace

TEST(SandboxQkNorm, EveryQueryAndKeyRowHasRmsOneAndValuesAreLeftAlone) {
  AttentionConfig c;
  c.d_k = 32;
  const Pipeline plain = RunPipeline(c);
  c.qk_norm = true;
  const Pipeline normed = RunPipeline(c);
  const AttentionTensors& a = plain.tensors();
  const AttentionTensors& b = normed.tensors();
  EXPECT_GT(MaxRmsError(*a.q), 0.05);  // the projection alone does not give RMS 1
  EXPECT_LT(MaxRmsError(*b.q), 1e-4);
  EXPECT_LT(MaxRmsError(*b.k), 1e-4);
  EXPECT_EQ(a.v->data, b.v->data);
  // Each normed row is the plain row over its RMS (same direction).
  const size_t d = a.q->shape.back();
  for (size_t r = 0; r < a.q->size() / d; r += 7) {
    double ms = 0;
    for (size_t j = 0; j < d; ++j) ms += (double)a.q->data[r * d + j] * a.q->data[r * d + j];
    const double inv = 1.0 / std::sqrt(ms / (double)d + kQkNormEps);
    for (size_t j = 0; j < d; ++j) EXPECT_NEAR(b.q->data[r * d + j], a.q->data[r * d + j] * inv, 1e-5);
  }
}

TEST(SandboxQkNorm, TheToggleReprojectsWithTheSameWeightsAndEqualsAFreshRun) {
  AttentionConfig c;
  c.d_k = 16;
  Pipeline p = RunPipeline(c, Stage::kMetrics);
  const std::vector<float> plain_probs = p.tensors().probs->data;
  c.qk_norm = true;
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kProject);
  ASSERT_TRUE(p.Run(Stage::kMetrics).ok());
  EXPECT_EQ(p.run_count(Stage::kEmbed), 1);
  EXPECT_EQ(p.run_count(Stage::kProject), 2);
  EXPECT_EQ(p.tensors().probs->data, RunPipeline(c, Stage::kMetrics).tensors().probs->data);
  EXPECT_NE(p.tensors().probs->data, plain_probs);
  c.qk_norm = false;  // back: the weights were never redrawn
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kMetrics).ok());
  EXPECT_EQ(p.tensors().probs->data, plain_probs);
}

TEST(SandboxSoftcap, EveryLogitIsTheCappedOneAndRowsSumToOneAtDk4096Unscaled) {
  AttentionConfig c;
  c.n_head = 2;
  c.d_k = 4096;
  c.scale = false;
  c.softcap = 5;
  c.mask = MaskKind::kCausal;
  const Pipeline p = RunPipeline(c);
  const AttentionTensors& t = p.tensors();
  EXPECT_FLOAT_EQ(t.softcap, 5.0f);
  const size_t n = t.n_k();
  double biggest_uncapped = 0;
  for (size_t h = 0; h < (size_t)t.n_head(); ++h) {
    for (size_t i = 0; i < n; ++i) {
      double sum = 0, z = 0, row_max = -1e30;
      const size_t row = (h * n + i) * n;
      for (size_t j = 0; j <= i; ++j) {
        const double l = t.scores->data[row + j] * (double)t.multiplier;
        biggest_uncapped = std::max(biggest_uncapped, std::fabs(l));
        const double capped = 5.0 * std::tanh(l / 5.0);
        EXPECT_NEAR(t.logits->data[row + j], capped, 1e-4);
        EXPECT_LE(std::fabs(t.logits->data[row + j]), 5.0f);
        row_max = std::max(row_max, capped);
      }
      for (size_t j = 0; j <= i; ++j) z += std::exp(5.0 * std::tanh(t.scores->data[row + j] * (double)t.multiplier / 5.0) - row_max);
      for (size_t j = 0; j < n; ++j) {
        const float prob = t.probs->data[row + j];
        ASSERT_TRUE(std::isfinite(prob));
        if (j > i) {
          EXPECT_EQ(prob, 0.0f);  // masked: exactly 0
          continue;
        }
        const double expected =
            std::exp(5.0 * std::tanh(t.scores->data[row + j] * (double)t.multiplier / 5.0) - row_max) / z;
        EXPECT_NEAR(prob, expected, 1e-5);
        sum += prob;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
  EXPECT_GT(biggest_uncapped, 50.0);  // the cap really bit: the uncapped logits were far outside +-5
}

TEST(SandboxSoftcap, TheCapReusesTheKeptScoresAndEqualsAFreshRun) {
  AttentionConfig c;
  c.d_k = 256;
  c.scale = false;
  Pipeline p = RunPipeline(c, Stage::kMetrics);
  c.softcap = 3;
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kMultiplier);
  ASSERT_TRUE(p.Run(Stage::kMetrics).ok());
  EXPECT_EQ(p.run_count(Stage::kScores), 1);
  const Pipeline fresh = RunPipeline(c, Stage::kMetrics);
  EXPECT_EQ(p.tensors().probs->data, fresh.tensors().probs->data);
  EXPECT_EQ(p.tensors().metrics[0].max_weight, fresh.tensors().metrics[0].max_weight);
}

TEST(SandboxSoftcap, APooledRunsExactRowsAndZAreTheFullRunsCappedOnes) {
  AttentionConfig c;
  c.d_k = 1024;
  c.scale = false;
  c.softcap = 2;
  const Pipeline full = RunPipeline(c);
  const Pipeline pooled = RunPipeline(c, Stage::kOutput, /*pooled_above=*/16);
  ASSERT_TRUE(pooled.tensors().pooled);
  ASSERT_FALSE(full.tensors().pooled);
  const AttentionTensors& f = full.tensors();
  const AttentionTensors& s = pooled.tensors();
  // Exact rows on demand (the Heads panel's zoom, the exports): from q, k with the pass's cap.
  const LayerMaps cut = ExactMaps(s, {0, 1}, MapWindow{0, s.n_q(), 0, s.n_k()}, /*compact=*/true);
  ASSERT_EQ(cut.probs->size(), 2 * (size_t)f.n_q() * f.n_k());
  for (size_t i = 0; i < cut.probs->size(); ++i) EXPECT_NEAR(cut.probs->data[i], f.probs->data[i], 1e-5);
  EXPECT_FLOAT_EQ(cut.softcap, 2.0f);
  ASSERT_EQ(s.z->size(), f.z->size());
  for (size_t i = 0; i < f.z->size(); ++i) EXPECT_NEAR(s.z->data[i], f.z->data[i], 1e-4);
  for (size_t h = 0; h < f.metrics.size(); ++h) EXPECT_NEAR(s.metrics[h].max_weight, f.metrics[h].max_weight, 1e-5);
}

TEST(SandboxTwistsConfig, RangesJsonAndDescription) {
  AttentionConfig c;
  c.softcap = -1;
  Status bad = Validate(c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("softcap = -1"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("0..10000"), std::string::npos) << bad.message();
  c.softcap = NAN;
  EXPECT_FALSE(Validate(c).ok());
  Status error;
  EXPECT_TRUE(SetConfigField("softcap", "20000", &c, &error));
  EXPECT_FALSE(error.ok());
  c = AttentionConfig();
  EXPECT_TRUE(SetConfigField("qk_norm", "true", &c, &error));
  EXPECT_TRUE(SetConfigField("softcap", "5", &c, &error));
  EXPECT_TRUE(c.qk_norm);
  EXPECT_EQ(c.softcap, 5.0f);
  const std::string json = ConfigJson(c);
  EXPECT_NE(json.find("\"qk_norm\": true, \"softcap\": 5"), std::string::npos) << json;
  EXPECT_NE(Describe(c).find(" · q/k norm · cap 5"), std::string::npos) << Describe(c);
  EXPECT_EQ(Describe(AttentionConfig()).find("cap"), std::string::npos);
  EXPECT_NE(ChangedEffects(AttentionConfig(), c) & kAffectsQk, 0u);
  EXPECT_NE(ChangedEffects(AttentionConfig(), c) & kAffectsMultiplier, 0u);
  EXPECT_EQ(ChangedEffects(AttentionConfig(), c) & kAffectsParams, 0u);
}

// What lesson (d)'s second part asks: at d_k 4096 unscaled a small cap keeps the row from piling onto one key, and
// the q/k norm does not (it fixes the lengths at sqrt(d_k), and q . k still spreads like sqrt(d_k)).
TEST(SandboxTwistsSweep, ACapKeepsTheUnscaledSoftmaxUnsaturatedAndTheQkNormDoesNot) {
  const std::vector<Token> tokens = *Tokenize(kText);
  SweepOptions o;
  o.d_ks = {4096};
  o.n_seeds = 1;
  auto unscaled = [](const std::vector<SweepPoint>& points) {
    for (const SweepPoint& p : points)
      if (!p.scaled) return p;
    return SweepPoint();
  };
  AttentionConfig c;
  auto plain = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(plain.ok()) << plain.message();
  c.softcap = 2;
  auto capped = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(capped.ok()) << capped.message();
  c.softcap = 0;
  c.qk_norm = true;
  auto normed = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(normed.ok()) << normed.message();
  EXPECT_GT(unscaled(*plain).max_weight, 0.9f);
  EXPECT_GT(unscaled(*normed).max_weight, 0.9f);
  // Logits within +-2: no key can weigh more than e^4 / (e^4 + n - 1) of its row.
  const double n = (double)tokens.size();
  EXPECT_LT(unscaled(*capped).max_weight, std::exp(4.0) / (std::exp(4.0) + n - 1));
  EXPECT_LE(unscaled(*capped).logit_std, 2.0f);
  // Scaled, the q/k norm gives logits of spread ~1 (unit-RMS q and k, divided by sqrt(d_k)).
  for (const SweepPoint& p : *normed)
    if (p.scaled) {
      EXPECT_NEAR(p.logit_std, 1.0f, 0.35f);
    }
}

TEST(SandboxTwistsSweep, SampledRowsKeepTheQkNormAndTheCap) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "word" + std::to_string(i % 13) + " ";
  const std::vector<Token> tokens = *Tokenize(text);
  SweepOptions all;
  all.d_ks = {64};
  all.n_seeds = 1;
  all.sample_above_rows = 0;
  SweepOptions sampled = all;
  sampled.sample_above_rows = 8;
  sampled.sample_rows = (int)tokens.size() - 1;  // all rows but one: the means agree closely
  AttentionConfig c;
  c.qk_norm = true;
  c.softcap = 1.5f;
  auto a = SweepDk({}, tokens, c, all);
  auto b = SweepDk({}, tokens, c, sampled);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_GT((*b)[i].rows, 0);
    EXPECT_NEAR((*a)[i].max_weight, (*b)[i].max_weight, 0.05f);
    EXPECT_LE((*b)[i].logit_std, 1.5f);
  }
}
