#include "model_session.h"

#include <algorithm>
#include <chrono>

#include "i18n/localized.h"
#include "maps/view.h"
#include "model/run.h"

namespace attnviz {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Gives RunModel one fresh tensor per layer to write its probs into, and makes each finished layer a LayerMaps
// (the probs shared as they are, the row figures from the same pass), its head roles and its thumbnails.
class LayerMapsSink : public model::LayerSink {
 public:
  // publish: called after each layer with the result so far (the run's thread).
  LayerMapsSink(const model::ModelConfig& c, const model::RunOptions& options, const std::vector<int>& ids,
                const std::vector<tokenize::Token>& tokens, std::function<void(const LayerMapsSink&)> publish)
      : config_(c), options_(options), n_head_(c.n_head), n_((int)ids.size()), ids_(ids), tokens_(tokens),
        publish_(std::move(publish)), probs_((size_t)c.n_layer), layers_((size_t)c.n_layer),
        thumbs_((size_t)c.n_layer), roles_(model::MakeHeadRoles(c.n_layer, c.n_head, ids)) {}
  float* ProbsBuffer(int layer) override {
    auto t = std::make_shared<Tensor>();
    t->Resize({(size_t)n_head_, (size_t)n_, (size_t)n_});
    probs_[(size_t)layer] = t;
    return t->data.data();
  }
  Status OnLayer(const model::LayerOutput& out) override {
    if (!probs_[(size_t)out.layer]) return Status::Error("layer " + std::to_string(out.layer) + " was not written");
    // The row figures, from the attention pass itself (RunOptions::row_figures).
    if (!out.metrics) return Status::Error("layer " + std::to_string(out.layer) + " has no row figures");
    auto maps = std::make_shared<LayerMaps>(ModelLayerMaps(config_, tokens_, probs_[(size_t)out.layer], out.layer,
                                                           options_));
    maps->metrics = *out.metrics;
    if (Status s = model::ScoreLayer(out.probs, out.layer, n_head_, n_, ids_, &roles_); !s) return s;
    // The overview's thumbnail of each head: max-pooled, so a one-hot row stays visible.
    const int t = std::min(n_, kThumbnailCells);
    auto thumb = std::make_shared<Tensor>();
    thumb->Resize({(size_t)n_head_, (size_t)t, (size_t)t});
    const MapSource source = maps->Source(0);
    const MapWindow all{0, n_, 0, n_};
    for (int h = 0; h < n_head_; ++h) {
      ViewImage view = ComposeView(source, h, all, t, t, PoolKind::kMax);
      if (view.width != t || view.height != t) return Status::Error("thumbnail: unexpected size");
      std::copy(view.values.begin(), view.values.end(), thumb->data.begin() + (size_t)h * t * t);
    }
    layers_[(size_t)out.layer] = std::move(maps);
    thumbs_[(size_t)out.layer] = thumb;
    layers_done_ = out.layer + 1;
    if (publish_) publish_(*this);
    return Status::Ok();
  }
  // The layers so far (shared: the maps are never copied), into `r`.
  void CopyInto(ModelResult* r) const {
    r->layers = layers_;
    r->layers_done = layers_done_;
    r->roles = roles_;
    r->thumbnails.assign(thumbs_.begin(), thumbs_.end());
  }

 private:
  const model::ModelConfig& config_;
  const model::RunOptions& options_;
  int n_head_, n_;
  std::vector<int> ids_;
  const std::vector<tokenize::Token>& tokens_;
  std::function<void(const LayerMapsSink&)> publish_;
  int layers_done_ = 0;
  std::vector<std::shared_ptr<Tensor>> probs_;
  std::vector<std::shared_ptr<const LayerMaps>> layers_;
  std::vector<std::shared_ptr<Tensor>> thumbs_;
  model::HeadRoles roles_;
};

}  // namespace

ModelSession::ModelSession(std::function<void()> on_change)
    : runs_("running the model", [this](const ModelRequest& r, const RunQueue::Job& job) { return Run(r, job); },
            std::move(on_change)),
      open_("opening the model",
            [this](const std::string& dir, const OpenQueue::Job& job) { return OpenNow(dir, job); }) {}

void ModelSession::Open(const std::string& dir) {
  open_.Submit(dir);
  runs_.CancelRunning();  // a run on the old folder is of no use now
}

std::shared_ptr<const ModelFolder> ModelSession::folder() const {
  std::shared_ptr<const OpenedModel> opened = open_.latest();
  return opened ? opened->folder : nullptr;
}

std::string ModelSession::open_error() const {
  std::shared_ptr<const OpenedModel> opened = open_.latest();
  return opened ? Localized(opened->status) : "";
}

std::string ModelSession::progress(float* fraction) const {
  const JobProgress p = runs_.progress();
  if (!p.active || p.total == 0) {
    if (fraction) *fraction = 0;
    return "";
  }
  if (fraction) *fraction = (float)p.fraction;
  const size_t running = std::min(p.done + 1, p.total);
  return Trf(Str::kModelLayerOf, {std::to_string(running), std::to_string(p.total)});
}

