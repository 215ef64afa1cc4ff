#include "session/map_kind.h"

namespace attnviz {

std::vector<size_t> PerHeadMapsShape(const model::ModelConfig& c, int n) {
  return {(size_t)c.n_layer, (size_t)c.n_head, (size_t)n, (size_t)n};
}

const std::vector<const MapKindInfo*>& MapKinds() {
  static const std::vector<const MapKindInfo*> kinds = {&AttentionKind(), &RolloutKind(), &ValueWeightedKind()};
  return kinds;
}

const MapKindInfo& KindInfo(MapKind kind) {
  for (const MapKindInfo* k : MapKinds())
    if (k->kind == kind) return *k;
  return AttentionKind();
}

const MapKindInfo* MapKindNamed(const std::string& name) {
  for (const MapKindInfo* k : MapKinds())
    if (name == k->name) return k;
  return nullptr;
}

const char* MapKindName(MapKind kind) { return KindInfo(kind).name; }

std::string MapKindNames() {
  std::string out;
  for (const MapKindInfo* k : MapKinds()) out += (out.empty() ? "" : ", ") + std::string(k->name);
  return out;
}

}  // namespace attnviz
