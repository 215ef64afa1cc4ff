// The logit lens on an encoder-decoder model's decoder stack (issue 41): the LM head (the decoder's final norm,
// t5's tied d_model^-0.5, lm_head, final_logits_bias: Seq2SeqLogits's steps) applied to the decoder's residual
// stream after every layer, not only the last, to see when the prediction forms. Layer n_dec_layer is the model's
// own prediction.
//
// Dimension glossary (seq2seq.h)
//   n_tgt  decoder tokens     d_model  residual width     n_dec_layer  decoder layers     k  tokens kept per position
#pragma once
#include <vector>

#include "base/run_control.h"
#include "base/status.h"
#include "model/lens.h"  // LensLayer
#include "model/seq2seq.h"

namespace attnviz::model {

// decoder_hidden: [n_dec_layer + 1, n_tgt, d_model] (Seq2SeqRun::decoder_hidden, before the final norm);
// labels: [n_tgt] what each position predicts (the target's ids with eos, as Seq2SeqTokenLoss reads them; -100:
// none, has_next false there). Returns [n_dec_layer + 1] layers, 0 (the decoder embeddings) first; each position's
// top k (most probable first, ties: the lower id) and next_prob = p(labels[i]).
// Errors: k outside 1..decoder_vocab, labels not [n_tgt] or out of range, the kept top-k over the memory limit
// (kAnalysisMemory), Seq2SeqLogits's, cancellation (checked between layers).
Result<std::vector<LensLayer>> Seq2SeqLogitLens(const Seq2SeqModel& model, const float* decoder_hidden, int n_tgt,
                                                const std::vector<int>& labels, int k, const RunControl& control = {});

}  // namespace attnviz::model
