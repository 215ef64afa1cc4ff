// AttentionConfig: every knob of one attention layer, and its validation.
#pragma once
#include <cstdint>
#include <string>

#include "status.h"

namespace attnviz {

enum class MaskKind { kNone, kCausal };
enum class AttentionMode { kSelf, kCross };
enum class QkvLayout { kFused, kSeparate };

struct AttentionConfig {
  int d_model = 64;           // embedding width, 1..4096
  int n_head = 4;             // heads, 1..64
  int d_k = 0;                // query/key width per head, 1..4096; 0 = d_model / n_head
  int d_v = 0;                // value width per head, 1..4096; 0 = d_k
  bool scale = true;          // divide logits by sqrt(d_k)
  float temperature = 1.0f;   // logits divided by it; kMinTemperature..kMaxTemperature
  MaskKind mask = MaskKind::kNone;
  AttentionMode mode = AttentionMode::kSelf;
  uint64_t seed = 0;          // embeddings and weight init
  bool positional = true;     // add sinusoidal positions to the embeddings
  QkvLayout qkv = QkvLayout::kFused;

  // d_k and d_v after defaults are applied.
  int head_dim_k() const { return d_k > 0 ? d_k : (d_model / n_head > 0 ? d_model / n_head : 1); }
  int head_dim_v() const { return d_v > 0 ? d_v : head_dim_k(); }
  // The multiplier applied to q.k: (scale ? 1/sqrt(d_k) : 1) / temperature.
  float logit_multiplier() const;
};

constexpr int kMaxDModel = 4096;
constexpr int kMaxHeads = 64;
constexpr int kMaxHeadDim = 4096;
constexpr float kMinTemperature = 1e-6f;
constexpr float kMaxTemperature = 1e6f;
// Largest projection matrix allowed (floats): d_model * n_head * (2*d_k + d_v).
constexpr long long kMaxProjectionFloats = 1LL << 28;

// Names the field, the value and the allowed range, e.g.
// "n_head = 0 is out of range: allowed 1..64".
Status Validate(const AttentionConfig& config);

const char* ToString(MaskKind mask);
const char* ToString(AttentionMode mode);
const char* ToString(QkvLayout layout);
Result<MaskKind> ParseMask(const std::string& text);
Result<QkvLayout> ParseQkvLayout(const std::string& text);

// Short human description, e.g. "d_k=512 · unscaled · T=1".
std::string Describe(const AttentionConfig& config);

}  // namespace attnviz
