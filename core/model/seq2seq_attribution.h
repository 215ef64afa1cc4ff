// Direct logit attribution at one decoder position of an encoder-decoder model (issue 41): how much each part of
// the decoder's residual stream there adds to one target-vocabulary token's logit, through the decoder's final
// norm with its scale frozen (LayerNorm: centered) and the LM head row (t5's tied d_model^-0.5 included).
//
// Dimension glossary (seq2seq.h)
//   n_src  source tokens     n_tgt  decoder tokens     d_model  residual width
//   n_dec_layer, n_dec_head, d_head: the decoder's (its cross-attention's alike)
//
// The decoder stream of a pre-norm model (mbart, t5) at the end is a sum of parts:
//   embed          decoder_hidden[0] (token embeddings [* sqrt(d_model)] + positions [-> layernorm_embedding])
//   head decoder   z_h W_o^h of causal self-attention head h of layer l
//   head cross     z_h W_o^h of cross-attention head h of layer l: the encoder reaches the logits only this way
//   attn_bias      each attention output projection's bias (decoder and cross; models that have one)
//   mlp l          the MLP's output, computed again from its input (the layer's input plus its attention parts)
//   norm_bias      the final norm's bias through the head row, plus final_logits_bias[target]
// The values add up to the logit (the sum rule), which is also Seq2SeqLogits's at that position.
//
// Refused: post-norm models (bart, marian): every sublayer's sum is renormalized, so the stream at the end is no
// sum of parts (as attribution.h refuses post-norm decoder-only models).
#pragma once
#include <vector>

#include "base/status.h"
#include "model/attribution.h"  // ComponentKind
#include "model/seq2seq_run.h"

namespace attnviz::model {

struct Seq2SeqLogitComponent {
  ComponentKind kind = ComponentKind::kEmbed;
  Seq2SeqStack stack = Seq2SeqStack::kDecoder;  // kHead, kAttnBias: kDecoder (self-attention) or kCross
  int layer = -1, head = -1;                    // -1 where the kind has none
  double value = 0;
};

struct Seq2SeqLogitAttribution {
  int position = 0, target = 0;
  double logit = 0;  // the target's logit at the position, from the run's stream
  // embed; then per layer: decoder heads, decoder attn_bias, cross heads, cross attn_bias, mlp; then norm_bias.
  std::vector<Seq2SeqLogitComponent> components;
};

// source_ids: [n_src]; decoder_ids: [n_tgt]; position in 0..n_tgt-1; target in 0..decoder_vocab-1. options: the
// run's what-ifs (ablated heads attribute as ablated). One run (no maps kept).
// Errors: a post-norm model, position or target out of range, the run's.
Result<Seq2SeqLogitAttribution> Seq2SeqAttributeLogit(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                                      const std::vector<int>& decoder_ids, int position, int target,
                                                      Seq2SeqRunOptions options = {});

}  // namespace attnviz::model
