#include "lessons/dot_variance.h"

#include <algorithm>
#include <cmath>

#include "attention/attention.h"
#include "base/random.h"

namespace attnviz {
namespace {

enum : uint64_t { kStreamQuery = 1, kStreamKey = 2, kStreamRowQuery = 3, kStreamRowKey = 4 };

// q . k of draws from two streams, pair `index`.
float RandomDot(uint64_t seed, uint64_t q_stream, uint64_t q_index, uint64_t k_stream, uint64_t k_index, int d_k) {
  double dot = 0;
  for (int c = 0; c < d_k; ++c)
    dot += (double)NormalAt(seed, q_stream, q_index * d_k + c) * NormalAt(seed, k_stream, k_index * d_k + c);
  return (float)dot;
}

}  // namespace

DotVariance SampleDotProducts(int d_k, int n_samples, int row_keys, uint64_t seed) {
  DotVariance out;
  out.d_k = d_k = std::clamp(d_k, 1, 4096);
  n_samples = std::clamp(n_samples, 2, 1000000);
  row_keys = std::clamp(row_keys, 1, 4096);
  out.samples.resize((size_t)n_samples);
#pragma omp parallel for schedule(static) if ((long long)n_samples * d_k > (1 << 16))
  for (int i = 0; i < n_samples; ++i) out.samples[i] = RandomDot(seed, kStreamQuery, i, kStreamKey, i, d_k);
  double sum = 0, sq = 0;
  for (float s : out.samples) sum += s;
  out.mean = sum / n_samples;
  for (float s : out.samples) sq += (s - out.mean) * (s - out.mean);
  out.std = std::sqrt(sq / (n_samples - 1));
  out.expected_std = std::sqrt((double)d_k);
  // One softmax row with the engine's own softmax (row max subtracted), unscaled and scaled.
  Tensor scores, logits, probs;
  scores.Resize({1, 1, (size_t)row_keys});
  for (int j = 0; j < row_keys; ++j) scores.data[j] = RandomDot(seed, kStreamRowQuery, 0, kStreamRowKey, j, d_k);
  out.row_scores = scores.data;
  LogitsSoftmax(scores, 1.0f, MaskKind::kNone, &logits, &probs);
  out.row_unscaled = probs.data;
  LogitsSoftmax(scores, (float)(1.0 / out.expected_std), MaskKind::kNone, &logits, &probs);
  out.row_scaled = probs.data;
  return out;
}

std::vector<int> HistogramCounts(const std::vector<float>& samples, int bins, float lo, float hi) {
  std::vector<int> counts((size_t)std::max(1, bins), 0);
  const double width = (hi - lo) / (double)counts.size();
  for (float s : samples) {
    const double b = width > 0 ? std::floor((s - lo) / width) : 0;
    counts[(size_t)std::clamp(b, 0.0, (double)counts.size() - 1)] += 1;
  }
  return counts;
}

}  // namespace attnviz
