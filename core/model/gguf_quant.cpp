#include "model/gguf_quant.h"

#include <cstring>

#include "base/check.h"
#include "model/safetensors.h"  // HalfToFloat, BFloat16ToFloat

namespace attnviz::model {
namespace {

constexpr int kQK = 32;    // legacy block
constexpr int kQKK = 256;  // k-quant super-block

float Fp16(const uint8_t* p) { return HalfToFloat(uint16_t(p[0] | p[1] << 8)); }
uint32_t U32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Every function: x = the blocks of one row or more (n a multiple of the block), y: [n].

// Q8_0: {fp16 d; int8 qs[32]}
void DequantQ8_0(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b, x += 34, y += kQK) {
    const float d = Fp16(x);
    for (int j = 0; j < kQK; ++j) y[j] = (float)(int8_t)x[2 + j] * d;
  }
}

// Q4_0: {fp16 d; u8 qs[16]}: low nibbles are elements 0..15, high nibbles 16..31, both minus 8.
void DequantQ4_0(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b, x += 18, y += kQK) {
    const float d = Fp16(x);
    const uint8_t* qs = x + 2;
    for (int j = 0; j < kQK / 2; ++j) {
      y[j] = (float)((qs[j] & 0x0F) - 8) * d;
      y[j + kQK / 2] = (float)((qs[j] >> 4) - 8) * d;
    }
  }
}

// Q4_1: {fp16 d, m; u8 qs[16]}: q * d + m.
void DequantQ4_1(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b, x += 20, y += kQK) {
    const float d = Fp16(x), m = Fp16(x + 2);
    const uint8_t* qs = x + 4;
    for (int j = 0; j < kQK / 2; ++j) {
      y[j] = (float)(qs[j] & 0x0F) * d + m;
      y[j + kQK / 2] = (float)(qs[j] >> 4) * d + m;
    }
  }
}

// Q5_0: {fp16 d; u32 qh; u8 qs[16]}: bit j of qh is the fifth bit of element j; minus 16.
void DequantQ5_0(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b, x += 22, y += kQK) {
    const float d = Fp16(x);
    const uint32_t qh = U32(x + 2);
    const uint8_t* qs = x + 6;
    for (int j = 0; j < kQK / 2; ++j) {
      const uint8_t xh0 = ((qh >> (j + 0)) << 4) & 0x10;
      const uint8_t xh1 = ((qh >> (j + 12))) & 0x10;
      const int32_t x0 = ((qs[j] & 0x0F) | xh0) - 16;
      const int32_t x1 = ((qs[j] >> 4) | xh1) - 16;
      y[j] = (float)x0 * d;
      y[j + kQK / 2] = (float)x1 * d;
    }
  }
}

// Q5_1: {fp16 d, m; u32 qh; u8 qs[16]}: q * d + m.
void DequantQ5_1(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b, x += 24, y += kQK) {
    const float d = Fp16(x), m = Fp16(x + 2);
    const uint32_t qh = U32(x + 4);
    const uint8_t* qs = x + 8;
    for (int j = 0; j < kQK / 2; ++j) {
      const uint8_t xh0 = ((qh >> (j + 0)) << 4) & 0x10;
      const uint8_t xh1 = ((qh >> (j + 12))) & 0x10;
      const int x0 = (qs[j] & 0x0F) | xh0;
      const int x1 = (qs[j] >> 4) | xh1;
      y[j] = (float)x0 * d + m;
      y[j + kQK / 2] = (float)x1 * d + m;
    }
  }
}

