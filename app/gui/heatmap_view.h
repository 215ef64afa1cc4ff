// The seam between the panels (ImGui only) and the GL heatmap renderer. Panels never call GL:
// they describe the map they want and get back a texture id for ImGui::Image. The real renderer
// (gl/heatmap_renderer.*) draws it with shaders/heatmap.* into an FBO texture; the no-GL panel
// test passes a fake.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <string>
#include <tuple>

#include "color/colormap.h"

namespace attnviz {

// Names one map on screen, so the renderer keeps one texture for it. Built only here: a new kind of
// map gets a MapView, never a number range of its own.
// kEncoderOverview, kDecoderOverview, kCrossOverview: an encoder-decoder model's three Overview grids.
enum class MapView : uint8_t {
  kGrid, kEnlarged, kScaledSide, kUnscaledSide, kOverview, kEncoderOverview, kDecoderOverview, kCrossOverview
};
struct HeatmapKey {
  MapView view = MapView::kGrid;
  int layer = 0;    // 0 in the sandbox (one layer)
  int head = 0;
  int variant = 0;  // 0: the result itself; 1: its scale-flipped twin
  bool operator<(const HeatmapKey& o) const {
    return std::tie(view, layer, head, variant) < std::tie(o.view, o.layer, o.head, o.variant);
  }
  bool operator==(const HeatmapKey& o) const { return !(*this < o) && !(o < *this); }
  // An int for ImGui::PushID over this map's widgets (distinct for layers < 4096 and heads < 2048).
  int imgui_id() const { return ((int)view << 24) ^ (layer << 12) ^ (head << 1) ^ variant; }
};

struct HeatmapImage {
  const float* probs = nullptr;    // [n_q, n_k] row-major (one head of AttentionTensors::probs)
  int n_q = 0, n_k = 0;
  uint64_t data_version = 0;       // changes whenever the numbers behind `probs` change
  Colormap colormap = Colormap::kViridis;
  ColorScale color_scale = ColorScale::kLinear;
  ColorRange range;                // the weights mapped to the ends of the colormap
  bool masked = false;             // the map has masked cells: texels the view wrote NaN are drawn grey
};

class HeatmapRenderer {
 public:
  virtual ~HeatmapRenderer() = default;
  // `key` names one map on screen; the renderer keeps one texture per key and redraws it only when
  // the image or the size changes. Returns 0 when it cannot draw (then error() says why).
  virtual ImTextureID Render(const HeatmapKey& key, const HeatmapImage& image, int width_px, int height_px) = 0;
  // Optional draw-list callback run before the map images are drawn (the GL renderer turns
  // blending off: the maps are opaque, and in software GL blending is a large share of their cost).
  // The panel resets ImGui's render state right after the image. nullptr: none.
  virtual ImDrawCallback opaque_callback() const { return nullptr; }
  // "" when the renderer works; otherwise what a person should read (shader path, compile log).
  virtual std::string error() const = 0;
};

}  // namespace attnviz
