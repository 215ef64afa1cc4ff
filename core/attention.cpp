#include "attention.h"

#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "metrics.h"

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

// ---- (3)+(4)+metrics, one row at a time, in SIMD packets ----
// Eigen's packet functions directly (not Eigen::Array expressions): Array code peels a different
// number of scalar elements depending on the buffer's alignment, so the same row could give
// different bits in two buffers. Here element j always goes through the same lane arithmetic and
// every sum is grouped the same way, whatever the alignment.
namespace ep = Eigen::internal;
using Packet = ep::packet_traits<float>::type;
constexpr size_t kLanes = ep::packet_traits<float>::size;

// The first `count` (<= kLanes) floats at src, the other lanes 0.
inline Packet LoadPart(const float* src, size_t count) {
  if (count == kLanes) return ep::ploadu<Packet>(src);
  alignas(64) float tmp[kLanes] = {};
  std::copy(src, src + count, tmp);
  return ep::pload<Packet>(tmp);
}
inline void StorePart(float* dst, const Packet& p, size_t count) {
  if (count == kLanes) return ep::pstoreu(dst, p);
  alignas(64) float tmp[kLanes];
  ep::pstore(tmp, p);
  std::copy(tmp, tmp + count, dst);
}
// All ones in lanes [0, count), zero bits in the others.
inline Packet LaneMask(size_t count) {
  return ep::pcmp_lt(ep::plset<Packet>(0.0f), ep::pset1<Packet>((float)count));
}

// Flush denormals to zero on this thread for the scope (restored after): exp() of logits far below
// the row max (d_k 4096 unscaled, tiny temperatures) is denormal, and denormal arithmetic is ~100x
// slower on x86. Such weights are < 1.2e-38: 0 in any map.
struct FlushDenormals {
#if defined(__SSE2__)
  unsigned saved = _mm_getcsr();
  FlushDenormals() { _mm_setcsr(saved | 0x8040u); }  // FTZ | DAZ
  ~FlushDenormals() { _mm_setcsr(saved); }
#endif
};

// What one row pass yields besides the two rows: metrics.h's RowMetrics and the sums of its
// visible logits (for the head's logit mean and std).
struct RowPass {
  RowMetrics metrics;
  double logit_sum = 0, logit_sq = 0;
};

