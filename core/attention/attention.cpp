#include "attention/attention.h"

#include "base/check.h"
#include "base/matmul.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "attention/metrics.h"

namespace attnviz {
namespace {

// dst [n, cols] = x [n, depth] . w [depth, cols] (the columns col0.. of a row-major [depth, w_ld] matrix).
void MatMul(const Tensor& x, const float* w, size_t w_ld, size_t col0, size_t cols, float* dst) {
  MatMulTiled(x.data.data(), x.dim(1), x.dim(0), x.dim(1), w + col0, w_ld, WeightLayout::kInOut, cols, dst, cols);
}

// logits_row [n_k] = scores_row * multiplier (soft-capped when softcap > 0), clamped so no logit is infinite.
inline void LogitsRow(const float* scores_row, size_t n_k, float multiplier, float* logits_row, float softcap = 0.0f) {
  for (size_t j = 0; j < n_k; ++j) {
    logits_row[j] = LogitFromScore(scores_row[j], multiplier, softcap);
  }
}

// ---- (3)+(4)+metrics, one row at a time, in SIMD packets ----
// Eigen's packet functions directly (not Eigen::Array expressions): Array code peels a different
// number of scalar elements depending on the buffer's alignment, so the same row could give
// different bits in two buffers. Here element j always goes through the same lane arithmetic and
// every sum is grouped the same way, whatever the alignment.
namespace ep = Eigen::internal;
using Packet = ep::packet_traits<float>::type;
constexpr size_t kLanes = ep::packet_traits<float>::size;

// The first `count` (<= kLanes) floats at src, the other lanes 0.
inline Packet LoadPart(const float* src, size_t count) {
  if (count == kLanes) return ep::ploadu<Packet>(src);
  alignas(64) float tmp[kLanes] = {};
  std::copy(src, src + count, tmp);
  return ep::pload<Packet>(tmp);
}
inline void StorePart(float* dst, const Packet& p, size_t count) {
  if (count == kLanes) return ep::pstoreu(dst, p);
  alignas(64) float tmp[kLanes];
  ep::pstore(tmp, p);
  std::copy(tmp, tmp + count, dst);
}
// All ones in lanes [0, count), zero bits in the others.
inline Packet LaneMask(size_t count) {
  return ep::pcmp_lt(ep::plset<Packet>(0.0f), ep::pset1<Packet>((float)count));
}

// Flush denormals to zero on this thread for the scope (restored after): exp() of logits far below
// the row max (d_k 4096 unscaled, tiny temperatures) is denormal, and arithmetic on denormals takes
// slow microcode assists on x86. Such probs are < 1.2e-38: 0 in any map.
struct FlushDenormals {
#if defined(__SSE2__)
  unsigned saved = _mm_getcsr();
  FlushDenormals() { _mm_setcsr(saved | 0x8040u); }  // FTZ | DAZ
  ~FlushDenormals() { _mm_setcsr(saved); }
#endif
};

// What one row pass yields besides the two rows: metrics.h's RowMetrics and the sums of its
// visible logits (for the head's logit mean and std).
struct RowPass {
  RowMetrics metrics;
  double logit_sum = 0, logit_sq = 0;
};

// One row of (3)+(4): logits_row [n_k] = clamp(scores_row * multiplier) (if scores_row is given;
// otherwise logits_row is read), probs_row [n_k] = softmax of the first `visible` logits with the
// row max subtracted, the rest exactly 0. With `pass`, also the row's saturation figures, from the
// same pass (same definitions as metrics.cpp's RowFigures, with p = e / S and e = exp(l - max)):
//   entropy = log S - sum p (l - max),  max weight = max e / S,
//   ||diag(p) - p p^T||_F^2 = sum p^2 - 2 sum p^3 + (sum p^2)^2
// exp(x) for x <= 0 (the softmax's l - max). With AVX-512: 2^k exp(r), k = round(x / ln 2), Cephes'
// polynomial for exp(r) and vscalefps for 2^k: 14 instructions instead of Eigen's generic ~18
// (the row pass is bound by them). exp(0) is exactly 1; below -104 the result is 0.
inline Packet ExpNonPositive(const Packet& x) {
#if defined(__AVX512F__)
  static_assert(kLanes == 16, "Packet16f expected");
  const __m512 xc = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), xc);  // ln 2 in two parts
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 y = _mm512_set1_ps(1.9875691500e-4f);
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.3981999507e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(8.3334519073e-3f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(4.1665795894e-2f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(1.6666665459e-1f));
  y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(5.0000001201e-1f));
  y = _mm512_fmadd_ps(y, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(y, k);
#else
  return ep::pexp(x);
#endif
}

template <bool kFigures>
void SoftmaxRowPass(const float* scores_row, float multiplier, float softcap, float* logits_row, float* probs_row,
                    size_t n_k, size_t visible, double log_visible, RowPass* pass) {
  // max(clamp(s * m)) == clamp(max(s) * m) needs m > 0; a soft cap's logits are made first, one by one, by the same
  // scalar LogitFromScore as every other path (the packet pass below has no tanh), and the pass reads them.
  if (scores_row && (!(multiplier > 0) || softcap > 0)) {
    LogitsRow(scores_row, n_k, multiplier, logits_row, softcap);
    scores_row = nullptr;
  }
  // Pass 1, over the source row (the scores, or the logits when only the mask changed): the max and
  // the sums of the visible entries, and the min and max of all (whether the clamp can bite). Scaling
  // by m > 0 and clamping are monotone, so clamp(max(s) * m) is bit for bit the max of the logits.
  const float* src = scores_row ? scores_row : logits_row;
  const Packet zero = ep::pzero(ep::pset1<Packet>(0.0f));
  Packet max_p = ep::pset1<Packet>(-INFINITY), min_p = ep::pset1<Packet>(INFINITY), src_sum = zero, src_sq = zero;
  size_t j = 0;
  for (; j + kLanes <= visible; j += kLanes) {
    const Packet x = ep::ploadu<Packet>(src + j);
    max_p = ep::pmax(max_p, x);
    min_p = ep::pmin(min_p, x);
    src_sum = ep::padd(src_sum, x);
    src_sq = ep::pmadd(x, x, src_sq);
  }
  float row_max = ep::predux_max(max_p), row_min = ep::predux_min(min_p);
  if (j < visible) {
    const Packet x = LoadPart(src + j, visible - j);  // zeros past `visible`: no effect on the sums
    src_sum = ep::padd(src_sum, x);
    src_sq = ep::pmadd(x, x, src_sq);
    for (; j < visible; ++j) row_max = std::max(row_max, src[j]), row_min = std::min(row_min, src[j]);
  }
  float all_max = row_max;
  for (j = visible; j < n_k; ++j) all_max = std::max(all_max, src[j]), row_min = std::min(row_min, src[j]);
  // No logit reaches the clamp: l = s * m exactly, and the logit sums are m and m^2 times the scores'.
  const bool clamp = scores_row && !(all_max * multiplier <= kLogitLimit && row_min * multiplier >= -kLogitLimit);
  if (scores_row) row_max = std::clamp(row_max * multiplier, -kLogitLimit, kLogitLimit);

  // Pass 2: logits, e = exp(l - max) (into probs_row, normalized in pass 3), and the sums. Written in place: pass 3
  // reads the row again from L1, which a scratch streamed out with non-temporal stores would give up.
  const Packet lo = ep::pset1<Packet>(-kLogitLimit), hi = ep::pset1<Packet>(kLogitLimit);
  const Packet mult = ep::pset1<Packet>(multiplier), max_b = ep::pset1<Packet>(row_max);
  Packet sum = zero, gap_sum = zero, e2_sum = zero, e3_sum = zero;
  // One packet of logits at j (count <= kLanes of them), stored when computed from the scores.
  auto logits_at = [&](size_t j, size_t count) {
    if (!scores_row) return LoadPart(logits_row + j, count);
    Packet l = ep::pmul(LoadPart(scores_row + j, count), mult);
    if (clamp) l = ep::pmin(ep::pmax(l, lo), hi);
    StorePart(logits_row + j, l, count);
    return l;
  };
  auto accumulate = [&](const Packet& gap, const Packet& e) {
    sum = ep::padd(sum, e);
    if (!kFigures) return;
    const Packet e2 = ep::pmul(e, e);
    gap_sum = ep::pmadd(e, gap, gap_sum);  // gap <= 0 and finite (logits are clamped)
    e2_sum = ep::padd(e2_sum, e2);
    e3_sum = ep::pmadd(e2, e, e3_sum);
  };
  const size_t full = visible / kLanes * kLanes;
  for (j = 0; j < full; j += kLanes) {  // visible keys, whole packets
    const Packet gap = ep::psub(logits_at(j, kLanes), max_b), e = ExpNonPositive(gap);
    ep::pstoreu(probs_row + j, e);
    accumulate(gap, e);
  }
  if (j < visible) {  // the last visible keys: lanes past `visible` are masked
    const size_t count = std::min(kLanes, n_k - j);
    const Packet gap = ep::psub(logits_at(j, count), max_b);
    const Packet e = ep::pand(ExpNonPositive(gap), LaneMask(visible - j));
    StorePart(probs_row + j, e, count);
    accumulate(gap, e);
    j += kLanes;
  }
  for (; j < n_k; j += kLanes) {  // masked keys: probs exactly 0
    const size_t count = std::min(kLanes, n_k - j);
    if (scores_row) logits_at(j, count);
    StorePart(probs_row + j, zero, count);
  }
  // Pass 3: normalize. The max entry is exp(0) = 1, so the sum is >= 1: no division by 0.
  const float inv = 1.0f / ep::predux(sum);
  const Packet inv_b = ep::pset1<Packet>(inv);
  for (j = 0; j < full; j += kLanes) ep::pstoreu(probs_row + j, ep::pmul(ep::ploadu<Packet>(probs_row + j), inv_b));
  if (j < visible) StorePart(probs_row + j, ep::pmul(LoadPart(probs_row + j, visible - j), inv_b), visible - j);
  if (!kFigures) return;

  // The max entry's e is exp(0) (l - max = 0 there), so its stored weight is exp(0) * inv.
  const double p_max = ep::pfirst(ExpNonPositive(zero)) * inv;
  const double gap = (double)inv * ep::predux(gap_sum);
  const double s2 = (double)inv * inv * ep::predux(e2_sum);
  const double s3 = (double)inv * inv * inv * ep::predux(e3_sum);
  const double log_s = p_max > 0 ? -std::log((float)p_max) : 0.0;  // float log/exp: the figures are floats
  const double entropy = std::max(0.0, log_s - gap);
  RowMetrics& r = pass->metrics;
  r.entropy = (float)entropy;
  r.norm_entropy = visible > 1 ? (float)(entropy / log_visible) : 0.0f;
  r.max_weight = (float)p_max;
  r.effective_keys = std::exp((float)entropy);
  // A peaked row: the sums' form cancels (see metrics.h); the normalized row is in cache, read it again.
  r.grad_norm = p_max > kPeakedRow ? SoftmaxJacobianNorm(probs_row, visible)
                                   : (float)std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
  const double m = scores_row ? multiplier : 1.0;
  pass->logit_sum = m * ep::predux(src_sum);
  pass->logit_sq = m * m * ep::predux(src_sq);
  if (clamp || !std::isfinite(pass->logit_sq)) {  // clamped logits, or the float squares overflowed
    pass->logit_sum = pass->logit_sq = 0;
    for (j = 0; j < visible; ++j) {
      pass->logit_sum += logits_row[j];
      pass->logit_sq += (double)logits_row[j] * logits_row[j];
    }
  }
}

// Query rows per block: 128 (64 at 8192 keys, 8 from 32768 up), a block's scores and probs rows up to 2 MiB each.
// Every block reads its head's keys and values again and packs them for its products, so fewer, taller blocks read
// them fewer times: at long inputs that traffic, not the cache the rows fit in, is what costs (docs/speed.md,
// "Attention blocks"). Every step uses the same blocks, so fused and step-by-step agree bit for bit.
size_t BlockRows(size_t n_k) { return AttendBlockRows(n_k); }

enum StepBits : unsigned { kStepScores = 1, kStepLogits = 2, kStepSoftmax = 4, kStepMix = 8 };

// The maps a pass writes, each [n_head, n_q, n_k] contiguous, or null (not kept: each block's rows live in
// scratch rows of its thread).
struct MapBuffers {
  float* scores = nullptr;
  float* logits = nullptr;
  float* probs = nullptr;
};

// One (head, block of query rows) of AttendBlocks: every step in `steps` on rows [r0, r0 + rows) of head h.
//   kStepScores:  scores block = q block . k^T
//   kStepSoftmax: probs block (and metrics) from the scores (with kStepLogits: logits too) or the logits
//   kStepMix:     z block = probs block . v
// scores_block / logits_block / probs_block: the block's rows [rows, n_k] (in the full maps, or in scratch
// rows when no map is kept: the same arithmetic either way, so a block recomputed later has the same bits).
// The key products run in fixed tiles of kKeyTile keys ([0, 256), [256, 512), ...), whatever the mask: a tile no
// row of the block may see is skipped (a causal block skips the keys after its last row, a windowed one also
// those before its first row's window), unless full_scores asks for every score. A score's bits depend only on
// its tile, never on the mask or on which maps are kept, so every path gives the same bits; z adds the tiles'
// products in order (a skipped tile's probs are all 0: adding its product would add exact zeros).
// The last tile, when n_k cuts it short, runs as a whole tile too, on copies of its keys and values padded with
// zero rows (KeyTilePad): Eigen's column and depth blocking follow a product's width, so a score or a z row would
// otherwise change its last bits with n_k, and a causal run continuing from a kept prefix (core/model/
// prefix_cache.h) could not keep rows made when the text was shorter or longer.
// The products always run on one thread (inside a team, or in AttendRows' team of its own).
constexpr size_t kKeyTile = 256;
// The last key tile's keys and values, each head's [kKeyTile, d] rows with zero rows past n_k (empty when n_k is a
// multiple of kKeyTile: no tile is cut short).
struct KeyTilePad {
  size_t tile = (size_t)-1;  // the tile it stands for
  std::vector<float> k, v;   // [n_kv, kKeyTile, d_k], [n_kv, kKeyTile, d_v]
};
void PadRows(const HeadsView& x, size_t first, std::vector<float>* out) {
  out->assign(x.n_head * kKeyTile * x.d, 0.0f);
  for (size_t g = 0; g < x.n_head; ++g)
    for (size_t j = first; j < x.n; ++j) {
      const float* row = x.data + g * x.head_stride + j * x.row_stride;
      std::copy(row, row + x.d, out->data() + (g * kKeyTile + (j - first)) * x.d);
    }
}
KeyTilePad PadLastTile(const HeadsView& k, const HeadsView& v, size_t n_k, bool scores, bool mix) {
  KeyTilePad pad;
  if (n_k % kKeyTile == 0) return pad;
  pad.tile = n_k / kKeyTile;
  if (scores) PadRows(k, pad.tile * kKeyTile, &pad.k);
  if (mix) PadRows(v, pad.tile * kKeyTile, &pad.v);
  return pad;
}
struct BlockArgs {
  unsigned steps;
  HeadsView q, k, v;
  size_t group;  // query heads per key/value head
  float multiplier;
  float softcap;  // 0 = none (LogitFromScore)
  Mask mask;
  size_t n_q, n_k;
  bool full_scores;
  const HeadsOut* z;
  bool masked_zero;  // the probs map's masked cells hold 0 already (AttendSink::probs_masked_zero)
  const KeyTilePad* pad;
};
inline void RunBlock(const BlockArgs& a, size_t h, size_t r0, Eigen::Index rows, float* scores_block,
                     float* logits_block, size_t logits_stride, float* probs_block, RowPass* passes) {
  const size_t n_k = a.n_k, g = h / a.group;
  // Tiles [t0, t1) hold every key a row of the block may see.
  const size_t kb = (size_t)a.mask.Begin((int)r0), ke = (size_t)a.mask.End((int)r0 + (int)rows - 1, (int)n_k);
  const size_t n_tiles = (n_k + kKeyTile - 1) / kKeyTile;
  const size_t t0 = kb / kKeyTile, t1 = ke > kb ? (ke + kKeyTile - 1) / kKeyTile : t0;
  auto tile_end = [&](size_t t) { return std::min(n_k, (t + 1) * kKeyTile); };
  using Strided = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;
  using ConstStrided = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
  const Eigen::OuterStride<> row_stride((Eigen::Index)n_k);
  const Eigen::Index tile = (Eigen::Index)kKeyTile;
  thread_local RowMatrix padded;  // [rows, kKeyTile]: the cut tile's scores, or its probs padded with zeros
  if (a.steps & kStepScores) {  // (2) scores [rows, keys] = q [rows, d_k] . k^T [d_k, keys]
    const auto Q = a.q.Head(h).middleRows((Eigen::Index)r0, rows);
    const auto K = a.k.Head(g);
    for (size_t t = a.full_scores ? 0 : t0; t < (a.full_scores ? n_tiles : t1); ++t) {
      const size_t c0 = t * kKeyTile, c1 = tile_end(t);
      Strided out(scores_block + c0, rows, (Eigen::Index)(c1 - c0), row_stride);
      if (t == a.pad->tile) {  // a whole tile's product, of which the first c1 - c0 columns are kept
        const Eigen::Map<const RowMatrix> k_pad(a.pad->k.data() + g * kKeyTile * a.k.d, tile, (Eigen::Index)a.k.d);
        padded.resize(rows, tile);
        padded.noalias() = Q * k_pad.transpose();
        out = padded.leftCols((Eigen::Index)(c1 - c0));
      } else {
        out.noalias() = Q * K.middleRows((Eigen::Index)c0, (Eigen::Index)(c1 - c0)).transpose();
      }
    }
  }
  if (a.steps & kStepSoftmax) {  // (3)+(4) and the row figures, row by row, over each row's visible keys
    for (Eigen::Index r = 0; r < rows; ++r) {
      const size_t i = r0 + (size_t)r, off = (size_t)r * n_k;
      const size_t lo = (size_t)a.mask.Begin((int)i), hi = (size_t)a.mask.End((int)i, (int)n_k);
      const float* scores_row = (a.steps & kStepLogits) ? scores_block + off : nullptr;
      float* logits_row = logits_block + (size_t)r * logits_stride;
      float* probs_row = probs_block + off;
      (passes ? SoftmaxRowPass<true> : SoftmaxRowPass<false>)(
          scores_row ? scores_row + lo : nullptr, a.multiplier, a.softcap, logits_row + lo, probs_row + lo, hi - lo, hi - lo,
          std::log((double)(hi - lo)), passes ? &passes[r] : nullptr);
      if (!a.masked_zero) {  // masked: exactly 0
        std::fill(probs_row, probs_row + lo, 0.0f);
        std::fill(probs_row + hi, probs_row + n_k, 0.0f);
      }
      if (scores_row && logits_stride && a.full_scores) {  // a kept logits map: the masked keys' logits too
        LogitsRow(scores_row, lo, a.multiplier, logits_row, a.softcap);
        LogitsRow(scores_row + hi, n_k - hi, a.multiplier, logits_row + hi, a.softcap);
      }
    }
  }
  if (a.steps & kStepMix) {  // (5) z [rows, d_v] = probs [rows, keys] . v [keys, d_v] (other probs are 0)
    auto Z = a.z->Head(h).middleRows((Eigen::Index)r0, rows);
    Z.setZero();
    for (size_t t = t0; t < t1; ++t) {
      const size_t c0 = t * kKeyTile, c1 = tile_end(t);
      const ConstStrided p(probs_block + c0, rows, (Eigen::Index)(c1 - c0), row_stride);
      if (t == a.pad->tile) {  // probs padded with zeros times the padded values: a whole tile's product
        const Eigen::Map<const RowMatrix> v_pad(a.pad->v.data() + g * kKeyTile * a.v.d, tile, (Eigen::Index)a.v.d);
        padded.setZero(rows, tile);
        padded.leftCols((Eigen::Index)(c1 - c0)) = p;
        Z.noalias() += padded * v_pad;
      } else {
        Z.noalias() += p * a.v.Head(g).middleRows((Eigen::Index)c0, (Eigen::Index)(c1 - c0));
      }
    }
  }
}

// Runs the steps in `steps` on every (head, block of query rows), heads and blocks spread over the threads.
// kStepLogits without kStepSoftmax is not used (Logits has its own loop). q, k, v: the views the steps read
// (others may be empty); n_head, n_q, n_k: the maps' shape.
[[gnu::noipa]] bool AttendBlocks(unsigned steps, const HeadsView& q, const HeadsView& k, const HeadsView& v,
                                 size_t n_head, size_t n_q, size_t n_k, float multiplier, float softcap,
                                 const Mask& mask, const MapBuffers& maps, std::vector<HeadMetrics>* metrics,
                                 const HeadsOut* z, const AttendSink* sink = nullptr,
                                 const ScoreRowsFill* fill = nullptr) {
  // fill (with kStepLogits, no kStepScores and no scores map): each block's scores from it.
  const HeadsView& kv = (steps & kStepScores) ? k : v;
  const size_t group = kv.n_head > 0 ? n_head / kv.n_head : 1;
  ATTNVIZ_CHECK_SHAPE(!(steps & (kStepScores | kStepMix)) || (kv.n_head > 0 && n_head % kv.n_head == 0),
                      std::to_string(n_head) + " query heads on " + std::to_string(kv.n_head) + " key/value heads");
  ATTNVIZ_CHECK_SHAPE(mask.row0 == 0 && mask.col0 == 0, "the kernel runs whole maps, not a cut of one");
  ATTNVIZ_CHECK_SHAPE(!mask.windowed() || n_q == n_k,
                      "a sliding window needs self-attention (n_q " + std::to_string(n_q) + ", n_k " +
                          std::to_string(n_k) + ")");
  size_t d = 0;  // GEMM depth/width per head
  if (steps & kStepScores) d = q.d;
  if (steps & kStepMix) d = std::max(d, v.d);
  std::vector<double> own_logit_sums;
  std::vector<double>& row_logit_sums = sink && sink->row_logit_sums ? *sink->row_logit_sums : own_logit_sums;
  if (metrics) {
    metrics->resize(n_head);
    for (HeadMetrics& hm : *metrics) hm.rows.resize(n_q);  // (rows a kept prefix gave stay)
    row_logit_sums.resize(2 * n_head * n_q, 0.0);
  }
  const size_t block = BlockRows(n_k), blocks = (n_q + block - 1) / block;
  // Threads when there is enough work. Below the threshold each block's product is also too small
  // for Eigen to thread it, and inside the team Eigen never threads: so a product runs on one
  // thread in every path, with the same blocking (the same bits).
  // A team costs a few microseconds when the cores are free but up to a time slice when they are
  // shared, so the element-wise passes alone go parallel only when their work outweighs that.
  const double cells = (double)n_head * n_q * n_k;
  const bool parallel = cells >= (1 << 18) || cells * d >= 100000;
  // Every key's score when a scores or logits map is kept (the Shapes tab shows them) or the sink needs them.
  const bool full_scores = maps.scores || maps.logits || (sink && sink->full_scores);
  const bool masked_zero = sink && sink->probs_masked_zero && maps.probs;  // a whole map, never a scratch block
  const KeyTilePad pad = PadLastTile(k, v, n_k, steps & kStepScores, steps & kStepMix);
  const BlockArgs args{steps, q, k, v, group, multiplier, softcap, mask, n_q, n_k, full_scores, z, masked_zero, &pad};
  BlockArgs replay = args;  // a kept prefix's block made again for on_block: its probs, not its z
  replay.steps &= ~(unsigned)kStepMix;
  const bool replays = sink && sink->replay_kept_rows && sink->on_block;
  const std::atomic<bool>* cancel = sink ? sink->cancel : nullptr;
  std::atomic<bool> cancelled{false};
#pragma omp parallel if (parallel)
  {
    FlushDenormals ftz;
    // Without a logits map, each row's logits go to a scratch row of this thread (stays in L1); without
    // a scores or probs map, each block's rows go to scratch blocks of this thread.
    std::vector<float> scratch_logits((steps & kStepSoftmax) && !maps.logits ? n_k : 0);
    std::vector<float> scratch_scores(((steps & kStepScores) || fill) && !maps.scores ? block * n_k : 0);
    std::vector<float> scratch_probs((steps & kStepSoftmax) && !maps.probs ? block * n_k : 0);
    std::vector<RowPass> passes(metrics ? block : 0);
#pragma omp for schedule(dynamic)
    for (long long item = 0; item < (long long)(n_head * blocks); ++item) {
      if (cancel && cancel->load(std::memory_order_relaxed)) {  // a newer request: skip the rest
        cancelled.store(true, std::memory_order_relaxed);
        continue;
      }
      // Heaviest blocks first: under a causal mask the last rows see the most keys.
      const size_t h = (size_t)item % n_head, block_r0 = (blocks - 1 - (size_t)item / n_head) * block;
      const size_t block_end = std::min(block_r0 + block, n_q);
      const bool kept = sink && block_end <= sink->first_row;  // kept rows of a prefix
      if (kept && (!replays || block_end <= sink->replay_from_row)) continue;
      // A kept prefix: the block runs from the first of its row groups holding a row the run or the sink needs (the
      // groups after it keep their place in the block's packets, so each row has the whole block's bits).
      size_t r0 = block_r0;
      if (sink && sink->first_row > block_r0) {
        const size_t needed = replays ? std::min(sink->first_row, sink->replay_from_row) : sink->first_row;
        if (needed > block_r0)
          r0 = block_r0 + std::min(needed - block_r0, block_end - 1 - block_r0) / kMatMulRowGroup * kMatMulRowGroup;
      }
      const Eigen::Index rows = (Eigen::Index)(block_end - r0);
      const size_t off = (h * n_q + r0) * n_k;
      float* scores_block = maps.scores ? maps.scores + off : scratch_scores.data();
      float* logits_block = maps.logits ? maps.logits + off : nullptr;
      float* probs_block = maps.probs ? maps.probs + off : scratch_probs.data();
      if (fill) (*fill)((int)h, r0, (size_t)rows, scores_block);
      // Without a logits map every row's logits go to the same scratch row (stride 0).
      RunBlock(kept ? replay : args, h, r0, rows, scores_block, logits_block ? logits_block : scratch_logits.data(),
               logits_block ? n_k : 0, probs_block, metrics && !kept ? passes.data() : nullptr);
      if (metrics && !kept) {
        for (Eigen::Index r = 0; r < rows; ++r) {
          const size_t i = r0 + (size_t)r;
          (*metrics)[h].rows[i] = passes[(size_t)r].metrics;
          row_logit_sums[2 * (h * n_q + i)] = passes[(size_t)r].logit_sum;
          row_logit_sums[2 * (h * n_q + i) + 1] = passes[(size_t)r].logit_sq;
        }
      }
      // Counted before its consumer runs: a consumer that reports the count (progress, units after a cancel) never
      // reports fewer blocks than have finished, even when two threads' blocks finish together.
      if (sink && sink->blocks_done) sink->blocks_done->fetch_add(1, std::memory_order_relaxed);
      if (sink && sink->on_block) {
        RowBlock b;
        b.head = (int)h;
        b.r0 = (int)r0;
        b.rows = (int)rows;
        b.n_k = (int)n_k;
        b.probs = probs_block;
        b.scores = (steps & kStepScores) || (steps & kStepLogits) ? scores_block : nullptr;
        sink->on_block(b);
      }
    }
  }
  if (cancelled.load()) return false;
  if (!metrics) return true;
  // Head figures: means over the rows, logit mean and std over the visible logits (as ComputeMetrics).
  for (size_t h = 0; h < n_head; ++h) {
    double l_sum = 0, l_sq = 0;
    size_t l_count = 0;
    for (size_t i = 0; i < n_q; ++i) {
      l_sum += row_logit_sums[2 * (h * n_q + i)];
      l_sq += row_logit_sums[2 * (h * n_q + i) + 1];
      l_count += (size_t)mask.Visible((int)i, (int)n_k);
    }
    SummarizeHead(l_sum, l_sq, l_count, &(*metrics)[h]);
  }
  return true;
}

// A map tensor [n_head, n_q, n_k] resized for a pass (or null).
float* MapOut(Tensor* t, size_t n_head, size_t n_q, size_t n_k) {
  if (!t) return nullptr;
  t->Resize({n_head, n_q, n_k});
  return t->data.data();
}

}  // namespace

