// Pyramids of pooled attention maps: what the screen draws when a map has more cells than its slot has
// pixels. Built block by block from the rows a pass produces (AttendStream's sink), so no full
// [n_head, n_q, n_k] map is ever needed; with a full map at hand (small inputs) the same code reads it.
//
// Level l pools factor_l x factor_l cells (factor_0 = base factor 2, 4 or 8; each next level doubles it):
//   max:  the largest prob the cell covers (a single spike, e.g. a one-hot row, stays visible at every zoom)
//   mean: the mean of the probs it covers (edge cells: of the cells they cover), so a mean level keeps row
//         sums: sum_C mean[R][C] * cols_covered(C) * rows_covered(R) = rows_covered(R) (each prob row sums to 1).
// Cells the pyramid cannot resolve (zoomed below the base factor) are recomputed exactly (view.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "attention/attention.h"

namespace attnviz {

enum class PoolKind : uint8_t { kMax, kMean };
const char* ToString(PoolKind kind);

// Level storage: large arrays are anonymous mmaps on ordinary pages (not advised to use huge pages: under Debian's
// THP default a first touch of an advised page compacts memory synchronously; docs/speed.md, "Ordinary pages"),
// and resize() does not zero them (every cell is written by AddBlock / Finish).
template <typename T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}
  T* allocate(size_t n);
  void deallocate(T* p, size_t n);
  template <typename U>
  void construct(U* p) { ::new ((void*)p) U; }  // default-init: no zero fill
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) { ::new ((void*)p) U(std::forward<Args>(args)...); }
  bool operator==(const PoolAllocator&) const { return true; }
  bool operator!=(const PoolAllocator&) const { return false; }
};
using LevelBuffer = std::vector<float, PoolAllocator<float>>;

struct PyramidLevel {
  int factor = 1;          // cells per level cell along each side
  int rows = 0, cols = 0;  // ceil(n_q / factor), ceil(n_k / factor)
  LevelBuffer max, mean;  // [n_head, rows, cols]
  const float* Plane(PoolKind kind, int head) const {
    return (kind == PoolKind::kMax ? max : mean).data() + (size_t)head * rows * cols;
  }
};

class MapPyramid {
 public:
  // Cells of the base level over all heads at most (16 MiB a kind), unless the base factor is 8. A pyramid is
  // held three times at once in the app (shown, computing, scale-flipped twin) beside the score codes; finer
  // windows come from exact rows anyway (view.h).
  static constexpr size_t kBaseCellBudget = size_t(1) << 22;
  // The smallest of 2, 4, 8 that keeps the base level within the budget (8 when none does).
  static int BaseFactor(int n_head, int n_q, int n_k);
  // A streamed model run's factors for its n_layer layers of n_head [n, n] maps: `kept`, the finest from BaseFactor
  // whose levels over all layers (both kinds, the coarser levels a third more) fit kept_bytes; `pass`, the base the
  // run's pass pools into: the finest level kept (a base factor is at most 8), so no finer level is made to be
  // dropped.
  struct StreamedFactors {
    int pass = 2, kept = 2;
  };
  // What a streamed run keeps of its layers' pyramids, over all layers (the app's budget; the bench's app-like run).
  static constexpr double kStreamedKeptBytes = double(192u << 20);
  static StreamedFactors ForStreamedRun(int n_layer, int n_head, int n, double kept_bytes);

  // Sizes every level for maps [n_head, n_q, n_k] (coarser levels until both sides are <= 16 cells), made under
  // `mask`: a causal map's cells past the diagonal are masked, exactly 0, so AddBlock and Finish write their pooled
  // cells 0 without reading them (half the work; the same bits as pooling the zeros).
  void Reset(int n_head, int n_q, int n_k, int base_factor, const Mask& mask = Mask());
  // Pools one block of rows into the base level. block.r0 must be a multiple of the base factor and the
  // block must end at such a multiple or at n_q (AttendBlockRows are multiples of 8): then blocks cover
  // distinct base cells and may be added concurrently from the pass's threads.
  void AddBlock(const RowBlock& block);
  // All of a full map [n_head, n_q, n_k] (small inputs), in parallel over heads.
  void AddMap(const Tensor& probs);
  // Builds the coarser levels from the base, and each head's range; call once all rows are in.
  void Finish();
  // A causal pass continuing from a kept prefix: the cells of rows [0, from_row) are `kept`'s (a finished pyramid of
  // an earlier pass whose rows [0, from_row) were these, coarsened or not), so AddBlock needs only the blocks of rows
  // from from_row on and Finish copies the rest at every level kept has (its levels finer than kept's finest are
  // made from from_row on only: what Coarsened drops). The cells of whole rows below from_row are the same bits as a
  // whole pass's (a causal map's cells past the diagonal are 0 in both, whatever n_k), so are the ranges. Call after
  // Reset; false (nothing kept) when the two do not fit: not causal, other heads or levels, from_row not a multiple
  // of kept's finest factor or past either's rows. `kept` must outlive Finish.
  bool KeepRowsOf(const MapPyramid& kept, int from_row);
  // A finished pyramid of maps [n_head, n_q, n_k] known only pooled: pooled [n_head, ceil(n_q / factor),
  // ceil(n_k / factor)] holds each block's row mean of column sums (a pooled rollout, core/model/analysis.h).
  // The base level (factor any power of two) holds pooled / cols_covered in both kinds: the per-cell mean, a value
  // comparable with an exact map's cells. !! max is that mean too: the exact cells were never made.
  static MapPyramid FromPooledMean(const float* pooled, int n_head, int n_q, int n_k, int factor);

