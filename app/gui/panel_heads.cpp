// Heads: a grid of per-head heatmaps with token labels. A checkbox per head shows or hides it;
// a click enlarges a head; hovering a cell shows query, key, weight, the logit before and after
// scaling and the row's entropy; "scaled vs unscaled" puts the same head side by side.
// Keys: Left/Right cycle heads, S toggles scaling (handled in App::Draw).
//
// Long inputs: each map shows a window of its cells (zoom: mouse wheel or +/-; pan: drag or I/J/K/L;
// 0: whole map; the token labels follow the window). A window with more cells than its slot has pixels
// is drawn from the core's pyramid of pooled levels (max by default, so a single spike stays visible;
// "mean" is a choice), picked by the on-screen size; the texture holds only the texels drawn
// (core/maps/view.h ComposeView). Hovering shows exact values at any zoom (ExactAt: the full map when
// kept, else the row recomputed from q and k). The zoom is panel state, not saved.
#include <imgui.h>
#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <map>

#include "app.h"
#include "io/json.h"
#include "model_analysis.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "sandbox/score.h"
#include "widgets.h"
#include "unicode_slots.h"
#ifdef ATTNVIZ_HAVE_FIGURE
#include "figure/heatmap_figure.h"  // ColorbarTicks, FormatTicks: the exported figures' ticks
#endif

