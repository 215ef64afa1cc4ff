// Saturation figures: how peaked each softmax row is, and how small its gradient has become.
#pragma once
#include <vector>

#include "config.h"
#include "tensor.h"
#include "text.h"

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

// logits, weights: [n_head, n_q, n_k]. heads: resized to n_head.
void ComputeMetrics(const Tensor& logits, const Tensor& weights, MaskKind mask, std::vector<HeadMetrics>* heads);
// Fills the head's means from hm->rows, and its logit mean and std from the running sums of the
// visible logits (sum, sum of squares, count).
void SummarizeHead(double logit_sum, double logit_sq, size_t logit_count, HeadMetrics* hm);
// Mean of each figure over heads.
HeadMetrics MeanOverHeads(const std::vector<HeadMetrics>& heads);

// One point of the "watch softmax saturate" table: one d_k, scaled or not, averaged over seeds.
struct SweepPoint {
  int d_k = 0;
  bool scaled = false;
  int seeds = 0;
  float max_weight = 0, entropy = 0, norm_entropy = 0, effective_keys = 0, grad_norm = 0, logit_std = 0;
};

struct SweepOptions {
  std::vector<int> d_ks;  // empty = 1, 2, 4, ... 4096
  int n_seeds = 3;        // seeds base.seed, base.seed+1, ...; each point averages all heads over all seeds
  int n_head = 1;         // heads per run (the sweep measures softmax, not head diversity)
};
// Runs the engine on the given tokens for each d_k, scaled and unscaled, keeping every other
// setting of `base` (temperature, mask, d_model, positional). kv_tokens: keys/values (and queries
// in self mode); query_tokens: queries in cross mode (base.mode == kCross).
Result<std::vector<SweepPoint>> SweepDk(const std::vector<Token>& query_tokens, const std::vector<Token>& kv_tokens,
                                        const AttentionConfig& base, const SweepOptions& options);
std::vector<int> DefaultSweepDks();
// CSV with a header row: d_k,scaled,seeds,max_weight,entropy,norm_entropy,effective_keys,grad_norm,logit_std
std::string SweepToCsv(const std::vector<SweepPoint>& points);

}  // namespace attnviz
