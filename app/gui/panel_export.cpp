// Export: the current head, all visible heads, or the saturation plot, through the same code as
// attnviz-cli export (core/figure/export.h). Reports the path written, or the error.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "app.h"
#include "grid_export.h"
#include "io/file_io.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "model_figure.h"
#include "panel_util.h"
#include "widgets.h"
#ifdef ATTNVIZ_HAVE_FIGURE
#include "figure/export.h"
#endif

namespace attnviz {

namespace {

// The Overview's view other than its maps (the lens, the attribution, patching): the Overview target exports its grid.
bool OverviewShowsGrid(const PanelContext& ctx) {
  return ctx.settings.source == Source::kModel && ctx.views.overview.view != OverviewPanelView::View::kMaps;
}

// The Overview's grid view's name, as its radio button says it.
Str OverviewGridName(const PanelContext& ctx) {
  using View = OverviewPanelView::View;
  const View v = ctx.views.overview.view;
  return v == View::kLens ? Str::kOverviewShowLens
         : v == View::kAttribution ? Str::kOverviewShowAttribution : Str::kOverviewShowPatching;
}

// A model as its files name it: the folder's (or GGUF file's) name, "pythia-70m", never the family alone.
std::string ModelName(const std::string& dir) {
  std::string name = dir.substr(dir.find_last_of('/') + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".gguf") == 0) name.resize(name.size() - 5);
  return name.empty() ? "model" : name;
}

// A trained model's files: attnviz-<model folder name>-L<layer>-head<h>.<format>, ...-overview.<format>.
std::string ModelFileName(const PanelContext& ctx) {
  const AppSettings& s = ctx.settings;
  const std::string name = ModelName(s.model_dir);
  std::string base = "attnviz-" + name + "-";
  if (s.model_no_scale) base += "unscaled-";
  if (ctx.results.model && ctx.results.model->request.no_softcap) base += "uncapped-";  // as the run had them
  if (ctx.results.model && ctx.results.model->request.no_qk_norm) base += "no-qk-norm-";
  if (s.model_temperature != 1.0f) base += "T" + FormatNumber(s.model_temperature, "%g") + "-";
  if (s.model_hide_special) base += "nospecial-";
  if (KindInfo(ctx.views.heads.kind).shows.derived) base += std::string(MapKindName(ctx.views.heads.kind)) + "-";
  const std::string ext = std::string(".") + ToString(s.export_format);
  if (s.export_target == ExportTarget::kOverview && OverviewShowsGrid(ctx)) {
    using View = OverviewPanelView::View;
    const View v = ctx.views.overview.view;
    const bool residual = v == View::kPatching && s.export_format != ExportFormat::kCsv &&
                          ctx.views.overview.patching_figure == OverviewPanelView::PatchingFigure::kResidual;
    return base + (v == View::kLens ? "lens" : v == View::kAttribution ? "attribution"
                   : residual ? "patching-residual" : "patching") + ext;
  }
  if (s.export_target == ExportTarget::kOverview) return base + "overview" + ext;
  base += "L" + std::to_string(s.model_layer) + "-";
  if (s.export_target == ExportTarget::kVisibleHeads) return base + "heads" + ext;
  return base + "head" + std::to_string(s.selected_head) + ext;
}

std::string DefaultFileName(const PanelContext& ctx) {
  const AppSettings& s = ctx.settings;
  if (s.source == Source::kModel) return ModelFileName(ctx);
#ifdef ATTNVIZ_HAVE_FIGURE
  // The names attnviz-cli's titles use too: the mask and every non-default setting, so a causal and an
  // unmasked export (or two seeds) never overwrite each other.
  const AttentionConfig& c = s.config;
  const std::string format = ToString(s.export_format);
  switch (s.export_target) {
    case ExportTarget::kCurrentHead:
    case ExportTarget::kVisibleHeads: {
      HeatmapExportOptions o;
      o.head = s.selected_head;
      o.all_heads = s.export_target == ExportTarget::kVisibleHeads;
      if (o.all_heads && (int)ctx.VisibleHeads().size() < c.n_head) o.heads = ctx.VisibleHeads();
      return DefaultHeatmapFileName(c, o, format);
    }
    case ExportTarget::kSaturationPlot:
      return SweepFileStem(c) + "." + (s.export_format <= ExportFormat::kCsv ? format : "png");
    case ExportTarget::kOverview:
      break;
  }
#endif
  return "attnviz.png";
}

using CellNote = ExportPanelView::CellNote;

// A picture (PNG, SVG, PDF) rather than the numbers (CSV, NPY, JSON).
bool IsFigureFormat(ExportFormat f) { return f == ExportFormat::kPng || f == ExportFormat::kSvg || f == ExportFormat::kPdf; }

// The first of "name-2.ext", "name-3.ext", ... in the folder of `path` ("name.ext") that is not there. A name's own
// last "-N" is never counted on: "attnviz-heads-0-2-3.png" names heads 0, 2 and 3, and becomes
// "attnviz-heads-0-2-3-2.png", not the name of heads 0, 2 and 4.
std::string NextFreePath(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || dot <= name_at) dot = path.size();
  const std::string stem = path.substr(0, dot);
  const std::string ext = path.substr(dot);
  for (long long n = 2;; ++n) {
    const std::string candidate = stem + "-" + std::to_string(n) + ext;
    if (!PathExists(candidate) || n > 1000000) return candidate;
  }
}

