// The trained-model side of the app: opens a model folder and runs it off the UI thread, on the same
// "latest request wins" queue as the Worker's (latest_wins.h): a newer request cancels the running one (RunModel
// checks the flag per layer and per block of rows), so only the latest settings finish; progress says which layer
// is running. Each layer is published as it finishes (a ModelResult with layers_done < n_layer), so the panels
// fill in layer by layer; with an LM head, every layer is published once more before the predictions (model::Predict
// over the last hidden state) are made, and the final result carries them. Results are immutable and shared: every layer's maps are their own LayerMaps, never
// copied for the screen.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "maps/layer_maps.h"
#include "attention/metrics.h"
#include "model_figure.h"
#include "model/predict.h"
#include "model_analysis.h"
#include "model/roles.h"
#include "latest_wins.h"
#include "model_folder.h"
#include "sandbox/pipeline.h"
#include "base/status.h"
#include "base/tensor.h"
#include "sandbox/text.h"

namespace attnviz {

// What the user asks of a model: the text and the what-ifs.
struct ModelRequest {
  std::shared_ptr<const ModelFolder> folder;
  std::string text;
  bool no_scale = false;                 // what-if: drop 1/sqrt(d_head)
  float temperature = 1.0f;              // what-if: logits / T
  std::vector<int> whatif_layers;        // the layers the what-ifs act on; empty = all
  std::vector<model::AblatedHead> ablated;  // what-if: these heads output zero (on every layer they name)
  bool operator==(const ModelRequest& o) const {
    return folder == o.folder && text == o.text && no_scale == o.no_scale && temperature == o.temperature &&
           whatif_layers == o.whatif_layers && ablated == o.ablated;
  }
  bool operator!=(const ModelRequest& o) const { return !(*this == o); }
  ModelWhatIfs what_ifs() const { return {no_scale, temperature, whatif_layers, ablated}; }  // app/common/model_figure.h
  // No what-if and no ablation: the model as trained (its loss is the baseline the others are compared with).
  bool plain() const { return !what_ifs().any() && ablated.empty(); }
  bool SameText(const ModelRequest& o) const { return folder == o.folder && text == o.text; }
};

// How many next tokens a run keeps per position (ModelResult::predictions).
constexpr int kPredictTopK = 5;

constexpr int kThumbnailCells = 96;
// A run keeps every layer's maps whole up to this many cells over all layers (256 MiB of floats); a longer input
// streams them (RunOptions::stream_maps): per layer a pyramid, its input (what makes its q and k for exact rows),
// the row figures.
constexpr double kKeptMapsCells = double(1 << 26);
// The residual stream entering a block, kept every few layers within this budget (whole-map runs; a streamed run
// keeps every layer's): a what-if reruns from the last kept layer at or before the first layer it changes.
constexpr double kResumeBytes = double(128u << 20);
// The most cells of exact rows the screen recomputes for one view of a streamed layer (LayerMaps::exact_cells_limit).
constexpr size_t kExactCellsLimit = size_t(1) << 23;

struct ModelResult;

// The q and k of one streamed layer, made from its input (WithExactRows) off the UI thread: at 8192 tokens on the
// SmolLM2 shape a quarter of a second, which a layer switch must not wait for (the view reads the finest kept
// level until they are there).
// value_weighted: the layer's value-weighted pyramid too (the Heads panel shows that kind): made from the same q and k
// (ValueWeightedLayerPyramid), a pass over the layer's rows.
struct ExactRowsRequest {
  std::shared_ptr<const ModelResult> result;
  int layer = 0;
  bool value_weighted = false;
  bool operator==(const ExactRowsRequest& o) const {
    return result == o.result && layer == o.layer && value_weighted == o.value_weighted;
  }
  bool operator!=(const ExactRowsRequest& o) const { return !(*this == o); }
};
struct ExactRows {
  uint64_t generation = 0;
  ExactRowsRequest request;
  Status status;
  SharedTensor q, k;  // [n_head, n, d_head], [n_kv_head, n, d_head]
  std::shared_ptr<const MapPyramid> weighted;  // request.value_weighted: the layer's value-weighted pyramid
  // Made for `layer` of `result` (the same layer's maps: a later step of the same run shares them).
  bool For(const ModelResult& result, int layer) const;
};

// The Overview of a streamed run in the value-weighted kind: every layer's value-weighted pyramid, made one layer after
// the other in the background (ModelSession::MakeWeightedOverview: q and k from each layer's kept input, a pass over
// its rows) and kept only from the level the thumbnails read (at most kThumbnailCells a side: a few hundred KiB a
// layer). Published after each layer, so the Overview fills in as they come.
struct WeightedOverviewRequest {
  std::shared_ptr<const ModelResult> result;
  bool operator==(const WeightedOverviewRequest& o) const { return result == o.result; }
  bool operator!=(const WeightedOverviewRequest& o) const { return !(*this == o); }
};
struct WeightedOverview {
  uint64_t generation = 0;
  WeightedOverviewRequest request;
  Status status;
  std::vector<std::shared_ptr<const MapPyramid>> layers;  // [n_layer]: null until made
  int layers_done = 0;
  bool complete() const { return status.ok() && layers_done == (int)layers.size(); }
};

struct ModelResult {
  uint64_t generation = 0;
  ModelRequest request;
  Status status;
  std::vector<tokenize::Token> tokens;        // as the model sees them
  // [n_layer]: each layer's maps (probs [n_head, n, n], row figures, mask, multiplier), as every room reads them;
  // layers [0, layers_done) are there, the rest null while the run goes on.
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  int layers_done = 0;
  // [n_layer]: what the neuron view and the other map kinds need of each layer (model_analysis.h), beside `layers`.
  std::vector<std::shared_ptr<const LayerAnalysis>> analysis;
  model::HeadRoles roles;                     // [n_layer, n_head]: what each head does (core/model/roles.h)
  // The overview's small maps: per layer [n_head, t, t], each head max-pooled to t = min(n, kThumbnailCells)
  // (core/maps ComposeView), made as the layers arrive, so the overview never uploads whole maps.
  std::vector<SharedTensor> thumbnails;
  // [n_layer]: the residual stream [n, d_model] entering block l, kept at some layers (null elsewhere): a what-if
  // that changes layer l or later reruns from the last kept layer at or before l, sharing the layers below it.
  std::vector<std::shared_ptr<const std::vector<float>>> resume_inputs;
  int resumed_from = 0;  // the first layer this run computed (0: all of them)
  bool streamed = false;  // the maps were streamed (pooled): no layer keeps a whole map
  // The run makes its rollout (RolloutRefusal) after the last layer, so the overview comes first: until then
  // (steps while the layers run, and the overview-complete step) each computed layer's analysis has no rollout yet.
  bool rollout_pending = false;
  double seconds = 0;  // since the request started: to this step (the whole run once complete())
  // With the last layer, when the checkpoint has an LM head (has_lm_head): the top kPredictTopK next tokens at
  // every position (bert: at each [MASK], none without one) and the mean next-token loss (model/predict.h);
  // null while the run goes on or without an LM head.
  bool has_lm_head = false;
  std::shared_ptr<const model::Predictions> predictions;
  // The loss of the same folder and text with no what-ifs and no ablations (request.plain()), once such a run
  // finished in this session; unset before that.
  std::optional<double> baseline_loss;
  int n_layer() const { return (int)layers.size(); }
  bool has_layer(int layer) const { return layer >= 0 && layer < layers_done; }
  bool complete() const { return status.ok() && layers_done == n_layer(); }
};

// A folder opened in the background.
struct OpenedModel {
  uint64_t generation = 0;
  std::string request;  // the folder asked for
  Status status;
  // The folder open now: this one, or the one open before when this failed.
  std::shared_ptr<const ModelFolder> folder;
};

class ModelSession {
 public:
  // on_change: called on the session's threads after every submission, published step and finished job (an open, a
  // run, exact rows, the weighted overview): the app wakes its event wait with it, tests watch the steps.
  explicit ModelSession(std::function<void()> on_change = {});

