// The one dense product of the engine: the sandbox's projections and every model Linear go through it.
#pragma once
#include <cstddef>

namespace attnviz {

// How a weight matrix is stored.
enum class WeightLayout {
  kInOut,  // w: [depth, cols] (row stride ldw): y = x . w (GPT-2's Conv1D, the sandbox's w_qkv / w_o)
  kOutIn,  // w: [cols, depth] (row stride ldw): y = x . w^T (!! nn.Linear stores the weight transposed)
};

// y: [n, cols] (row stride ldy) = x: [n, depth] (row stride ldx) times the weight w (layout above).
// The result is cut into tiles of at most kMatMulTileRows x kMatMulTileCols, each a one-thread Eigen product,
// spread over the OpenMP team. Eigen's own threading shares packed panels between its threads through
// busy-waits, which stall for whole time slices when the cores are shared (the app's GUI thread, llvmpipe,
// other processes): bench/ measures both ways. The tiles depend on neither the thread count nor the
// caller, so neither do the bits. Called inside a parallel region, it runs on the calling thread.
// bias: [cols] or null, added to each row of a tile once its product is done (on the tile's thread, while it is in
// cache): the same sums as adding it after the whole product, not a second pass over y on one core.
constexpr size_t kMatMulTileRows = 512, kMatMulTileCols = 512;
void MatMulTiled(const float* x, size_t ldx, size_t n, size_t depth, const float* w, size_t ldw, WeightLayout layout,
                 size_t cols, float* y, size_t ldy, const float* bias = nullptr);

}  // namespace attnviz