// The settings a figure's note is for: it is shown only while they hold.
std::string NoteKey(const AppSettings& s, const std::string& file_name) {
  return s.export_dir + "|" + file_name + "|" + s.export_size + "|" + std::to_string(s.export_dpi) + "|" +
         std::to_string((int)s.export_target) + "|" + std::to_string(s.selected_head) + "|" +
         std::to_string(s.model_layer) + "|" + (s.export_annotate ? "a" : "");
}

#ifdef ATTNVIZ_HAVE_FIGURE
// What the figure written could not do as asked, kept for the panel (the job runs off the UI thread; the note is
// read once it is done).
void Keep(const ExportNotes& notes, CellNote* note) {
  note->cell = notes.cell;
  note->annotate_needs_cell = notes.annotate_needs_cell;
}

// The figure options the panel sets (title, size, dpi, annotate, colours), as attnviz-cli export's.
Result<HeatmapExportOptions> PanelOptions(const AppSettings& s, const std::string& path) {
  HeatmapExportOptions o;
  o.out_path = path;
  o.format = ToString(s.export_format);
  o.colormap = s.colormap;
  o.color_scale = s.color_scale;
  o.auto_range = s.auto_range;
  o.title = s.export_title;
  o.words = LocalizedFigureWords();  // axes and legend in the UI's language, as attnviz-cli --lang
  o.dpi = (float)s.export_dpi;
  o.annotate = s.export_annotate;
  if (!s.export_size.empty()) {
    Result<FigureSize> size = ParseFigureSize(s.export_size);
    if (!size) return size.status();
    o.size = *size;
  }
  return o;
}
#endif

