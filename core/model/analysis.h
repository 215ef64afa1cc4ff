// What a layer's attention does, from the run as it goes (a LayerSink's OnLayer): the neuron view of one
// (head, query, key), attention rollout through the layers, and value-weighted norms.
//
// Dimension glossary
//   n        tokens          n_head  query heads       n_kv  key/value heads (grouped-query: head h reads kv h / (n_head / n_kv))
//   d_head   per-head width  d_model residual width
//
// Neuron view (BertViz's, any family): q_i and k_j of head h as the score multiplies them (after RoPE), per
//   dimension; product = q_i * k_j elementwise; score = sum(product); uncapped logit = score * scale (scale: the
//   layer's multiplier, 1/sqrt(d_head) or 1/sqrt(query_pre_attn_scalar), and the what-ifs); logit = the uncapped one
//   soft-capped (gemma2: softcap * tanh(l / softcap); no cap: equal); prob = softmax over the keys query i may see
//   (0 when masked).
//   RoPE families also give q and k before the rotation: !! recovered by rotating back by the same angles
//   (an orthogonal map: exact up to float rounding), so the run keeps no extra copy. q/k-norm families (qwen3,
//   olmo2) also give q and k as their projections made them, before the norms: the run keeps those
//   (LayerOutput::q_before_norm), since a norm cannot be undone.
// Rollout (Abnar & Zuidema 2020): A^_l = 0.5 mean_h(A_l,h) + 0.5 I, rows divided by their sums;
//   R_0 = A^_0, R_l = A^_l R_(l-1). R_l[i, j]: how much of token j reaches position i after layer l.
// Pooled rollout (long inputs: exact rollout keeps [n, n] matrices and costs n^3 a layer): blocks of f tokens,
//   nb = ceil(n / f). P[I, J] = mean over rows i in I of sum over columns j in J of mean_h A[h, i, j] (rows of P
//   still sum to 1; a partial last block divides by the rows it has). Pooling the identity gives the identity at
//   block level, so pool(A^) = 0.5 P + 0.5 I and Rollout(nb) fed P gives R'_l. !! R'_l approximates the block
//   pooling (row mean, column sum) of the exact R_l: exact when the rows within each block are equal (pooling
//   then commutes with the product), otherwise the within-block variation of each layer is averaged away.
// Value-weighted norms (Kobayashi et al. 2020): alpha_ij^h * || v_j^h W_o^h || where W_o^h [d_head, d_model] is
//   the slice of the output projection head h's output feeds (bias left out: it does not depend on j).
#pragma once
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "base/status.h"
#include "model/model.h"
#include "model/run.h"

namespace attnviz::model {

struct NeuronView {
  int layer = 0, head = 0, i = 0, j = 0;
  bool masked = false;  // query i may not see key j (causal: j > i; mistral: outside the window); prob is 0
  bool rope = false;    // q_before_rope, k_before_rope are filled
  bool qk_norm = false;  // q_before_norm, k_before_norm are filled
  std::vector<float> q, k, product;                // [d_head] (q, k after RoPE: what the score multiplies)
  std::vector<float> q_before_rope, k_before_rope;  // [d_head] (RoPE families)
  std::vector<float> q_before_norm, k_before_norm;  // [d_head] (q/k-norm families: head h's dims of the projections)
  // logit = score * scale, then soft-capped when the layer has a cap (softcap > 0: softcap * tanh(uncapped / softcap));
  // scale_source: what the scale's 1/sqrt divides by ("head_dim", or "query_pre_attn_scalar"; "none" when unscaled).
  double score = 0, scale = 1, uncapped_logit = 0, softcap = 0, logit = 0, prob = 0;
  const char* scale_source = "head_dim";
};

// The neuron view's arguments against the model and the text: layer, head, i, j each in range (the message
// names which and the range).
Status CheckNeuron(const ModelConfig& c, int n, int layer, int head, int i, int j);
// The view's first steps from q_i and k_j [d_head]: v->q, v->k their copies, v->product the elementwise product,
// v->score its sum (in double).
void SetNeuronProduct(const float* q, const float* k, int d_head, NeuronView* v);
// From the LayerOutput of out.layer (its q, k, multiplier; probs when kept, else recomputed from q and k).
NeuronView Neuron(const ModelConfig& c, const LayerOutput& out, int head, int i, int j);

// The bytes an exact rollout over n tokens holds (three [n, n] float matrices), and the check of the rollout over
// n tokens (pooled above kRolloutMaxTokens: PooledRolloutMemoryBytes) against MemoryLimitBytes().
double RolloutMemoryBytes(size_t n);
Status CheckRolloutMemory(size_t n);

// Rollout, layer by layer: AddLayer with each layer's probs in order gives R_l.
class Rollout {
 public:
  explicit Rollout(int n);
  // probs: [n_head, n, n] of the next layer; out: [n, n] = R_l (may be null: only the state advances).
  void AddLayer(const float* probs, int n_head, float* out);
  // The same from the layer's head-mean map head_mean: [n, n] = mean_h probs[h] (streamed maps: sum each
  // LayerSink::OnBlock's rows / n_head into it, then call this once per layer).
  void AddMeanLayer(const float* head_mean, float* out);
  // The same for a causal run continuing from a kept prefix: R_l's rows [0, kept_rows) are kept_r's (this layer's R
  // of an earlier run whose rows [0, kept_rows) of every layer's head mean were these: [kept_n, kept_n]), so only
  // head_mean's rows from kept_rows on are read. Every layer so far must have kept at least these rows.
  void AddMeanLayerKeeping(const float* head_mean, const float* kept_r, int kept_n, int kept_rows, float* out);
  // The same from the layer's probs [n_head, n, n] (only rows from kept_rows on read), as AddLayer.
  void AddLayerKeeping(const float* probs, int n_head, const float* kept_r, int kept_n, int kept_rows, float* out);
  int layers() const { return layers_; }

