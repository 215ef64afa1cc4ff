// The forward pass of an encoder-decoder model (seq2seq.h) over source ids and decoder input ids, keeping every
// layer's per-head maps of the three kinds (encoder self-attention, decoder causal self-attention, cross-attention)
// and both residual streams; the LM head's logits and per-position loss; greedy generation with cached keys and
// values that hands each new token's rows of the decoder and cross maps to a callback.
//
// Dimension glossary (seq2seq.h)
//   n_src  source tokens     n_tgt  decoder tokens     d_model  residual width
//   n_enc_layer, n_enc_head / n_dec_layer, n_dec_head: the stacks' layers and heads (cross: the decoder's)
//
// Steps (seq2seq_run.cpp):
//   1. encoder embeddings, 2. encoder layers (self-attention over every key, MLP), 3. the encoder output (final norm
//   where the stack has one), 4. decoder embeddings, 5. decoder layers (causal self-attention, cross-attention over
//   the encoder output, MLP). Scores: q.k [* d_head^-0.5] [+ t5's relative position bias], softmax subtracting the
//   row max, masked entries exactly 0.
#pragma once
#include <functional>
#include <vector>

#include "attention/attention.h"
#include "base/run_control.h"
#include "base/status.h"
#include "base/tensor.h"
#include "model/predict.h"  // PositionTop
#include "model/run.h"  // AblateMode
#include "model/seq2seq.h"

