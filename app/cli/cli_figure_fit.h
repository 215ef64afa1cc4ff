// attnviz-cli model --figure, checked before the run: the figure of one head over the run's n tokens is laid out
// from the sizes and labels alone (figure/export.h CheckHeatmapFigure: the same layout and refusals as the file),
// so a figure that could not be written is refused before minutes of layers, with the reason and what would fit
// (the largest --cell-size, the smallest --pool factor). --pool auto picks the smallest factor that fits.
//
// Dimension glossary
//   n  the run's tokens        f  tokens a side of a pooled cell (1: every token its own cell)
#pragma once
#include <functional>
#include <string>

#include "base/status.h"
#include "figure/export.h"
#include "maps/layer_maps.h"

namespace attnviz {

// --pool auto: the smallest factor whose figure fits.
inline constexpr int kPoolAuto = 0;
inline constexpr int kMaxPool = 65536;

// The map's axes at factor f (1: axes itself; else BlockTokens and PooledMask) with one head drawn.
LayerMaps PooledAxes(const LayerMaps& axes, int f);

// The factor to draw at: `pool` (1: not pooled, or F) when its figure fits, else the refusal naming the tokens, the
// reason and what fits; kPoolAuto: the smallest factor that fits. axes: the layer's tokens and mask (no weights);
// options_at(f): the figure options at factor f, the title and words as they will be drawn (the title names f).
Result<int> CheckModelFigureFits(const LayerMaps& axes, int pool,
                                 const std::function<HeatmapExportOptions(int f)>& options_at);

}  // namespace attnviz
