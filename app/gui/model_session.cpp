#include "model_session.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "i18n/localized.h"
#include "maps/view.h"
#include "model/run.h"

namespace attnviz {
namespace {

// The stage model::Predict reports its progress under (predict.h).
constexpr const char* kPredictStage = "predict";
// ... and the rollout after the last layer (LayerMapsSink::MakeRollout).
constexpr const char* kRolloutStage = "rollout";

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Layers between kept resume points (the residual stream entering a block), so they fit kResumeBytes. A streamed
// run keeps every layer's input anyway (what makes its q and k: WithExactRows).
int ResumeStride(const model::ModelConfig& c, int n, bool stream) {
  if (stream) return 1;
  const double per = (double)n * c.d_model * sizeof(float);
  return std::max(1, (int)std::ceil(per * c.n_layer / kResumeBytes));
}

// What the run keeps beside the workspace (RunOptions::caller_bytes, counted in the memory check).
double KeptBytes(const model::ModelConfig& c, int n, bool stream) {
  const double nn = (double)n * n, f = sizeof(float);
  double bytes = (double)c.n_layer * n * c.d_model * f / ResumeStride(c, n, stream);  // resume points, layer inputs
  bytes += (double)c.n_layer * c.n_head * n * sizeof(RowMetrics);              // row figures
  bytes += (double)c.n_layer * c.n_head * n * f;                                // value-norm scales
  if (RolloutRefusal(n).empty()) {  // its state, the pooled head mean's sums (streamed or pooled), R_l per layer
    const int rf = RolloutFactor(n);
    const double nb = model::RolloutBlocks(n, rf);
    bytes += stream || rf > 1 ? model::PooledRolloutMemoryBytes((size_t)n, rf) : model::RolloutMemoryBytes((size_t)n);
    bytes += (double)c.n_layer * nb * nb * f;
  }
  if (!stream) bytes += (double)c.n_layer * n * (c.q_dim() + c.kv_dim()) * f;  // q, k per layer (neuron view)
  if (!stream) return bytes + (double)c.n_layer * c.n_head * nn * f;            // whole maps
  const int base = MapPyramid::ForStreamedRun(c.n_layer, c.n_head, n, MapPyramid::kStreamedKeptBytes).pass;
  const double base_side = std::ceil((double)n / base);
  bytes += (double)c.n_head * base_side * base_side * 2 * f * 4 / 3;           // the pass's own pyramid
  bytes += MapPyramid::kStreamedKeptBytes;                                      // the kept levels (at most)
  bytes += (double)n * (c.q_dim() + c.kv_dim()) * f;                          // q, k of the layer on screen
  return bytes;
}

// Makes each finished layer of a run a LayerMaps, its head roles and its thumbnails. Small inputs: RunModel writes
// each layer's probs into a fresh tensor the LayerMaps then shares. Long inputs (stream): no map is kept; each
// block of rows goes into this run's pyramid and role rows as the pass makes it, and the layer keeps the
// pyramid's coarser levels plus its input (the residual stream entering it, in resume_inputs), from which the
// screen makes q and k of the layer it shows (WithExactRows) and recomputes exact rows: n * d_model floats a
// layer rather than n * (q_dim + kv_dim), and a what-if resumes at exactly the first layer it changes.
class LayerMapsSink : public model::LayerSink {
 public:
  // publish: called after each layer with the result so far (the run's thread).
  LayerMapsSink(const model::Model& m, const model::ModelConfig& c, const model::RunOptions& options, const std::vector<int>& ids,
                const std::vector<tokenize::Token>& tokens, bool stream,
                std::function<void(const LayerMapsSink&)> publish)
      : model_(m), config_(c), options_(options), mask_(model::AttentionMask(c)), n_head_(c.n_head),
        n_((int)ids.size()), ids_(ids), tokens_(tokens),
        stream_(stream), resume_stride_(ResumeStride(c, (int)ids.size(), stream)), publish_(std::move(publish)),
        probs_((size_t)c.n_layer), layers_((size_t)c.n_layer), thumbs_((size_t)c.n_layer),
        resume_((size_t)c.n_layer), analysis_((size_t)c.n_layer), roles_(model::MakeHeadRoles(c.n_layer, c.n_head, ids)) {
    if (RolloutRefusal(n_).empty()) {  // above kRolloutMaxTokens pooled to blocks of rollout_factor_ tokens
      rollout_factor_ = RolloutFactor(n_);
      rollout_blocks_ = model::RolloutBlocks(n_, rollout_factor_);
      rollout_ = std::make_unique<model::Rollout>(rollout_blocks_);
      if (stream_ || rollout_factor_ > 1)
        pooled_rows_ = std::make_unique<model::PooledRolloutRows>(n_, rollout_factor_, mask_.causal());
      rollout_means_.resize((size_t)c.n_layer);
    }
    if (stream_) {
      role_rows_ = std::make_unique<model::RoleRows>(n_head_, ids, mask_.causal(), /*broad_from_row_figures=*/true);
      // The pass pools straight into the finest level kept (GPT-2 at 1024 tokens: not a factor-2 level, 25 MB
      // written a layer, for the factor-4 levels kept).
      const MapPyramid::StreamedFactors factors =
          MapPyramid::ForStreamedRun(c.n_layer, n_head_, n_, MapPyramid::kStreamedKeptBytes);
      kept_factor_ = factors.kept;
      pyramid_.Reset(n_head_, n_, n_, factors.pass, mask_);
    }
  }
  // The layers below `first` from an earlier run over the same tokens whose options agree below `first`.
  void Reuse(const ModelResult& earlier, int first) {
    for (int l = 0; l < first; ++l) {
      layers_[(size_t)l] = earlier.layers[(size_t)l];
      thumbs_[(size_t)l] = std::const_pointer_cast<Tensor>(earlier.thumbnails[(size_t)l]);
      for (int h = 0; h < n_head_; ++h) roles_.at(l, h) = earlier.roles.at(l, h);
      analysis_[(size_t)l] = earlier.analysis[(size_t)l];
    }
    // Rollout is a product over the layers: its state is the earlier run's R_(first-1). A first layer whose head
    // mean is 2R - I gives A^ = 0.5 (2R - I) + 0.5 I = R (rows already sum to 1), so R_0 = R and the next layers
    // multiply onto it, without the shared layers' maps (a streamed run has none). A pooled rollout likewise at
    // block level: R' [nb, nb] (the same tokens: the same factor).
    const Tensor* r = first > 0 && earlier.analysis[(size_t)first - 1] ? earlier.analysis[(size_t)first - 1]->rollout.get()
                                                                        : nullptr;
    const int nb = rollout_blocks_;
    if (rollout_ && r && !r->empty() && r->dim(1) == (size_t)nb && earlier.analysis[(size_t)first - 1]->rollout_factor == rollout_factor_) {
      std::vector<float> mean(r->data);  // [nb, nb]
      for (int i = 0; i < nb; ++i) {
        for (int j = 0; j < nb; ++j) mean[(size_t)i * nb + j] *= 2.0f;
        mean[(size_t)i * nb + i] -= 1.0f;
      }
      rollout_->AddMeanLayer(mean.data(), nullptr);
    } else if (first > 0) {
      rollout_.reset();  // nothing to go on (not expected: the same tokens are refused or not alike)
    }
    for (int l = 0; l <= first && l < (int)resume_.size(); ++l) resume_[(size_t)l] = earlier.resume_inputs[(size_t)l];
    layers_done_ = first;
    first_computed_ = first;
  }
  Status OnEmbeddings(const float* hidden, int n, int d) override {
    if (stream_) resume_[0] = std::make_shared<const std::vector<float>>(hidden, hidden + (size_t)n * d);  // layer 0's input
    return Status::Ok();
  }
  float* ProbsBuffer(int layer) override {
    auto t = std::make_shared<Tensor>();
    t->Resize({(size_t)n_head_, (size_t)n_, (size_t)n_});
    probs_[(size_t)layer] = t;
    return t->data.data();
  }
  void OnBlock(int, const RowBlock& block) override {  // the pass's threads: each block covers its own cells
    pyramid_.AddBlock(block);
    role_rows_->AddRows(block.head, block.r0, block.rows, block.probs);
    // Blocks of different heads cover the same rows at once: AddRows sums each block's rows alone, then adds them
    // in under its mutex (one writer at a time; in double, so the order the threads come in hardly shows).
    if (rollout_ && pooled_rows_) pooled_rows_->AddRows(block.r0, block.rows, block.probs);  // probs: [rows, n]
  }
  Status OnLayer(const model::LayerOutput& out) override {
    const size_t l = (size_t)out.layer;
    // The row figures, from the attention pass itself (RunOptions::row_figures).
    if (!out.metrics) return Status::Error("layer " + std::to_string(out.layer) + " has no row figures");
    if (!stream_ && !probs_[l]) return Status::Error("layer " + std::to_string(out.layer) + " was not written");
    auto maps = std::make_shared<LayerMaps>(ModelLayerMaps(config_, tokens_, stream_ ? nullptr : probs_[l],
                                                           out.layer, options_));
    maps->metrics = *out.metrics;
    MapSource source = maps->Source(0);
    if (stream_) {
      pyramid_.Finish();
      maps->pooled = true;
      maps->exact_cells_limit = kExactCellsLimit;
      if (Status s = role_rows_->ScoreInto(out.layer, &roles_, out.metrics); !s) return s;
      source = maps->Source(0);
      source.pyramid = &pyramid_;  // the thumbnails from the pass's own, finer levels
      // A thumbnail finer than the pass's finest level (a short streamed input) needs exact rows: this layer's q
      // and k, for this moment only.
      if (pyramid_.LevelFor((double)n_ / std::min(n_, kThumbnailCells)) < 0) {
        model::LayerQkCopy(out, &thumb_q_, &thumb_k_);
        source.q = &thumb_q_, source.k = &thumb_k_;
      }
    } else if (Status s = model::ScoreLayer(out.probs, out.layer, n_head_, n_, ids_, &roles_, out.metrics); !s) {
      return s;
    }
    // The overview's thumbnail of each head: max-pooled, so a one-hot row stays visible.
    const int t = std::min(n_, kThumbnailCells);
    auto thumb = std::make_shared<Tensor>();
    thumb->Resize({(size_t)n_head_, (size_t)t, (size_t)t});
    const MapWindow all{0, n_, 0, n_};
    for (int h = 0; h < n_head_; ++h) {
      ViewImage view = ComposeView(source, h, all, t, t, PoolKind::kMax);
      if (view.width != t || view.height != t) return Status::Error("thumbnail: unexpected size");
      std::copy(view.values.begin(), view.values.end(), thumb->data.begin() + (size_t)h * t * t);
    }
    if (stream_) {
      // The kept levels are taken from the pass's pyramid, not copied: the next layer's Reset makes its own coarser
      // levels, whose first touch (the kernel zeroing fresh pages) then falls in Finish, on every core.
      const int base = pyramid_.levels().front().factor;
      maps->pyramid = std::make_shared<const MapPyramid>(std::move(pyramid_).Coarsened(kept_factor_));
      if (l + 1 < layers_.size()) pyramid_.Reset(n_head_, n_, n_, base, mask_);  // next layer
      else pyramid_ = MapPyramid();  // the last layer's fine levels go before the run's end (its peak memory)
    }
    // The predictions read the residual stream after the last block (it lives in the run's workspace).
    if (l + 1 == layers_.size()) last_hidden_.assign(out.hidden, out.hidden + (size_t)n_ * out.d_model);
    analysis_[l] = Analyze(out, *maps);
    if (l + 1 < resume_.size() && (l + 1) % (size_t)resume_stride_ == 0)
      resume_[l + 1] = std::make_shared<const std::vector<float>>(out.hidden, out.hidden + (size_t)n_ * out.d_model);
    probs_[l].reset();  // the LayerMaps holds it now
    layers_[l] = std::move(maps);
    thumbs_[l] = thumb;
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
    r->resume_inputs = resume_;
    r->streamed = stream_;
    r->analysis = analysis_;
    r->rollout_pending = rollout_ && !rollout_made_;
  }
  const std::vector<float>& last_hidden() const { return last_hidden_; }  // [n, d_model], after the last block

