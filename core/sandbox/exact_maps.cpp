#include "sandbox/exact_maps.h"

#include <algorithm>

#include "base/check.h"

namespace attnviz {

namespace {
// Rows recomputed at once: whole blocks of the pass, about 16 MiB a band.
size_t BandRows(size_t n_k) { return std::max<size_t>(AttendBlockRows(n_k), (size_t)(16u << 20) / (n_k * sizeof(float))); }

// Head h's column scale [n_k] when the map is column-scaled (LayerMaps::col_scale), else null.
const float* ColumnScale(const LayerMaps& t, int h) {
  if (t.col_scale->empty()) return nullptr;
  ATTNVIZ_CHECK_SHAPE(t.col_scale->shape == (std::vector<size_t>{(size_t)t.n_head(), (size_t)t.n_k()}),
                      "col_scale " + ShapeString(t.col_scale->shape) + " for " + std::to_string(t.n_head()) +
                          " heads of " + std::to_string(t.n_k()) + " keys");
  return t.col_scale->data.data() + (size_t)h * t.n_k();
}
}  // namespace

LayerMaps ExactMaps(const LayerMaps& t, const std::vector<int>& heads, const MapWindow& w, bool compact) {
  const int n_head = t.n_head(), n_q = t.n_q(), n_k = t.n_k();
  ATTNVIZ_CHECK_SHAPE(w.r0 >= 0 && w.r0 < w.r1 && w.r1 <= n_q && w.c0 >= 0 && w.c0 < w.c1 && w.c1 <= n_k,
                      "window rows " + std::to_string(w.r0) + ".." + std::to_string(w.r1) + ", keys " +
                          std::to_string(w.c0) + ".." + std::to_string(w.c1) + " of a map " + std::to_string(n_q) +
                          " x " + std::to_string(n_k));
  LayerMaps out;
  out.query_tokens = std::vector<Token>(t.query_tokens.begin() + w.r0, t.query_tokens.begin() + w.r1);
  out.kv_tokens = std::vector<Token>(t.kv_tokens.begin() + w.c0, t.kv_tokens.begin() + w.c1);
  out.metrics = t.metrics;
  out.mask = t.mask.Cut(w.r0, w.c0);  // the cut's cells keep the mask they have in the whole map
  // Shared, not cut to the window: the JSON export reads the query/key width from q (the logit multiplier).
  out.q = t.q;
  out.k = t.k;
  out.multiplier = t.multiplier;
  out.softcap = t.softcap;
  out.scaled = t.scaled;
  out.d_qk = t.d_qk;
  out.temperature = t.temperature;
  const size_t rows = (size_t)w.rows(), cols = (size_t)w.cols();
  auto probs = std::make_shared<Tensor>();
  probs->Resize({compact ? heads.size() : (size_t)n_head, rows, cols});
  std::fill(probs->data.begin(), probs->data.end(), 0.0f);
  const size_t band = BandRows((size_t)n_k);
  Tensor band_probs;
  for (size_t p = 0; p < heads.size(); ++p) {
    const int h = heads[p];
    ATTNVIZ_CHECK_SHAPE(h >= 0 && h < n_head, "head " + std::to_string(h) + " of " + std::to_string(n_head));
    float* plane = probs->data.data() + (compact ? p : (size_t)h) * rows * cols;
    const float* scale = ColumnScale(t, h);
    for (int r0 = w.r0; r0 < w.r1; r0 += (int)band) {
      const int r1 = std::min(w.r1, r0 + (int)band);
      const float* src;
      if (!t.probs->empty()) {  // full mode: the kept map
        src = t.probs->data.data() + ((size_t)h * n_q + r0) * n_k;
      } else {
        AttendRows(*t.q, *t.k, t.multiplier, t.mask, h, r0, r1, nullptr, &band_probs, t.softcap);
        src = band_probs.data.data();
      }
      for (int i = r0; i < r1; ++i) {
        const float* row = src + (size_t)(i - r0) * n_k;
        float* dst = plane + (size_t)(i - w.r0) * cols;
        std::copy(row + w.c0, row + w.c1, dst);
        if (scale)
          for (size_t j = 0; j < cols; ++j) dst[j] *= scale[w.c0 + j];
      }
    }
  }
  out.probs = probs;
  return out;
}

Status StreamExactMaps(const LayerMaps& t, const std::vector<int>& heads, NpyStreamWriter* probs_out,
                       NpyStreamWriter* logits_out) {
  const size_t n_q = t.n_q(), n_k = t.n_k(), band = BandRows(n_k);
  const float multiplier = t.multiplier;  // the pass's (a raw feature has its own width)
  Tensor scores, probs;
  for (int h : heads) {
    for (size_t r0 = 0; r0 < n_q; r0 += band) {
      const size_t r1 = std::min(n_q, r0 + band);
      AttendRows(*t.q, *t.k, multiplier, t.mask, h, (int)r0, (int)r1, logits_out ? &scores : nullptr, &probs,
                 t.softcap);
      if (const float* scale = ColumnScale(t, h))
        for (size_t i = 0; i < r1 - r0; ++i)
          for (size_t j = 0; j < n_k; ++j) probs.data[i * n_k + j] *= scale[j];
      if (Status s = probs_out->Append(probs.data.data(), probs.size()); !s) return s;
      if (!logits_out) continue;
      for (float& x : scores.data) x = LogitFromScore(x, multiplier, t.softcap);  // the logits map: before the mask
      if (Status s = logits_out->Append(scores.data.data(), scores.size()); !s) return s;
    }
  }
  return Status::Ok();
}

}  // namespace attnviz
