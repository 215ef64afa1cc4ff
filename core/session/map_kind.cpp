#include "session/map_kind.h"

namespace attnviz {

const char* MapKindName(MapKind kind) {
  switch (kind) {
    case MapKind::kRollout: return "rollout";
    case MapKind::kValueWeighted: return "value_weighted";
    default: return "attention";
  }
}

}  // namespace attnviz
