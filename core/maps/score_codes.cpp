#include "maps/score_codes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/check.h"

namespace attnviz {
namespace {
void CheckRows(const ScoreCodes& c, int head, size_t r0, size_t rows) {
  ATTNVIZ_CHECK_SHAPE(head >= 0 && (size_t)head < c.n_head && r0 + rows <= c.n_q,
                      "rows " + std::to_string(r0) + "+" + std::to_string(rows) + " of head " + std::to_string(head) +
                          " in codes [" + std::to_string(c.n_head) + ", " + std::to_string(c.n_q) + ", " +
                          std::to_string(c.n_k) + "]");
}
}  // namespace

void ScoreCodes::Reset(size_t heads, size_t rows, size_t cols) {
  q.reset();
  k.reset();
  n_head = heads, n_q = rows, n_k = cols;
  codes.resize(heads * rows * cols);  // PoolAllocator: no zero fill, every code is written by a pass
  lo.assign(heads * rows, 0.0f);
  step.assign(heads * rows, 0.0f);
}

void ScoreCodes::Clear() {
  Reset(0, 0, 0);
  codes.shrink_to_fit();
  lo.shrink_to_fit();
  step.shrink_to_fit();
}

bool ScoreCodes::MadeFrom(const Tensor& q_now, const Tensor& k_now) const {
  if (!q || !k) return false;
  auto same = [](const Tensor& a, const Tensor& b) {
    return &a == &b || (a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(), a.size() * sizeof(float)) == 0);
  };
  return same(*q, q_now) && same(*k, k_now);
}

bool EncodeScoreRows(const float* scores, int head, size_t r0, size_t rows, ScoreCodes* c) {
  CheckRows(*c, head, r0, rows);
  const size_t n_k = c->n_k;
  for (size_t r = 0; r < rows; ++r) {
    const float* s = scores + r * n_k;
    const size_t row = (size_t)head * c->n_q + r0 + r;
    float lo = s[0], hi = s[0];
    for (size_t j = 1; j < n_k; ++j) lo = std::min(lo, s[j]), hi = std::max(hi, s[j]);
    if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(hi - lo)) return false;
    const float step = (hi - lo) / 65535.0f;
    const float inv = step > 0 ? 1.0f / step : 0.0f;
    uint16_t* out = c->codes.data() + row * n_k;
    for (size_t j = 0; j < n_k; ++j) {  // round to nearest; (s - lo) * inv is in [0, 65535] up to rounding
      const float x = std::min((s[j] - lo) * inv + 0.5f, 65535.0f);
      out[j] = (uint16_t)(int)x;
    }
    c->lo[row] = lo;
    c->step[row] = step;
  }
  return true;
}

void DecodeScoreRows(const ScoreCodes& c, int head, size_t r0, size_t rows, float* out) {
  CheckRows(c, head, r0, rows);
  const size_t n_k = c.n_k;
  for (size_t r = 0; r < rows; ++r) {
    const size_t row = (size_t)head * c.n_q + r0 + r;
    const uint16_t* in = c.codes.data() + row * n_k;
    const float lo = c.lo[row], step = c.step[row];
    float* o = out + r * n_k;
    for (size_t j = 0; j < n_k; ++j) o[j] = lo + step * (float)in[j];
  }
}

bool AttendStreamFromCodes(const ScoreCodes& codes, const Tensor& v, float multiplier, const Mask& mask,
                           const AttendSink& sink, std::vector<HeadMetrics>* metrics, Tensor* z, float softcap) {
  ATTNVIZ_CHECK_SHAPE(v.shape.size() == 3 && v.dim(0) == codes.n_head && v.dim(1) == codes.n_k,
                      "codes [" + std::to_string(codes.n_head) + ", " + std::to_string(codes.n_q) + ", " +
                          std::to_string(codes.n_k) + "] vs v " + ShapeString(v.shape) +
                          " (keys and values come in pairs)");
  const ScoreRowsFill decode = [&codes](int head, size_t r0, size_t rows, float* scores) {
    DecodeScoreRows(codes, head, r0, rows, scores);
  };
  return AttendStreamFromScores(decode, codes.n_head, codes.n_q, codes.n_k, v, multiplier, mask, sink, metrics, z,
                                softcap);
}

}  // namespace attnviz
