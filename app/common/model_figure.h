// One layer of a trained model's run as the figure code draws it: the tokens, the layer's maps with the model's
// mask, the config the figure reads and a title naming the model, the layer, the head, the mask and the what-ifs.
// Both programs go through here, so `attnviz-cli model --figure` and the app's Export of a model head write the
// same figure for the same settings. The mask is the layer's, model::AttentionMask(config, layer) (core/model/config.h), the one place
// that decides it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "maps/layer_maps.h"
#include "maps/pyramid.h"
#include "attention/mask.h"
#include "model/config.h"
#include "model/run.h"
#include "sandbox/pipeline.h"
#include "base/status.h"
#include "base/tensor.h"
#include "session/layer_collector.h"  // ModelLayerMaps
#include "session/map_kind.h"
#include "session/what_ifs.h"
#include "tokenize/token.h"

namespace attnviz {

// The mask's words in a title for a text of n tokens: "bidirectional", "causal", or "causal, window 8" when the
// sliding window is shorter than the text (else it cuts nothing).
std::string MaskTitle(const Mask& mask, int n);

// "gpt2 · layer 1 · head 2 · causal" or "mistral · layer 0 · 4 heads · causal, window 8 · no 1/√d_head, T=0.5 on
// layers 0, 1 · special tokens hidden": `heads` is "head 2", "4 heads", ...; n the tokens of the run (for the
// window). English; LocalizedTitle (app/common/i18n/localized.h) says it in the UI's language.
std::string ModelFigureTitle(const model::ModelConfig& c, int n, int layer, const std::string& heads,
                             const ModelWhatIfs& w, bool special_hidden = false);

// One head of one layer, ready for ExportHeatmap(maps, nullptr, options with options.head = head and
// options.title = title): a model layer has no sandbox config; its maps say how they were made.
struct ModelHeadFigure {
  LayerMaps maps;  // the layer's maps (tokens, probs [n_head, n, n], the model's mask), shared
  int head = 0;
  std::string title;         // ModelFigureTitle (English)
};

// `maps`: the layer's maps of `kind` as the panels hold them: whole probs [n_head, n, n] (the special tokens' rows
// and columns may have been left out, then the title says so), or a long input's pooled maps with q and k to
// recompute them from (every token; ExportHeatmap then writes exact cells); a rollout is one map, [1, n, n] (or a
// pooled rollout's blocks, [1, nb, nb], with pooled_factor tokens per cell). n_tokens: the run's tokens.
// The drawn head alone, [1, n, n] or pooled [1, nb, nb], is taken too (attnviz-cli keeps no other head): the
// figure's head is then 0, its title still names `head`.
// pooling: how pooled_factor pooled the cells, for the title ("max-pooled 8x8" rather than "8 tokens per cell").
// The title names the kind: "head 2 · value-weighted", "rollout". Errors: the layer or head out of the model's
// range, maps of any other shape.
Result<ModelHeadFigure> MakeModelHeadFigure(const model::ModelConfig& c, const LayerMaps& maps, int n_tokens, int layer,
                                            int head, const ModelWhatIfs& w, MapKind kind = MapKind::kAttention,
                                            int pooled_factor = 1, std::optional<PoolKind> pooling = std::nullopt);
// The heads segment of a model figure's title: "head 2", "3 heads", with " · value-weighted" after it, or
// "rollout" (one map: the heads averaged), " · 8 tokens per cell" when pooled (" · max-pooled 8x8" with pooling).
std::string ModelFigureHeads(MapKind kind, const std::string& heads, int pooled_factor = 1,
                             std::optional<PoolKind> pooling = std::nullopt);

}  // namespace attnviz