 private:
  // The neuron view's q and k (whole-map runs), the value-norm scales, and R_l when the
  // run makes a rollout (RolloutRefusal): the run's thread, O(n d_model^2 + n^3) per layer.
  std::shared_ptr<const LayerAnalysis> Analyze(const model::LayerOutput& out, const LayerMaps& maps) {
    auto a = std::make_shared<LayerAnalysis>();
    // A streamed layer keeps none (its input makes them again: NeuronOf, WithExactRows).
    if (!stream_) {
      auto q = std::make_shared<Tensor>(), k = std::make_shared<Tensor>();
      model::LayerQkCopy(out, q.get(), k.get());
      a->q = q, a->k = k;
    }
    a->multiplier = out.multiplier;
    auto norms = std::make_shared<Tensor>();
    norms->Resize({(size_t)n_head_, (size_t)n_});
    model::ValueNormScales(model_, out, norms->data.data());
    a->value_norms = norms;
    if (rollout_) {  // what its step of the rollout needs (MakeRollout): whole maps are in `maps`
      a->rollout_factor = rollout_factor_;
      if (pooled_rows_) {  // the pooled head mean: the blocks' (streamed) or the whole maps' (probs: [n_head, n, n])
        if (out.probs && !stream_) pooled_rows_->AddMap(out.probs, n_head_);
        const size_t nb = (size_t)rollout_blocks_;
        // [nb, nb], not zero-filled first: TakeMean writes every cell (a fresh page is touched once, by its threads).
        rollout_means_[(size_t)out.layer].reset(new float[nb * nb]);
        pooled_rows_->TakeMean(n_head_, rollout_means_[(size_t)out.layer].get());
      }
    }
    return a;
  }

