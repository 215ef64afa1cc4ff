// Seed (d): q . k spreads like sqrt(d_k); its samples, their std and one softmax row unscaled and scaled.
//
// Why divide by sqrt(d_k): q . k of random q and k with unit-variance components has variance
// d_k, so unscaled logits spread like sqrt(d_k) and the softmax piles onto one key; dividing by sqrt(d_k)
// brings the spread back to 1 at every d_k.
#pragma once
#include <cstdint>
#include <vector>

namespace attnviz {

struct DotVariance {
  int d_k = 0;
  std::vector<float> samples;      // [n_samples] q . k of independent random pairs
  double mean = 0, std = 0;        // of the samples (std close to sqrt(d_k))
  double expected_std = 0;         // sqrt(d_k)
  std::vector<float> row_scores;   // [row_keys] one random query against row_keys random keys: q . k_j
  std::vector<float> row_unscaled; // softmax(q . k_j)
  std::vector<float> row_scaled;   // softmax(q . k_j / sqrt(d_k))
};

// Components are standard normal draws fixed by `seed` (the same seed gives the same picture).
// d_k 1..4096, n_samples 2..1e6, row_keys 1..4096; out-of-range values are clamped. Cost: (n_samples +
// row_keys + 1) * d_k draws (far more than a frame's time at large d_k): compute once per d_k, not per frame.
DotVariance SampleDotProducts(int d_k, int n_samples, int row_keys, uint64_t seed);

// counts[b] of the samples in [lo + b*w, lo + (b+1)*w), w = (hi - lo) / bins; samples outside [lo, hi) go
// to the first or last bin (a histogram that hides nothing).
std::vector<int> HistogramCounts(const std::vector<float>& samples, int bins, float lo, float hi);

}  // namespace attnviz
