#include "model_session.h"

#include <algorithm>
#include <chrono>

#include "i18n/localized.h"
#include "maps/view.h"
#include "model/run.h"
#include "worker.h"

namespace attnviz {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Gives RunModel one fresh tensor per layer to write its probs into, and makes each finished layer a LayerMaps
// (the probs shared as they are, the row figures from the same pass), its head roles and its thumbnails.
class LayerMapsSink : public model::LayerSink {
 public:
  LayerMapsSink(const model::ModelConfig& c, const model::RunOptions& options, const std::vector<int>& ids,
                const std::vector<tokenize::Token>& tokens, std::atomic<int>* done)
      : config_(c), options_(options), n_head_(c.n_head), n_((int)ids.size()), done_(done), ids_(ids),
        tokens_(tokens), probs_((size_t)c.n_layer), layers_((size_t)c.n_layer),
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
    done_->store(out.layer + 1);
    return Status::Ok();
  }
  std::vector<std::shared_ptr<const LayerMaps>> TakeLayers() { return std::move(layers_); }
  model::HeadRoles TakeRoles() { return std::move(roles_); }
  std::vector<SharedTensor> TakeThumbnails() { return std::vector<SharedTensor>(thumbs_.begin(), thumbs_.end()); }

 private:
  const model::ModelConfig& config_;
  const model::RunOptions& options_;
  int n_head_, n_;
  std::atomic<int>* done_;
  std::vector<int> ids_;
  const std::vector<tokenize::Token>& tokens_;
  std::vector<std::shared_ptr<Tensor>> probs_;
  std::vector<std::shared_ptr<const LayerMaps>> layers_;
  std::vector<std::shared_ptr<Tensor>> thumbs_;
  model::HeadRoles roles_;
};

}  // namespace

ModelSession::ModelSession() : thread_([this] { Serve(); }) {}

ModelSession::~ModelSession() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cancel_ = true;
  wake_.notify_all();
  thread_.join();
}

void ModelSession::Open(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mutex_);
  open_pending_ = dir;
  open_requested_ = true;
  opening_ = true;
  cancel_ = true;  // a run on the old folder is of no use now
  wake_.notify_all();
}

bool ModelSession::opening() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return opening_;
}

std::shared_ptr<const ModelFolder> ModelSession::folder() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return folder_;
}

std::string ModelSession::open_error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return Localized(open_status_);
}

uint64_t ModelSession::open_generation() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_generation_;
}

void ModelSession::Submit(const ModelRequest& request) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ = std::make_unique<ModelRequest>(request);
  ++submitted_;
  cancel_ = true;  // the running one stops within one block of work
  wake_.notify_all();
}

std::shared_ptr<const ModelResult> ModelSession::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

bool ModelSession::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_ != submitted_;
}

std::string ModelSession::progress(float* fraction) const {
  const int total = layer_total_.load(), done = layer_done_.load();
  if (!running() || total <= 0) {
    if (fraction) *fraction = 0;
    return "";
  }
  if (fraction) *fraction = (float)done / (float)total;
  return Trf(Str::kModelLayerOf, {std::to_string(std::min(done + 1, total)), std::to_string(total)});
}

bool ModelSession::WaitIdle(double seconds) const {
  std::unique_lock<std::mutex> lock(mutex_);
  return idle_.wait_for(lock, std::chrono::duration<double>(seconds),
                        [this] { return finished_ == submitted_ && !opening_; });
}

void ModelSession::Serve() {
  for (;;) {
    std::string open_dir;
    std::unique_ptr<ModelRequest> request;
    uint64_t generation = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || open_requested_ || pending_; });
      if (stop_) return;
      if (open_requested_) {
        open_dir = open_pending_;
        open_requested_ = false;
      } else {
        request = std::move(pending_);
        generation = submitted_;
        cancel_ = false;
      }
    }
    if (!open_dir.empty()) {
      Result<std::shared_ptr<const ModelFolder>> opened = Status::Error("not opened");
      if (Status st = RunGuarded("opening the model", [&] {
            opened = OpenModelFolder(open_dir);
            return Status::Ok();
          });
          !st)
        opened = st;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (opened) {
          folder_ = *opened;
          open_status_ = Status::Ok();
        } else {
          open_status_ = opened.status();
        }
        ++open_generation_;
        opening_ = open_requested_;  // another open may have arrived meanwhile
      }
      idle_.notify_all();
      continue;
    }
    std::shared_ptr<ModelResult> result;
    try {
      result = Run(*request, generation);
    } catch (...) {  // e.g. std::bad_alloc: a message for the user, never the end of the app
      result = std::make_shared<ModelResult>();
      result->generation = generation;
      result->request = *request;
      result->status = Status::Error(CurrentExceptionMessage("running the model"));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // A cancelled run is superseded: its result is never shown.
      if (!(result->status.cancelled() && generation < submitted_)) latest_ = std::move(result);
      if (finished_ < generation) finished_ = generation;
    }
    idle_.notify_all();
  }
}

std::shared_ptr<ModelResult> ModelSession::Run(const ModelRequest& request, uint64_t generation) {
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
  options.cancel = &cancel_;
  options.row_figures = true;
  layer_done_ = 0;
  layer_total_ = c.n_layer;
  const std::vector<int> ids = TokenIds(*tokens);
  LayerMapsSink sink(c, options, ids, *tokens, &layer_done_);
  result->status = model::RunModel(*folder.model, ids, options, &sink);
  if (result->status.ok()) {
    result->layers = sink.TakeLayers();
    result->roles = sink.TakeRoles();
    result->thumbnails = sink.TakeThumbnails();
  }
  result->seconds = SecondsSince(t0);
  return result;
}

AttentionTensors LayerAsTensors(const ModelResult& result, int layer) {
  AttentionTensors t;
  if (layer >= 0 && layer < result.n_layer()) static_cast<LayerMaps&>(t) = *result.layers[(size_t)layer];
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
