// core/attention/attention.*'s soft cap (gemma2's attn_logit_softcapping): logits = cap * tanh(score * m / cap)
// in every path of the one kernel. The capped logits against tanh computed here, rows that still sum to 1 with
// masked cells exactly 0, the probs against a naive double softmax of the capped logits, exact rows (AttendRows)
// and the streamed blocks bit-equal to the full pass, huge scores that stay finite, and cap 0 = no cap.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attention/attention.h"
#include "attention/metrics.h"
#include <gtest/gtest.h>

namespace attnviz {
namespace {

// q [n_head, n, d], k [n_kv, n, d], v [n_kv, n, d], normal with std `scale`.
struct Heads {
  Tensor q, k, v;
};
Heads RandomHeads(size_t n_head, size_t n_kv, size_t n, size_t d, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, scale);
  Heads h;
  h.q.Resize({n_head, n, d});
  h.k.Resize({n_kv, n, d});
  h.v.Resize({n_kv, n, d});
  for (Tensor* t : {&h.q, &h.k, &h.v})
    for (float& x : t->data) x = nd(rng);
  return h;
}

// The capped logits of Attend's logits map equal cap * tanh(s * m / cap) of its scores map, computed here.
TEST(AttentionSoftcap, LogitsAreCapTimesTanhOfTheScaledScores) {
  const Heads h = RandomHeads(2, 2, 40, 16, 1, 3.0f);
  const float mult = 0.25f, cap = 5.0f;
  Tensor scores, logits, probs;
  Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, mult, Mask::Causal(), &scores, &logits, &probs, nullptr, nullptr,
         nullptr, cap);
  ASSERT_EQ(logits.size(), scores.size());
  float max_abs = 0;
  for (size_t c = 0; c < logits.size(); ++c) {
    const float want = cap * std::tanh(scores.data[c] * mult / cap);
    ASSERT_FLOAT_EQ(logits.data[c], want) << "cell " << c;
    ASSERT_LT(std::fabs(logits.data[c]), cap) << "cell " << c;
    max_abs = std::max(max_abs, std::fabs(scores.data[c] * mult));
  }
  EXPECT_GT(max_abs, cap) << "the inputs never reach the cap: the test would not see it";
  // Logits() and LogitFromScore give the same cells.
  Tensor again;
  Logits(scores, mult, &again, cap);
  for (size_t c = 0; c < logits.size(); ++c) ASSERT_EQ(again.data[c], logits.data[c]);
  EXPECT_EQ(LogitFromScore(scores.data[7], mult, cap), logits.data[7]);
}

// Rows sum to 1, masked cells are exactly 0, and each visible prob is the double softmax of the capped logits.
TEST(AttentionSoftcap, ProbsAreTheSoftmaxOfTheCappedLogits) {
  const size_t n = 37;
  const Heads h = RandomHeads(4, 2, n, 8, 2, 4.0f);
  const float mult = 1.0f / std::sqrt(8.0f), cap = 3.0f;
  for (const Mask& mask : {Mask::Causal(), Mask::Causal(5), Mask::Bidirectional()}) {
    Tensor scores, probs;
    Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, mult, mask, &scores, nullptr, &probs, nullptr, nullptr, nullptr, cap);
    for (size_t head = 0; head < 4; ++head)
      for (size_t i = 0; i < n; ++i) {
        const float* s = scores.data.data() + (head * n + i) * n;
        const float* p = probs.data.data() + (head * n + i) * n;
        const int lo = mask.Begin((int)i), hi = mask.End((int)i, (int)n);
        double mx = -INFINITY, sum = 0, total = 0;
        for (int j = lo; j < hi; ++j) mx = std::max(mx, cap * std::tanh((double)s[j] * mult / cap));
        for (int j = lo; j < hi; ++j) sum += std::exp(cap * std::tanh((double)s[j] * mult / cap) - mx);
        for (int j = 0; j < (int)n; ++j) {
          total += p[j];
          if (j < lo || j >= hi) {
            ASSERT_EQ(p[j], 0.0f) << "masked cell " << i << ", " << j;
            continue;
          }
          const double want = std::exp(cap * std::tanh((double)s[j] * mult / cap) - mx) / sum;
          ASSERT_NEAR(p[j], want, 1e-6) << "head " << head << " row " << i << " key " << j;
        }
        ASSERT_NEAR(total, 1.0, 1e-5) << "row " << i;
      }
  }
}

