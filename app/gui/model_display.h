// A model run (core/session/model_session.h) as the app's panels draw it: one layer as the AttentionTensors the
// Heads and Export panels read, special tokens left out when asked, every layer stacked for the overview figure,
// and the session's progress in the UI's words.
#pragma once
#include <string>

#include "model_analysis.h"  // the map kinds as the panels draw them
#include "sandbox/pipeline.h"
#include "session/ablation_scan.h"
#include "session/map_kind.h"
#include "session/model_session.h"

namespace attnviz {

// One layer of a model result as the AttentionTensors the Heads and Export panels draw: its LayerMaps, shared
// tensors (nothing deep-copied); the sandbox-only numbers stay empty.
AttentionTensors LayerAsTensors(const ModelResult& result, int layer);
// A streamed layer's q and k made again from its input (ExactQk) into t. Ok, doing nothing, when t has them or
// needs none (whole maps).
Status WithExactRows(const ModelResult& result, int layer, AttentionTensors* t);
// The same with the special tokens' rows and columns left out when `hide_special` (then a copy).
AttentionTensors LayerForDisplay(const ModelResult& result, int layer, bool hide_special);
// Every layer's heads as one stack [n_layer * n_head, n, n] (map k = layer k / n_head, head k % n_head),
// for the overview figure: a copy, made by the export job off the UI thread.
AttentionTensors StackedLayers(const ModelResult& result, bool hide_special, MapKind kind = MapKind::kAttention);
// "layer 3 of 12" while running, "" otherwise; fraction in [0, 1].
std::string ModelProgressText(const ModelProgress& progress, float* fraction);
// "head 5 of 144" while a scan runs, "" otherwise; fraction in [0, 1].
std::string AblationScanProgressText(const AblationScanProgress& progress, float* fraction);
// The last open's error in the UI's language ("" when it worked).
std::string OpenErrorText(const ModelSession& session);

}  // namespace attnviz
