// Activation patching of an encoder-decoder model (issue 41): which activations carry what tells a clean source
// from a corrupted one, the decoder reading the same target in both runs. The metric is the logit difference
// logit[A] - logit[B] at the last decoder position (the model's output logits, Seq2SeqLogits's). One activation of
// the corrupted run at a time is replaced by the clean run's, the run made again from there, and the metric read as
// the share of the way it moves (as patching.h):
//   (patched - corrupted) / (clean - corrupted)     0: nothing of the difference; 1: all of it
//
// Dimension glossary (seq2seq.h)
//   n_src  source tokens     n_tgt  decoder tokens     d_model  residual width
//   n_enc_layer, n_enc_head / n_dec_layer, n_dec_head: the stacks' layers and heads (cross: the decoder's)
//
// Patched, each on its own:
//   heads     head h of layer l of each stack (encoder, decoder, cross): its z (attention-weighted values, before
//             the output projection) at every query position (Seq2SeqRunOptions::patch)
//   residual  the stream entering layer l (l = n_layer: after the last layer, before the final norm) at one
//             position p, of the encoder and of the decoder (whose stream differs only through cross-attention)
// Each rerun resumes at the patched layer from the corrupted run's stream there (Seq2SeqRunOptions::resume): a
// patch in the encoder runs the rest of the encoder and the whole decoder, one in the decoder (or cross-attention)
// reads the corrupted encoder output and runs the decoder from that layer. An activation whose clean and corrupted values
// are the same bits (the decoder's embeddings, its first self-attention) is not rerun: its share is exactly 0.
//
// Long work: the options' cancel flag stops it between reruns (and within one); progress is ("patching", reruns
// done, reruns in all). A cancelled scan returns what it finished (complete false, NaN elsewhere).
#pragma once
#include <vector>

#include "base/run_control.h"
#include "base/status.h"
#include "model/seq2seq_run.h"

namespace attnviz::model {

struct Seq2SeqPatchingOptions {
  bool heads = true, residual = true;  // which grids to make
  RunControl control;
};

struct Seq2SeqPatching {
  int n_enc_layer = 0, n_enc_head = 0, n_dec_layer = 0, n_dec_head = 0, n_src = 0, n_tgt = 0;
  double clean = 0, corrupted = 0;        // the metric of each run
  std::vector<double> encoder_heads;      // [n_enc_layer, n_enc_head] shares; NaN: not done (or not asked)
  std::vector<double> decoder_heads;      // [n_dec_layer, n_dec_head]
  std::vector<double> cross_heads;        // [n_dec_layer, n_dec_head]
  std::vector<double> encoder_residual;   // [n_enc_layer + 1, n_src]
  std::vector<double> decoder_residual;   // [n_dec_layer + 1, n_tgt]
  size_t done = 0, total = 0;             // reruns (or their skips) finished, of all asked
  bool complete = false;                  // every asked cell done (false: cancelled part way)
};

// clean_source, corrupted_source: [n_src] each; decoder_ids: [n_tgt], read by both runs; token_a, token_b: the
// metric's tokens (0..decoder_vocab-1).
// Errors: different source token counts (kPatchTokenCounts), a token out of range, the same metric in both runs
// (kPatchNoDifference: nothing to normalize by), the runs'. Cancellation is not an error (see above), but a cancel
// before both runs are made returns Status::Cancelled().
Result<Seq2SeqPatching> Seq2SeqPatchActivations(const Seq2SeqModel& model, const std::vector<int>& clean_source,
                                                const std::vector<int>& corrupted_source,
                                                const std::vector<int>& decoder_ids, int token_a, int token_b,
                                                const Seq2SeqPatchingOptions& options = {});

}  // namespace attnviz::model
