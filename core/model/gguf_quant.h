// ggml tensor bytes -> float, as ggml's reference dequantize_row_* (ggml/src/ggml-quants.c) computes them, value
// for value: F32, F16, BF16, the legacy quants (blocks of 32: Q8_0, Q4_0, Q4_1, Q5_0, Q5_1) and the k-quants
// (super-blocks of QK_K = 256: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K). Scales are fp16; Q4_K/Q5_K pack 6-bit scales and
// mins in 12 bytes, Q3_K packs 6-bit scales in 12 bytes (+ a high-bit mask), Q6_K keeps int8 scales.
//
// The caller owns the float buffer, so one layer's weights can be dequantized into a buffer reused per layer.
// The file is compiled with -ffp-contract=off: `d * q - m` stays two roundings as in ggml's C reference
// (no fused multiply-add), so the results are bit-equal to any other exact implementation.
#pragma once
#include <cstdint>

#include "base/status.h"
#include "model/gguf_file.h"

namespace attnviz::model {

// True for the 13 types above.
bool GgmlTypeDequantizable(GgmlType t);

// src: the bytes of `n_rows` whole rows of `row_len` elements each (row_len a multiple of the type's block),
// dst: [n_rows, row_len] floats. A type not dequantizable is a programming error here (check it first).
void DequantizeRows(GgmlType type, const uint8_t* src, int64_t row_len, int64_t n_rows, float* dst);

// Rows [first, first + count) of tensor t (rows = ne[1] * ne[2] * ne[3], each ne[0] long) into
// dst: [count, ne[0]]. Refuses a type it cannot dequantize by its ggml name ("tensor 'x' is stored as iq2_xxs").
Status DequantizeTensorRows(const GgufFile& file, const GgufTensor& t, int64_t first, int64_t count, float* dst);

// Bytes of one row of `row_len` elements.
uint64_t GgmlRowBytes(GgmlType type, int64_t row_len);

}  // namespace attnviz::model
