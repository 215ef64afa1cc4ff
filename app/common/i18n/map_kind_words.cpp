#include "i18n/map_kind_words.h"

#include <vector>

namespace attnviz {
namespace {

const std::vector<MapKindWords>& Table() {
  static const std::vector<MapKindWords> table = {
      {MapKind::kAttention, Str::kMapKindAttention},
      {MapKind::kRollout, Str::kMapKindRollout, Str::kRolloutExplain, Str::kRolloutRefusedMemory},
      {MapKind::kValueWeighted, Str::kMapKindValueWeighted, Str::kValueWeightedExplain},
  };
  return table;
}

}  // namespace

const MapKindWords& WordsOf(MapKind kind) {
  for (const MapKindWords& w : Table())
    if (w.kind == kind) return w;
  return Table()[0];
}

bool HasWords(MapKind kind) {
  for (const MapKindWords& w : Table())
    if (w.kind == kind) return true;
  return false;
}

}  // namespace attnviz