  // A copy without the levels finer than min_factor (the coarsest level at least): what a trained model keeps of
  // each of its many layers once the layer is done (finer windows come from exact rows). The head ranges are
  // the full pyramid's.
  MapPyramid Coarsened(int min_factor) const&;
  // The same, taking those levels from this pyramid instead of copying them (no new memory, no copy): this one is
  // left with its finer levels only, to be Reset before it is used again (a streamed run's next layer, whose own
  // coarser levels are then made fresh, in the parallel Finish, not here).
  MapPyramid Coarsened(int min_factor) &&;

  int n_head() const { return n_head_; }
  int n_q() const { return n_q_; }
  int n_k() const { return n_k_; }
  const std::vector<PyramidLevel>& levels() const { return levels_; }
  // The coarsest level whose factor is <= cells_per_pixel (each drawn pixel covers at least a level
  // cell); -1 when even the base level is coarser than that (draw exact cells instead).
  int LevelFor(double cells_per_pixel) const;
  // A head's largest prob (exact), and the smallest cell its base max level shows (the low end of an
  // automatic colour range: the darkest a pooled view can be).
  float head_min(int head) const { return head_min_[(size_t)head]; }
  float head_max(int head) const { return head_max_[(size_t)head]; }
  size_t bytes() const;

 private:
  void Size(int n_head, int n_q, int n_k, int base_factor);  // Reset's sizing, any base factor
  size_t FirstLevelAtLeast(int min_factor) const;  // the finest level of at least that factor (the coarsest at least)
  int n_head_ = 0, n_q_ = 0, n_k_ = 0;
  bool causal_ = false;  // Reset's mask is causal: row i's keys past i are 0
  std::vector<PyramidLevel> levels_;
  // [n_head, levels_[1].rows]: 1 where AddBlock made that row of the first coarser level (Finish makes the rest).
  std::vector<uint8_t> pooled_up_;
  std::vector<float> head_min_, head_max_;
  // [n_head, base rows]: the smallest cell of each row of the base max level (what head_min is the least of; kept
  // by Coarsened, so a pass keeping rows of this one finds its rows' share). base_factor_: that level's factor.
  std::vector<float> row_min_;
  int base_factor_ = 0;
  const MapPyramid* kept_ = nullptr;  // KeepRowsOf, until Finish
  int kept_from_row_ = 0;
};

// Every level (factor, sizes, both kinds' cells) and every head's range of a and b are the same bits.
bool SameBits(const MapPyramid& a, const MapPyramid& b);

// The pyramid of a column-scaled map prob[h, i, j] * col_scale[h, j] (value-weighted maps, Kobayashi et al. 2020:
// col_scale = || v_j^h W_o^h ||; view.h MapSource::col_scale reads its exact cells) made from q and k block by block
// like the streamed pass, so no whole map is ever held: each block's rows are scaled in a scratch buffer and pooled.
// q [n_head, n_q, d_k], k [n_kv, n_k, d_k] (n_head % n_kv == 0), col_scale [n_head, n_k]; multiplier, mask and
// softcap (0 = none) as the pass's. out is Reset to base_factor and Finished. cancel (may be null): checked before each block; returns
// false when it stopped the pass (out is then incomplete). blocks_done (may be null): progress, as AttendSink's.
bool ValueWeightedPyramid(const Tensor& q, const Tensor& k, float multiplier, const Mask& mask, const Tensor& col_scale,
                          int base_factor, MapPyramid* out, const std::atomic<bool>* cancel = nullptr,
                          std::atomic<size_t>* blocks_done = nullptr, float softcap = 0.0f);

}  // namespace attnviz
