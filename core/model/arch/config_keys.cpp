#include "model/arch/config_keys.h"

namespace attnviz::model {

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

}  // namespace attnviz::model
