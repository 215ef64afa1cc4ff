#include "session/model_session.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "base/memory_budget.h"
#include "maps/pyramid.h"
#include "model/run.h"

namespace attnviz {
namespace {

// The stage model::Predict reports its progress under (predict.h).
constexpr const char* kPredictStage = "predict";

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Where a run may start from an earlier result over the same tokens: the last layer at or before the first
// changed one whose input was kept and below which every layer is there; 0 when none.
int ResumeLayer(const ModelResult* earlier, const ModelRequest& request, const std::vector<int>& ids,
                const model::ModelConfig& c, const model::RunOptions& options) {
  if (!earlier || !earlier->status.ok() || earlier->request.folder != request.folder ||
      earlier->request.text != request.text || TokenIds(earlier->tokens) != ids ||
      (int)earlier->resume_inputs.size() != c.n_layer)
    return 0;
  const model::RunOptions before = WhatIfRunOptions(earlier->request.what_ifs(), c.n_layer);
  int first = std::min({FirstChangedLayer(c, before, options), earlier->layers_done, c.n_layer - 1});
  while (first > 0 && !earlier->resume_inputs[(size_t)first]) --first;
  return first;
}

// ModelSession::MakeExactRows's job.
std::shared_ptr<ExactRows> MakeExactRowsNow(const ExactRowsRequest& r,
                                            const LatestWins<ExactRowsRequest, ExactRows>::Job& job) {
  const ModelResult& result = *r.result;
  auto made = std::make_shared<ExactRows>();
  made->generation = job.generation();
  made->request = r;
  made->status = ExactQk(result, r.layer, &made->q, &made->k);
  if (r.value_weighted && made->status.ok() && !made->q->empty()) {
    Result<std::shared_ptr<const MapPyramid>> weighted =
        ValueWeightedLayerPyramid(result, r.layer, *made->q, *made->k, job.Control("value-weighted map").cancel);
    if (weighted.status().cancelled()) return nullptr;  // a newer request runs
    if (weighted) made->weighted = *weighted;
    else made->status = weighted.status();
  }
  return made;
}

// ModelSession::MakeWeightedOverview's job: each layer of a complete streamed run in turn, q and k made from its
// input (ExactQk), its value-weighted pyramid kept from the thumbnails' level, published after each layer.
// Progress: layers done of n_layer; a newer request cancels it within one block.
std::shared_ptr<WeightedOverview> MakeWeightedOverviewNow(
    const WeightedOverviewRequest& r, const LatestWins<WeightedOverviewRequest, WeightedOverview>::Job& job) {
  const std::shared_ptr<const ModelResult> held = r.result.lock();  // held while the job runs
  if (!held) return nullptr;  // the app has moved on: nothing to make
  auto made = std::make_shared<WeightedOverview>();
  made->generation = job.generation();
  made->request = r;
  const ModelResult& result = *held;
  made->layers.resize((size_t)result.n_layer());
  if (!result.complete() || !result.streamed) {
    made->status = Status::Error("the value-weighted overview is made of a complete streamed run");
    return made;
  }
  const RunControl control = job.Control("value-weighted overview: ");
  const int factor = ThumbnailFactor((int)result.tokens.size());
  for (int l = 0; l < result.n_layer(); ++l) {
    control.Report("layers", (size_t)l, (size_t)result.n_layer());
    if (control.cancelled()) return nullptr;
    SharedTensor q, k;
    if (Status s = ExactQk(result, l, &q, &k); !s) {
      made->status = s;
      return made;
    }
    Result<std::shared_ptr<const MapPyramid>> weighted =
        ValueWeightedLayerPyramid(result, l, *q, *k, control.cancel, factor);
    if (weighted.status().cancelled()) return nullptr;  // a newer request runs
    if (!weighted) {
      made->status = weighted.status();
      return made;
    }
    made->layers[(size_t)l] = *weighted;
    made->layers_done = l + 1;
    if (l + 1 < result.n_layer()) job.Publish(std::make_shared<const WeightedOverview>(*made));  // shared pyramids
  }
  control.Report("layers", (size_t)result.n_layer(), (size_t)result.n_layer());
  return made;
}

// ModelSession::MakeTopTokens's job.
std::shared_ptr<TopTokens> MakeTopTokensNow(const TopTokensRequest& r, const LatestWins<TopTokensRequest, TopTokens>::Job& job) {
  auto made = std::make_shared<TopTokens>();
  made->generation = job.generation();
  made->request = r;
  const std::shared_ptr<const ModelResult> held = r.result.lock();
  if (!held) return nullptr;  // the app has moved on to a newer run: nothing to show
  const ModelResult& result = *held;
  if (!result.last_hidden || !result.request.folder) {
    made->status = Status::Error("the run's layers are not done: no last stream to predict from");
    return made;
  }
  const model::Model& model = *result.request.folder->model;
  auto top = model::TopTokensAt(model, result.last_hidden->data(), (int)result.tokens.size(),
                                std::min(kPredictTopK, model.config().vocab), r.positions, job.Control());
  if (top.status().cancelled()) return nullptr;
  if (top) made->positions = std::move(*top);
  else made->status = top.status();
  return made;
}

}  // namespace

Result<PreparedRun> PrepareModelRun(const ModelFolder& folder, const std::string& text, const ModelWhatIfs& what_ifs) {
  auto tokens = TokenizeForModel(folder, text);
  if (!tokens) return tokens.status();
  PreparedRun run;
  run.tokens = std::move(*tokens);
  run.ids = TokenIds(run.tokens);
  run.options = WhatIfRunOptions(what_ifs, folder.model->config().n_layer);
  return run;
}

Result<PreparedRun> PrepareModelRun(const ModelRequest& request) {
  if (!request.folder) return Status::Error("no model is open");
  return PrepareModelRun(*request.folder, request.text, request.what_ifs());
}

ModelSession::ModelSession(Opener opener, std::function<void()> on_change)
    : opener_(std::move(opener)),
      runs_("running the model", [this](const ModelRequest& r, const RunQueue::Job& job) { return Run(r, job); },
            on_change),
      open_("opening the model",
            [this](const std::string& dir, const OpenQueue::Job& job) { return OpenNow(dir, job); }, on_change),
      exact_("making q and k", MakeExactRowsNow, on_change),
      weighted_overview_("making the value-weighted overview", MakeWeightedOverviewNow, on_change),
      top_tokens_("predicting at a position", MakeTopTokensNow, std::move(on_change)) {}

void ModelSession::Open(const std::string& dir) {
  open_.Submit(dir);
  runs_.CancelRunning();  // a run on the old folder is of no use now
}

std::shared_ptr<const ModelFolder> ModelSession::folder() const {
  std::shared_ptr<const OpenedModel> opened = open_.latest();
  return opened ? opened->folder : nullptr;
}

Status ModelSession::open_status() const {
  std::shared_ptr<const OpenedModel> opened = open_.latest();
  return opened ? opened->status : Status::Ok();
}

ModelProgress ModelSession::progress() const {
  const JobProgress p = runs_.progress();
  ModelProgress out;
  if (!p.active || p.total == 0) return out;
  out.stage = p.stage == kPredictStage   ? ModelProgress::Stage::kPredict
              : p.stage == kRolloutStage ? ModelProgress::Stage::kRollout
                                         : ModelProgress::Stage::kLayers;
  out.done = p.done, out.total = p.total, out.fraction = p.fraction;
  return out;
}

bool ModelSession::WaitIdle(double seconds) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto left = [&] { return std::max(0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count()); };
  return open_.WaitIdle(left()) && runs_.WaitIdle(left()) && exact_.WaitIdle(left()) &&
         weighted_overview_.WaitIdle(left()) && top_tokens_.WaitIdle(left());
}