 private:
  // a_ holds the head mean: A^, then R. Rows [0, kept_rows) of R are kept_r's (stride kept_n), the rest made.
  void Advance(float* out, const float* kept_r = nullptr, int kept_n = 0, int kept_rows = 0);
  void Allocate();           // r_, a_, next_ at their size (the first layer added)
  void HeadMean(const float* probs, int n_head, size_t first_row);  // a_'s rows from first_row: mean_h probs[h]
  static constexpr int kTriangularBand = 128;  // rows a band of the triangular product (Advance)
  int n_ = 0, layers_ = 0;
  bool lower_ = false;  // r_ is lower triangular (every layer's A^ so far was: a causal model)
  std::vector<float> r_, a_, next_;  // [n, n] each
};

// The block size of a pooled rollout over n tokens: the smallest power of two f with ceil(n / f) <= max_blocks
// (f = 1, the exact rollout, when n <= max_blocks).
int RolloutPoolFactor(int n, int max_blocks);
// ceil(n / factor).
inline int RolloutBlocks(int n, int factor) { return (n + factor - 1) / factor; }
// Rollout multiplies two [n, n] matrices per layer (n^3): exact up to this many tokens; a longer input's rollout
// (the app's and attnviz-cli's --rollout) is pooled to blocks of f tokens, at most this many blocks a side.
constexpr int kRolloutMaxTokens = 1024;
// The block size of the rollout over n tokens (1: exact).
inline int RolloutFactor(int n) { return RolloutPoolFactor(n < 1 ? 1 : n, kRolloutMaxTokens); }
// What a pooled rollout holds beside Rollout(nb)'s three matrices: the [nb, nb] double sums of PooledRolloutRows.
double PooledRolloutMemoryBytes(size_t n, int factor);

// The pooled head mean P of one layer (the header's pooled rollout), summed in double from rows as a pass makes
// them: AddRows of any head in any order, then TakeMean once per layer. For f = 1 and AddMap (heads in order) the
// mean is bit for bit Rollout::AddLayer's. causal: the maps' keys past each row are masked (exactly 0): AddRows reads
// a row only up to its diagonal's block, and TakeMean writes the blocks past the diagonal 0 (their sums never move).
class PooledRolloutRows {
 public:
  PooledRolloutRows(int n, int factor, bool causal = false);
  // probs: [rows, n] = rows r0.. of one head (one LayerSink::OnBlock). Thread-safe: each block's column sums
  // are made unlocked (factor 1: the rows themselves), then added into the calling thread's shard of the sums under
  // its mutex; with no more threads than shards (kShards) no thread ever waits for another.
  void AddRows(int r0, int rows, const float* probs);
  // probs: [n_head, n, n]: every head's rows, head by head.
  void AddMap(const float* probs, int n_head);
  // mean: [nb, nb] = P (the shards' sums, added in shard order, / (n_head * rows in I)); clears the sums for the next
  // layer.
  void TakeMean(int n_head, float* mean);
  // Rows before first_row are not needed (a run keeping a prefix's pooled rollout rows, Rollout::AddMeanLayerKeeping,
  // first_row a multiple of the factor): AddRows drops them and TakeMean leaves mean's rows of blocks before it as
  // they are, so neither touches the kept part.
  void SkipRowsBefore(int first_row);
  // Shards of the sums at most: the pass's threads add blocks of the same rows (other heads) at once.
  static constexpr int kShards = 4;
  // The sums' shards for this process's thread count (each [nb, nb] doubles).
  static int Shards();
  int n() const { return n_; }
  int factor() const { return f_; }
  int blocks() const { return nb_; }

