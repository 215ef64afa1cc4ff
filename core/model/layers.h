// The layers of a Transformer block as free functions over plain row-major buffers (llm.c style).
// Threads: each function uses OpenMP (or Eigen's threaded GEMM) itself; call them from outside a parallel region.
//
// Dimension glossary
//   n        tokens (rows)          d_model  residual width
//   in, out  a dense layer's widths d_ff     MLP hidden width
#pragma once
#include <cstddef>

#include "base/matmul.h"
#include "model/config.h"
#include "model/params.h"

namespace attnviz::model {

// y: [n, out] (row stride ldy >= out) = x [n, in] (row stride ldx) . W (+ b), W as stored in `l`.
// tile_done: each tile's own steps, on its thread, right after it; first_row: the row of a longer product that x's
// row 0 is, whose tiles are kept (core/base/matmul.h).
void LinearForward(const float* x, int ldx, int n, const Linear& l, float* y, int ldy,
                   const TileDone* tile_done = nullptr, size_t first_row = 0);

// y: [n, d] = (x - mean) / sqrt(var + eps) * w + b per row (biased variance, as torch.nn.LayerNorm). y may be x.
// Returns whether every output is finite (each row checked as it is written).
bool LayerNormForward(const float* x, int n, int d, const Norm& norm, float eps, float* y);
// y: [n, d] = x / sqrt(mean(x^2) + eps) * w per row (HF LlamaRMSNorm). y may be x. Returns as LayerNormForward.
bool RmsNormForward(const float* x, int n, int d, const Norm& norm, float eps, float* y);
// The same in place on spans of strided rows (q/k norms on the q | k columns of a fused buffer):
//   x: [n, spans, d] at row stride ld (>= spans * d); each span of d normed with w [d] (the heads of one row share it).
bool RmsNormSpans(float* x, int n, int spans, int d, size_t ld, const Norm& norm, float eps);

// x: [count] in place. Every element goes through the same vector arithmetic wherever it sits (the tail too, in a
// zero-padded packet), so its bits follow neither the buffer's alignment nor how the work is cut.
void ActivateInPlace(Activation a, float* x, size_t count);

// The same on one tile of a product [rows, cols] (row stride ld), on the calling thread (a TileDone step); the gated
// form: gate = act(gate) * up (SwiGLU with act = silu), up with gate's layout.
void ActivateTile(Activation a, float* x, size_t rows, size_t cols, size_t ld);
void GatedTile(Activation a, float* gate, const float* up, size_t rows, size_t cols, size_t ld);

}  // namespace attnviz::model
