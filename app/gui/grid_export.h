// The Overview's grids (the logit lens, the logit's attribution, activation patching) as files: CSV always, PNG,
// SVG and PDF through the heatmap figure the maps are exported with (core/figure/heatmap_figure.h: one panel, rows
// and columns named, a colour bar). Byte-stable: the same grid and options give the same bytes.
#pragma once
#include <string>
#include <vector>

#include "base/status.h"
#include "model/lens.h"
#include "panel_context.h"
#ifdef ATTNVIZ_HAVE_FIGURE
#include "figure/export.h"
#endif

namespace attnviz {

struct ExportGrid {
  int rows = 0, cols = 0;
  std::vector<double> values;  // [rows, cols]; NaN: not computed (an empty CSV cell)
  std::vector<std::string> row_labels, col_labels;  // [rows], [cols]
  std::string corner;                      // the CSV header's first cell ("layer")
  std::string row_axis, col_axis, value_axis;  // the figure's axis and colour bar titles (the UI's language)
  std::string title;                           // the figure's title when the options give none (the UI's language)
  bool symmetric = false;                  // colours over [-max|v|, +max|v|] (signed values); else [lo, hi]
  double lo = 0, hi = 1;
};

// One CSV: each grid a header line (corner, then the column labels) and a line per row (its label, then the
// values in the shortest form that reads back as the same double); grids apart by an empty line.
std::string GridsCsv(const std::vector<ExportGrid>& grids);

// The grids of the view the Overview shows (lens, attribution, patching) of the shown result; empty with `refusal`
// set when it has none yet. Each grid's title names the model and what it is of. *figure_grid: the grid a PNG,
// SVG or PDF draws (patching: the heads or the residual stream, as OverviewPanelView::patching_figure says; else 0).
std::vector<ExportGrid> OverviewGrids(PanelContext& ctx, int* figure_grid, UiMessage* refusal);
// The same of an encoder-decoder run (grid_export_seq2seq.cpp): the decoder's lens; the attribution's heads grid
// (decoder heads D, cross heads X, the MLP) and its parts; patching's five grids (the heads of each stack, the
// encoder's and the decoder's residual stream), whose figure draws the cross-attention heads or the encoder's stream.
std::vector<ExportGrid> Seq2SeqOverviewGrids(PanelContext& ctx, int* figure_grid, UiMessage* refusal);
// The logit lens as a grid: a row per layer read (0: "emb"), a column per position (col_labels), each cell p(the
// position's next token) where there is one, else its top token's probability; NaN where a layer has no cell.
ExportGrid LensExportGrid(const std::vector<model::LensLayer>& layers, std::vector<std::string> col_labels,
                          const std::string& model);
// A model folder's name in a title ("tiny", "gpt2" of gpt2.gguf).
std::string ModelName(const std::string& dir);

#ifdef ATTNVIZ_HAVE_FIGURE
// Writes `grids` to options.out_path as options.format says: csv (every grid), png, svg or pdf (grid `figure_grid`,
// with the options' size, dpi, annotate and title, else the grid's title; signed grids in blue-white-red, others
// in the options' colour map). Errors: another format, a figure_grid out of range, the figure's.
Status ExportGrids(const std::vector<ExportGrid>& grids, const HeatmapExportOptions& options, int figure_grid = 0);
#endif

}  // namespace attnviz
