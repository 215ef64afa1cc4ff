#include "base/matmul.h"

#include "base/check.h"
#include "base/tensor.h"

#include <algorithm>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string>

namespace attnviz {

void MatMulTiled(const float* x, size_t ldx, size_t n, size_t depth, const float* w, size_t ldw, WeightLayout layout,
                 size_t cols, float* y, size_t ldy, const float* bias, const TileDone* tile_done, size_t first_row) {
  ATTNVIZ_CHECK_SHAPE(ldx >= depth && ldy >= cols && ldw >= (layout == WeightLayout::kInOut ? cols : depth),
                      "x [" + std::to_string(n) + ", " + std::to_string(depth) + "] (stride " + std::to_string(ldx) +
                          "), w stride " + std::to_string(ldw) + ", y [" + std::to_string(n) + ", " +
                          std::to_string(cols) + "] (stride " + std::to_string(ldy) + ")");
  if (n == 0 || cols == 0) return;
  using Strided = Eigen::OuterStride<>;
  using ConstMat = Eigen::Map<const RowMatrix, 0, Strided>;
  using Mat = Eigen::Map<RowMatrix, 0, Strided>;
  // Row tiles cut at the longer product's multiples of kMatMulTileRows: the first may be short (rows [0, lead)).
  const size_t lead = (kMatMulTileRows - first_row % kMatMulTileRows) % kMatMulTileRows;
  const size_t head = std::min(lead, n);
  const size_t row_tiles = (head > 0 ? 1 : 0) + (n - head + kMatMulTileRows - 1) / kMatMulTileRows;
  const size_t col_tiles = (cols + kMatMulTileCols - 1) / kMatMulTileCols;
  // Below Eigen's own threading threshold (rows * cols * depth < 100000) it would not thread either.
  bool parallel = (double)n * cols * depth >= 100000 && row_tiles * col_tiles > 1;
#ifdef _OPENMP
  parallel = parallel && !omp_in_parallel();  // inside a team (the rollout's bands): this thread alone, even when
                                              // the user's OMP_MAX_ACTIVE_LEVELS would let a nested team start
#endif
#pragma omp parallel for schedule(dynamic) if (parallel)
  for (long long t = 0; t < (long long)(row_tiles * col_tiles); ++t) {
    const size_t row_tile = (size_t)t % row_tiles, c0 = (size_t)t / row_tiles * kMatMulTileCols;
    const size_t r0 = head > 0 ? (row_tile == 0 ? 0 : head + (row_tile - 1) * kMatMulTileRows) : row_tile * kMatMulTileRows;
    const auto rows = (Eigen::Index)std::min(row_tile == 0 && head > 0 ? head : kMatMulTileRows, n - r0);
    const auto width = (Eigen::Index)std::min(kMatMulTileCols, cols - c0);
    const ConstMat x_tile(x + r0 * ldx, rows, (Eigen::Index)depth, Strided((Eigen::Index)ldx));
    Mat y_tile(y + r0 * ldy + c0, rows, width, Strided((Eigen::Index)ldy));
    if (bias) y_tile.rowwise() = Eigen::Map<const Eigen::RowVectorXf>(bias + c0, width);  // y = bias + x . w
    else y_tile.setZero();
    if (layout == WeightLayout::kInOut) {
      const ConstMat w_tile(w + c0, (Eigen::Index)depth, width, Strided((Eigen::Index)ldw));  // [depth, width]
      y_tile.noalias() += x_tile * w_tile;
    } else {
      const ConstMat w_tile(w + c0 * ldw, width, (Eigen::Index)depth, Strided((Eigen::Index)ldw));  // [width, depth]
      y_tile.noalias() += x_tile * w_tile.transpose();
    }
    if (tile_done) (*tile_done)(r0, (size_t)rows, c0, (size_t)width);
  }
}

}  // namespace attnviz