HeadsView ViewOf(const Tensor& t) {
  if (t.shape.size() != 3) return HeadsView{};
  return HeadsView{t.data.data(), t.dim(0), t.dim(1), t.dim(2), t.dim(1) * t.dim(2), t.dim(2)};
}
HeadsOut ViewOf(Tensor* t) {
  if (t->shape.size() != 3) return HeadsOut{};
  return HeadsOut{t->data.data(), t->dim(0), t->dim(1), t->dim(2), t->dim(1) * t->dim(2), t->dim(2)};
}

namespace {
// q [n_head, n_q, d_k] and k [n_kv, n_k, d_k]: a score is q . k (same width); n_head a multiple of n_kv.
void CheckQueryKey(const HeadsView& q, const HeadsView& k) {
  ATTNVIZ_CHECK_SHAPE(q.data && k.data && k.n_head > 0 && q.n_head % k.n_head == 0 && q.d == k.d,
                      "q [" + std::to_string(q.n_head) + ", " + std::to_string(q.n) + ", " + std::to_string(q.d) +
                          "] vs k [" + std::to_string(k.n_head) + ", " + std::to_string(k.n) + ", " +
                          std::to_string(k.d) + "]");
}
// k [n_kv, n_k, d_k] and v [n_kv, n_k, d_v]: keys and values come in pairs.
void CheckKeyValue(const HeadsView& k, const HeadsView& v) {
  ATTNVIZ_CHECK_SHAPE(v.data && v.n_head == k.n_head && v.n == k.n,
                      "k [" + std::to_string(k.n_head) + ", " + std::to_string(k.n) + ", " + std::to_string(k.d) +
                          "] vs v [" + std::to_string(v.n_head) + ", " + std::to_string(v.n) + ", " +
                          std::to_string(v.d) + "] (keys and values come in pairs)");
}
// probs [n_head, n_q, n_k] and v [n_head, n_k, d_v]: one value row per key.
void CheckProbsValues(const Tensor& probs, const Tensor& v) {
  ATTNVIZ_CHECK_SHAPE(probs.shape.size() == 3 && v.shape.size() == 3 && probs.dim(0) == v.dim(0) &&
                          probs.dim(2) == v.dim(1),
                      "probs " + ShapeString(probs.shape) + " vs v " + ShapeString(v.shape));
}
// z [n_head, n_q, d_v], resized (or null).
HeadsOut ZOut(Tensor* z, size_t n_head, size_t n_q, size_t d_v) {
  if (!z) return HeadsOut{};
  z->Resize({n_head, n_q, d_v});
  return ViewOf(z);
}
}  // namespace

