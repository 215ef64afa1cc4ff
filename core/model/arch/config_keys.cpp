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

namespace {
// num_attention_heads, num_key_value_heads (a divisor; default: all), hidden_size.
Status ParseHeadCounts(const Keys& k, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_attention_heads", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.IntOr("num_key_value_heads", 1, c->n_head, c->n_head, &c->n_kv_head));
  ATTNVIZ_TRY(k.Int("hidden_size", 1, kMaxWidth, &c->d_model));
  if (c->n_head % c->n_kv_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple, {"num_attention_heads", std::to_string(c->n_head),
                                                                  "num_key_value_heads", std::to_string(c->n_kv_head)});
  return Status::Ok();
}
}  // namespace

Status ParseGqaHeads(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(ParseHeadCounts(k, c));
  const int default_head = c->d_model / c->n_head;
  if (default_head * c->n_head != c->d_model && j.find("head_dim") == j.end())
    return Status::ErrorAt(k.where(), MsgId::kConfigNoHeadDim, {std::to_string(c->d_model), std::to_string(c->n_head)});
  return k.IntOr("head_dim", 1, kMaxWidth, default_head, &c->d_head);
}

Status ParseHeadsWithHeadDim(const Keys& k, int default_head_dim, ModelConfig* c) {
  ATTNVIZ_TRY(ParseHeadCounts(k, c));
  return k.IntOr("head_dim", 1, kMaxWidth, default_head_dim, &c->d_head);
}

Status ParseLayerTypes(const Keys& k, const json& j, int n_layer, const std::vector<bool>& derived, int sliding_window,
                       std::vector<int>* window, std::vector<bool>* sliding) {
  std::vector<bool> slides = derived;
  auto it = j.find("layer_types");
  if (it != j.end() && !it->is_null()) {
    if (!it->is_array() || (int)it->size() != n_layer)
      return Status::ErrorAt(k.where(), MsgId::kConfigLayerTypesCount,
                             {it->is_array() ? std::to_string(it->size()) : JsonValueText(*it), std::to_string(n_layer)});
    for (int l = 0; l < n_layer; ++l) {
      const json& t = (*it)[(size_t)l];
      const std::string v = t.is_string() ? t.get<std::string>() : JsonValueText(t);
      if (v != "sliding_attention" && v != "full_attention")
        return Status::ErrorAt(k.where(), MsgId::kConfigLayerType, {std::to_string(l), CappedValue(v)});
      slides[(size_t)l] = v == "sliding_attention";
    }
  }
  window->assign((size_t)n_layer, 0);
  for (int l = 0; l < n_layer; ++l)
    if (slides[(size_t)l]) (*window)[(size_t)l] = sliding_window;
  if (sliding) *sliding = slides;
  return Status::Ok();
}

namespace {
// A JSON array of finite numbers -> *out.
Status NumberList(const json& o, const std::string& where, const char* key, std::vector<double>* out) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return Status::ErrorAt(where, MsgId::kConfigMissingKey, {key});
  if (!it->is_array())
    return Status::ErrorAt(where, MsgId::kConfigNotNumber, {key, JsonValueText(*it), "1e-6", "1e6"});
  for (const json& v : *it) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 1e-6 || v.get<double>() > 1e6)
      return Status::ErrorAt(where, MsgId::kConfigNotNumber, {key, JsonValueText(v), "1e-6", "1e6"});
    out->push_back(v.get<double>());
  }
  return Status::Ok();
}

// longrope (phi3): short_factor, long_factor, optional factor and attention_factor (0 here: FinishLongRope works
// them out), original_max_position_embeddings in rope_scaling or at the top level (phi3's configs).
Status ParseLongRope(const json& j, const Keys& k, RopeScaling* r) {
  r->kind = RopeScaling::Kind::kLongRope;
  ATTNVIZ_TRY(NumberList(*j.find("rope_scaling"), k.where(), "short_factor", &r->short_factor));
  ATTNVIZ_TRY(NumberList(*j.find("rope_scaling"), k.where(), "long_factor", &r->long_factor));
  ATTNVIZ_TRY(k.Double("factor", 1e-6, 1e6, 0, &r->factor));
  ATTNVIZ_TRY(k.Double("attention_factor", 1e-6, 1e6, 0, &r->attention_factor));
  int top = 0;
  ATTNVIZ_TRY(Keys(j, k.where()).IntOr("original_max_position_embeddings", 1, kMaxPositions, 0, &top));
  if (top > 0) return k.IntOr("original_max_position_embeddings", 1, kMaxPositions, top, &r->original_max_position_embeddings);
  return k.Int("original_max_position_embeddings", 1, kMaxPositions, &r->original_max_position_embeddings);
}
}  // namespace

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
  if (type == "longrope") return ParseLongRope(j, k, r);
  return Status::ErrorAt(w, MsgId::kConfigRopeType, {CappedValue(type), "default, linear, llama3, longrope"});
}

Status FinishLongRope(const std::string& where, const ModelConfig& c, RopeScaling* r) {
  if (r->kind != RopeScaling::Kind::kLongRope) return Status::Ok();
  const int want = c.rope_dim() / 2;
  for (auto [key, factors] : {std::pair{"short_factor", &r->short_factor}, std::pair{"long_factor", &r->long_factor}})
    if ((int)factors->size() != want)
      return Status::ErrorAt(where + " rope_scaling", MsgId::kConfigLongRopeFactors,
                             {key, std::to_string(factors->size()), std::to_string(want)});
  // HF: factor, when not given, is max_position_embeddings / original_max_position_embeddings; attention_factor,
  // when not given, sqrt(1 + ln(factor) / ln(original)) for a factor above 1, else 1.
  if (r->factor <= 0) r->factor = (double)c.max_positions / r->original_max_position_embeddings;
  if (r->attention_factor <= 0)
    r->attention_factor = r->factor <= 1.0 ? 1.0
                                           : std::sqrt(1 + std::log(r->factor) /
                                                               std::log((double)r->original_max_position_embeddings));
  return Status::Ok();
}

}  // namespace attnviz::model
