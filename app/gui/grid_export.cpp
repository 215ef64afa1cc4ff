#include "grid_export.h"

#include <algorithm>
#include <cmath>

#include "i18n/localized.h"
#include "io/file_io.h"
#include "io/json.h"
#include "signed_grid.h"  // ExactNumber
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

std::string TokenText(const ModelFolder& folder, int id) {
  const std::optional<std::string> text = folder.tokenizer->IdToDisplay(id);
  return text ? ShownText(*text) : "#" + std::to_string(id);
}

// A CSV field: quoted when it holds a comma, a quote or a line break (a token can).
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string ModelName(const std::string& dir) {
  std::string name = dir.substr(dir.find_last_of('/') + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".gguf") == 0) name.resize(name.size() - 5);
  return name.empty() ? "model" : name;
}

std::string GridsCsv(const std::vector<ExportGrid>& grids) {
  std::string out;
  for (size_t k = 0; k < grids.size(); ++k) {
    const ExportGrid& g = grids[k];
    if (k) out += "\n";
    out += CsvField(g.corner);
    for (const std::string& c : g.col_labels) out += "," + CsvField(c);
    out += "\n";
    for (int r = 0; r < g.rows; ++r) {
      out += CsvField(r < (int)g.row_labels.size() ? g.row_labels[(size_t)r] : std::to_string(r));
      for (int c = 0; c < g.cols; ++c) {
        const double v = g.values[(size_t)r * g.cols + c];
        out += "," + (std::isnan(v) ? std::string() : ExactNumber(v));
      }
      out += "\n";
    }
  }
  return out;
}

ExportGrid LensExportGrid(const std::vector<model::LensLayer>& layers, std::vector<std::string> col_labels,
                          const std::string& model) {
  ExportGrid g;
  g.rows = (int)layers.size(), g.cols = (int)col_labels.size();
  g.corner = "layer";
  g.col_labels = std::move(col_labels);
  for (const model::LensLayer& layer : layers) {
    g.row_labels.push_back(layer.layer == 0 ? "emb" : "L" + std::to_string(layer.layer));
    for (int c = 0; c < g.cols; ++c) {
      double v = std::nan("");
      if (c < (int)layer.positions.size()) {
        const model::LensPosition& p = layer.positions[(size_t)c];
        v = p.has_next ? p.next_prob : p.top.empty() ? 0.0 : p.top[0].prob;
      }
      g.values.push_back(v);
    }
  }
  g.row_axis = Tr(Str::kLayer), g.col_axis = Tr(Str::kAttribPosition), g.value_axis = Tr(Str::kLensLegend);
  g.title = Trf(Str::kGridTitleLens, {model});
  return g;
}