void Scores(const Tensor& q, const Tensor& k, Tensor* scores) {
  const HeadsView qv = ViewOf(q), kv = ViewOf(k);
  CheckQueryKey(qv, kv);
  MapBuffers maps;
  maps.scores = MapOut(scores, qv.n_head, qv.n, kv.n);
  AttendBlocks(kStepScores, qv, kv, HeadsView{}, qv.n_head, qv.n, kv.n, 1.0f, 0.0f, Mask::None(), maps, nullptr,
               nullptr);
}

void Logits(const Tensor& scores, float multiplier, Tensor* logits, float softcap) {
  logits->Resize(scores.shape);
  const size_t rows = scores.dim(0) * scores.dim(1), n_k = scores.dim(2);
#pragma omp parallel for schedule(static) if (rows * n_k > (1u << 16))
  for (long long r = 0; r < (long long)rows; ++r) {
    LogitsRow(scores.data.data() + r * n_k, n_k, multiplier, logits->data.data() + r * n_k, softcap);
  }
}

void Softmax(const Tensor& logits, const Mask& mask, Tensor* probs) {
  MapBuffers maps;
  maps.logits = const_cast<float*>(logits.data.data());  // only read without kStepLogits
  maps.probs = MapOut(probs, logits.dim(0), logits.dim(1), logits.dim(2));
  AttendBlocks(kStepSoftmax, HeadsView{}, HeadsView{}, HeadsView{}, logits.dim(0), logits.dim(1), logits.dim(2),
               1.0f, 0.0f, mask, maps, nullptr, nullptr);
}

