// What a config.json may name that no family builds, each with why: the one list of refused kinds (the supported
// ones are Families()). A refused model_type gets its reason instead of "not supported"; a supported family's
// config whose layers are built otherwise (linear-attention layer_types, experts) is refused by its key.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"

namespace attnviz::model {
namespace {

struct Unbuilt {
  const char* model_type;
  MsgId why;
};

// Mixture-of-experts MLPs: a router sends each token to a few of many MLPs.
// Linear-attention (and state-space) layers: no softmax map over the keys to draw.
const Unbuilt kUnbuilt[] = {
    {"mixtral", MsgId::kConfigRefusedMoe},        {"qwen2_moe", MsgId::kConfigRefusedMoe},
    {"qwen3_moe", MsgId::kConfigRefusedMoe},      {"gpt_oss", MsgId::kConfigRefusedMoe},
    {"deepseek_v2", MsgId::kConfigRefusedMoe},    {"deepseek_v3", MsgId::kConfigRefusedMoe},
    {"dbrx", MsgId::kConfigRefusedMoe},           {"olmoe", MsgId::kConfigRefusedMoe},
    {"phimoe", MsgId::kConfigRefusedMoe},         {"granitemoe", MsgId::kConfigRefusedMoe},
    {"jetmoe", MsgId::kConfigRefusedMoe},         {"llama4", MsgId::kConfigRefusedMoe},
    {"qwen3_next", MsgId::kConfigRefusedLinearAttention}, {"minimax", MsgId::kConfigRefusedLinearAttention},
    {"rwkv", MsgId::kConfigRefusedLinearAttention},       {"mamba", MsgId::kConfigRefusedLinearAttention},
    {"mamba2", MsgId::kConfigRefusedLinearAttention},     {"jamba", MsgId::kConfigRefusedLinearAttention},
};

// The config keys that say a supported model type's layers are built otherwise.
Status RefuseKeys(const json& j, const std::string& where) {
  auto types = j.find("layer_types");
  if (types != j.end() && types->is_array())
    for (const json& t : *types)
      if (t.is_string() && t.get<std::string>() == "linear_attention")
        return Status::ErrorAt(where, MsgId::kConfigRefusedLinearAttention,
                               {"layer_types", "linear_attention", SupportedModelTypes()});
  for (const char* key : {"num_local_experts", "num_experts"}) {
    auto e = j.find(key);
    if (e != j.end() && e->is_number() && e->get<double>() > 1)
      return Status::ErrorAt(where, MsgId::kConfigRefusedMoe, {key, JsonValueText(*e), SupportedModelTypes()});
  }
  return Status::Ok();
}

}  // namespace

Status RefuseUnbuilt(const json& j, const std::string& model_type, const std::string& where) {
  // The multimodal bundle: its text model is a folder of its own (gemma3_text).
  if (model_type == "gemma3") return Status::ErrorAt(where, MsgId::kConfigGemma3Multimodal, {SupportedModelTypes()});
  // t5's code with a relative position bias in every layer (t5 and mt5 share their first layer's): not built.
  if (model_type == "umt5")
    return Status::ErrorAt(where, MsgId::kConfigRefusedUmt5, {SupportedModelTypes()});
  for (const Unbuilt& u : kUnbuilt)  // a family that comes to read one of them wins
    if (model_type == u.model_type && !FamilyFor(model_type))
      return Status::ErrorAt(where, u.why, {"model_type", model_type, SupportedModelTypes()});
  return RefuseKeys(j, where);
}

}  // namespace attnviz::model