namespace attnviz {

namespace {

constexpr float kLabelMax = 72.0f;  // widest token label (pixels), longer ones are cut with "…"

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

float TextWidth(const std::string& text, float size) {
  return ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0.0f, text.c_str()).x;
}

// The text, or its longest prefix (whole code points) + "…" within max_width. ImGui lays text out by
// glyph advances, so one pass reads each advance once: linear in the length (cutting one character at
// a time and re-measuring was quadratic: a 100 KB word hung the frame).
std::string Ellipsize(const std::string& text, float max_width, float size) {
  if (TextWidth(text, size) <= max_width) return text;
  const char* ellipsis = "\xE2\x80\xA6";
  const float budget = max_width - TextWidth(ellipsis, size);
  const ImFont* font = ImGui::GetFont();
  const float scale = size / font->FontSize;
  const char* begin = text.c_str();
  const char* end = begin + text.size();
  size_t fits = 0;  // bytes of the longest prefix within budget
  float width = 0;
  for (const char* p = begin; p < end;) {
    unsigned int c = 0;
    const int n = ImTextCharFromUtf8(&c, p, end);
    if (n <= 0) break;
    width += font->GetCharAdvance((ImWchar)c) * scale;
    if (width > budget) break;
    p += n;
    fits = size_t(p - begin);
  }
  return text.substr(0, fits) + ellipsis;
}

// Text rotated 90 degrees counter-clockwise, reading upwards from `bottom_left`. Drawn first at
// the clip rectangle's corner (so no glyph is culled) and then moved into place.
void AddTextVertical(ImDrawList* dl, ImVec2 bottom_left, ImU32 color, const std::string& text, float size) {
  ImVec2 origin = dl->GetClipRectMin();
  int first = dl->VtxBuffer.Size;
  dl->AddText(ImGui::GetFont(), size, origin, color, text.c_str());
  for (int i = first; i < dl->VtxBuffer.Size; ++i) {
    ImVec2 p(dl->VtxBuffer[i].pos.x - origin.x, dl->VtxBuffer[i].pos.y - origin.y);
    dl->VtxBuffer[i].pos = ImVec2(bottom_left.x + p.y, bottom_left.y - p.x);
  }
}

// Space around the maps: query labels on the left, key labels (upright) on top, a caption below.
struct MapLayout {
  float label_left = 0, label_top = 0, caption = 0;
};

// Token labels shrink with the cells (down to 9 px) before they thin out.
float LabelSize(float cell) { return std::clamp(cell * 0.92f, 9.0f, ImGui::GetFontSize()); }
// Label step: print every k-th token so labels never overlap.
int LabelStep(float cell, float size) {
  int step = 1;
  while (cell * (float)step < size * 0.92f) step *= 2;
  return step;
}

// The caption's figures ("head 2", "max 0.62", "H 0.91", "∇ 0.40", split at double spaces) on as
// many lines of at most `width` pixels as they need; a figure is never cut.
std::vector<std::string> WrapCaption(const std::string& caption, float width) {
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (true) {
    size_t cut = caption.find("  ", start);
    std::string piece = caption.substr(start, cut == std::string::npos ? std::string::npos : cut - start);
    std::string joined = line.empty() ? piece : line + "  " + piece;
    if (!line.empty() && ImGui::CalcTextSize(joined.c_str()).x > width) {
      lines.push_back(line);
      line = piece;
    } else {
      line = joined;
    }
    if (cut == std::string::npos) break;
    start = cut + 2;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

constexpr float kColorbarSpace = 58.0f;  // right of the maps: the bar, its ticks and labels

// A vertical colorbar for `range` (low end at the bottom) with tick labels, and under it a grey
// "masked" swatch when the map has masked cells (causal, outside a window), as in exported figures.
void DrawColorbar(App& app, ImVec2 top_left, float height, ColorRange range, bool masked) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const AppSettings& s = app.settings;
  const float bar_w = 12.0f, line = ImGui::GetTextLineHeight();
  height = std::max(height, 3.0f * line);
  const ImVec2 bar_max(top_left.x + bar_w, top_left.y + height);
  const int segments = 64;
  for (int k = 0; k < segments; ++k) {
    unsigned char lo[3], hi[3];
    MapColor(s.colormap, (float)k / segments, lo);
    MapColor(s.colormap, (float)(k + 1) / segments, hi);
    const float y1 = bar_max.y - height * (float)k / segments, y0 = bar_max.y - height * (float)(k + 1) / segments;
    const ImU32 top = IM_COL32(hi[0], hi[1], hi[2], 255), bottom = IM_COL32(lo[0], lo[1], lo[2], 255);
    dl->AddRectFilledMultiColor(ImVec2(top_left.x, y0), ImVec2(bar_max.x, y1), top, top, bottom, bottom);
  }
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  dl->AddRect(top_left, bar_max, dim);
  std::vector<float> ticks;
  std::vector<std::string> labels;
#ifdef ATTNVIZ_HAVE_FIGURE
  ticks = ColorbarTicks(s.color_scale, range, std::clamp((int)(height / (line * 1.6f)) + 1, 2, 6));
  labels = FormatTicks(ticks, s.color_scale, range);
#else
  ticks = {range.lo, range.hi};
  labels = {FormatNumber(range.lo, "%.2g"), FormatNumber(range.hi, "%.2g")};
#endif
  std::string ticks_json = "[";
  for (size_t k = 0; k < ticks.size(); ++k) {
    const float y = bar_max.y - NormalizeForColor(ticks[k], s.color_scale, range) * height;
    dl->AddLine(ImVec2(bar_max.x, y), ImVec2(bar_max.x + 3.0f, y), dim);
    dl->AddText(ImVec2(bar_max.x + 5.0f, y - line * 0.5f), dim, labels[k].c_str());
    ticks_json += (k ? ", " : "") + JsonString(labels[k]);
  }
  ticks_json += "]";
  float bottom = bar_max.y;
  if (masked) {
    const ImVec2 m0(top_left.x, bar_max.y + 6.0f), m1(bar_max.x, bar_max.y + 6.0f + line);
    dl->AddRectFilled(m0, m1, IM_COL32(56, 56, 64, 255));  // u_mask_color of the heatmap shader
    dl->AddText(ImVec2(m1.x + 5.0f, m0.y), dim, Tr(Str::kMaskedLegend));
    bottom = m1.y;
  }
  app.dump.RecordRect("heads.colorbar", top_left.x, top_left.y, bar_max.x, bottom, false, false,
                      "{\"ticks\": " + ticks_json + ", \"masked\": " + BoolJson(masked) + "}");
}

struct MapDraw {
  const AttentionTensors* tensors = nullptr;  // its maps say how they were made (scaled, temperature, mask)
  int head = 0;
  bool twin = false;
  HeatmapKey key;
  std::string caption, dump_name;
  bool selected = false;
  bool key_labels = false, query_labels = false;  // only the grid's outer edges carry labels
  ColorRange range;
};

// Draws one map with its top-left corner at `map_min`, `cell` pixels a cell, labels outside it
// (as `layout` allows) and the caption below. Returns true when the map was clicked.
bool DrawMap(App& app, HeatmapRenderer& renderer, const MapDraw& m, ImVec2 map_min, float cell,
             const MapLayout& layout) {
  const AttentionTensors& t = *m.tensors;
  int n_q = t.n_q(), n_k = t.n_k();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float line = ImGui::GetTextLineHeight();
  ImU32 text_color = ImGui::GetColorU32(ImGuiCol_Text);
  ImU32 dim_color = ImGui::GetColorU32(kDimColor);
  ImU32 gold = ImGui::GetColorU32(ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImVec2 map_size((float)n_k * cell, (float)n_q * cell);
  ImVec2 map_max(map_min.x + map_size.x, map_min.y + map_size.y);

  // Caption below: figures that do not fit the map's width wrap onto the next line (the grid left room
  // for them, FitCaptions), so a narrow map still shows its H and gradient figures.
  ImVec2 caption_pos(map_min.x, map_max.y + 2.0f);
  const std::vector<std::string> caption_lines = WrapCaption(m.caption, map_size.x + 8.0f);
  const float caption_bottom = caption_pos.y + std::max(layout.caption - 2.0f, line + 2.0f);
  dl->PushClipRect(caption_pos, ImVec2(map_max.x + 8.0f, caption_bottom), true);
  std::string caption_json = "[";
  for (size_t k = 0; k < caption_lines.size(); ++k) {
    dl->AddText(ImVec2(caption_pos.x, caption_pos.y + (float)k * line), m.selected ? gold : text_color,
                caption_lines[k].c_str());
    caption_json += (k ? ", " : "") + JsonString(caption_lines[k]);
  }
  dl->PopClipRect();
  app.dump.RecordRect(m.dump_name + ".caption", caption_pos.x, caption_pos.y, map_max.x + 8.0f,
                      caption_pos.y + (float)caption_lines.size() * line, false, false, caption_json + "]",
                      caption_pos.y + (float)caption_lines.size() * line <= caption_bottom + 0.5f);

  // The window of cells this map shows (zoom/pan state), and the texels composed for it.
  MapState& ms = app.views.heads.maps[m.key];
  if (ms.n_q != n_q || ms.n_k != n_k) {
    ms = MapState{};
    ms.window = MapWindow{0, n_q, 0, n_k};
    ms.n_q = n_q, ms.n_k = n_k;
  }
  const MapWindow& w = ms.window;
  const float cell_x = map_size.x / (float)w.cols(), cell_y = map_size.y / (float)w.rows();
  const float cell_shown = std::min(cell_x, cell_y);

  // Labels: keys upright along the top, queries on the left, for the window's tokens.
  float size = LabelSize(cell_shown);
  int step = LabelStep(cell_shown, size);
  std::string key_labels = "[";
  if (m.key_labels && layout.label_top > 0 && cell_shown * step < map_size.x + 1.0f) {
    for (int j = (w.c0 + step - 1) / step * step; j < w.c1; j += step) {
      std::string label = Ellipsize(ToImGui(t.kv_tokens[(size_t)j].text), layout.label_top - 4.0f, size);
      float x = map_min.x + ((float)(j - w.c0) + 0.5f) * cell_x - size * 0.5f;
      AddTextVertical(dl, ImVec2(x, map_min.y - 3.0f), dim_color, label, size);
      if (key_labels.size() < 400) key_labels += (key_labels.size() > 1 ? ", " : "") + std::to_string(j);
    }
  }
  key_labels += "]";
  std::string query_labels = "[";
  if (m.query_labels && layout.label_left > 0 && cell_shown * step < map_size.y + 1.0f) {
    for (int i = (w.r0 + step - 1) / step * step; i < w.r1; i += step) {
      std::string label = Ellipsize(ToImGui(t.query_tokens[(size_t)i].text), layout.label_left - 6.0f, size);
      float lw = TextWidth(label, size);
      float y = map_min.y + ((float)(i - w.r0) + 0.5f) * cell_y - size * 0.5f;
      dl->AddText(ImGui::GetFont(), size, ImVec2(map_min.x - 4.0f - lw, y), dim_color, label.c_str());
      if (query_labels.size() < 400) query_labels += (query_labels.size() > 1 ? ", " : "") + std::to_string(i);
    }
  }
  query_labels += "]";
  if (app.settings.source == Source::kModel && m.query_labels && layout.label_left > 0)
    DrawRowLabelPredictions(app, ImVec2(map_min.x - layout.label_left, map_min.y), ImVec2(map_min.x, map_max.y), w.r0, cell_y);

  // The texels: the window pooled to the drawn size (a pyramid level, or exact cells), recomposed only
  // when the result, the window, the size or the pooling changes.
  ImVec2 fb_scale = ImGui::GetIO().DisplayFramebufferScale;
  const int px_w = std::max(1, (int)std::lround(map_size.x * fb_scale.x));
  const int px_h = std::max(1, (int)std::lround(map_size.y * fb_scale.y));
  const MapSource source = t.Source(app.results.shown->generation);
  const void* source_id = t.pyramid ? (const void*)t.pyramid.get() : (const void*)t.probs.get();
  if (!app.bench_hide_maps &&
      (ms.source != source_id || ms.composed_window != w || ms.px_w != px_w || ms.px_h != px_h ||
       ms.kind != app.views.heads.pool || ms.view.values.empty())) {
    ms.view = ComposeView(source, m.head, w, px_w, px_h, app.views.heads.pool);
    ms.source = source_id;
    ms.composed_window = w;
    ms.px_w = px_w, ms.px_h = px_h;
    ms.kind = app.views.heads.pool;
    ms.version = ++app.views.heads.view_versions;
  }

  // The map itself (an FBO texture from the renderer).
  HeatmapImage image;
  image.probs = ms.view.values.data();
  image.n_q = ms.view.height;
  image.n_k = ms.view.width;
  image.data_version = ms.version;
  image.colormap = app.settings.colormap;
  image.color_scale = app.settings.color_scale;
  image.range = m.range;
  image.masked = t.mask.HidesAny(t.n_q(), t.n_k());
  ImGui::SetCursorScreenPos(map_min);
  ImTextureID texture = 0;
  if (!app.bench_hide_maps && !ms.view.values.empty()) texture = renderer.Render(m.key, image, px_w, px_h);
  ImGui::PushID(m.key.imgui_id());
  // An invisible button over the map: press + release without a drag is a click; a drag pans.
  ImGui::InvisibleButton("##map", ImVec2(std::max(map_size.x, 1.0f), std::max(map_size.y, 1.0f)));
  bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActivated()) ms.dragging = true, ms.dragged = false, ms.drag_rest_x = ms.drag_rest_y = 0;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) {
    ms.dragged = true;
    ms.drag_rest_x += io.MouseDelta.x / cell_x;
    ms.drag_rest_y += io.MouseDelta.y / cell_y;
    const int dc = (int)ms.drag_rest_x, dr = (int)ms.drag_rest_y;
    ms.drag_rest_x -= (float)dc;
    ms.drag_rest_y -= (float)dr;
    ms.window = Pan(ms.window, -dr, -dc, n_q, n_k);
  }
  bool clicked = ImGui::IsItemDeactivated() && !ms.dragged && hovered;
  if (app.settings.source == Source::kModel && !m.twin) DrawHeadAblateMenu(app, app.settings.model_layer, m.head);
  if (clicked && app.settings.source == Source::kModel && n_q > 0 && n_k > 0)  // the neuron view of that cell
    OpenNeuronView(app, m.head, std::clamp(w.r0 + (int)((io.MousePos.y - map_min.y) / cell_y), w.r0, w.r1 - 1),
                   std::clamp(w.c0 + (int)((io.MousePos.x - map_min.x) / cell_x), w.c0, w.c1 - 1));
  if (ImGui::IsItemDeactivated()) ms.dragging = false, ms.dragged = false;
  if (texture) {
    ImDrawCallback opaque = renderer.opaque_callback();
    if (opaque) dl->AddCallback(opaque, nullptr);
    dl->AddImage(texture, map_min, map_max);
    if (opaque) dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  } else {
    dl->AddRect(map_min, map_max, dim_color);
  }
  ImGui::PopID();
  // Zoom: the wheel about the cell under the mouse; keys +/- about the centre, I/J/K/L pan, 0 resets.
  if (hovered && n_q > 0 && n_k > 0) {
    ImVec2 mouse = io.MousePos;
    const double ci = w.r0 + (mouse.y - map_min.y) / cell_y, cj = w.c0 + (mouse.x - map_min.x) / cell_x;
    if (io.MouseWheel != 0.0f) ms.window = Zoom(ms.window, std::pow(1.25, io.MouseWheel), ci, cj, n_q, n_k);
    if (!io.WantTextInput) {
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
  }
  const MapWindow& now = ms.window;
  // A streamed layer's q and k are made once a person looks closer (App::AskExactRowsWhenNeeded).
  if (t.pooled && t.q->empty() && (hovered || now != MapWindow{0, n_q, 0, n_k}))
    app.views.heads.wants_exact_rows = true;
  app.dump.RecordRect(m.dump_name, map_min.x, map_min.y, map_max.x, map_max.y, ms.dragging, hovered,
                      "{\"head\": " + std::to_string(m.head) + ", \"cell\": " + JsonNumber(cell_shown) +
                          ", \"window\": [" + std::to_string(now.r0) + ", " + std::to_string(now.r1) + ", " +
                          std::to_string(now.c0) + ", " + std::to_string(now.c1) + "], \"level\": " +
                          std::to_string(ms.view.level) + ", \"texels\": [" + std::to_string(ms.view.width) + ", " +
                          std::to_string(ms.view.height) + "], \"pool\": \"" + ToString(app.views.heads.pool) +
                          "\", \"key_labels\": " + key_labels + ", \"query_labels\": " + query_labels + "}");
  if (m.selected) dl->AddRect(ImVec2(map_min.x - 2, map_min.y - 2), ImVec2(map_max.x + 2, map_max.y + 2), gold, 0.0f,
                              0, 2.0f);

  if (hovered && n_q > 0 && n_k > 0 && !ms.dragging) {
    ImVec2 mouse = io.MousePos;
    int j = std::clamp(w.c0 + (int)((mouse.x - map_min.x) / cell_x), w.c0, w.c1 - 1);
    int i = std::clamp(w.r0 + (int)((mouse.y - map_min.y) / cell_y), w.r0, w.r1 - 1);
    if (cell_shown >= 2.0f)
      dl->AddRect(ImVec2(map_min.x + (float)(j - w.c0) * cell_x, map_min.y + (float)(i - w.r0) * cell_y),
                  ImVec2(map_min.x + (float)(j - w.c0 + 1) * cell_x, map_min.y + (float)(i - w.r0 + 1) * cell_y),
                  IM_COL32(255, 255, 255, 220));
    const ExactCell cell = ExactAt(source, t.scores.get(), m.head, i, j);  // exact at any zoom
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(Trf(Str::kTipHead, {std::to_string(m.head)}).c_str());
    ImGui::TextUnformatted(Trf(Str::kTipQuery, {std::to_string(i), ToImGui(t.query_tokens[(size_t)i].text)}).c_str());
    ImGui::TextUnformatted(Trf(Str::kTipKey, {std::to_string(j), ToImGui(t.kv_tokens[(size_t)j].text)}).c_str());
    const bool masked = t.mask.Masked(i, j, t.n_k());
    // A pooled rollout (a long input; model_analysis.h) has no exact cell: the pooled cell's value (its base level,
    // R'[I, J] per covered column) and what it pools.
    const bool pooled_rollout = app.settings.source == Source::kModel && app.views.heads.kind == MapKind::kRollout &&
                                t.pooled && t.pyramid && !t.pyramid->levels().empty() && std::isnan(cell.prob);
    if (masked) {
      ImGui::TextUnformatted(Tr(Str::kTipMasked));
    } else if (pooled_rollout) {
      const PyramidLevel& base = t.pyramid->levels()[0];
      const float value = base.Plane(PoolKind::kMean, 0)[(size_t)(i / base.factor) * base.cols + (size_t)(j / base.factor)];
      ImGui::TextUnformatted(Trf(Str::kTipWeight, {FormatNumber(value)}).c_str());
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
      ImGui::TextUnformatted(Trf(Str::kRolloutPooled, {std::to_string(t.n_k()), std::to_string(kRolloutMaxTokens),
                                                       std::to_string(base.factor)}).c_str());
      ImGui::PopTextWrapPos();
    } else if (std::isnan(cell.prob)) {  // a streamed layer whose q and k are on their way (wants_exact_rows)
      ImGui::TextUnformatted(Tr(Str::kTipWeightPending));
    } else {
      ImGui::TextUnformatted(Trf(Str::kTipWeight, {FormatNumber(cell.prob)}).c_str());
    }
    if (!std::isnan(cell.score)) {  // NaN: not kept (a trained model's layer keeps its probs only)
      // The run's own score: a trained model's is the scaled dot product, the sandbox's any of five.
      const ScoreKind score = app.settings.source == Source::kModel || !app.results.shown
                                  ? ScoreKind::kScaledDot
                                  : app.results.shown->request.config.score;
      ImGui::TextUnformatted(Trf(Str::kTipLogitBefore, {ScoreFormula(score), FormatNumber(cell.score)}).c_str());
      // Only scaled-dot divides by sqrt(d_k) (AttentionConfig::logit_multiplier): the scale switch is on under
      // every score, but -|q - k|, cosine, additive and dot logits are never divided.
      const bool divided = t.scaled && score == ScoreKind::kScaledDot;
      std::string how = std::string(divided ? "\xC3\xB7\xE2\x88\x9A" "d_k" : Tr(Str::kUnscaled)) +
                        (t.temperature != 1.0f ? ", \xC3\xB7T" : "");
      const std::string after = Trf(Str::kTipLogitAfter, {how, FormatNumber(LogitFromScore(cell.score, t.multiplier))});
      ImGui::TextUnformatted(after.c_str());
      app.dump.SetField("heads_tip_logit_after", JsonString(after));
    }
    if (m.head < (int)t.metrics.size() && i < (int)t.metrics[(size_t)m.head].rows.size()) {
      const RowMetrics& row = t.metrics[(size_t)m.head].rows[(size_t)i];
      ImGui::TextUnformatted(
          Trf(Str::kTipRowEntropy, {FormatNumber(row.entropy, "%.3f"), FormatNumber(row.norm_entropy, "%.3f")}).c_str());
      ImGui::TextUnformatted(Trf(Str::kTipRowMax, {FormatNumber(row.max_weight, "%.3f")}).c_str());
    }
    if (!ms.view.exact())
      ImGui::TextUnformatted(Trf(Str::kTipDrawn, {Tr(app.views.heads.pool == PoolKind::kMax ? Str::kPoolMax : Str::kPoolMean),
                                                  std::to_string((w.cols() + ms.view.width - 1) / ms.view.width),
                                                  std::to_string((w.rows() + ms.view.height - 1) / ms.view.height)})
                                 .c_str());
    ImGui::EndTooltip();
    app.dump.RecordItem(m.dump_name + ".hover", "{\"i\": " + std::to_string(i) + ", \"j\": " + std::to_string(j) +
                                                    ", \"prob\": " + JsonNumber(cell.prob) +
                                                    ", \"score\": " + JsonNumber(cell.score) + "}");
  }
  return clicked;
}

std::string HeadCaption(const AttentionTensors& t, int head, const std::string& prefix) {
  std::string caption = prefix + Trf(Str::kCaptionHead, {std::to_string(head)});
  if (head < (int)t.metrics.size()) {
    const HeadMetrics& m = t.metrics[(size_t)head];
    caption += std::string("  ") + Tr(Str::kCaptionMax) + " " + FormatNumber(m.max_weight, "%.2f") + "  H " + FormatNumber(m.norm_entropy, "%.2f") +
               "  \xE2\x88\x87 " + FormatNumber(m.grad_norm, "%.2f");
  }
  return caption;
}

// `count` maps of n_q x n_k cells in `avail`, labels once along the outer edges: picks the
// column count with the largest cells.
void ChooseGrid(int count, int n_q, int n_k, ImVec2 avail, const MapLayout& layout, float gap, int* columns,
                float* cell) {
  *columns = 1;
  *cell = 0;
  for (int c = 1; c <= count; ++c) {
    int rows = (count + c - 1) / c;
    float w = (avail.x - layout.label_left - (float)(c - 1) * gap) / (float)c;
    float h = (avail.y - layout.label_top - (float)rows * (layout.caption + gap)) / (float)rows;
    float s = std::min(w / (float)n_k, h / (float)n_q);
    if (s > *cell) {
      *cell = s;
      *columns = c;
    }
  }
  *cell = std::max(*cell, 1e-3f);  // long inputs: many cells a pixel (drawn pooled)
}

// ChooseGrid, then room for as many caption lines as the maps' width needs (cells shrink a little
// so that the H and gradient figures wrap instead of being dropped).
void ChooseGridWithCaptions(int count, const AttentionTensors& t, const std::string& caption, ImVec2 avail,
                            MapLayout* layout, float gap, int* columns, float* cell) {
  const float line = ImGui::GetTextLineHeight();
  for (int pass = 0; pass < 3; ++pass) {
    ChooseGrid(count, t.n_q(), t.n_k(), avail, *layout, gap, columns, cell);
    const float lines = (float)WrapCaption(caption, (float)t.n_k() * *cell + 8.0f).size();
    const float need = lines * line + 4.0f;
    if (need <= layout->caption) break;
    layout->caption = need;
  }
}

MapLayout LayoutFor(const AttentionTensors& t) {
  MapLayout layout;
  float line = ImGui::GetTextLineHeight();
  layout.caption = line + 4.0f;
  float widest_q = 0, widest_k = 0;
  for (const Token& tok : t.query_tokens) widest_q = std::max(widest_q, ImGui::CalcTextSize(tok.text.c_str()).x);
  for (const Token& tok : t.kv_tokens) widest_k = std::max(widest_k, ImGui::CalcTextSize(tok.text.c_str()).x);
  layout.label_left = std::min(widest_q, kLabelMax) + 8.0f;
  layout.label_top = std::min(widest_k, kLabelMax) + 6.0f;
  return layout;
}

}  // namespace

void DrawHeadsPanel(App& app, HeatmapRenderer& renderer) {
  app.layout.PlacePanel(0.258f, 0.0f, 0.461f, 0.70f);
  if (!ImGui::Begin(WindowTitle(Str::kWinHeads, "Heads").c_str(), nullptr, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse)) {
    ImGui::End();
    return;
  }
  AppSettings& s = app.settings;
  WidgetDump& dump = app.dump;

  // Status line.
  if (!app.notice.empty()) {
    bool dismiss = widget::SmallButton(dump, Str::kDismiss, "heads.dismiss_notice");
    ImGui::SameLine();
    ErrorText(app.notice.Render());
    if (dismiss) app.notice.clear();
  }
  // Progress: what the worker computes and how far along (the frame keeps running meanwhile).
  const JobProgress progress = app.worker->progress();
  const JobProgress sweep_progress = app.worker->sweep_progress();
  std::string progress_json = "{\"active\": " + BoolJson(progress.active) + ", \"stage\": " +
                              JsonString(progress.stage) + ", \"fraction\": " + JsonNumber(progress.fraction) +
                              ", \"sweep_active\": " + BoolJson(sweep_progress.active) + ", \"sweep_fraction\": " +
                              JsonNumber(sweep_progress.fraction) + "}";
  if (app.results.computing) {
    std::string what = progress.active && !progress.stage.empty() ? Trf(Str::kComputingStage, {LocalizedStage(progress.stage)})
                                                                  : std::string(Tr(Str::kComputing));
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%%", progress.fraction * 100.0);
    ImGui::ProgressBar((float)progress.fraction, ImVec2(160.0f, 0.0f), pct);
    ImGui::SameLine();
    ImGui::TextUnformatted(what.c_str());
  } else if (app.results.shown) {
    const AttentionTensors& t = app.results.shown->tensors;
    // A sandbox layer names its knobs; a model layer how its maps were made (it has no sandbox config).
    const std::string made = app.settings.source == Source::kModel ? LocalizedTitle(Describe(t))
                                                                 : LocalizedDescribe(app.results.shown->request.config);
    // S flips the scaling of a model run, and of a sandbox run only under scaled-dot (App::ToggleScaling): the keys
    // offered are the keys that act.
    const char* keys = Tr(app.ScalingActs() ? Str::kHeadsStatusKeys : Str::kHeadsStatusKeysNoScale);
    DimText(made + " \xC2\xB7 " + std::to_string(t.n_q()) + "\xC3\x97" +
            std::to_string(t.n_k()) + " \xC2\xB7 " + keys);
    dump.SetField("heads_summary", JsonString(made));
    dump.SetField("heads_status_keys", JsonString(keys));
  }
  dump.RecordItem("heads.status", BoolJson(app.results.computing));
  dump.SetField("progress", progress_json);
  // The d_q = d_k refusal is the Controls panel's to show (beside the combos that cause it): here only a pointer.
  std::string heads_error;
  if (const std::string e = app.results.compute_error.Render(); !e.empty())
    heads_error = IsWidthRefusal(e) ? Tr(Str::kWidthRefusalSeeControls)
                  : app.results.shown ? Trf(Str::kShowingLastGood, {e}) : e;
  else if (const std::string c = app.results.config_error.Render(); !c.empty())
    heads_error = IsWidthRefusal(c) ? Tr(Str::kWidthRefusalSeeControls) : Trf(Str::kSettingsNotApplied, {c});
  if (!heads_error.empty()) ErrorText(heads_error);
  dump.RecordItem("heads.error", JsonString(heads_error));

  if (!app.results.shown) {
    // A model's layer still running, or a kind still being made (a rollout): the kinds stay in reach.
    if (s.source == Source::kModel && app.results.model) DrawMapKindChoice(app);
    else if (!app.results.computing) ImGui::TextUnformatted(Tr(Str::kNoResultYet));
    ImGui::End();
    return;
  }
  const ComputeResult& result = *app.results.shown;
  const AttentionTensors& t = result.tensors;
  int n_head = t.n_head();

  // Head toggles.
  ImGui::TextUnformatted(Tr(Str::kShow));
  for (int h = 0; h < n_head; ++h) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < 40.0f) ImGui::NewLine();
    bool visible = s.head_visible(h);
    std::string label = std::to_string(h) + "##show" + std::to_string(h);
    if (ImGui::Checkbox(label.c_str(), &visible)) s.head_hidden[(size_t)h] = !visible;
    dump.RecordItem("heads.show." + std::to_string(h), BoolJson(visible));
  }
  // View mode. Scaled vs unscaled needs a score divided by sqrt(d_k): under any other the two maps are one map, so
  // the choice is greyed out and says why, and a side-by-side setting shows the enlarged map until scaled-dot is
  // back (the setting is kept, as the scale checkbox's; App::BuildRequest asks for no twin then).
  const bool sides_differ = app.ScalingActs();
  int view = s.side_by_side && sides_differ ? 2 : (s.enlarged || s.side_by_side ? 1 : 0);
  if (widget::RadioButton(dump, Str::kViewGrid, "heads.view_grid", view == 0)) s.enlarged = false, s.side_by_side = false;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kViewEnlarged, "heads.view_enlarged", view == 1)) s.enlarged = true, s.side_by_side = false;
  ImGui::SameLine();
  if (!sides_differ) ImGui::BeginDisabled();
  if (widget::RadioButton(dump, Str::kViewSideBySide, "heads.view_side_by_side", view == 2)) s.side_by_side = true;
  if (!sides_differ) ImGui::EndDisabled();
  if (!sides_differ && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", Trf(Str::kSideBySideSameMapsTip, {ScoreFormula(app.settings.config.score)}).c_str());
  dump.SetField("heads_side_by_side_disabled", BoolJson(!sides_differ));
  if (view != 0) {
    ImGui::SameLine();
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) app.CycleHead(-1);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) app.CycleHead(+1);
  }
  if (s.selected_head >= n_head) s.selected_head = 0;
  // Long inputs spread a row over thousands of keys: on the linear 0..1 scale every map is dark. Say so, and offer
  // the log scale.
  const float faint = FaintMapsPeak(t.metrics, s.color_scale, s.auto_range);
  if (faint > 0) {
    DimText(Trf(Str::kFaintMapsHint, {FormatNumber(faint, "%.2g")}));
    if (widget::SmallButton(dump, Str::kUseLogScale, "heads.use_log_scale")) s.color_scale = ColorScale::kLog;
  }
  dump.SetField("heads_faint_hint", JsonNumber(faint));
  // Pooling of maps with more cells than pixels: max keeps a single spike visible; mean averages.
  ImGui::SameLine(0, 16.0f);
  if (widget::RadioButton(dump, Str::kPoolMax, "heads.pool_max", app.views.heads.pool == PoolKind::kMax)) app.views.heads.pool = PoolKind::kMax;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kPoolMean, "heads.pool_mean", app.views.heads.pool == PoolKind::kMean)) app.views.heads.pool = PoolKind::kMean;
  if (s.source == Source::kModel) DrawMapKindChoice(app);  // attention, rollout or value-weighted maps

  if (!renderer.error().empty()) {
    ErrorText(renderer.error());
    ImGui::End();
    return;
  }

  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  const float gap = 10.0f;
  MapLayout layout = LayoutFor(t);
  ImVec2 maps_avail(std::max(avail.x - kColorbarSpace, 40.0f), avail.y);  // the colorbar on the right

  if (view == 0) {
    std::vector<int> heads = app.VisibleHeads();
    if (heads.empty()) {
      DimText(Tr(Str::kEveryHeadHidden));
      ImGui::End();
      return;
    }
    int columns = 1;
    float cell = 1;
    const std::string widest_caption = HeadCaption(t, heads[0], "");
    ChooseGridWithCaptions((int)heads.size(), t, widest_caption, maps_avail, &layout, gap, &columns, &cell);
    // Tiny cells: labels would be unreadable (hover a cell instead); keep a thin margin.
    if (cell < 3.0f) {
      layout.label_left = layout.label_top = 4.0f;
      ChooseGridWithCaptions((int)heads.size(), t, widest_caption, maps_avail, &layout, gap, &columns, &cell);
    }
    ColorRange range = app.RangeFor(heads);
    float step_x = (float)t.n_k() * cell + gap;
    float step_y = (float)t.n_q() * cell + layout.caption + gap;
    // Centre the grid (and its colorbar) in the panel.
    float total_w = layout.label_left + (float)columns * step_x - gap + kColorbarSpace;
    if (total_w < avail.x) origin.x += std::floor((avail.x - total_w) * 0.5f);
    const int rows = ((int)heads.size() + columns - 1) / columns;
    DrawColorbar(app, ImVec2(origin.x + layout.label_left + (float)columns * step_x, origin.y + layout.label_top),
                 (float)rows * step_y - layout.caption - gap, range, t.mask.HidesAny(t.n_q(), t.n_k()));
    for (size_t idx = 0; idx < heads.size(); ++idx) {
      int h = heads[idx];
      int col = (int)idx % columns, row = (int)idx / columns;
      MapDraw m;
      m.tensors = &t;
      m.head = h;
      m.key = HeatmapKey{MapView::kGrid, 0, h, 0};
      m.caption = HeadCaption(t, h, "");
      m.dump_name = "heads.map." + std::to_string(h);
      m.selected = h == s.selected_head;
      m.range = range;
      m.key_labels = row == 0;
      m.query_labels = col == 0;
      ImVec2 map_min(origin.x + layout.label_left + (float)col * step_x,
                     origin.y + layout.label_top + (float)row * step_y);
      if (DrawMap(app, renderer, m, map_min, cell, layout)) {
        s.selected_head = h;
        s.enlarged = true;
      }
    }
  } else if (view == 1) {
    int h = s.selected_head;
    // A trained model's head: say in one sentence what it does (its strongest role) above the map.
    if (s.source == Source::kModel && app.views.heads.kind == MapKind::kAttention) {  // roles read attention
      const std::string role_line = app.HeadRoleLine(s.model_layer, h);
      if (!role_line.empty()) {
        ImGui::TextWrapped("%s", role_line.c_str());
        dump.SetField("heads_role", JsonString(role_line));
        origin = ImGui::GetCursorScreenPos();
        avail = ImGui::GetContentRegionAvail();
        maps_avail.y = avail.y;  // the map fits below the line (sized before it, its last rows ran off the panel)
        dump.SetField("heads_enlarged_avail", JsonNumber(avail.y));
      }
    }
    int columns = 1;
    float cell = 1;
    ChooseGridWithCaptions(1, t, HeadCaption(t, h, "") + "  " + Tr(Str::kClickBackToGrid), maps_avail, &layout, gap,
                           &columns, &cell);
    MapDraw m;
    m.tensors = &t;
    m.head = h;
    m.key = HeatmapKey{MapView::kEnlarged, 0, h, 0};
    m.caption = HeadCaption(t, h, "") + "  " + Tr(Str::kClickBackToGrid);
    m.dump_name = "heads.enlarged";
    m.range = app.RangeFor({h});
    m.key_labels = m.query_labels = true;
    ImVec2 map_min(origin.x + layout.label_left, origin.y + layout.label_top);
    if (DrawMap(app, renderer, m, map_min, cell, layout)) s.enlarged = false, s.side_by_side = false;
    DrawColorbar(app, ImVec2(map_min.x + (float)t.n_k() * cell + gap, map_min.y), (float)t.n_q() * cell, m.range,
                 t.mask.HidesAny(t.n_q(), t.n_k()));
  } else {
    int h = s.selected_head;
    if (!result.has_twin) {
      ImGui::TextUnformatted(Tr(Str::kComputingOtherScaling));
    } else {
      const AttentionTensors* scaled = t.scaled ? &t : &result.twin;
      const AttentionTensors* unscaled = t.scaled ? &result.twin : &t;
      int columns = 1;
      float cell = 1;
      ChooseGridWithCaptions(2, t, HeadCaption(t, h, "unscaled: "), maps_avail, &layout, gap, &columns, &cell);
      if (columns != 2) {  // side by side, always
        float w = (maps_avail.x - layout.label_left - gap) / 2.0f / (float)t.n_k();
        float hgt = (avail.y - layout.label_top - layout.caption - gap) / (float)t.n_q();
        cell = std::max(0.5f, std::min(w, hgt));
      }
      for (int side = 0; side < 2; ++side) {
        MapDraw m;
        m.tensors = side == 0 ? scaled : unscaled;
        m.head = h;
        m.twin = (m.tensors == &result.twin);
        m.key = HeatmapKey{side == 0 ? MapView::kScaledSide : MapView::kUnscaledSide, 0, h, m.twin ? 1 : 0};
        m.caption = HeadCaption(*m.tensors, h, side == 0 ? "\xC3\xB7\xE2\x88\x9A" "d_k: " : Tr(Str::kUnscaledPrefix));
        m.dump_name = side == 0 ? "heads.scaled" : "heads.unscaled";
        m.range = app.RangeFor({h}, m.twin);
        m.key_labels = true;
        m.query_labels = side == 0;
        ImVec2 map_min(origin.x + layout.label_left + (float)side * ((float)t.n_k() * cell + gap),
                       origin.y + layout.label_top);
        DrawMap(app, renderer, m, map_min, cell, layout);
        // One colorbar for both: each side's range is drawn with it when the range is fixed.
        if (side == 1)
          DrawColorbar(app, ImVec2(map_min.x + (float)t.n_k() * cell + gap, map_min.y), (float)t.n_q() * cell,
                       m.range, t.mask.HidesAny(t.n_q(), t.n_k()));
      }
    }
  }
  ImGui::End();
}

}  // namespace attnviz
