#include "maps/pyramid.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <new>

#include <sys/mman.h>

#include <Eigen/Core>

#include "base/check.h"

namespace attnviz {

namespace {
constexpr size_t kMapUnit = size_t(2) << 20;  // arrays this large and up are mmapped, in whole units

// Rows [R0, R1) of head h of level p from the level c below it (p.factor = 2 c.factor): each cell the max of the
// cells it covers and their mean weighted by the map cells each covers. Cells whose four children each cover
// factor x factor cells: the mean of the four means, in the same order and precision as the general sum (scaling by
// the power-of-two cell counts is exact), so the same bits. causal: row R's cells past column R cover only masked
// keys (exactly 0 in level c too) and are written 0.
void PoolRowsUp(const PyramidLevel& c, PyramidLevel& p, int h, int R0, int R1, int n_q, int n_k, bool causal) {
  auto count = [&](int index, int factor, int n) { return (float)std::min(factor, n - index * factor); };
  const float* cmax = c.Plane(PoolKind::kMax, h);
  const float* cmean = c.Plane(PoolKind::kMean, h);
  float* pmax = p.max.data() + (size_t)h * p.rows * p.cols;
  float* pmean = p.mean.data() + (size_t)h * p.rows * p.cols;
  const int full_rows = std::min(p.rows, n_q / p.factor), full_cols = std::min(p.cols, n_k / p.factor);
  for (int R = R0; R < std::min(R1, full_rows); ++R) {
    const float* max0 = cmax + (size_t)(2 * R) * c.cols;
    const float* max1 = max0 + c.cols;
    const float* mean0 = cmean + (size_t)(2 * R) * c.cols;
    const float* mean1 = mean0 + c.cols;
    float* out_max = pmax + (size_t)R * p.cols;
    float* out_mean = pmean + (size_t)R * p.cols;
    const int cols = causal ? std::min(full_cols, R + 1) : full_cols;  // the rest: masked keys only
    std::fill(out_max + cols, out_max + full_cols, 0.0f);
    std::fill(out_mean + cols, out_mean + full_cols, 0.0f);
    for (int C = 0; C < cols; ++C) {
      out_max[C] = std::max(std::max(std::max(std::max(-INFINITY, max0[2 * C]), max0[2 * C + 1]), max1[2 * C]),
                            max1[2 * C + 1]);
      const double s = (((double)mean0[2 * C] + (double)mean0[2 * C + 1]) + (double)mean1[2 * C]) + (double)mean1[2 * C + 1];
      out_mean[C] = (float)(s / 4.0);
    }
  }
  for (int R = R0; R < R1; ++R) {
    for (int C = R < full_rows ? full_cols : 0; C < p.cols; ++C) {  // the partial last row and column
      float m = -INFINITY;
      double s = 0;
      for (int r = 2 * R; r < std::min(2 * R + 2, c.rows); ++r) {
        for (int cc = 2 * C; cc < std::min(2 * C + 2, c.cols); ++cc) {
          const size_t at = (size_t)r * c.cols + cc;
          m = std::max(m, cmax[at]);
          s += (double)cmean[at] * count(r, c.factor, n_q) * count(cc, c.factor, n_k);
        }
      }
      pmax[(size_t)R * p.cols + C] = m;
      pmean[(size_t)R * p.cols + C] = (float)(s / (count(R, p.factor, n_q) * count(C, p.factor, n_k)));
    }
  }
}

// Cells [0, full) of one band of the base level: each the max and the mean of its F columns of the band's column
// maxima `m` and sums `s` (over rows_covered rows). F a constant: the compiler unrolls the F columns and vectorizes
// over the cells, where F at run time leaves a scalar division a cell in AddBlock's inner loop; the same operations
// in the same order, so the same bits.
template <int F>
void PoolBandColumns(const float* m, const float* s, int full, float rows_covered, float* mx, float* mean) {
  const float cells = rows_covered * (float)F;
  for (int C = 0; C < full; ++C) {
    float mm = m[C * F], ss = s[C * F];
    for (int j = 1; j < F; ++j) mm = std::max(mm, m[C * F + j]), ss += s[C * F + j];
    mx[C] = mm;
    mean[C] = ss / cells;
  }
}

}  // namespace

template <typename T>
T* PoolAllocator<T>::allocate(size_t n) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kMapUnit) return static_cast<T*>(::operator new(bytes));
  const size_t mapped = (bytes + kMapUnit - 1) / kMapUnit * kMapUnit;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<T*>(p);
}

