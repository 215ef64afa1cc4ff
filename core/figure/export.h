// Figure and data export: the high-level API used by both attnviz-cli (export, sweep --plot) and
// the desktop app's Export panel. Every file is written with WriteFileAtomic (temp file in the same
// folder + rename), so a failure leaves no partial file behind.
//
// Formats (taken from the extension of out_path unless `format` is set):
//   png  heatmap figure, raster (stb_truetype text, DejaVu Sans + NanumGothic per glyph)
//   svg  the same layout as vector: cells as <rect>, labels as UTF-8 <text>
//   pdf  the same layout as one PDF 1.4 page (figure/pdf.h): vector cells, Helvetica text, byte-stable
//   csv  one row per query token, header = "index:token" per key, unique when tokens repeat
//        (query,0:the,1:cat,2:saw,3:the); all heads = blocks "head,query,..."
//   npy  float32 [n_q, n_k] for one head, [n_head, n_q, n_k] for all heads (or the chosen subset)
//   json tokens, config and weights
#pragma once
#include <string>
#include <vector>

#include "color/colormap.h"
#include "sandbox/config.h"
#include "figure/figure_names.h"
#include "figure/heatmap_figure.h"
#include "attention/metrics.h"
#include "sandbox/sweep.h"
#include "sandbox/pipeline.h"
#include "base/status.h"

