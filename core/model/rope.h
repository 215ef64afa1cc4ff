// Rotary position embeddings as Hugging Face's llama/qwen2/mistral apply them.
//
// Dimension glossary: n tokens, d_head per-head width, rot = rope_dim (the rotated dims: d_head, or the first
// rotary_dim of each head with partial rotary), half = rot / 2.
//   inv_freq[j] = 1 / theta^(2j / rot) (float32, as HF), j < half, then rope_scaling:
//     linear: inv_freq / factor
//     llama3 (HF _compute_llama3_parameters): wavelen = 2 pi / inv_freq;
//       wavelen > old_ctx / low_freq_factor  -> inv_freq / factor          (low frequencies)
//       wavelen < old_ctx / high_freq_factor -> inv_freq                   (high frequencies)
//       otherwise s = (old_ctx / wavelen - low) / (high - low); (1 - s) inv_freq / factor + s inv_freq
//     per-frequency factors (GGUF rope_freqs.weight, llama.cpp's form of llama3): inv_freq[j] / factor[j]
//     longrope (HF _compute_longrope_parameters): 1 / (ext[j] theta^(2j / rot)), ext = long_factor when the run has
//       more than original_max_position_embeddings tokens, else short_factor; cos and sin times attention_factor
//   angle(pos, j) = pos * inv_freq[j] rounded to float32 as HF does; cos/sin tables [n, half]
//   !! rotate_half pairs element j with element j + half of the same head (not adjacent pairs as in the paper):
//     out[j]        = x[j] cos - x[j + half] sin
//     out[j + half] = x[j + half] cos + x[j] sin
//   partial rotary: dims rot..d_head-1 of each head pass through unchanged.
#pragma once
#include <vector>

#include "model/config.h"

namespace attnviz::model {

// inv_freq: [rope_dim / 2] for a run of `n_tokens` tokens (longrope picks its factors by it; 0: the short ones)
std::vector<double> RopeInvFreq(const ModelConfig& c, int n_tokens = 0);
// cos, sin: [n, inv_freq.size()] for positions 0..n-1, times `attention_factor` (longrope)
void RopeTables(const std::vector<double>& inv_freq, int n, std::vector<float>* cos, std::vector<float>* sin,
                float attention_factor = 1.0f);
// The tables of a run of n tokens as the config says (inv_freq for n, longrope's attention factor). local: the tables
// of the local base instead (gemma3's sliding layers: rope_local_theta, no rope_scaling).
void RopeTablesFor(const ModelConfig& c, int n, std::vector<float>* cos, std::vector<float>* sin, bool local = false);
// The tables layer `layer` turns by (the local base's for ModelConfig::LocalRope layers).
inline void RopeTablesOfLayer(const ModelConfig& c, int layer, int n, std::vector<float>* cos, std::vector<float>* sin) {
  RopeTablesFor(c, n, cos, sin, c.LocalRope(layer));
}
// x: [n, n_heads * d_head] with row stride ld; every head rotated in place.
void ApplyRope(float* x, int ld, int n, int n_heads, int d_head, const float* cos, const float* sin);
// The same on the first rotary_dim dims of each head (cos, sin: [n, rotary_dim / 2]); the rest pass through.
void ApplyRope(float* x, int ld, int n, int n_heads, int d_head, int rotary_dim, const float* cos, const float* sin);

}  // namespace attnviz::model
