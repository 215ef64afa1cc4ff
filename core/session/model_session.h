// The model session: opens a model and runs it off the caller's thread on "latest request wins" queues
// (latest_wins.h): a newer request cancels the running one (RunModel checks the flag per layer and per block of
// rows), so only the latest settings finish; progress says which layer is running. Each layer is published as it
// finishes (a ModelResult with layers_done < n_layer), so a viewer fills in layer by layer; with an LM head, every
// layer is published once more before the predictions (model::Predict over the last hidden state) are made, and the
// final result carries them. Results are immutable and shared: every layer's maps are their own LayerMaps, never
// copied for the screen. The layers come from the one collector (layer_collector.h) that attnviz-cli and the bench
// run too. No UI here: the app turns a status into words and draws what the results hold.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "maps/layer_stack.h"
#include "maps/pyramid.h"
#include "model/predict.h"
#include "model/prefix_cache.h"
#include "session/latest_wins.h"
#include "session/layer_collector.h"
#include "session/loaded_model.h"
#include "session/what_ifs.h"

namespace attnviz {

// What the user asks of a model: the text and the what-ifs.
struct ModelRequest {
  std::shared_ptr<const ModelFolder> folder;
  std::string text;
  bool no_scale = false;                 // what-if: drop 1/sqrt(d_head)
  float temperature = 1.0f;              // what-if: logits / T
  std::vector<int> whatif_layers;        // the layers the what-ifs act on; empty = all
  std::vector<model::AblatedHead> ablated;  // what-if: these heads output zero (on every layer they name)
  bool no_softcap = false;               // what-if: drop the attention soft cap (models with one only)
  bool no_qk_norm = false;               // what-if: skip the q/k norms (models with them only)
  bool operator==(const ModelRequest& o) const {
    return folder == o.folder && text == o.text && no_scale == o.no_scale && temperature == o.temperature &&
           whatif_layers == o.whatif_layers && ablated == o.ablated && no_softcap == o.no_softcap &&
           no_qk_norm == o.no_qk_norm;
  }
  bool operator!=(const ModelRequest& o) const { return !(*this == o); }
  ModelWhatIfs what_ifs() const {
    ModelWhatIfs w;
    w.no_scale = no_scale;
    w.temperature = temperature;
    w.layers = whatif_layers;
    w.ablate = ablated;
    w.no_softcap = no_softcap;
    w.no_qk_norm = no_qk_norm;
    return w;
  }
  // No what-if and no ablation: the model as trained (its loss is the baseline the others are compared with).
  bool plain() const { return !what_ifs().any() && ablated.empty(); }
  bool SameText(const ModelRequest& o) const { return folder == o.folder && text == o.text; }
};

// A request made ready to run: the model's tokens of the text and the run options its what-ifs make. The session,
// the ablation scan and attnviz-cli model all start here.
struct PreparedRun {
  std::vector<tokenize::Token> tokens;
  std::vector<int> ids;
  model::RunOptions options;
};
Result<PreparedRun> PrepareModelRun(const ModelFolder& folder, const std::string& text, const ModelWhatIfs& what_ifs);
// The same for a request (its folder, text and what-ifs); an error when no model is open.
Result<PreparedRun> PrepareModelRun(const ModelRequest& request);

// How many next tokens a run keeps per position (ModelResult::predictions).
constexpr int kPredictTopK = 5;

struct ModelResult;

// The q and k of one streamed layer, made from its input (ExactQk) off the UI thread: a whole layer's projections
// over a long input, which a layer switch must not wait for (the view reads the finest kept level until they are
// there).
// value_weighted: the layer's value-weighted pyramid too: made from the same q and k (ValueWeightedLayerPyramid).
// A request's result held weakly: the session's queue keeps its last request, and the answer names it, but neither
// keeps a shown run's maps alive once the app has moved to a newer run (a gone result is answered with nothing).
using WeakResult = std::weak_ptr<const ModelResult>;
// a and b name the same result (or both none).
inline bool SameResult(const WeakResult& a, const WeakResult& b) { return !a.owner_before(b) && !b.owner_before(a); }
// w names r, still there.
inline bool NamesResult(const WeakResult& w, const std::shared_ptr<const ModelResult>& r) {
  return r && SameResult(w, r) && !w.expired();
}

// !! Held strongly: asked of a step of a run still streaming in, the job runs after the app has moved to the next
// step of the same run (whose layers it shares); the next request lets it go.
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
  SharedTensor q = EmptyTensor(), k = EmptyTensor();  // [n_head, n, d_head], [n_kv_head, n, d_head]
  std::shared_ptr<const MapPyramid> weighted;  // request.value_weighted: the layer's value-weighted pyramid
  // Made for `layer` of `result` (the same layer's maps: a later step of the same run shares them).
  bool For(const ModelResult& result, int layer) const;
};

