// One map of the Heads panel, drawn in parts: the frame (the window of cells its zoom state shows), the caption and
// token labels, the texels composed for the window and rendered, the input over it (a click opens the neuron view,
// a drag pans, the wheel and +/-/0/I/J/K/L zoom and pan), its widget record, and the tooltip (heads_map_tooltip.cpp).
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "heads_map.h"
#include "io/json.h"
#include "maps/axis_labels.h"
#include "panel_util.h"
#include "unicode_slots.h"
#include "tokenize/shown_text.h"

namespace attnviz {

namespace {

// Zooms `w` by `factor` (> 1: in) about the cell (ci, cj), keeping the map's aspect, down to 1 cell.
MapWindow Zoom(const MapWindow& w, double factor, double ci, double cj, int n_q, int n_k) {
  const int rows = std::clamp((int)std::lround(w.rows() / factor), 1, n_q);
  const int cols = std::clamp((int)std::lround(w.cols() / factor), 1, n_k);
  const double fy = (ci - w.r0) / std::max(1, w.rows()), fx = (cj - w.c0) / std::max(1, w.cols());
  MapWindow z;
  z.r0 = std::clamp((int)std::lround(ci - fy * rows), 0, n_q - rows);
  z.c0 = std::clamp((int)std::lround(cj - fx * cols), 0, n_k - cols);
  z.r1 = z.r0 + rows;
  z.c1 = z.c0 + cols;
  return z;
}
MapWindow Pan(const MapWindow& w, int dr, int dc, int n_q, int n_k) {
  MapWindow p = w;
  p.r0 = std::clamp(w.r0 + dr, 0, n_q - w.rows());
  p.c0 = std::clamp(w.c0 + dc, 0, n_k - w.cols());
  p.r1 = p.r0 + w.rows();
  p.c1 = p.c0 + w.cols();
  return p;
}

ImU32 GoldColor() { return ImGui::GetColorU32(ImVec4(1.0f, 0.85f, 0.3f, 1.0f)); }

// The map's zoom state (reset when the map's size changes), its place and cell sizes, and its texel size.
MapFrame FrameFor(PanelContext& ctx, const MapDraw& m, ImVec2 map_min, float cell) {
  const LayerMaps& t = *m.tensors;
  const int n_q = t.n_q(), n_k = t.n_k();
  MapState& ms = ctx.views.heads.maps[m.key];
  if (ms.n_q != n_q || ms.n_k != n_k) {
    ms = MapState{};
    ms.window = MapWindow{0, n_q, 0, n_k};
    ms.n_q = n_q, ms.n_k = n_k;
  }
  MapFrame f(t, ms);
  f.n_q = n_q, f.n_k = n_k;
  f.map_min = map_min;
  f.map_size = ImVec2((float)n_k * cell, (float)n_q * cell);
  f.map_max = ImVec2(map_min.x + f.map_size.x, map_min.y + f.map_size.y);
  f.cell_x = f.map_size.x / (float)ms.window.cols(), f.cell_y = f.map_size.y / (float)ms.window.rows();
  f.cell_shown = std::min(f.cell_x, f.cell_y);
  const ImVec2 fb_scale = ImGui::GetIO().DisplayFramebufferScale;
  f.px_w = std::max(1, (int)std::lround(f.map_size.x * fb_scale.x));
  f.px_h = std::max(1, (int)std::lround(f.map_size.y * fb_scale.y));
  f.source = t.Source(ctx.shown->generation);
  return f;
}

// Caption below: figures that do not fit the map's width wrap onto the next line (the grid left room
// for them, FitCaptions), so a narrow map still shows its H and gradient figures.
void DrawCaption(PanelContext& ctx, const MapDraw& m, const MapFrame& f, const MapLayout& layout) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeight();
  const ImU32 text_color = ImGui::GetColorU32(ImGuiCol_Text);
  ImVec2 caption_pos(f.map_min.x, f.map_max.y + 2.0f);
  const std::vector<std::string> caption_lines = WrapCaption(m.caption, f.map_size.x + 8.0f);
  const float caption_bottom = caption_pos.y + std::max(layout.caption - 2.0f, line + 2.0f);
  dl->PushClipRect(caption_pos, ImVec2(f.map_max.x + 8.0f, caption_bottom), true);
  std::string caption_json = "[";
  for (size_t k = 0; k < caption_lines.size(); ++k) {
    dl->AddText(ImVec2(caption_pos.x, caption_pos.y + (float)k * line), m.selected ? GoldColor() : text_color,
                caption_lines[k].c_str());
    caption_json += (k ? ", " : "") + JsonString(caption_lines[k]);
  }
  dl->PopClipRect();
  ctx.dump.RecordRect(m.dump_name + ".caption", caption_pos.x, caption_pos.y, f.map_max.x + 8.0f,
                      caption_pos.y + (float)caption_lines.size() * line, false, false, caption_json + "]",
                      caption_pos.y + (float)caption_lines.size() * line <= caption_bottom + 0.5f);
}

// The token indices labelled, as JSON arrays for the map's record.
struct LabelsDrawn {
  std::string keys, queries;
};

// Labels: keys upright along the top, queries on the left, for the window's tokens.
LabelsDrawn DrawTokenLabels(PanelContext& ctx, const MapDraw& m, const MapFrame& f, const MapLayout& layout) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim_color = ImGui::GetColorU32(kDimColor);
  const LayerMaps& t = f.t;
  const MapWindow& w = f.ms.window;
  const float size = LabelSize(f.cell_shown);
  const int step = LabelStep(f.cell_shown, size);
  LabelsDrawn drawn{"[", "["};
  if (m.key_labels && layout.label_top > 0 && f.cell_shown * step < f.map_size.x + 1.0f) {
    const std::vector<Token>& keys = t.kv_tokens;
    for (const AxisLabel& a : ThinnedAxisLabels([&](int j) { return ShownText(keys[(size_t)j].display); },
                                                WordStarts(keys), w.c0, w.c1, step)) {
      const int j = a.index;
      std::string label = Ellipsize(ToImGui(a.text), layout.label_top - 4.0f, size);
      float x = f.map_min.x + ((float)(j - w.c0) + 0.5f) * f.cell_x - size * 0.5f;
      AddTextVertical(dl, ImVec2(x, f.map_min.y - 3.0f), dim_color, label, size);
      if (drawn.keys.size() < 400) drawn.keys += (drawn.keys.size() > 1 ? ", " : "") + std::to_string(j);
    }
  }
  drawn.keys += "]";
  if (m.query_labels && layout.label_left > 0 && f.cell_shown * step < f.map_size.y + 1.0f) {
    const std::vector<Token>& queries = t.query_tokens;
    for (const AxisLabel& a : ThinnedAxisLabels([&](int i) { return ShownText(queries[(size_t)i].display); },
                                                WordStarts(queries), w.r0, w.r1, step)) {
      const int i = a.index;
      std::string label = Ellipsize(ToImGui(a.text), layout.label_left - 6.0f, size);
      float lw = TextWidth(label, size);
      float y = f.map_min.y + ((float)(i - w.r0) + 0.5f) * f.cell_y - size * 0.5f;
      dl->AddText(ImGui::GetFont(), size, ImVec2(f.map_min.x - 4.0f - lw, y), dim_color, label.c_str());
      if (drawn.queries.size() < 400) drawn.queries += (drawn.queries.size() > 1 ? ", " : "") + std::to_string(i);
    }
  }
  drawn.queries += "]";
  if (ctx.shown->model && m.query_labels && layout.label_left > 0)
    DrawRowLabelPredictions(ctx, ImVec2(f.map_min.x - layout.label_left, f.map_min.y), ImVec2(f.map_min.x, f.map_max.y),
                            w.r0, f.cell_y);
  return drawn;
}

