// Projection weights of one multi-head attention layer, used as x @ W (no biases).
#pragma once
#include <string>

#include "sandbox/config.h"
#include "base/tensor.h"

namespace attnviz {

struct ProjectionWeights {
  int d_model = 0, n_head = 0, d_k = 0, d_v = 0;
  QkvLayout layout = QkvLayout::kSeparate;
  // Fused layout: w_qkv [d_model, n_head*(2*d_k + d_v)], columns = [ Q heads | K heads | V heads ].
  Tensor w_qkv;
  // Separate layout: w_q, w_k [d_model, n_head*d_k], w_v [d_model, n_head*d_v].
  Tensor w_q, w_k, w_v;
  // Always: w_o [n_head*d_v, d_model].
  Tensor w_o;
};

// Random init from config.seed, std 1/sqrt(d_model), so each q and k component has unit variance
// for unit-variance inputs. The fused and separate layouts hold exactly the same numbers.
// fast: FastNormals instead of NormalAt (other numbers, the same distribution; the d_k sweep's many draws).
void InitWeights(const AttentionConfig& config, ProjectionWeights* weights, bool fast = false);

// Loads wq.npy wk.npy wv.npy wo.npy (float32 or float64, C order, the shapes above) from `dir`
// into the separate layout. Errors name the file, the shape found and the shape expected.
Status LoadWeights(const std::string& dir, const AttentionConfig& config, ProjectionWeights* weights);

}  // namespace attnviz
