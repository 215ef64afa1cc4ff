#include "model/config.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/json_limits.h"
#include "model/safetensors.h"

namespace attnviz::model {
namespace {

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

#define ATTNVIZ_TRY(expr)              \
  do {                                 \
    if (Status s_ = (expr); !s_) return s_; \
  } while (0)

Status ParseActivation(const Keys& k, const char* key, const std::string& fallback, Activation* out) {
  std::string a;
  ATTNVIZ_TRY(k.String(key, fallback, &a));
  if (a == "gelu_new" || a == "gelu_pytorch_tanh" || a == "gelu_fast")
    *out = Activation::kGeluTanh;
  else if (a == "gelu")
    *out = Activation::kGeluErf;
  else if (a == "silu" || a == "swish")
    *out = Activation::kSilu;
  else if (a == "relu")
    *out = Activation::kRelu;
  else
    return Status::ErrorAt(k.where(), MsgId::kConfigActivation, {key, CappedValue(a)});
  return Status::Ok();
}

Status ParseGpt2(const Keys& k, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("n_layer", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(k.Int("n_head", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.Int("n_embd", 1, kMaxWidth, &c->d_model));
  ATTNVIZ_TRY(k.IntOr("n_inner", 1, 16 * kMaxWidth, 4 * c->d_model, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  int n_ctx = 1024;
  ATTNVIZ_TRY(k.IntOr("n_ctx", 1, kMaxPositions, 1024, &n_ctx));  // old configs
  ATTNVIZ_TRY(k.IntOr("n_positions", 1, kMaxPositions, n_ctx, &c->max_positions));
  ATTNVIZ_TRY(k.Double("layer_norm_epsilon", 0, 1, 1e-5, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "activation_function", "gelu_new", &c->activation));
  ATTNVIZ_TRY(k.Bool("scale_attn_weights", true, &c->scale_attn));
  ATTNVIZ_TRY(k.Bool("scale_attn_by_inverse_layer_idx", false, &c->scale_by_inverse_layer_idx));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", true, &c->tie_word_embeddings));
  if (c->d_model % c->n_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple,
                           {"n_embd", std::to_string(c->d_model), "n_head", std::to_string(c->n_head)});
  c->n_kv_head = c->n_head;
  c->d_head = c->d_model / c->n_head;
  return Status::Ok();
}

Status ParseBert(const Keys& k, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(k.Int("num_attention_heads", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.Int("hidden_size", 1, kMaxWidth, &c->d_model));
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 512, &c->max_positions));
  ATTNVIZ_TRY(k.IntOr("type_vocab_size", 0, kMaxVocab, 2, &c->type_vocab_size));
  ATTNVIZ_TRY(k.Double("layer_norm_eps", 0, 1, 1e-12, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "gelu", &c->activation));
  std::string pe;
  ATTNVIZ_TRY(k.String("position_embedding_type", "absolute", &pe));
  if (pe != "absolute")
    return Status::ErrorAt(k.where(), MsgId::kConfigPositionEmbedding, {CappedValue(pe)});
  if (c->d_model % c->n_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple, {"hidden_size", std::to_string(c->d_model),
                                                                  "num_attention_heads", std::to_string(c->n_head)});
  c->n_kv_head = c->n_head;
  c->d_head = c->d_model / c->n_head;
  c->tie_word_embeddings = true;
  return Status::Ok();
}

Status ParseRopeScaling(const json& j, const std::string& where, RopeScaling* r) {
  auto it = j.find("rope_scaling");
  if (it == j.end() || it->is_null()) return Status::Ok();
  const std::string w = where + " rope_scaling";
  if (!it->is_object()) return Status::Error(MsgId::kConfigRopeScalingForm, {where});
  std::string type;
  for (const char* key : {"rope_type", "type"}) {
    auto t = it->find(key);
    if (t != it->end() && t->is_string()) {
      type = t->get<std::string>();
      break;
    }
  }
  if (type.empty()) return Status::ErrorAt(w, MsgId::kConfigRopeTypeMissing, {});
  const Keys k(*it, w);
  if (type == "default") return Status::Ok();
  if (type == "linear") {
    r->kind = RopeScaling::Kind::kLinear;
    return k.Double("factor", 1e-6, 1e6, 1, &r->factor, /*required=*/true);
  }
  if (type == "llama3") {
    r->kind = RopeScaling::Kind::kLlama3;
    ATTNVIZ_TRY(k.Double("factor", 1e-6, 1e6, 1, &r->factor, true));
    ATTNVIZ_TRY(k.Double("low_freq_factor", 1e-6, 1e6, 1, &r->low_freq_factor, true));
    ATTNVIZ_TRY(k.Double("high_freq_factor", 1e-6, 1e6, 4, &r->high_freq_factor, true));
    ATTNVIZ_TRY(k.Int("original_max_position_embeddings", 1, kMaxPositions, &r->original_max_position_embeddings));
    if (!(r->high_freq_factor > r->low_freq_factor))
      return Status::ErrorAt(w, MsgId::kConfigRopeFreqOrder, {});
    return Status::Ok();
  }
  return Status::ErrorAt(w, MsgId::kConfigRopeType, {CappedValue(type)});
}

Status ParseLlamaFamily(const Keys& k, const json& j, ModelConfig* c) {
  const bool qwen2 = c->model_type == "qwen2", mistral = c->model_type == "mistral";
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(k.Int("num_attention_heads", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.IntOr("num_key_value_heads", 1, c->n_head, c->n_head, &c->n_kv_head));
  ATTNVIZ_TRY(k.Int("hidden_size", 1, kMaxWidth, &c->d_model));
  if (c->n_head % c->n_kv_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple, {"num_attention_heads", std::to_string(c->n_head),
                                                                  "num_key_value_heads", std::to_string(c->n_kv_head)});
  const int default_head = c->d_model / c->n_head;
  if (default_head * c->n_head != c->d_model && j.find("head_dim") == j.end())
    return Status::ErrorAt(k.where(), MsgId::kConfigNoHeadDim, {std::to_string(c->d_model), std::to_string(c->n_head)});
  ATTNVIZ_TRY(k.IntOr("head_dim", 1, kMaxWidth, default_head, &c->d_head));
  if (c->d_head % 2 != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigHeadDimOdd, {std::to_string(c->d_head)});
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 2048, &c->max_positions));
  ATTNVIZ_TRY(k.Double("rms_norm_eps", 0, 1, 1e-6, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "silu", &c->activation));
  ATTNVIZ_TRY(k.Double("rope_theta", 1e-6, 1e12, 10000.0, &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", false, &c->tie_word_embeddings));
  if (qwen2) {
    c->qkv_bias = true;  // Qwen2Attention: q/k/v with bias, o_proj without
    bool sliding = false;
    ATTNVIZ_TRY(k.Bool("use_sliding_window", false, &sliding));
    if (sliding)
      return Status::ErrorAt(k.where(), MsgId::kConfigSlidingWindow, {});
  } else if (mistral) {
    ATTNVIZ_TRY(k.IntOr("sliding_window", 1, kMaxPositions, 0, &c->sliding_window));
  } else {
    bool bias = false;
    ATTNVIZ_TRY(k.Bool("attention_bias", false, &bias));
    c->qkv_bias = c->o_bias = bias;
    ATTNVIZ_TRY(k.Bool("mlp_bias", false, &c->mlp_bias));
  }
  return Status::Ok();
}

}  // namespace

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kGeluTanh: return "gelu (tanh approximation)";
    case Activation::kGeluErf: return "gelu (erf)";
    case Activation::kSilu: return "silu";
    case Activation::kRelu: return "relu";
  }
  return "?";
}

std::string ModelConfig::Describe() const {
  std::string s = model_type + ": " + std::to_string(n_layer) + " layers, " + std::to_string(n_head) + " heads x " +
                  std::to_string(d_head);
  if (n_kv_head != n_head) s += " (" + std::to_string(n_kv_head) + " key/value heads)";
  s += ", d_model " + std::to_string(d_model) + ", d_ff " + std::to_string(d_ff) + ", vocab " +
       std::to_string(vocab) + ", " + std::to_string(max_positions) + " positions, " + ActivationName(activation);
  if (arch == Arch::kLlama) {
    char b[64];
    std::snprintf(b, sizeof b, ", rope theta %g", rope_theta);
    s += b;
    if (rope_scaling.kind == RopeScaling::Kind::kLinear) s += " (linear scaling)";
    if (rope_scaling.kind == RopeScaling::Kind::kLlama3) s += " (llama3 scaling)";
    if (!rope_scaling.freq_factors.empty()) s += " (per-frequency factors)";
    if (sliding_window) s += ", sliding window " + std::to_string(sliding_window);
  }
  return s;
}

Result<ModelConfig> ParseModelConfig(const std::string& text, const std::string& where) {
  json j;
  if (Status s = ParseJsonBounded(text.data(), text.data() + text.size(), where, &j); !s) return s;
  if (!j.is_object()) return Status::ErrorAt(where, MsgId::kMustBeJsonObject, {});
  ModelConfig c;
  const Keys k(j, where);
  auto mt = j.find("model_type");
  if (mt == j.end() || !mt->is_string())
    return Status::ErrorAt(where, MsgId::kConfigNoModelType, {});
  c.model_type = mt->get<std::string>();
  Status s;
  if (c.model_type == "gpt2") {
    c.arch = Arch::kGpt2;
    s = ParseGpt2(k, &c);
  } else if (c.model_type == "bert") {
    c.arch = Arch::kBert;
    s = ParseBert(k, &c);
  } else if (c.model_type == "llama" || c.model_type == "qwen2" || c.model_type == "mistral") {
    c.arch = Arch::kLlama;
    s = ParseLlamaFamily(k, j, &c);
  } else {
    return Status::ErrorAt(where, MsgId::kConfigModelType, {CappedValue(c.model_type)});
  }
  if (!s) return s;
  // Sizes the run multiplies together stay far from overflow.
  if ((int64_t)c.n_head * c.d_head > kMaxWidth || (int64_t)c.n_kv_head * c.d_head > kMaxWidth)
    return Status::ErrorAt(where, MsgId::kConfigHeadsTooWide,
                           {std::to_string((int64_t)c.n_head * c.d_head), std::to_string(kMaxWidth)});
  return c;
}

Result<ModelConfig> ReadModelConfig(const std::string& path) {
  auto map = MappedFile::Open(path);
  if (!map) return map.status();
  if ((*map)->size() > (16u << 20)) return Status::ErrorAt(path, MsgId::kConfigTooLarge, {});
  const char* b = reinterpret_cast<const char*>((*map)->data());
  return ParseModelConfig(std::string(b, b + (*map)->size()), path);
}

}  // namespace attnviz::model
