// Seeds (c), (e), (g): the pipeline as numbers (fused W and its split, q per head, one query's value read).
//
// The actual rows behind the sandbox's shapes, read from a
// Pipeline that has run (its params and tensors); nothing here runs the forward pass again.
//   the fused W [d_model, n_head*(2*d_k + d_v)] (= [d_model, 3*d_model] when d_k = d_v = d_model/n_head) and
//   its column blocks W_q | W_k | W_v; q, k, v through the fused matrix and through three Linears (equal);
//   q as one Linear's output [batch, seq, n_head*d_k] and as heads [batch, n_head, seq, d_k]; one query row's
//   weights times the value rows, summed into z_i (the dictionary read). The heads concatenated and mixed
//   by W_o are the pipeline's own AttentionTensors::concat [n_q, n_head*d_v] and out [n_q, d_model].
#pragma once
#include <vector>

#include "sandbox/config.h"
#include "base/tensor.h"
#include "sandbox/weights.h"

namespace attnviz {

struct FusedSplit {
  Tensor w_fused;        // [d_model, n_head*(2*d_k + d_v)] = [ W_q | W_k | W_v ]
  Tensor w_q, w_k, w_v;  // [d_model, n_head*d_k], [d_model, n_head*d_k], [d_model, n_head*d_v]
};
// From either layout (a separate layout's three matrices side by side are the fused one).
FusedSplit SplitFusedWeights(const ProjectionWeights& weights);

struct LinearsCheck {
  Tensor q_fused, k_fused, v_fused;  // [n_head, n, d] through the one fused matrix
  Tensor q_three, k_three, v_three;  // the same through three Linears
  float max_abs_diff = 0;            // over q, k and v
  // What float32 rounding allows: the two layouts sum the same d_model products in a different order, so they
  // may differ by a few units in the last place of the largest |q|, |k| or |v|: d_model * FLT_EPSILON * that.
  float rounding_tolerance = 0;
  bool equal_to_rounding() const { return max_abs_diff <= rounding_tolerance; }
};
// q, k, v of xq [n_q, d_model] and x [n_k, d_model] through the fused and the separate layout of `weights`
// (the run's own: the random init or the loaded files, in either layout).
LinearsCheck FusedVersusThreeLinears(const Tensor& xq, const Tensor& x, const ProjectionWeights& weights);

// per_head [n_head, n, d] -> [1, n, n_head*d]: one Linear's output, head h in columns h*d .. h*d+d-1, the
// batch dimension shown (what x W_q is before the split).
Tensor MergeHeads(const Tensor& per_head);
// per_head [n_head, n, d] -> [1, n_head, n, d]: the same numbers after view(batch, seq, head, d/head) and
// transpose(1, 2), the batch dimension shown.
Tensor HeadsWithBatch(const Tensor& per_head);

// One query row read out of the values: z_i = sum_j p_ij v_j.
struct ValueRead {
  int head = 0, query = 0;
  std::vector<float> weights;  // [n_k] p_ij
  Tensor weighted_values;      // [n_k, d_v] row j = p_ij * v_j
  std::vector<float> z;        // [d_v] the column sums
};
// probs [n_head, n_q, n_k], v [n_head, n_k, d_v]; head and query must be in range (checked).
ValueRead ReadValues(const Tensor& probs, const Tensor& v, int head, int query);

}  // namespace attnviz
