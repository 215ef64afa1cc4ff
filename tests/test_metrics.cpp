#include "attention/metrics.h"
#include "sandbox/sweep.h"

#include <gtest/gtest.h>

#include <cmath>

#include "attention/attention.h"
#include "sandbox/pipeline.h"

using namespace attnviz;

namespace {
std::vector<Token> RandomTokens(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "t" + std::to_string(i) + " ";
  return *Tokenize(text);
}
}  // namespace

TEST(Metrics, RowFiguresMatchTheirDefinitions) {
  // One head, two rows, three keys; row 1 causal-masked to its first two keys.
  Tensor logits, probs;
  logits.Resize({1, 2, 3});
  logits.data = {0.5f, -1.0f, 2.0f, 1.0f, 3.0f, 100.0f};
  for (MaskKind mask : {MaskKind::kNone, MaskKind::kCausal}) {
    Softmax(logits, mask, &probs);
    std::vector<HeadMetrics> heads;
    ComputeMetrics(logits, probs, mask, &heads);
    ASSERT_EQ(heads.size(), 1u);
    ASSERT_EQ(heads[0].rows.size(), 2u);
    double mean_entropy = 0;
    for (int i = 0; i < 2; ++i) {
      const int visible = Mask(mask).Visible(i, 3);
      const float* p = probs.data.data() + i * 3;
      double h = 0, pmax = 0;
      for (int j = 0; j < visible; ++j) {
        if (p[j] > 0) h -= p[j] * std::log((double)p[j]);
        pmax = std::max(pmax, (double)p[j]);
      }
      // Explicit Jacobian J = diag(p) - p p^T and its Frobenius norm.
      double fro = 0;
      for (int a = 0; a < visible; ++a)
        for (int b = 0; b < visible; ++b) {
          double jab = (a == b ? p[a] : 0.0) - (double)p[a] * p[b];
          fro += jab * jab;
        }
      const RowMetrics& r = heads[0].rows[i];
      EXPECT_NEAR(r.entropy, h, 1e-5);
      EXPECT_NEAR(r.norm_entropy, visible > 1 ? h / std::log((double)visible) : 0.0, 1e-5);
      EXPECT_NEAR(r.max_weight, pmax, 1e-7);
      EXPECT_NEAR(r.effective_keys, std::exp(h), 1e-4);
      EXPECT_NEAR(r.grad_norm, std::sqrt(fro), 1e-5);
      mean_entropy += h / 2;
    }
    EXPECT_NEAR(heads[0].entropy, mean_entropy, 1e-5);
  }
}

TEST(Metrics, UniformAndOneHotRows) {
  Tensor logits, probs;
  logits.Resize({1, 2, 4});
  logits.data = {0, 0, 0, 0, 0, 0, 0, 1e6f};
  Softmax(logits, MaskKind::kNone, &probs);
  std::vector<HeadMetrics> heads;
  ComputeMetrics(logits, probs, MaskKind::kNone, &heads);
  EXPECT_NEAR(heads[0].rows[0].norm_entropy, 1.0, 1e-6);
  EXPECT_NEAR(heads[0].rows[0].effective_keys, 4.0, 1e-5);
  EXPECT_NEAR(heads[0].rows[0].max_weight, 0.25, 1e-7);
  EXPECT_NEAR(heads[0].rows[1].entropy, 0.0, 1e-7);
  EXPECT_NEAR(heads[0].rows[1].max_weight, 1.0, 1e-7);
  EXPECT_NEAR(heads[0].rows[1].grad_norm, 0.0, 1e-7);  // saturated: the gradient vanishes
  EXPECT_TRUE(std::isfinite(heads[0].logit_std));
}

TEST(Metrics, LogitStdIsSqrtDkUnscaledAndOneScaled) {
  const auto tokens = RandomTokens(48);
  for (int d_k : {16, 64, 256}) {
    double unscaled = 0, scaled = 0;
    const int seeds = 6;
    for (int seed = 0; seed < seeds; ++seed) {
      Pipeline p;
      AttentionConfig c;
      c.d_model = 256;
      c.n_head = 2;
      c.d_k = d_k;
      c.seed = seed;
      c.scale = false;
      std::string text;
      for (const Token& t : tokens) text += t.display + " ";
      ASSERT_TRUE(p.SetText(text).ok());
      ASSERT_TRUE(p.SetConfig(c).ok());
      ASSERT_TRUE(p.Run().ok());
      unscaled += MeanOverHeads(p.tensors().metrics).logit_std / seeds;
      c.scale = true;
      ASSERT_TRUE(p.SetConfig(c).ok());
      ASSERT_TRUE(p.Run().ok());
      scaled += MeanOverHeads(p.tensors().metrics).logit_std / seeds;
    }
    EXPECT_NEAR(unscaled / std::sqrt((double)d_k), 1.0, 0.10) << "d_k=" << d_k << " unscaled std " << unscaled;
    EXPECT_NEAR(scaled, 1.0, 0.10) << "d_k=" << d_k;
  }
}

