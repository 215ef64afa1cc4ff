#include "cli_model_preflight.h"

#include <algorithm>

#include "base/memory_budget.h"
#include "cli_util.h"
#include "i18n/app_messages.h"
#include "maps/pooled_map.h"

namespace attnviz {

LayerMaps PooledAxes(const LayerMaps& axes, int f) {
  if (f <= 1) return axes;
  LayerMaps pooled = axes;
  pooled.query_tokens = TokenList(BlockTokens((int)axes.query_tokens.size(), f));
  pooled.kv_tokens = TokenList(BlockTokens((int)axes.kv_tokens.size(), f));
  pooled.mask = PooledMask(axes.mask, f);
  return pooled;
}

namespace {

// The figure at factor f, one head drawn (head 0 of the head kept), with a cell size in place of the asked one
// when cell > 0.
Status FitsAt(const LayerMaps& axes, int f, const std::function<HeatmapExportOptions(int)>& options_at, int cell = 0) {
  HeatmapExportOptions o = options_at(f);
  o.head = 0, o.all_heads = false;
  if (cell > 0) o.cell_size = cell, o.width = 0, o.size = FigureSize();
  const LayerMaps at = PooledAxes(axes, f);
  return CheckHeatmapFigure(at.query_tokens, at.kv_tokens, at.mask, 1, o);
}

// The smallest factor in [lo, hi] whose figure fits (0: none). !! The figure shrinks as f grows (fewer cells, fewer
// labels), so the first fit is found by halving.
int SmallestFittingPool(const LayerMaps& axes, int lo, int hi, const std::function<HeatmapExportOptions(int)>& options_at) {
  if (lo > hi || !FitsAt(axes, hi, options_at).ok()) return 0;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (FitsAt(axes, mid, options_at).ok()) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

}  // namespace

Result<int> CheckModelFigureFits(const LayerMaps& axes, int pool,
                                 const std::function<HeatmapExportOptions(int f)>& options_at) {
  const int n = (int)std::max(axes.query_tokens.size(), axes.kv_tokens.size());  // a pooled side needs f <= n
  if (pool == kPoolAuto) {  // as asked when it fits, else the smallest factor that does
    if (FitsAt(axes, 1, options_at).ok()) return 1;
    if (const int f = SmallestFittingPool(axes, 2, n, options_at); f > 0) return f;
    pool = 1;  // nothing fits: refused below with the unpooled figure's reason
  }
  const Status refused = FitsAt(axes, pool, options_at);
  if (refused.ok()) return pool;
  // What would fit: a smaller cell (when the cell is not set by --width or --size), a (larger) --pool factor.
  std::string fits;
  const HeatmapExportOptions asked = options_at(pool);
  if (asked.width == 0 && !asked.size.set()) {
    // The largest cell below the one refused (48: the largest default cell) that fits, by halving.
    int lo = 1, hi = asked.cell_size > 0 ? asked.cell_size - 1 : 48, best = 0;
    while (lo <= hi) {
      const int mid = lo + (hi - lo) / 2;
      if (FitsAt(axes, pool, options_at, mid).ok()) best = mid, lo = mid + 1;
      else hi = mid - 1;
    }
    if (best > 0) fits = "--cell-size " + std::to_string(best);
  }
  if (const int f = SmallestFittingPool(axes, pool + 1, n, options_at); f > 0)
    fits += (fits.empty() ? "" : ", ") + std::string("--pool ") + std::to_string(f);
  const std::string tokens = std::to_string(n);
  if (fits.empty()) return AppPrefixed(AppMsgId::kFigureRefusedNothingFits, {tokens}, refused);
  return AppPrefixed(AppMsgId::kFigureRefusedBeforeRun, {tokens, fits}, refused);
}

double DumpBytes(const model::ModelConfig& c, const std::vector<const MapKindInfo*>& kinds, int n) {
  double floats = ((double)c.n_layer + 1) * n * c.d_model;
  std::vector<const MapKindInfo*> written = {&AttentionKind()};
  written.insert(written.end(), kinds.begin(), kinds.end());
  for (const MapKindInfo* kind : written) {
    double cells = 1;
    for (size_t d : kind->dump.shape(c, n)) cells *= (double)d;
    floats += cells;
  }
  return floats * sizeof(float) + 1024.0 * n + 65536.0;
}

Status CheckDumpRoom(const std::string& dir, const model::ModelConfig& c, const std::vector<const MapKindInfo*>& kinds,
                     int n) {
  const double free = FreeDiskBytes(dir), need = DumpBytes(c, kinds, n);
  if (free < 0 || need <= free) return Status::Ok();
  int fits = 0;  // the most tokens whose files fit, by halving (the bytes grow with n)
  for (int lo = 1, hi = n - 1; lo <= hi;) {
    const int mid = lo + (hi - lo) / 2;
    if (DumpBytes(c, kinds, mid) <= free) fits = mid, lo = mid + 1;
    else hi = mid - 1;
  }
  return AppError(AppMsgId::kDumpPastDisk,
                  {MemoryText(need), dir, MemoryText(free), std::to_string(n), std::to_string(fits)});
}

}  // namespace attnviz