 public:
  // The rollout R_l of every layer this run computed, after the last one (the overview is on screen first): a
  // product over the layers, O(n^3) a layer (the exact one up to kRolloutMaxTokens), in layer order from the state
  // Reuse left. Each layer's analysis is replaced by one with its R_l (the published steps keep theirs).
  // Progress: kRolloutStage, layers done; cancelled within one layer.
  Status MakeRollout(const RunControl& control) {
    if (!rollout_) return Status::Ok();
    const int n_layer = (int)layers_.size();
    for (int l = first_computed_; l < n_layer; ++l) {
      control.Report(kRolloutStage, (size_t)l, (size_t)n_layer);
      if (control.cancelled()) return Status::Cancelled();
      const size_t nb = (size_t)rollout_blocks_;
      auto r = std::make_shared<Tensor>();
      r->Resize({1, nb, nb});
      if (!pooled_rows_) {  // whole maps, exact (n <= kRolloutMaxTokens): probs [n_head, n, n]
        rollout_->AddLayer(layers_[(size_t)l]->probs->data.data(), n_head_, r->data.data());
      } else {
        rollout_->AddMeanLayer(rollout_means_[(size_t)l].get(), r->data.data());
        rollout_means_[(size_t)l].reset();  // its memory goes as R_l comes
      }
      auto a = std::make_shared<LayerAnalysis>(*analysis_[(size_t)l]);  // shares q, k and the value norms
      a->rollout = r;
      analysis_[(size_t)l] = a;
    }
    control.Report(kRolloutStage, (size_t)n_layer, (size_t)n_layer);
    rollout_made_ = true;
    return Status::Ok();
  }
  bool makes_rollout() const { return rollout_ != nullptr; }

