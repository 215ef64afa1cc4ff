// The attention probabilities: softmax(q k^T * multiplier) per query head, masked cells exactly 0.
// --dump: attention.npy [n_layer, n_head, n, n].
#include "session/layer_collector.h"
#include "session/map_kind.h"

namespace attnviz {
namespace {

Status Append(const model::LayerOutput& out, const LayerAnalysis&, NpyStreamWriter* npy, std::vector<float>*) {
  return npy->Append(out.probs, (size_t)out.n_head * out.n * out.n);  // probs: [n_head, n, n]
}

KindShows Shows() {
  KindShows s;
  s.head_roles = true;  // the roles are scored on the attention maps
  return s;
}

}  // namespace

const MapKindInfo& AttentionKind() {
  // The maps themselves: no refusal, nothing more to collect.
  static const MapKindInfo kind{MapKind::kAttention, "attention", /*cli_alias=*/"", NoRefusal, CollectOnlyMaps,
                                KindDump{"attention.npy", PerHeadMapsShape, Append}, Shows()};
  return kind;
}

}  // namespace attnviz
