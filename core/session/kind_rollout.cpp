// Attention rollout (Abnar & Zuidema 2020): each layer's heads averaged plus the identity, rows renormalized,
// multiplied through the layers: R_l = A^_l R_(l-1). Exact up to kRolloutMaxTokens tokens, pooled above (blocks of
// RolloutFactor(n) tokens); refused when even the pooled state is over the memory limit.
// --dump (or --rollout): rollout.npy [n_layer, nb, nb] (nb = n when exact) and rollout.json (how cells map to tokens).
#include "session/layer_collector.h"
#include "session/map_kind.h"

namespace attnviz {
namespace {

std::vector<size_t> Shape(const model::ModelConfig& c, int n) {
  const size_t cells = (size_t)model::RolloutBlocks(n, RolloutFactor(n));
  return {(size_t)c.n_layer, cells, cells};
}

Status Append(const model::LayerOutput&, const LayerAnalysis& a, NpyStreamWriter* npy, std::vector<float>*) {
  return npy->Append(a.rollout->data.data(), a.rollout->size());  // R_l: [1, nb, nb]
}

// Cell I covers tokens I*f .. min(n, (I+1)*f) - 1.
std::string Sidecar(int n) {
  const int factor = RolloutFactor(n);
  return "{\"tokens\": " + std::to_string(n) + ", \"tokens_per_cell\": " + std::to_string(factor) +
         ", \"cells\": " + std::to_string(model::RolloutBlocks(n, factor)) +
         ", \"pooled\": " + (factor > 1 ? "true" : "false") + "}\n";
}

KindShows Shows() {
  KindShows s;
  s.derived = true;
  s.one_map = true;           // the heads averaged into one map per layer
  s.after_last_layer = true;  // ModelResult::rollout_pending: made once every layer is there
  s.exact_from_qk = false;    // pooled above kRolloutMaxTokens into blocks of RolloutFactor(n) tokens
  s.title = "rollout";
  return s;
}

}  // namespace

const MapKindInfo& RolloutKind() {
  static const MapKindInfo kind{MapKind::kRollout, "rollout", /*cli_alias=*/"--rollout", RolloutRefusal,
                                [](CollectPlan* plan) { plan->rollout = true; },
                                KindDump{"rollout.npy", Shape, Append, "rollout.json", Sidecar}, Shows()};
  return kind;
}

}  // namespace attnviz