void LogitsSoftmax(const Tensor& scores, float multiplier, const Mask& mask, Tensor* logits, Tensor* probs,
                   float softcap) {
  MapBuffers maps;
  maps.scores = const_cast<float*>(scores.data.data());  // only read without kStepScores
  maps.logits = MapOut(logits, scores.dim(0), scores.dim(1), scores.dim(2));
  maps.probs = MapOut(probs, scores.dim(0), scores.dim(1), scores.dim(2));
  AttendBlocks(kStepLogits | kStepSoftmax, HeadsView{}, HeadsView{}, HeadsView{}, scores.dim(0), scores.dim(1),
               scores.dim(2), multiplier, softcap, mask, maps, nullptr, nullptr);
}

void MixValues(const Tensor& probs, const Tensor& v, Tensor* z) {
  CheckProbsValues(probs, v);
  MapBuffers maps;
  maps.probs = const_cast<float*>(probs.data.data());  // only read without kStepSoftmax
  const HeadsOut zv = ZOut(z, probs.dim(0), probs.dim(1), v.dim(2));
  AttendBlocks(kStepMix, HeadsView{}, HeadsView{}, ViewOf(v), probs.dim(0), probs.dim(1), probs.dim(2), 1.0f, 0.0f,
               Mask::None(), maps, nullptr, &zv);
}

