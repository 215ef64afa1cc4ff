#include "model_display.h"

#include <algorithm>

#include "i18n/localized.h"
#include "i18n/ui_strings.h"
#include "model_analysis.h"

namespace attnviz {

AttentionTensors LayerAsTensors(const ModelResult& result, int layer) {
  AttentionTensors t;
  if (result.has_layer(layer)) static_cast<LayerMaps&>(t) = *result.layers[(size_t)layer];
  return t;
}

Status WithExactRows(const ModelResult& result, int layer, AttentionTensors* t) {
  if (!t->pooled || !t->q->empty()) return Status::Ok();
  SharedTensor q, k;
  if (Status s = ExactQk(result, layer, &q, &k); !s) return s;
  if (!q->empty()) t->q = q, t->k = k;
  return Status::Ok();
}

AttentionTensors LayerForDisplay(const ModelResult& r, int layer, bool hide_special) {
  AttentionTensors all = LayerAsTensors(r, layer);
  std::vector<size_t> keep;
  for (size_t i = 0; i < r.tokens.size(); ++i)
    if (!r.tokens[i].special) keep.push_back(i);
  if (!hide_special || keep.size() == r.tokens.size() || keep.empty() || all.probs->empty()) return all;
  const size_t n = r.tokens.size(), m = keep.size(), n_head = all.probs->dim(0);
  auto probs = std::make_shared<Tensor>();
  probs->Resize({n_head, m, m});
  for (size_t h = 0; h < n_head; ++h)
    for (size_t a = 0; a < m; ++a)
      for (size_t b = 0; b < m; ++b) probs->data[(h * m + a) * m + b] = all.probs->data[(h * n + keep[a]) * n + keep[b]];
  AttentionTensors t;
  for (size_t i : keep) t.kv_tokens.push_back(all.kv_tokens[i]);
  t.query_tokens = t.kv_tokens;
  t.probs = probs;
  t.mask = all.mask;
  t.metrics = all.metrics;  // the figures of the full rows (what the model computed), for the rows kept
  for (HeadMetrics& hm : t.metrics) {
    std::vector<RowMetrics> rows;
    for (size_t i : keep) rows.push_back(hm.rows[i]);
    hm.rows = std::move(rows);
  }
  return t;
}

AttentionTensors StackedLayers(const ModelResult& r, bool hide_special, MapKind kind) {
  AttentionTensors stacked;
  // Every layer, or nothing (a streamed run keeps no whole map to stack).
  if (!r.complete() || !MapKindRefusal(r, kind).empty() || r.streamed) return stacked;
  auto probs = std::make_shared<Tensor>();
  for (int l = 0; l < r.n_layer(); ++l) {
    AttentionTensors layer = KindLayerForDisplay(r, l, kind, hide_special);
    if (layer.probs->empty()) return AttentionTensors();  // a pooled rollout keeps no whole map to stack
    if (l == 0) {
      stacked.query_tokens = layer.query_tokens;
      stacked.kv_tokens = layer.kv_tokens;
      probs->Resize({layer.probs->dim(0) * (size_t)r.n_layer(), layer.probs->dim(1), layer.probs->dim(2)});
    }
    std::copy(layer.probs->data.begin(), layer.probs->data.end(), probs->data.begin() + (size_t)l * layer.probs->size());
    stacked.metrics.insert(stacked.metrics.end(), layer.metrics.begin(), layer.metrics.end());
  }
  stacked.probs = probs;
  if (r.n_layer() > 0) stacked.mask = r.layers[0]->mask;
  return stacked;
}

std::string ModelProgressText(const ModelProgress& p, float* fraction) {
  if (p.stage == ModelProgress::Stage::kIdle || p.total == 0) {
    if (fraction) *fraction = 0;
    return "";
  }
  if (fraction) *fraction = (float)p.fraction;
  const size_t running = std::min(p.done + 1, p.total);
  // After the layers, the predictions report their own stage (positions done of n).
  const bool predicting = p.stage == ModelProgress::Stage::kPredict;
  const Str what = predicting                                  ? Str::kModelPredictingOf
                   : p.stage == ModelProgress::Stage::kRollout ? Str::kModelRolloutOf
                                                               : Str::kModelLayerOf;
  return Trf(what, {std::to_string(predicting ? p.done : running), std::to_string(p.total)});
}

std::string AblationScanProgressText(const AblationScanProgress& p, float* fraction) {
  if (fraction) *fraction = p.running ? p.fraction : 0;
  if (!p.running) return "";
  return Trf(Str::kScanProgress, {std::to_string(p.head), std::to_string(p.total)});
}

std::string OpenErrorText(const ModelSession& session) {
  const Status s = session.open_status();
  return s.ok() ? "" : Localized(s);
}

}  // namespace attnviz
