// The app's words for each map kind of the registry (core/session/map_kind.h), indexed by kind: its name in the
// Map choice, the sentence under it, and the sentence its refusal is said in. The texts are in strings_en.cpp and
// strings_ko.cpp; a new kind adds its row here and its words there.
#pragma once
#include "i18n/ui_strings.h"
#include "session/map_kind.h"

namespace attnviz {

struct MapKindWords {
  MapKind kind = MapKind::kAttention;
  Str label = Str::kMapKindAttention;
  Str explain = Str::kCount;  // kCount: nothing said under the choice
  Str refused = Str::kCount;  // "... {0}" around core's refusal (kCount: core's words alone)
};

// `kind`'s row (attention's for a kind without one: tests/session/test_one_collector.cpp checks there is none).
const MapKindWords& WordsOf(MapKind kind);
// Whether `kind` has a row of its own.
bool HasWords(MapKind kind);

}  // namespace attnviz