bool Attend(AttendFrom from, const Tensor& q, const Tensor& k, const Tensor& v, float multiplier, const Mask& mask,
            Tensor* scores, Tensor* logits, Tensor* probs, std::vector<HeadMetrics>* metrics, Tensor* z,
            const AttendSink* sink, float softcap) {
  const HeadsView qv = ViewOf(q), kv = ViewOf(k), vv = ViewOf(v);
  CheckQueryKey(qv, kv);
  CheckKeyValue(kv, vv);
  unsigned steps = kStepSoftmax | (z ? kStepMix : 0u);
  if (from == AttendFrom::kQueryKey) steps |= kStepScores | kStepLogits;
  if (from == AttendFrom::kKeptScores) steps |= kStepLogits;
  const size_t n_head = qv.n_head, n_q = qv.n, n_k = kv.n;
  MapBuffers maps;
  // Kept maps are read as they are (a kept scores map with kKeptScores); the ones a step writes are resized.
  maps.scores = from == AttendFrom::kQueryKey ? MapOut(scores, n_head, n_q, n_k) : scores ? scores->data.data() : nullptr;
  maps.logits = from == AttendFrom::kKeptLogits ? (logits ? logits->data.data() : nullptr)
                                                : MapOut(logits, n_head, n_q, n_k);
  maps.probs = MapOut(probs, n_head, n_q, n_k);
  const HeadsOut zv = ZOut(z, n_head, n_q, vv.d);
  return AttendBlocks(steps, qv, kv, vv, n_head, n_q, n_k, multiplier, softcap, mask, maps, metrics,
                      z ? &zv : nullptr, sink);
}