// One row of (3)+(4): logits_row [n_k] = clamp(scores_row * multiplier) (if scores_row is given;
// otherwise logits_row is read), weights_row [n_k] = softmax of the first `visible` logits with the
// row max subtracted, the rest exactly 0. With `pass`, also the row's saturation figures, from the
// same pass (same definitions as metrics.cpp's RowFigures, with p = e / S and e = exp(l - max)):
//   entropy = log S - sum p (l - max),  max weight = max e / S,
//   ||diag(p) - p p^T||_F^2 = sum p^2 - 2 sum p^3 + (sum p^2)^2
void SoftmaxRowPass(const float* scores_row, float multiplier, float* logits_row, float* weights_row, size_t n_k,
                    size_t visible, RowPass* pass) {
  if (scores_row && !(multiplier > 0)) {  // max(clamp(s * m)) == clamp(max(s) * m) needs m > 0
    LogitsRow(scores_row, n_k, multiplier, logits_row);
    scores_row = nullptr;
  }
  // Pass 1: the row max of the visible logits. From the scores: scaling by m > 0 and clamping are
  // monotone, so clamp(max(s) * m) is bit for bit the max of the logits, and one read suffices.
  const float* src = scores_row ? scores_row : logits_row;
  Packet max_p = ep::pset1<Packet>(-INFINITY);
  size_t j = 0;
  for (; j + kLanes <= visible; j += kLanes) max_p = ep::pmax(max_p, ep::ploadu<Packet>(src + j));
  float row_max = ep::predux_max(max_p);
  for (; j < visible; ++j) row_max = std::max(row_max, src[j]);
  if (scores_row) row_max = std::clamp(row_max * multiplier, -kLogitLimit, kLogitLimit);

  // Pass 2: logits, e = exp(l - max) (into weights_row, normalized in pass 3), and the sums. (Measured:
  // building the rows in a scratch and streaming them out with non-temporal stores was slower here.)
  const Packet lo = ep::pset1<Packet>(-kLogitLimit), hi = ep::pset1<Packet>(kLogitLimit);
  const Packet mult = ep::pset1<Packet>(multiplier), max_b = ep::pset1<Packet>(row_max), zero = ep::pzero(max_b);
  Packet sum = zero, gap_sum = zero, e2_sum = zero, e3_sum = zero, e_max = zero, l_sum = zero, l_sq = zero,
         l_abs = zero;
  for (j = 0; j < n_k; j += kLanes) {
    const size_t count = std::min(kLanes, n_k - j);
    Packet l;
    if (scores_row) {
      l = ep::pmin(ep::pmax(ep::pmul(LoadPart(scores_row + j, count), mult), lo), hi);
      StorePart(logits_row + j, l, count);
    } else {
      l = LoadPart(logits_row + j, count);
    }
    if (j >= visible) {  // masked: exactly 0
      StorePart(weights_row + j, zero, count);
      continue;
    }
    const Packet gap = ep::psub(l, max_b);  // <= 0, finite (logits are clamped)
    Packet e = ep::pexp(gap);
    if (visible - j < kLanes) {
      const Packet keep = LaneMask(visible - j);
      e = ep::pand(e, keep);
      l = ep::pand(l, keep);
    }
    StorePart(weights_row + j, e, count);
    sum = ep::padd(sum, e);
    if (!pass) continue;
    const Packet e2 = ep::pmul(e, e);
    gap_sum = ep::pmadd(e, gap, gap_sum);
    e2_sum = ep::padd(e2_sum, e2);
    e3_sum = ep::pmadd(e2, e, e3_sum);
    e_max = ep::pmax(e_max, e);
    l_sum = ep::padd(l_sum, l);
    l_sq = ep::pmadd(l, l, l_sq);
    l_abs = ep::pmax(l_abs, ep::pabs(l));
  }
  // Pass 3: normalize. The max entry is exp(0) = 1, so the sum is >= 1: no division by 0.
  const float inv = 1.0f / ep::predux(sum);
  const Packet inv_b = ep::pset1<Packet>(inv);
  for (j = 0; j < visible; j += kLanes) {
    const size_t count = std::min(kLanes, visible - j);
    StorePart(weights_row + j, ep::pmul(LoadPart(weights_row + j, count), inv_b), count);
  }
  if (!pass) return;

  const double p_max = ep::predux_max(e_max) * inv;  // the stored weight of the max entry
  const double gap = (double)inv * ep::predux(gap_sum);
  const double s2 = (double)inv * inv * ep::predux(e2_sum);
  const double s3 = (double)inv * inv * inv * ep::predux(e3_sum);
  const double log_s = p_max > 0 ? -std::log(p_max) : 0.0;
  const double entropy = std::max(0.0, log_s - gap);
  RowMetrics& r = pass->metrics;
  r.entropy = (float)entropy;
  r.norm_entropy = visible > 1 ? (float)(entropy / std::log((double)visible)) : 0.0f;
  r.max_weight = (float)p_max;
  r.effective_keys = (float)std::exp(entropy);
  r.grad_norm = (float)std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
  if (ep::predux_max(l_abs) < 1e16f) {  // the float sums of squares cannot overflow
    pass->logit_sum = ep::predux(l_sum);
    pass->logit_sq = ep::predux(l_sq);
  } else {
    pass->logit_sum = pass->logit_sq = 0;
    for (j = 0; j < visible; ++j) {
      pass->logit_sum += logits_row[j];
      pass->logit_sq += (double)logits_row[j] * logits_row[j];
    }
  }
}

