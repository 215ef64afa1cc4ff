// Exact maps of a long input for the exporters: pooled mode keeps no full map, so what a file needs is
// recomputed from q and k with the pass's kernel (AttendRows: bit-equal to a full map), a band of rows
// at a time: a window of chosen heads in memory (bounded by the caller), or whole heads streamed to .npy.
#pragma once
#include <vector>

#include "io/npy.h"
#include "maps/layer_maps.h"
#include "maps/view.h"

namespace attnviz {

// Cells an in-memory export of a long input may hold (64 MiB of fp32): one 4096 x 4096 head.
constexpr size_t kExactExportCells = size_t(1) << 24;

// The maps are recomputed with the pass's own multiplier and mask (t.multiplier, t.mask). A column-scaled map
// (t.col_scale set: value-weighted) comes out scaled, cell (h, i, j) times col_scale[h, j], and without col_scale.
// `t` cut to `window` (query rows [r0, r1), keys [c0, c1)), with exact probs [n_head, rows, cols] for the
// heads listed (the other heads' planes are 0) and the window's tokens; every other map is left empty.
// compact: probs is [heads.size(), rows, cols] instead (plane i is heads[i]). Works in both modes (full
// mode cuts the kept map).
LayerMaps ExactMaps(const LayerMaps& t, const std::vector<int>& heads, const MapWindow& window, bool compact = false);

// Streams whole heads' maps, in `heads` order, into writers opened for [heads.size(), n_q, n_k]: probs
// and (when logits is not null) the logits map (before the mask). At most one band of rows of each is held.
Status StreamExactMaps(const LayerMaps& t, const std::vector<int>& heads, NpyStreamWriter* probs,
                       NpyStreamWriter* logits);

}  // namespace attnviz
