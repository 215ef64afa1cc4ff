// What a family's config.json reader is made of (arch/<family>.cpp): the Keys reader whose errors name the file,
// the key, the value and the allowed range; the hard limits every family checks against; the keys several
// families share (the activation, rope_scaling). Internal to core/model.
#pragma once
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "base/messages.h"
#include "base/status.h"
#include "model/config.h"
#include "model/json_limits.h"
#include "model/safetensors.h"

namespace attnviz::model {

using json = nlohmann::json;

// Hard limits: far above any real model, low enough that every product of sizes fits comfortably.
constexpr int kMaxLayers = 1024, kMaxHeads = 1024, kMaxWidth = 1 << 17, kMaxVocab = 1 << 24, kMaxPositions = 1 << 24;

// Reads keys of one JSON object with errors that name the file, the key, the value and the allowed range.
class Keys {
 public:
  Keys(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

  Status Int(const char* key, int lo, int hi, int* out, const int* fallback = nullptr) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      if (fallback) {
        *out = *fallback;
        return Status::Ok();
      }
      return Status::ErrorAt(where_, MsgId::kConfigMissingInt, {key, std::to_string(lo), std::to_string(hi)});
    }
    if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi)
      return Status::ErrorAt(where_, MsgId::kConfigNotInt, {key, JsonValueText(*it), std::to_string(lo), std::to_string(hi)});
    *out = (int)it->get<int64_t>();
    return Status::Ok();
  }
  Status IntOr(const char* key, int lo, int hi, int fallback, int* out) const { return Int(key, lo, hi, out, &fallback); }

  Status Double(const char* key, double lo, double hi, double fallback, double* out, bool required = false) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      if (required) return Status::ErrorAt(where_, MsgId::kConfigMissingKey, {key});
      *out = fallback;
      return Status::Ok();
    }
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < lo || it->get<double>() > hi)
      return Status::ErrorAt(where_, MsgId::kConfigNotNumber, {key, JsonValueText(*it), Num(lo), Num(hi)});
    *out = it->get<double>();
    return Status::Ok();
  }

  Status Bool(const char* key, bool fallback, bool* out) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      *out = fallback;
      return Status::Ok();
    }
    if (!it->is_boolean()) return Status::ErrorAt(where_, MsgId::kConfigNotBool, {key, JsonValueText(*it)});
    *out = it->get<bool>();
    return Status::Ok();
  }

  Status String(const char* key, const std::string& fallback, std::string* out) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) {
      *out = fallback;
      return Status::Ok();
    }
    if (!it->is_string()) return Status::ErrorAt(where_, MsgId::kConfigNotString, {key, JsonValueText(*it)});
    *out = it->get<std::string>();
    return Status::Ok();
  }

  const std::string& where() const { return where_; }

 private:
  static std::string Num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
  }
  const json& j_;
  std::string where_;
};

#ifndef ATTNVIZ_TRY
#define ATTNVIZ_TRY(expr)              \
  do {                                 \
    if (Status s_ = (expr); !s_) return s_; \
  } while (0)
#endif

// hidden_act / activation_function: "gelu_new" and its aliases (tanh), "gelu" (erf), "silu"/"swish", "relu".
Status ParseActivation(const Keys& k, const char* key, const std::string& fallback, Activation* out);
// Grouped-query heads (llama, phi3): num_attention_heads, num_key_value_heads (a divisor; default: all),
// hidden_size, head_dim (hidden_size / heads unless given; a hidden_size that heads do not divide needs it).
Status ParseGqaHeads(const Keys& k, const json& j, ModelConfig* c);
// Which layers slide (gemma2/3, qwen3): config.json's layer_types ("sliding_attention" | "full_attention", one per
// layer) when it has them, else `derived` (the family's rule); then *window [n_layer] = `sliding_window` on the sliding
// layers, 0 on the full ones. `sliding` (optional) receives the per-layer flags.
Status ParseLayerTypes(const Keys& k, const json& j, int n_layer, const std::vector<bool>& derived, int sliding_window,
                       std::vector<int>* window, std::vector<bool>* sliding = nullptr);
// The heads as ParseGqaHeads reads them, but head_dim with the family's own default when config.json has none
// (qwen3 128, gemma 256: their config classes' defaults, not hidden_size / heads).
Status ParseHeadsWithHeadDim(const Keys& k, int default_head_dim, ModelConfig* c);
// rope_scaling: null, {"rope_type"|"type": "default" | "linear" | "llama3" | "longrope", ...}.
Status ParseRopeScaling(const json& j, const std::string& where, RopeScaling* r);
// longrope's checks and defaults that need the rest of the config (rope_dim, max_positions): the factor lists'
// lengths, factor and attention_factor as HF works them out. Nothing for the other kinds. ParseModelConfig calls it
// after the family's reader.
Status FinishLongRope(const std::string& where, const ModelConfig& c, RopeScaling* r);

}  // namespace attnviz::model
