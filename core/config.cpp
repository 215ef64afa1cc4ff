#include "config.h"

#include <cmath>
#include <sstream>

namespace attnviz {
namespace {

Status OutOfRange(const char* field, long long value, long long lo, long long hi) {
  return Status::Error(std::string(field) + " = " + std::to_string(value) + " is out of range: allowed " +
                       std::to_string(lo) + ".." + std::to_string(hi));
}

std::string ShortNumber(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

float AttentionConfig::logit_multiplier() const {
  double m = scale ? 1.0 / std::sqrt((double)head_dim_k()) : 1.0;
  return (float)(m / temperature);
}

Status Validate(const AttentionConfig& c) {
  if (c.d_model < 1 || c.d_model > kMaxDModel) return OutOfRange("d_model", c.d_model, 1, kMaxDModel);
  if (c.n_head < 1 || c.n_head > kMaxHeads) return OutOfRange("n_head", c.n_head, 1, kMaxHeads);
  if (c.d_k < 0 || c.d_k > kMaxHeadDim) {
    return OutOfRange("d_k", c.d_k, 1, kMaxHeadDim);
  }
  if (c.d_v < 0 || c.d_v > kMaxHeadDim) return OutOfRange("d_v", c.d_v, 1, kMaxHeadDim);
  if (!(c.temperature >= kMinTemperature && c.temperature <= kMaxTemperature)) {
    return Status::Error("temperature = " + ShortNumber(c.temperature) + " is out of range: allowed " +
                         ShortNumber(kMinTemperature) + ".." + ShortNumber(kMaxTemperature) + " (must be > 0)");
  }
  if (c.mask == MaskKind::kCausal && c.mode == AttentionMode::kCross) {
    return Status::Error(
        "mask = causal applies to self-attention only (query i may see keys 0..i of its own sentence); "
        "use mask none in cross mode");
  }
  long long per_head = 2LL * c.head_dim_k() + c.head_dim_v();
  long long floats = (long long)c.d_model * c.n_head * per_head;
  if (floats > kMaxProjectionFloats) {
    return Status::Error("d_model * n_head * (2*d_k + d_v) = " + std::to_string(floats) +
                         " projection weights is too large: allowed up to " +
                         std::to_string(kMaxProjectionFloats) + " (lower d_model, n_head, d_k or d_v)");
  }
  return Status::Ok();
}

const char* ToString(MaskKind mask) { return mask == MaskKind::kCausal ? "causal" : "none"; }
const char* ToString(AttentionMode mode) { return mode == AttentionMode::kCross ? "cross" : "self"; }
const char* ToString(QkvLayout layout) { return layout == QkvLayout::kFused ? "fused" : "separate"; }

Result<MaskKind> ParseMask(const std::string& text) {
  if (text == "none") return MaskKind::kNone;
  if (text == "causal") return MaskKind::kCausal;
  return Status::Error("mask '" + text + "' is unknown: allowed none, causal");
}

Result<QkvLayout> ParseQkvLayout(const std::string& text) {
  if (text == "fused") return QkvLayout::kFused;
  if (text == "separate") return QkvLayout::kSeparate;
  return Status::Error("qkv layout '" + text + "' is unknown: allowed fused, separate");
}

std::string Describe(const AttentionConfig& c) {
  return "d_k=" + std::to_string(c.head_dim_k()) + " · " + (c.scale ? "scaled" : "unscaled") + " · T=" +
         ShortNumber(c.temperature);
}

}  // namespace attnviz
