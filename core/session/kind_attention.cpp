// The attention probabilities: softmax(q k^T * multiplier) per query head, masked cells exactly 0.
// --dump: attention.npy [n_layer, n_head, n, n].
#include "session/layer_collector.h"
#include "session/map_kind.h"

namespace attnviz {
namespace {

std::vector<size_t> Shape(const model::ModelConfig& c, int n) {
  return {(size_t)c.n_layer, (size_t)c.n_head, (size_t)n, (size_t)n};
}

Status Append(const model::LayerOutput& out, const LayerAnalysis&, NpyStreamWriter* npy, std::vector<float>*) {
  return npy->Append(out.probs, (size_t)out.n_head * out.n * out.n);  // probs: [n_head, n, n]
}

}  // namespace

const MapKindInfo& AttentionKind() {
  static const MapKindInfo kind = [] {
    MapKindInfo k;
    k.kind = MapKind::kAttention;
    k.name = "attention";
    k.refusal = [](int) { return Status::Ok(); };
    k.collect = [](CollectPlan*) {};  // the maps themselves
    k.dump.file = "attention.npy";
    k.dump.shape = Shape;
    k.dump.append = Append;
    k.dump.scratch_bytes = [](int) { return 0.0; };
    return k;
  }();
  return kind;
}

}  // namespace attnviz
