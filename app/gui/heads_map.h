// One map of the Heads panel, in parts: its frame on screen (the window of cells it shows), the caption and token
// labels, the texels composed for it, the input over it (drag, click, zoom keys) and the exact-value tooltip; with
// the grid's sizing, the text fitting and the colorbar the panel draws around the maps.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "app.h"

namespace attnviz {

constexpr float kLabelMax = 72.0f;        // widest token label (pixels), longer ones are cut with "…"
constexpr float kColorbarSpace = 58.0f;  // right of the maps: the bar, its ticks and labels

// Space around the maps: query labels on the left, key labels (upright) on top, a caption below.
struct MapLayout {
  float label_left = 0, label_top = 0, caption = 0;
};

struct MapDraw {
  const LayerMaps* tensors = nullptr;  // its maps say how they were made (scaled, temperature, mask)
  // The sandbox's pipeline numbers of the same maps (its raw scores, for the tooltip); null for a model layer.
  const AttentionTensors* extras = nullptr;
  int head = 0;
  bool twin = false;
  HeatmapKey key;
  std::string caption, dump_name;
  bool selected = false;
  bool key_labels = false, query_labels = false;  // only the grid's outer edges carry labels
  ColorRange range;
};

// One map this frame: its zoom state, its place and the size of a shown cell. The cell size is fixed for the frame
// (a zoom takes effect on the next one), as the hit test and the tooltip read it.
struct MapFrame {
  MapFrame(const LayerMaps& tensors, MapState& state) : t(tensors), ms(state) {}
  const LayerMaps& t;
  MapState& ms;
  int n_q = 0, n_k = 0;
  ImVec2 map_min, map_max, map_size;
  float cell_x = 1, cell_y = 1, cell_shown = 1;
  int px_w = 1, px_h = 1;  // the texels drawn (framebuffer pixels)
  MapSource source;        // what the texels and exact values are read from
};

// A click on a map cell opens that cell's neuron view (a trained model's per-head maps) and does nothing else;
// elsewhere (the sandbox, a rollout map of a layer) a click moves between the grid and the enlarged head.
bool ClickOpensNeuronView(const PanelContext& ctx);

// Draws one map with its top-left corner at `map_min`, `cell` pixels a cell, labels outside it
// (as `layout` allows) and the caption below. Returns true when the map was clicked.
bool DrawMap(PanelContext& ctx, HeatmapRenderer& renderer, const MapDraw& m, ImVec2 map_min, float cell,
             const MapLayout& layout);
// The hover tooltip of the cell under the mouse: exact values at any zoom (heads_map_tooltip.cpp).
void DrawCellTooltip(PanelContext& ctx, const MapDraw& m, const MapFrame& f);

// A vertical colorbar for `range` (low end at the bottom) with tick labels, and under it a grey
// "masked" swatch when the map has masked cells (causal, outside a window), as in exported figures.
void DrawColorbar(PanelContext& ctx, ImVec2 top_left, float height, ColorRange range, bool masked);

// Text fitting (heads_layout.cpp).
float TextWidth(const std::string& text, float size);
// The text, or its longest prefix (whole code points) + "…" within max_width.
std::string Ellipsize(const std::string& text, float max_width, float size);
// Text rotated 90 degrees counter-clockwise, reading upwards from `bottom_left`.
void AddTextVertical(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const std::string& text, float size);
// Token labels shrink with the cells (down to 9 px) before they thin out.
float LabelSize(float cell);
// Label step: print every k-th token so labels never overlap.
int LabelStep(float cell, float size);
// The caption's figures (split at double spaces) on as many lines of at most `width` pixels as they need.
std::vector<std::string> WrapCaption(const std::string& caption, float width);

// "head 2  max 0.62  H 0.91  ∇ 0.40" after `prefix`.
std::string HeadCaption(const LayerMaps& t, int head, const std::string& prefix);
// A map's caption as shown: a model's layer named ("layer 1 · head 2  max 0.62 ..."), a one-map kind by its name
// ("layer 3 · rollout"), never "head 0"; null `shown`: HeadCaption.
std::string MapCaption(const Shown* shown, const LayerMaps& t, int head, const std::string& prefix);
// The label room the tensors' tokens need.
MapLayout LayoutFor(const LayerMaps& t);
// `count` maps in `avail` with labels once along the outer edges and room for as many caption lines as the maps'
// width needs: the column count with the largest cells.
void ChooseGridWithCaptions(int count, const LayerMaps& t, const std::string& caption, ImVec2 avail,
                            MapLayout* layout, float gap, int* columns, float* cell);

}  // namespace attnviz