std::shared_ptr<OpenedModel> ModelSession::OpenNow(const std::string& dir, const OpenQueue::Job& job) {
  auto result = std::make_shared<OpenedModel>();
  result->generation = job.generation();
  result->request = dir;
  Result<std::shared_ptr<const ModelFolder>> opened = opener_(dir);
  if (opened) {
    result->folder = *opened;
  } else {
    result->status = opened.status();
    result->folder = folder();  // the one open before stays open
  }
  return result;
}

std::shared_ptr<ModelResult> ModelSession::Run(const ModelRequest& request, const RunQueue::Job& job) {
  const auto t0 = std::chrono::steady_clock::now();
  auto result = std::make_shared<ModelResult>();
  result->generation = job.generation();
  result->request = request;
  Result<PreparedRun> prepared = PrepareModelRun(request);
  if (!prepared) {
    result->status = prepared.status();
    return result;
  }
  const ModelFolder& folder = *request.folder;
  const model::ModelConfig& c = folder.model->config();
  model::RunOptions& options = prepared->options;
  options.control = job.Control();
  options.row_figures = true;
  const std::vector<int>& ids = prepared->ids;
  const int n = (int)ids.size();
  options.stream_maps = StreamsMaps(c, n, stream_above_cells_.load());
  const CollectPlan plan = CollectPlan::ForSession(options.stream_maps);
  options.caller_bytes = (size_t)CollectedBytes(c, prepared->tokens, plan);
  // A what-if over the same text: the layers below the first one it changes are the last run's (shared), and so
  // is their token list (one list for every layer of the result).
  std::shared_ptr<const ModelResult> earlier = runs_.latest();
  const int first = ResumeLayer(earlier.get(), request, ids, c, options);
  result->tokens = first > 0 ? earlier->tokens : TokenList(std::move(prepared->tokens));
  // Each finished layer is shown at once: a step holding the layers so far (every layer but the last; the last
  // comes with the final result).
  LayerCollector collector(*folder.model, options, result->tokens, plan, {}, [&](const LayerCollector& so_far) {
    auto step = std::make_shared<ModelResult>(*result);
    so_far.CopyInto(step.get());
    step->seconds = SecondsSince(t0);
    if (step->layers_done < step->n_layer()) job.Publish(step);
  });
  if (first > 0) {
    collector.Reuse(*earlier, first);
    options.first_layer = first;
    options.resume_hidden = earlier->resume_inputs[(size_t)first]->data();
  } else if (!c.recipe.bidirectional) {
    // A new text: a causal run keeps its rows for the next, and takes those before the change from the last one
    // when the kept rows are that result's (whole maps: the maps' rows come from it, the rest from the state; streamed
    // maps: what the kept rows added to every pyramid and pooled sum comes from it up to a stride, and the blocks of
    // the rows after that are made again from the kept q and k), within the memory limit (the state holds every
    // layer's stream and q | k | v).
    const bool kept_rows_are_earliers = earlier && earlier->complete() && earlier->generation == prefix_generation_ &&
                                        earlier->request.folder == request.folder;
    model::RunOptions keeping = options;
    keeping.prefix = &prefix_;
    if (model::RunMemoryBytes(c, (size_t)n, false, keeping) <= (double)MemoryLimitBytes()) {
      if (!kept_rows_are_earliers) prefix_.Clear();
      const model::PrefixPlan kept = model::PlanPrefixReuse(c, prefix_, ids, options);
      const int pooled_from = kept.rows > 0 ? collector.KeepRows(*earlier, kept.rows) : 0;
      prefix_generation_ = 0;  // until this run has finished every layer
      options.prefix = &prefix_;
      options.prefix_blocks = options.stream_maps;
      if (options.stream_maps) options.prefix_blocks_from = (size_t)pooled_from, result->prefix_pooled_rows = pooled_from;
    } else {
      result->prefix_refused = "the rows kept for the next run would not fit the memory limit";
    }
  }
  if (!options.prefix) {  // bidirectional, resumed or over the memory limit: the kept rows would be of no later use
    prefix_.Clear();
    prefix_generation_ = 0;
  }
  result->resumed_from = first;
  result->status = model::RunModel(*folder.model, ids, options, &collector);
  if (options.prefix) {
    result->prefix_rows = prefix_.reused_rows;
    result->prefix_refused = prefix_.refused;
    if (result->status.ok()) prefix_generation_ = result->generation;
  }
  kept_prefix_bytes_ = prefix_.Bytes();
  if (result->status.cancelled()) return nullptr;
  if (result->status.ok()) {
    collector.CopyInto(result.get());
    // The last stream, with every layer: a hovered position's top tokens come from it at once (MakeTopTokens),
    // before the rollout and the predictions over every position.
    if (model::HasLmHead(*folder.model))
      result->last_hidden = collector.shared_last_hidden();
    if (collector.rollout_pending()) {  // every layer is shown before the rollout is made (and the predictions)
      auto maps_done = std::make_shared<ModelResult>(*result);
      maps_done->seconds = SecondsSince(t0);
      job.Publish(maps_done);
      if (Status s = collector.MakeRollout(options.control); s.cancelled()) return nullptr;
      else if (!s) result->status = s;
      else collector.CopyInto(result.get());
    }
  }
  // What the model predicts from the last hidden state (cancellable like the run); bert at its [MASK]s only.
  result->has_lm_head = model::HasLmHead(*folder.model);
  if (result->status.ok() && result->has_lm_head) {
    const std::vector<int> at = model::PredictsNextToken(c) ? std::vector<int>{} : MaskPositions(result->tokens);
    if (model::PredictsNextToken(c) || !at.empty()) {
      // Every layer is shown before the predictions (on a long text they take a while: n x vocab logits).
      auto maps_done = std::make_shared<ModelResult>(*result);
      maps_done->seconds = SecondsSince(t0);
      job.Publish(maps_done);
      // A kept prefix: the earlier run's predictions of the blocks before the change are these rows' too.
      const bool keeps = result->prefix_rows > 0 && at.empty() && earlier && earlier->predictions;
      auto predicted = keeps ? model::PredictKeeping(*folder.model, collector.last_hidden().data(), ids,
                                                     std::min(kPredictTopK, c.vocab), *earlier->predictions,
                                                     result->prefix_rows, options.control)
                             : model::Predict(*folder.model, collector.last_hidden().data(), ids,
                                              std::min(kPredictTopK, c.vocab), at, options.control);
      if (predicted.status().cancelled()) return nullptr;
      if (!predicted) result->status = predicted.status();
      else result->predictions = std::make_shared<const model::Predictions>(std::move(*predicted));
    } else {
      result->predictions = std::make_shared<const model::Predictions>();  // no [MASK]: nothing to predict
    }
  }
  // The plain run's loss is the baseline of every what-if on the same text after it.
  {
    std::lock_guard<std::mutex> lock(baseline_mutex_);
    if (result->predictions && result->predictions->has_loss && request.plain())
      baseline_ = Baseline{request.folder, request.text, result->predictions->loss,
                           std::make_shared<const std::vector<double>>(result->predictions->next_log_prob)};
    if (baseline_ && baseline_->folder == request.folder && baseline_->text == request.text) {
      result->baseline_loss = baseline_->loss;
      result->baseline_next_log_prob = baseline_->next_log_prob;
    }
  }
  result->seconds = SecondsSince(t0);
  return result;
}