  // Opens a folder in the background (a run on the old folder is cancelled); folder() then has it, or
  // open_error() says why not.
  void Open(const std::string& dir);
  bool opening() const { return open_.busy(); }
  // The folder last opened successfully, and the last open error in the UI's language ("" when it worked).
  std::shared_ptr<const ModelFolder> folder() const;
  std::string open_error() const;
  uint64_t open_generation() const { return open_.finished(); }  // counts finished opens

  void Submit(const ModelRequest& request) { runs_.Submit(request); }
  // Makes the q and k of a streamed layer in the background (the latest request wins); exact_rows() has them, and
  // with value_weighted its value-weighted pyramid (ExactRows::weighted).
  void MakeExactRows(std::shared_ptr<const ModelResult> result, int layer, bool value_weighted = false) {
    exact_.Submit({std::move(result), layer, value_weighted});
  }
  std::shared_ptr<const ExactRows> exact_rows() const { return exact_.latest(); }
  bool making_exact_rows() const { return exact_.busy(); }
  // Makes the Overview's value-weighted thumbnails of a complete streamed run in the background (WeightedOverview;
  // the latest request wins); weighted_overview() has the layers made so far.
  void MakeWeightedOverview(std::shared_ptr<const ModelResult> result) { weighted_overview_.Submit({std::move(result)}); }
  std::shared_ptr<const WeightedOverview> weighted_overview() const { return weighted_overview_.latest(); }
  bool making_weighted_overview() const { return weighted_overview_.busy(); }
  void CancelWeightedOverview() { weighted_overview_.CancelRunning(); }  // the layers made so far stay
  // Runs over more cells than this (n_layer * n_head * n * n) stream their maps (tests lower it).
  void set_stream_above_cells(double cells) { stream_above_cells_ = cells; }
  // The latest run or step of a run (layers_done of n_layer).
  std::shared_ptr<const ModelResult> latest() const { return runs_.latest(); }
  bool running() const { return runs_.busy(); }
  // "layer 3 of 12" while running, "" otherwise; fraction in [0, 1].
  std::string progress(float* fraction) const;
  bool WaitIdle(double seconds) const;  // tests

