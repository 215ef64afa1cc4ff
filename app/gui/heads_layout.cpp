// The Heads panel's layout around its maps: the grid's cell size and the room the labels and captions take, token
// labels fitted to that room (ellipsized, upright), captions wrapped, and the colorbar beside the maps.
#include <imgui.h>
#include <imgui_internal.h>  // ImTextCharFromUtf8

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "heads_map.h"
#include "i18n/map_kind_words.h"
#include "io/json.h"
#include "panel_util.h"
#ifdef ATTNVIZ_HAVE_FIGURE
#include "figure/heatmap_figure.h"  // ColorbarTicks, FormatTicks: the exported figures' ticks
#endif

namespace attnviz {

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

// A vertical colorbar for `range` (low end at the bottom) with tick labels, and under it a grey
// "masked" swatch when the map has masked cells (causal, outside a window), as in exported figures.
void DrawColorbar(PanelContext& ctx, ImVec2 top_left, float height, ColorRange range, bool masked) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const AppSettings& s = ctx.settings;
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
  ctx.dump.RecordRect("heads.colorbar", top_left.x, top_left.y, bar_max.x, bottom, false, false,
                      "{\"ticks\": " + ticks_json + ", \"masked\": " + BoolJson(masked) + "}");
}

std::string HeadCaption(const LayerMaps& t, int head, const std::string& prefix) {
  return MapCaption(nullptr, t, head, prefix);
}

std::string MapCaption(const Shown* shown, const LayerMaps& t, int head, const std::string& prefix) {
  std::string caption = prefix;
  if (shown && shown->model) caption += Trf(Str::kCaptionLayer, {std::to_string(shown->layer)}) + " \xC2\xB7 ";
  // An encoder-decoder model's layer (app_seq2seq.cpp: neither a model run nor the sandbox): its stack named too.
  if (const LayerStack* st = shown && !shown->model && !shown->sandbox ? shown->shown_stack() : nullptr;
      st && st->kind != StackKind::kSelf) {
    const Str stack = st->kind == StackKind::kEncoder   ? Str::kSeq2SeqEncoderAttention
                      : st->kind == StackKind::kDecoder ? Str::kSeq2SeqDecoderAttention
                                                        : Str::kSeq2SeqCrossAttention;
    caption += std::string(Tr(stack)) + " \xC2\xB7 " + Trf(Str::kCaptionLayer, {std::to_string(shown->layer)}) + " \xC2\xB7 ";
  }
  if (shown && KindInfo(shown->kind).shows.one_map) return caption + Tr(WordsOf(shown->kind).label);  // no head
  caption += Trf(Str::kCaptionHead, {std::to_string(head)});
  if (head < (int)t.metrics.size()) {
    const HeadMetrics& m = t.metrics[(size_t)head];
    caption += std::string("  ") + Tr(Str::kCaptionMax) + " " + FormatNumber(m.max_weight, "%.2f") + "  H " + FormatNumber(m.norm_entropy, "%.2f") +
               "  \xE2\x88\x87 " + FormatNumber(m.grad_norm, "%.2f");
  }
  return caption;
}

namespace {

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

}  // namespace

// ChooseGrid, then room for as many caption lines as the maps' width needs (cells shrink a little
// so that the H and gradient figures wrap instead of being dropped).
void ChooseGridWithCaptions(int count, const LayerMaps& t, const std::string& caption, ImVec2 avail,
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

MapLayout LayoutFor(const LayerMaps& t) {
  MapLayout layout;
  float line = ImGui::GetTextLineHeight();
  layout.caption = line + 4.0f;
  float widest_q = 0, widest_k = 0;
  for (const Token& tok : t.query_tokens) widest_q = std::max(widest_q, ImGui::CalcTextSize(tok.display.c_str()).x);
  for (const Token& tok : t.kv_tokens) widest_k = std::max(widest_k, ImGui::CalcTextSize(tok.display.c_str()).x);
  layout.label_left = std::min(widest_q, kLabelMax) + 8.0f;
  layout.label_top = std::min(widest_k, kLabelMax) + 6.0f;
  return layout;
}


}  // namespace attnviz