// Q2_K: {u8 scales[16]; u8 qs[64]; fp16 d, dmin}: 16 groups of 16, each a 4-bit scale and a 4-bit min.
void DequantQ2_K(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQKK; ++b, x += 84) {
    const uint8_t* scales = x;
    const uint8_t* q = x + 16;
    const float d = Fp16(x + 80), min = Fp16(x + 82);
    int is = 0;
    for (int half = 0; half < kQKK; half += 128) {
      int shift = 0;
      for (int j = 0; j < 4; ++j) {
        uint8_t sc = scales[is++];
        float dl = d * (sc & 0xF), ml = min * (sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * (int8_t)((q[l] >> shift) & 3) - ml;
        sc = scales[is++];
        dl = d * (sc & 0xF), ml = min * (sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * (int8_t)((q[l + 16] >> shift) & 3) - ml;
        shift += 2;
      }
      q += 32;
    }
  }
}

// Q3_K: {u8 hmask[32]; u8 qs[64]; u8 scales[12]; fp16 d}: 2 low bits in qs, the third in hmask (set: +0,
// clear: -4); 16 six-bit scales (minus 32) packed in 12 bytes: low 4 bits in bytes 0..7, high 2 bits in 8..11.
void DequantQ3_K(const uint8_t* x, float* y, int64_t n) {
  constexpr uint32_t kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f;
  for (int64_t b = 0; b < n / kQKK; ++b, x += 110) {
    const uint8_t* hm = x;
    const uint8_t* q = x + 32;
    const float d_all = Fp16(x + 108);
    uint32_t aux[4];
    std::memcpy(aux, x + 96, 12);
    const uint32_t tmp = aux[2];
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
    int8_t scales[16];
    std::memcpy(scales, aux, 16);
    int is = 0;
    uint8_t m = 1;
    for (int half = 0; half < kQKK; half += 128) {
      int shift = 0;
      for (int j = 0; j < 4; ++j) {
        float dl = d_all * (scales[is++] - 32);
        for (int l = 0; l < 16; ++l) *y++ = dl * (int8_t)(((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
        dl = d_all * (scales[is++] - 32);
        for (int l = 0; l < 16; ++l)
          *y++ = dl * (int8_t)(((q[l + 16] >> shift) & 3) - ((hm[l + 16] & m) ? 0 : 4));
        shift += 2;
        m <<= 1;
      }
      q += 32;
    }
  }
}

// Q4_K/Q5_K's 12 bytes of scales: 8 six-bit scales and 8 six-bit mins (ggml's get_scale_min_k4).
void ScaleMinK4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4);
  }
}

// Q4_K: {fp16 d, dmin; u8 scales[12]; u8 qs[128]}: 8 groups of 32, d * sc * q - dmin * m.
void DequantQ4_K(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQKK; ++b, x += 144) {
    const float d = Fp16(x), min = Fp16(x + 2);
    const uint8_t* scales = x + 4;
    const uint8_t* q = x + 16;
    int is = 0;
    for (int j = 0; j < kQKK; j += 64) {
      uint8_t sc, m;
      ScaleMinK4(is + 0, scales, &sc, &m);
      const float d1 = d * sc, m1 = min * m;
      ScaleMinK4(is + 1, scales, &sc, &m);
      const float d2 = d * sc, m2 = min * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * (q[l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * (q[l] >> 4) - m2;
      q += 32;
      is += 2;
    }
  }
}

// Q5_K: {fp16 d, dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]}: Q4_K plus a fifth bit per element from qh.
void DequantQ5_K(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQKK; ++b, x += 176) {
    const float d = Fp16(x), min = Fp16(x + 2);
    const uint8_t* scales = x + 4;
    const uint8_t* qh = x + 16;
    const uint8_t* ql = x + 48;
    int is = 0;
    uint8_t u1 = 1, u2 = 2;
    for (int j = 0; j < kQKK; j += 64) {
      uint8_t sc, m;
      ScaleMinK4(is + 0, scales, &sc, &m);
      const float d1 = d * sc, m1 = min * m;
      ScaleMinK4(is + 1, scales, &sc, &m);
      const float d2 = d * sc, m2 = min * m;
      for (int l = 0; l < 32; ++l) *y++ = d1 * ((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
      for (int l = 0; l < 32; ++l) *y++ = d2 * ((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
      ql += 32;
      is += 2;
      u1 <<= 2;
      u2 <<= 2;
    }
  }
}

// Q6_K: {u8 ql[128]; u8 qh[64]; int8 scales[16]; fp16 d}: 4 low bits in ql, 2 high in qh, minus 32.
void DequantQ6_K(const uint8_t* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQKK; ++b, x += 210) {
    const float d = Fp16(x + 208);
    const uint8_t* ql = x;
    const uint8_t* qh = x + 128;
    const int8_t* sc = reinterpret_cast<const int8_t*>(x + 192);
    for (int half = 0; half < kQKK; half += 128) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int8_t q1 = (int8_t)((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int8_t q2 = (int8_t)((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int8_t q3 = (int8_t)((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int8_t q4 = (int8_t)((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l + 0] = d * sc[is + 0] * q1;
        y[l + 32] = d * sc[is + 2] * q2;
        y[l + 64] = d * sc[is + 4] * q3;
        y[l + 96] = d * sc[is + 6] * q4;
      }
      y += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

}  // namespace

bool GgmlTypeDequantizable(GgmlType t) {
  switch (t) {
    case GgmlType::kF32: case GgmlType::kF16: case GgmlType::kBF16: case GgmlType::kQ8_0: case GgmlType::kQ4_0:
    case GgmlType::kQ4_1: case GgmlType::kQ5_0: case GgmlType::kQ5_1: case GgmlType::kQ2_K: case GgmlType::kQ3_K:
    case GgmlType::kQ4_K: case GgmlType::kQ5_K: case GgmlType::kQ6_K:
      return true;
    default:
      return false;
  }
}

uint64_t GgmlRowBytes(GgmlType type, int64_t row_len) {
  const GgmlTypeInfo* info = FindGgmlType((uint32_t)type);
  ATTNVIZ_CHECK_SHAPE(info && row_len % info->block == 0, "a row of ", row_len, " values of ggml type ", (uint32_t)type,
                      " in blocks of ", info ? info->block : 0);
  return (uint64_t)row_len / info->block * info->bytes;
}

void DequantizeRows(GgmlType type, const uint8_t* src, int64_t row_len, int64_t n_rows, float* dst) {
  ATTNVIZ_CHECK_SHAPE(GgmlTypeDequantizable(type), "ggml type ", GgmlTypeName(type));
  ATTNVIZ_CHECK_SHAPE(row_len > 0 && n_rows >= 0, "rows [", n_rows, ", ", row_len, "]");
  const int64_t n = row_len * n_rows;  // rows are whole blocks, so the rows are one run of blocks
  if (n == 0) return;                   // !! no rows: the buffers may be null, which memcpy forbids
  switch (type) {
    case GgmlType::kF32: std::memcpy(dst, src, (size_t)n * 4); return;
    case GgmlType::kF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = Fp16(src + 2 * i);
      return;
    case GgmlType::kBF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(uint16_t(src[2 * i] | src[2 * i + 1] << 8));
      return;
    case GgmlType::kQ8_0: DequantQ8_0(src, dst, n); return;
    case GgmlType::kQ4_0: DequantQ4_0(src, dst, n); return;
    case GgmlType::kQ4_1: DequantQ4_1(src, dst, n); return;
    case GgmlType::kQ5_0: DequantQ5_0(src, dst, n); return;
    case GgmlType::kQ5_1: DequantQ5_1(src, dst, n); return;
    case GgmlType::kQ2_K: DequantQ2_K(src, dst, n); return;
    case GgmlType::kQ3_K: DequantQ3_K(src, dst, n); return;
    case GgmlType::kQ4_K: DequantQ4_K(src, dst, n); return;
    case GgmlType::kQ5_K: DequantQ5_K(src, dst, n); return;
    case GgmlType::kQ6_K: DequantQ6_K(src, dst, n); return;
    default: ATTNVIZ_CHECK_SHAPE(false, "ggml type ", GgmlTypeName(type), " has no dequantizer");
  }
}

Status DequantizeTensorRows(const GgufFile& file, const GgufTensor& t, int64_t first, int64_t count, float* dst) {
  if (!GgmlTypeDequantizable(t.type))
    return Status::ErrorAt(file.path(), MsgId::kGgufQuantType, {t.name, GgmlTypeName(t.type)});
  ATTNVIZ_CHECK_SHAPE(first >= 0 && count >= 0 && first + count <= t.rows(), "rows ", first, " + ", count, " of ", t.name, " ",
                      t.torch_shape());
  const uint64_t row_bytes = GgmlRowBytes(t.type, t.ne[0]);
  DequantizeRows(t.type, file.Bytes(t) + (uint64_t)first * row_bytes, t.ne[0], count, dst);
  return Status::Ok();
}

}  // namespace attnviz::model
