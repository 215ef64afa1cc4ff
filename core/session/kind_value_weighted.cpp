// Value-weighted maps (Kobayashi et al. 2020): each weight times the size of what its key's value adds to the
// residual stream, prob[h, i, j] * ||v_j^(kv of h) W_o^h||: a map in the residual stream's units, not a
// probability (often above 1).
// --dump (or --value-norm): value_norm.npy [n_layer, n_head, n, n], written head by head (one [n, n] buffer).
#include "session/layer_collector.h"
#include "session/map_kind.h"

namespace attnviz {
namespace {

std::vector<size_t> Shape(const model::ModelConfig& c, int n) {
  return {(size_t)c.n_layer, (size_t)c.n_head, (size_t)n, (size_t)n};
}

Status Append(const model::LayerOutput& out, const LayerAnalysis& a, NpyStreamWriter* npy, std::vector<float>* scratch) {
  const size_t nn = (size_t)out.n * out.n;
  scratch->resize(nn);
  for (int h = 0; h < out.n_head; ++h) {  // probs [n_head, n, n] times norms [n_head, n] on the columns
    model::ScaleColumns(out.probs + (size_t)h * nn, a.value_norms->data.data() + (size_t)h * out.n, out.n, out.n,
                        scratch->data());
    if (Status s = npy->Append(scratch->data(), nn); !s) return s;
  }
  return Status::Ok();
}

}  // namespace

const MapKindInfo& ValueWeightedKind() {
  static const MapKindInfo kind = [] {
    MapKindInfo k;
    k.kind = MapKind::kValueWeighted;
    k.name = "value_weighted";
    k.cli_alias = "--value-norm";
    k.refusal = [](int) { return Status::Ok(); };
    k.collect = [](CollectPlan* plan) { plan->value_norms = true; };
    k.dump.file = "value_norm.npy";
    k.dump.shape = Shape;
    k.dump.append = Append;
    k.dump.scratch_bytes = [](int n) { return (double)n * n * sizeof(float); };
    return k;
  }();
  return kind;
}

}  // namespace attnviz
