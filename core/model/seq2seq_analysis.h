// analysis.h's analyses for an encoder-decoder model (seq2seq.h), per stack where each is defined:
//   neuron view      every stack: how query i meets key j in one head (seq2seq: plus t5's position bias)
//   value norms      every stack: alpha_ij^h * || v_j^h W_o^h || (cross: v from the encoder output)
//   rollout          the encoder's and the decoder's self-attention only: a cross map's rows (target tokens) and
//                    columns (source tokens) are different tokens, so its maps do not chain into a product
//   ablation scan    every head of every stack ablated once: the mean decoder loss it leaves
//
// Dimension glossary (seq2seq.h, seq2seq_run.h)
//   n_src  source tokens     n_tgt  decoder tokens     n_q, n_k  a sublayer's query and key rows
//   n_enc_layer, n_enc_head / n_dec_layer, n_dec_head: the stacks' layers and heads (cross: the decoder's)
//
// Neuron view: q_i and k_j as projected (before the multiplier); product = q_i * k_j elementwise; score =
//   sum(product); logit = score * scale (+ position_bias[h, i, j] where the stack has one: t5's self-attention);
//   prob = the run's probability (exactly 0 where masked: the decoder's keys past the query).
// Value norms (Kobayashi et al. 2020), as analysis.h's ValueNormScales: W_o^h [d_head, d_model] is the slice of the
//   sublayer's output projection head h's output feeds; the bias is left out (it does not depend on j).
// Rollout (Abnar & Zuidema 2020): analysis.h's Rollout over the stack's layers (exact: no pooling).
// Scan: one full RunSeq2Seq per head (on top of the base ablations); loss = mean over the decoder positions of
//   -log p(labels[i] | source, decoder[0..i]) (Seq2SeqTokenLoss), or over loss_at only.
#pragma once
#include <cmath>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "model/analysis.h"
#include "model/seq2seq.h"
#include "model/seq2seq_run.h"

namespace attnviz::model {

// NeuronView's fields for one stack's head (layer, head, i, j, masked, q, k, product, score, scale, scale_source,
// logit, prob; uncapped_logit == logit: no family of these caps), plus the position bias.
struct Seq2SeqNeuronView {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;
  NeuronView view;
  bool has_position_bias = false;  // t5's self-attention stacks
  double position_bias = 0;        // added to score * scale to make the logit
};

// The neuron view's arguments against the model and the run's tokens: layer, head (of the stack), i (a query row:
// source tokens in the encoder, decoder tokens else) and j (a key: source tokens in the encoder and cross, decoder
// tokens in the decoder). The message names the stack, the argument and its range.
Status CheckSeq2SeqNeuron(const Seq2SeqConfig& c, Seq2SeqStack stack, int n_src, int n_tgt, int layer, int head, int i,
                          int j);
// From the sublayer's output of out.stack and out.layer (a Seq2SeqSink::OnLayer's; its q, k, multiplier,
// position_bias and probs). Arguments checked by CheckSeq2SeqNeuron.
Seq2SeqNeuronView Seq2SeqNeuron(const Seq2SeqConfig& c, const Seq2SeqLayerOutput& out, int head, int i, int j);
// CheckSeq2SeqNeuron, then one run of the model with `options` taking the view from (stack, layer).
Result<Seq2SeqNeuronView> RunSeq2SeqNeuron(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                           const std::vector<int>& decoder_input_ids, const Seq2SeqRunOptions& options,
                                           Seq2SeqStack stack, int layer, int head, int i, int j);

// norms: [n_head, n_k] = || v_j^h W_o^h || of one sublayer (W_o: out.weights' self- or cross-attention output
// projection by out.stack).
void Seq2SeqValueNormScales(const Seq2SeqLayerOutput& out, float* norms);
// value_norm: [n_head, n_q, n_k] = out.probs * the norms of Seq2SeqValueNormScales.
void Seq2SeqValueNorms(const Seq2SeqLayerOutput& out, float* value_norm);

// The three stacks' value-weighted maps of one run, shaped as Seq2SeqRun's probs (a sink beside the maps).
struct Seq2SeqValueNormMaps {
  Tensor encoder;  // [n_enc_layer, n_enc_head, n_src, n_src]
  Tensor decoder;  // [n_dec_layer, n_dec_head, n_tgt, n_tgt]
  Tensor cross;    // [n_dec_layer, n_dec_head, n_tgt, n_src]
};
// One run of the model with `options` (ablations, cancel) keeping every sublayer's value-weighted map.
Result<Seq2SeqValueNormMaps> RunSeq2SeqValueNorms(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                                  const std::vector<int>& decoder_input_ids,
                                                  const Seq2SeqRunOptions& options = {});

// probs: [n_layer, n_head, n, n] of stack (a Seq2SeqRun's encoder_probs or decoder_probs) -> [n_layer, n, n], R_l
// per layer. kCross: an error saying rollout is defined for the self-attention stacks only. Memory: refused above
// MemoryLimitBytes() (analysis.h's kAnalysisMemory).
Result<Tensor> Seq2SeqRollout(Seq2SeqStack stack, const Tensor& probs);

// One head's line of a scan.
struct Seq2SeqHeadLoss {
  Seq2SeqStack stack = Seq2SeqStack::kEncoder;
  int layer = 0, head = 0;
  double loss = NAN;  // the loss with this head ablated too; NaN: not scanned (cancelled before it)
};

// "Ablate each head once" over the three stacks: the encoder's heads (layer by layer), then the decoder's
// self-attention heads, then the cross-attention heads. Progress ("heads", done, total) with total = every head of
// every stack, the base run being head 0 of them (its own runs report nothing). Cancelled through base.control:
// during the base run Status::Cancelled(); later the heads done come back, the others NaN, complete false.
// labels: [n_tgt] (the target's ids + eos, as Seq2SeqTokenLoss reads them); mode: how each scanned head is
// ablated; loss_at: the decoder positions averaged (each in 0..n_tgt-1 once, its label not -100; empty: all).
// Errors: a loss_at position out of range or repeated, RunSeq2Seq's and Seq2SeqTokenLoss's.
struct Seq2SeqAblationScan {
  std::vector<int> loss_at;            // as asked (empty: every position)
  double base_loss = 0;                // with base's ablations only
  std::vector<Seq2SeqHeadLoss> heads;  // [n_enc_layer * n_enc_head + 2 * n_dec_layer * n_dec_head]
  size_t heads_done = 0;
  bool complete = false;
};
Result<Seq2SeqAblationScan> ScanSeq2SeqHeadAblations(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                                     const std::vector<int>& decoder_input_ids,
                                                     const std::vector<int>& labels,
                                                     const Seq2SeqRunOptions& base = {},
                                                     AblateMode mode = AblateMode::kZero,
                                                     const std::vector<int>& loss_at = {});

}  // namespace attnviz::model
