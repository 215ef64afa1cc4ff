#include "model/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/json_limits.h"
#include "model/safetensors.h"

namespace attnviz::model {

const char* ActivationName(Activation a) {
  switch (a) {
    case Activation::kGeluTanh: return "gelu (tanh approximation)";
    case Activation::kGeluErf: return "gelu (erf)";
    case Activation::kSilu: return "silu";
    case Activation::kRelu: return "relu";
  }
  return "?";
}

std::string AttentionFormula(const ModelConfig& c) {
  auto number = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return std::string(buf);
  };
  std::string logit = "q k\xE1\xB5\x80";
  if (c.scale_attn)
    logit += c.query_pre_attn_scalar > 0 ? " / \xE2\x88\x9A" + number(c.query_pre_attn_scalar) : " / \xE2\x88\x9A" "d_head";
  if (c.scale_by_inverse_layer_idx) logit += " / (l + 1)";
  // The cap acts on the scaled logit, before the mask (modeling_gemma2.py eager_attention_forward).
  if (c.attn_softcap > 0)
    logit = number(c.attn_softcap) + " \xC2\xB7 tanh(" + logit + " / " + number(c.attn_softcap) + ")";
  return "softmax(" + logit + ")";
}

std::string QkFormula(const ModelConfig& c, char side) {
  const std::string s(1, side);
  if (c.recipe.qk_norm == BlockRecipe::QkNorm::kNone) return s + " = x W_" + s;
  return s + " = " + s + "_norm(x W_" + s + ")";
}

std::string ModelConfig::Describe() const {
  std::string s = model_type + ": " + std::to_string(n_layer) + " layers, " + std::to_string(n_head) + " heads x " +
                  std::to_string(d_head);
  if (n_kv_head != n_head) s += " (" + std::to_string(n_kv_head) + " key/value heads)";
  s += ", d_model " + std::to_string(d_model) + ", d_ff " + std::to_string(d_ff) + ", vocab " +
       std::to_string(vocab) + ", " + std::to_string(max_positions) + " positions, " + ActivationName(activation);
  if (recipe.rope) {
    char b[64];
    std::snprintf(b, sizeof b, ", rope theta %g", rope_theta);
    s += b;
    if (rope_scaling.kind == RopeScaling::Kind::kLinear) s += " (linear scaling)";
    if (rope_scaling.kind == RopeScaling::Kind::kLlama3) s += " (llama3 scaling)";
    if (rope_scaling.kind == RopeScaling::Kind::kLongRope) s += " (longrope scaling)";
    if (!rope_scaling.freq_factors.empty()) s += " (per-frequency factors)";
    if (rope_dim() != d_head) s += ", rotary on " + std::to_string(rope_dim()) + " of " + std::to_string(d_head) + " dims";
    if (layer_window.empty() && sliding_window) s += ", sliding window " + std::to_string(sliding_window);
    if (!layer_local_rope.empty()) {
      std::snprintf(b, sizeof b, ", local rope theta %g on the sliding layers", rope_local_theta);
      s += b;
    }
  }
  // Per-layer windows: "sliding window 5 on layers 0, 2".
  std::string sliding;
  for (int l = 0; l < (int)layer_window.size(); ++l)
    if (layer_window[(size_t)l] > 0) sliding += (sliding.empty() ? "" : ", ") + std::to_string(l);
  if (!sliding.empty())
    s += ", sliding window " + std::to_string(*std::max_element(layer_window.begin(), layer_window.end())) +
         " on layers " + sliding;
  if (recipe.qk_norm == BlockRecipe::QkNorm::kPerHead) s += ", q/k norms per head";
  if (recipe.qk_norm == BlockRecipe::QkNorm::kWhole) s += ", q/k norms over the whole projections";
  if (recipe.output_norms) s += recipe.input_norms ? ", input and output norms" : ", output norms only";
  char v[96];
  if (query_pre_attn_scalar > 0) {
    std::snprintf(v, sizeof v, ", scale 1/sqrt(query_pre_attn_scalar %g)", query_pre_attn_scalar);
    s += v;
  }
  if (attn_softcap > 0 || final_softcap > 0) {
    std::snprintf(v, sizeof v, ", soft caps %g (attention) and %g (final)", attn_softcap, final_softcap);
    s += v;
  }
  if (recipe.parallel_residual) s += ", parallel residual";
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
    return Status::ErrorAt(where, MsgId::kConfigNoModelType, {SupportedModelTypes()});
  c.model_type = mt->get<std::string>();
  if (Status refused = RefuseUnbuilt(j, c.model_type, where); !refused) return refused;
  // bart, marian, t5, ...: a model of two stacks, which LoadSeq2SeqModel (seq2seq.h) opens.
  if (Seq2SeqFamilyFor(c.model_type))
    return Status::ErrorAt(where, MsgId::kConfigEncoderDecoder, {c.model_type, SupportedSeq2SeqModelTypes()});
  const Family* family = FamilyFor(c.model_type);
  if (!family) return Status::ErrorAt(where, MsgId::kConfigModelType, {CappedValue(c.model_type), SupportedModelTypes()});
  c.family = family->name;
  c.recipe = family->recipe;
  const Status s = family->read_config(k, j, &c);
  if (!s) return s;
  if (Status r = FinishLongRope(where, c, &c.rope_scaling); !r) return r;
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