bool AttendHeads(const HeadsView& q, const HeadsView& k, const HeadsView& v, float multiplier, const Mask& mask,
                 float* probs, std::vector<HeadMetrics>* metrics, const HeadsOut* z, const AttendSink* sink,
                 float softcap) {
  CheckQueryKey(q, k);
  CheckKeyValue(k, v);
  ATTNVIZ_CHECK_SHAPE(!z || (z->n_head == q.n_head && z->n == q.n && z->d == v.d),
                      "z [" + std::to_string(z ? z->n_head : 0) + ", " + std::to_string(z ? z->n : 0) + ", " +
                          std::to_string(z ? z->d : 0) + "] for q heads " + std::to_string(q.n_head) + ", n_q " +
                          std::to_string(q.n) + ", d_v " + std::to_string(v.d));
  MapBuffers maps;
  maps.probs = probs;
  const unsigned steps = kStepScores | kStepLogits | kStepSoftmax | (z ? kStepMix : 0u);
  return AttendBlocks(steps, q, k, v, q.n_head, q.n, k.n, multiplier, softcap, mask, maps, metrics, z, sink);
}

size_t AttendBlockRows(size_t n_k) {
  const size_t rows = (size_t)(2048 * 1024) / (std::max<size_t>(n_k, 1) * sizeof(float));
  return std::clamp<size_t>(rows / 8 * 8, 8, 128);
}

