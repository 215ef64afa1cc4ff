// The kinds of map the Heads panel, the Overview and the export show of a trained model (app/gui/model_analysis.h makes
// them): the attention probabilities, attention rollout, value-weighted maps.
#pragma once

namespace attnviz {

enum class MapKind { kAttention, kRollout, kValueWeighted };
const char* MapKindName(MapKind kind);  // "attention", "rollout", "value_weighted" (widgets JSON, file names)

}  // namespace attnviz