// Exact rows (AttendRows) and streamed blocks (AttendStream) with a cap: the same bits as the full pass.
TEST(AttentionSoftcap, ExactRowsAndStreamedBlocksEqualThePassBitForBit) {
  const size_t n = 300;  // more than one block of rows and one key tile
  const Heads h = RandomHeads(4, 2, n, 16, 3, 2.0f);
  const float mult = 0.25f, cap = 2.5f;
  const Mask mask = Mask::Causal(64);
  Tensor probs;
  Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, mult, mask, nullptr, nullptr, &probs, nullptr, nullptr, nullptr, cap);
  for (int head = 0; head < 4; ++head) {
    Tensor rows;
    AttendRows(h.q, h.k, mult, mask, head, 100, 260, nullptr, &rows, cap);
    for (size_t i = 100; i < 260; ++i)
      for (size_t j = 0; j < n; ++j)
        ASSERT_EQ(rows.data[(i - 100) * n + j], probs.data[((size_t)head * n + i) * n + j]) << i << ", " << j;
  }
  AttendSink sink;
  size_t checked = 0;
  sink.on_block = [&](const RowBlock& b) {
    for (int r = 0; r < b.rows; ++r)
      for (int j = 0; j < b.n_k; ++j)
        if (b.probs[(size_t)r * b.n_k + j] != probs.data[((size_t)b.head * n + b.r0 + r) * n + j])
          ADD_FAILURE() << "head " << b.head << " row " << b.r0 + r << " key " << j;
#pragma omp atomic
    checked += (size_t)b.rows;
  };
  Tensor z;
  ASSERT_TRUE(AttendStream(h.q, h.k, h.v, mult, mask, sink, nullptr, &z, cap));
  EXPECT_EQ(checked, 4 * n);
  // Without the cap the maps differ: the cap is not a no-op on these inputs.
  Tensor uncapped;
  Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, mult, mask, nullptr, nullptr, &uncapped, nullptr, nullptr, nullptr);
  double diff = 0;
  for (size_t c = 0; c < probs.size(); ++c) diff = std::max(diff, (double)std::fabs(probs.data[c] - uncapped.data[c]));
  EXPECT_GT(diff, 1e-3);
}

// Huge scores (and a huge multiplier) give logits of +-cap, never NaN or Inf; the rows still sum to 1.
TEST(AttentionSoftcap, HugeScoresStayFinite) {
  const Heads h = RandomHeads(1, 1, 20, 4, 4, 1e18f);
  const float cap = 50.0f;
  Tensor logits, probs;
  std::vector<HeadMetrics> metrics;
  Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, 1e10f, Mask::Causal(), nullptr, &logits, &probs, &metrics, nullptr,
         nullptr, cap);
  for (float l : logits.data) {
    ASSERT_TRUE(std::isfinite(l));
    ASSERT_LE(std::fabs(l), cap);
  }
  for (size_t i = 0; i < 20; ++i) {
    double sum = 0;
    for (size_t j = 0; j < 20; ++j) {
      ASSERT_TRUE(std::isfinite(probs.data[i * 20 + j]));
      sum += probs.data[i * 20 + j];
    }
    ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << i;
  }
  for (const RowMetrics& r : metrics[0].rows) ASSERT_TRUE(std::isfinite(r.entropy));
  EXPECT_EQ(LogitFromScore(std::numeric_limits<float>::infinity(), 1.0f, cap), cap);
  EXPECT_EQ(LogitFromScore(-std::numeric_limits<float>::infinity(), 1.0f, cap), -cap);
}

// Cap 0 is no cap: the same bits as the call without one.
TEST(AttentionSoftcap, ZeroIsNoCap) {
  const Heads h = RandomHeads(2, 1, 50, 8, 5, 2.0f);
  Tensor a, b;
  Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, 0.3f, Mask::Causal(), nullptr, nullptr, &a, nullptr, nullptr);
  Attend(AttendFrom::kQueryKey, h.q, h.k, h.v, 0.3f, Mask::Causal(), nullptr, nullptr, &b, nullptr, nullptr, nullptr,
         0.0f);
  EXPECT_EQ(a.data, b.data);
}

}  // namespace
}  // namespace attnviz
