// Activation patching (issue 41): which activations carry what tells a clean run from a corrupted one. The metric
// is the logit difference logit[A] - logit[B] at the last position (the model's output logits: after gemma2's final
// soft cap; a masked LM's through its MLM head). One activation of the corrupted run at a time is replaced by the
// clean run's, the layers after it run again, and the metric is read as the share of the way it moves:
//   (patched - corrupted) / (clean - corrupted)     0: nothing of the difference; 1: all of it
//
// Dimension glossary
//   n        tokens                 d_model  residual width           n_layer  blocks
//   n_head   query heads            d_head   per-head width           q_dim    n_head * d_head
//
// Patched, each on its own:
//   heads     head h of layer l: its output z_h (attention-weighted values, before the output projection) at every
//             position (RunOptions::patch)
//   residual  the stream entering block l (hidden[l]; l = n_layer: after the last block) at one position p
// A rerun starts at the patched layer from the corrupted run's cached stream there (RunOptions::resume_hidden): the
// layers before it are not run again. An activation whose clean and corrupted values are the same bits (a causal
// model's positions before the first token that differs) is not rerun: its share is exactly 0.
//
// Long work: PatchingOptions::control's cancel flag stops it between reruns (and within one); progress is
// ("patching", reruns done, reruns in all). A cancelled scan returns what it finished (complete false, NaN elsewhere).
#pragma once
#include <cmath>
#include <vector>

#include "base/run_control.h"
#include "base/status.h"
#include "model/model.h"
#include "model/run.h"

namespace attnviz::model {

struct PatchingOptions {
  bool heads = true, residual = true;  // which grids to make
  RunControl control;
};

struct Patching {
  int n_layer = 0, n_head = 0, n = 0;
  double clean = 0, corrupted = 0;  // the metric of each run
  std::vector<double> heads;        // [n_layer, n_head] shares; NaN: not done (or not asked)
  std::vector<double> residual;     // [n_layer + 1, n] shares; NaN: not done (or not asked)
  size_t done = 0, total = 0;       // reruns (or their skips) finished, of all asked
  bool complete = false;            // every asked cell done (false: cancelled part way)
  double Head(int layer, int head) const { return heads[(size_t)layer * n_head + head]; }
  double Residual(int layer, int position) const { return residual[(size_t)layer * n + position]; }
};

// clean_ids, corrupted_ids: [n] each; token_a, token_b: the metric's tokens (0..vocab-1).
// Errors: no LM head, different token counts (kPatchTokenCounts), a token out of range, the same metric in both
// runs (kPatchNoDifference: nothing to normalize by), the runs'. Cancellation is not an error (see above), but a
// cancel before both runs are made returns Status::Cancelled().
Result<Patching> PatchActivations(const Model& model, const std::vector<int>& clean_ids,
                                  const std::vector<int>& corrupted_ids, int token_a, int token_b,
                                  const PatchingOptions& options = {});

}  // namespace attnviz::model
