#include "maps/view.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/check.h"

namespace attnviz {

int MapSource::n_head() const { return probs && !probs->empty() ? (int)probs->dim(0) : pyramid ? pyramid->n_head() : 0; }
int MapSource::n_q() const { return probs && !probs->empty() ? (int)probs->dim(1) : pyramid ? pyramid->n_q() : 0; }
int MapSource::n_k() const { return probs && !probs->empty() ? (int)probs->dim(2) : pyramid ? pyramid->n_k() : 0; }

namespace {

// Pools a [rows, cols] grid (row stride `ld`) whose cell (r, c) covers map rows [r*f, ...) into the view:
// texel (x, y) covers window cells [ColStart(x), ColStart(x+1)) (in map cells: + c0), i.e. grid cells
// floor(a / f) .. ceil(b / f) - 1.
template <typename At>
void Pool(ViewImage* v, const MapWindow& w, int f, PoolKind kind, const Mask& mask, int n_k, At at) {
  for (int y = 0; y < v->height; ++y) {
    const int a_r = w.r0 + v->RowStart(y), b_r = w.r0 + v->RowStart(y + 1);
    const int g_r0 = a_r / f, g_r1 = (b_r + f - 1) / f;
    for (int x = 0; x < v->width; ++x) {
      const int a_c = w.c0 + v->ColStart(x), b_c = w.c0 + v->ColStart(x + 1);
      float& out = v->values[(size_t)y * v->width + x];
      if (mask.AllMasked(a_r, b_r, a_c, b_c, n_k)) {  // after every covered query, or before every one's window
        out = NAN;
        continue;
      }
      const int g_c0 = a_c / f, g_c1 = (b_c + f - 1) / f;
      float m = -INFINITY;
      double s = 0;
      for (int r = g_r0; r < g_r1; ++r)
        for (int c = g_c0; c < g_c1; ++c) {
          const float value = at(r, c);
          m = std::max(m, value);
          s += value;
        }
      out = kind == PoolKind::kMax ? m : (float)(s / ((double)(g_r1 - g_r0) * (g_c1 - g_c0)));
    }
  }
}

// Head `head`'s row of col_scale [n_head, n_k], or null when there is none.
const float* ColScale(const MapSource& src, int head) {
  if (!src.col_scale || src.col_scale->empty()) return nullptr;
  ATTNVIZ_CHECK_SHAPE(src.col_scale->shape.size() == 2 && (int)src.col_scale->dim(0) == src.n_head() &&
                          (int)src.col_scale->dim(1) == src.n_k(),
                      "column scale " + ShapeString(src.col_scale->shape) + " for " + std::to_string(src.n_head()) +
                          " heads of " + std::to_string(src.n_k()) + " keys");
  return src.col_scale->data.data() + (size_t)head * src.n_k();
}

}  // namespace

ViewImage ComposeView(const MapSource& src, int head, const MapWindow& w, int width_px, int height_px,
                      PoolKind kind) {
  ATTNVIZ_CHECK_SHAPE(head >= 0 && head < src.n_head() && w.r0 >= 0 && w.r0 < w.r1 && w.r1 <= src.n_q() &&
                          w.c0 >= 0 && w.c0 < w.c1 && w.c1 <= src.n_k(),
                      "view of head " + std::to_string(head) + " rows " + std::to_string(w.r0) + ".." +
                          std::to_string(w.r1) + " cols " + std::to_string(w.c0) + ".." + std::to_string(w.c1));
  ViewImage v;
  v.cols = w.cols();
  v.rows = w.rows();
  v.width = std::clamp(width_px, 1, v.cols);
  v.height = std::clamp(height_px, 1, v.rows);
  v.values.assign((size_t)v.width * v.height, 0.0f);
  const double cells_per_px = std::min((double)v.cols / v.width, (double)v.rows / v.height);
  int level = src.pyramid ? src.pyramid->LevelFor(cells_per_px) : -1;
  const bool full_map = src.probs && !src.probs->empty();
  const bool exact_rows = src.q && src.k && !src.q->empty() && !src.k->empty();
  if (level < 0 && !full_map && src.pyramid &&
      (!exact_rows || (src.exact_cells_limit > 0 && (size_t)w.rows() * (size_t)src.n_k() > src.exact_cells_limit)))
    level = 0;  // the finest level kept: coarser than a pixel, but never a wait (or nothing to make rows from)
  if (level >= 0) {
    const PyramidLevel& l = src.pyramid->levels()[(size_t)level];
    const float* plane = l.Plane(kind, head);
    v.level = level;
    Pool(&v, w, l.factor, kind, src.mask, src.n_k(), [&](int r, int c) { return plane[(size_t)r * l.cols + c]; });
    return v;
  }
  const int n_k = src.n_k();
  const float* scale = ColScale(src, head);
  if (src.probs && !src.probs->empty()) {
    const float* plane = src.probs->data.data() + (size_t)head * src.n_q() * n_k;
    if (scale) Pool(&v, w, 1, kind, src.mask, n_k, [&](int r, int c) { return plane[(size_t)r * n_k + c] * scale[c]; });
    else Pool(&v, w, 1, kind, src.mask, n_k, [&](int r, int c) { return plane[(size_t)r * n_k + c]; });
    return v;
  }
  ATTNVIZ_CHECK_SHAPE(src.q && src.k, "exact rows need q and k");
  Tensor rows;
  AttendRows(*src.q, *src.k, src.multiplier, src.mask, head, w.r0, w.r1, nullptr, &rows, src.softcap);
  if (scale) {
    for (int r = 0; r < w.rows(); ++r) {
      float* row = rows.data.data() + (size_t)r * n_k;
      for (int c = 0; c < n_k; ++c) row[c] *= scale[c];
    }
  }
  Pool(&v, w, 1, kind, src.mask, n_k, [&](int r, int c) { return rows.data[(size_t)(r - w.r0) * n_k + c]; });
  return v;
}

namespace {

// ExactAt's cell before the column scale.
ExactCell ExactProb(const MapSource& src, const Tensor* scores, int head, int i, int j) {
  const int n_q = src.n_q(), n_k = src.n_k();
  ExactCell cell;
  if (src.probs && !src.probs->empty() && scores && !scores->empty()) {
    const size_t at = ((size_t)head * n_q + i) * n_k + j;
    cell.prob = src.probs->data[at];
    cell.score = scores->data[at];
    return cell;
  }
  if (src.probs && !src.probs->empty() && (!src.q || !src.k || src.q->empty() || src.k->empty())) {
    // Probs without q and k (a trained model's layer keeps only its probs): the weight is exact, the score unknown.
    cell.prob = src.probs->data[((size_t)head * n_q + i) * n_k + j];
    cell.score = std::numeric_limits<float>::quiet_NaN();
    return cell;
  }
  if (!src.q || !src.k || src.q->empty() || src.k->empty()) {
    // Pooled without q and k (a streamed model layer before the screen made them): nothing exact to say.
    cell.prob = cell.score = std::numeric_limits<float>::quiet_NaN();
    return cell;
  }
  // The block of rows holding i, recomputed once and kept for the next hover.
  struct Cache {
    const float *q = nullptr, *k = nullptr;
    float multiplier = 0, softcap = 0;
    Mask mask;
    uint64_t generation = 0;
    int head = -1, r0 = -1, r1 = -1;
    Tensor scores, probs;
  };
  thread_local Cache cache;
  const int block = (int)AttendBlockRows((size_t)n_k);
  const int r0 = i / block * block, r1 = std::min(r0 + block, n_q);
  if (cache.q != src.q->data.data() || cache.k != src.k->data.data() || cache.multiplier != src.multiplier ||
      cache.softcap != src.softcap || cache.mask != src.mask || cache.generation != src.generation || cache.head != head || cache.r0 != r0 || cache.r1 != r1) {
    AttendRows(*src.q, *src.k, src.multiplier, src.mask, head, r0, r1, &cache.scores, &cache.probs, src.softcap);
    cache.q = src.q->data.data(), cache.k = src.k->data.data();
    cache.multiplier = src.multiplier, cache.softcap = src.softcap, cache.mask = src.mask, cache.generation = src.generation, cache.head = head, cache.r0 = r0, cache.r1 = r1;
  }
  cell.prob = cache.probs.data[(size_t)(i - r0) * n_k + j];
  cell.score = cache.scores.data[(size_t)(i - r0) * n_k + j];
  return cell;
}

}  // namespace

ExactCell ExactAt(const MapSource& src, const Tensor* scores, int head, int i, int j) {
  const int n_q = src.n_q(), n_k = src.n_k();
  ATTNVIZ_CHECK_SHAPE(head >= 0 && head < src.n_head() && i >= 0 && i < n_q && j >= 0 && j < n_k,
                      "cell " + std::to_string(i) + ", " + std::to_string(j) + " of head " + std::to_string(head));
  const float* scale = ColScale(src, head);
  ExactCell cell = ExactProb(src, scores, head, i, j);
  if (scale) cell.prob *= scale[j];
  return cell;
}

}  // namespace attnviz
