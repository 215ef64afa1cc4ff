// What the Heads panel remembers between frames, apart from the persisted settings: per map on screen, the
// window the user zoomed or panned to and the view composed for it; the pooling of an overview-sized view. Owned by
// the App (no file-scope state), read by the Export panel (the figure of the window on screen).
#pragma once
#include <cstdint>
#include <map>

#include "heatmap_view.h"
#include "session/map_kind.h"
#include "maps/view.h"

namespace attnviz {

struct MapState {
  MapWindow window;
  int n_q = 0, n_k = 0;  // the map size the window was made for (a new size resets it)
  // The composed view and what it was composed from.
  ViewImage view;
  const void* source = nullptr;  // the tensors' pyramid, or their probs
  uint64_t source_generation = 0;  // Shown::generation of the result composed (an address may be reused)
  MapWindow composed_window;
  int px_w = 0, px_h = 0;
  PoolKind kind = PoolKind::kMax;
  uint64_t version = 0;
  bool dragging = false, dragged = false;
  float drag_rest_x = 0, drag_rest_y = 0;  // sub-cell drag carried to the next frame
};

struct HeadsPanelView {
  std::map<HeatmapKey, MapState> maps;
  PoolKind pool = PoolKind::kMax;  // how a map larger than its pixels is pooled (max shows a one-hot row)
  uint64_t view_versions = 0;      // counts composed views (each one's texture version)
  MapKind kind = MapKind::kAttention;  // a trained model's maps: attention, rollout or value-weighted (not saved)
  // This frame a map was hovered or zoomed in: a streamed layer's exact rows are wanted now (App::UpdateModel
  // reads and clears it; otherwise they wait for the run's last layer).
  bool wants_exact_rows = false;

  // The window of head `head`'s map on screen (the enlarged map, else the grid's), or the whole n_q x n_k map
  // when none is (the export of a long input's figure uses it).
  MapWindow ShownWindow(int head, int n_q, int n_k) const {
    for (MapView view : {MapView::kEnlarged, MapView::kGrid}) {
      auto it = maps.find(HeatmapKey{view, 0, head, 0});
      if (it != maps.end() && it->second.n_q == n_q && it->second.n_k == n_k) return it->second.window;
    }
    return MapWindow{0, n_q, 0, n_k};
  }
};

}  // namespace attnviz
