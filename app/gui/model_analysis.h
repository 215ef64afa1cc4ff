// The model session's analysis beside the attention maps (core/model/analysis.h): what the neuron view needs of
// each layer (q, k after RoPE for whole-map runs, the multiplier), the value-norm scales and attention rollout,
// kept per layer as the run goes, and the other map kinds (rollout, value-weighted) as the panels draw them.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "i18n/ui_message.h"
#include "maps/layer_maps.h"
#include "maps/layer_stack.h"
#include "session/layer_collector.h"
#include "session/map_kind.h"
#include "session/model_session.h"
#include "model/analysis.h"
#include "sandbox/pipeline.h"
#include "tokenize/token.h"

namespace attnviz {

// Value-weighted maps are not probabilities (a weight times a norm, often above 1): the Heads panel draws them and
// the export writes them on their own range (min..max), whatever the fixed/auto setting says.
inline bool KindHasOwnRange(bool model_source, MapKind kind) { return model_source && KindInfo(kind).shows.own_range; }

// Why a run over n tokens makes no rollout ("" when it does), in the UI's words (core's RolloutRefusal).
UiMessage RolloutRefusalMessage(int n);
// The run makes its rollout after the last layer (ModelResult::rollout_pending) and has not made layer's yet.
bool RolloutPending(const ModelResult& result, int layer);
// Why `kind` cannot be shown for this result (empty when it can).
UiMessage MapKindRefusal(const ModelResult& result, MapKind kind);

// The model positions of the tokens on screen, as KindLayerForDisplay cuts them: the non-special ones when
// `hide_special`, else (or when that leaves none, or a streamed run keeps no whole map to cut) all of them.
// Display index a -> model position [a].
std::vector<int> DisplayPositions(const ModelResult& result, bool hide_special);

// Layer `layer` of `kind` as the panels draw it (special tokens left out when asked: CutLayerMaps): attention is
// the layer itself (shared, no copy, unless cut); value-weighted is probs * value_norms [n_head, n, n]; rollout one
// map [1, n, n] (a pooled rollout: pooled, no probs, a one-head pyramid of the pooled cells over all n tokens). The
// attention maps when MapKindRefusal says no (the panels show why). The other kinds are made (value-weighted:
// O(n_head n^2)). A streamed run's value-weighted layer is pooled: `rows` (made for this layer with value_weighted:
// MakeExactRows) gives its pyramid and q, k, the value norms its exact cells' column scale; without them, the
// attention maps. Null when the layer is not there yet.
std::shared_ptr<const LayerMaps> KindLayerForDisplay(const ModelResult& result, int layer, MapKind kind,
                                                     bool hide_special, const ExactRows* rows = nullptr);
// The run's stack with every layer of `kind` as KindLayerForDisplay makes it (the overview figure reads it: StackedHeads);
// made off the UI thread by the export job.
LayerStack KindStack(const ModelResult& result, MapKind kind, bool hide_special);
// A pooled rollout of `layer` (rollout_factor > 1) as whole maps of its cells, for the export: probs [1, nb, nb]
// (R'_l, shared), block I's tokens named by their positions ("8-15"); the model's mask at block level (causal: a
// block row sees the blocks up to its own). Empty probs when the layer has no pooled rollout.
LayerMaps PooledRolloutBlocks(const ModelResult& result, int layer);
// The Heads panel shows `kind` for `layer`, but its value-weighted pyramid (a streamed run) is still to be made (not
// in `rows`): the panel shows the attention maps meanwhile, and says so.
bool ValueWeightedPending(const ModelResult& result, int layer, MapKind kind, const ExactRows* rows);

// The neuron view of (layer, head, i, j) in model positions, from the layer's kept q and k, or for a streamed layer
// q and k made again from its input (LayerWithExactRows); the probs when kept.
Result<model::NeuronView> NeuronOf(const ModelResult& result, int layer, int head, int i, int j);

}  // namespace attnviz
