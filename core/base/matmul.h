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
// first_row: the row of a longer product that x's row 0 is (a causal run continuing from a kept prefix computes
// rows [first_row, n) only): tiles are cut where first_row + r is a multiple of kMatMulTileRows, as the longer
// product cuts them. tile_done's r0 stays relative to x.
// !! Row bits: rows of a tile's whole packets (Eigen's float packet: 4, 8 or 16) are the same bits wherever the tile
// starts and however many rows it has; its last rows % packet (the remainder kernels) and a 1-row tile (GEMV) sum in
// another order. So a row computed in a product over [s, n) matches the product over [0, n) when s is a multiple of
// kMatMulRowGroup and the tile holding n - 1 has more than one row in both or in neither (PrefixRowStart,
// core/model/prefix_cache.h; tests/test_matmul.cpp checks it).
using TileDone = std::function<void(size_t r0, size_t rows, size_t c0, size_t width)>;
constexpr size_t kMatMulTileRows = 512, kMatMulTileCols = 512;
constexpr size_t kMatMulRowGroup = 16;  // a multiple of every float packet size Eigen uses (SSE 4, AVX 8, AVX-512 16)
void MatMulTiled(const float* x, size_t ldx, size_t n, size_t depth, const float* w, size_t ldw, WeightLayout layout,
                 size_t cols, float* y, size_t ldy, const float* bias = nullptr, const TileDone* tile_done = nullptr,
                 size_t first_row = 0);

}  // namespace attnviz
