// What one on-screen map slot shows: a window of one head's map (cells [r0, r1) x [c0, c1)) at the
// resolution drawn, never more texels than pixels. Each output texel pools the cells it covers (max or
// mean), read from the coarsest pyramid level fine enough for that, or from exact rows: the full map when
// one is kept (small inputs), else rows recomputed from q and k (AttendRows, bit-equal to the full pass).
// A window no larger than its slot is drawn cell for cell, exactly.
#pragma once
#include <cstdint>
#include <vector>

#include "attention/attention.h"
#include "maps/pyramid.h"

namespace attnviz {

// Where a map's numbers come from.
struct MapSource {
  const Tensor* probs = nullptr;        // the full map [n_head, n_q, n_k], or null (pooled mode)
  const MapPyramid* pyramid = nullptr;  // may be null when probs is given
  const Tensor* q = nullptr;            // [n_head, n_q, d_k] and k [n_head, n_k, d_k]: exact rows
  const Tensor* k = nullptr;
  float multiplier = 1.0f;  // the config's logit multiplier
  float softcap = 0.0f;     // the logits' soft cap (attention.h LogitFromScore; 0 = none)
  Mask mask;
  uint64_t generation = 0;  // changes whenever q or k change (ExactAt's cache key)
  // When set: every exact cell (the full map's, recomputed rows', ExactAt's prob) is prob[h, i, j] * col_scale[h, j],
  // e.g. value-weighted maps (Kobayashi et al. 2020: col_scale = || v_j^h W_o^h ||, so a cell is in the residual
  // stream's units, not a probability). The pyramid must then pool the same scaled map (ValueWeightedPyramid).
  const Tensor* col_scale = nullptr;  // [n_head, n_k]
  // When > 0: a window whose exact rows would cost more than this many cells (rows x n_k) reads the pyramid's
  // finest level instead, coarser than a pixel (a trained model keeps coarse levels of its many layers; the
  // screen must not wait for a whole head's rows). Hover (ExactAt) stays exact.
  size_t exact_cells_limit = 0;
  int n_head() const;
  int n_q() const;
  int n_k() const;
};

struct MapWindow {
  int r0 = 0, r1 = 0, c0 = 0, c1 = 0;  // query rows [r0, r1), key columns [c0, c1)
  int rows() const { return r1 - r0; }
  int cols() const { return c1 - c0; }
  bool operator==(const MapWindow& o) const { return r0 == o.r0 && r1 == o.r1 && c0 == o.c0 && c1 == o.c1; }
  bool operator!=(const MapWindow& o) const { return !(*this == o); }
};

struct ViewImage {
  int width = 0, height = 0;  // texels: min(slot pixels, window cells) along each side
  std::vector<float> values;  // [height, width]; NaN: every covered cell is masked (Mask::AllMasked)
  int level = -1;             // the pyramid level read, -1: exact cells
  bool exact() const { return level < 0; }
  // Texel x covers columns [ColStart(x), ColStart(x + 1)) of the window (rows likewise).
  int cols = 0, rows = 0;
  int ColStart(int x) const { return (int)((long long)x * cols / width); }
  int RowStart(int y) const { return (int)((long long)y * rows / height); }
};

// The window's cells pooled to at most width_px x height_px texels.
ViewImage ComposeView(const MapSource& source, int head, const MapWindow& window, int width_px, int height_px,
                      PoolKind kind);

// One exact cell (hover): the prob (times col_scale[head, j] when set) and the raw score q . k of query i, key j. Uses the full map when
// kept, else recomputes the row's block (the same bits as the full pass). The last block is cached per
// thread, so hovering along a row costs one recomputation. Probs without q and k: score is NaN (unknown);
// neither probs nor q and k (a pyramid only): both NaN.
struct ExactCell {
  float prob = 0, score = 0;
};
ExactCell ExactAt(const MapSource& source, const Tensor* scores, int head, int i, int j);

}  // namespace attnviz