// Query rows per block: one block of a head's map (scores, logits, weights) should stay in L2 from
// one step to the next. Every step uses the same blocks, so fused and step-by-step agree bit for bit.
size_t BlockRows(size_t n_k) {
  const size_t rows = (size_t)(128 * 1024) / (n_k * sizeof(float));
  return std::clamp<size_t>(rows / 8 * 8, 8, 256);
}

enum StepBits : unsigned { kStepScores = 1, kStepLogits = 2, kStepSoftmax = 4, kStepMix = 8 };

// Runs the steps in `steps` on every (head, block of query rows), heads and blocks spread over the
// threads. kStepLogits without kStepSoftmax is not used (Logits has its own loop).
//   kStepScores:  scores block = q block . k^T
//   kStepSoftmax: weights block (and metrics) from the scores (with kStepLogits: logits too) or the logits
//   kStepMix:     z block = weights block . v
[[gnu::noipa]] void AttendBlocks(unsigned steps, const Tensor* q, const Tensor* k, const Tensor* v, float multiplier, MaskKind mask,
                  Tensor* scores, Tensor* logits, Tensor* weights, std::vector<HeadMetrics>* metrics, Tensor* z) {
  const Tensor& shape_src = (steps & kStepScores)    ? *q
                            : (steps & kStepLogits)  ? *scores
                            : (steps & kStepSoftmax) ? *logits
                                                     : *weights;
  const size_t n_head = shape_src.dim(0), n_q = shape_src.dim(1);
  const size_t n_k = (steps & kStepScores) ? k->dim(1) : shape_src.dim(2);
  if (steps & kStepScores) scores->Resize({n_head, n_q, n_k});
  if (steps & kStepLogits) logits->Resize({n_head, n_q, n_k});
  if (steps & kStepSoftmax) weights->Resize({n_head, n_q, n_k});
  size_t d = 0;  // GEMM depth/width per head
  if (steps & kStepScores) d = q->dim(2);
  if (steps & kStepMix) {
    z->Resize({n_head, n_q, v->dim(2)});
    d = std::max(d, v->dim(2));
  }
  std::vector<double> row_logit_sums;
  if (metrics) {
    metrics->resize(n_head);
    for (HeadMetrics& hm : *metrics) hm.rows.resize(n_q);
    row_logit_sums.assign(2 * n_head * n_q, 0.0);
  }
  const size_t block = BlockRows(n_k), blocks = (n_q + block - 1) / block;
  // Threads when there is enough work. Below the threshold each block's product is also too small
  // for Eigen to thread it, and inside the team Eigen never threads: so a product runs on one
  // thread in every path, with the same blocking (the same bits).
  const double cells = (double)n_head * n_q * n_k;
  const bool parallel = cells >= (1 << 15) || cells * d >= 100000;
#pragma omp parallel if (parallel)
  {
    FlushDenormals ftz;
#pragma omp for schedule(dynamic)
    for (long long item = 0; item < (long long)(n_head * blocks); ++item) {
      const size_t h = (size_t)item / blocks, r0 = ((size_t)item % blocks) * block;
      const Eigen::Index rows = (Eigen::Index)std::min(block, n_q - r0);
      if (steps & kStepScores) {  // (2) scores [rows, n_k] = q [rows, d_k] . k^T [d_k, n_k]
        scores->Slice(h).middleRows((Eigen::Index)r0, rows).noalias() =
            q->Slice(h).middleRows((Eigen::Index)r0, rows) * k->Slice(h).transpose();
      }
      if (steps & kStepSoftmax) {  // (3)+(4) and the row figures, row by row
        for (size_t i = r0; i < r0 + (size_t)rows; ++i) {
          const size_t off = (h * n_q + i) * n_k;
          RowPass pass;
          SoftmaxRowPass((steps & kStepLogits) ? scores->data.data() + off : nullptr, multiplier,
                         logits->data.data() + off, weights->data.data() + off, n_k,
                         (size_t)VisibleKeys(mask, (int)i, (int)n_k), metrics ? &pass : nullptr);
          if (metrics) {
            (*metrics)[h].rows[i] = pass.metrics;
            row_logit_sums[2 * (h * n_q + i)] = pass.logit_sum;
            row_logit_sums[2 * (h * n_q + i) + 1] = pass.logit_sq;
          }
        }
      }
      if (steps & kStepMix) {  // (5) z [rows, d_v] = weights [rows, n_k] . v [n_k, d_v]
        z->Slice(h).middleRows((Eigen::Index)r0, rows).noalias() =
            weights->Slice(h).middleRows((Eigen::Index)r0, rows) * v->Slice(h);
      }
    }
  }
  if (!metrics) return;
  // Head figures: means over the rows, logit mean and std over the visible logits (as ComputeMetrics).
  for (size_t h = 0; h < n_head; ++h) {
    HeadMetrics& hm = (*metrics)[h];
    double sums[5] = {0, 0, 0, 0, 0}, l_sum = 0, l_sq = 0;
    size_t l_count = 0;
    for (size_t i = 0; i < n_q; ++i) {
      const RowMetrics& r = hm.rows[i];
      sums[0] += r.entropy;
      sums[1] += r.norm_entropy;
      sums[2] += r.max_weight;
      sums[3] += r.effective_keys;
      sums[4] += r.grad_norm;
      l_sum += row_logit_sums[2 * (h * n_q + i)];
      l_sq += row_logit_sums[2 * (h * n_q + i) + 1];
      l_count += VisibleKeys(mask, (int)i, (int)n_k);
    }
    const double inv = n_q ? 1.0 / n_q : 0.0;
    hm.entropy = (float)(sums[0] * inv);
    hm.norm_entropy = (float)(sums[1] * inv);
    hm.max_weight = (float)(sums[2] * inv);
    hm.effective_keys = (float)(sums[3] * inv);
    hm.grad_norm = (float)(sums[4] * inv);
    const double mean = l_count ? l_sum / l_count : 0.0;
    hm.logit_mean = (float)mean;
    hm.logit_std = (float)std::sqrt(std::max(0.0, (l_count ? l_sq / l_count : 0.0) - mean * mean));
  }
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
  AttendBlocks(kStepScores, &q, &k, nullptr, 1.0f, MaskKind::kNone, scores, nullptr, nullptr, nullptr, nullptr);
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
  AttendBlocks(kStepSoftmax, nullptr, nullptr, nullptr, 1.0f, mask, nullptr, const_cast<Tensor*>(&logits), weights,
               nullptr, nullptr);  // logits are only read without kStepLogits
}

