#include "session/what_ifs.h"

#include <algorithm>
#include <utility>

namespace attnviz {
namespace {

bool NoQkNorm(const model::RunOptions& o, int layer) {
  return layer < (int)o.no_qk_norm.size() && o.no_qk_norm[(size_t)layer];
}

// The heads of `layer` an option set ablates and how (zero, mean), sorted (the order they were listed in changes
// nothing).
std::vector<std::pair<int, int>> AblatedHeadsOf(const model::RunOptions& o, int layer) {
  std::vector<std::pair<int, int>> heads;
  for (const model::AblatedHead& a : o.ablate)
    if (a.layer == layer) heads.push_back({a.head, (int)a.mode});
  std::sort(heads.begin(), heads.end());
  heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
  return heads;
}

}  // namespace

bool ModelWhatIfs::Touches(int layer) const {
  return layers.empty() || std::find(layers.begin(), layers.end(), layer) != layers.end();
}

model::RunOptions WhatIfRunOptions(const ModelWhatIfs& w, int n_layer) {
  model::RunOptions options;
  if (w.no_scale) options.no_scale.assign((size_t)n_layer, false);
  if (w.temperature != 1.0f) options.temperature.assign((size_t)n_layer, 1.0f);
  if (w.no_softcap) options.no_softcap.assign((size_t)n_layer, false);
  if (w.no_qk_norm) options.no_qk_norm.assign((size_t)n_layer, false);
  for (int l = 0; l < n_layer; ++l) {
    if (!w.Touches(l)) continue;
    if (w.no_scale) options.no_scale[(size_t)l] = true;
    if (w.temperature != 1.0f) options.temperature[(size_t)l] = w.temperature;
    if (w.no_softcap) options.no_softcap[(size_t)l] = true;
    if (w.no_qk_norm) options.no_qk_norm[(size_t)l] = true;
  }
  options.ablate = w.ablate;
  return options;
}

int FirstChangedLayer(const model::ModelConfig& c, const model::RunOptions& a, const model::RunOptions& b) {
  for (int l = 0; l < c.n_layer; ++l)
    if (model::AttentionMultiplier(c, l, a) != model::AttentionMultiplier(c, l, b) ||
        model::AttentionSoftcap(c, l, a) != model::AttentionSoftcap(c, l, b) || NoQkNorm(a, l) != NoQkNorm(b, l) ||
        AblatedHeadsOf(a, l) != AblatedHeadsOf(b, l))
      return l;
  return c.n_layer;
}

}  // namespace attnviz