 private:

  const model::Model& model_;
  const model::ModelConfig& config_;
  const model::RunOptions& options_;
  Mask mask_;  // the model's (AttentionMask): a causal one lets the pyramid and rollout rows skip the masked half
  int n_head_, n_;
  std::vector<int> ids_;
  const std::vector<tokenize::Token>& tokens_;
  bool stream_;
  int resume_stride_;
  std::function<void(const LayerMapsSink&)> publish_;
  int layers_done_ = 0;
  std::vector<std::shared_ptr<Tensor>> probs_;
  std::vector<std::shared_ptr<const LayerMaps>> layers_;
  std::vector<std::shared_ptr<Tensor>> thumbs_;
  std::vector<std::shared_ptr<const std::vector<float>>> resume_;
  std::vector<std::shared_ptr<const LayerAnalysis>> analysis_;
  std::unique_ptr<model::Rollout> rollout_;  // [nb, nb]; null when RolloutRefusal refuses this run
  std::vector<std::unique_ptr<float[]>> rollout_means_;  // [n_layer][nb * nb]: each layer's pooled head mean until MakeRollout
  int first_computed_ = 0;                          // the first layer this run computes (Reuse)
  bool rollout_made_ = false;                       // MakeRollout finished
  int rollout_factor_ = 1, rollout_blocks_ = 0;  // RolloutFactor(n), nb = ceil(n / factor)
  // The layer's pooled head mean [nb, nb] (streamed runs, or whole maps above kRolloutMaxTokens).
  std::unique_ptr<model::PooledRolloutRows> pooled_rows_;
  model::HeadRoles roles_;
  // Streaming: the pass's pyramid (one, reset per layer), the role rows, the factor each layer keeps from.
  MapPyramid pyramid_;
  Tensor thumb_q_, thumb_k_;  // q, k of the layer just run, when its thumbnail needs exact rows
  std::unique_ptr<model::RoleRows> role_rows_;
  int kept_factor_ = 1;
  std::vector<float> last_hidden_;  // [n, d_model]
};

// The heads of `layer` an option set ablates, sorted (the order they were listed in changes nothing).
std::vector<int> AblatedHeadsOf(const model::RunOptions& o, int layer) {
  std::vector<int> heads;
  for (const model::AblatedHead& a : o.ablate)
    if (a.layer == layer) heads.push_back(a.head);
  std::sort(heads.begin(), heads.end());
  heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
  return heads;
}

// The first layer whose logit multiplier (what the what-ifs change) or set of ablated heads differs between two
// option sets: both act inside their layer, so every layer below it computes the same.
int FirstChangedLayer(const model::ModelConfig& c, const model::RunOptions& a, const model::RunOptions& b) {
  for (int l = 0; l < c.n_layer; ++l)
    if (model::AttentionMultiplier(c, l, a) != model::AttentionMultiplier(c, l, b) ||
        AblatedHeadsOf(a, l) != AblatedHeadsOf(b, l))
      return l;
  return c.n_layer;
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

// ModelSession::MakeWeightedOverview's job: each layer of a complete streamed run in turn, q and k made from its input
// (WithExactRows), its value-weighted pyramid (ValueWeightedLayerPyramid) kept from the thumbnails' level, published
// after each layer. Progress: layers done of n_layer; a newer request cancels it within one block.
std::shared_ptr<WeightedOverview> MakeWeightedOverviewNow(
    const WeightedOverviewRequest& r, const LatestWins<WeightedOverviewRequest, WeightedOverview>::Job& job) {
  auto made = std::make_shared<WeightedOverview>();
  made->generation = job.generation();
  made->request = r;
  const ModelResult& result = *r.result;
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
    AttentionTensors t = LayerAsTensors(result, l);
    if (Status s = WithExactRows(result, l, &t); !s) {
      made->status = s;
      return made;
    }
    Result<std::shared_ptr<const MapPyramid>> weighted =
        ValueWeightedLayerPyramid(result, l, *t.q, *t.k, control.cancel, factor);
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

}  // namespace

ModelSession::ModelSession(std::function<void()> on_change)
    : runs_("running the model", [this](const ModelRequest& r, const RunQueue::Job& job) { return Run(r, job); },
            on_change),
      open_("opening the model",
            [this](const std::string& dir, const OpenQueue::Job& job) { return OpenNow(dir, job); }, on_change),
      exact_("making q and k", [](const ExactRowsRequest& r, const LatestWins<ExactRowsRequest, ExactRows>::Job& job) {
        auto made = std::make_shared<ExactRows>();
        made->generation = job.generation();
        made->request = r;
        AttentionTensors t = LayerAsTensors(*r.result, r.layer);
        made->status = WithExactRows(*r.result, r.layer, &t);
        made->q = t.q, made->k = t.k;
        if (r.value_weighted && made->status.ok() && !t.q->empty()) {
          Result<std::shared_ptr<const MapPyramid>> weighted =
              ValueWeightedLayerPyramid(*r.result, r.layer, *t.q, *t.k, job.Control("value-weighted map").cancel);
          if (weighted.status().cancelled()) return std::shared_ptr<ExactRows>();  // a newer request runs
          if (weighted) made->weighted = *weighted;
          else made->status = weighted.status();
        }
        return made;
      }, on_change),
      weighted_overview_("making the value-weighted overview",
                         [](const WeightedOverviewRequest& r,
                            const LatestWins<WeightedOverviewRequest, WeightedOverview>::Job& job) {
                           return MakeWeightedOverviewNow(r, job);
                         }, std::move(on_change)) {}

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
  // After the layers, the predictions report their own stage ("predict", positions done of n).
  const bool predicting = p.stage == kPredictStage;
  const Str what = predicting ? Str::kModelPredictingOf : p.stage == kRolloutStage ? Str::kModelRolloutOf : Str::kModelLayerOf;
  return Trf(what, {std::to_string(predicting ? p.done : running), std::to_string(p.total)});
}

bool ModelSession::WaitIdle(double seconds) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto left = [&] { return std::max(0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count()); };
  return open_.WaitIdle(left()) && runs_.WaitIdle(left()) && exact_.WaitIdle(left()) &&
         weighted_overview_.WaitIdle(left());
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
  const int n = (int)ids.size();
  options.stream_maps = (double)c.n_layer * c.n_head * n * n > stream_above_cells_.load();
  options.caller_bytes = (size_t)KeptBytes(c, n, options.stream_maps);
  // Each finished layer is shown at once: a step holding the layers so far (every layer but the last; the last
  // comes with the final result).
  LayerMapsSink sink(*folder.model, c, options, ids, *tokens, options.stream_maps, [&](const LayerMapsSink& so_far) {
    auto step = std::make_shared<ModelResult>(*result);
    so_far.CopyInto(step.get());
    step->seconds = SecondsSince(t0);
    if (step->layers_done < step->n_layer()) job.Publish(step);
  });
  // A what-if over the same text: the layers below the first one it changes are the last run's (shared).
  std::shared_ptr<const ModelResult> earlier = runs_.latest();
  const int first = ResumeLayer(earlier.get(), request, ids, c, options);
  if (first > 0) {
    sink.Reuse(*earlier, first);
    options.first_layer = first;
    options.resume_hidden = earlier->resume_inputs[(size_t)first]->data();
  }
  result->resumed_from = first;
  result->status = model::RunModel(*folder.model, ids, options, &sink);
  if (result->status.cancelled()) return nullptr;
  if (result->status.ok()) {
    sink.CopyInto(result.get());
    if (sink.makes_rollout()) {  // every layer is shown before the rollout is made (and the predictions)
      auto maps_done = std::make_shared<ModelResult>(*result);
      maps_done->seconds = SecondsSince(t0);
      job.Publish(maps_done);
      if (Status s = sink.MakeRollout(options.control); s.cancelled()) return nullptr;
      else if (!s) result->status = s;
      else sink.CopyInto(result.get());
    }
  }
  // What the model predicts from the last hidden state (cancellable like the run); bert at its [MASK]s only.
  result->has_lm_head = model::HasLmHead(*folder.model);
  if (result->status.ok() && result->has_lm_head) {
    const std::vector<int> at = model::PredictsNextToken(c) ? std::vector<int>{} : MaskPositions(*tokens);
    if (model::PredictsNextToken(c) || !at.empty()) {
      // Every layer is shown before the predictions (on a long text they take a while: n x vocab logits).
      auto maps_done = std::make_shared<ModelResult>(*result);
      maps_done->seconds = SecondsSince(t0);
      job.Publish(maps_done);
      auto predicted = model::Predict(*folder.model, sink.last_hidden().data(), ids, std::min(kPredictTopK, c.vocab),
                                      at, options.control);
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
      baseline_ = Baseline{request.folder, request.text, result->predictions->loss};
    if (baseline_ && baseline_->folder == request.folder && baseline_->text == request.text)
      result->baseline_loss = baseline_->loss;
  }
  result->seconds = SecondsSince(t0);
  return result;
}

AttentionTensors LayerAsTensors(const ModelResult& result, int layer) {
  AttentionTensors t;
  if (result.has_layer(layer)) static_cast<LayerMaps&>(t) = *result.layers[(size_t)layer];
  return t;
}

Status WithExactRows(const ModelResult& result, int layer, AttentionTensors* t) {
  if (!t->pooled || !t->q->empty() || !result.has_layer(layer) || !result.request.folder) return Status::Ok();
  const std::shared_ptr<const std::vector<float>>& input =
      layer < (int)result.resume_inputs.size() ? result.resume_inputs[(size_t)layer] : nullptr;
  if (!input) return Status::Error("layer " + std::to_string(layer) + " kept no input to make q and k from");
  const model::Model& model = *result.request.folder->model;
  auto q = std::make_shared<Tensor>(), k = std::make_shared<Tensor>();
  if (Status s = model::LayerQk(model, layer, input->data(), (int)(input->size() / model.config().d_model), q.get(), k.get()); !s)
    return s;
  t->q = q, t->k = k;
  return Status::Ok();
}

bool ExactRows::For(const ModelResult& result, int layer) const {
  return request.result && request.layer == layer && result.has_layer(layer) && request.result->has_layer(layer) &&
         request.result->layers[(size_t)layer] == result.layers[(size_t)layer];
}

int ThumbnailFactor(int n) {
  int f = 1;
  while ((n + f - 1) / f > kThumbnailCells) f *= 2;
  return f;
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
                            cancel))
    return Status::Cancelled();
  // The levels the layer's attention pyramid kept (finer windows come from exact rows, as for attention).
  const int kept = keep_from_factor > 0 ? keep_from_factor
                   : maps.pyramid && !maps.pyramid->levels().empty() ? maps.pyramid->levels().front().factor : 1;
  return std::shared_ptr<const MapPyramid>(std::make_shared<const MapPyramid>(std::move(whole).Coarsened(kept)));
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

AttentionTensors StackedLayers(const ModelResult& r, bool hide_special, MapKind kind) {
  AttentionTensors stacked;
  // Every layer, or nothing (a streamed run keeps no whole map to stack).
  if (!r.complete() || !MapKindRefusal(r, kind).empty() || r.streamed) return stacked;
  auto probs = std::make_shared<Tensor>();
  for (int l = 0; l < r.n_layer(); ++l) {
    AttentionTensors layer = KindLayerForDisplay(r, l, kind, hide_special);
    if (layer.probs->empty()) return AttentionTensors();  // a pooled rollout keeps no whole map to stack
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
