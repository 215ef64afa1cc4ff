#include "sandbox/score.h"

#include <cmath>

#include "attention/attention.h"
#include "base/check.h"
#include "base/random.h"

namespace attnviz {

const char* ScoreFormula(ScoreKind score) {
  switch (score) {
    case ScoreKind::kScaledDot:
    case ScoreKind::kDot: return "q\u00B7k";
    case ScoreKind::kAdditive: return "v\u1D40 tanh(W_q q + W_k k)";
    case ScoreKind::kCosine: return "q\u00B7k / (|q| |k|)";
    case ScoreKind::kNegDistance: return "\u2212|q \u2212 k|";
  }
  return "?";
}

namespace {

enum : uint64_t { kStreamAdditiveQ = 101, kStreamAdditiveK = 102, kStreamAdditiveV = 103 };

void FillNormal(uint64_t seed, uint64_t stream, float stddev, Tensor* t) {
  for (size_t i = 0; i < t->size(); ++i) t->data[i] = stddev * NormalAt(seed, stream, i);
}

// scores of one head: [n_q, n_k] from q [n_q, d], k [n_k, d].
template <typename PairScore>
void PairScores(const Tensor& q, const Tensor& k, Tensor* scores, PairScore pair) {
  const size_t n_head = q.dim(0), n_q = q.dim(1), n_k = k.dim(1), d = q.dim(2);
#pragma omp parallel for collapse(2) schedule(static) if (n_head * n_q * n_k * d > (1u << 18))
  for (long long h = 0; h < (long long)n_head; ++h) {
    for (long long i = 0; i < (long long)n_q; ++i) {
      const float* qi = q.data.data() + ((size_t)h * n_q + i) * d;
      float* row = scores->data.data() + ((size_t)h * n_q + i) * n_k;
      for (size_t j = 0; j < n_k; ++j) row[j] = pair(qi, k.data.data() + ((size_t)h * n_k + j) * d, d);
    }
  }
}

}  // namespace

void DrawAdditiveWeights(uint64_t seed, int n_head, int d_k, AdditiveWeights* w) {
  w->w_q.Resize({(size_t)n_head, (size_t)kAdditiveWidth, (size_t)d_k});
  w->w_k.Resize({(size_t)n_head, (size_t)kAdditiveWidth, (size_t)d_k});
  w->v.Resize({(size_t)n_head, (size_t)kAdditiveWidth});
  FillNormal(seed, kStreamAdditiveQ, (float)(1.0 / std::sqrt((double)d_k)), &w->w_q);
  FillNormal(seed, kStreamAdditiveK, (float)(1.0 / std::sqrt((double)d_k)), &w->w_k);
  FillNormal(seed, kStreamAdditiveV, (float)(1.0 / std::sqrt((double)kAdditiveWidth)), &w->v);
}

void ScoreMatrix(ScoreKind score, const Tensor& q, const Tensor& k, const AdditiveWeights* additive, Tensor* scores) {
  ATTNVIZ_CHECK_SHAPE(q.shape.size() == 3 && k.shape.size() == 3 && q.dim(0) == k.dim(0) && q.dim(2) == k.dim(2),
                      "q " + ShapeString(q.shape) + " vs k " + ShapeString(k.shape));
  if (IsDotScore(score)) return Scores(q, k, scores);
  const size_t n_head = q.dim(0), n_q = q.dim(1), n_k = k.dim(1), d = q.dim(2);
  scores->Resize({n_head, n_q, n_k});
  switch (score) {
    case ScoreKind::kCosine:
      PairScores(q, k, scores, [](const float* a, const float* b, size_t n) {
        double ab = 0, aa = 0, bb = 0;
        for (size_t c = 0; c < n; ++c) ab += (double)a[c] * b[c], aa += (double)a[c] * a[c], bb += (double)b[c] * b[c];
        return aa > 0 && bb > 0 ? (float)(ab / std::sqrt(aa * bb)) : 0.0f;
      });
      return;
    case ScoreKind::kNegDistance:
      PairScores(q, k, scores, [](const float* a, const float* b, size_t n) {
        double sq = 0;
        for (size_t c = 0; c < n; ++c) sq += ((double)a[c] - b[c]) * ((double)a[c] - b[c]);
        return (float)-std::sqrt(sq);
      });
      return;
    case ScoreKind::kAdditive: {
      ATTNVIZ_CHECK_SHAPE(additive && additive->w_q.dim(0) == n_head && additive->w_q.dim(2) == d &&
                              additive->w_k.shape == additive->w_q.shape,
                          "q " + ShapeString(q.shape) + " vs additive weights " +
                              (additive ? ShapeString(additive->w_q.shape) : std::string("(none)")));
      const size_t d_a = additive->w_q.dim(1);
      for (size_t h = 0; h < n_head; ++h) {
        // a [n_q, d_a] = q W_q^T, b [n_k, d_a] = k W_k^T; score_ij = sum_a v_a tanh(a_ia + b_ja)
        const RowMatrix a = q.Slice(h) * additive->w_q.Slice(h).transpose();
        const RowMatrix b = k.Slice(h) * additive->w_k.Slice(h).transpose();
        const float* v = additive->v.data.data() + h * d_a;
        RowMap out = scores->Slice(h);
        for (size_t i = 0; i < n_q; ++i)
          for (size_t j = 0; j < n_k; ++j) {
            double s = 0;
            for (size_t c = 0; c < d_a; ++c) s += (double)v[c] * std::tanh((double)a(i, c) + b(j, c));
            out(i, j) = (float)s;
          }
      }
      return;
    }
    case ScoreKind::kScaledDot:
    case ScoreKind::kDot:
      break;
  }
}

}  // namespace attnviz
