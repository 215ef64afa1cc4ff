// The forward pass of a loaded model over token ids, keeping every layer's per-head attention probs and the
// residual stream, with per-layer what-ifs (no 1/sqrt(d_head), a temperature) that change everything downstream.
//
// Dimension glossary
//   n        tokens                       n_layer  blocks            d_model  residual width
//   n_head   query heads (probs are kept per query head, also under grouped-query attention)
//
// One block for every family, as its recipe says (config.h BlockRecipe; each family's file core/model/arch/<family>.cpp):
//   pre-norm   x += attn(norm(x)); x += mlp(norm(x))          (gpt2 LayerNorm; llama RMSNorm, RoPE, GQA, SwiGLU)
//   post-norm  x = norm(x + attn(x)); x = norm(x + mlp(x))    (bert, after a LayerNorm of the embeddings; no mask)
// Kept: probs [n_layer, n_head, n, n] (softmax output; masked entries exactly 0) and
//       hidden [n_layer + 1, n, d_model]: after the embeddings, then after each block, before any final norm
//       (for bert, post-LN: each layer's output).
#pragma once
#include <atomic>
#include <functional>
#include <vector>

#include "attention/attention.h"
#include "attention/metrics.h"
#include "model/model.h"
#include "base/run_control.h"
#include "base/status.h"
#include "base/tensor.h"