namespace attnviz::model {

// One head of one layer of one stack (kCross: layer `layer`'s cross-attention), 0-based, and how it is ablated:
// its output columns of z ([n_q, d_head], before the output projection) zeroed (kZero) or set to their mean over
// the n_q positions (kMean; not in GreedyGenerate's decoder, whose positions come one at a time).
struct Seq2SeqAblatedHead {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;
  int layer = 0, head = 0;
  AblateMode mode = AblateMode::kZero;
  bool operator==(const Seq2SeqAblatedHead& o) const {
    return stack == o.stack && layer == o.layer && head == o.head && mode == o.mode;
  }
  bool operator!=(const Seq2SeqAblatedHead& o) const { return !(*this == o); }
};

// Activation patching (seq2seq_patching.h): one head's z columns taken from another run's z of that sublayer
// (after any ablation), or one row of a stack's residual stream replaced before `layer` runs (layer == n_layer:
// after the last layer, before the final norm). Not in GreedyGenerate.
struct Seq2SeqPatchedHead {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;
  int layer = 0, head = 0;
  const float* z = nullptr;  // [n_q, inner] the other run's z of (stack, layer)
};
struct Seq2SeqPatchedRow {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;  // kEncoder or kDecoder
  int layer = 0, position = 0;
  const float* row = nullptr;  // [d_model]
};

// Resuming a run part way (patching reuses what comes before its patch): `stack` starts at layer `layer` from
// `hidden` [n, d_model], that stack's stream entering the layer in an earlier run of the same ids (Seq2SeqRun's
// encoder_hidden[layer] / decoder_hidden[layer]); a decoder resume also reads that run's `encoder_output`
// [n_src, d_model] and runs no encoder. The layers before are not run nor handed to the sink (no OnEmbeddings, no
// OnEncoderOutput when the encoder is skipped); what runs is bit-equal to the same layers of a whole run.
struct Seq2SeqResume {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;  // kEncoder or kDecoder
  int layer = 0;                                // 0..n_layer of the stack (n_layer: none of its layers run)
  const float* hidden = nullptr;                // [n, d_model]; null: no resume
  const float* encoder_output = nullptr;        // [n_src, d_model]; a decoder resume only
};

struct Seq2SeqRunOptions {
  std::vector<Seq2SeqAblatedHead> ablate;
  std::vector<Seq2SeqPatchedHead> patch;
  std::vector<Seq2SeqPatchedRow> patch_rows;
  Seq2SeqResume resume;
  // Cancel is checked before every layer; progress is ("encoder layers", done, n) and ("decoder layers", done, n).
  RunControl control;
  size_t caller_bytes = 0;  // bytes the caller holds for this run's output, counted in the memory budget
};

// One attention sublayer of a run, handed to Seq2SeqSink::OnLayer (views valid during the call only).
struct Seq2SeqLayerOutput {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;
  int layer = 0, n_layer = 0, n_head = 0, d_head = 0, d_model = 0;
  int n_q = 0, n_k = 0;           // encoder n_src x n_src, decoder n_tgt x n_tgt, cross n_tgt x n_src
  const float* probs = nullptr;   // [n_head, n_q, n_k]
  // What the scores multiplied: q [n_head, n_q, d_head] as projected (before the multiplier), k and v
  // [n_head, n_k, d_head] (cross: from the encoder output), z [n_head, n_q, d_head] as the output projection read
  // them (ablated heads as replaced).
  HeadsView q, k, v, z;
  float multiplier = 1.0f;            // logits = q.k * multiplier (+ position_bias)
  const float* position_bias = nullptr;  // [n_head, n_q, n_k] t5's relative bias (null: none); masked cells undefined
  // The residual stream after the whole layer [n_q, d_model] (a decoder layer's kDecoder and kCross both see the
  // layer's output: they are handed over after its MLP).
  const float* hidden = nullptr;
  const Seq2SeqLayerParams* weights = nullptr;
};

// Receives a run layer by layer: the encoder's layers in order, then each decoder layer's kDecoder and kCross.
class Seq2SeqSink {
 public:
  virtual ~Seq2SeqSink() = default;
  // hidden: [n, d_model], what the stack's first layer reads (stack: kEncoder or kDecoder).
  virtual Status OnEmbeddings(Seq2SeqStack stack, const float* hidden, int n, int d_model) { return Status::Ok(); }
  // Where a sublayer writes its probs [n_head, n_q, n_k]; nullptr = the run's scratch.
  virtual float* ProbsBuffer(Seq2SeqStack stack, int layer) { return nullptr; }
  // The encoder output [n_src, d_model] (after the encoder's final norm where it has one), before the decoder runs.
  virtual Status OnEncoderOutput(const float* encoder_output, int n_src, int d_model) { return Status::Ok(); }
  // An error stops the run and is returned by RunSeq2Seq.
  virtual Status OnLayer(const Seq2SeqLayerOutput& out) = 0;
};

// Errors: no source or decoder ids, an id outside its vocabulary, more tokens than max_positions, an ablated
// stack/layer/head out of range, memory over MemoryLimitBytes() (refused before allocating), a value that is not
// finite ("encoder layer 1: the MLP output ..."), cancellation (Status::Cancelled()).
Status RunSeq2Seq(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                  const std::vector<int>& decoder_input_ids, const Seq2SeqRunOptions& options, Seq2SeqSink* sink);

struct Seq2SeqRun {
  Tensor encoder_probs;   // [n_enc_layer, n_enc_head, n_src, n_src]
  Tensor decoder_probs;   // [n_dec_layer, n_dec_head, n_tgt, n_tgt] (causal: above the diagonal exactly 0)
  Tensor cross_probs;     // [n_dec_layer, n_dec_head, n_tgt, n_src]
  Tensor encoder_hidden;  // [n_enc_layer + 1, n_src, d_model]: entry 0 what layer 0 reads; before the final norm
  Tensor decoder_hidden;  // [n_dec_layer + 1, n_tgt, d_model]: likewise
  Tensor encoder_output;  // [n_src, d_model]: what cross-attention reads (after the encoder's final norm)
};
Result<Seq2SeqRun> RunSeq2Seq(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                              const std::vector<int>& decoder_input_ids, const Seq2SeqRunOptions& options = {});

// The bytes a run allocates (workspaces of both stacks, the maps' scratch, with `collect` every map and hidden
// state of Seq2SeqRun) plus caller_bytes.
double Seq2SeqRunMemoryBytes(const Seq2SeqConfig& c, size_t n_src, size_t n_tgt, bool collect,
                             const Seq2SeqRunOptions& options = {});

// The LM head on the decoder's last residual stream: final norm (where the stack has one), t5's d_model^-0.5 when
// tied, lm_head, final_logits_bias.
//   decoder_last: [n_tgt, d_model] (decoder_hidden[n_dec_layer] of a run)
//   positions: rows to compute (each in 0..n_tgt-1); empty = every row
//   -> [positions, decoder_vocab]
Result<Tensor> Seq2SeqLogits(const Seq2SeqModel& model, const float* decoder_last, int n_tgt,
                             const std::vector<int>& positions = {});
// -log p(labels[i] | source, decoder_input_ids[0..i]) in nats per decoder position (log-softmax in double);
// labels: [n_tgt], each in 0..decoder_vocab-1, or -100 (ignored: NaN at that position, as torch's ignore_index).
Result<std::vector<double>> Seq2SeqTokenLoss(const Seq2SeqModel& model, const float* decoder_last, int n_tgt,
                                             const std::vector<int>& labels);
// The mean over the positions whose label is not -100 (NaN when there are none).
double MeanLoss(const std::vector<double>& token_loss);
// The k most probable tokens (1 <= k <= decoder_vocab) at every decoder position, most probable first (ties: the
// lower id), with their probabilities (softmax in double), as predict.h's PositionTop (index: the decoder position).
//   decoder_last: [n_tgt, d_model] -> [n_tgt]
Result<std::vector<PositionTop>> Seq2SeqTopTokens(const Seq2SeqModel& model, const float* decoder_last, int n_tgt,
                                                  int k);

// One generated token and its rows of the maps, as GreedyGenerate hands them over.
struct GeneratedToken {
  int step = 0;        // 0 for the first new token
  int id = 0;          // argmax of the logits (ties: the lower id), suppressed ids excluded
  double log_prob = 0; // its log-probability (nats)
  // The decoder position that made it (step; position 0 is decoder_start_id) and its rows:
  Tensor self_rows;    // [n_dec_layer, n_dec_head, step + 1]: the decoder self-attention row of that position
  Tensor cross_rows;   // [n_dec_layer, n_dec_head, n_src]: its cross-attention row
};

struct GreedyOptions {
  int max_new_tokens = 32;
  Seq2SeqRunOptions run;  // ablations (kMean only in the encoder), cancel, progress ("generate", step, max)
  // Tokens never picked, on top of config().suppressed_ids.
  std::vector<int> suppressed_ids;
};

struct GreedyResult {
  std::vector<int> ids;       // the new tokens (not decoder_start_id); ends with eos when it stopped there
  bool stopped_at_eos = false;
};

// The encoder once, then the decoder one position at a time from decoder_start_id (each layer's self k/v and the
// cross k/v of the encoder output cached), the argmax each step, until eos (included) or max_new_tokens.
// on_token (may be empty) receives each token as it is made; an error it returns stops generation and is returned.
// The same ids as transformers' greedy decoding (num_beams 1, do_sample false) of the same checkpoint.
Result<GreedyResult> GreedyGenerate(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                    const GreedyOptions& options,
                                    const std::function<Status(const GeneratedToken&)>& on_token = {});

}  // namespace attnviz::model
