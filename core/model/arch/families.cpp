#include "model/arch/family.h"

#include <algorithm>

namespace attnviz::model {

const std::vector<const Family*>& Families() {
  static const std::vector<const Family*> families = {&Gpt2Family(), &BertFamily(), &LlamaFamily(),
                                                       &GptNeoxFamily(), &Phi3Family(), &RobertaFamily(),
                                                       &Qwen3Family(),   &Olmo2Family(), &Gemma2Family(),
                                                       &Gemma3Family()};
  return families;
}

const Family* FamilyNamed(const std::string& name) {
  for (const Family* f : Families())
    if (name == f->name) return f;
  return nullptr;
}

std::vector<GgufTensorName> LlamaGgufBlock() {
  using R = GgufTensorName::Role;
  return {{"attn_norm", "input_layernorm", R::kNorm},   {"attn_q", "self_attn.q_proj", R::kQ},
          {"attn_k", "self_attn.k_proj", R::kK},        {"attn_v", "self_attn.v_proj", R::kV},
          {"attn_output", "self_attn.o_proj", R::kO},   {"ffn_norm", "post_attention_layernorm", R::kNorm},
          {"ffn_gate", "mlp.gate_proj", R::kGate},      {"ffn_up", "mlp.up_proj", R::kUp},
          {"ffn_down", "mlp.down_proj", R::kDown}};
}

const Family* FamilyFor(const std::string& model_type, bool gguf) {
  for (const Family* f : Families()) {
    if (gguf) {
      for (const GgufArchitecture& a : f->gguf)
        if (a.name == model_type) return f;
    } else if (std::find(f->model_types.begin(), f->model_types.end(), model_type) != f->model_types.end()) {
      return f;
    }
  }
  return nullptr;
}

const GgufArchitecture* GgufArchitectureFor(const std::string& architecture) {
  for (const Family* f : Families())
    for (const GgufArchitecture& a : f->gguf)
      if (a.name == architecture) return &a;
  return nullptr;
}

const std::vector<const Seq2SeqFamily*>& Seq2SeqFamilies() {
  static const std::vector<const Seq2SeqFamily*> families = {&BartFamily(), &MarianFamily(), &T5Family()};
  return families;
}

const Seq2SeqFamily* Seq2SeqFamilyFor(const std::string& model_type) {
  for (const Seq2SeqFamily* f : Seq2SeqFamilies())
    if (std::find(f->model_types.begin(), f->model_types.end(), model_type) != f->model_types.end()) return f;
  return nullptr;
}

std::string SupportedSeq2SeqModelTypes() {
  std::string out;
  for (const Seq2SeqFamily* f : Seq2SeqFamilies())
    for (const std::string& t : f->model_types) out += (out.empty() ? "" : ", ") + t;
  return out;
}

std::string SupportedModelTypes(bool gguf) {
  std::string out;
  for (const Family* f : Families()) {
    if (gguf)
      for (const GgufArchitecture& a : f->gguf) out += (out.empty() ? "" : ", ") + a.name;
    else
      for (const std::string& t : f->model_types) out += (out.empty() ? "" : ", ") + t;
  }
  if (!gguf) out += ", " + SupportedSeq2SeqModelTypes();  // opened by LoadSeq2SeqModel (seq2seq.h)
  return out;
}

std::string QkNormModelTypes() {
  std::string out;
  for (const Family* f : Families())
    if (f->recipe.qk_norm != BlockRecipe::QkNorm::kNone)
      for (const std::string& t : f->model_types) out += (out.empty() ? "" : ", ") + t;
  return out;
}

}  // namespace attnviz::model