TEST(Metrics, UnscaledSoftmaxSaturatesAtLargeDkScaledStaysFlat) {
  // n = 1024 keys: without 1/sqrt(d_k) the mean max weight passes 0.9 by d_k = 1024.
  const auto tokens = RandomTokens(1024);
  AttentionConfig base;
  base.d_model = 64;
  SweepOptions options;
  options.d_ks = {16, 64, 256, 1024};
  options.n_seeds = 2;
  auto points = SweepDk({}, tokens, base, options);
  ASSERT_TRUE(points.ok()) << points.message();
  ASSERT_EQ(points->size(), 8u);
  auto at = [&](int d_k, bool scaled) {
    for (const SweepPoint& p : *points)
      if (p.d_k == d_k && p.scaled == scaled) return p;
    ADD_FAILURE() << "missing point";
    return SweepPoint{};
  };
  EXPECT_GT(at(1024, false).max_weight, 0.9f);
  EXPECT_LT(at(16, false).max_weight, at(1024, false).max_weight);
  EXPECT_LT(at(1024, false).grad_norm, at(16, false).grad_norm * 0.5f);  // the gradient fades
  EXPECT_LT(at(1024, false).norm_entropy, 0.1f);
  float lo = 1, hi = 0;
  for (int d_k : options.d_ks) {
    lo = std::min(lo, at(d_k, true).max_weight);
    hi = std::max(hi, at(d_k, true).max_weight);
    EXPECT_GT(at(d_k, true).norm_entropy, 0.8f) << d_k;
  }
  EXPECT_LT(hi - lo, 0.05f) << "scaled max weight should stay flat";
  EXPECT_LT(hi, 0.2f);
}

TEST(Metrics, SweepCsvAndErrors) {
  const auto tokens = RandomTokens(8);
  SweepOptions options;
  options.d_ks = {1, 4};
  options.n_seeds = 1;
  auto points = SweepDk({}, tokens, AttentionConfig(), options);
  ASSERT_TRUE(points.ok());
  const std::string csv = SweepToCsv(*points);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "d_k,scaled,seeds,max_weight,entropy,norm_entropy,effective_keys,grad_norm,logit_std");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
  EXPECT_EQ(DefaultSweepDks().back(), 4096);
  EXPECT_EQ(DefaultSweepDks().size(), 13u);
  options.n_seeds = 0;
  EXPECT_FALSE(SweepDk({}, tokens, AttentionConfig(), options).ok());
  AttentionConfig cross;
  cross.mode = AttentionMode::kCross;
  options.n_seeds = 1;
  EXPECT_FALSE(SweepDk({}, tokens, cross, options).ok());
}