std::vector<LayerStack> StacksOf(const ModelResult& result) {
  LayerStack self = StackOfLayers(result.layers, StackKind::kSelf);
  if (self.row_tokens.empty() && !result.tokens.empty() && result.request.folder) {
    // No layer made yet: the tokens and mask every layer will have (ModelLayerMaps').
    const LayerMaps none = ModelLayerMaps(result.request.folder->model->config(), result.tokens, nullptr, 0, {});
    self.row_tokens = none.query_tokens;
    self.column_tokens = none.kv_tokens;
    self.mask = none.mask;
  }
  return {std::move(self)};
}

Status ExactQk(const ModelResult& result, int layer, SharedTensor* q, SharedTensor* k) {
  *q = EmptyTensor(), *k = EmptyTensor();
  if (!result.has_layer(layer) || !result.request.folder) return Status::Ok();
  if (!result.layers[(size_t)layer]->pooled) return Status::Ok();  // whole maps: exact without q and k
  const std::shared_ptr<const std::vector<float>>& input =
      layer < (int)result.resume_inputs.size() ? result.resume_inputs[(size_t)layer] : nullptr;
  if (!input) return Status::Error("layer " + std::to_string(layer) + " kept no input to make q and k from");
  const model::Model& model = *result.request.folder->model;
  auto made_q = std::make_shared<Tensor>(), made_k = std::make_shared<Tensor>();
  const ModelWhatIfs& what_ifs = result.request.what_ifs();
  if (Status s = model::LayerQk(model, layer, input->data(), (int)(input->size() / model.config().d_model),
                                made_q.get(), made_k.get(), what_ifs.no_qk_norm && what_ifs.Touches(layer));
      !s)
    return s;
  *q = made_q, *k = made_k;
  return Status::Ok();
}