#ifdef ATTNVIZ_HAVE_FIGURE
// A trained model's current head, or its visible heads, of the layer the Heads panel shows (its maps, with the
// special tokens left out when they are hidden there): the figure `attnviz-cli model --figure --layer L --head H`
// writes (MakeModelHeadFigure, app/common/model_figure.h), its title naming the model, the layer, the mask and the
// what-ifs.
std::function<Status()> ModelHeadsJob(PanelContext& ctx, HeatmapExportOptions o, MapKind kind,
                                      std::shared_ptr<CellNote> note, UiMessage* refusal) {
  const AppSettings& s = ctx.settings;
  std::shared_ptr<const Shown> shown = ctx.shown;
  std::shared_ptr<const ModelResult> model = shown ? shown->model : nullptr;
  if (!model || !shown->maps || model->n_layer() == 0) {
    *refusal = UiMessage(Str::kExportNothingComputed);
    return nullptr;
  }
  const int layer = shown->layer;
  const int n = (int)model->tokens.size();
  LayerMaps maps = *shown->maps;  // shares the tensors
  int pooled_factor = 1;
  const KindShows& shows = KindInfo(kind).shows;
  if (!shows.exact_from_qk && maps.pooled) {  // a pooled rollout: its cells, [1, nb, nb]
    maps = PooledRolloutBlocks(*model, layer);
    pooled_factor = model->analysis[(size_t)layer] ? model->analysis[(size_t)layer]->rollout_factor : 1;
  } else if (maps.pooled && (maps.q->empty() || (shows.needs_pyramid && maps.col_scale->empty()))) {
    // A long input's layer keeps no whole map: its cells come from q and k (and the value norms), still being made.
    *refusal = UiMessage(Str::kExportExactRowsPending, {std::to_string(layer)});
    return nullptr;
  }
  std::vector<int> heads = {shows.one_map ? 0 : s.selected_head};  // a rollout is one map
  if (s.export_target == ExportTarget::kVisibleHeads && !shows.one_map) {
    heads = ctx.VisibleHeads();
    if (heads.empty()) {
      *refusal = UiMessage(Str::kExportEveryHeadHidden);
      return nullptr;
    }
  }
  const model::ModelConfig& c = model->request.folder->model->config();
  const ModelWhatIfs what_ifs = model->request.what_ifs();
  Result<ModelHeadFigure> figure = MakeModelHeadFigure(c, maps, n, layer, heads[0], what_ifs, kind, pooled_factor);
  if (!figure) return [st = figure.status()] { return st; };
  if (s.export_target == ExportTarget::kVisibleHeads && !shows.one_map) {
    o.all_heads = true;
    o.heads = heads;
    figure->title = ModelFigureTitle(
        c, n, layer, ModelFigureHeads(kind, std::to_string(heads.size()) + (heads.size() == 1 ? " head" : " heads")),
        what_ifs, !figure->maps.pooled && figure->maps.n_q() < n);
  } else {
    o.head = figure->head;
  }
  // A long input's figure (PNG, SVG) of the current head is of the window the Heads panel shows, as the sandbox's;
  // the title says which.
  std::shared_ptr<const MapWindow> window;
  if (figure->maps.pooled && s.export_target == ExportTarget::kCurrentHead &&
      IsFigureFormat(s.export_format)) {
    window = std::make_shared<MapWindow>(ctx.views.heads.ShownWindow(o.head, figure->maps.n_q(), figure->maps.n_k()));
    figure->title += kTitleDot + std::string("queries ") + std::to_string(window->r0) + "-" +
                     std::to_string(window->r1 - 1) + ", keys " + std::to_string(window->c0) + "-" +
                     std::to_string(window->c1 - 1);
  }
  if (o.title.empty()) o.title = LocalizedTitle(figure->title);  // in the UI's language, as attnviz-cli --lang
  return [head_figure = std::move(*figure), o, window, note] {
    ExportNotes notes;
    Status st = ExportHeatmap(head_figure.maps, nullptr, o, window.get(), &notes);
    Keep(notes, note.get());
    return st;
  };
}
#endif

