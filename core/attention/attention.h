// The attention forward pass as free functions over plain buffers (llm.c style).
//
// Dimension glossary
//   n_q      query tokens          n_k   key/value tokens (n_q == n_k in self-attention)
//   d_model  embedding width       n_head heads
//   d_k      query/key width per head (q and k must share it: logits are q . k)
//   d_v      value width per head (free: values are only averaged, never dotted with q)
//
// One kernel for every layer: the sandbox's tensors [n_head, n, d] and a trained model's projections
// [n, n_head * d] are both HeadsViews (strides, no copy); k and v may have fewer heads than q (grouped-query
// attention: query head h reads key/value head h / (n_head / n_kv)); the mask is a Mask (mask.h: none, causal,
// causal with a sliding window, bidirectional).
//
// Data flow (PyTorch order):
//   xq [n_q, d_model], x [n_k, d_model]
//   -> q [n_head, n_q, d_k], k [n_head, n_k, d_k], v [n_head, n_k, d_v]      (1) project (core/sandbox/projection.h)
//   -> scores [n_head, n_q, n_k] = q k^T                                      (2) raw scores
//   -> logits = scores * multiplier  (multiplier = (1/sqrt(d_k) if scaled) / T) (3) logits
//      soft-capped when softcap > 0 (gemma2): logits = softcap * tanh(scores * multiplier / softcap)
//   -> probs = softmax over keys, masked entries exactly 0                  (4) softmax
//   -> z [n_head, n_q, d_v] = probs v                                       (5) mix values
//   -> out [n_q, d_model] = concat_h(z) W_o                                   (6) output
#pragma once
#include <atomic>
#include <cmath>
#include <cstddef>
#include <functional>
#include <type_traits>

#include <vector>

#include "attention/mask.h"
#include "base/tensor.h"