std::vector<ExportGrid> OverviewGrids(PanelContext& ctx, int* figure_grid, UiMessage* refusal) {
  *figure_grid = 0;
  if (ctx.results.seq2seq_mode(ctx.settings)) return Seq2SeqOverviewGrids(ctx, figure_grid, refusal);
  using View = OverviewPanelView::View;
  const View view = ctx.views.overview.view;
  const std::shared_ptr<const ModelResult>& result = ctx.results.model;
  const Str name = view == View::kLens ? Str::kOverviewShowLens
                   : view == View::kAttribution ? Str::kOverviewShowAttribution
                                                : Str::kOverviewShowPatching;
  std::vector<ExportGrid> grids;
  if (!result || !result->request.folder) {
    *refusal = UiMessage(Str::kExportNoGrid, {Tr(name)});
    return grids;
  }
  const ModelFolder& folder = *result->request.folder;
  const std::string model = ModelName(folder.dir);
  auto token_label = [&](int index, int id) { return std::to_string(index) + ":" + TokenText(folder, id); };
  if (view == View::kLens) {
    std::shared_ptr<const LensResult> lens = ctx.verbs.ShownLens();
    if (!lens || !lens->status.ok() || lens->layers.empty()) {
      *refusal = UiMessage(Str::kExportNoGrid, {Tr(name)});
      return grids;
    }
    std::vector<std::string> columns;
    for (int c = 0; c < lens->count; ++c)
      columns.push_back(token_label(lens->first + c, result->tokens[(size_t)(lens->first + c)].id));
    ExportGrid g = LensExportGrid(lens->layers, std::move(columns), model);
    grids.push_back(std::move(g));
  } else if (view == View::kAttribution) {
    std::shared_ptr<const AttributionResult> a = ctx.verbs.ShownAttribution();
    if (!a || !a->status.ok() || a->grid.n_layer == 0) {
      *refusal = UiMessage(Str::kExportNoGrid, {Tr(name)});
      return grids;
    }
    const AttributionGrid& ag = a->grid;
    ExportGrid g;
    g.rows = ag.n_layer, g.cols = ag.n_head + 1;
    g.corner = "layer";
    for (int h = 0; h < ag.n_head; ++h) g.col_labels.push_back("H" + std::to_string(h));
    g.col_labels.push_back("MLP");
    for (int l = 0; l < ag.n_layer; ++l) {
      g.row_labels.push_back("L" + std::to_string(l));
      for (int h = 0; h < ag.n_head; ++h) g.values.push_back(ag.Head(l, h));
      g.values.push_back(ag.mlp[(size_t)l]);
    }
    g.row_axis = Tr(Str::kLayer), g.col_axis = Tr(Str::kColHead), g.value_axis = Tr(Str::kAttribLegend);
    g.symmetric = true;
    ExportGrid parts;
    parts.rows = 1, parts.cols = 3;
    parts.corner = "part";
    parts.col_labels = {"embed", "attn_bias", "norm_bias"};
    parts.row_labels = {"value"};
    double attn_bias = 0;
    for (double b : ag.attn_bias) attn_bias += b;
    parts.values = {ag.embed, attn_bias, ag.norm_bias};
    parts.symmetric = true;
    g.title = parts.title = Trf(Str::kGridTitleAttribution, {model, TokenText(folder, a->attribution.target),
                                                             std::to_string(a->attribution.position)});
    grids.push_back(std::move(g));
    grids.push_back(std::move(parts));
  } else {
    std::shared_ptr<const PatchingResult> p = ctx.verbs.ShownPatching();
    if (!p || !p->status.ok() || p->patching.heads.empty()) {
      *refusal = UiMessage(Str::kExportNoGrid, {Tr(name)});
      return grids;
    }
    const model::Patching& pt = p->patching;
    ExportGrid heads;
    heads.rows = pt.n_layer, heads.cols = pt.n_head;
    heads.values = pt.heads;
    heads.corner = "layer";
    for (int l = 0; l < pt.n_layer; ++l) heads.row_labels.push_back("L" + std::to_string(l));
    for (int h = 0; h < pt.n_head; ++h) heads.col_labels.push_back("H" + std::to_string(h));
    const std::string a_text = TokenText(folder, p->request.token_a), b_text = TokenText(folder, p->request.token_b);
    heads.row_axis = Tr(Str::kLayer), heads.col_axis = Tr(Str::kColHead), heads.value_axis = Tr(Str::kPatchLegend);
    heads.title = Trf(Str::kGridTitlePatching, {model, a_text, b_text});
    heads.symmetric = true;
    grids.push_back(std::move(heads));
    if (!pt.residual.empty()) {
      ExportGrid res;
      res.rows = pt.n_layer + 1, res.cols = pt.n;
      res.values = pt.residual;
      res.corner = "layer";
      for (int l = 0; l <= pt.n_layer; ++l) res.row_labels.push_back("L" + std::to_string(l));
      auto tokens = TokenizeForModel(folder, p->request.corrupted_text);
      for (int i = 0; i < pt.n; ++i)
        res.col_labels.push_back(tokens && i < (int)tokens->size() ? token_label(i, (*tokens)[(size_t)i].id)
                                                                    : std::to_string(i));
      res.row_axis = Tr(Str::kLayer), res.col_axis = Tr(Str::kAttribPosition), res.value_axis = Tr(Str::kPatchLegend);
      res.title = Trf(Str::kGridTitlePatchingResidual, {model, a_text, b_text});
      res.symmetric = true;
      grids.push_back(std::move(res));
      if (ctx.views.overview.patching_figure == OverviewPanelView::PatchingFigure::kResidual) *figure_grid = 1;
    }
  }
  return grids;
}

#ifdef ATTNVIZ_HAVE_FIGURE
Status ExportGrids(const std::vector<ExportGrid>& grids, const HeatmapExportOptions& o, int figure_grid) {
  Result<std::string> format = ResolveExportFormat(o);
  if (!format) return format.status();
  if (grids.empty()) return Status::Error(MsgId::kNoOutputFile, {});
  if (*format == "csv") return WriteFileAtomic(o.out_path, GridsCsv(grids));
  if (*format != "png" && *format != "svg" && *format != "pdf")
    return Status::Error(MsgId::kPlotUnknownExtension, {o.out_path, "." + *format});
  if (figure_grid < 0 || figure_grid >= (int)grids.size())
    return Status::Error(MsgId::kOutOfRange, {"figure grid", std::to_string(figure_grid), "0",
                                                   std::to_string(grids.size() - 1)});
  const ExportGrid& g = grids[(size_t)figure_grid];
  std::vector<float> cells(g.values.begin(), g.values.end());  // [1, rows, cols]
  HeatmapSpec spec;
  spec.probs = cells.data();
  spec.n_head = 1, spec.n_q = g.rows, spec.n_k = g.cols;
  spec.heads = {0};
  spec.query_labels = g.row_labels;
  spec.key_labels = g.col_labels;
  spec.title = o.title.empty() ? g.title : o.title;
  spec.words = o.words;
  spec.words.query = g.row_axis, spec.words.key = g.col_axis, spec.words.weight = g.value_axis;
  // Signed grids are blue below 0, white at 0 and red above, as the Overview draws them, whatever map the maps use.
  spec.colormap = g.symmetric ? Colormap::kBlueWhiteRed : o.colormap;
  if (g.symmetric) {
    double m = 0;
    for (double v : g.values) if (!std::isnan(v)) m = std::max(m, std::fabs(v));
    if (!(m > 0)) m = 1;
    spec.range = ColorRange{(float)-m, (float)m};
  } else {
    spec.range = ColorRange{(float)g.lo, (float)g.hi};
  }
  spec.dpi = o.dpi > 0 ? o.dpi : HeatmapSpec::kDefaultDpi;
  if (o.size.set()) {
    spec.physical = true;
    spec.width = (int)std::lround(o.size.width_in * spec.dpi);
    spec.height = (int)std::lround(o.size.height_in * spec.dpi);
  }
  spec.annotate = o.annotate;
  Result<std::string> bytes = RenderHeatmap(spec, *format);
  if (!bytes) return bytes.status();
  return WriteFileAtomic(o.out_path, *bytes);
}
#endif

}  // namespace attnviz
