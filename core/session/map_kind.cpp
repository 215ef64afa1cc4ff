#include "session/map_kind.h"

namespace attnviz {

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