namespace attnviz {

struct FigureSize {
  double width_in = 0, height_in = 0;  // 0 = automatic
  bool set() const { return width_in > 0 && height_in > 0; }
};

struct HeatmapExportOptions {
  std::string out_path;
  std::string format;      // "png" | "svg" | "pdf" | "csv" | "npy" | "json"; "" = from the extension of out_path
  int head = 0;            // the head drawn when !all_heads (0-based)
  bool all_heads = false;  // a grid of heads sharing one colorbar (or every head in csv/npy/json)
  std::vector<int> heads;  // with all_heads: an optional subset (e.g. the app's visible heads); empty = all
  std::vector<std::string> panel_names;  // with all_heads: each map's name by head index ("L1 H0" for a model's
                                         // stacked layers); empty = "head h"
  Colormap colormap = Colormap::kViridis;
  ColorScale color_scale = ColorScale::kLinear;
  bool auto_range = false;  // false: fixed [0, 1]; true: min..max of the heads drawn
  int cell_size = 0;        // pixels per cell; 0 = automatic (from width, or a default)
  int width = 0;            // total figure width in pixels; 0 = automatic. cell_size wins when both set
  float dpi = 0;            // pixels per inch (text in points scales with it; PNG pHYs); 0 = 96
  FigureSize size;          // a physical size (inches): the figure is exactly size x dpi pixels
  bool annotate = false;    // print the weight in each cell when cells are large enough (never in masked cells)
  std::string title;        // "" = automatic, e.g. "head 2 · d_k=512 · unscaled · T=1 · causal"
  FigureWords words;        // the axis, colorbar and legend words (English unless the caller's language is given)
};

// "0,2,5", "0-3,7", "all" (= every head) -> head indices in the order given, duplicates dropped; each
// checked against n_head (the error names the allowed range). n_head <= 0: syntax only.
Result<std::vector<int>> ParseHeadList(const std::string& text, int n_head);
// "3.3x3in", "8.4x7cm", "3.3in x 3in" -> inches; errors name the allowed form and range (0.5..40 in).
Result<FigureSize> ParseFigureSize(const std::string& text);
constexpr float kMinDpi = 10, kMaxDpi = 2400;

// The default file name: FigureFileStem ("attnviz-head2-dk16-scaled-causal") + "." + format; the heads
// part is "head<H>", or "heads" / "heads-0-2-5" for a subset.
std::string DefaultHeatmapFileName(const AttentionConfig& config, const HeatmapExportOptions& options,
                                   const std::string& format);

// "png" etc. from the options (format or extension), or an error naming the allowed formats.
Result<std::string> ResolveExportFormat(const HeatmapExportOptions& options);
// The default title: "head H · <Describe(config)> · <non-default settings>" or "<n> heads · ..."
// (FigureTitle: the mask and every non-default setting are named).
std::string DefaultHeatmapTitle(const AttentionConfig& config, const HeatmapExportOptions& options);

// `config`: the sandbox's knobs when the maps are a sandbox layer's (the default title and file name name them;
// the JSON export records them); null for a trained model's layer, whose title the caller gives (options.title;
// else "head H"). The maps carry their own mask and multiplier.
//
// The figure description ExportHeatmap draws for png/svg (it points into maps.probs, so the maps must outlive it).
// Checks the head range and that the maps are not empty. The app can use it with LayoutHeatmap to preview the
// exported figure.
Result<HeatmapSpec> MakeHeatmapSpec(const LayerMaps& maps, const AttentionConfig* config,
                                    const HeatmapExportOptions& options);
inline Result<HeatmapSpec> MakeHeatmapSpec(const LayerMaps& maps, const AttentionConfig& config,
                                           const HeatmapExportOptions& options) {
  return MakeHeatmapSpec(maps, &config, options);
}

// Whether ExportHeatmap would write the figure (png, svg, pdf; other formats: Ok) of maps [n_head, n_q, n_k] over
// these tokens under `mask` with these options (options.head, the title and words as they will be), checked from
// the sizes alone, before anything makes the weights: the same spec, layout and refusals (LayoutForFormat: the
// PNG's pixels, the SVG's cells, a --size too small for the cells). layout (may be null): the layout it would draw.
// !! The colour range is taken as fixed [0, 1]: an automatic range's tick labels may be a few pixels wider.
Status CheckHeatmapFigure(const TokenList& query_tokens, const TokenList& kv_tokens, const Mask& mask, int n_head,
                          const HeatmapExportOptions& options, HeatmapLayout* layout = nullptr);

// What a figure export did not do as asked, for the caller to tell (the file is written all the same).
struct ExportNotes {
  int cell = 0;                 // pixels per cell of the figure written (png/svg; 0: not a figure)
  int annotate_needs_cell = 0;  // > 0: annotate was asked but the cells were too small: the cell size that prints
                                // the weights
};

// Checks the options against the tensors (head range, empty tensors, format) and writes the file.
// Long inputs (tensors.pooled, no full map kept): the maps are recomputed exactly from q and k; .npy is
// streamed (any heads); other formats are refused above 2^24 cells, and `window` (may be null: the whole
// map) cuts the map to the query rows and keys shown, e.g. the app's zoomed-in view for a figure.
// notes (may be null): what the figure could not do as asked (cells too small for annotate).
Status ExportHeatmap(const LayerMaps& maps, const AttentionConfig* config, const HeatmapExportOptions& options,
                     const MapWindow* window = nullptr, ExportNotes* notes = nullptr);
inline Status ExportHeatmap(const LayerMaps& maps, const AttentionConfig& config, const HeatmapExportOptions& options,
                            const MapWindow* window = nullptr, ExportNotes* notes = nullptr) {
  return ExportHeatmap(maps, &config, options, window, notes);
}

// The saturation figure (PNG, SVG or PDF from the extension): mean max weight, normalized entropy and
// softmax-gradient size against d_k (log2 axis), scaled and unscaled lines, axis labels, legend.
// current_d_k > 0 draws a vertical marker at that d_k. words: the legend and axes (English by default; the caller
// names a score that is never divided by sqrt(d_k) there, and gives its language's words).
Status WriteSaturationPlot(const std::string& path, const std::vector<SweepPoint>& points, const std::string& title,
                           int current_d_k = 0, const SaturationWords& words = SaturationWords());

// The CSV header: "query,0:the,1:cat,..." ("head,query,..." with head). Keys are "index:token", so a
// notebook can index columns by name even when a token repeats.
std::string WeightsCsvHeader(const std::vector<std::string>& key_tokens, bool with_head_column);

}  // namespace attnviz
