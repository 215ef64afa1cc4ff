// Saturation figures: how peaked each softmax row is, and how small its gradient has become.
#pragma once
#include <vector>

#include "attention/mask.h"
#include "base/tensor.h"

namespace attnviz {

struct RowMetrics {
  float entropy = 0;         // -sum p log p, nats
  float norm_entropy = 0;    // entropy / ln(visible keys); 0 when only one key is visible
  float max_weight = 0;      // max_j p_j
  float effective_keys = 0;  // exp(entropy): how many keys the row spreads over
  float grad_norm = 0;       // ||diag(p) - p p^T||_F: size of the softmax Jacobian (-> 0 when saturated)
};

struct HeadMetrics {
  // Means over the head's rows.
  float entropy = 0, norm_entropy = 0, max_weight = 0, effective_keys = 0, grad_norm = 0;
  float logit_mean = 0, logit_std = 0;  // over the visible (unmasked) logits of the head
  std::vector<RowMetrics> rows;         // rows: [n_q]
};

// logits, probs: [n_head, n_q, n_k]. heads: resized to n_head.
void ComputeMetrics(const Tensor& logits, const Tensor& probs, const Mask& mask, std::vector<HeadMetrics>* heads);
// The same figures from the probs alone, for maps whose rows are not a softmax of the logits at hand (or have none):
// entropy = -sum p log p over the row's visible keys. `logits` (may be null) only gives each head's logit mean and
// std (0 when null).
//   probs: [n_head, n_q, n_k]; logits: [n_head, n_q, n_k] or null. heads: resized to n_head.
void ComputeProbMetrics(const float* probs, const float* logits, size_t n_head, size_t n_q, size_t n_k,
                        const Mask& mask, std::vector<HeadMetrics>* heads);
// Fills the head's means from hm->rows, and its logit mean and std from the running sums of the
// visible logits (sum, sum of squares, count).
void SummarizeHead(double logit_sum, double logit_sq, size_t logit_count, HeadMetrics* hm);
// ||diag(p) - p p^T||_F of one softmax row without cancellation: with m the max entry and r = 1 - p_m
// summed from the other entries, the square is p_m^2 r^2 + sum_{j!=m} p_j^2 (1 - p_j)^2
// + 2 p_m^2 T2 + T2^2 - T4 (T2, T4: sums of p_j^2, p_j^4 over j != m). The textbook form
// sum p^2 - 2 sum p^3 + (sum p^2)^2 loses every digit once a row saturates (p_m -> 1).
float SoftmaxJacobianNorm(const float* probs_row, size_t visible);
// Rows whose max entry passes this use SoftmaxJacobianNorm in the fused pass (below it the textbook
// form, from sums the pass already has, keeps float precision).
constexpr double kPeakedRow = 0.5;

// Mean of each figure over heads.
HeadMetrics MeanOverHeads(const std::vector<HeadMetrics>& heads);

}  // namespace attnviz
