// The sandbox's projection, step (1) of the attention pass: its embeddings through its ProjectionWeights into the
// [n_head, n, d] tensors the kernel (core/attention/attention.h) reads. A trained model projects in its own run.
#pragma once
#include "base/tensor.h"
#include "sandbox/weights.h"

namespace attnviz {

// xq: [n_q, d_model], x: [n_k, d_model].
// q: [n_head, n_q, d_k], k: [n_head, n_k, d_k], v: [n_head, n_k, d_v]. Output tensors are resized.
// Fused weights and xq the same tensor as x (self-attention): one product for q, k and v.
void Project(const Tensor& xq, const Tensor& x, const ProjectionWeights& w, Tensor* q, Tensor* k, Tensor* v);

}  // namespace attnviz