// The value-weighted thumbnails of a complete streamed run: every layer's value-weighted pyramid, made one layer
// after the other in the background and kept only from the level the thumbnails read (at most kThumbnailCells a
// side). Published after each layer, so the Overview fills in as they come.
// Of a complete run: held weakly (WeakResult; a newer run is asked again).
struct WeightedOverviewRequest {
  WeakResult result;
  bool Of(const std::shared_ptr<const ModelResult>& r) const { return NamesResult(result, r); }
  bool operator==(const WeightedOverviewRequest& o) const { return SameResult(result, o.result); }
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

// The top tokens at a few positions of a run whose layers are done, from its last stream (ModelResult::last_hidden;
// model::TopTokensAt: those rows through the LM head alone), while the run's predictions over every position are
// still to come: what a hovered or pinned token shows at once.
// The result is held weakly (WeakResult).
struct TopTokensRequest {
  WeakResult result;
  std::vector<int> positions;
  bool Of(const std::shared_ptr<const ModelResult>& r) const { return NamesResult(result, r); }
  bool operator==(const TopTokensRequest& o) const { return SameResult(result, o.result) && positions == o.positions; }
  bool operator!=(const TopTokensRequest& o) const { return !(*this == o); }
};
struct TopTokens {
  uint64_t generation = 0;
  TopTokensRequest request;
  Status status;
  std::vector<model::PositionTop> positions;  // in request.positions' order
};

// A run or a step of one: the collected layers (layer_collector.h) and what the session adds.
struct ModelResult : CollectedLayers {
  uint64_t generation = 0;
  ModelRequest request;
  Status status;
  TokenList tokens;  // as the model sees them: the one list every layer's maps share
  int resumed_from = 0;  // the first layer this run computed (0: all of them)
  // Rows kept from the run before (a new text sharing its start: causal prefix reuse, model/prefix_cache.h): every
  // layer computed only the rows after them; 0 when none were (prefix_refused says why, "" when nothing was tried).
  int prefix_rows = 0;
  std::string prefix_refused;
  // Streamed maps: of those rows, the first this many added to every layer's pyramid, role sums, value norms and
  // rollout what they had in the last run, so their blocks were not made again (LayerCollector::KeepRows).
  int prefix_pooled_rows = 0;
  double seconds = 0;    // since the request started: to this step (the whole run once complete())
  // With the last layer, when the checkpoint has an LM head (has_lm_head): the top kPredictTopK next tokens at
  // every position (bert: at each [MASK], none without one) and the mean next-token loss (model/predict.h);
  // null while the run goes on or without an LM head.
  bool has_lm_head = false;
  std::shared_ptr<const model::Predictions> predictions;
  // The residual stream after the last block [n, d_model], once every layer is done (with an LM head): what the
  // predictions are made of, and the top tokens of a position asked before they are (ModelSession::MakeTopTokens).
  std::shared_ptr<const std::vector<float>> last_hidden;
  // The loss of the same folder and text with no what-ifs and no ablations (request.plain()), once such a run
  // finished in this session; unset before that.
  std::optional<double> baseline_loss;
  // That plain run's log p(next token) per position (Predictions::next_log_prob, [n - 1]): the per-token change a
  // what-if makes (the app's token-loss view); null when baseline_loss is unset.
  std::shared_ptr<const std::vector<double>> baseline_next_log_prob;
  bool complete() const { return status.ok() && layers_done == n_layer(); }
};

// What a run shows: its stacks of layers (the layers shared, nothing copied). A decoder-only model and bert alike
// publish one `self` stack over the model's tokens; the layers not made yet are null.
std::vector<LayerStack> StacksOf(const ModelResult& result);

// A folder opened in the background.
struct OpenedModel {
  uint64_t generation = 0;
  std::string request;  // the folder asked for
  Status status;
  // The folder open now: this one, or the one open before when this failed.
  std::shared_ptr<const ModelFolder> folder;
};

// What a running model job is doing, for a progress bar: the layers, the rollout after them, the predictions.
struct ModelProgress {
  enum class Stage { kIdle, kLayers, kRollout, kPredict };
  Stage stage = Stage::kIdle;
  size_t done = 0, total = 0;
  double fraction = 0;  // in [0, 1]
};

class ModelSession {
 public:
  // How a path becomes a model (the programs' OpenModelFolder: folders, .gguf files, the bundled model).
  using Opener = std::function<Result<std::shared_ptr<const ModelFolder>>(const std::string& path)>;
  // on_change: called on the session's threads after every submission, published step and finished job (an open, a
  // run, exact rows, the weighted overview): the app wakes its event wait with it, tests watch the steps.
  explicit ModelSession(Opener opener, std::function<void()> on_change = {});

  // Opens a folder in the background (a run on the old folder is cancelled); folder() then has it, or
  // open_status() says why not.
  void Open(const std::string& dir);
  bool opening() const { return open_.busy(); }
  // The folder last opened successfully, and the last open's status (ok when it worked).
  std::shared_ptr<const ModelFolder> folder() const;
  Status open_status() const;
  uint64_t open_generation() const { return open_.finished(); }  // counts finished opens

