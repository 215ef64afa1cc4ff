#include "sandbox/embedding.h"

#include <cmath>

#include "base/random.h"

namespace attnviz {

void SinusoidalPosition(int position, int d_model, float* pe) {
  // PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d))
  for (int c = 0; c < d_model; ++c) {
    int i2 = c - (c % 2);
    double angle = position / std::pow(10000.0, (double)i2 / d_model);
    pe[c] = (float)((c % 2 == 0) ? std::sin(angle) : std::cos(angle));
  }
}

void Embed(const std::vector<Token>& tokens, int d_model, uint64_t seed, bool positional, Tensor* x) {
  const size_t n = tokens.size();
  x->Resize({n, (size_t)d_model});
  // Token vectors are N(0, 1) per component; sinusoids have variance 1/2 on average, so the sum
  // is divided by sqrt(1.5) to keep each component at unit variance.
  const float rescale = positional ? (float)(1.0 / std::sqrt(1.5)) : 1.0f;
  // Rows in parallel: each value is a function of (token, position) alone, so the bits do not depend on it.
#pragma omp parallel if (n * (size_t)d_model > (1u << 16))
  {
  std::vector<float> pe(d_model);
#pragma omp for schedule(static)
  for (long long ii = 0; ii < (long long)n; ++ii) {
    const size_t i = (size_t)ii;
    float* row = x->data.data() + i * d_model;
    const uint64_t token_stream = HashBytes(tokens[i].display);
    for (int c = 0; c < d_model; ++c) row[c] = NormalAt(seed, token_stream, (uint64_t)c);
    if (positional) {
      SinusoidalPosition((int)i, d_model, pe.data());
      for (int c = 0; c < d_model; ++c) row[c] = (row[c] + pe[c]) * rescale;
    }
  }
  }
}

}  // namespace attnviz