namespace attnviz::model {

// What an ablated head's output (its columns of z, [n, d_head], before the output projection) becomes:
//   kZero  zeros: the head is gone (its share of the projection's bias stays)
//   kMean  its mean over the text's n positions, at every position: the head keeps its average contribution and
//          loses what it says about each position (the mean reads every position, later ones too, as in torch)
enum class AblateMode { kZero, kMean };

// One head of one layer, 0-based, and how it is ablated.
struct AblatedHead {
  int layer = 0, head = 0;
  AblateMode mode = AblateMode::kZero;
  bool operator==(const AblatedHead& o) const { return layer == o.layer && head == o.head && mode == o.mode; }
  bool operator!=(const AblatedHead& o) const { return !(*this == o); }
};

// Activation patching (core/model/patching.h): one head's output (its columns of z, [n, d_head], before the output
// projection) replaced at every position by the same head's output in another run over as many tokens.
struct PatchedHead {
  int layer = 0, head = 0;
  const float* z = nullptr;  // [n, q_dim]: the other run's z of this layer (LayerOutput::z); the head's columns are read
};

struct PrefixState;  // model/prefix_cache.h

struct RunOptions {
  // What-ifs, per layer ([n_layer] or empty = none): drop the 1/sqrt(d_head) scaling; divide logits by T (> 0).
  std::vector<bool> no_scale;
  std::vector<float> temperature;
  // Per layer ([n_layer] or empty): drop the attention soft cap (ModelConfig::attn_softcap) on the layers set; the
  // final logit cap stays. Refused on a model without an attention cap.
  std::vector<bool> no_softcap;
  // Skip the q/k norms (BlockRecipe::qk_norm; refused on a model without them): q and k go from their projections
  // straight to RoPE, so the scores show what the norms hold back.
  std::vector<bool> no_qk_norm;
  // Head ablation: each listed head's output (its columns of z, [n, d_head]) is replaced before the output
  // projection, by zeros or by its mean over the positions (AblatedHead::mode; the projection's bias is kept);
  // every later layer, the maps and hidden states follow. The streamed path (stream_maps) ablates alike.
  std::vector<AblatedHead> ablate;
  // Patched heads (after any ablation of the same layer): each listed head's z columns are copied from
  // PatchedHead::z before the output projection; every later layer follows.
  std::vector<PatchedHead> patch;
  // The cancel flag is checked before every layer and every (head, row block) of attention (a cancelled run
  // returns Status::Cancelled()); progress is reported as ("layers", layers done, n_layer) after each block.
  RunControl control;
  // The per-row figures of each layer's maps (metrics.h: entropy over the keys a row may see, max weight, ...),
  // made by the attention pass itself and handed to the sink in LayerOutput::metrics.
  bool row_figures = false;
  // Resume at block first_layer from resume_hidden [n, d_model] (hidden[first_layer] of an earlier run over the
  // same ids whose options agree below first_layer). OnEmbeddings is then not called.
  int first_layer = 0;
  const float* resume_hidden = nullptr;
  // Stop after block last_layer (-1: run to the last block): a caller that needs only the layers up to L (a figure
  // of layer L) skips the rest. The blocks run are the same bits as a full run's; later blocks are not computed,
  // the sink sees no OnLayer for them, and progress counts to last_layer + 1. The streamed path stops alike.
  int last_layer = -1;
  // Long inputs: no [n_head, n, n] map is made; each (head, block of query rows) of a layer's probs goes to
  // LayerSink::OnBlock while it is in cache (pyramids, role scores), and LayerOutput::probs is null. Exact rows
  // come back from LayerOutput::q and k (AttendRows: the same bits as the pass).
  bool stream_maps = false;
  // Bytes the caller holds for this run's output (e.g. a copy of one layer's maps), counted in the memory budget.
  size_t caller_bytes = 0;
  // Causal prefix reuse (model/prefix_cache.h; needs a sink): the run keeps every layer's residual stream and
  // q | k | v in *prefix (counted in the memory budget), and when it holds rows of a prefix of `ids` under the same
  // what-ifs, rows [0, s) are taken from it (s = PlanPrefixReuse(...).rows, also left in prefix->reused_rows; why
  // none were taken in prefix->refused): every layer computes rows [s, n) only, with the same bits as a full run.
  // The sink then sees full layers: hidden [n, d_model] with the kept rows; ProbsBuffer(l) must already hold rows
  // [0, s) of the maps (MovePrefixRows from the previous run's; a null buffer: the scratch's rows before s are not
  // this run's), stream_maps hands over the blocks of rows [s, n) only (unless prefix_blocks), and q_before_norm's
  // and z's rows before s are not made.
  PrefixState* prefix = nullptr;
  // With stream_maps and a kept prefix: the blocks of the kept rows go to OnBlock too, their probs made again from
  // the kept q and k (the scores and softmax only: no z, no row figures, which the state has), so a sink that pools
  // every row (the app's pyramids, role rows, pooled rollout) sees the whole pass, with a full run's bits.
  bool prefix_blocks = false;
  // ... but only those of the kept rows from this row on (a multiple of the block rows is not needed: a block is
  // handed over whole when it ends after it): a sink that keeps its pooled sums of the rows before it.
  size_t prefix_blocks_from = 0;
};

struct LayerOutput {
  int layer = 0, n_layer = 0, n_head = 0, n = 0, d_model = 0;
  const float* probs = nullptr;   // [n_head, n, n] (null with RunOptions::stream_maps)
  const float* hidden = nullptr;  // [n, d_model]: the residual stream after block `layer`
  // What the scores multiplied (after RoPE): q [n_head, n, d_head] and k [n_kv_head, n, d_head], views into the
  // run's workspace (valid during OnLayer only), and the logit multiplier of this layer.
  HeadsView q, k;
  HeadsView v;  // [n_kv_head, n, d_head], the values (a view into the workspace, valid during OnLayer only)
  // z [n_head, n, d_head]: each head's attention-weighted values as the output projection read them (ablated and
  // patched heads as replaced), columns of the workspace's [n, q_dim] buffer (valid during OnLayer only).
  HeadsView z;
  // q/k-norm families (BlockRecipe::qk_norm): q [n_head, n, d_head] and k [n_kv_head, n, d_head] as the projections
  // made them, before the norms (and RoPE); data null otherwise.
  HeadsView q_before_norm, k_before_norm;
  float multiplier = 1.0f;
  float softcap = 0.0f;  // this layer's attention soft cap (AttentionSoftcap; 0 = none): exact rows pass it on
  const std::vector<HeadMetrics>* metrics = nullptr;  // [n_head] with RunOptions::row_figures, else null
  // The block's weights as the run bound them (Model::BlockWeights: dequantized into the run's scratch for a
  // per-layer model; valid during OnLayer only). Analyses read o etc. here, never params().blocks (null there).
  const BlockParams* weights = nullptr;
};

// Receives a run layer by layer, so a caller can stream probs to disk without holding all layers.
class LayerSink {
 public:
  virtual ~LayerSink() = default;
  // hidden: [n, d_model], the residual stream after the embeddings.
  virtual Status OnEmbeddings(const float* hidden, int n, int d_model) { return Status::Ok(); }
  // Where block `layer` writes its probs [n_head, n, n]; nullptr = the run's scratch (valid during OnLayer only).
  virtual float* ProbsBuffer(int layer) { return nullptr; }
  // With RunOptions::stream_maps: one (head, block of rows) of layer `layer`'s probs, on any thread of the pass
  // (blocks of one head run concurrently; each covers its own rows). Valid during the call only.
  virtual void OnBlock(int layer, const RowBlock& block) {}
  // An error stops the run and is returned by RunModel.
  virtual Status OnLayer(const LayerOutput& out) = 0;
};

// Errors: an id >= vocab (or < 0), n == 0 or n > max positions, what-if vectors of the wrong size, T <= 0 or not
// finite, an ablated layer or head out of range, cancellation, a run whose memory (RunMemoryBytes) is over MemoryLimitBytes() (refused before anything is
// allocated; an allocation that fails anyway is an error too, never an abort), a value that is not a finite number
// after a stage of a layer (named: "layer 3: the MLP output holds ..."; nothing of a broken run is passed on). Threads: OpenMP inside; any number of runs may share a Model from different threads. Each
// calling thread keeps its workspace (activations, O(n * (d_model + d_ff)) floats) for its next run.
Status RunModel(const Model& model, const std::vector<int>& ids, const RunOptions& options, LayerSink* sink);

struct ModelRun {
  Tensor probs;   // [n_layer, n_head, n, n]
  Tensor hidden;  // [n_layer + 1, n, d_model]
};
// Everything collected (probs are written in place, no copies).
Result<ModelRun> RunModel(const Model& model, const std::vector<int>& ids, const RunOptions& options = {});

// q and k of block `layer` as the run makes them (the input norm, the projections, the q/k norms unless no_qk_norm,
// RoPE), from the residual stream entering it: the same code on the same rows, so the same bits as LayerOutput::q
// and k of a run whose RunOptions::no_qk_norm[layer] is no_qk_norm. A streamed layer keeps its
// input (n * d_model floats) rather than q and k (n * (q_dim + kv_dim)), and the screen makes them when it needs
// exact rows.
//   input: [n, d_model] (hidden[layer] of a run: the embeddings for layer 0)
//   q: [n_head, n, d_head], k: [n_kv_head, n, d_head] (resized)
// Errors: layer out of range, n outside 1..max positions, a value that is not finite, memory as RunModel's.
Status LayerQk(const Model& model, int layer, const float* input, int n, Tensor* q, Tensor* k,
               bool no_qk_norm = false);
// The same from the run itself: out.q and out.k as head-major tensors (resized).
void LayerQkCopy(const LayerOutput& out, Tensor* q, Tensor* k);
// q and k before the q/k norms (out.q_before_norm, k_before_norm) alike; emptied when the run has none.
void LayerQkBeforeNormCopy(const LayerOutput& out, Tensor* q, Tensor* k);

// The bytes a run over n tokens allocates: the workspace (residual stream, q|k|v, q|k before their norms, MLP, the [n_head, n, n] maps
// scratch unless stream_maps, rope tables, one layer's dequantized weights when the model has them per layer), plus with `collect` the all-layer results of the collecting RunModel, plus caller_bytes.
double RunMemoryBytes(const ModelConfig& c, size_t n, bool collect, const RunOptions& options = {});

// The logit multiplier of `layer`: (1/sqrt(d_head), or 1/sqrt(query_pre_attn_scalar) when the config has it, unless
// no_scale or the config says unscaled) [gpt2 scale_attn_by_inverse_layer_idx: / (layer + 1)] / temperature.
float AttentionMultiplier(const ModelConfig& c, int layer, const RunOptions& options);
// The attention soft cap of `layer` as the kernel takes it (attention.h LogitFromScore, with AttentionMultiplier):
// attn_softcap / temperature, so that the temperature divides the capped logits; 0 = none (no_softcap, no cap).
float AttentionSoftcap(const ModelConfig& c, int layer, const RunOptions& options);
Status CheckRunInputs(const ModelConfig& c, const std::vector<int>& ids, const RunOptions& options);

}  // namespace attnviz::model
