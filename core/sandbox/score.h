// The score functions of seed (f): how well query i matches key j, scores [n_head, n_q, n_k].
//   scaled-dot    q . k            (the logit multiplier divides by sqrt(d_k): config.h logit_multiplier)
//   dot           q . k            (never scaled)
//   additive      v^T tanh(W_q q + W_k k)   (Bahdanau 2015; W_q, W_k [d_a, d_k], v [d_a] per head)
//   cosine        q . k / (|q| |k|)        (0 when q or k is the zero vector, never NaN)
//   neg-distance  -|q - k|                 (Euclidean; 0 for a perfect match, below 0 otherwise)
// Every score needs q and k of one width d_k (qkv_source.h refuses a mismatch before this runs).
#pragma once
#include <cstdint>

#include "sandbox/config.h"
#include "base/tensor.h"

namespace attnviz {

// The dot scores run in the fused attention kernel (attention.h) from q and k, in any mode; the others
// are computed here into a kept score map first.
inline bool IsDotScore(ScoreKind score) { return score == ScoreKind::kScaledDot || score == ScoreKind::kDot; }

// The score as the screen writes it (math, the same in every language): "q·k" for both dot scores (the
// scaled one's 1/sqrt(d_k) is the logit multiplier's), "vᵀ tanh(W_q q + W_k k)", "q·k / (|q| |k|)",
// "−|q − k|". Labels that name a score use it, so a -|q-k| run never reads "q kᵀ".
const char* ScoreFormula(ScoreKind score);

// The additive score's hidden width d_a.
constexpr int kAdditiveWidth = 16;
// The additive score's weights: w_q, w_k [n_head, d_a, d_k], v [n_head, d_a].
struct AdditiveWeights {
  Tensor w_q, w_k, v;
};
// Random from `seed` (the sandbox's params are random too): W_q, W_k entries N(0, 1/d_k), so W q has unit
// variance for unit-variance q; v entries N(0, 1/d_a).
void DrawAdditiveWeights(uint64_t seed, int n_head, int d_k, AdditiveWeights* weights);

// scores [n_head, n_q, n_k] of q [n_head, n_q, d_k] against k [n_head, n_k, d_k]. additive: the weights
// of ScoreKind::kAdditive (ignored, may be null, for the other scores).
void ScoreMatrix(ScoreKind score, const Tensor& q, const Tensor& k, const AdditiveWeights* additive, Tensor* scores);

}  // namespace attnviz
