#include "figure/heatmap_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "figure/canvas.h"
#include "figure/pdf.h"
#include "figure/svg.h"
#include "sandbox/text.h"

namespace attnviz {

namespace {

constexpr Rgb kInk{38, 38, 38};        // text, frame and ticks (matplotlib's near-black)
constexpr Rgb kTickColor{38, 38, 38};
constexpr float kMargin = 14;
constexpr float kTickLen = 4;
constexpr float kTickGap = 3;          // between a tick and its label
constexpr float kPanelGapX = 16, kPanelGapY = 12;
constexpr float kColorbarGap = 16, kColorbarWidth = 14;

float LineHeight(const FontSet& fonts, float size) { return fonts.Ascent(size) + fonts.Descent(size); }

std::string Superscript(int n) {
  static const char* digits[] = {"\u2070", "\u00B9", "\u00B2", "\u00B3", "\u2074",
                                 "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string out;
  if (n < 0) {
    out += "\u207B";
    n = -n;
  }
  std::string d = std::to_string(n);
  for (char c : d) out += digits[c - '0'];
  return out;
}

struct Grid {
  int cols = 1, rows = 1;
};
Grid GridFor(int n) {
  Grid g;
  if (n <= 3) g.cols = n;
  else if (n == 4) g.cols = 2;
  else g.cols = (int)std::ceil(std::sqrt(n * 1.5));
  g.cols = std::max(1, std::min(g.cols, n));
  g.rows = (n + g.cols - 1) / g.cols;
  return g;
}

// The font size of the weights printed in cells of `cell` pixels (u: pixels per layout unit), or 0 when "0.00" at
// a readable size (7 units or more) does not fit.
float AnnotateFont(const FontSet& fonts, int cell, float u) {
  const float f = std::min(12.0f * u, std::floor(cell * 0.34f));
  const float need = fonts.TextWidth("0.00", f) + 4 * u;
  return f >= 7 * u && need <= cell ? f : 0;
}

// The smallest cell (pixels) the weights are printed in.
int AnnotateMinCell(const FontSet& fonts, float u) {
  int cell = std::max(1, (int)std::floor(7 * u / 0.34f));
  while (cell < 100000 && AnnotateFont(fonts, cell, u) <= 0) ++cell;
  return cell;
}

// The layout for a given cell size; a figure smaller than min_width x min_height is grown to it
// (content centred). Every length but the cells is a layout unit times L.unit (dpi / 96).
HeatmapLayout LayoutWithCell(const FontSet& fonts, const HeatmapSpec& spec, int cell, float min_width,
                             float min_height, float shift_y = 0) {
  HeatmapLayout L;
  L.cell = cell;
  const float u = L.unit = spec.dpi / HeatmapSpec::kDefaultDpi;
  const float margin = kMargin * u, tick_len = kTickLen * u, tick_gap = kTickGap * u;
  const float gap_x = kPanelGapX * u, gap_y = kPanelGapY * u, bar_gap = kColorbarGap * u, bar_w = kColorbarWidth * u;
  L.title_font *= u;
  L.axis_font *= u;
  L.tick_font *= u;
  L.panel_font *= u;
  bool grid = spec.heads.size() > 1;
  Grid g = GridFor((int)spec.heads.size());
  L.grid_cols = g.cols;
  L.grid_rows = g.rows;
  L.label_font = u * std::min(12.0f, std::max(8.0f, std::floor(cell / u * 0.8f)));
  L.label_stride = std::max(1, (int)std::ceil(L.label_font * 1.2f / cell));
  float max_label = L.label_font * 9.5f;
  L.row_labels = ThinnedAxisLabels(spec.query_labels, spec.query_word_starts, 0, spec.n_q, L.label_stride);
  L.col_labels = ThinnedAxisLabels(spec.key_labels, spec.key_word_starts, 0, spec.n_k, L.label_stride);
  float row_w = 0, col_w = 0;
  for (AxisLabel& a : L.row_labels) {
    a.text = fonts.Ellipsize(a.text, L.label_font, max_label);
    row_w = std::max(row_w, fonts.TextWidth(a.text, L.label_font));
  }
  for (AxisLabel& a : L.col_labels) {
    a.text = fonts.Ellipsize(a.text, L.label_font, max_label);
    col_w = std::max(col_w, fonts.TextWidth(a.text, L.label_font));
  }
  float row_strip = std::ceil(row_w + tick_len + tick_gap);
  float col_strip = std::ceil(col_w + tick_len + tick_gap);
  float axis_h = std::ceil(LineHeight(fonts, L.axis_font));

  float panel_title_h = grid ? std::ceil(LineHeight(fonts, L.panel_font)) + 4 * u : 0;

  float cells_w = (float)spec.n_k * cell, cells_h = (float)spec.n_q * cell;
  // Colorbar ticks (as many as its height allows) and their label width.
  float bar_h = g.rows * cells_h + (g.rows - 1) * (panel_title_h + gap_y);
  int max_ticks = std::clamp((int)(bar_h / (L.tick_font * 1.8f)) + 1, 2, 6);
  L.colorbar_ticks = ColorbarTicks(spec.scale, spec.range, max_ticks);
  L.colorbar_tick_text = FormatTicks(L.colorbar_ticks, spec.scale, spec.range);
  float tick_w = 0;
  for (const std::string& text : L.colorbar_tick_text) tick_w = std::max(tick_w, fonts.TextWidth(text, L.tick_font));
  float bar_column = tick_len + tick_gap + std::ceil(tick_w) + 8 * u + axis_h;  // right of the colorbar
  // The "masked" legend entry sits under the colorbar: its swatch as wide as the bar, then the word.
  float masked_w = spec.any_masked() ? tick_gap + std::ceil(fonts.TextWidth(spec.words.masked, L.tick_font)) - bar_w / 2 : 0;
  bar_column = std::max(bar_column, masked_w);
  float content_w = axis_h + 6 * u + row_strip + g.cols * cells_w + (g.cols - 1) * gap_x + bar_gap + bar_w + bar_column;
  // A figure of a given width (--size, --width) shrinks a long title to fit (down to 7 pt), then
  // shortens it with "…"; otherwise the figure grows to the title.
  L.title_text = spec.title;
  float title_w = spec.title.empty() ? 0 : fonts.TextWidth(spec.title, L.title_font);
  const float title_room = spec.width > 0 ? spec.width - 2 * margin : 0;
  if (title_room > 0 && title_w > title_room) {
    // Glyph widths do not scale exactly with the size (rounding, hinting): step down until it fits.
    const float min_font = 7 * u * 96 / 72;
    L.title_font = std::max(min_font, L.title_font * title_room / title_w);
    while (L.title_font > min_font && fonts.TextWidth(spec.title, L.title_font) > title_room)
      L.title_font = std::max(min_font, L.title_font * 0.97f);
    L.title_text = fonts.Ellipsize(spec.title, L.title_font, title_room);
    title_w = fonts.TextWidth(L.title_text, L.title_font);
  }
  float width = std::max({content_w + 2 * margin, title_w + 2 * margin, min_width});
  L.title_sets_width = title_w + 2 * margin > std::max(content_w + 2 * margin, min_width);
  float x0 = std::floor(margin + (width - 2 * margin - content_w) / 2);

  float title_h = spec.title.empty() ? 0 : std::ceil(LineHeight(fonts, L.title_font));
  float y = margin + shift_y;
  if (title_h > 0) {
    L.title_y = y + title_h / 2;
    y += title_h + 10 * u;
  }
  float cells_x0 = x0 + axis_h + 6 * u + row_strip;
  float grid_top = y + panel_title_h;
  for (size_t p = 0; p < spec.heads.size(); ++p) {
    int r = (int)p / g.cols, c = (int)p % g.cols;
    HeatmapPanel panel;
    panel.head = spec.heads[p];
    float px = cells_x0 + c * (cells_w + gap_x);
    float py = y + panel_title_h + r * (panel_title_h + cells_h + gap_y);
    panel.cells = {std::round(px), std::round(py), cells_w, cells_h};
    panel.row_labels = c == 0;
    panel.col_labels = p + g.cols >= spec.heads.size();
    if (panel.row_labels) panel.row_label_strip = {panel.cells.x - row_strip, panel.cells.y, row_strip, cells_h};
    if (panel.col_labels) panel.col_label_strip = {panel.cells.x, panel.cells.bottom(), cells_w, col_strip};
    L.panels.push_back(panel);
  }
  float grid_bottom = grid_top + g.rows * cells_h + (g.rows - 1) * (panel_title_h + gap_y);
  float grid_right = cells_x0 + g.cols * cells_w + (g.cols - 1) * gap_x;
  L.colorbar = {std::round(grid_right + bar_gap), std::round(grid_top), bar_w,
                std::round(grid_bottom) - std::round(grid_top)};
  float below = std::max(col_strip + 4 * u + axis_h, 0.0f);
  if (spec.any_masked()) {
    float swatch_h = std::ceil(LineHeight(fonts, L.tick_font));
    L.masked_swatch = {L.colorbar.x, std::round(grid_bottom + 8 * u), bar_w, swatch_h};
    below = std::max(below, 8 * u + swatch_h);
  }
  float height = std::max(grid_bottom + below + margin, min_height);
  L.width = (int)std::ceil(width);
  L.height = (int)std::ceil(height);
  L.title_x = L.width / 2.0f;
  L.query_axis = {x0, (grid_top + grid_bottom) / 2};
  L.key_axis = {(cells_x0 + grid_right) / 2, grid_bottom + col_strip + 4 * u};
  L.colorbar_axis = {L.colorbar.right() + 1 + tick_len + tick_gap + std::ceil(tick_w) + 8 * u + axis_h,
                     (grid_top + grid_bottom) / 2};

  if (spec.annotate) {
    L.annotate_font = AnnotateFont(fonts, cell, u);
    if (L.annotate_font <= 0) L.annotate_needs_cell = AnnotateMinCell(fonts, u);
  }
  return L;
}

// Grows the layout to min_height by moving the content down by half the difference.
HeatmapLayout LayoutCentred(const FontSet& fonts, const HeatmapSpec& spec, int cell, float min_width,
                            float min_height) {
  HeatmapLayout L = LayoutWithCell(fonts, spec, cell, min_width, 0);
  if (min_height > L.height)
    L = LayoutWithCell(fonts, spec, cell, min_width, min_height, std::floor((min_height - L.height) / 2));
  return L;
}

}  // namespace

std::vector<float> ColorbarTicks(ColorScale scale, ColorRange range, int max_ticks) {
  max_ticks = std::max(2, max_ticks);
  std::vector<float> ticks;
  if (scale == ColorScale::kLog) {
    float lo = std::max(range.lo, kLogFloor), hi = std::max(range.hi, kLogFloor);
    if (!(hi > lo)) return {lo};
    const float eps = 1e-4f;
    int e0 = (int)std::ceil(std::log10(lo) - eps), e1 = (int)std::floor(std::log10(hi) + eps);
    int decades = e1 - e0 + 1;
    if (decades >= 3) {
      int stride = (decades + max_ticks - 1) / max_ticks;
      for (int e = e1; e >= e0; e -= stride) ticks.insert(ticks.begin(), std::pow(10.0f, (float)e));  // keep the top
      return ticks;
    }
    // Less than two decades: 1-2-5 steps (or 1-5 when that is too many).
    for (const std::vector<float>& mantissas : {std::vector<float>{1, 2, 5}, std::vector<float>{1, 5}}) {
      ticks.clear();
      for (int e = e0 - 1; e <= e1; ++e)
        for (float m : mantissas) {
          float v = m * std::pow(10.0f, (float)e);
          if (v >= lo * (1 - eps) && v <= hi * (1 + eps)) ticks.push_back(v);
        }
      if ((int)ticks.size() <= max_ticks && ticks.size() >= 2) return ticks;
    }
    if (ticks.size() < 2) return {lo, hi};
    return ticks;
  }
  float lo = range.lo, hi = range.hi;
  if (!(hi > lo)) return {lo};
  float span = hi - lo;
  for (int target = max_ticks - 1; target >= 1; --target) {
    float raw = span / target;
    float mag = std::pow(10.0f, std::floor(std::log10(raw)));
    float step = 10 * mag;
    for (float m : {1.0f, 2.0f, 2.5f, 5.0f, 10.0f})
      if (m * mag >= raw * 0.999f) {
        step = m * mag;
        break;
      }
    ticks.clear();
    float first = std::ceil(lo / step - 1e-4f) * step;
    for (int k = 0;; ++k) {
      float t = first + k * step;
      if (t > hi + step * 1e-4f) break;
      ticks.push_back(std::fabs(t) < step * 1e-6f ? 0.0f : t);
    }
    if ((int)ticks.size() <= max_ticks) break;
  }
  if (ticks.empty()) ticks = {lo, hi};
  return ticks;
}

std::vector<std::string> FormatTicks(const std::vector<float>& ticks, ColorScale scale, ColorRange range) {
  std::vector<std::string> out;
  char buf[32];
  if (scale == ColorScale::kLog) {
    bool all_decades = true;
    for (float v : ticks) {
      float e = std::log10(v);
      if (std::fabs(e - std::round(e)) > 1e-3f) all_decades = false;
    }
    for (float v : ticks) {
      int e = (int)std::lround(std::log10(v));
      if (all_decades) {
        out.push_back(e == 0 ? "1" : "10" + Superscript(e));
      } else {
        snprintf(buf, sizeof buf, "%.2g", v);
        out.push_back(buf);
      }
    }
    return out;
  }
  // Decimals: enough to tell neighbouring ticks apart.
  float step = ticks.size() > 1 ? ticks[1] - ticks[0] : std::max(std::fabs(range.hi - range.lo), 1e-6f);
  int decimals = 0;
  while (decimals < 6) {
    float scaled = step * std::pow(10.0f, (float)decimals);
    if (std::fabs(scaled - std::round(scaled)) < 1e-3f * std::max(1.0f, scaled) && std::round(scaled) >= 1) break;
    ++decimals;
  }
  // 0.0 .. 1.0 reads better with one decimal even for a whole-number step.
  if (decimals == 0 && range.hi - range.lo <= 1.0f) decimals = 1;
  for (float v : ticks) {
    snprintf(buf, sizeof buf, "%.*f", decimals, v);
    out.push_back(buf);
  }
  return out;
}

Result<HeatmapLayout> LayoutHeatmap(const FontSet& fonts, const HeatmapSpec& spec) {
  if (spec.heads.empty()) return Status::Error("heatmap: no heads to draw");
  if (spec.n_q <= 0 || spec.n_k <= 0 || !spec.probs) return Status::Error("heatmap: the attention map is empty");
  if ((int)spec.query_labels.size() != spec.n_q || (int)spec.key_labels.size() != spec.n_k)
    return Status::Error("heatmap: token labels do not match the map size");
  for (int h : spec.heads)
    if (h < 0 || h >= spec.n_head)
      return Status::Error("heatmap: head " + std::to_string(h) + " is out of range: allowed 0.." +
                           std::to_string(spec.n_head - 1));
  if (!(spec.dpi >= 10 && spec.dpi <= 2400))
    return Status::Error("heatmap: dpi " + std::to_string(spec.dpi) + " is out of range: allowed 10..2400");
  int n = std::max(spec.n_q, spec.n_k);
  if (spec.cell_size > 0) return LayoutWithCell(fonts, spec, spec.cell_size, 0, 0);
  if (spec.width > 0 || spec.height > 0) {
    // The largest cell that fits the width and the height; the figure is then grown to exactly that size.
    auto fits = [&](const HeatmapLayout& l) {
      return (spec.width <= 0 || l.width <= spec.width) && (spec.height <= 0 || l.height <= spec.height);
    };
    int best = 0;
    int lo = 1, hi = 400;
    while (lo <= hi) {
      int mid = (lo + hi) / 2;
      if (fits(LayoutWithCell(fonts, spec, mid, 0, 0))) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (best == 0) {
      HeatmapLayout need = LayoutWithCell(fonts, spec, 1, 0, 0);
      std::string asked = spec.width > 0 ? std::to_string(spec.width) : "any";
      asked += "x" + (spec.height > 0 ? std::to_string(spec.height) : std::string("any"));
      return Status::Error(MsgId::kFigureTooSmall, {asked, std::to_string((int)std::lround(spec.dpi)),
                                                    std::to_string(need.width), std::to_string(need.height)});
    }
    return LayoutCentred(fonts, spec, best, (float)spec.width, (float)spec.height);
  }
  int target = spec.heads.size() > 1 ? 240 : 440;
  int cell = std::clamp((int)std::lround((double)target / n), spec.heads.size() > 1 ? 3 : 4, 48);
  cell = std::max(1, (int)std::lround(cell * spec.dpi / HeatmapSpec::kDefaultDpi));
  return LayoutWithCell(fonts, spec, cell, 0, 0);
}

std::vector<unsigned char> CellImage(const HeatmapSpec& spec, int head) {
  std::vector<unsigned char> rgb((size_t)spec.n_q * spec.n_k * 3);
  for (int i = 0; i < spec.n_q; ++i)
    for (int j = 0; j < spec.n_k; ++j) {
      unsigned char* p = &rgb[((size_t)i * spec.n_k + j) * 3];
      if (spec.masked(i, j)) {
        p[0] = kMaskedFill.r, p[1] = kMaskedFill.g, p[2] = kMaskedFill.b;
      } else {
        MapColor(spec.colormap, NormalizeForColor(spec.value(head, i, j), spec.scale, spec.range), p);
      }
    }
  return rgb;
}

void DrawHeatmap(const HeatmapSpec& spec, const HeatmapLayout& L, Painter* painter) {
  bool grid = spec.heads.size() > 1;
  if (!spec.title.empty()) {
    TextStyle title{L.title_font, kInk, HAlign::kCenter, VAlign::kMiddle, 0};
    painter->Text(L.title_x, L.title_y, L.title_text, title);
  }
  TextStyle label{L.label_font, kInk, HAlign::kRight, VAlign::kMiddle, 0};
  TextStyle col_label{L.label_font, kInk, HAlign::kRight, VAlign::kMiddle, 90};
  const float u = L.unit, lw = std::max(1.0f, std::round(u)), tick_len = kTickLen * u, tick_gap = kTickGap * u;
  for (const HeatmapPanel& panel : L.panels) {
    painter->BeginGroup("cells-head-" + std::to_string(panel.head), true);
    if (spec.cells_as_image) {
      painter->Image(panel.cells, spec.n_k, spec.n_q, CellImage(spec, panel.head));
    } else {
      for (int i = 0; i < spec.n_q; ++i)
        for (int j = 0; j < spec.n_k; ++j) {
          unsigned char rgb[3];
          if (spec.masked(i, j)) rgb[0] = kMaskedFill.r, rgb[1] = kMaskedFill.g, rgb[2] = kMaskedFill.b;
          else MapColor(spec.colormap, NormalizeForColor(spec.value(panel.head, i, j), spec.scale, spec.range), rgb);
          painter->FillRect(L.CellRect(panel, i, j), Rgb{rgb[0], rgb[1], rgb[2]});
        }
    }
    painter->EndGroup();
    // The hatch: one diagonal per masked cell, where cells are large enough to show it.
    if (spec.any_masked() && L.cell >= 6 && !spec.cells_as_image) {
      painter->BeginGroup("masked-head-" + std::to_string(panel.head));
      for (int i = 0; i < spec.n_q; ++i)
        for (int j = 0; j < spec.n_k; ++j) {
          if (!spec.masked(i, j)) continue;  // after the diagonal, or before a sliding window
          RectF c = L.CellRect(panel, i, j);
          painter->Line({c.x + 1, c.bottom() - 1}, {c.right() - 1, c.y + 1}, kMaskedHatch, std::max(1.0f, u));
        }
      painter->EndGroup();
    }
    if (L.annotate_font > 0) {
      for (int i = 0; i < spec.n_q; ++i)
        for (int j = 0; j < spec.n_k; ++j) {
          if (spec.masked(i, j)) continue;  // a masked cell has no weight to print
          float w = spec.value(panel.head, i, j);
          unsigned char rgb[3];
          MapColor(spec.colormap, NormalizeForColor(w, spec.scale, spec.range), rgb);
          RectF cell = L.CellRect(panel, i, j);
          float lum = (0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2]) / 255.0f;
          char buf[16];
          snprintf(buf, sizeof buf, "%.2f", w);
          TextStyle t{L.annotate_font, lum > 0.5f ? kBlack : kWhite, HAlign::kCenter, VAlign::kMiddle, 0};
          painter->Text(cell.x + cell.w / 2, cell.y + cell.h / 2, buf, t);
        }
    }
    painter->StrokeRect({panel.cells.x - 0.5f * lw, panel.cells.y - 0.5f * lw, panel.cells.w + lw, panel.cells.h + lw}, kInk, lw);
    if (grid) {
      TextStyle pt{L.panel_font, kInk, HAlign::kCenter, VAlign::kBottom, 0};
      painter->Text(panel.cells.x + panel.cells.w / 2, panel.cells.y - 4 * u, 
                    spec.panel_names.empty() ? spec.words.head + std::to_string(panel.head)
                                             : spec.panel_names[(size_t)panel.head],
                    pt);
    }
    if (panel.row_labels) {
      for (const AxisLabel& a : L.row_labels) {
        const int i = a.index;
        float cy = panel.cells.y + (i + 0.5f) * L.cell;
        painter->Line({panel.cells.x - lw - tick_len, cy}, {panel.cells.x - lw, cy}, kTickColor, lw);
        painter->Text(panel.cells.x - lw - tick_len - tick_gap, cy, a.text, label);
      }
    }
    if (panel.col_labels) {
      for (const AxisLabel& a : L.col_labels) {
        const int j = a.index;
        float cx = panel.cells.x + (j + 0.5f) * L.cell;
        float y0 = panel.cells.bottom() + lw;
        painter->Line({cx, y0}, {cx, y0 + tick_len}, kTickColor, lw);
        painter->Text(cx, y0 + tick_len + tick_gap, a.text, col_label);
      }
    }
  }
  // Axis titles: "query" left of the first panel column, "key" under the bottom row.
  painter->Text(L.query_axis.x, L.query_axis.y, spec.words.query, TextStyle{L.axis_font, kInk, HAlign::kCenter, VAlign::kTop, 90});
  painter->Text(L.key_axis.x, L.key_axis.y, spec.words.key, TextStyle{L.axis_font, kInk, HAlign::kCenter, VAlign::kTop, 0});
  painter->Text(L.colorbar_axis.x, L.colorbar_axis.y, spec.scale == ColorScale::kLog ? spec.words.weight_log : spec.words.weight,
                TextStyle{L.axis_font, kInk, HAlign::kCenter, VAlign::kBottom, 90});

  // Colorbar with ticks.
  painter->Gradient(L.colorbar, spec.colormap, true);
  painter->StrokeRect({L.colorbar.x - 0.5f * lw, L.colorbar.y - 0.5f * lw, L.colorbar.w + lw, L.colorbar.h + lw}, kInk, lw);
  TextStyle tick{L.tick_font, kInk, HAlign::kLeft, VAlign::kMiddle, 0};
  for (size_t k = 0; k < L.colorbar_ticks.size(); ++k) {
    float t = NormalizeForColor(L.colorbar_ticks[k], spec.scale, spec.range);
    float y = L.colorbar.bottom() - t * L.colorbar.h;
    float x = L.colorbar.right() + lw;
    painter->Line({x, y}, {x + tick_len, y}, kTickColor, lw);
    painter->Text(x + tick_len + tick_gap, y, L.colorbar_tick_text[k], tick);
  }
  // The legend entry for masked cells: a hatched grey swatch and the word.
  if (L.masked_swatch.w > 0) {
    const RectF& m = L.masked_swatch;
    painter->FillRect(m, kMaskedFill);
    painter->Line({m.x + 1, m.bottom() - 1}, {m.right() - 1, m.y + 1}, kMaskedHatch, lw);
    painter->StrokeRect({m.x - 0.5f * lw, m.y - 0.5f * lw, m.w + lw, m.h + lw}, kInk, lw);
    painter->Text(m.right() + tick_gap, m.y + m.h / 2, spec.words.masked, tick);
  }
}

Result<HeatmapLayout> LayoutForFormat(const FontSet& fonts, HeatmapSpec* spec, const std::string& format) {
  const long long cells = (long long)spec->heads.size() * spec->n_q * spec->n_k;
  if (format == "svg" || format == "pdf") {
    // Large maps embed their cells as one image (a 1024-token head: 0.7 MB, not 65 MB of <rect>s); the
    // bound keeps an SVG a document a viewer opens (the image itself grows with the cells).
    if (format == "svg" && cells > kMaxSvgCells)
      return Status::Error(MsgId::kSvgTooManyCells, {std::to_string(cells), std::to_string(kMaxSvgCells)});
    spec->cells_as_image = cells > kSvgImageAboveCells;
  }
  Result<HeatmapLayout> layout = LayoutHeatmap(fonts, *spec);
  if (!layout.ok()) return layout.status();
  if (format == "png" && (long long)layout->width * layout->height > kMaxPngPixels) {
    // A smaller cell cannot help when the title is what makes the figure this wide.
    if (layout->title_sets_width)
      return Status::Error(MsgId::kTitleTooWide, {std::to_string(DecodeUtf8(spec->title).size()),
                                                  std::to_string(layout->width), std::to_string(layout->height)});
    return Status::Error(MsgId::kPngTooLarge, {std::to_string(layout->width), std::to_string(layout->height)});
  }
  return layout;
}

Result<std::string> RenderHeatmap(const HeatmapSpec& spec_in, const std::string& format, HeatmapLayout* layout_out) {
  Result<std::shared_ptr<const FontSet>> fonts = FontSet::Default();
  if (!fonts.ok()) return fonts.status();
  HeatmapSpec spec = spec_in;
  Result<HeatmapLayout> layout = LayoutForFormat(**fonts, &spec, format);
  if (!layout.ok()) return layout.status();
  if (layout_out) *layout_out = *layout;
  if (format == "svg") {
    SvgPainter svg(layout->width, layout->height, *fonts);
    if (spec.physical) svg.SetPhysicalSize(layout->width / spec.dpi, layout->height / spec.dpi);
    DrawHeatmap(spec, *layout, &svg);
    return svg.Finish();
  }
  if (format == "pdf") {
    PdfPainter pdf(layout->width, layout->height, spec.dpi, *fonts);
    pdf.SetTitle(spec.title);
    DrawHeatmap(spec, *layout, &pdf);
    return pdf.Finish();
  }
  if (format == "png") {
    Canvas canvas(layout->width, layout->height, *fonts);
    DrawHeatmap(spec, *layout, &canvas);
    return canvas.EncodePng(spec.dpi);
  }
  return Status::Error("heatmap figure format '" + format + "' is not supported: allowed png|svg|pdf");
}

}  // namespace attnviz