template <typename T>
void PoolAllocator<T>::deallocate(T* p, size_t n) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kMapUnit) return ::operator delete(p);
  munmap(p, (bytes + kMapUnit - 1) / kMapUnit * kMapUnit);
}
template struct PoolAllocator<float>;
template struct PoolAllocator<uint16_t>;  // score_codes.h

const char* ToString(PoolKind kind) { return kind == PoolKind::kMax ? "max" : "mean"; }

int MapPyramid::BaseFactor(int n_head, int n_q, int n_k) {
  for (int f : {2, 4}) {
    const size_t cells = (size_t)n_head * (size_t)((n_q + f - 1) / f) * (size_t)((n_k + f - 1) / f);
    if (cells <= kBaseCellBudget) return f;
  }
  return 8;
}

MapPyramid::StreamedFactors MapPyramid::ForStreamedRun(int n_layer, int n_head, int n, double kept_bytes) {
  StreamedFactors out;
  for (out.kept = BaseFactor(n_head, n, n);; out.kept *= 2) {
    const double side = std::ceil((double)n / out.kept);
    if (out.kept >= n || (double)n_layer * n_head * side * side * 2 * sizeof(float) * 4 / 3 <= kept_bytes) break;
  }
  out.pass = std::min(out.kept, 8);
  return out;
}

void MapPyramid::Reset(int n_head, int n_q, int n_k, int base_factor, const Mask& mask) {
  ATTNVIZ_CHECK_SHAPE(n_head > 0 && n_q > 0 && n_k > 0 && (base_factor == 2 || base_factor == 4 || base_factor == 8),
                      "pyramid for [" + std::to_string(n_head) + ", " + std::to_string(n_q) + ", " +
                          std::to_string(n_k) + "], base factor " + std::to_string(base_factor));
  Size(n_head, n_q, n_k, base_factor);
  causal_ = mask.causal() && mask.row0 == 0 && mask.col0 == 0;  // row i sees keys < i + 1 (a cut: not assumed)
}

void MapPyramid::Size(int n_head, int n_q, int n_k, int base_factor) {
  n_head_ = n_head, n_q_ = n_q, n_k_ = n_k;
  causal_ = false;
  std::vector<PyramidLevel> levels;
  for (int f = base_factor;; f *= 2) {
    PyramidLevel level;
    level.factor = f;
    level.rows = (n_q + f - 1) / f;
    level.cols = (n_k + f - 1) / f;
    const size_t cells = (size_t)n_head * level.rows * level.cols;
    // Reused when the sizes did not change (the pipeline recycles pyramids nobody holds any more).
    if (levels_.size() > levels.size()) {
      level.max = std::move(levels_[levels.size()].max);
      level.mean = std::move(levels_[levels.size()].mean);
    }
    level.max.resize(cells);
    level.mean.resize(cells);
    levels.push_back(std::move(level));
    if (std::max(levels.back().rows, levels.back().cols) <= 16) break;
  }
  levels_ = std::move(levels);
  base_factor_ = base_factor;
  row_min_.assign((size_t)n_head * levels_[0].rows, 0.0f);
  kept_ = nullptr, kept_from_row_ = 0;
  pooled_up_.assign(levels_.size() > 1 ? (size_t)n_head * levels_[1].rows : 0, 0);
  head_min_.assign((size_t)n_head, 0.0f);
  head_max_.assign((size_t)n_head, 0.0f);
}