bool AttendStream(const Tensor& q, const Tensor& k, const Tensor& v, float multiplier, const Mask& mask,
                  const AttendSink& sink, std::vector<HeadMetrics>* metrics, Tensor* z, float softcap) {
  const HeadsView qv = ViewOf(q), kv = ViewOf(k), vv = ViewOf(v);
  CheckQueryKey(qv, kv);
  CheckKeyValue(kv, vv);
  const HeadsOut zv = ZOut(z, qv.n_head, qv.n, vv.d);
  const unsigned steps = kStepScores | kStepLogits | kStepSoftmax | (z ? kStepMix : 0u);
  return AttendBlocks(steps, qv, kv, vv, qv.n_head, qv.n, kv.n, multiplier, softcap, mask, MapBuffers{}, metrics,
                      z ? &zv : nullptr, &sink);
}

bool AttendStreamFromScores(const ScoreRowsFill& fill, size_t n_head, size_t n_q, size_t n_k, const Tensor& v,
                            float multiplier, const Mask& mask, const AttendSink& sink,
                            std::vector<HeadMetrics>* metrics, Tensor* z, float softcap) {
  ATTNVIZ_CHECK_SHAPE(v.shape.size() == 3 && v.dim(0) == n_head && v.dim(1) == n_k,
                      "scores [" + std::to_string(n_head) + ", " + std::to_string(n_q) + ", " + std::to_string(n_k) +
                          "] vs v " + ShapeString(v.shape) + " (keys and values come in pairs)");
  const HeadsOut zv = ZOut(z, n_head, n_q, v.dim(2));
  const unsigned steps = kStepLogits | kStepSoftmax | (z ? kStepMix : 0u);
  return AttendBlocks(steps, HeadsView{}, HeadsView{}, ViewOf(v), n_head, n_q, n_k, multiplier, softcap, mask,
                      MapBuffers{}, metrics, z ? &zv : nullptr, &sink, &fill);
}

