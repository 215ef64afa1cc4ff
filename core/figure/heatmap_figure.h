// The heatmap figure: one head, or a grid of heads sharing one colorbar. The layout is computed once
// (LayoutHeatmap) and drawn through a Painter, so the PNG and the SVG share every position.
// Sizes are in points scaled by the DPI: at the default 96 dpi a 9 pt label is 12 px, at 300 dpi 37.5 px.
// Causal-masked cells (key after query) are grey with a diagonal hatch and a "masked" legend entry,
// never coloured as weight 0 and never annotated.
//
//            title
//          ┌──────────┐ ┌┐ 1.0
//   query  │  cells   │ ││ 0.5   weight
//   labels │          │ ││ 0.0
//          └──────────┘ └┘
//           key labels (rotated)
//               key
#pragma once
#include <string>
#include <vector>

#include "color/colormap.h"
#include "sandbox/config.h"
#include "figure/figure_words.h"
#include "figure/font.h"
#include "figure/painter.h"
#include "maps/axis_labels.h"
#include "base/status.h"

namespace attnviz {

struct HeatmapSpec {
  const float* probs = nullptr;    // [n_head, n_q, n_k], row-major
  int n_head = 0, n_q = 0, n_k = 0;
  std::vector<int> heads;  // heads to draw (one = a single map; several = a grid, each titled "head h")
  std::vector<std::string> panel_names;  // n_head or empty: the grid's titles by head index instead of "head h"
  std::vector<std::string> query_labels;  // n_q
  std::vector<std::string> key_labels;    // n_k
  // Which labels begin a word (maps/axis_labels.h WordStarts): a thinned axis names words there. Empty: every one.
  std::vector<bool> query_word_starts, key_word_starts;  // n_q, n_k
  std::string title;
  FigureWords words;
  Colormap colormap = Colormap::kViridis;
  ColorScale scale = ColorScale::kLinear;
  ColorRange range;         // weights mapped to the two ends of the colormap
  int cell_size = 0;        // > 0: pixels per cell
  int width = 0;            // > 0 (and cell_size == 0): the figure width in pixels
  int height = 0;           // > 0 (and cell_size == 0): the figure height in pixels (with width: fit both)
  float dpi = kDefaultDpi;  // pixels per inch: text, lines and gaps scale with it; written to PNG pHYs
  bool physical = false;    // a size in inches/cm was asked for: the SVG states it in inches
  bool annotate = false;    // weight printed in each cell when it fits
  Mask mask;                        // masked cells (a causal map's upper triangle, cells outside a window)
  bool cells_as_image = false;      // SVG: the cells as one embedded PNG (set for large maps by RenderHeatmap)
  float value(int head, int i, int j) const { return probs[((size_t)head * n_q + i) * n_k + j]; }
  bool masked(int i, int j) const { return mask.Masked(i, j, n_k); }
  bool any_masked() const { return mask.HidesAny(n_q, n_k); }
  static constexpr float kDefaultDpi = 96;
};

struct HeatmapPanel {
  int head = 0;
  RectF cells;              // the n_q x n_k cell area (integer pixel edges)
  bool row_labels = false;  // query labels drawn to the left
  bool col_labels = false;  // key labels drawn below
  RectF row_label_strip;    // where the query labels are (empty when !row_labels)
  RectF col_label_strip;    // where the key labels are (empty when !col_labels)
};

struct HeatmapLayout {
  int width = 0, height = 0;
  int cell = 0;             // pixels per cell
  float unit = 1;           // pixels per layout unit (dpi / 96): fonts, gaps and lines are multiples of it
  int grid_cols = 1, grid_rows = 1;
  int label_stride = 1;     // every label_stride-th token is labelled (1 = all)
  float title_font = 15, label_font = 12, axis_font = 12, tick_font = 11, panel_font = 12;
  float annotate_font = 0;  // 0 = cells too small to annotate (or not asked)
  int annotate_needs_cell = 0;  // annotate asked, cells too small: the smallest cell (pixels) the weights fit in
  std::vector<AxisLabel> row_labels, col_labels;  // the labels drawn (every label_stride-th token at most), shortened
  std::string title_text;                       // the title as drawn (shrunk or shortened to a given width)
  bool title_sets_width = false;  // the figure grew to its title: the title, not the maps, decides the width
  std::vector<HeatmapPanel> panels;
  RectF colorbar;
  RectF masked_swatch;      // the legend's "masked" sample (empty when nothing is masked)
  std::vector<float> colorbar_ticks;  // weights
  std::vector<std::string> colorbar_tick_text;
  float title_x = 0, title_y = 0;  // centre of the title line
  PointF query_axis, key_axis, colorbar_axis;  // anchors of the axis titles "query", "key", "weight"
  RectF CellRect(const HeatmapPanel& panel, int i, int j) const {
    return {panel.cells.x + (float)j * cell, panel.cells.y + (float)i * cell, (float)cell, (float)cell};
  }
};

// Errors: no heads, bad sizes, a width too small for the tokens.
Result<HeatmapLayout> LayoutHeatmap(const FontSet& fonts, const HeatmapSpec& spec);
void DrawHeatmap(const HeatmapSpec& spec, const HeatmapLayout& layout, Painter* painter);

// Colorbar ticks for a range, at most max_ticks: "nice" linear steps (1, 2, 2.5, 5 x 10^k); for the log
// scale decades (10^-4 ... 1), or 1-2-5 steps when the range spans less than two decades.
std::vector<float> ColorbarTicks(ColorScale scale, ColorRange range, int max_ticks = 6);
// Tick labels: enough decimals for the step; all-decade log ticks as 10⁻³ etc.
std::vector<std::string> FormatTicks(const std::vector<float>& ticks, ColorScale scale, ColorRange range);

// The colour a masked cell is filled with, and its hatch (neither is a colormap's low end).
constexpr Rgb kMaskedFill{205, 205, 205};
constexpr Rgb kMaskedHatch{150, 150, 150};
// The cells of one head as an RGB image, one pixel per cell ([n_q, n_k, 3]; masked cells kMaskedFill).
std::vector<unsigned char> CellImage(const HeatmapSpec& spec, int head);

// SVG: maps with more cells than this (all panels together) embed the cells as one PNG image;
// more than kMaxSvgCells (2^20: 1024 x 1024 tokens for one head) are refused, naming PNG and NPY.
constexpr long long kSvgImageAboveCells = 128LL * 128;
constexpr long long kMaxSvgCells = 1LL << 20;

// A PNG holds at most this many pixels (16384 x 16384).
constexpr long long kMaxPngPixels = 16384LL * 16384LL;

// The layout RenderHeatmap draws in `format` ("png", "svg", "pdf"), with its refusals: an SVG of more than
// kMaxSvgCells cells, a size too small for the cells (LayoutHeatmap), a PNG past kMaxPngPixels (or a title that
// widens it past them). Reads no weight (spec->probs only needs to be set), so a caller can check a figure before
// anything makes its weights. Sets spec->cells_as_image for a large SVG or PDF.
Result<HeatmapLayout> LayoutForFormat(const FontSet& fonts, HeatmapSpec* spec, const std::string& format);

// Renders the figure to PNG or SVG bytes (format "png" or "svg"). layout_out (may be null): the layout drawn.
Result<std::string> RenderHeatmap(const HeatmapSpec& spec, const std::string& format,
                                  HeatmapLayout* layout_out = nullptr);

}  // namespace attnviz
