#include "model/layers.h"

#include "base/check.h"

#include "base/finite.h"
#include "base/matmul.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/SpecialFunctions>

namespace attnviz::model {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Strided = Eigen::OuterStride<>;
using Mat = Eigen::Map<RowMat, 0, Strided>;
using Vec = Eigen::Map<Eigen::ArrayXf>;
using ConstVec = Eigen::Map<const Eigen::ArrayXf>;

// Element-wise work is split in chunks this long (cache-sized, enough of them for every thread).
constexpr size_t kChunk = 1 << 14;

template <typename F>
void ForChunks(size_t count, F f) {
  const long chunks = (long)((count + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (long c = 0; c < chunks; ++c) {
    const size_t b = (size_t)c * kChunk, e = std::min(count, b + kChunk);
    f(b, e - b);
  }
}

namespace ep = Eigen::internal;
using Packet = ep::packet_traits<float>::type;
constexpr int kLanes = ep::packet_traits<float>::size;

// sum over j of (v[j] - center)^2 (square) or v[j] - center, v: [d], in float: two packets of lanes from index 0,
// then the tail in order. The same bits wherever v sits: Eigen's sum() starts its lanes at the first aligned
// element, so its bits would follow the address (a resumed run's rows are copies elsewhere).
template <bool kSquare>
float LaneSum(const float* v, int d, float center) {
  const Packet c = ep::pset1<Packet>(center);
  Packet a = ep::pset1<Packet>(0.0f), b = a;
  int j = 0;
  for (; j + 2 * kLanes <= d; j += 2 * kLanes) {
    const Packet x = ep::psub(ep::ploadu<Packet>(v + j), c), y = ep::psub(ep::ploadu<Packet>(v + j + kLanes), c);
    a = kSquare ? ep::pmadd(x, x, a) : ep::padd(a, x);
    b = kSquare ? ep::pmadd(y, y, b) : ep::padd(b, y);
  }
  float s = ep::predux(ep::padd(a, b));
  for (; j < d; ++j) s += kSquare ? (v[j] - center) * (v[j] - center) : v[j] - center;
  return s;
}

}  // namespace

void LinearForward(const float* x, int ldx, int n, const Linear& l, float* y, int ldy, const TileDone* tile_done,
                   size_t first_row) {
  ATTNVIZ_CHECK_SHAPE(n >= 0 && l.w && l.in > 0 && l.out > 0 && ldx >= l.in && ldy >= l.out, "x [", n, ", ", l.in, "] (ld ", ldx,
                      ") -> y [", n, ", ", l.out, "] (ld ", ldy, ")", l.w ? "" : ", no weight");
  ATTNVIZ_CHECK_SHAPE(l.ld >= (l.in_out ? l.out : l.in), "weight ", l.in_out ? "[in, out] [" : "[out, in] [",
                      l.in_out ? l.in : l.out, ", ", l.in_out ? l.out : l.in, "] with a row stride of ", l.ld);
  // The product (the engine's one tiled GEMM: core/base/matmul.h), and the bias added to each tile after it.
  MatMulTiled(x, (size_t)ldx, (size_t)n, (size_t)l.in, l.w, (size_t)l.ld,
              l.in_out ? WeightLayout::kInOut : WeightLayout::kOutIn,  // !! Conv1D: [in, out]; nn.Linear: [out, in]
              (size_t)l.out, y, (size_t)ldy, l.b, tile_done, first_row);
}

// The norms sum in float, in Eigen's vector lanes (as torch's CPU kernels do): sums in double do not vectorize as
// well, ran several times as long, and moved the outputs by < 1e-6 only.
bool LayerNormForward(const float* x, int n, int d, const Norm& norm, float eps, float* y) {
  ATTNVIZ_CHECK_SHAPE(d > 0 && norm.w && norm.b, "x [", n, ", ", d, "] through a LayerNorm",
                      norm.w && norm.b ? "" : " without its weight and bias");
  ConstVec w(norm.w, d), b(norm.b, d);
  bool finite = true;
#pragma omp parallel for schedule(static) if (n > 8) reduction(&& : finite)
  for (int i = 0; i < n; ++i) {
    ConstVec row(x + (size_t)i * d, d);
    const float mean = LaneSum<false>(row.data(), d, 0.0f) / (float)d;
    const float var = LaneSum<true>(row.data(), d, mean) / (float)d;  // squares of the gaps, not of a large mean
    const float inv = 1.0f / std::sqrt(var + eps);
    Vec out(y + (size_t)i * d, d);
    out = (row - mean) * inv * w + b;
    finite = finite && AllFinite(out.data(), (size_t)d);
  }
  return finite;
}

bool RmsNormForward(const float* x, int n, int d, const Norm& norm, float eps, float* y) {
  ATTNVIZ_CHECK_SHAPE(d > 0 && norm.w, "x [", n, ", ", d, "] through an RMSNorm", norm.w ? "" : " without its weight");
  ConstVec w(norm.w, d);
  bool finite = true;
#pragma omp parallel for schedule(static) if (n > 8) reduction(&& : finite)
  for (int i = 0; i < n; ++i) {
    ConstVec row(x + (size_t)i * d, d);
    const float ms = LaneSum<true>(row.data(), d, 0.0f) / (float)d;
    const float inv = 1.0f / std::sqrt(ms + eps);
    Vec out(y + (size_t)i * d, d);
    out = w * (row * inv);
    finite = finite && AllFinite(out.data(), (size_t)d);
  }
  return finite;
}

bool RmsNormSpans(float* x, int n, int spans, int d, size_t ld, const Norm& norm, float eps) {
  ATTNVIZ_CHECK_SHAPE(d > 0 && spans > 0 && ld >= (size_t)spans * d && norm.w, "x [", n, ", ", spans, ", ", d,
                      "] (row stride ", ld, ") through an RMSNorm", norm.w ? "" : " without its weight");
  ConstVec w(norm.w, d);
  const long count = (long)n * spans;
  bool finite = true;
#pragma omp parallel for schedule(static) if (count > 64) reduction(&& : finite)
  for (long s = 0; s < count; ++s) {
    Vec span(x + (size_t)(s / spans) * ld + (size_t)(s % spans) * d, d);
    const float ms = LaneSum<true>(span.data(), d, 0.0f) / (float)d;
    const float inv = 1.0f / std::sqrt(ms + eps);
    span = w * (span * inv);
    finite = finite && AllFinite(span.data(), (size_t)d);
  }
  return finite;
}

namespace {
// Vectorized activations (Eigen's packet tanh/erf/exp), on one packet of lanes at a time: a fixed-size array of
// kLanes floats is one register, so every element takes the packet path (a dynamic array's scalar head and tail
// would take std::tanh and friends, other bits).
using Lanes = Eigen::Array<float, kLanes, 1>;
template <Activation kAct>
Lanes Act(const Lanes& x) {
  switch (kAct) {
    case Activation::kGeluTanh: {
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (HF NewGELUActivation)
      const float c = 0.7978845608028654f;
      return 0.5f * x * (1.0f + (c * (x + 0.044715f * x.cube())).tanh());
    }
    case Activation::kGeluErf:  // 0.5 x (1 + erf(x / sqrt 2))  (torch gelu)
      return 0.5f * x * (1.0f + (x * 0.7071067811865476f).erf());
    case Activation::kSilu:  // x sigmoid(x)
      return x / (1.0f + (-x).exp());
    case Activation::kRelu:
      return x.max(0.0f);
  }
  return x;
}

// x: [count] = act(x) (* up when given), a packet at a time; the tail in a zero-padded packet.
template <Activation kAct>
void ActivateSpanOf(float* x, const float* up, size_t count) {
  size_t j = 0;
  for (; j + kLanes <= count; j += kLanes) {
    Lanes v = Act<kAct>(Eigen::Map<const Lanes>(x + j));
    if (up) v *= Eigen::Map<const Lanes>(up + j);
    Eigen::Map<Lanes>(x + j) = v;
  }
  if (j == count) return;
  Lanes tail = Lanes::Zero(), tail_up = Lanes::Zero();
  std::copy(x + j, x + count, tail.data());
  if (up) std::copy(up + j, up + count, tail_up.data());
  Lanes v = Act<kAct>(tail);
  if (up) v *= tail_up;
  std::copy(v.data(), v.data() + (count - j), x + j);
}

void ActivateSpan(Activation a, float* x, const float* up, size_t count) {
  switch (a) {
    case Activation::kGeluTanh: return ActivateSpanOf<Activation::kGeluTanh>(x, up, count);
    case Activation::kGeluErf: return ActivateSpanOf<Activation::kGeluErf>(x, up, count);
    case Activation::kSilu: return ActivateSpanOf<Activation::kSilu>(x, up, count);
    case Activation::kRelu: return ActivateSpanOf<Activation::kRelu>(x, up, count);
  }
}
}  // namespace

void ActivateInPlace(Activation a, float* x, size_t count) {
  ForChunks(count, [&](size_t b, size_t len) { ActivateSpan(a, x + b, nullptr, len); });
}

void ActivateTile(Activation a, float* x, size_t rows, size_t cols, size_t ld) {
  for (size_t r = 0; r < rows; ++r) ActivateSpan(a, x + r * ld, nullptr, cols);
}

void GatedTile(Activation a, float* gate, const float* up, size_t rows, size_t cols, size_t ld) {
  for (size_t r = 0; r < rows; ++r) ActivateSpan(a, gate + r * ld, up + r * ld, cols);
}

}  // namespace attnviz::model
