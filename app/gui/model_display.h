// A model run (core/session/model_session.h) as the app's panels draw it: a streamed layer with its exact rows, and
// the session's progress in the UI's words (the layers themselves: model_analysis.h KindLayerForDisplay).
#pragma once
#include <string>

#include "model_analysis.h"  // the map kinds as the panels draw them
#include "sandbox/pipeline.h"
#include "session/ablation_scan.h"
#include "session/map_kind.h"
#include "session/model_session.h"

namespace attnviz {

// Layer `layer` of a model result with exact rows: a streamed layer's q and k made again from its input (ExactQk;
// the tensors shared, q and k new), a whole-map layer itself (shared). Null when the layer is not there yet.
Result<std::shared_ptr<const LayerMaps>> LayerWithExactRows(const ModelResult& result, int layer);
// "layer 3 of 12" while running, "" otherwise; fraction in [0, 1].
std::string ModelProgressText(const ModelProgress& progress, float* fraction);
// "head 5 of 144" while a scan runs, "" otherwise; fraction in [0, 1].
std::string AblationScanProgressText(const AblationScanProgress& progress, float* fraction);
// The last open's error in the UI's language ("" when it worked).
std::string OpenErrorText(const ModelSession& session);

}  // namespace attnviz