// Builds the export job on the UI thread (what to write, from which immutable result) and returns
// it to run on a background thread: a large figure can take longer than a frame. Nothing to export: no job, and
// `refusal` says why.
std::function<Status()> MakeExportJob(PanelContext& ctx, const std::string& path, std::shared_ptr<CellNote> note,
                                      UiMessage* refusal) {
#ifdef ATTNVIZ_HAVE_FIGURE
  const AppSettings& s = ctx.settings;
  if (s.export_target == ExportTarget::kSaturationPlot) {
    std::shared_ptr<const SweepResult> sweep = ctx.results.sweep;
    if (!sweep) {
      *refusal = UiMessage(Str::kExportSweepBusy);
      return nullptr;
    }
    const int d_k = ctx.QueryKeyWidth();  // the width q and k really have, as the Saturation panel marks it
    if (s.export_format == ExportFormat::kCsv)
      return [sweep, path] { return WriteFileAtomic(path, SweepToCsv(sweep->points)); };
    // attnviz-cli sweep --plot's title (SweepTitle), so the same settings give the same figure.
    std::string title = s.export_title.empty() && ctx.shown && ctx.shown->maps
                            ? LocalizedTitle(SweepTitle(sweep->request.base, ctx.shown->maps->n_k()))
                            : s.export_title;
    // The legend names the sweep's score (one line when it is never divided by sqrt(d_k)); the words in the UI's
    // language, as attnviz-cli --lang (made here: the job runs off the UI thread).
    const SaturationWords words = LocalizedSaturationWords(sweep->request.base.score);
    return [sweep, path, d_k, title, words] { return WriteSaturationPlot(path, sweep->points, title, d_k, words); };
  }
  Result<HeatmapExportOptions> options = PanelOptions(s, path);
  if (!options) return [st = options.status()] { return st; };
  HeatmapExportOptions o = *options;
  // The Overview's lens, attribution or patching grid, when it shows one instead of its maps.
  if (s.export_target == ExportTarget::kOverview && OverviewShowsGrid(ctx)) {
    if (s.export_format == ExportFormat::kNpy || s.export_format == ExportFormat::kJson) {
      *refusal = UiMessage(Str::kExportGridFormats, {Tr(OverviewGridName(ctx))});
      return nullptr;
    }
    int figure_grid = 0;
    std::vector<ExportGrid> grids = OverviewGrids(ctx, &figure_grid, refusal);
    if (grids.empty()) return nullptr;
    return [grids = std::move(grids), o, figure_grid] { return ExportGrids(grids, o, figure_grid); };
  }
  // The map kind the Heads panel shows (model_analysis.h), or why this run has none.
  const MapKind kind = ctx.views.heads.kind;
  if (KindHasOwnRange(s.source == Source::kModel, kind)) o.auto_range = true;  // as the Heads panel draws it
  if (s.source == Source::kModel && ctx.results.model) {
    if (UiMessage why = MapKindRefusal(*ctx.results.model, kind); !why.empty()) {
      *refusal = why;
      return nullptr;
    }
  }
  if (s.export_target == ExportTarget::kOverview) {  // every layer x head of the model, one figure
    std::shared_ptr<const ModelResult> model = ctx.results.model;
    if (!model || ctx.settings.source != Source::kModel || !model->complete()) {  // every layer, once all are done
      *refusal = UiMessage(Str::kExportNoModelResult);
      return nullptr;
    }
    if (model->streamed) {
      *refusal = UiMessage(Str::kExportOverviewStreamed, {std::to_string(model->tokens.size())});
      return nullptr;
    }
    o.all_heads = true;
    const model::ModelConfig& c = model->request.folder->model->config();
    // The maps are the layers' heads stacked: each panel is named by its layer and head, the title by the model's
    // folder (its name, e.g. "pythia-70m") and family.
    for (int l = 0; l < c.n_layer; ++l)
      for (int h = 0; h < c.n_head; ++h) o.panel_names.push_back(Trf(Str::kExportPanelLayerHead, {std::to_string(l), std::to_string(h)}));
    if (o.title.empty())
      o.title = Trf(Str::kExportOverviewTitle, {ModelName(model->request.folder->dir), c.model_type, std::to_string(c.n_layer),
                                                std::to_string(c.n_head)});
    const bool hide = s.model_hide_special;
    return [model, o, hide, kind, note] {
      ExportNotes notes;
      Status st = ExportHeatmap(StackedHeads(KindStack(*model, kind, hide)), nullptr, o, nullptr, &notes);
      Keep(notes, note.get());
      return st;
    };
  }
  if (s.source == Source::kModel) return ModelHeadsJob(ctx, o, kind, note, refusal);
  std::shared_ptr<const SandboxExtras> result = ctx.shown ? ctx.shown->sandbox : nullptr;
  if (!result) {
    *refusal = UiMessage(Str::kExportNothingComputed);
    return nullptr;
  }
  // A long input keeps no full map: a figure of the current head is of the window the Heads panel shows.
  std::shared_ptr<const MapWindow> window;
  if (s.export_target == ExportTarget::kCurrentHead) {
    o.head = s.selected_head;
    const AttentionTensors& t = *result->numbers;
    if (t.pooled && IsFigureFormat(s.export_format))
      window = std::make_shared<MapWindow>(ctx.views.heads.ShownWindow(o.head, t.n_q(), t.n_k()));
  } else {
    o.all_heads = true;
    o.heads = ctx.VisibleHeads();
    if (o.heads.empty()) {
      *refusal = UiMessage(Str::kExportEveryHeadHidden);
      return nullptr;
    }
  }
  // The automatic title in the UI's language, as attnviz-cli --lang writes it (a long input's window keeps
  // the engine's title, which names the window).
  if (o.title.empty() && !window) o.title = LocalizedTitle(DefaultHeatmapTitle(result->config, o));
  return [result, o, window, note] {
    ExportNotes notes;
    Status st = ExportHeatmap(*result->numbers, result->config, o, window.get(), &notes);
    Keep(notes, note.get());
    return st;
  };
#else
  (void)ctx;
  (void)path;
  (void)note;
  *refusal = UiMessage(Str::kExportNoFigureLibrary);
  return nullptr;
#endif
}

}  // namespace

void DrawExportPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.719f, 0.65f, 0.281f, 0.35f);
  if (!ImGui::Begin(WindowTitle(Str::kWinExport, "Export").c_str())) {
    ImGui::End();
    return;
  }
  AppSettings& s = ctx.settings;
  WidgetDump& dump = ctx.dump;
  std::string& file_name = ctx.views.export_panel.file_name;
  std::string& last_default = ctx.views.export_panel.last_default;
  std::string now_default = DefaultFileName(ctx);
  if (file_name.empty() || file_name == last_default) file_name = now_default;  // follow until edited
  last_default = now_default;

  // The third choice: the sandbox's saturation plot, or a model's overview (every layer x head).
  const bool model = s.source == Source::kModel;
  const ExportTarget third = model ? ExportTarget::kOverview : ExportTarget::kSaturationPlot;
  if (s.export_target == (model ? ExportTarget::kSaturationPlot : ExportTarget::kOverview)) s.export_target = third;
  struct Target {
    ExportTarget target;
    const char* name;
    Str label;
  };
  const Target targets[] = {{ExportTarget::kCurrentHead, "head", Str::kExportHead},
                            {ExportTarget::kVisibleHeads, "heads", Str::kExportHeads},
                            {third, model ? "overview" : "saturation",
                             model ? Str::kExportOverview : Str::kExportSaturation}};
  for (int i = 0; i < 3; ++i) {
    if (i) ImGui::SameLine();
    const std::string name = std::string("export.target_") + targets[i].name;
    int target = (int)s.export_target;
    if (widget::RadioButton(dump, targets[i].label, name.c_str(), &target, (int)targets[i].target))
      s.export_target = (ExportTarget)target;
  }
  bool plot = s.export_target == ExportTarget::kSaturationPlot;
  for (int f = 0; f <= (int)ExportFormat::kJson; ++f) {
    if (plot && f > (int)ExportFormat::kCsv) break;
    if (f) ImGui::SameLine();
    if (ImGui::RadioButton(ToString((ExportFormat)f), (int)s.export_format == f)) s.export_format = (ExportFormat)f;
    dump.RecordItem(std::string("export.format_") + ToString((ExportFormat)f), BoolJson((int)s.export_format == f));
  }
  if (plot && s.export_format > ExportFormat::kCsv) s.export_format = ExportFormat::kPng;

  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.72f);
  std::string& default_dir = ctx.views.export_panel.default_dir;
  if (default_dir.empty()) default_dir = DefaultExportDir();
  widget::InputTextWithHint(dump, Str::kFolder, "export.folder", default_dir.c_str(), &s.export_dir);
  widget::InputText(dump, Str::kFile, "export.file", &file_name);
  // Figure options, as attnviz-cli export's --title, --size, --dpi and --annotate.
  const bool figure = IsFigureFormat(s.export_format);
  if (figure) {
    widget::InputTextWithHint(dump, Str::kExportTitle, "export.title", Tr(Str::kExportTitleHint), &s.export_title);
    if (!plot) {  // one row: size, dpi, annotate
      const float unit = ImGui::GetFontSize();
      ImGui::SetNextItemWidth(unit * 6.5f);
      widget::InputTextWithHint(dump, Str::kExportSize, "export.size", "3.3x3in", &s.export_size);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kExportSizeTip));
      ImGui::SameLine();
      ImGui::SetNextItemWidth(unit * 3.2f);
      if (widget::InputInt(dump, Str::kExportDpi, "export.dpi", &s.export_dpi))
        s.export_dpi = std::clamp(s.export_dpi, 10, 2400);
      ImGui::SameLine();
      widget::Checkbox(dump, Str::kExportAnnotate, "export.annotate", &s.export_annotate);
      // The last figure of these settings had cells too small for the numbers: say so, with the size they need.
      const CellNote& note = ctx.views.export_panel.note;
      std::string too_small;
      if (s.export_annotate && note.annotate_needs_cell > 0 && note.key == NoteKey(s, file_name)) {
        too_small = Trf(Str::kExportAnnotateTooSmall,
                        {std::to_string(note.cell), std::to_string(note.annotate_needs_cell)});
        ErrorText(too_small);
      }
      dump.RecordItem("export.annotate_note", JsonString(too_small));
    }
  }
  ImGui::PopItemWidth();
  bool busy = ctx.verbs.Exporting();
  const std::string dir = s.export_dir.empty() ? default_dir : ExpandHome(s.export_dir);
  std::string path = file_name.empty() || file_name[0] == '/' ? file_name : dir + "/" + file_name;
  // A file already there is never replaced unasked: the panel says so, the button says "Overwrite", and a second
  // button writes to the next free name (name-2.png) instead.
  const bool exists = !busy && !path.empty() && PathExists(path);
  const std::string next_path = exists ? NextFreePath(path) : "";
  if (busy) ImGui::BeginDisabled();
  bool clicked = widget::Button(dump, busy ? Str::kExporting : exists ? Str::kExportOverwrite : Str::kExportButton,
                                "export.button");
  if (busy) ImGui::EndDisabled();
  if (exists) {
    ImGui::SameLine();
    const std::string next_name = next_path.substr(next_path.find_last_of('/') + 1);
    const std::string save_as = Trf(Str::kExportSaveAsNext, {next_name});
    if (widget::Button(dump, save_as.c_str(), "export.next_name")) {
      clicked = true;
      path = next_path;
    }
  }
  if (s.export_target == ExportTarget::kOverview && OverviewShowsGrid(ctx)) {
    DimText(Trf(Str::kExportOverviewView, {Tr(OverviewGridName(ctx))}));
    // Patching has two grids: the CSV holds both, a figure draws the one chosen here.
    if (ctx.views.overview.view == OverviewPanelView::View::kPatching && s.export_format != ExportFormat::kCsv) {
      using Figure = OverviewPanelView::PatchingFigure;
      Figure& figure = ctx.views.overview.patching_figure;
      ImGui::TextUnformatted(Tr(Str::kExportGridChoice));
      ImGui::SameLine();
      if (widget::RadioButton(dump, Str::kExportGridHeads, "export.patching_heads", figure == Figure::kHeads))
        figure = Figure::kHeads;
      ImGui::SameLine();
      if (widget::RadioButton(dump, Str::kExportGridResidual, "export.patching_residual", figure == Figure::kResidual))
        figure = Figure::kResidual;
    }
  }
  if (s.export_target == ExportTarget::kCurrentHead) {
    ImGui::SameLine();
    DimText(Trf(Str::kExportHeadHint, {std::to_string(s.selected_head)}));
  }
  if (exists) ErrorText(Trf(Str::kExportFileExists, {file_name}));  // below the buttons, so they never move
  dump.RecordItem("export.exists", BoolJson(exists));