void AttendRows(const Tensor& q, const Tensor& k, float multiplier, const Mask& mask, int head, int r0, int r1,
                Tensor* scores, Tensor* probs, float softcap) {
  const HeadsView qv = ViewOf(q), kv = ViewOf(k);
  CheckQueryKey(qv, kv);
  const size_t n_head = qv.n_head, n_q = qv.n, n_k = kv.n;
  ATTNVIZ_CHECK_SHAPE(head >= 0 && (size_t)head < n_head && r0 >= 0 && r0 <= r1 && (size_t)r1 <= n_q,
                      "rows " + std::to_string(r0) + ".." + std::to_string(r1) + " of head " + std::to_string(head) +
                          " in q " + ShapeString(q.shape));
  const size_t rows_out = (size_t)(r1 - r0);
  if (scores) scores->Resize({rows_out, n_k});
  probs->Resize({rows_out, n_k});
  if (rows_out == 0) return;
  const size_t block = AttendBlockRows(n_k);
  const size_t b0 = (size_t)r0 / block, b1 = ((size_t)r1 + block - 1) / block;
  const KeyTilePad pad = PadLastTile(kv, HeadsView{}, n_k, /*scores=*/true, /*mix=*/false);
  const BlockArgs args{kStepScores | kStepLogits | kStepSoftmax, qv, kv, HeadsView{}, n_head / kv.n_head, multiplier,
                       softcap, mask, n_q, n_k, scores != nullptr, nullptr, false, &pad};
  // A team of two, so Eigen never threads a product here either (it does not inside a team): the same
  // one-thread product, with the same blocking, as in the full pass.
#pragma omp parallel num_threads(2)
  {
    FlushDenormals ftz;
    std::vector<float> s_block(block * n_k), p_block(block * n_k), logits_row(n_k);
#pragma omp for schedule(dynamic)
    for (long long b = (long long)b0; b < (long long)b1; ++b) {
      const size_t start = (size_t)b * block;
      const Eigen::Index rows = (Eigen::Index)std::min(block, n_q - start);
      RunBlock(args, (size_t)head, start, rows, s_block.data(), logits_row.data(), 0, p_block.data(), nullptr);
      const size_t lo = std::max(start, (size_t)r0), hi = std::min(start + (size_t)rows, (size_t)r1);
      for (size_t i = lo; i < hi; ++i) {
        const size_t src = (i - start) * n_k, dst = (i - (size_t)r0) * n_k;
        std::copy(p_block.begin() + src, p_block.begin() + src + n_k, probs->data.begin() + dst);
        if (scores) std::copy(s_block.begin() + src, s_block.begin() + src + n_k, scores->data.begin() + dst);
      }
    }
  }
}

void OutputProjection(const Tensor& z, const Tensor& w_o, Tensor* concat, Tensor* out) {
  ATTNVIZ_CHECK_SHAPE(z.shape.size() == 3 && w_o.shape.size() == 2 && z.dim(0) * z.dim(2) == w_o.dim(0),
                      "z " + ShapeString(z.shape) + " vs w_o " + ShapeString(w_o.shape));
  const size_t n_head = z.dim(0), n_q = z.dim(1), d_v = z.dim(2), d_model = w_o.dim(1);
  // concat [n_q, n_head*d_v]: head h fills columns h*d_v .. (h+1)*d_v-1 (torch's transpose + view).
  concat->Resize({n_q, n_head * d_v});
#pragma omp parallel for schedule(static) if (n_q * n_head * d_v > (1u << 16))
  for (long long i = 0; i < (long long)n_q; ++i) {
    for (size_t h = 0; h < n_head; ++h) {
      const float* src = z.data.data() + (h * n_q + i) * d_v;
      std::copy(src, src + d_v, concat->data.data() + i * n_head * d_v + h * d_v);
    }
  }
  out->Resize({n_q, d_model});
  MatMul(*concat, w_o.data.data(), d_model, 0, d_model, out->data.data());
}

}  // namespace attnviz
