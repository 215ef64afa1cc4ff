// Raw scores kept as 16-bit codes (long inputs): what lets a temperature or scaling change redo the softmax
// without redoing q k^T. A full fp32 map at 4096 tokens x 16 heads is 1 GiB; the codes are half of that and
// exact to (row max - row min) / 131070 per score:
//   score[h, i, j] ~= lo[h, i] + step[h, i] * code[h, i, j],  step = (max - min of the row) / 65535
// (fp16 would keep 11 bits relative to each score: at a score of 40 that is an error of 0.02, here of ~6e-4).
// The codes remember the q and k they were made from, so they are used only while those are the pipeline's
// current q and k (a new text, seed, width or weights makes new q and k, and the codes are then stale).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/attention.h"
#include "maps/pyramid.h"
#include "base/tensor.h"

namespace attnviz {

struct ScoreCodes {
  size_t n_head = 0, n_q = 0, n_k = 0;
  std::vector<uint16_t, PoolAllocator<uint16_t>> codes;  // [n_head, n_q, n_k]
  std::vector<float> lo, step;                             // [n_head, n_q]
  // What the codes were made from; null while they are being written or after a row could not be coded.
  SharedTensor q, k;

  // Sizes for [n_head, n_q, n_k] maps and marks the codes not valid (q, k null) until a pass fills them.
  void Reset(size_t n_head, size_t n_q, size_t n_k);
  // Frees the codes (not valid after).
  void Clear();
  size_t bytes() const { return n_head * n_q * (n_k * sizeof(uint16_t) + 2 * sizeof(float)); }
  // Whether the codes hold the scores of exactly these q and k (the same tensors, or equal ones).
  bool MadeFrom(const Tensor& q, const Tensor& k) const;
};

// Codes rows [r0, r0 + rows) of head `head` from their scores: [rows, n_k] row-major. Returns false when a
// row has a score that is not finite (such a map cannot be kept as codes; the caller drops them).
bool EncodeScoreRows(const float* scores, int head, size_t r0, size_t rows, ScoreCodes* codes);
// The scores of rows [r0, r0 + rows) of head `head` back from their codes: out [rows, n_k].
void DecodeScoreRows(const ScoreCodes& codes, int head, size_t r0, size_t rows, float* out);

// The attention pass (attention.h AttendStream) from the scores kept as codes instead of q . k: a change of
// scaling, temperature or mask without the GEMM. The blocks handed to the sink carry the decoded scores.
// v: [n_head, n_k, d_v] with the codes' n_head and n_k.
bool AttendStreamFromCodes(const ScoreCodes& codes, const Tensor& v, float multiplier, const Mask& mask,
                           const AttendSink& sink, std::vector<HeadMetrics>* metrics, Tensor* z,
                           float softcap = 0.0f);

}  // namespace attnviz
