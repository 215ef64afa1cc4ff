// attnviz-cli model's files, checked before the run, so what could not be written is refused before minutes of
// layers, with the reason and what would fit:
//   --figure  the figure of one head over the run's n tokens, laid out from the sizes and labels alone
//             (figure/export.h CheckHeatmapFigure: the same layout and refusals as the file); what fits: the largest
//             --cell-size, the smallest --pool factor. --pool auto picks the smallest factor that fits.
//   --dump    the files' bytes against the free space of the folder's disk; what fits: the most tokens.
//
// Dimension glossary
//   n  the run's tokens        f  tokens a side of a pooled cell (1: every token its own cell)
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli_figure_options.h"  // kPoolAuto
#include "figure/export.h"
#include "maps/layer_maps.h"
#include "model/config.h"
#include "session/map_kind.h"

namespace attnviz {

// The map's axes at factor f (1: axes itself; else each side's BlockTokens and PooledMask) with one head drawn.
LayerMaps PooledAxes(const LayerMaps& axes, int f);

// The factor to draw at: `pool` (1: not pooled, or F) when its figure fits, else the refusal naming the tokens, the
// reason and what fits; kPoolAuto: the smallest factor that fits. axes: the layer's tokens and mask (no weights);
// options_at(f): the figure options at factor f, the title and words as they will be drawn (the title names f).
Result<int> CheckModelFigureFits(const LayerMaps& axes, int pool,
                                 const std::function<HeatmapExportOptions(int f)>& options_at);

// The bytes --dump writes over n tokens: hidden.npy, attention.npy and each kind's .npy (kinds: those beside
// attention.npy); their headers, tokens.json and roles.csv are small beside them: a generous 1 KiB a token and 64 KiB.
double DumpBytes(const model::ModelConfig& c, const std::vector<const MapKindInfo*>& kinds, int n);
// Ok when DumpBytes fits the free space of dir's disk (cli_util.h FreeDiskBytes), or that cannot be told; else the
// refusal naming both and the most tokens that fit.
Status CheckDumpRoom(const std::string& dir, const model::ModelConfig& c, const std::vector<const MapKindInfo*>& kinds,
                     int n);

}  // namespace attnviz
