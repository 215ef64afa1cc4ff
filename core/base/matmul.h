// The one dense product of the engine: the sandbox's projections and every model Linear go through it.
#pragma once
#include <cstddef>
#include <functional>

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
// bias: [cols] or null. Each tile starts as the bias (or 0) and its product is added to it: Eigen's product zeroes
// its destination first anyway, so the bias costs no pass of its own (the sums of a product added to a bias: the
// same bits as adding the bias after it while the depth fits one of Eigen's blocks, tests/test_matmul.cpp).
// Tiles go to the threads column block by column block (a block's row tiles side by side), so the threads read the
// same weight columns at the same time.
// tile_done: called by the thread that made a tile, right after it, while the tile is in that core's cache: rows
// [r0, r0 + rows) x columns [c0, c0 + width) of y are final. The layers put their element-wise steps there (the
// activation, the residual add, the finiteness checks): no pass of their own over y, and no extra wake-up of the
// team (with passive waits each parallel region costs a sleeping core's wake-up).
using TileDone = std::function<void(size_t r0, size_t rows, size_t c0, size_t width)>;
constexpr size_t kMatMulTileRows = 512, kMatMulTileCols = 512;
void MatMulTiled(const float* x, size_t ldx, size_t n, size_t depth, const float* w, size_t ldw, WeightLayout layout,
                 size_t cols, float* y, size_t ldy, const float* bias = nullptr, const TileDone* tile_done = nullptr);

}  // namespace attnviz