namespace attnviz {

struct HeadMetrics;  // metrics.h

// A [n_head, n, d] tensor read through strides (a ggml-style view, nothing copied): element (h, i, c) is
// data[h * head_stride + i * row_stride + c].
//   the sandbox's Tensor [n_head, n, d]                    head_stride n * d, row_stride d   (Of)
//   a model's projection [n, n_head * d], row stride ld    head_stride d,     row_stride ld  (Columns)
template <typename Float>
struct HeadsViewOf {
  Float* data = nullptr;
  size_t n_head = 0, n = 0, d = 0;
  size_t head_stride = 0, row_stride = 0;
  using Matrix = Eigen::Map<std::conditional_t<std::is_const_v<Float>, const RowMatrix, RowMatrix>, 0,
                            Eigen::OuterStride<>>;
  // Head h as an [n, d] row-major matrix.
  Matrix Head(size_t h) const {
    return Matrix(data + h * head_stride, (Eigen::Index)n, (Eigen::Index)d, Eigen::OuterStride<>((Eigen::Index)row_stride));
  }
  static HeadsViewOf Columns(Float* base, size_t n, size_t n_head, size_t d, size_t ld) {
    return HeadsViewOf{base, n_head, n, d, d, ld};
  }
};
using HeadsView = HeadsViewOf<const float>;
using HeadsOut = HeadsViewOf<float>;
// t: [n_head, n, d] (empty: a view of nothing).
HeadsView ViewOf(const Tensor& t);
HeadsOut ViewOf(Tensor* t);

// (2) scores: [n_head, n_q, n_k] = q [n_head, n_q, d_k] . k [n_head, n_k, d_k]^T
void Scores(const Tensor& q, const Tensor& k, Tensor* scores);

// (3) logits = scores * multiplier, soft-capped when softcap > 0 (softcap * tanh(l / softcap), |logit| < softcap;
// 0 = no cap), then clamped to +-kLogitLimit so a huge multiplier cannot make Inf. Every path of the kernel makes
// its logits here, so a capped map and its exact rows agree bit for bit.
constexpr float kLogitLimit = 1e30f;
inline float LogitFromScore(float score, float multiplier, float softcap = 0.0f) {
  float l = score * multiplier;
  if (softcap > 0) l = softcap * std::tanh(l / softcap);  // tanh(+-Inf) = +-1: a huge score gives +-softcap
  return l < -kLogitLimit ? -kLogitLimit : (l > kLogitLimit ? kLogitLimit : l);
}
void Logits(const Tensor& scores, float multiplier, Tensor* logits, float softcap = 0.0f);

// (4) probs: row softmax of logits [n_head, n_q, n_k], with the row max subtracted.
// Only the keys the mask lets a query see take part (mask.h); masked probs are exactly 0.
void Softmax(const Tensor& logits, const Mask& mask, Tensor* probs);

// (3)+(4) in one pass per row (what the pipeline uses: each row stays in cache).
void LogitsSoftmax(const Tensor& scores, float multiplier, const Mask& mask, Tensor* logits, Tensor* probs,
                   float softcap = 0.0f);

// (5) z: [n_head, n_q, d_v] = probs [n_head, n_q, n_k] . v [n_head, n_k, d_v]
void MixValues(const Tensor& probs, const Tensor& v, Tensor* z);

// (2)-(5) block by block: for each head and each block of query rows, every step from `from` on runs
// while the block is in cache (what the pipeline uses; Scores, LogitsSoftmax, Softmax and MixValues
// run the same kernels one step at a time, so both ways give the same bits).
//   kQueryKey:   scores = q k^T, then logits and probs        (q, k read)
//   kKeptScores: logits and probs from the kept scores (the multiplier or the mask changed)
//   kKeptLogits: probs from a kept logits map
// logits (may be null with kQueryKey and kKeptScores): the logits map is then not written; each row's logits
// live in a scratch row only (the map is one multiply away from the scores: LogitFromScore).
// metrics (may be null): the saturation figures of metrics.h, from the same pass over each row.
// z (may be null): z = probs v too (v is read only then).
enum class AttendFrom { kQueryKey, kKeptScores, kKeptLogits };
// sink (may be null): see AttendStream below (progress, cancel; on_block sees each block of the maps).
// softcap (every pass below takes it last; 0 = none): the logits' soft cap of (3) (LogitFromScore).
// Returns false only when sink->cancel stopped it.
struct AttendSink;
bool Attend(AttendFrom from, const Tensor& q, const Tensor& k, const Tensor& v, float multiplier, const Mask& mask,
            Tensor* scores, Tensor* logits, Tensor* probs, std::vector<HeadMetrics>* metrics, Tensor* z,
            const AttendSink* sink = nullptr, float softcap = 0.0f);

// ---- Streaming: the maps block by block, never whole (long inputs) ----
// Query rows per block of the pass (a multiple of 8, 8..128): what AttendStream hands its sink and what
// AttendRows recomputes. Every path cuts the rows into these same blocks, so every path gives the same bits.
size_t AttendBlockRows(size_t n_k);

// One (head, block of query rows) of a streamed pass: probs [rows, n_k] of query rows r0 .. r0+rows-1
// (and their raw scores q . k), row-major, valid only during the call.
struct RowBlock {
  int head = 0, r0 = 0, rows = 0, n_k = 0;
  const float* probs = nullptr;   // [rows, n_k]
  const float* scores = nullptr;  // [rows, n_k]
};
// What a streamed pass reports to: on_block runs once per block, on any thread of the pass (blocks of
// one head run concurrently: a consumer writes only what its block covers). blocks_done counts the
// blocks finished (progress), each before its on_block runs (so on_block may report it as is). cancel: checked before each block; once set, the pass skips the rest and
// returns false (a superseded request stops within one block of work per thread).
// full_scores: on_block needs every key's raw score, masked keys' included (score codes); otherwise a block's
// scores are computed only for the keys its rows may see (the rest of its scores rows is undefined).
struct AttendSink {
  std::function<void(const RowBlock&)> on_block;
  bool full_scores = false;
  // The probs map's masked cells already hold exactly 0 (a map buffer the caller reuses under the same mask, e.g.
  // a model's layers one after another): they are not written again (at 8192 tokens, causal, half of each map).
  bool probs_masked_zero = false;
  std::atomic<size_t>* blocks_done = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  // Blocks of rows wholly before this query row are skipped (a causal run continuing from a kept prefix: its maps'
  // and z's earlier rows stay as they are), and the block holding it runs from the row group (kMatMulRowGroup rows
  // from the block's start) holding the first row needed: this one, or replay_from_row when that is earlier and the
  // kept rows are replayed (the groups keep their place in the block's packets: the whole block's bits). Row figures then cover only the rows run, unless the kept rows' are
  // given: metrics' rows before first_row already hold them and row_logit_sums does (below).
  size_t first_row = 0;
  // The skipped blocks are run anyway for on_block alone (the scores and softmax: no z, no row figures), so a
  // consumer that pools every row still sees them all; those ending at or before replay_from_row are not (a consumer
  // that keeps its pooled sums of the rows before it).
  bool replay_kept_rows = false;
  size_t replay_from_row = 0;
  // [n_head, n_q, 2]: each row's sum and sum of squares of its visible logits (what the head's logit mean and std
  // add up, in row order). When set, the rows of skipped blocks are read from it and every row run written to it:
  // a kept prefix's head figures come out with the same bits as a whole pass's.
  std::vector<double>* row_logit_sums = nullptr;
};
// Blocks a pass over n_head heads of n_q rows is cut into (progress totals).
inline size_t AttendBlockCount(size_t n_head, size_t n_q, size_t n_k) {
  const size_t b = AttendBlockRows(n_k);
  return n_head * ((n_q + b - 1) / b);
}

// (2)-(5) from q and k like Attend(kQueryKey, ...), but no map is kept: each block's scores and probs
// live in scratch rows and go to sink.on_block. metrics and z (either may be null) as in Attend.
// Returns false when cancelled (then metrics and z are incomplete).
bool AttendStream(const Tensor& q, const Tensor& k, const Tensor& v, float multiplier, const Mask& mask,
                  const AttendSink& sink, std::vector<HeadMetrics>* metrics, Tensor* z, float softcap = 0.0f);

// The view form every layer goes through (the Tensor forms above wrap it; a model layer calls it on its
// projections): q [n_head, n_q, d_k], k [n_kv, n_k, d_k], v [n_kv, n_k, d_v], n_head % n_kv == 0 (grouped-query
// attention). probs (may be null: no map kept, each block goes to sink->on_block): [n_head, n_q, n_k] contiguous,
// written in full, masked entries exactly 0. metrics, z (either may be null): as in Attend; z [n_head, n_q, d_v].
// Returns false only when sink->cancel stopped it.
bool AttendHeads(const HeadsView& q, const HeadsView& k, const HeadsView& v, float multiplier, const Mask& mask,
                 float* probs, std::vector<HeadMetrics>* metrics, const HeadsOut* z, const AttendSink* sink,
                 float softcap = 0.0f);

// The same pass from raw scores a caller hands over instead of q . k (core/maps/score_codes.h's
// AttendStreamFromCodes: scores kept as codes, a change of scaling, temperature or mask without the GEMM).
// fill writes the scores [rows, n_k] of query rows r0 .. r0+rows-1 of one head, row-major; the blocks handed to
// the sink carry those scores. v: [n_head, n_k, d_v].
using ScoreRowsFill = std::function<void(int head, size_t r0, size_t rows, float* scores)>;
bool AttendStreamFromScores(const ScoreRowsFill& fill, size_t n_head, size_t n_q, size_t n_k, const Tensor& v,
                            float multiplier, const Mask& mask, const AttendSink& sink,
                            std::vector<HeadMetrics>* metrics, Tensor* z, float softcap = 0.0f);

// Exact rows on demand: the scores and probs of query rows [r0, r1) of one head, [r1 - r0, n_k] each,
// recomputed from q and k with the kernel of the full pass (whole blocks, one thread a product), so
// every value is bit-equal to the map Attend or AttendStream makes. scores may be null.
void AttendRows(const Tensor& q, const Tensor& k, float multiplier, const Mask& mask, int head, int r0, int r1,
                Tensor* scores, Tensor* probs, float softcap = 0.0f);

// (6) out: [n_q, d_model] = concat(z) [n_q, n_head*d_v] . w_o [n_head*d_v, d_model]
// concat is a scratch buffer (reused between calls).
void OutputProjection(const Tensor& z, const Tensor& w_o, Tensor* concat, Tensor* out);

}  // namespace attnviz
