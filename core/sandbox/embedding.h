// Token embeddings: deterministic from (token text, seed), plus sinusoidal positions.
#pragma once
#include <cstdint>
#include <vector>

#include "base/tensor.h"
#include "sandbox/text.h"

namespace attnviz {

// x: [n, d_model]. Row i = unit-variance vector of tokens[i].display under `seed`
// (the same token gets the same vector in every sentence and run), plus, if positional,
// the sinusoidal encoding of position i; the sum is rescaled so each component has unit variance.
void Embed(const std::vector<Token>& tokens, int d_model, uint64_t seed, bool positional, Tensor* x);

// pe: the sinusoidal positional encoding of `position` (Vaswani et al. 2017), d_model values.
void SinusoidalPosition(int position, int d_model, float* pe);

}  // namespace attnviz