MapPyramid MapPyramid::FromPooledMean(const float* pooled, int n_head, int n_q, int n_k, int factor) {
  ATTNVIZ_CHECK_SHAPE(pooled && n_head > 0 && n_q > 0 && n_k > 0 && factor > 0 && (factor & (factor - 1)) == 0,
                      "pooled maps for [" + std::to_string(n_head) + ", " + std::to_string(n_q) + ", " +
                          std::to_string(n_k) + "], factor " + std::to_string(factor));
  MapPyramid p;
  p.Size(n_head, n_q, n_k, factor);
  PyramidLevel& base = p.levels_[0];
  for (int h = 0; h < n_head; ++h)
    for (int R = 0; R < base.rows; ++R)
      for (int C = 0; C < base.cols; ++C) {
        const size_t at = ((size_t)h * base.rows + R) * base.cols + C;
        const float cols_covered = (float)(std::min(n_k, (C + 1) * factor) - C * factor);
        base.max[at] = base.mean[at] = pooled[at] / cols_covered;
      }
  p.Finish();
  return p;
}

void MapPyramid::AddBlock(const RowBlock& b) {
  PyramidLevel& base = levels_[0];
  const int f = base.factor;
  ATTNVIZ_CHECK_SHAPE(b.head >= 0 && b.head < n_head_ && b.n_k == n_k_ && b.r0 % f == 0 &&
                          ((b.r0 + b.rows) % f == 0 || b.r0 + b.rows == n_q_),
                      "row block " + std::to_string(b.r0) + "+" + std::to_string(b.rows) + " for base factor " +
                          std::to_string(f));
  const int R0 = b.r0 / f, R1 = (b.r0 + b.rows + f - 1) / f;
  const size_t plane = (size_t)base.rows * base.cols;
  // Column-wise max and sum over the band's rows first (contiguous, vectorized), then over each f columns.
  thread_local std::vector<float> acc_max, acc_sum;
  acc_max.resize((size_t)n_k_);
  acc_sum.resize((size_t)n_k_);
  using Row = Eigen::Map<Eigen::ArrayXf>;
  using ConstRow = Eigen::Map<const Eigen::ArrayXf>;
  for (int R = R0; R < R1; ++R) {
    const int i0 = R * f, i1 = std::min(i0 + f, b.r0 + b.rows);
    // Causal: the band's keys from i1 on are masked (0), so its cells from column ceil(i1 / f) on are written 0.
    const int cols = causal_ ? std::min(base.cols, (i1 + f - 1) / f) : base.cols;  // the cells pooled
    const int keys = std::min(n_k_, cols * f);                                     // the keys they cover
    Row am(acc_max.data(), keys), as(acc_sum.data(), keys);
    am = as = ConstRow(b.probs + (size_t)(i0 - b.r0) * n_k_, keys);
    for (int i = i0 + 1; i < i1; ++i) {
      ConstRow row(b.probs + (size_t)(i - b.r0) * n_k_, keys);
      am = am.max(row);
      as += row;
    }
    float* mx = base.max.data() + b.head * plane + (size_t)R * base.cols;
    float* mean = base.mean.data() + b.head * plane + (size_t)R * base.cols;
    std::fill(mx + cols, mx + base.cols, 0.0f);
    std::fill(mean + cols, mean + base.cols, 0.0f);
    const float rows_covered = (float)(i1 - i0);
    const int full = std::min(n_k_ / f, cols);  // columns covering f keys each
    switch (f) {  // Reset allows these three
      case 2: PoolBandColumns<2>(acc_max.data(), acc_sum.data(), full, rows_covered, mx, mean); break;
      case 4: PoolBandColumns<4>(acc_max.data(), acc_sum.data(), full, rows_covered, mx, mean); break;
      case 8: PoolBandColumns<8>(acc_max.data(), acc_sum.data(), full, rows_covered, mx, mean); break;
      default: ATTNVIZ_CHECK_SHAPE(false, "base factor " + std::to_string(f) + " (Reset allows 2, 4, 8)");
    }
    if (full < cols) {  // the last column, covering fewer than f keys (then keys == n_k_)
      const int j0 = full * f;
      float mm = acc_max[(size_t)j0], ss = acc_sum[(size_t)j0];
      for (int j = j0 + 1; j < n_k_; ++j) mm = std::max(mm, acc_max[(size_t)j]), ss += acc_sum[(size_t)j];
      mx[full] = mm;
      mean[full] = ss / (rows_covered * (float)(n_k_ - j0));
    }
  }
  // The first coarser level's rows this block covers whole, while the block's base rows are in cache (Finish makes
  // the rest): blocks cover distinct rows, so distinct cells and flags.
  if (levels_.size() > 1) {
    PyramidLevel& up = levels_[1];
    const int F = up.factor, end = b.r0 + b.rows;
    if (b.r0 % F == 0 && (end % F == 0 || end == n_q_)) {
      const int U0 = b.r0 / F, U1 = (end + F - 1) / F;
      PoolRowsUp(base, up, b.head, U0, U1, n_q_, n_k_, causal_);
      std::fill(pooled_up_.begin() + (size_t)b.head * up.rows + U0, pooled_up_.begin() + (size_t)b.head * up.rows + U1, 1);
    }
  }
}

