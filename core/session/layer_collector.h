// The one layer collector: what every program keeps of a model run, layer by layer, as model::RunModel hands the
// layers over. The app's session (model_session.h), attnviz-cli model and the bench all run through it, so the
// same run gives the same maps, row figures, head roles, rollout and value norms in each; what differs is only what
// a program keeps (CollectPlan) and what it does with each layer as it passes (LayerTaps: a dump's files).
//
// Dimension glossary
//   n        tokens                 n_layer  blocks               n_head  query heads
//   nb       rollout cells a side (ceil(n / rollout_factor))      t       thumbnail cells a side (<= kThumbnailCells)
//
// Per layer, in OnLayer (the run's thread):
//   1. the layer's LayerMaps: whole probs [n_head, n, n] (kWhole, or the one kept layer of kNone), or a pyramid
//      of pooled levels (kStreamed: each block of rows pooled as the pass makes it), with the pass's row figures
//   2. its head roles (model/roles.h), from the whole map or the streamed rows
//   3. its thumbnails [n_head, t, t] (max-pooled), its analysis (q, k for the neuron view; value-norm scales
//      [n_head, n]; the pooled head mean or R_l for the rollout), its resume point (the residual stream entering
//      the next block)
//   4. the taps, then publish (the app shows the layer at once)
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "maps/layer_maps.h"
#include "maps/pyramid.h"
#include "maps/token_list.h"
#include "model/analysis.h"
#include "model/roles.h"
#include "model/run.h"
#include "tokenize/token.h"

namespace attnviz {

using model::kRolloutMaxTokens;  // exact rollout up to this many tokens, pooled above
using model::RolloutFactor;

constexpr int kThumbnailCells = 96;
// A run keeps every layer's maps whole up to this many cells over all layers (256 MiB of floats); a longer input
// streams them (RunOptions::stream_maps): per layer a pyramid, its input (what makes its q and k for exact rows),
// the row figures.
constexpr double kKeptMapsCells = double(1 << 26);
// A run over n tokens streams its maps: every layer's whole maps would pass `above` cells.
inline bool StreamsMaps(const model::ModelConfig& c, int n, double above = kKeptMapsCells) {
  return (double)c.n_layer * c.n_head * n * n > above;
}
// The residual stream entering a block, kept every few layers within this budget (whole-map runs; a streamed run
// keeps every layer's): a what-if reruns from the last kept layer at or before the first layer it changes.
constexpr double kResumeBytes = double(128u << 20);
// The most cells of exact rows the screen recomputes for one view of a streamed layer (LayerMaps::exact_cells_limit).
constexpr size_t kExactCellsLimit = size_t(1) << 23;

// Kept per layer of a run beside its maps (shared, immutable once published).
struct LayerAnalysis {
  // What the scores multiplied (after RoPE), for the neuron view: q [n_head, n, d_head], k [n_kv_head, n, d_head].
  SharedTensor q = EmptyTensor(), k = EmptyTensor();
  // q/k-norm families: q and k as projected, before the norms (same shapes); empty otherwise.
  SharedTensor q_before_norm = EmptyTensor(), k_before_norm = EmptyTensor();
  float multiplier = 1.0f;
  float softcap = 0.0f;  // the layer's attention soft cap (LayerOutput::softcap)
  SharedTensor value_norms = EmptyTensor();  // [n_head, n] = || v_j^(kv of h) W_o^h ||
  SharedTensor rollout = EmptyTensor();      // [1, nb, nb] = R_l, pooled R'_l when rollout_factor > 1 (nb =
                                             // ceil(n / rollout_factor)); empty when refused (RolloutRefusal)
  int rollout_factor = 1;                    // tokens a side of a rollout cell (RolloutFactor)
  // A streamed layer's role sums every kRoleSumStride rows (what a run keeping a prefix of the text starts from).
  std::shared_ptr<const model::RoleSumCheckpoints> role_sums;
};

// Why a run over n tokens makes no rollout (Ok when it does): the memory limit (of the pooled size above
// kRolloutMaxTokens). A streamed run makes it from the head mean its blocks add up.
Status RolloutRefusal(int n);

// What a collector keeps of each layer.
struct CollectPlan {
  enum class Maps {
    kWhole,     // every layer's probs [n_head, n, n]
    kStreamed,  // no whole map: a pyramid per layer, made from the pass's blocks (RunOptions::stream_maps)
    kNone,      // none (the taps see each layer's maps as they pass) but keep_layer's
  };
  Maps maps = Maps::kWhole;
  int keep_layer = -1;       // kNone: this layer's whole maps are kept anyway (a figure of it)
  bool thumbnails = true;    // the Overview's small maps (kWhole and kStreamed: kNone keeps no maps to make them of)
  bool neuron_qk = true;     // whole-map layers keep q and k (the neuron view; a streamed layer makes them again)
  bool rollout = true;       // attention rollout, unless RolloutRefusal refuses the run
  // R_l as each layer passes (a dump streams it out), else after the last layer (MakeRollout: the maps first).
  bool rollout_with_layers = false;
  bool value_norms = true;
  bool resume_points = true;  // the residual stream entering blocks (ResumeStride apart; each layer's when streamed)
  // !! kNone keeps of a passed layer only its row figures and roles: its analysis goes once the taps have seen it.

