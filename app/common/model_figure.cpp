#include "model_figure.h"

#include <algorithm>
#include <cstdio>

#include "maps/pooled_map.h"
#include "i18n/app_messages.h"

namespace attnviz {

namespace {

// "no 1/√d_head, T=0.5 on layers 0, 2" (the layers as a sorted set), "" when the what-ifs cannot change the
// map of `layer`: none at all, or only on later layers.
std::string WhatIfSegment(const ModelWhatIfs& w, int layer) {
  if (!w.any()) return "";
  std::vector<int> layers = w.layers;
  std::sort(layers.begin(), layers.end());
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  if (!layers.empty() && layers.front() > layer) return "";
  std::string s;
  if (w.no_scale) s = "no 1/\u221Ad_head";
  if (w.no_softcap) s += (s.empty() ? "" : ", ") + std::string("no soft cap");
  if (w.temperature != 1.0f) s += (s.empty() ? "" : ", ") + std::string("T=") + ShortNumber(w.temperature);
  if (w.no_qk_norm) s += (s.empty() ? "" : ", ") + std::string("no q/k norm");
  if (layers.empty()) return s + " on every layer";
  if (layers.size() == 1) return s + " on layer " + std::to_string(layers[0]);
  s += " on layers ";
  for (size_t i = 0; i < layers.size(); ++i) s += (i ? ", " : "") + std::to_string(layers[i]);
  return s;
}

}  // namespace

std::string MaskTitle(const Mask& mask, int n) {
  if (!mask.causal()) return "bidirectional";  // a model's maps are causal or see every key
  if (mask.windowed() && mask.window < n) return "causal, window " + std::to_string(mask.window);
  return "causal";
}

std::string ModelFigureTitle(const model::ModelConfig& c, int n, int layer, const std::string& heads,
                             const ModelWhatIfs& w, bool special_hidden) {
  std::string title = c.model_type + kTitleDot + "layer " + std::to_string(layer) + kTitleDot + heads + kTitleDot +
                      MaskTitle(model::AttentionMask(c, layer), n);
  if (std::string what_if = WhatIfSegment(w, layer); !what_if.empty()) title += kTitleDot + what_if;
  if (special_hidden) title += kTitleDot + std::string("special tokens hidden");
  return title;
}

std::string ModelFigureHeads(MapKind kind, const std::string& heads, int pooled_factor,
                             std::optional<PoolKind> pooling) {
  const KindShows& shows = KindInfo(kind).shows;
  std::string out = shows.one_map ? std::string(shows.title) : heads;  // one map: no heads to name
  if (!shows.one_map && *shows.title) out += kTitleDot + std::string(shows.title);
  if (pooled_factor > 1)  // LocalizedTitle says either in the UI's language
    out += kTitleDot + (pooling ? PooledTitle(*pooling, pooled_factor)
                                : std::to_string(pooled_factor) + " tokens per cell");
  return out;
}

Result<ModelHeadFigure> MakeModelHeadFigure(const model::ModelConfig& c, const LayerMaps& maps, int n_tokens, int layer,
                                            int head, const ModelWhatIfs& w, MapKind kind, int pooled_factor,
                                            std::optional<PoolKind> pooling) {
  if (layer < 0 || layer >= c.n_layer)
    return AppError(AppMsgId::kModelLayerOutOfRange,
                         {"layer", std::to_string(layer), std::to_string(c.n_layer - 1), std::to_string(c.n_layer)});
  const KindShows& shows = KindInfo(kind).shows;
  const int n_head = shows.one_map ? 1 : c.n_head;  // rollout: one map, the heads averaged
  if (head < 0 || head >= n_head)
    return AppError(AppMsgId::kModelHeadOutOfRange,
                         {"head", std::to_string(head), std::to_string(n_head - 1), std::to_string(n_head)});
  const size_t n = maps.kv_tokens.size();
  // !! A pooled layer keeps no whole map: its probs are empty and ExportHeatmap recomputes cells from q and k.
  const bool recomputable = maps.pooled && !maps.q->empty() && !maps.k->empty() && shows.exact_from_qk &&
                            (int)n == n_tokens && maps.q->dim(0) == (size_t)n_head;
  // The drawn head alone: [1, n, n] of a layer with more heads.
  const bool head_alone = n_head > 1 && !maps.pooled && maps.probs->shape == std::vector<size_t>{1, n, n};
  const bool whole = !maps.pooled &&
                     (maps.probs->shape == std::vector<size_t>{(size_t)n_head, n, n} || head_alone) &&
                     (pooled_factor > 1 ? (int)n == (n_tokens + pooled_factor - 1) / pooled_factor : (int)n <= n_tokens);
  if (!(recomputable || whole) || maps.query_tokens.size() != n)
    return Status::Error("layer " + std::to_string(layer) + ": the maps are not [" + std::to_string(n_head) +
                         ", n, n] for its " + std::to_string(n) + " tokens");
  ModelHeadFigure figure;
  figure.maps = maps;
  figure.head = head_alone ? 0 : head;
  figure.title = ModelFigureTitle(c, n_tokens, layer,
                                  ModelFigureHeads(kind, "head " + std::to_string(head), pooled_factor, pooling), w,
                                  pooled_factor == 1 && (int)n < n_tokens);
  return figure;
}

}  // namespace attnviz