 private:
  using OpenQueue = LatestWins<std::string, OpenedModel>;
  using RunQueue = LatestWins<ModelRequest, ModelResult>;
  std::shared_ptr<OpenedModel> OpenNow(const std::string& dir, const OpenQueue::Job& job);
  std::shared_ptr<ModelResult> Run(const ModelRequest& request, const RunQueue::Job& job);

  std::atomic<double> stream_above_cells_{kKeptMapsCells};
  // The last plain run's loss (ModelResult::baseline_loss), for the runs of the same folder and text after it.
  struct Baseline {
    std::shared_ptr<const ModelFolder> folder;
    std::string text;
    double loss = 0;
  };
  mutable std::mutex baseline_mutex_;
  std::optional<Baseline> baseline_;
  // Declared last: their threads start once the session exists and stop before it goes.
  RunQueue runs_;
  OpenQueue open_;
  LatestWins<ExactRowsRequest, ExactRows> exact_;
  LatestWins<WeightedOverviewRequest, WeightedOverview> weighted_overview_;
};

// One layer of a model result as the AttentionTensors the Heads and Export panels draw: its LayerMaps, shared
// tensors (nothing deep-copied); the sandbox-only numbers stay empty.
AttentionTensors LayerAsTensors(const ModelResult& result, int layer);
// A streamed layer keeps its input rather than q and k: q and k of `layer` made again from it (model::LayerQk: the
// pass's own bits) into t, for exact rows and hover of the layer on screen (one layer at a time, in the background:
// MakeExactRows). Ok, doing nothing, when t has them or needs none (whole maps).
Status WithExactRows(const ModelResult& result, int layer, AttentionTensors* t);
// The value-weighted pyramid of a streamed layer (model_analysis.h: the value-weighted kind), from its q and k (made by
// WithExactRows): the pass's blocks times the layer's value norms [n_head, n] (core ValueWeightedPyramid), at the base
// factor of the layer's own pass, kept from the factor its attention pyramid was kept at (the same memory).
// q [n_head, n, d_head], k [n_kv_head, n, d_head]. Status::Cancelled() when cancel stopped it.
// keep_from_factor > 0: kept from the finest level at least that coarse instead (the Overview's thumbnails).
Result<std::shared_ptr<const MapPyramid>> ValueWeightedLayerPyramid(const ModelResult& result, int layer, const Tensor& q,
                                                                    const Tensor& k,
                                                                    const std::atomic<bool>* cancel = nullptr,
                                                                    int keep_from_factor = 0);
// The smallest power-of-two factor whose pooled side ceil(n / factor) fits kThumbnailCells (1 when n does).
int ThumbnailFactor(int n);
// The same with the special tokens' rows and columns left out when `hide_special` (then a copy).
AttentionTensors LayerForDisplay(const ModelResult& result, int layer, bool hide_special);
// Every layer's heads as one stack [n_layer * n_head, n, n] (map k = layer k / n_head, head k % n_head),
// for the overview figure: a copy, made by the export job off the UI thread.
AttentionTensors StackedLayers(const ModelResult& result, bool hide_special, MapKind kind = MapKind::kAttention);
// Heads sharing one key/value head (grouped-query attention): query head h reads kv head GroupOf(h).
int KvGroupOf(const model::ModelConfig& config, int head);

}  // namespace attnviz
