// The figure options attnviz-cli export and attnviz-cli model --figure share: how a heatmap looks, not what it
// shows or where it goes.
//   --colormap NAME  --color-scale S  --range fixed|auto  --cell-size PX  --width PX  --size WxH  --dpi N
//   --annotate  --title TEXT
#pragma once
#include <string>
#include <vector>

#include "figure/export.h"
#include "base/status.h"
#include "maps/pyramid.h"  // PoolKind

namespace attnviz {

// The longest --title, in characters (code points): about 8000 pixels of 15 px text at 96 dpi.
inline constexpr size_t kMaxTitleChars = 1000;

// Whether args[*i] is one of the options above. If it is, its value is taken (*i moves past it) and checked
// into *options; *error is the reason when it was wrong (Ok otherwise).
bool ParseFigureOption(const std::vector<std::string>& args, size_t* i, HeatmapExportOptions* options, Status* error);
// --pool F|auto and --pool-mode max|mean of attnviz-cli model --figure: F x F tokens drawn as one cell.
inline constexpr int kPoolAuto = 0;  // --pool auto: the smallest factor whose figure fits
inline constexpr int kMaxPool = 65536;
struct PoolChoice {
  int factor = 1;  // 1: not pooled; kPoolAuto: resolved before the run
  bool set = false;
  PoolKind mode = PoolKind::kMax;
  bool mode_set = false;
};
// Whether args[*i] is --pool or --pool-mode; as ParseFigureOption.
bool ParsePoolOption(const std::vector<std::string>& args, size_t* i, PoolChoice* pool, Status* error);
// The checks across them, once all are parsed: at most one of --cell-size, --width and --size.
Status CheckFigureOptions(const HeatmapExportOptions& options);
// Tells on stderr what the figure written could not do as asked (--annotate with cells too small for the weights:
// the cell size they need), in --lang's language. Nothing when all was done.
void PrintFigureNotes(const ExportNotes& notes);

}  // namespace attnviz
