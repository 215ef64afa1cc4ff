#include "sandbox/projection.h"

#include <algorithm>
#include <vector>

#include "base/check.h"
#include "base/matmul.h"

namespace attnviz {
namespace {

// Scratch for the [n, cols] projection product before it is split per head; reused between calls.
thread_local std::vector<float> tls_projection;

// Copies columns [col0 + h*d, col0 + (h+1)*d) of a row-major [n, ld] product into dst [n_head, n, d].
void SplitHeads(const float* product, size_t n, size_t ld, size_t col0, size_t n_head, size_t d, float* dst) {
#pragma omp parallel for schedule(static) if (n * n_head * d > (1u << 16))
  for (long long h = 0; h < (long long)n_head; ++h) {
    for (size_t i = 0; i < n; ++i) {
      const float* src = product + i * ld + col0 + h * d;
      std::copy(src, src + d, dst + (h * n + i) * d);
    }
  }
}

// dst [n, cols] = x [n, depth] . w [depth, cols] (the columns col0.. of a row-major [depth, w_ld] matrix).
void ProjectColumns(const Tensor& x, const float* w, size_t w_ld, size_t col0, size_t cols, float* dst) {
  MatMulTiled(x.data.data(), x.dim(1), x.dim(0), x.dim(1), w + col0, w_ld, WeightLayout::kInOut, cols, dst, cols);
}

// Projects `x` through `cols` columns starting at col0 of w [d_model, w_ld] and splits them into
// n_head heads of width d: out [n_head, n, d].
void ProjectHeads(const Tensor& x, const Tensor& w, size_t col0, size_t n_head, size_t d, Tensor* out) {
  const size_t n = x.dim(0), cols = n_head * d, w_ld = w.dim(1);
  tls_projection.resize(n * cols);
  ProjectColumns(x, w.data.data(), w_ld, col0, cols, tls_projection.data());
  out->Resize({n_head, n, d});
  SplitHeads(tls_projection.data(), n, cols, 0, n_head, d, out->data.data());
}

}  // namespace

void Project(const Tensor& xq, const Tensor& x, const ProjectionWeights& w, Tensor* q, Tensor* k, Tensor* v) {
  ATTNVIZ_CHECK_SHAPE(xq.shape.size() == 2 && x.shape.size() == 2 && xq.dim(1) == (size_t)w.d_model &&
                          x.dim(1) == (size_t)w.d_model,
                      "xq " + ShapeString(xq.shape) + ", x " + ShapeString(x.shape) + ", params for d_model " +
                          std::to_string(w.d_model));
  const size_t n_head = w.n_head, d_k = w.d_k, d_v = w.d_v;
  const size_t qk_cols = n_head * d_k;
  if (w.layout == QkvLayout::kFused) {
    const bool self = (&xq == &x) || (xq.shape == x.shape && xq.data == x.data);
    if (self) {
      // (1a) one GEMM for all of Q, K and V, then split by head.
      const size_t n = x.dim(0), ld = w.w_qkv.dim(1);
      tls_projection.resize(n * ld);
      ProjectColumns(x, w.w_qkv.data.data(), ld, 0, ld, tls_projection.data());
      q->Resize({n_head, n, d_k});
      k->Resize({n_head, n, d_k});
      v->Resize({n_head, n, d_v});
      SplitHeads(tls_projection.data(), n, ld, 0, n_head, d_k, q->data.data());
      SplitHeads(tls_projection.data(), n, ld, qk_cols, n_head, d_k, k->data.data());
      SplitHeads(tls_projection.data(), n, ld, 2 * qk_cols, n_head, d_v, v->data.data());
      return;
    }
    // (1b) cross: queries from xq, keys and values from x, each through its block of the fused matrix.
    ProjectHeads(xq, w.w_qkv, 0, n_head, d_k, q);
    ProjectHeads(x, w.w_qkv, qk_cols, n_head, d_k, k);
    ProjectHeads(x, w.w_qkv, 2 * qk_cols, n_head, d_v, v);
    return;
  }
  // (1c) separate matrices.
  ProjectHeads(xq, w.w_q, 0, n_head, d_k, q);
  ProjectHeads(x, w.w_k, 0, n_head, d_k, k);
  ProjectHeads(x, w.w_v, 0, n_head, d_v, v);
}

}  // namespace attnviz
