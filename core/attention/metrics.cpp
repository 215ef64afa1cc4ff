#include "attention/metrics.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attention/attention.h"

namespace attnviz {
namespace {

// Row figures from the logits and the softmax probs of one row.
//   entropy  H = -sum p log p = log S - sum_j p_j (l_j - m), with S = sum_j exp(l_j - m)
//            (written with l_j - m <= 0, so huge logits cause no cancellation)
//   max      = 1 / S (the max entry is exp(0) / S)
//   ||diag(p) - p p^T||_F   SoftmaxJacobianNorm (no cancellation at saturation)
RowMetrics RowFigures(const float* logits_row, const float* probs_row, size_t visible) {
  float m = logits_row[0];
  for (size_t j = 1; j < visible; ++j) m = std::max(m, logits_row[j]);
  double weighted_gap = 0, max_w = 0;
  for (size_t j = 0; j < visible; ++j) {
    const double p = probs_row[j];
    if (p > 0) weighted_gap += p * ((double)logits_row[j] - m);
    max_w = std::max(max_w, p);
  }
  // The max entry of a row is exp(0) / S, so log S = -log(max weight): no second exp pass.
  const double log_s = max_w > 0 ? -std::log(max_w) : 0.0;
  RowMetrics r;
  double entropy = std::max(0.0, log_s - weighted_gap);
  r.entropy = (float)entropy;
  r.norm_entropy = visible > 1 ? (float)(entropy / std::log((double)visible)) : 0.0f;
  r.max_weight = (float)max_w;
  r.effective_keys = (float)std::exp(entropy);
  r.grad_norm = SoftmaxJacobianNorm(probs_row, visible);
  return r;
}

// Row figures from the probs of one row alone: H = -sum p log p (in double), max = max_j p_j.
RowMetrics ProbRowFigures(const float* probs_row, size_t visible) {
  double entropy = 0;
  float peak = 0;
  for (size_t j = 0; j < visible; ++j) {
    const float p = probs_row[j];
    if (p > 0) entropy -= (double)p * std::log((double)p);
    peak = std::max(peak, p);
  }
  RowMetrics r;
  r.entropy = (float)entropy;
  r.norm_entropy = visible > 1 ? (float)(entropy / std::log((double)visible)) : 0.0f;
  r.max_weight = peak;
  r.effective_keys = (float)std::exp(entropy);
  r.grad_norm = SoftmaxJacobianNorm(probs_row, visible);
  return r;
}

// Each head's row figures over the visible keys of its rows (from logits and probs when rows_from_logits, else from
// the probs alone) and its means; its logit mean and std from the visible logits (0 when logits is null).
//   logits, probs: [n_head, n_q, n_k] (logits may be null unless rows_from_logits)
void HeadFigures(const float* logits, const float* probs, size_t n_head, size_t n_q, size_t n_k, const Mask& mask,
                 bool rows_from_logits, std::vector<HeadMetrics>* heads) {
  heads->resize(n_head);
#pragma omp parallel for schedule(static) if (n_head > 1 && n_q * n_k > 4096)
  for (long long h = 0; h < (long long)n_head; ++h) {
    HeadMetrics& hm = (*heads)[h];
    hm.rows.resize(n_q);
    double l_sum = 0, l_sq = 0;
    size_t l_count = 0;
    for (size_t i = 0; i < n_q; ++i) {
      // The row's visible keys [begin, begin + visible): the figures are over them only.
      const size_t begin = (size_t)mask.Begin((int)i), visible = (size_t)mask.Visible((int)i, (int)n_k);
      const size_t at = (h * n_q + i) * n_k + begin;
      const float* w = probs + at;
      hm.rows[i] = rows_from_logits ? RowFigures(logits + at, w, visible) : ProbRowFigures(w, visible);
      if (!logits) continue;
      const float* l = logits + at;
      for (size_t j = 0; j < visible; ++j) {
        l_sum += l[j];
        l_sq += (double)l[j] * l[j];
      }
      l_count += visible;
    }
    SummarizeHead(l_sum, l_sq, l_count, &hm);
  }
}

}  // namespace

namespace {
// Over probs [j0, j1) of a row: sum p, sum p^2 (1 - p)^2, sum p^2, sum p^4, in double. `omp simd` lets the sums
// be split over vector lanes (a peaked row of a long input is read here a second time: as one scalar chain of
// double adds this was a visible share of the CLI's forward on long inputs).
struct JacobianSums {
  double rest = 0, own = 0, t2 = 0, t4 = 0;
};
JacobianSums SumsOver(const float* probs_row, size_t j0, size_t j1) {
  double rest = 0, own = 0, t2 = 0, t4 = 0;
#pragma omp simd reduction(+ : rest, own, t2, t4)
  for (size_t j = j0; j < j1; ++j) {
    const double p = probs_row[j], p2 = p * p;
    rest += p;
    own += p2 * (1 - p) * (1 - p);
    t2 += p2;
    t4 += p2 * p2;
  }
  return {rest, own, t2, t4};
}
}  // namespace

float SoftmaxJacobianNorm(const float* probs_row, size_t visible) {
  if (visible == 0) return 0.0f;
  // m: the first largest entry (its largest value in lanes, then the first index holding it; a NaN row stops at
  // its end).
  const float top = Eigen::Map<const Eigen::ArrayXf>(probs_row, (Eigen::Index)visible).maxCoeff();
  size_t m = 0;
  while (m + 1 < visible && !(probs_row[m] == top)) ++m;
  // Every entry but m: the two runs around it.
  const JacobianSums a = SumsOver(probs_row, 0, m), b = SumsOver(probs_row, m + 1, visible);
  const double rest = a.rest + b.rest, own = a.own + b.own, t2 = a.t2 + b.t2, t4 = a.t4 + b.t4;
  const double pm2 = (double)probs_row[m] * probs_row[m];
  const double sq = pm2 * rest * rest + own + 2 * pm2 * t2 + (t2 * t2 - t4);
  return (float)std::sqrt(std::max(0.0, sq));
}

void ComputeMetrics(const Tensor& logits, const Tensor& probs, const Mask& mask, std::vector<HeadMetrics>* heads) {
  HeadFigures(logits.data.data(), probs.data.data(), logits.dim(0), logits.dim(1), logits.dim(2), mask,
              /*rows_from_logits=*/true, heads);
}

void ComputeProbMetrics(const float* probs, const float* logits, size_t n_head, size_t n_q, size_t n_k,
                        const Mask& mask, std::vector<HeadMetrics>* heads) {
  HeadFigures(logits, probs, n_head, n_q, n_k, mask, /*rows_from_logits=*/false, heads);
}

void SummarizeHead(double logit_sum, double logit_sq, size_t logit_count, HeadMetrics* hm) {
  double sums[5] = {0, 0, 0, 0, 0};
  for (const RowMetrics& r : hm->rows) {
    sums[0] += r.entropy;
    sums[1] += r.norm_entropy;
    sums[2] += r.max_weight;
    sums[3] += r.effective_keys;
    sums[4] += r.grad_norm;
  }
  const double inv = hm->rows.empty() ? 0.0 : 1.0 / hm->rows.size();
  hm->entropy = (float)(sums[0] * inv);
  hm->norm_entropy = (float)(sums[1] * inv);
  hm->max_weight = (float)(sums[2] * inv);
  hm->effective_keys = (float)(sums[3] * inv);
  hm->grad_norm = (float)(sums[4] * inv);
  const double mean = logit_count ? logit_sum / logit_count : 0.0;
  hm->logit_mean = (float)mean;
  hm->logit_std = (float)std::sqrt(std::max(0.0, (logit_count ? logit_sq / logit_count : 0.0) - mean * mean));
}

HeadMetrics MeanOverHeads(const std::vector<HeadMetrics>& heads) {
  HeadMetrics m;
  if (heads.empty()) return m;
  for (const HeadMetrics& h : heads) {
    m.entropy += h.entropy;
    m.norm_entropy += h.norm_entropy;
    m.max_weight += h.max_weight;
    m.effective_keys += h.effective_keys;
    m.grad_norm += h.grad_norm;
    m.logit_mean += h.logit_mean;
    m.logit_std += h.logit_std;
  }
  const float inv = 1.0f / heads.size();
  m.entropy *= inv;
  m.norm_entropy *= inv;
  m.max_weight *= inv;
  m.effective_keys *= inv;
  m.grad_norm *= inv;
  m.logit_mean *= inv;
  m.logit_std *= inv;
  return m;
}

}  // namespace attnviz