bool ExactRows::For(const ModelResult& result, int layer) const {
  return request.result && request.layer == layer && result.has_layer(layer) && request.result->has_layer(layer) &&
         request.result->layers[(size_t)layer] == result.layers[(size_t)layer];
}

Result<std::shared_ptr<const MapPyramid>> ValueWeightedLayerPyramid(const ModelResult& r, int layer, const Tensor& q,
                                                                    const Tensor& k, const std::atomic<bool>* cancel,
                                                                    int keep_from_factor) {
  if (!r.has_layer(layer) || layer >= (int)r.analysis.size() || !r.analysis[(size_t)layer])
    return Status::Error("layer " + std::to_string(layer) + " is not there yet");
  const LayerMaps& maps = *r.layers[(size_t)layer];
  const Tensor& norms = *r.analysis[(size_t)layer]->value_norms;  // [n_head, n]
  if (norms.empty()) return Status::Error("layer " + std::to_string(layer) + " kept no value norms");
  const int n_head = maps.n_head(), n_q = maps.n_q(), n_k = maps.n_k();
  MapPyramid whole;
  if (!ValueWeightedPyramid(q, k, maps.multiplier, maps.mask, norms, MapPyramid::BaseFactor(n_head, n_q, n_k), &whole,
                            cancel, nullptr, maps.softcap))
    return Status::Cancelled();
  // The levels the layer's attention pyramid kept (finer windows come from exact rows, as for attention).
  const int kept = keep_from_factor > 0 ? keep_from_factor
                   : maps.pyramid && !maps.pyramid->levels().empty() ? maps.pyramid->levels().front().factor : 1;
  return std::shared_ptr<const MapPyramid>(std::make_shared<const MapPyramid>(std::move(whole).Coarsened(kept)));
}

int KvGroupOf(const model::ModelConfig& c, int head) {
  const int per_group = c.n_kv_head > 0 ? std::max(1, c.n_head / c.n_kv_head) : 1;
  return head / per_group;
}

}  // namespace attnviz