  void Submit(const ModelRequest& request) { runs_.Submit(request); }
  // Makes the q and k of a streamed layer in the background (the latest request wins); exact_rows() has them, and
  // with value_weighted its value-weighted pyramid (ExactRows::weighted).
  void MakeExactRows(std::shared_ptr<const ModelResult> result, int layer, bool value_weighted = false) {
    exact_.Submit({std::move(result), layer, value_weighted});
  }
  std::shared_ptr<const ExactRows> exact_rows() const { return exact_.latest(); }
  bool making_exact_rows() const { return exact_.busy(); }
  // Makes the value-weighted thumbnails of a complete streamed run in the background (WeightedOverview; the latest
  // request wins); weighted_overview() has the layers made so far.
  void MakeWeightedOverview(std::shared_ptr<const ModelResult> result) { weighted_overview_.Submit({std::move(result)}); }
  std::shared_ptr<const WeightedOverview> weighted_overview() const { return weighted_overview_.latest(); }
  // The top kPredictTopK tokens at `positions` of a result whose last_hidden is there (TopTokens; the latest request
  // wins): a few rows through the LM head, not waiting for the run's predictions over every position.
  void MakeTopTokens(std::shared_ptr<const ModelResult> result, std::vector<int> positions) {
    top_tokens_.Submit({std::move(result), std::move(positions)});
  }
  std::shared_ptr<const TopTokens> top_tokens() const { return top_tokens_.latest(); }
  bool making_weighted_overview() const { return weighted_overview_.busy(); }
  void CancelWeightedOverview() { weighted_overview_.CancelRunning(); }  // the layers made so far stay
  // Runs over more cells than this (n_layer * n_head * n * n) stream their maps (tests lower it).
  void set_stream_above_cells(double cells) { stream_above_cells_ = cells; }
  // The latest run or step of a run (layers_done of n_layer).
  std::shared_ptr<const ModelResult> latest() const { return runs_.latest(); }
  bool running() const { return runs_.busy(); }
  // The bytes of the rows kept for the next run (prefix reuse), as the last run left them.
  size_t kept_prefix_bytes() const { return kept_prefix_bytes_; }
  ModelProgress progress() const;
  bool WaitIdle(double seconds) const;  // tests

 private:
  using OpenQueue = LatestWins<std::string, OpenedModel>;
  using RunQueue = LatestWins<ModelRequest, ModelResult>;
  std::shared_ptr<OpenedModel> OpenNow(const std::string& dir, const OpenQueue::Job& job);
  std::shared_ptr<ModelResult> Run(const ModelRequest& request, const RunQueue::Job& job);

  Opener opener_;
  std::atomic<double> stream_above_cells_{kKeptMapsCells};
  // The last plain run's loss (ModelResult::baseline_loss), for the runs of the same folder and text after it.
  struct Baseline {
    std::shared_ptr<const ModelFolder> folder;
    std::string text;
    double loss = 0;
    std::shared_ptr<const std::vector<double>> next_log_prob;
  };
  mutable std::mutex baseline_mutex_;
  std::optional<Baseline> baseline_;
  // The rows a causal whole-map run keeps for the next (runs_' thread only), and the result whose maps hold them.
  model::PrefixState prefix_;
  uint64_t prefix_generation_ = 0;
  std::atomic<size_t> kept_prefix_bytes_{0};
  // Declared last: their threads start once the session exists and stop before it goes.
  RunQueue runs_;
  OpenQueue open_;
  LatestWins<ExactRowsRequest, ExactRows> exact_;
  LatestWins<WeightedOverviewRequest, WeightedOverview> weighted_overview_;
  LatestWins<TopTokensRequest, TopTokens> top_tokens_;
};

// A streamed layer keeps its input rather than q and k: q and k of `layer` made again from it (model::LayerQk: the
// pass's own bits), for exact rows and hover of the layer on screen. Both empty for a whole-map layer (exact
// already) or one not there yet.
Status ExactQk(const ModelResult& result, int layer, SharedTensor* q, SharedTensor* k);
// The value-weighted pyramid of a streamed layer, from its q and k (ExactQk): the pass's blocks times the layer's
// value norms [n_head, n] (core ValueWeightedPyramid), at the base factor of the layer's own pass, kept from the
// factor its attention pyramid was kept at (the same memory).
// q [n_head, n, d_head], k [n_kv_head, n, d_head]. Status::Cancelled() when cancel stopped it.
// keep_from_factor > 0: kept from the finest level at least that coarse instead (the Overview's thumbnails).
Result<std::shared_ptr<const MapPyramid>> ValueWeightedLayerPyramid(const ModelResult& result, int layer, const Tensor& q,
                                                                    const Tensor& k,
                                                                    const std::atomic<bool>* cancel = nullptr,
                                                                    int keep_from_factor = 0);
// Heads sharing one key/value head (grouped-query attention): query head h reads kv head KvGroupOf(h).
int KvGroupOf(const model::ModelConfig& config, int head);

}  // namespace attnviz