 private:
  struct Shard {
    std::mutex mutex;
    std::vector<double> sums;  // [nb, nb]: sum over the heads, rows i in I and columns j in J of the probs added here
  };
  int n_, f_, nb_;
  bool causal_;
  int first_row_ = 0;  // SkipRowsBefore
  std::vector<std::unique_ptr<Shard>> shards_;  // AddRows on OpenMP thread t adds into shard t % size
};

// "Ablate each head once": the mean next-token loss (predict.h) of the text with each head ablated in turn, on top
// of base's what-ifs (and its own ablations). One base run keeps the residual stream after every block (no maps:
// stream_maps), then each (layer, head) run resumes at its layer from there, so a head of the last layer costs one
// block. The heads run in the order that shows the most useful first: by what each writes into the residual stream
// in the base run, sum over positions i of ||z_h,i W_o^h|| (largest first; ties: layer-major), since ablating a head
// changes the loss only through what it writes; a scan cut short keeps the heads that write the most. Progress ("heads", done, n_layer * n_head) from the start (the base run is head 0 of them). Cancelled
// through base.control: during the base run Status::Cancelled(); later the heads done so far come back, the others
// NaN, with `complete` false (a long scan cancelled keeps what it paid for).
// loss_at: the positions whose next-token loss is averaged (i predicts ids[i + 1], each in 0..n-2, any order, each
// once): "where does ablating this head hurt" at the tokens chosen; empty: every position (the mean loss).
// Errors: a model that predicts no next token (bert) or has no LM head, fewer than 2 tokens, a loss_at position out
// of range or repeated (kScanPositionRange, kScanPositionTwice), RunModel's.
struct AblationScan {
  std::vector<int> loss_at;   // as asked (empty: every position)
  double base_loss = 0;       // with base's options only
  std::vector<double> loss;   // [n_layer, n_head]: with that head ablated too; NaN for a head not scanned
  std::vector<double> output_norm;  // [n_layer, n_head]: sum over positions of ||z_h,i W_o^h|| in the base run
  std::vector<int> order;     // [n_layer * n_head]: the heads (layer * n_head + head) in the order they run
  size_t heads_done = 0;      // the heads whose loss is there (order[0 .. heads_done))
  bool complete = false;      // every head scanned (false: cancelled part way)
  bool Done(size_t index) const { return index < loss.size() && !std::isnan(loss[index]); }
};
Result<AblationScan> ScanHeadAblations(const Model& model, const std::vector<int>& ids, const RunOptions& base = {},
                                       const std::vector<int>& loss_at = {});

// out: [rows, n] = probs [rows, n] * scale [n] (each column j times scale[j]: one head's value-weighted rows from
// its norms). out may be probs.
void ScaleColumns(const float* probs, const float* scale, int rows, int n, float* out);
// value_norm: [n_head, n, n] = probs [n_head, n, n] * || v_j^(kv of h) W_o^h || for out.layer (out.probs and out.v
// must be set: a run without stream_maps).
void ValueNorms(const Model& model, const LayerOutput& out, float* value_norm);
// norms: [n_head, n] = || v_j^(kv of h) W_o^h || for out.layer (out.v set; probs not needed; W_o from out.weights,
// the run's bound block, or Model::BlockWeights when null). The value-weighted
// map of any block of rows is then probs[h, i, j] * norms[h, j] (streamed maps: multiply in LayerSink::OnBlock).
// first_key: keys [0, first_key) are left as they are (a kept prefix's: each key's norm reads its own v alone).
void ValueNormScales(const Model& model, const LayerOutput& out, float* norms, int first_key = 0);
// The same from any attention's parts (ValueNormScales and the encoder-decoder stacks' seq2seq_analysis.h):
// norms: [n_head, n] = || v_j^(kv of h) W_o^h ||, where o is the output projection [d_model] <- [n_head * d_head]
// and v: [n_kv_head, >= n, d_head] (head h reads kv head h / (n_head / n_kv_head)).
void HeadValueNorms(const Linear& o, const HeadsView& v, int n, int n_head, float* norms, int first_key = 0);

}  // namespace attnviz::model