void MapPyramid::AddMap(const Tensor& probs) {
  ATTNVIZ_CHECK_SHAPE(probs.dim(0) == (size_t)n_head_ && probs.dim(1) == (size_t)n_q_ && probs.dim(2) == (size_t)n_k_,
                      "probs " + ShapeString(probs.shape) + " for a pyramid of [" + std::to_string(n_head_) + ", " +
                          std::to_string(n_q_) + ", " + std::to_string(n_k_) + "]");
  const int f = levels_[0].factor;
  const int band = std::max(f, 64 / f * f);
  const int bands = (n_q_ + band - 1) / band;
#pragma omp parallel for schedule(dynamic) if ((size_t)n_head_ * n_q_ * n_k_ > (1u << 18))
  for (long long item = 0; item < (long long)n_head_ * bands; ++item) {
    RowBlock b;
    b.head = (int)(item / bands);
    b.r0 = (int)(item % bands) * band;
    b.rows = std::min(band, n_q_ - b.r0);
    b.n_k = n_k_;
    b.probs = probs.data.data() + ((size_t)b.head * n_q_ + b.r0) * n_k_;
    AddBlock(b);
  }
}

bool MapPyramid::KeepRowsOf(const MapPyramid& kept, int from_row) {
  kept_ = nullptr, kept_from_row_ = 0;
  if (!causal_ || kept.n_head_ != n_head_ || kept.levels_.empty() || kept.base_factor_ != base_factor_ ||
      kept.row_min_.size() != (size_t)n_head_ * ((kept.n_q_ + base_factor_ - 1) / base_factor_) || from_row <= 0 ||
      from_row > std::min(kept.n_q_, n_q_) || from_row > std::min(kept.n_k_, n_k_) ||
      from_row % kept.levels_.front().factor != 0)
    return false;
  // kept's levels are this one's coarsest, factor for factor.
  const size_t first = levels_.size() >= kept.levels_.size() ? levels_.size() - kept.levels_.size() : levels_.size();
  if (first == levels_.size()) return false;
  for (size_t l = 0; l < kept.levels_.size(); ++l)
    if (kept.levels_[l].factor != levels_[first + l].factor) return false;
  kept_ = &kept, kept_from_row_ = from_row;
  return true;
}