#ifdef ATTNVIZ_HAVE_FIGURE
  if (figure && !plot && !s.export_size.empty())  // below the button, so the button never moves
    if (Result<FigureSize> size = ParseFigureSize(s.export_size); !size) ErrorText(Localized(size));
#endif
  if (clicked && !busy) {
    UiMessage refusal = path.empty() ? UiMessage(Str::kNoFileName) : UiMessage(MakeDirs(dir));
    auto note = std::make_shared<CellNote>();
    note->key = NoteKey(s, file_name);
    std::function<Status()> job = refusal.empty() ? MakeExportJob(ctx, path, note, &refusal) : nullptr;
    if (job) {
      ctx.views.export_panel.pending = note;
      ctx.verbs.StartExport(path, std::move(job));
    } else {
      ctx.views.export_panel.ok = false;
      ctx.views.export_panel.path_written.clear();
      ctx.views.export_panel.message = UiMessage(Str::kExportFailed, {refusal});
    }
  }
  // Rendered now, not when it arrived: a message on screen follows a language switch.
  const std::string message = ctx.views.export_panel.message.Render();
  if (!message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ctx.views.export_panel.ok ? kOkColor : kErrorColor);
    ImGui::TextWrapped("%s", message.c_str());
    ImGui::PopStyleColor();
  }
  dump.RecordItem("export.message", JsonString(message));
  ImGui::End();
}

}  // namespace attnviz
