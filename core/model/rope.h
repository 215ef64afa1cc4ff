// Rotary position embeddings as Hugging Face's llama/qwen2/mistral apply them.
//
// Dimension glossary: n tokens, d_head per-head width, half = d_head / 2.
//   inv_freq[j] = 1 / theta^(2j / d_head) (float32, as HF), j < half, then rope_scaling:
//     linear: inv_freq / factor
//     llama3 (HF _compute_llama3_parameters): wavelen = 2 pi / inv_freq;
//       wavelen > old_ctx / low_freq_factor  -> inv_freq / factor          (low frequencies)
//       wavelen < old_ctx / high_freq_factor -> inv_freq                   (high frequencies)
//       otherwise s = (old_ctx / wavelen - low) / (high - low); (1 - s) inv_freq / factor + s inv_freq
//     per-frequency factors (GGUF rope_freqs.weight, llama.cpp's form of llama3): inv_freq[j] / factor[j]
//   angle(pos, j) = pos * inv_freq[j] rounded to float32 as HF does; cos/sin tables [n, half]
//   !! rotate_half pairs element j with element j + half of the same head (not adjacent pairs as in the paper):
//     out[j]        = x[j] cos - x[j + half] sin
//     out[j + half] = x[j + half] cos + x[j] sin
#pragma once
#include <vector>

#include "model/config.h"

namespace attnviz::model {

// inv_freq: [d_head / 2]
std::vector<double> RopeInvFreq(const ModelConfig& c);
// cos, sin: [n, d_head / 2] for positions 0..n-1
void RopeTables(const std::vector<double>& inv_freq, int n, std::vector<float>* cos, std::vector<float>* sin);
// x: [n, n_heads * d_head] with row stride ld; every head rotated in place.
void ApplyRope(float* x, int ld, int n, int n_heads, int d_head, const float* cos, const float* sin);

}  // namespace attnviz::model