// The texels: the window pooled to the drawn size (a pyramid level, or exact cells), recomposed only
// when the result, the window, the size or the pooling changes; then the map's texture from the renderer.
ImTextureID RenderMapView(PanelContext& ctx, HeatmapRenderer& renderer, const MapDraw& m, const MapFrame& f) {
  const LayerMaps& t = f.t;
  MapState& ms = f.ms;
  const MapWindow& w = ms.window;
  const PoolKind pool = ctx.views.heads.pool;
  // The tensors' address alone cannot tell a new result: a new run's tensors of the same sizes may sit where the
  // last run's were freed (the scale-flipped twin does, as its run publishes the maps before the twin). The shown
  // result's generation can.
  const void* source_id = t.pyramid ? (const void*)t.pyramid.get() : (const void*)t.probs.get();
  const uint64_t generation = ctx.shown->generation;
  if (!ctx.bench_hide_maps &&
      (ms.source != source_id || ms.source_generation != generation || ms.composed_window != w ||
       ms.px_w != f.px_w || ms.px_h != f.px_h || ms.kind != pool || ms.view.values.empty())) {
    ms.view = ComposeView(f.source, m.head, w, f.px_w, f.px_h, pool);
    ms.source = source_id;
    ms.source_generation = generation;
    ms.composed_window = w;
    ms.px_w = f.px_w, ms.px_h = f.px_h;
    ms.kind = pool;
    ms.version = ++ctx.views.heads.view_versions;
  }
  HeatmapImage image;
  image.probs = ms.view.values.data();
  image.n_q = ms.view.height;
  image.n_k = ms.view.width;
  image.data_version = ms.version;
  image.colormap = ctx.settings.colormap;
  image.color_scale = ctx.settings.color_scale;
  image.range = m.range;
  image.masked = t.mask.HidesAny(t.n_q(), t.n_k());
  if (ctx.bench_hide_maps || ms.view.values.empty()) return 0;
  return renderer.Render(m.key, image, f.px_w, f.px_h);
}