void MapPyramid::Finish() {
  // A kept prefix (KeepRowsOf): level l's first row to make, rows [0, from) of the kept levels copied first.
  const size_t first_kept = kept_ ? levels_.size() - kept_->levels_.size() : levels_.size();
  auto first_row = [&](size_t l) { return kept_ ? kept_from_row_ / levels_[l].factor : 0; };
  auto copy_kept_rows = [&](size_t l) {
    if (l < first_kept) return;
    const PyramidLevel& from = kept_->levels_[l - first_kept];
    PyramidLevel& to = levels_[l];
    const int rows = first_row(l), cols = std::min(from.cols, to.cols);
#pragma omp parallel for schedule(static) if ((size_t)n_head_ * rows * to.cols > (1u << 16))
    for (int h = 0; h < n_head_; ++h)
      for (int R = 0; R < rows; ++R)
        for (auto [src, dst] : {std::pair<const LevelBuffer*, LevelBuffer*>{&from.max, &to.max}, {&from.mean, &to.mean}}) {
          const float* a = src->data() + ((size_t)h * from.rows + R) * from.cols;
          float* b = dst->data() + ((size_t)h * to.rows + R) * to.cols;
          std::copy(a, a + cols, b);
          std::fill(b + cols, b + to.cols, 0.0f);  // keys the kept rows could not see: masked, 0 in both
        }
  };
  copy_kept_rows(0);
  for (size_t l = 1; l < levels_.size(); ++l) {
    copy_kept_rows(l);
    const PyramidLevel& c = levels_[l - 1];
    PyramidLevel& p = levels_[l];
    const int R_first = first_row(l);
    // Heads are independent: in parallel when the level is large (the base of 16 heads at 4096 tokens). Rows of the
    // first coarser level AddBlock made already (pooled_up_) are skipped.
#pragma omp parallel for schedule(static) if ((size_t)n_head_ * p.rows * p.cols > (1u << 16))
    for (int h = 0; h < n_head_; ++h) {
      if (l > 1 || pooled_up_.empty()) {
        PoolRowsUp(c, p, h, R_first, p.rows, n_q_, n_k_, causal_);
        continue;
      }
      const uint8_t* done = pooled_up_.data() + (size_t)h * p.rows;
      for (int R = R_first; R < p.rows;) {
        if (done[R]) {
          ++R;
          continue;
        }
        int end = R + 1;
        while (end < p.rows && !done[end]) ++end;
        PoolRowsUp(c, p, h, R, end, n_q_, n_k_, causal_);
        R = end;
      }
    }
  }
  std::fill(pooled_up_.begin(), pooled_up_.end(), 0);
  const PyramidLevel& top = levels_.back();
  const PyramidLevel& base = levels_[0];
  const int base_from = kept_ ? kept_from_row_ / base.factor : 0;
#pragma omp parallel for schedule(static) if ((size_t)n_head_ * base.rows * base.cols > (1u << 16))
  for (int h = 0; h < n_head_; ++h) {
    const float* m = top.Plane(PoolKind::kMax, h);
    head_max_[(size_t)h] = *std::max_element(m, m + (size_t)top.rows * top.cols);
    float* mins = row_min_.data() + (size_t)h * base.rows;
    if (kept_) std::copy_n(kept_->row_min_.data() + (size_t)h * (kept_->row_min_.size() / n_head_), base_from, mins);
    const float* lo = base.Plane(PoolKind::kMax, h);
    for (int R = base_from; R < base.rows; ++R)
      mins[R] = *std::min_element(lo + (size_t)R * base.cols, lo + (size_t)(R + 1) * base.cols);
    head_min_[(size_t)h] = *std::min_element(mins, mins + base.rows);
  }
  kept_ = nullptr, kept_from_row_ = 0;
}

MapPyramid MapPyramid::Coarsened(int min_factor) const& {
  MapPyramid out;
  out.n_head_ = n_head_, out.n_q_ = n_q_, out.n_k_ = n_k_;
  out.head_min_ = head_min_, out.head_max_ = head_max_;
  out.row_min_ = row_min_, out.base_factor_ = base_factor_, out.causal_ = causal_;
  out.levels_.assign(levels_.begin() + (std::ptrdiff_t)FirstLevelAtLeast(min_factor), levels_.end());
  return out;
}