  // The app's runs (ModelSession): everything, the maps whole or streamed.
  static CollectPlan ForSession(bool stream);
  bool streamed() const { return maps == Maps::kStreamed; }
};

// What a program does with each layer besides keeping it, on the run's thread (the output is valid during the call).
struct LayerTaps {
  // hidden: [n, d_model], the residual stream after the embeddings (not called when a run resumes).
  std::function<Status(const float* hidden, int n, int d_model)> embeddings;
  // After the layer is collected (step 4): its output, and its maps and analysis as kept.
  std::function<Status(const model::LayerOutput& out, const LayerMaps& maps, const LayerAnalysis& analysis)> layer;
};

// What a collector holds so far; the session's ModelResult is one.
struct CollectedLayers {
  // [n_layer]: each layer's maps (probs [n_head, n, n] or a pyramid, row figures, mask, multiplier);
  // layers [0, layers_done) are there, the rest null while the run goes on.
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  int layers_done = 0;
  // [n_layer]: what the neuron view and the other map kinds need of each layer, beside `layers`.
  std::vector<std::shared_ptr<const LayerAnalysis>> analysis;
  model::HeadRoles roles;  // [n_layer, n_head]: what each head does (core/model/roles.h)
  // The overview's small maps: per layer [n_head, t, t], each head max-pooled to t = min(n, kThumbnailCells).
  std::vector<SharedTensor> thumbnails;
  // [n_layer]: the residual stream [n, d_model] entering block l, kept at some layers (null elsewhere): a what-if
  // that changes layer l or later reruns from the last kept layer at or before l, sharing the layers below it.
  std::vector<std::shared_ptr<const std::vector<float>>> resume_inputs;
  bool streamed = false;  // the maps were streamed (pooled): no layer keeps a whole map
  // The rollout comes after the last layer (MakeRollout), so the overview comes first: until then each computed
  // layer's analysis has no rollout yet.
  bool rollout_pending = false;
  int n_layer() const { return (int)layers.size(); }
  bool has_layer(int layer) const { return layer >= 0 && layer < layers_done; }
};

// Layer `layer`'s maps from a run's tokens (their readable form; the one list, shared) and that layer's probs
// [n_head, n, n] (shared, not copied; null: none), with the model's mask and how `options` made its logits
// (multiplier, d_head, scaling, temperature).
LayerMaps ModelLayerMaps(const model::ModelConfig& c, const TokenList& tokens,
                         const SharedTensor& layer_probs, int layer, const model::RunOptions& options);

// Layers between kept resume points, so they fit kResumeBytes (1 when streamed: every layer's input is kept, what
// makes its q and k).
int ResumeStride(const model::ModelConfig& c, int n, bool stream);
// The bytes a collector with `plan` keeps over a run of n tokens (RunOptions::caller_bytes), beside the tokens.
double CollectedBytes(const model::ModelConfig& c, int n, const CollectPlan& plan);
// The same with the run's token list, which every layer shares: counted once, whatever n_layer.
double CollectedBytes(const model::ModelConfig& c, const std::vector<tokenize::Token>& tokens, const CollectPlan& plan);
// The bytes the layers' token lists keep: each list counted once, however many layers share it (null layers: none).
double KeptTokenBytes(const CollectedLayers& layers);
// The smallest power-of-two factor whose pooled side ceil(n / factor) fits kThumbnailCells (1 when n does).
int ThumbnailFactor(int n);

class LayerCollector : public model::LayerSink {
 public:
  // publish: called after each layer (after the taps) with the collector so far (the run's thread).
  // options: the run's (what made each layer's logits), outlives the collector; tokens: the run's (every layer
  // shares the list).
  LayerCollector(const model::Model& m, const model::RunOptions& options, const TokenList& tokens,
                 const CollectPlan& plan, LayerTaps taps = {},
                 std::function<void(const LayerCollector&)> publish = {});
  ~LayerCollector() override;