// The app's figures come from the fused row pass (Attend with metrics: SoftmaxRowPass); the
// reference is ComputeMetrics (RowFigures, the definitions written out). They must agree on every
// row of every head, masked or not, at a soft and at a saturated spread.
TEST(Metrics, FusedRowPassFiguresEqualTheReferenceRowFigures) {
  const int n_head = 3, n = 37, d_k = 24;
  for (MaskKind mask : {MaskKind::kNone, MaskKind::kCausal}) {
    for (float multiplier : {1.0f / std::sqrt((float)d_k), 4.0f}) {
      Tensor q, k, v;
      q.Resize({(size_t)n_head, (size_t)n, (size_t)d_k});
      k.Resize({(size_t)n_head, (size_t)n, (size_t)d_k});
      v.Resize({(size_t)n_head, (size_t)n, 2});
      for (size_t i = 0; i < q.size(); ++i) q.data[i] = std::sin(0.7f * (float)i) * 1.3f;
      for (size_t i = 0; i < k.size(); ++i) k.data[i] = std::cos(0.31f * (float)i + 0.2f);
      for (size_t i = 0; i < v.size(); ++i) v.data[i] = 0.1f * (float)(i % 7);
      Tensor scores, logits, probs;
      std::vector<HeadMetrics> fused, reference;
      Attend(AttendFrom::kQueryKey, q, k, v, multiplier, mask, &scores, &logits, &probs, &fused, nullptr);
      ComputeMetrics(logits, probs, mask, &reference);
      ASSERT_EQ(fused.size(), reference.size());
      for (int h = 0; h < n_head; ++h) {
        ASSERT_EQ(fused[h].rows.size(), (size_t)n);
        for (int i = 0; i < n; ++i) {
          const RowMetrics &a = fused[h].rows[i], &b = reference[h].rows[i];
          EXPECT_NEAR(a.entropy, b.entropy, 2e-5 + 2e-5 * std::fabs(b.entropy)) << "head " << h << " row " << i;
          EXPECT_NEAR(a.norm_entropy, b.norm_entropy, 2e-5) << "head " << h << " row " << i;
          EXPECT_NEAR(a.max_weight, b.max_weight, 2e-6) << "head " << h << " row " << i;
          EXPECT_NEAR(a.effective_keys, b.effective_keys, 1e-4 * b.effective_keys) << "head " << h << " row " << i;
          EXPECT_NEAR(a.grad_norm, b.grad_norm, 2e-5) << "head " << h << " row " << i;
        }
        EXPECT_NEAR(fused[h].logit_std, reference[h].logit_std, 1e-4 * (1 + reference[h].logit_std));
        EXPECT_NEAR(fused[h].max_weight, reference[h].max_weight, 2e-6);
      }
    }
  }
}

// Two keys, p = (1 - e, e): D - p p^T has four entries of size p1 p2, so the norm is 2 p1 p2.
// The textbook sum form returns noise there; SoftmaxJacobianNorm must keep the digits.
TEST(Metrics, JacobianNormKeepsItsDigitsWhenTheRowSaturates) {
  for (float e : {1e-2f, 1e-4f, 1e-6f, 1e-7f}) {
    const float row[2] = {1.0f - e, e};
    const double want = 2.0 * (double)row[0] * (double)row[1];
    EXPECT_NEAR(SoftmaxJacobianNorm(row, 2), want, 1e-3 * want) << "e = " << e;
  }
  const float uniform[4] = {0.25f, 0.25f, 0.25f, 0.25f};  // sum p^2 - 2 sum p^3 + (sum p^2)^2 = 3/16
  EXPECT_NEAR(SoftmaxJacobianNorm(uniform, 4), std::sqrt(3.0 / 16.0), 1e-6);
}