// The cell under the mouse, within the window.
int RowAt(const MapFrame& f, float y) {
  const MapWindow& w = f.ms.window;
  return std::clamp(w.r0 + (int)((y - f.map_min.y) / f.cell_y), w.r0, w.r1 - 1);
}
int ColAt(const MapFrame& f, float x) {
  const MapWindow& w = f.ms.window;
  return std::clamp(w.c0 + (int)((x - f.map_min.x) / f.cell_x), w.c0, w.c1 - 1);
}

struct MapInput {
  bool hovered = false, clicked = false;
};

// An invisible button over the map: press + release without a drag is a click (the neuron view of that cell in model
// mode); a drag pans; a right-click offers the head's ablation.
MapInput HandleMapButton(PanelContext& ctx, const MapDraw& m, const MapFrame& f) {
  MapState& ms = f.ms;
  ImGuiIO& io = ImGui::GetIO();
  MapInput input;
  ImGui::InvisibleButton("##map", ImVec2(std::max(f.map_size.x, 1.0f), std::max(f.map_size.y, 1.0f)));
  input.hovered = ImGui::IsItemHovered();
  if (ImGui::IsItemActivated()) ms.dragging = true, ms.dragged = false, ms.drag_rest_x = ms.drag_rest_y = 0;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) {
    ms.dragged = true;
    ms.drag_rest_x += io.MouseDelta.x / f.cell_x;
    ms.drag_rest_y += io.MouseDelta.y / f.cell_y;
    const int dc = (int)ms.drag_rest_x, dr = (int)ms.drag_rest_y;
    ms.drag_rest_x -= (float)dc;
    ms.drag_rest_y -= (float)dr;
    ms.window = Pan(ms.window, -dr, -dc, f.n_q, f.n_k);
  }
  input.clicked = ImGui::IsItemDeactivated() && !ms.dragged && input.hovered;
  const bool model = ctx.shown->model != nullptr;
  if (model && !m.twin) DrawHeadAblateMenu(ctx, ctx.settings.model_layer, m.head);
  else if (!m.twin && ctx.results.seq2seq_mode(ctx.settings))  // an encoder-decoder head of the stack shown
    DrawSeq2SeqHeadAblateMenu(ctx, ctx.shown->stack, ctx.shown->layer, m.head);
  if (input.clicked && ClickOpensNeuronView(ctx) && f.n_q > 0 && f.n_k > 0)  // the neuron view of that cell
    ctx.verbs.OpenNeuronView(m.head, RowAt(f, io.MousePos.y), ColAt(f, io.MousePos.x));
  if (ImGui::IsItemDeactivated()) ms.dragging = false, ms.dragged = false;
  return input;
}

// The map's texture, or its outline while there is none.
void DrawMapImage(HeatmapRenderer& renderer, ImTextureID texture, const MapFrame& f) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (texture) {
    ImDrawCallback opaque = renderer.opaque_callback();
    if (opaque) dl->AddCallback(opaque, nullptr);
    dl->AddImage(texture, f.map_min, f.map_max);
    if (opaque) dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  } else {
    dl->AddRect(f.map_min, f.map_max, ImGui::GetColorU32(kDimColor));
  }
}

