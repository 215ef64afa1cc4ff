#include "model_display.h"

#include <algorithm>
#include <utility>

#include "i18n/localized.h"
#include "i18n/ui_strings.h"
#include "model_analysis.h"

namespace attnviz {

Result<std::shared_ptr<const LayerMaps>> LayerWithExactRows(const ModelResult& result, int layer) {
  if (!result.has_layer(layer)) return std::shared_ptr<const LayerMaps>();
  const std::shared_ptr<const LayerMaps>& maps = result.layers[(size_t)layer];
  if (!maps->pooled || !maps->q->empty()) return maps;
  SharedTensor q, k;
  if (Status s = ExactQk(result, layer, &q, &k); !s) return s;
  if (q->empty()) return maps;
  auto with_rows = std::make_shared<LayerMaps>(*maps);
  with_rows->q = q, with_rows->k = k;
  return std::shared_ptr<const LayerMaps>(std::move(with_rows));
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
