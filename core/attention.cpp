#include "attention.h"

#include <algorithm>
#include <cmath>

namespace attnviz {
namespace {

// Scratch for the [n, cols] projection product before it is split per head; reused between calls.
thread_local std::vector<float> tls_projection;

// Copies columns [col0 + h*d, col0 + (h+1)*d) of a row-major [n, ld] product into dst [n_head, n, d].
void SplitHeads(const float* product, size_t n, size_t ld, size_t col0, size_t n_head, size_t d, float* dst) {
  for (size_t h = 0; h < n_head; ++h) {
    for (size_t i = 0; i < n; ++i) {
      const float* src = product + i * ld + col0 + h * d;
      std::copy(src, src + d, dst + (h * n + i) * d);
    }
  }
}

// dst [n, cols] = x [n, d_model] . w [d_model, cols] (a block of columns of a wider matrix).
void MatMul(const Tensor& x, const float* w, size_t w_ld, size_t col0, size_t cols, float* dst) {
  const Eigen::Index n = (Eigen::Index)x.dim(0), d_model = (Eigen::Index)x.dim(1);
  Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>> w_block(w + col0, d_model, (Eigen::Index)cols,
                                                               Eigen::OuterStride<>((Eigen::Index)w_ld));
  RowMap(dst, n, (Eigen::Index)cols).noalias() = x.Matrix() * w_block;
}

// Projects `x` through `cols` columns starting at col0 of w [d_model, w_ld] and splits them into
// n_head heads of width d: out [n_head, n, d].
void ProjectHeads(const Tensor& x, const Tensor& w, size_t col0, size_t n_head, size_t d, Tensor* out) {
  const size_t n = x.dim(0), cols = n_head * d, w_ld = w.dim(1);
  tls_projection.resize(n * cols);
  MatMul(x, w.data.data(), w_ld, col0, cols, tls_projection.data());
  out->Resize({n_head, n, d});
  SplitHeads(tls_projection.data(), n, cols, 0, n_head, d, out->data.data());
}

// logits_row [n_k] = scores_row * multiplier, clamped so no logit is infinite.
inline void LogitsRow(const float* scores_row, size_t n_k, float multiplier, float* logits_row) {
  for (size_t j = 0; j < n_k; ++j) {
    logits_row[j] = std::clamp(scores_row[j] * multiplier, -kLogitLimit, kLogitLimit);
  }
}

// weights_row [n_k]: softmax of the first `visible` logits (row max subtracted); the rest exactly 0.
inline void SoftmaxRow(const float* logits_row, size_t n_k, size_t visible, float* weights_row) {
  Eigen::Map<const Eigen::ArrayXf> l(logits_row, (Eigen::Index)visible);
  Eigen::Map<Eigen::ArrayXf> w(weights_row, (Eigen::Index)visible);
  const float row_max = l.maxCoeff();
  w = (l - row_max).exp();
  w *= 1.0f / w.sum();  // the max entry is exp(0) = 1, so the sum is >= 1: no division by 0
  std::fill(weights_row + visible, weights_row + n_k, 0.0f);
}

}  // namespace

void Project(const Tensor& xq, const Tensor& x, const ProjectionWeights& w, Tensor* q, Tensor* k, Tensor* v) {
  const size_t n_head = w.n_head, d_k = w.d_k, d_v = w.d_v;
  const size_t qk_cols = n_head * d_k;
  if (w.layout == QkvLayout::kFused) {
    const bool self = (&xq == &x) || (xq.shape == x.shape && xq.data == x.data);
    if (self) {
      // (1a) one GEMM for all of Q, K and V, then split by head.
      const size_t n = x.dim(0), ld = w.w_qkv.dim(1);
      tls_projection.resize(n * ld);
      MatMul(x, w.w_qkv.data.data(), ld, 0, ld, tls_projection.data());
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

void Scores(const Tensor& q, const Tensor& k, Tensor* scores) {
  const size_t n_head = q.dim(0), n_q = q.dim(1), n_k = k.dim(1);
  scores->Resize({n_head, n_q, n_k});
  // Heads in parallel when there are several (Eigen then runs each product on one thread);
  // with one head Eigen parallelizes the product itself.
#pragma omp parallel for schedule(static) if (n_head > 1)
  for (long long h = 0; h < (long long)n_head; ++h) {
    scores->Slice(h).noalias() = q.Slice(h) * k.Slice(h).transpose();
  }
}

void Logits(const Tensor& scores, float multiplier, Tensor* logits) {
  logits->Resize(scores.shape);
  const size_t rows = scores.dim(0) * scores.dim(1), n_k = scores.dim(2);
#pragma omp parallel for schedule(static) if (rows * n_k > (1u << 16))
  for (long long r = 0; r < (long long)rows; ++r) {
    LogitsRow(scores.data.data() + r * n_k, n_k, multiplier, logits->data.data() + r * n_k);
  }
}

void Softmax(const Tensor& logits, MaskKind mask, Tensor* weights) {
  weights->Resize(logits.shape);
  const size_t n_q = logits.dim(1), n_k = logits.dim(2), rows = logits.dim(0) * n_q;
#pragma omp parallel for schedule(static) if (rows * n_k > (1u << 16))
  for (long long r = 0; r < (long long)rows; ++r) {
    const size_t visible = VisibleKeys(mask, (int)(r % n_q), (int)n_k);
    SoftmaxRow(logits.data.data() + r * n_k, n_k, visible, weights->data.data() + r * n_k);
  }
}

void LogitsSoftmax(const Tensor& scores, float multiplier, MaskKind mask, Tensor* logits, Tensor* weights) {
  logits->Resize(scores.shape);
  weights->Resize(scores.shape);
  const size_t n_q = scores.dim(1), n_k = scores.dim(2), rows = scores.dim(0) * n_q;
#pragma omp parallel for schedule(static) if (rows * n_k > (1u << 16))
  for (long long r = 0; r < (long long)rows; ++r) {
    float* logits_row = logits->data.data() + r * n_k;
    LogitsRow(scores.data.data() + r * n_k, n_k, multiplier, logits_row);
    SoftmaxRow(logits_row, n_k, VisibleKeys(mask, (int)(r % n_q), (int)n_k), weights->data.data() + r * n_k);
  }
}

void MixValues(const Tensor& weights, const Tensor& v, Tensor* z) {
  const size_t n_head = weights.dim(0), n_q = weights.dim(1), d_v = v.dim(2);
  z->Resize({n_head, n_q, d_v});
#pragma omp parallel for schedule(static) if (n_head > 1)
  for (long long h = 0; h < (long long)n_head; ++h) {
    z->Slice(h).noalias() = weights.Slice(h) * v.Slice(h);
  }
}

void OutputProjection(const Tensor& z, const Tensor& w_o, Tensor* concat, Tensor* out) {
  const size_t n_head = z.dim(0), n_q = z.dim(1), d_v = z.dim(2), d_model = w_o.dim(1);
  // concat [n_q, n_head*d_v]: head h fills columns h*d_v .. (h+1)*d_v-1 (torch's transpose + view).
  concat->Resize({n_q, n_head * d_v});
  for (size_t h = 0; h < n_head; ++h) {
    for (size_t i = 0; i < n_q; ++i) {
      const float* src = z.data.data() + (h * n_q + i) * d_v;
      std::copy(src, src + d_v, concat->data.data() + i * n_head * d_v + h * d_v);
    }
  }
  out->Resize({n_q, d_model});
  out->Matrix().noalias() = concat->Matrix() * w_o.Matrix();
}

}  // namespace attnviz