void LogitsSoftmax(const Tensor& scores, float multiplier, MaskKind mask, Tensor* logits, Tensor* weights) {
  AttendBlocks(kStepLogits | kStepSoftmax, nullptr, nullptr, nullptr, multiplier, mask, const_cast<Tensor*>(&scores),
               logits, weights, nullptr, nullptr);  // scores are only read without kStepScores
}

void MixValues(const Tensor& weights, const Tensor& v, Tensor* z) {
  AttendBlocks(kStepMix, nullptr, nullptr, &v, 1.0f, MaskKind::kNone, nullptr, nullptr, const_cast<Tensor*>(&weights),
               nullptr, z);  // weights are only read without kStepSoftmax
}

void Attend(AttendFrom from, const Tensor& q, const Tensor& k, const Tensor& v, float multiplier, MaskKind mask,
            Tensor* scores, Tensor* logits, Tensor* weights, std::vector<HeadMetrics>* metrics, Tensor* z) {
  unsigned steps = kStepSoftmax | (z ? kStepMix : 0u);
  if (from == AttendFrom::kScores) steps |= kStepScores | kStepLogits;
  if (from == AttendFrom::kLogits) steps |= kStepLogits;
  AttendBlocks(steps, &q, &k, &v, multiplier, mask, scores, logits, weights, metrics, z);
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