bool ModelSession::WaitIdle(double seconds) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto left = [&] { return std::max(0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count()); };
  return open_.WaitIdle(left()) && runs_.WaitIdle(left());
}

std::shared_ptr<OpenedModel> ModelSession::OpenNow(const std::string& dir, const OpenQueue::Job& job) {
  auto result = std::make_shared<OpenedModel>();
  result->generation = job.generation();
  result->request = dir;
  Result<std::shared_ptr<const ModelFolder>> opened = OpenModelFolder(dir);
  if (opened) {
    result->folder = *opened;
  } else {
    result->status = opened.status();
    result->folder = folder();  // the one open before stays open
  }
  return result;
}

std::shared_ptr<ModelResult> ModelSession::Run(const ModelRequest& request, const RunQueue::Job& job) {
  const uint64_t generation = job.generation();
  const auto t0 = std::chrono::steady_clock::now();
  auto result = std::make_shared<ModelResult>();
  result->generation = generation;
  result->request = request;
  if (!request.folder) {
    result->status = Status::Error("no model is open");
    return result;
  }
  const ModelFolder& folder = *request.folder;
  const model::ModelConfig& c = folder.model->config();
  auto tokens = TokenizeForModel(folder, request.text);
  if (!tokens) {
    result->status = tokens.status();
    return result;
  }
  result->tokens = *tokens;
  model::RunOptions options = WhatIfRunOptions(request.what_ifs(), c.n_layer);  // as attnviz-cli model's
  options.control = job.Control();
  options.row_figures = true;
  const std::vector<int> ids = TokenIds(*tokens);
  // Each finished layer is shown at once: a step holding the layers so far (every layer but the last; the last
  // comes with the final result).
  LayerMapsSink sink(c, options, ids, *tokens, [&](const LayerMapsSink& so_far) {
    auto step = std::make_shared<ModelResult>(*result);
    so_far.CopyInto(step.get());
    step->seconds = SecondsSince(t0);
    if (step->layers_done < step->n_layer()) job.Publish(step);
  });
  result->status = model::RunModel(*folder.model, ids, options, &sink);
  if (result->status.cancelled()) return nullptr;
  if (result->status.ok()) sink.CopyInto(result.get());
  result->seconds = SecondsSince(t0);
  return result;
}

AttentionTensors LayerAsTensors(const ModelResult& result, int layer) {
  AttentionTensors t;
  if (result.has_layer(layer)) static_cast<LayerMaps&>(t) = *result.layers[(size_t)layer];
  return t;
}

AttentionTensors LayerForDisplay(const ModelResult& r, int layer, bool hide_special) {
  AttentionTensors all = LayerAsTensors(r, layer);
  std::vector<size_t> keep;
  for (size_t i = 0; i < r.tokens.size(); ++i)
    if (!r.tokens[i].special) keep.push_back(i);
  if (!hide_special || keep.size() == r.tokens.size() || keep.empty() || all.probs->empty()) return all;
  const size_t n = r.tokens.size(), m = keep.size(), n_head = all.probs->dim(0);
  auto probs = std::make_shared<Tensor>();
  probs->Resize({n_head, m, m});
  for (size_t h = 0; h < n_head; ++h)
    for (size_t a = 0; a < m; ++a)
      for (size_t b = 0; b < m; ++b) probs->data[(h * m + a) * m + b] = all.probs->data[(h * n + keep[a]) * n + keep[b]];
  AttentionTensors t;
  for (size_t i : keep) t.kv_tokens.push_back(all.kv_tokens[i]);
  t.query_tokens = t.kv_tokens;
  t.probs = probs;
  t.mask = all.mask;
  t.metrics = all.metrics;  // the figures of the full rows (what the model computed), for the rows kept
  for (HeadMetrics& hm : t.metrics) {
    std::vector<RowMetrics> rows;
    for (size_t i : keep) rows.push_back(hm.rows[i]);
    hm.rows = std::move(rows);
  }
  return t;
}

AttentionTensors StackedLayers(const ModelResult& r, bool hide_special) {
  AttentionTensors stacked;
  if (!r.complete()) return stacked;  // every layer, or nothing
  auto probs = std::make_shared<Tensor>();
  for (int l = 0; l < r.n_layer(); ++l) {
    AttentionTensors layer = LayerForDisplay(r, l, hide_special);
    if (l == 0) {
      stacked.query_tokens = layer.query_tokens;
      stacked.kv_tokens = layer.kv_tokens;
      probs->Resize({layer.probs->dim(0) * (size_t)r.n_layer(), layer.probs->dim(1), layer.probs->dim(2)});
    }
    std::copy(layer.probs->data.begin(), layer.probs->data.end(), probs->data.begin() + (size_t)l * layer.probs->size());
    stacked.metrics.insert(stacked.metrics.end(), layer.metrics.begin(), layer.metrics.end());
  }
  stacked.probs = probs;
  if (r.n_layer() > 0) stacked.mask = r.layers[0]->mask;
  return stacked;
}

int KvGroupOf(const model::ModelConfig& c, int head) {
  const int per_group = c.n_kv_head > 0 ? std::max(1, c.n_head / c.n_kv_head) : 1;
  return head / per_group;
}

}  // namespace attnviz
