// Value-weighted maps (Kobayashi et al. 2020): each weight times the size of what its key's value adds to the
// residual stream, prob[h, i, j] * ||v_j^(kv of h) W_o^h||: a map in the residual stream's units, not a
// probability (often above 1).
// --dump (or --value-norm): value_norm.npy [n_layer, n_head, n, n], written head by head (one [n, n] buffer).
#include "session/layer_collector.h"
#include "session/map_kind.h"

namespace attnviz {
namespace {

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

KindShows Shows() {
  KindShows s;
  s.derived = true;
  s.own_range = true;      // a weight times a norm, often above 1
  s.needs_pyramid = true;  // its cells are probs times the value norms: a streamed run's made on demand
  s.title = "value-weighted";
  return s;
}

}  // namespace

const MapKindInfo& ValueWeightedKind() {
  static const MapKindInfo kind{
      MapKind::kValueWeighted, "value_weighted", /*cli_alias=*/"--value-norm", NoRefusal,
      [](CollectPlan* plan) { plan->value_norms = true; },
      KindDump{"value_norm.npy", PerHeadMapsShape, Append, /*sidecar_file=*/"", /*sidecar=*/nullptr,
               /*scratch_bytes=*/[](int n) { return (double)n * n * sizeof(float); }},
      Shows()};
  return kind;
}

}  // namespace attnviz
