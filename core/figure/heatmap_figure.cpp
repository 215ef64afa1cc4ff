#include "heatmap_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "canvas.h"
#include "svg.h"

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

// The layout for a given cell size; a figure narrower than min_width is widened to it (content centred).
HeatmapLayout LayoutWithCell(const FontSet& fonts, const HeatmapSpec& spec, int cell, float min_width) {
  HeatmapLayout L;
  L.cell = cell;
  bool grid = spec.heads.size() > 1;
  Grid g = GridFor((int)spec.heads.size());
  L.grid_cols = g.cols;
  L.grid_rows = g.rows;
  L.label_font = std::min(12.0f, std::max(8.0f, std::floor(cell * 0.8f)));
  L.label_stride = std::max(1, (int)std::ceil(L.label_font * 1.2f / cell));
  float max_label = L.label_font * 9.5f;
  L.row_text.clear();
  L.col_text.clear();
  float row_w = 0, col_w = 0;
  for (int i = 0; i < spec.n_q; ++i) {
    L.row_text.push_back(fonts.Ellipsize(spec.query_labels[i], L.label_font, max_label));
    if (i % L.label_stride == 0) row_w = std::max(row_w, fonts.TextWidth(L.row_text.back(), L.label_font));
  }
  for (int j = 0; j < spec.n_k; ++j) {
    L.col_text.push_back(fonts.Ellipsize(spec.key_labels[j], L.label_font, max_label));
    if (j % L.label_stride == 0) col_w = std::max(col_w, fonts.TextWidth(L.col_text.back(), L.label_font));
  }
  float row_strip = std::ceil(row_w + kTickLen + kTickGap);
  float col_strip = std::ceil(col_w + kTickLen + kTickGap);
  float axis_h = std::ceil(LineHeight(fonts, L.axis_font));
  float title_h = spec.title.empty() ? 0 : std::ceil(LineHeight(fonts, L.title_font));
  float panel_title_h = grid ? std::ceil(LineHeight(fonts, L.panel_font)) + 4 : 0;

  float cells_w = (float)spec.n_k * cell, cells_h = (float)spec.n_q * cell;
  // Colorbar ticks (as many as its height allows) and their label width.
  float bar_h = g.rows * cells_h + (g.rows - 1) * (panel_title_h + kPanelGapY);
  int max_ticks = std::clamp((int)(bar_h / (L.tick_font * 1.8f)) + 1, 2, 6);
  L.colorbar_ticks = ColorbarTicks(spec.scale, spec.range, max_ticks);
  L.colorbar_tick_text = FormatTicks(L.colorbar_ticks, spec.scale, spec.range);
  float tick_w = 0;
  for (const std::string& text : L.colorbar_tick_text) tick_w = std::max(tick_w, fonts.TextWidth(text, L.tick_font));
  float content_w = axis_h + 6 + row_strip + g.cols * cells_w + (g.cols - 1) * kPanelGapX + kColorbarGap +
                    kColorbarWidth + kTickLen + kTickGap + std::ceil(tick_w) + 8 + axis_h;
  float title_w = spec.title.empty() ? 0 : fonts.TextWidth(spec.title, L.title_font);
  float width = std::max({content_w + 2 * kMargin, title_w + 2 * kMargin, min_width});
  float x0 = std::floor(kMargin + (width - 2 * kMargin - content_w) / 2);

  float y = kMargin;
  if (title_h > 0) {
    L.title_y = y + title_h / 2;
    y += title_h + 10;
  }
  float cells_x0 = x0 + axis_h + 6 + row_strip;
  float grid_top = y + panel_title_h;
  for (size_t p = 0; p < spec.heads.size(); ++p) {
    int r = (int)p / g.cols, c = (int)p % g.cols;
    HeatmapPanel panel;
    panel.head = spec.heads[p];
    float px = cells_x0 + c * (cells_w + kPanelGapX);
    float py = y + panel_title_h + r * (panel_title_h + cells_h + kPanelGapY);
    panel.cells = {std::round(px), std::round(py), cells_w, cells_h};
    panel.row_labels = c == 0;
    panel.col_labels = p + g.cols >= spec.heads.size();
    if (panel.row_labels) panel.row_label_strip = {panel.cells.x - row_strip, panel.cells.y, row_strip, cells_h};
    if (panel.col_labels) panel.col_label_strip = {panel.cells.x, panel.cells.bottom(), cells_w, col_strip};
    L.panels.push_back(panel);
  }
  float grid_bottom = grid_top + g.rows * cells_h + (g.rows - 1) * (panel_title_h + kPanelGapY);
  float grid_right = cells_x0 + g.cols * cells_w + (g.cols - 1) * kPanelGapX;
  L.colorbar = {std::round(grid_right + kColorbarGap), std::round(grid_top), kColorbarWidth,
                std::round(grid_bottom) - std::round(grid_top)};
  float height = grid_bottom + col_strip + 4 + axis_h + kMargin;
  L.width = (int)std::ceil(width);
  L.height = (int)std::ceil(height);
  L.title_x = L.width / 2.0f;
  L.query_axis = {x0, (grid_top + grid_bottom) / 2};
  L.key_axis = {(cells_x0 + grid_right) / 2, grid_bottom + col_strip + 4};
  L.colorbar_axis = {L.colorbar.right() + 1 + kTickLen + kTickGap + std::ceil(tick_w) + 8 + axis_h,
                     (grid_top + grid_bottom) / 2};

  if (spec.annotate) {
    float f = std::min(12.0f, std::floor(cell * 0.34f));
    float need = fonts.TextWidth("0.00", f) + 4;
    if (f >= 7 && need <= cell) L.annotate_font = f;
  }
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
  int n = std::max(spec.n_q, spec.n_k);
  if (spec.cell_size > 0) return LayoutWithCell(fonts, spec, spec.cell_size, 0);
  if (spec.width > 0) {
    // The largest cell that fits the width; the figure is then widened to exactly `width`.
    int best = 0;
    int lo = 1, hi = 400;
    while (lo <= hi) {
      int mid = (lo + hi) / 2;
      if (LayoutWithCell(fonts, spec, mid, 0).width <= spec.width) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (best == 0) {
      int need = LayoutWithCell(fonts, spec, 1, 0).width;
      return Status::Error("--width " + std::to_string(spec.width) + " is too small for this figure: at least " +
                           std::to_string(need) + " pixels are needed");
    }
    return LayoutWithCell(fonts, spec, best, (float)spec.width);
  }
  int target = spec.heads.size() > 1 ? 240 : 440;
  int cell = std::clamp((int)std::lround((double)target / n), spec.heads.size() > 1 ? 3 : 4, 48);
  return LayoutWithCell(fonts, spec, cell, 0);
}

void DrawHeatmap(const HeatmapSpec& spec, const HeatmapLayout& L, Painter* painter) {
  bool grid = spec.heads.size() > 1;
  if (!spec.title.empty()) {
    TextStyle title{L.title_font, kInk, HAlign::kCenter, VAlign::kMiddle, 0};
    painter->Text(L.title_x, L.title_y, spec.title, title);
  }
  TextStyle label{L.label_font, kInk, HAlign::kRight, VAlign::kMiddle, 0};
  TextStyle col_label{L.label_font, kInk, HAlign::kRight, VAlign::kMiddle, 90};
  for (const HeatmapPanel& panel : L.panels) {
    painter->BeginGroup("cells-head-" + std::to_string(panel.head), true);
    for (int i = 0; i < spec.n_q; ++i)
      for (int j = 0; j < spec.n_k; ++j) {
        float w = spec.value(panel.head, i, j);
        unsigned char rgb[3];
        MapColor(spec.colormap, NormalizeForColor(w, spec.scale, spec.range), rgb);
        Rgb color{rgb[0], rgb[1], rgb[2]};
        RectF cell = L.CellRect(panel, i, j);
        painter->FillRect(cell, color);
      }
    painter->EndGroup();
    if (L.annotate_font > 0) {
      for (int i = 0; i < spec.n_q; ++i)
        for (int j = 0; j < spec.n_k; ++j) {
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
    painter->StrokeRect({panel.cells.x - 0.5f, panel.cells.y - 0.5f, panel.cells.w + 1, panel.cells.h + 1}, kInk, 1);
    if (grid) {
      TextStyle pt{L.panel_font, kInk, HAlign::kCenter, VAlign::kBottom, 0};
      painter->Text(panel.cells.x + panel.cells.w / 2, panel.cells.y - 4, "head " + std::to_string(panel.head), pt);
    }
    if (panel.row_labels) {
      for (int i = 0; i < spec.n_q; i += L.label_stride) {
        float cy = panel.cells.y + (i + 0.5f) * L.cell;
        painter->Line({panel.cells.x - 1 - kTickLen, cy}, {panel.cells.x - 1, cy}, kTickColor, 1);
        painter->Text(panel.cells.x - 1 - kTickLen - kTickGap, cy, L.row_text[i], label);
      }
    }
    if (panel.col_labels) {
      for (int j = 0; j < spec.n_k; j += L.label_stride) {
        float cx = panel.cells.x + (j + 0.5f) * L.cell;
        float y0 = panel.cells.bottom() + 1;
        painter->Line({cx, y0}, {cx, y0 + kTickLen}, kTickColor, 1);
        painter->Text(cx, y0 + kTickLen + kTickGap, L.col_text[j], col_label);
      }
    }
  }
  // Axis titles: "query" left of the first panel column, "key" under the bottom row.
  painter->Text(L.query_axis.x, L.query_axis.y, "query", TextStyle{L.axis_font, kInk, HAlign::kCenter, VAlign::kTop, 90});
  painter->Text(L.key_axis.x, L.key_axis.y, "key", TextStyle{L.axis_font, kInk, HAlign::kCenter, VAlign::kTop, 0});
  painter->Text(L.colorbar_axis.x, L.colorbar_axis.y, spec.scale == ColorScale::kLog ? "weight (log)" : "weight",
                TextStyle{L.axis_font, kInk, HAlign::kCenter, VAlign::kBottom, 90});

  // Colorbar with ticks.
  painter->Gradient(L.colorbar, spec.colormap, true);
  painter->StrokeRect({L.colorbar.x - 0.5f, L.colorbar.y - 0.5f, L.colorbar.w + 1, L.colorbar.h + 1}, kInk, 1);
  TextStyle tick{L.tick_font, kInk, HAlign::kLeft, VAlign::kMiddle, 0};
  for (size_t k = 0; k < L.colorbar_ticks.size(); ++k) {
    float t = NormalizeForColor(L.colorbar_ticks[k], spec.scale, spec.range);
    float y = L.colorbar.bottom() - t * L.colorbar.h;
    float x = L.colorbar.right() + 1;
    painter->Line({x, y}, {x + kTickLen, y}, kTickColor, 1);
    painter->Text(x + kTickLen + kTickGap, y, L.colorbar_tick_text[k], tick);
  }
}

Result<std::string> RenderHeatmap(const HeatmapSpec& spec, const std::string& format) {
  Result<std::shared_ptr<const FontSet>> fonts = FontSet::Default();
  if (!fonts.ok()) return fonts.status();
  Result<HeatmapLayout> layout = LayoutHeatmap(**fonts, spec);
  if (!layout.ok()) return layout.status();
  if (format == "svg") {
    // One <rect> per cell: beyond this an SVG runs to hundreds of MB (2048 tokens: 259 MB; 8192: out of memory).
    constexpr size_t kMaxSvgCells = size_t(1) << 20;
    const size_t cells = spec.heads.size() * (size_t)spec.n_q * (size_t)spec.n_k;
    if (cells > kMaxSvgCells)
      return Status::Error("an SVG of " + std::to_string(cells) + " cells (heads x queries x keys) is refused: at most " +
                           std::to_string(kMaxSvgCells) + " (e.g. 4 heads of 512 x 512 tokens); export PNG, or fewer heads or tokens");
    SvgPainter svg(layout->width, layout->height, *fonts);
    DrawHeatmap(spec, *layout, &svg);
    return svg.Finish();
  }
  if (format == "png") {
    constexpr long long kMaxPixels = 16384LL * 16384LL;
    if ((long long)layout->width * layout->height > kMaxPixels)
      return Status::Error("the figure would be " + std::to_string(layout->width) + "x" +
                           std::to_string(layout->height) + " pixels, more than 16384x16384: use a smaller --cell-size");
    Canvas canvas(layout->width, layout->height, *fonts);
    DrawHeatmap(spec, *layout, &canvas);
    return canvas.EncodePng();
  }
  return Status::Error("heatmap figure format '" + format + "' is not supported: allowed png|svg");
}

}  // namespace attnviz