MapPyramid MapPyramid::Coarsened(int min_factor) && {
  MapPyramid out;
  out.n_head_ = n_head_, out.n_q_ = n_q_, out.n_k_ = n_k_;
  out.head_min_ = head_min_, out.head_max_ = head_max_;
  out.row_min_ = row_min_, out.base_factor_ = base_factor_, out.causal_ = causal_;
  const size_t first = FirstLevelAtLeast(min_factor);
  out.levels_.assign(std::make_move_iterator(levels_.begin() + (std::ptrdiff_t)first),
                     std::make_move_iterator(levels_.end()));
  levels_.resize(first);
  return out;
}

size_t MapPyramid::FirstLevelAtLeast(int min_factor) const {
  size_t first = 0;
  while (first + 1 < levels_.size() && levels_[first].factor < min_factor) ++first;
  return first;
}

int MapPyramid::LevelFor(double cells_per_pixel) const {
  int best = -1;
  for (size_t l = 0; l < levels_.size(); ++l)
    if (levels_[l].factor <= cells_per_pixel) best = (int)l;
  return best;
}

size_t MapPyramid::bytes() const {
  size_t b = 0;
  for (const PyramidLevel& l : levels_) b += (l.max.size() + l.mean.size()) * sizeof(float);
  return b + row_min_.size() * sizeof(float);
}

bool SameBits(const MapPyramid& a, const MapPyramid& b) {
  if (a.n_head() != b.n_head() || a.n_q() != b.n_q() || a.n_k() != b.n_k() || a.levels().size() != b.levels().size())
    return false;
  auto same = [](const LevelBuffer& x, const LevelBuffer& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
  };
  for (size_t l = 0; l < a.levels().size(); ++l) {
    const PyramidLevel &x = a.levels()[l], &y = b.levels()[l];
    if (x.factor != y.factor || x.rows != y.rows || x.cols != y.cols || !same(x.max, y.max) || !same(x.mean, y.mean))
      return false;
  }
  for (int h = 0; h < a.n_head(); ++h) {
    const float ranges[2][2] = {{a.head_min(h), a.head_max(h)}, {b.head_min(h), b.head_max(h)}};
    if (std::memcmp(ranges[0], ranges[1], sizeof(ranges[0])) != 0) return false;
  }
  return true;
}

bool ValueWeightedPyramid(const Tensor& q, const Tensor& k, float multiplier, const Mask& mask, const Tensor& col_scale,
                          int base_factor, MapPyramid* out, const std::atomic<bool>* cancel,
                          std::atomic<size_t>* blocks_done, float softcap) {
  const int n_head = (int)q.dim(0), n_q = (int)q.dim(1), n_k = (int)k.dim(1);
  ATTNVIZ_CHECK_SHAPE(col_scale.shape.size() == 2 && (int)col_scale.dim(0) == n_head && (int)col_scale.dim(1) == n_k,
                      "column scale " + ShapeString(col_scale.shape) + " for q " + ShapeString(q.shape) + ", k " +
                          ShapeString(k.shape));
  out->Reset(n_head, n_q, n_k, base_factor, mask);
  AttendSink sink;
  sink.cancel = cancel;
  sink.blocks_done = blocks_done;
  sink.on_block = [&](const RowBlock& b) {  // any thread of the pass: each its own scratch
    thread_local std::vector<float> scaled;
    scaled.resize((size_t)b.rows * b.n_k);
    const float* scale = col_scale.data.data() + (size_t)b.head * n_k;
    for (int r = 0; r < b.rows; ++r) {
      const float* p = b.probs + (size_t)r * b.n_k;
      float* w = scaled.data() + (size_t)r * b.n_k;
      for (int j = 0; j < b.n_k; ++j) w[j] = p[j] * scale[j];
    }
    RowBlock weighted = b;
    weighted.probs = scaled.data();
    out->AddBlock(weighted);
  };
  // No z: v is never read, so k stands in for it (AttendHeads checks only that keys and values pair up).
  const HeadsView kv = ViewOf(k);
  if (!AttendHeads(ViewOf(q), kv, kv, multiplier, mask, nullptr, nullptr, nullptr, &sink, softcap)) return false;
  out->Finish();
  return true;
}

}  // namespace attnviz
