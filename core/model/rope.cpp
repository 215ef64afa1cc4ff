#include "model/rope.h"

#include "base/check.h"

#include <cmath>

namespace attnviz::model {

std::vector<double> RopeInvFreq(const ModelConfig& c, int n_tokens) {
  const int rot = c.rope_dim(), half = rot / 2;
  std::vector<double> inv(half);
  const RopeScaling& r = c.rope_scaling;
  // 1. Default, in float32 as HF computes it: 1 / theta ** (float(2j) / rot); longrope: 1 / (ext[j] * theta ** ...).
  const bool long_rope = r.kind == RopeScaling::Kind::kLongRope;
  const std::vector<double>& ext = n_tokens > r.original_max_position_embeddings ? r.long_factor : r.short_factor;
  if (long_rope)
    ATTNVIZ_CHECK_SHAPE((int)ext.size() == half, "longrope factors [", ext.size(), "] for ", rot, " rotary dims");
  for (int j = 0; j < half; ++j) {
    const float e = (float)(2 * j) / (float)rot;
    const float p = std::pow((float)c.rope_theta, e);
    inv[j] = long_rope ? (double)(1.0f / ((float)ext[j] * p)) : (double)(1.0f / p);
  }
  // 2. Scaling.
  if (r.kind == RopeScaling::Kind::kLinear) {
    for (double& f : inv) f /= r.factor;
  } else if (r.kind == RopeScaling::Kind::kLlama3) {
    const double old_ctx = r.original_max_position_embeddings;
    const double low_wavelen = old_ctx / r.low_freq_factor, high_wavelen = old_ctx / r.high_freq_factor;
    for (double& f : inv) {
      const double wavelen = 2 * M_PI / f;
      if (wavelen > low_wavelen) {
        f = f / r.factor;
      } else if (wavelen >= high_wavelen) {  // medium: smooth interpolation
        const double s = (old_ctx / wavelen - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
        f = (1 - s) * f / r.factor + s * f;
      }
    }
  }
  // 3. Per-frequency factors (GGUF rope_freqs.weight).
  if (!r.freq_factors.empty()) {
    ATTNVIZ_CHECK_SHAPE((int)r.freq_factors.size() == half, "frequency factors [", r.freq_factors.size(), "] for a head of ",
                        c.d_head);
    for (int j = 0; j < half; ++j) inv[j] /= r.freq_factors[j];
  }
  return inv;
}

void RopeTables(const std::vector<double>& inv_freq, int n, std::vector<float>* cos, std::vector<float>* sin,
                float attention_factor) {
  const size_t half = inv_freq.size();
  cos->resize((size_t)n * half);
  sin->resize((size_t)n * half);
  for (size_t j = 0; j < half; ++j) {
    const float f = (float)inv_freq[j];
    for (int p = 0; p < n; ++p) {
      // !! The angle is rounded to float32 as in HF (inv_freq_f32 * float(pos)): at long positions this rounding
      // moves cos/sin by up to ~1e-4, and matching it keeps the maps within float noise of HF's.
      const float a = f * (float)p;
      (*cos)[p * half + j] = (float)std::cos((double)a) * attention_factor;
      (*sin)[p * half + j] = (float)std::sin((double)a) * attention_factor;
    }
  }
}

void RopeTablesFor(const ModelConfig& c, int n, std::vector<float>* cos, std::vector<float>* sin, bool local) {
  if (local) {  // modeling_gemma3.py's rotary_emb_local: the local base, default rope (no scaling)
    ModelConfig plain;
    plain.d_head = c.d_head, plain.rotary_dim = c.rotary_dim, plain.rope_theta = c.rope_local_theta;
    RopeTables(RopeInvFreq(plain, n), n, cos, sin);
    return;
  }
  const bool long_rope = c.rope_scaling.kind == RopeScaling::Kind::kLongRope;
  RopeTables(RopeInvFreq(c, n), n, cos, sin, long_rope ? (float)c.rope_scaling.attention_factor : 1.0f);
}

void ApplyRope(float* x, int ld, int n, int n_heads, int d_head, const float* cos, const float* sin) {
  ApplyRope(x, ld, n, n_heads, d_head, d_head, cos, sin);
}

void ApplyRope(float* x, int ld, int n, int n_heads, int d_head, int rotary_dim, const float* cos, const float* sin) {
  ATTNVIZ_CHECK_SHAPE(d_head > 0 && rotary_dim > 0 && rotary_dim % 2 == 0 && rotary_dim <= d_head &&
                          ld >= n_heads * d_head,
                      "x [", n, ", ", n_heads, " x ", d_head, "] with a row stride of ", ld, ", ", rotary_dim,
                      " rotary dims");
  const int half = rotary_dim / 2;
#pragma omp parallel for schedule(static) if (n > 16)
  for (int p = 0; p < n; ++p) {
    const float* c = cos + (size_t)p * half;
    const float* s = sin + (size_t)p * half;
    for (int h = 0; h < n_heads; ++h) {
      float* v = x + (size_t)p * ld + (size_t)h * d_head;
      for (int j = 0; j < half; ++j) {
        const float a = v[j], b = v[j + half];
        v[j] = a * c[j] - b * s[j];
        v[j + half] = b * c[j] + a * s[j];
      }
    }
  }
}

}  // namespace attnviz::model
