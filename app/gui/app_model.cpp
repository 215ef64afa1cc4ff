// The App's trained-model side: opening folders, submitting model runs, and presenting one layer of
// the latest model result as what the panels draw (`results.shown`, a Shown), without copying its maps.
#include <sys/stat.h>

#include <algorithm>

#include "app.h"
#include "io/file_io.h"
#include "i18n/app_messages.h"
#include "i18n/localized.h"
#include "lessons.h"
#include "model_analysis.h"
#include "model_folder.h"
#include "model/seq2seq.h"

namespace attnviz {

bool App::IsModelFolder(const std::string& path) { return IsModelPath(path); }

void App::InitModels() {
  models = std::make_unique<ModelSession>(OpenModelFolder, [this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  seq2seqs = std::make_unique<Seq2SeqSession>([this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  seq2seq_jobs = std::make_unique<Seq2SeqAnalysisJobs>([this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  seq2seq_readouts = std::make_unique<Seq2SeqReadoutJobs>([this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  scans = std::make_unique<AblationScanJob>();
  lenses = std::make_unique<LensJob>([this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  attributions = std::make_unique<AttributionJob>([this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  patchings = std::make_unique<PatchingJob>([this] {
    if (void (*wake)() = wake_ui.load()) wake();
  });
  // As OpenModel keeps a folder (real path), so the lessons can tell it is open; "" when not shipped.
  auto bundled = [](const char* name) {
    Result<std::string> dir = ResolveModelDir(name);
    char* resolved = dir ? realpath(dir->c_str(), nullptr) : nullptr;
    const std::string path = resolved ? resolved : "";
    std::free(resolved);
    return path;
  };
  bundled_model_dir = bundled(kBundledModelName);
  bundled_seq2seq_dir = bundled(kBundledSeq2SeqName);
  views.model.path_input = settings.model_dir;
  if (!options.input.model_dir.empty()) {
    OpenModel(options.input.model_dir);  // `attnviz MODEL_DIR` or --model
  } else if (settings.source == Source::kModel && !settings.model_dir.empty()) {
    OpenModel(settings.model_dir);  // restored
  } else if (settings.source == Source::kModel) {
    settings.source = Source::kSandbox;  // nothing to show
  }
}

void App::OpenModel(const std::string& dir_or_name) {
  std::string dir = ExpandHome(dir_or_name);  // "~/models/x" typed into the path field
  // "tiny" is the bundled model; a name that does not resolve opens as given (and is refused as a path).
  if (Result<std::string> named = ResolveModelDir(dir)) dir = *named;
  if (char* resolved = realpath(dir.c_str(), nullptr)) {
    dir = resolved;
    std::free(resolved);
  }
  views.model.path_input = dir;
  settings.model_dir = dir;
  if (model::IsEncoderDecoderFolder(dir)) return OpenSeq2Seq(dir);  // t5, bart, marian: app_seq2seq.cpp
  results.seq2seq_dir.clear();
  // The bundled model on the sandbox's short default sentence shows noise: it opens on a sentence said twice
  // instead, where its induction heads have something to do (the Model panel says why).
  if (dir == bundled_model_dir && (settings.kv_text.empty() || settings.kv_text == AppSettings().kv_text))
    settings.kv_text = kRepeatedSentence;
  results.model_error.clear();
  scans->Cancel();  // a scan of the old model is of no use now
  lenses->Cancel();
  attributions->Cancel();
  patchings->Cancel();
  models->Open(dir);
  SetSource(Source::kModel);
}

void App::SetSource(Source source) {
  settings.source = source;
  shown_layer_ = LayerView{};
  if (source == Source::kSandbox) results.shown = sandbox_shown_;  // the sandbox's last layer, as it was
  // In model mode `results.shown` follows the model result (UpdateModel); until it arrives nothing is drawn.
  else results.shown = nullptr;
}

void App::SubmitModelIfChanged() {
  std::shared_ptr<const ModelFolder> folder = models->folder();
  if (!folder || models->opening()) return;
  ModelRequest r;
  r.folder = folder;
  r.text = settings.kv_text;
  r.no_scale = settings.model_no_scale;
  r.temperature = settings.model_temperature;
  const model::ModelConfig& config = folder->model->config();  // a what-if the model has nothing for stays off
  r.no_softcap = settings.model_no_softcap && config.attn_softcap > 0;
  r.no_qk_norm = settings.model_no_qk_norm && config.recipe.qk_norm != model::BlockRecipe::QkNorm::kNone;
  auto layers = ParseLayerList(settings.model_whatif_layers, folder->model->config().n_layer);
  if (!layers) {
    results.config_error = AppPrefixed(AppMsgId::kPrefixWhatIfLayers, {}, layers.status());
    return;
  }
  results.config_error.clear();
  r.whatif_layers = *layers;
  const model::ModelConfig& c = folder->model->config();
  for (const model::AblatedHead& a : views.model.ablated)  // heads of another model's shape are dropped
    if (a.layer < c.n_layer && a.head < c.n_head) r.ablated.push_back({a.layer, a.head, views.model.ablate_mode});
  if (!model_submitted_ || r != last_model_request_) {
    if (!r.SameText(last_model_request_)) scans->Cancel();  // a scan of the old text or model is of no use now
    models->Submit(r);
    last_model_request_ = r;
    model_submitted_ = true;
  }
}

std::shared_ptr<const LayerMaps> App::OverviewLayer(int layer, bool hide_special) {
  const LayerView view{results.model ? results.model->generation : 0, -1, hide_special, views.heads.kind};
  if (!(view == overview_view_)) {
    overview_layers_.assign(results.model ? (size_t)results.model->n_layer() : 0, nullptr);
    overview_view_ = view;
  }
  if (!results.model || !results.model->has_layer(layer) || layer >= (int)overview_layers_.size()) return nullptr;
  const KindShows& shows = KindInfo(views.heads.kind).shows;
  if (shows.after_last_layer && RolloutPending(*results.model, layer)) return nullptr;  // made later
  std::shared_ptr<const LayerMaps>& made = overview_layers_[(size_t)layer];  // made once per layer as it arrives
  if (!made && shows.derived) {  // the frame's budget (app.h); the first layer always
    if (kind_budget_frame_ != frame) kind_budget_frame_ = frame, kind_cells_made_ = 0, kind_layers_pending_ = false;
    if (kind_cells_made_ > 0 && kind_cells_made_ + results.model->layers[(size_t)layer]->probs->size() > kKindCellsPerFrame) {
      kind_layers_pending_ = true;
      return nullptr;
    }
    kind_cells_made_ += (double)results.model->layers[(size_t)layer]->probs->size() + 1;
  }
  if (!made && shows.needs_pyramid && results.model->streamed) {
    // A streamed run's value-weighted thumbnails: its layers' pyramids as MakeWeightedOverview makes them (UpdateModel
    // asks), pooled like a long input's attention (no whole map, no q and k: the Overview reads the pyramid).
    const std::shared_ptr<const WeightedOverview> w = models->weighted_overview();
    if (!w || !w->request.Of(results.model) || layer >= w->layers_done || !w->layers[(size_t)layer]) return nullptr;
    auto t = std::make_shared<LayerMaps>(*results.model->layers[(size_t)layer]);
    t->probs = t->q = t->k = EmptyTensor();
    t->pyramid = w->layers[(size_t)layer];
    t->pooled = true;
    made = std::move(t);
  }
  if (!made) made = KindLayerForDisplay(*results.model, layer, views.heads.kind, hide_special);
  return made;
}

bool App::ShowsAttention() const {
  return !KindInfo(views.heads.kind).shows.derived || !results.model ||
         !MapKindRefusal(*results.model, views.heads.kind).empty();  // refused: the attention maps stand in
}

void App::UpdateModel() {
  // A folder finished opening: remember it; the next Submit runs it.
  const uint64_t opened = models->open_generation();
  if (opened != seen_open_generation_) {
    seen_open_generation_ = opened;
    if (std::shared_ptr<const ModelFolder> folder = models->folder(); folder && models->open_status().ok()) {
      settings.AddRecentModel(folder->dir);
      // A request for this very folder may be running already (Submit sees the folder before the open counts as
      // finished): the next Submit sends one only if what is asked differs (another folder always does).
      views.model.ablated.clear();  // another model's heads
      views.model.pinned_position = -1;
    }
  }
  // The results.latest run.
  std::shared_ptr<const ModelResult> now = models->latest();
  // A newer run, or a later step (more layers) of the same run.
  if (now && now != results.model && (!results.model || now->generation >= results.model->generation)) {
    if (now->status.ok()) {
      const bool new_run = !results.model || now->generation != results.model->generation;
      results.model = now;
      results.model_error.clear();
      std::string text;
      for (const tokenize::Token& t : now->tokens) text += t.display;
      if (new_run) fonts.AddText(text);
    } else if (!now->status.cancelled()) {
      results.model_error = now->status;
    }
  }
  if (settings.source != Source::kModel || !results.model) return;
  // The top tokens the chips showed before the run's predictions came: asked of the session (a few rows through the
  // LM head), shown while they are this result's.
  std::vector<int> wanted = std::exchange(views.model.top_wanted, {});
  if (!results.model->predictions && results.model->last_hidden && !wanted.empty()) {
    const TopTokensRequest ask{results.model, std::move(wanted)};
    if (ask != top_asked_) models->MakeTopTokens(results.model, (top_asked_ = ask).positions);
  }
  std::shared_ptr<const TopTokens> top = models->top_tokens();
  results.model_top = top && top->status.ok() && top->request.Of(results.model) ? top : nullptr;
  // The Overview of a complete streamed run in the value-weighted kind: its thumbnails made in the background.
  // Asked once per result; again when a cancelled job left it unfinished. Another kind stops it.
  if (KindInfo(views.heads.kind).shows.needs_pyramid && results.model->streamed && results.model->complete()) {
    const std::shared_ptr<const WeightedOverview> w = models->weighted_overview();
    const bool unfinished = !models->making_weighted_overview() &&
                            (!w || !w->request.Of(results.model) || (w->status.ok() && !w->complete()));
    if (weighted_overview_asked_ != results.model->generation || unfinished) {
      weighted_overview_asked_ = results.model->generation;
      models->MakeWeightedOverview(results.model);
    }
  } else if (models->making_weighted_overview()) {
    models->CancelWeightedOverview();
    weighted_overview_asked_ = 0;
  }
  // What the panels show: the chosen layer of the run's one stack (its maps shared, not copied).
  const int layer = std::clamp(settings.model_layer, 0, std::max(0, results.model->n_layer() - 1));
  const LayerView view{results.model->generation, layer, settings.model_hide_special, views.heads.kind};
  // A rollout on screen takes no q and k: they make attention rows, not rollout ones (a pooled rollout has none).
  const bool rollout_shown = !KindInfo(view.kind).shows.exact_from_qk && !ShowsAttention();
  // The shown streamed layer's q and k arrived (MakeExactRows below): the same view, now with exact rows (and, for the
  // value-weighted kind, the layer's value-weighted pyramid in place of the attention maps shown meanwhile).
  if (std::shared_ptr<const ExactRows> made = models->exact_rows(); made && made != applied_exact_rows_) {
    applied_exact_rows_ = made;
    const ExactRowsRequest& r = made->request;
    // The kind wants the layer's value-weighted pyramid (a streamed run) and this job made it.
    const bool weighted = made->weighted && ValueWeightedPending(*results.model, layer, view.kind, nullptr);
    const LayerMaps* maps = results.shown ? results.shown->maps.get() : nullptr;
    if (view == shown_layer_ && maps && r.layer == layer && r.result->generation == view.generation && !rollout_shown &&
        (maps->q->empty() || (weighted && maps->col_scale->empty()))) {
      if (made->status.ok()) {
        std::shared_ptr<const LayerMaps> with_rows;
        if (weighted && made->For(*results.model, layer)) {
          with_rows = KindLayerForDisplay(*results.model, layer, view.kind, view.hide_special, made.get());
        } else {
          auto rows = std::make_shared<LayerMaps>(*maps);
          rows->q = made->q, rows->k = made->k;
          with_rows = std::move(rows);
        }
        results.shown = ShownWithMaps(*results.shown, std::move(with_rows), ++view_generation_);
      } else {
        Notify(made->status);
      }
    }
  }
  if (view == shown_layer_ && results.shown) {
    AskExactRowsWhenNeeded(view, rollout_shown);
    return;
  }
  // Still running: shown as soon as the layer is done (a rollout: once the run has made it, after the last).
  if (!results.model->has_layer(layer) || (rollout_shown && RolloutPending(*results.model, layer))) {
    results.shown = nullptr;
    return;
  }
  shown_layer_ = view;
  // (The Overview's layer, shared, except a streamed run's value-weighted one: the Overview's is its thumbnails'.)
  std::shared_ptr<const LayerMaps> maps = KindInfo(view.kind).shows.needs_pyramid && results.model->streamed
                                              ? KindLayerForDisplay(*results.model, layer, view.kind, view.hide_special)
                                              : OverviewLayer(layer, view.hide_special);
  // In the value-weighted kind, a streamed layer's value-weighted pyramid (the attention maps until then), unless
  // the last one made is this layer's; otherwise its q and k when needed (AskExactRowsWhenNeeded).
  std::shared_ptr<const ExactRows> made = models->exact_rows();
  if (ValueWeightedPending(*results.model, layer, view.kind, nullptr) && made && made->status.ok() &&
      !ValueWeightedPending(*results.model, layer, view.kind, made.get()))
    maps = KindLayerForDisplay(*results.model, layer, view.kind, view.hide_special, made.get());
  // !! The Overview's budget may leave a layer of another kind unmade this frame: made here then (it is on screen).
  if (!maps) maps = KindLayerForDisplay(*results.model, layer, view.kind, view.hide_special);
  results.shown = ShownModelLayer(results.model, layer, view.kind, view.hide_special, std::move(maps), ++view_generation_);
  AskExactRowsWhenNeeded(view, rollout_shown);
}

void App::AskExactRowsWhenNeeded(const LayerView& view, bool rollout_shown) {
  // A streamed layer on screen: its q and k made from its input in the background, for exact rows and hover (until
  // then the view reads the finest kept level), and in the value-weighted kind its value-weighted pyramid (the kind
  // shows nothing right without it: asked at once). q and k alone wait while the run's layers still stream in, until
  // the Heads panel needs them (the pointer over a map, a zoomed window): the job takes the run's cores (on GPT-2 at
  // 1024 tokens a 3.6 GFLOP product, a quarter of a layer's) for cells nobody looked at yet.
  const bool needed_now = views.heads.wants_exact_rows;
  views.heads.wants_exact_rows = false;  // the next frame says again
  if (!results.shown || !results.shown->maps || rollout_shown || exact_rows_asked_ == view) return;
  const LayerMaps& t = *results.shown->maps;
  const bool weighted = ValueWeightedPending(*results.model, view.layer, view.kind, nullptr);  // wants its pyramid
  if (!t.pooled || !t.q->empty()) return;  // whole maps, or made (a value-weighted layer's pyramid comes with them)
  if (!weighted && !needed_now && !results.model->complete()) return;
  exact_rows_asked_ = view;
  models->MakeExactRows(results.model, view.layer, weighted);
}

std::string App::HeadRoleLine(int layer, int head) const { return attnviz::HeadRoleLine(results, layer, head); }

}  // namespace attnviz
