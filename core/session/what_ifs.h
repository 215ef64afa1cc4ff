// The what-ifs of a model run, as the user chooses them (attnviz-cli model's --no-scale, --temperature,
// --no-qk-norm, --layers, --ablate; the app's Model panel), and the per-layer RunOptions they become.
#pragma once
#include <vector>

#include "model/run.h"

namespace attnviz {

struct ModelWhatIfs {
  bool no_scale = false;     // drop 1/sqrt(d_head)
  float temperature = 1.0f;  // logits / T
  std::vector<int> layers;   // the layers they act on; empty = every layer
  // Heads whose output is zeroed or replaced by its mean (RunOptions::ablate; --ablate, --ablate-mode, the app's
  // "Ablate head"); not limited by `layers`.
  std::vector<model::AblatedHead> ablate;
  bool no_softcap = false;  // drop the attention soft cap (gemma2; RunOptions::no_softcap)
  bool no_qk_norm = false;  // skip the q/k norms (RunOptions::no_qk_norm; models with q/k norms only)
  bool any() const { return no_scale || temperature != 1.0f || no_softcap || no_qk_norm; }
  bool Touches(int layer) const;
};

// The per-layer vectors RunModel reads for `w` (none when there is no what-if).
model::RunOptions WhatIfRunOptions(const ModelWhatIfs& w, int n_layer);

// The first layer whose logit multiplier or soft cap (what the what-ifs change), q/k norms on or off, or set of ablated
// heads differs between two option sets: all act inside their layer, so every layer below it computes the same.
// n_layer when none does.
int FirstChangedLayer(const model::ModelConfig& c, const model::RunOptions& a, const model::RunOptions& b);

}  // namespace attnviz