// Zoom: the wheel about the cell under the mouse; keys +/- about the centre, I/J/K/L pan, 0 resets.
void HandleZoomKeys(const MapFrame& f) {
  MapState& ms = f.ms;
  const MapWindow& w = ms.window;
  const int n_q = f.n_q, n_k = f.n_k;
  const ImGuiIO& io = ImGui::GetIO();
  const ImVec2 mouse = io.MousePos;
  const double ci = w.r0 + (mouse.y - f.map_min.y) / f.cell_y, cj = w.c0 + (mouse.x - f.map_min.x) / f.cell_x;
  if (io.MouseWheel != 0.0f) ms.window = Zoom(ms.window, std::pow(1.25, io.MouseWheel), ci, cj, n_q, n_k);
  if (io.WantTextInput) return;
  const double mi = w.r0 + w.rows() * 0.5, mj = w.c0 + w.cols() * 0.5;
  if (ImGui::IsKeyPressed('=')) ms.window = Zoom(ms.window, 2.0, mi, mj, n_q, n_k);
  if (ImGui::IsKeyPressed('-')) ms.window = Zoom(ms.window, 0.5, mi, mj, n_q, n_k);
  if (ImGui::IsKeyPressed('0')) ms.window = MapWindow{0, n_q, 0, n_k};
  const int pr = std::max(1, w.rows() / 4), pc = std::max(1, w.cols() / 4);
  if (ImGui::IsKeyPressed('I')) ms.window = Pan(ms.window, -pr, 0, n_q, n_k);
  if (ImGui::IsKeyPressed('K')) ms.window = Pan(ms.window, pr, 0, n_q, n_k);
  if (ImGui::IsKeyPressed('J')) ms.window = Pan(ms.window, 0, -pc, n_q, n_k);
  if (ImGui::IsKeyPressed('L')) ms.window = Pan(ms.window, 0, pc, n_q, n_k);
}

// The map's record in the widget dump: its window, level, texels and the tokens labelled.
void RecordMap(PanelContext& ctx, const MapDraw& m, const MapFrame& f, bool hovered, const LabelsDrawn& labels) {
  const MapState& ms = f.ms;
  const MapWindow& now = ms.window;
  ctx.dump.RecordRect(m.dump_name, f.map_min.x, f.map_min.y, f.map_max.x, f.map_max.y, ms.dragging, hovered,
                      "{\"head\": " + std::to_string(m.head) + ", \"cell\": " + JsonNumber(f.cell_shown) +
                          ", \"window\": [" + std::to_string(now.r0) + ", " + std::to_string(now.r1) + ", " +
                          std::to_string(now.c0) + ", " + std::to_string(now.c1) + "], \"level\": " +
                          std::to_string(ms.view.level) + ", \"texels\": [" + std::to_string(ms.view.width) + ", " +
                          std::to_string(ms.view.height) + "], \"pool\": \"" + ToString(ctx.views.heads.pool) +
                          "\", \"key_labels\": " + labels.keys + ", \"query_labels\": " + labels.queries + "}");
}

}  // namespace

bool ClickOpensNeuronView(const PanelContext& ctx) {
  return ctx.shown && (ctx.shown->model || ctx.results.seq2seq_mode(ctx.settings)) &&
         !KindInfo(ctx.shown->kind).shows.one_map;
}

bool DrawMap(PanelContext& ctx, HeatmapRenderer& renderer, const MapDraw& m, ImVec2 map_min, float cell,
             const MapLayout& layout) {
  const MapFrame f = FrameFor(ctx, m, map_min, cell);
  DrawCaption(ctx, m, f, layout);
  const LabelsDrawn labels = DrawTokenLabels(ctx, m, f, layout);
  ImGui::SetCursorScreenPos(map_min);
  const ImTextureID texture = RenderMapView(ctx, renderer, m, f);
  ImGui::PushID(m.key.imgui_id());
  const MapInput input = HandleMapButton(ctx, m, f);
  DrawMapImage(renderer, texture, f);
  ImGui::PopID();
  const bool has_cells = f.n_q > 0 && f.n_k > 0;
  if (input.hovered && has_cells) HandleZoomKeys(f);
  // A streamed layer's q and k are made once a person looks closer (App::AskExactRowsWhenNeeded).
  if (f.t.pooled && f.t.q->empty() && (input.hovered || f.ms.window != MapWindow{0, f.n_q, 0, f.n_k}))
    ctx.views.heads.wants_exact_rows = true;
  RecordMap(ctx, m, f, input.hovered, labels);
  if (m.selected)
    ImGui::GetWindowDrawList()->AddRect(ImVec2(map_min.x - 2, map_min.y - 2),
                                        ImVec2(f.map_max.x + 2, f.map_max.y + 2), GoldColor(), 0.0f, 0, 2.0f);
  if (input.hovered && has_cells && !f.ms.dragging) DrawCellTooltip(ctx, m, f);
  return input.clicked;
}

}  // namespace attnviz