  // The layers below `first` from an earlier run over the same tokens whose options agree below `first` (shared);
  // the run then resumes at `first` (RunOptions::first_layer, resume_hidden = earlier.resume_inputs[first]).
  void Reuse(const CollectedLayers& earlier, int first);
  // Rows [0, rows) of an earlier run over ids sharing them (RunOptions::prefix keeps that many rows,
  // PrefixPlan::rows); `earlier` outlives the run. Whole maps: each layer's maps start with those rows (ProbsBuffer;
  // the run writes the rest), and the rows of q and k before their norms, which a reused run does not make, are
  // taken from it. Streamed maps (earlier streamed too): what the kept rows added to each layer's pyramid levels,
  // role sums, value norms and rollout rows is taken from it up to a row `from` <= rows (a multiple of the kept
  // pyramid factor, the rollout factor and kRoleSumStride), so the run hands over the blocks of the kept rows from
  // `from` on only (RunOptions::prefix_blocks_from); the result has a whole run's bits (the pooled rollout: to
  // float rounding, as any streamed run's). Returns `from` (0 when earlier does not fit: every kept row's blocks
  // are then needed; whole maps: rows).
  int KeepRows(const CollectedLayers& earlier, int rows);

  Status OnEmbeddings(const float* hidden, int n, int d) override;
  float* ProbsBuffer(int layer) override;
  void OnBlock(int layer, const RowBlock& block) override;
  Status OnLayer(const model::LayerOutput& out) override;

  // The rollout R_l of every layer this run computed, after the last one (the plan's deferred rollout): a product
  // over the layers, O(n^3) a layer, in layer order from the state Reuse left. Each layer's analysis is replaced by
  // one with its R_l (the published steps keep theirs). Progress: kRolloutStage, layers done; cancelled within one
  // layer.
  Status MakeRollout(const RunControl& control);
  bool makes_rollout() const;       // the run makes a rollout (the plan asks and RolloutRefusal allows)
  bool rollout_pending() const;     // ... and it is still to be made (MakeRollout)

  // The layers so far (shared: the maps are never copied), into `r`.
  void CopyInto(CollectedLayers* r) const;
  const CollectedLayers& collected() const;
  const std::vector<float>& last_hidden() const;  // [n, d_model], after the last block (empty before it)
  std::shared_ptr<const std::vector<float>> shared_last_hidden() const;  // the same vector, shared (null before)

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The stage MakeRollout reports its progress under.
inline constexpr const char* kRolloutStage = "rollout";

}  // namespace attnviz