// Probs that are no softmax of any logits at hand (hand-made rows, junk in the masked cells): the figures are the
// definitions over each row's visible keys, and the logit figures are over the visible logits or 0 without them.
TEST(Metrics, ProbFiguresMatchTheirDefinitionsOverTheVisibleKeysOnly) {
  const size_t n_head = 2, n_q = 3, n_k = 4;
  // probs: [n_head, n_q, n_k]. Causal: rows sum to 1 over keys 0..i, then junk a causal figure must not read.
  const std::vector<float> causal = {1.0f, 0.7f, 0.2f, 0.1f,  0.6f, 0.4f, 0.9f, 0.9f,  0.5f, 0.25f, 0.25f, 0.8f,
                                     1.0f, 0.3f, 0.3f, 0.3f,  0.1f, 0.9f, 0.5f, 0.5f,  0.2f, 0.3f, 0.5f, 0.6f};
  const std::vector<float> full = {0.1f, 0.2f, 0.3f, 0.4f,  0.25f, 0.25f, 0.25f, 0.25f,  0.0f, 1.0f, 0.0f, 0.0f,
                                   0.5f, 0.5f, 0.0f, 0.0f,  0.7f, 0.1f, 0.1f, 0.1f,  0.05f, 0.15f, 0.6f, 0.2f};
  std::vector<float> logits(causal.size());
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(1.7f * (float)i) * 3.0f;
  for (const auto& [mask, probs] : {std::pair{Mask::Causal(), causal}, std::pair{Mask::Bidirectional(), full}}) {
    for (const bool with_logits : {true, false}) {
      std::vector<HeadMetrics> heads;
      ComputeProbMetrics(probs.data(), with_logits ? logits.data() : nullptr, n_head, n_q, n_k, mask, &heads);
      ASSERT_EQ(heads.size(), n_head);
      for (size_t h = 0; h < n_head; ++h) {
        ASSERT_EQ(heads[h].rows.size(), n_q);
        double mean_entropy = 0, mean_max = 0, l_sum = 0, l_sq = 0, l_count = 0;
        for (size_t i = 0; i < n_q; ++i) {
          const int visible = mask.Visible((int)i, (int)n_k);
          const float* p = probs.data() + (h * n_q + i) * n_k;
          const float* l = logits.data() + (h * n_q + i) * n_k;
          double entropy = 0, pmax = 0, fro = 0;
          for (int j = 0; j < visible; ++j) {
            if (p[j] > 0) entropy -= p[j] * std::log((double)p[j]);
            pmax = std::max(pmax, (double)p[j]);
            l_sum += l[j], l_sq += (double)l[j] * l[j], ++l_count;
            for (int k = 0; k < visible; ++k) {
              const double jk = (j == k ? p[j] : 0.0) - (double)p[j] * p[k];
              fro += jk * jk;
            }
          }
          const RowMetrics& r = heads[h].rows[i];
          EXPECT_NEAR(r.entropy, entropy, 1e-6) << "head " << h << " row " << i;
          EXPECT_NEAR(r.norm_entropy, visible > 1 ? entropy / std::log((double)visible) : 0.0, 1e-6);
          EXPECT_NEAR(r.max_weight, pmax, 1e-7) << "head " << h << " row " << i;
          EXPECT_NEAR(r.effective_keys, std::exp(entropy), 1e-5);
          EXPECT_NEAR(r.grad_norm, std::sqrt(fro), 1e-6) << "head " << h << " row " << i;
          mean_entropy += entropy / n_q, mean_max += pmax / n_q;
        }
        EXPECT_NEAR(heads[h].entropy, mean_entropy, 1e-6);
        EXPECT_NEAR(heads[h].max_weight, mean_max, 1e-6);
        const double l_mean = with_logits ? l_sum / l_count : 0.0;
        const double l_std = with_logits ? std::sqrt(l_sq / l_count - l_mean * l_mean) : 0.0;
        EXPECT_NEAR(heads[h].logit_mean, l_mean, 1e-5);
        EXPECT_NEAR(heads[h].logit_std, l_std, 1e-5);
      }
    }
  }
  // A causal row 0 sees one key: entropy 0 whatever the junk after it.
  std::vector<HeadMetrics> heads;
  ComputeProbMetrics(causal.data(), nullptr, n_head, n_q, n_k, Mask::Causal(), &heads);
  EXPECT_EQ(heads[0].rows[0].entropy, 0.0f);
  EXPECT_EQ(heads[0].rows[0].max_weight, 1.0f);
}

// On softmax rows both routes give the same figures (ComputeMetrics reads the logits, ComputeProbMetrics not).
TEST(Metrics, ProbFiguresOfSoftmaxRowsEqualTheLogitRoute) {
  Tensor logits, probs;
  const size_t n_head = 2, n = 9;
  logits.Resize({n_head, n, n});
  for (size_t i = 0; i < logits.size(); ++i) logits.data[i] = std::cos(0.37f * (float)i) * 4.0f;
  for (MaskKind kind : {MaskKind::kNone, MaskKind::kCausal}) {
    Softmax(logits, kind, &probs);
    std::vector<HeadMetrics> from_logits, from_probs;
    ComputeMetrics(logits, probs, kind, &from_logits);
    ComputeProbMetrics(probs.data.data(), logits.data.data(), n_head, n, n, kind, &from_probs);
    ASSERT_EQ(from_probs.size(), n_head);
    for (size_t h = 0; h < n_head; ++h) {
      for (size_t i = 0; i < n; ++i) {
        const RowMetrics &a = from_probs[h].rows[i], &b = from_logits[h].rows[i];
        EXPECT_NEAR(a.entropy, b.entropy, 1e-5) << "head " << h << " row " << i;
        EXPECT_EQ(a.max_weight, b.max_weight) << "head " << h << " row " << i;
        EXPECT_EQ(a.grad_norm, b.grad_norm) << "head " << h << " row " << i;
      }
      EXPECT_EQ(from_probs[h].logit_mean, from_logits[h].logit_mean);
      EXPECT_EQ(from_probs[h].logit_std, from_logits[h].logit_std);
    }
  }
}
