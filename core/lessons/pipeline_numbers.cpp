#include "lessons/pipeline_numbers.h"


#include <algorithm>
#include <cfloat>
#include <cmath>

#include "attention/attention.h"
#include "sandbox/projection.h"
#include "base/check.h"

namespace attnviz {
namespace {

// Columns [col0, col0 + cols) of a [rows, ld] matrix.
Tensor Columns(const Tensor& m, size_t col0, size_t cols) {
  Tensor out;
  out.Resize({m.dim(0), cols});
  for (size_t r = 0; r < m.dim(0); ++r)
    std::copy_n(m.data.begin() + r * m.dim(1) + col0, cols, out.data.begin() + r * cols);
  return out;
}

float MaxAbs(const Tensor& t) {
  float m = 0;
  for (float v : t.data) m = std::max(m, std::fabs(v));
  return m;
}

float MaxAbsDiff(const Tensor& a, const Tensor& b) {
  float m = a.shape == b.shape ? 0.0f : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

}  // namespace

FusedSplit SplitFusedWeights(const ProjectionWeights& w) {
  FusedSplit s;
  const size_t d_model = w.d_model, qk = (size_t)w.n_head * w.d_k, vc = (size_t)w.n_head * w.d_v;
  if (w.layout == QkvLayout::kFused) {
    s.w_fused = w.w_qkv;
    s.w_q = Columns(w.w_qkv, 0, qk);
    s.w_k = Columns(w.w_qkv, qk, qk);
    s.w_v = Columns(w.w_qkv, 2 * qk, vc);
    return s;
  }
  s.w_q = w.w_q, s.w_k = w.w_k, s.w_v = w.w_v;
  s.w_fused.Resize({d_model, 2 * qk + vc});
  for (size_t r = 0; r < d_model; ++r) {
    float* row = s.w_fused.data.data() + r * (2 * qk + vc);
    std::copy_n(w.w_q.data.begin() + r * qk, qk, row);
    std::copy_n(w.w_k.data.begin() + r * qk, qk, row + qk);
    std::copy_n(w.w_v.data.begin() + r * vc, vc, row + 2 * qk);
  }
  return s;
}

LinearsCheck FusedVersusThreeLinears(const Tensor& xq, const Tensor& x, const ProjectionWeights& weights) {
  LinearsCheck c;
  const FusedSplit split = SplitFusedWeights(weights);
  ProjectionWeights fused = weights, three = weights;
  fused.layout = QkvLayout::kFused;
  fused.w_qkv = split.w_fused;
  three.layout = QkvLayout::kSeparate;
  three.w_q = split.w_q, three.w_k = split.w_k, three.w_v = split.w_v;
  Project(xq, x, fused, &c.q_fused, &c.k_fused, &c.v_fused);
  Project(xq, x, three, &c.q_three, &c.k_three, &c.v_three);
  c.max_abs_diff = std::max({MaxAbsDiff(c.q_fused, c.q_three), MaxAbsDiff(c.k_fused, c.k_three),
                             MaxAbsDiff(c.v_fused, c.v_three)});
  const float largest = std::max({MaxAbs(c.q_three), MaxAbs(c.k_three), MaxAbs(c.v_three)});
  const float d_model = x.shape.empty() ? 1.0f : (float)x.shape.back();
  c.rounding_tolerance = d_model * FLT_EPSILON * largest;
  return c;
}

Tensor MergeHeads(const Tensor& t) {
  ATTNVIZ_CHECK_SHAPE(t.shape.size() == 3, "per-head tensor " + ShapeString(t.shape));
  const size_t n_head = t.dim(0), n = t.dim(1), d = t.dim(2);
  Tensor out;
  out.Resize({1, n, n_head * d});
  for (size_t h = 0; h < n_head; ++h)
    for (size_t i = 0; i < n; ++i)
      std::copy_n(t.data.begin() + (h * n + i) * d, d, out.data.begin() + i * n_head * d + h * d);
  return out;
}

Tensor HeadsWithBatch(const Tensor& t) {
  ATTNVIZ_CHECK_SHAPE(t.shape.size() == 3, "per-head tensor " + ShapeString(t.shape));
  Tensor out = t;
  out.shape = {1, t.dim(0), t.dim(1), t.dim(2)};
  return out;
}

ValueRead ReadValues(const Tensor& probs, const Tensor& v, int head, int query) {
  ATTNVIZ_CHECK_SHAPE(probs.shape.size() == 3 && v.shape.size() == 3 && probs.dim(0) == v.dim(0) &&
                          probs.dim(2) == v.dim(1) && head >= 0 && (size_t)head < probs.dim(0) && query >= 0 &&
                          (size_t)query < probs.dim(1),
                      "probs " + ShapeString(probs.shape) + ", v " + ShapeString(v.shape) + ", head " +
                          std::to_string(head) + ", query " + std::to_string(query));
  const size_t n_q = probs.dim(1), n_k = probs.dim(2), d_v = v.dim(2);
  ValueRead r;
  r.head = head, r.query = query;
  const float* p = probs.data.data() + ((size_t)head * n_q + query) * n_k;
  r.weights.assign(p, p + n_k);
  r.weighted_values.Resize({n_k, d_v});
  r.z.assign(d_v, 0.0f);
  for (size_t j = 0; j < n_k; ++j)
    for (size_t c = 0; c < d_v; ++c) {
      const float term = p[j] * v.data[((size_t)head * n_k + j) * d_v + c];
      r.weighted_values.data[j * d_v + c] = term;
      r.z[c] += term;
    }
  return r;
}

}  // namespace attnviz
