// A model family in one file: core/model/arch/<family>.cpp holds its config.json keys, its tensor names and how they
// bind, and its block recipe (config.h BlockRecipe: the norm and where it sits, rope, a gated MLP, the mask, the LM
// head). This header is the one list of them: config.cpp, binder.cpp, the GGUF reader, every message and help
// text that names the supported model types read it here.
//
//   family  model_type            recipe
//   gpt2    gpt2                  pre-LayerNorm, fused Conv1D c_attn, gelu MLP, learned positions, causal
//   bert    bert                  post-LayerNorm, embedding LayerNorm, bidirectional, masked-LM head
//   llama   llama, qwen2, mistral pre-RMSNorm, RoPE, grouped-query attention, SwiGLU, causal (sliding window)
//   gpt_neox gpt_neox             pre-LayerNorm, fused per-head q/k/v, partial RoPE, parallel residual, gelu MLP
//   phi3    phi3                  pre-RMSNorm, fused q|k|v (GQA) and gate|up, RoPE (longrope, partial), sliding window
//   roberta roberta, xlm-roberta  bert's body, positions from pad_token_id + 1, the lm_head masked-LM head
//   qwen3   qwen3                 llama's block with per-head q/k RMSNorms before RoPE, head_dim of its own
//   olmo2   olmo2                 no input norms, a norm on each sublayer's output, q/k norms over whole projections
//   gemma2  gemma2                (arch/gemma.cpp) four (1 + w) RMSNorms a block, scaled embeddings,
//                                 query_pre_attn_scalar, attention and final soft caps, alternating sliding layers
//   gemma3  gemma3_text           (arch/gemma.cpp) gemma2's block with per-head q/k norms, layer_types, two RoPE bases
// Encoder-decoder families (Seq2SeqFamily below; core/model/seq2seq.h loads them, LoadModel refuses them by name):
//   bart    bart, mbart           learned positions (offset 2), layernorm_embedding, post-norm (mbart: pre-norm and a
//                                 final norm per stack), q scaled, final_logits_bias
//   marian  marian                sinusoidal positions, scaled embeddings, post-norm, final_logits_bias, separate
//                                 decoder embeddings when share_encoder_decoder_embeddings is false
//   t5      t5, mt5               relative position buckets (first layer's bias shared), RMS norms, no scaling,
//                                 relu or gated-gelu MLP, tied lm_head rescaled by d_model^-0.5
// What no family builds is refused by name with the reason (arch/refused.cpp: RefuseUnbuilt).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/config.h"
#include "model/params.h"

namespace attnviz::model {

class Binder;  // binder.h
class Keys;    // arch/config_keys.h

class GgufFile;  // gguf_file.h
class GgufKeys;  // gguf_config.h

// One tensor of a GGUF file and the name the family's bind asks for: "blk.N." + gguf + ".weight" (".bias") is read
// as the family's layer prefix + N + "." + hf + ".weight" (".bias"); its shape and whether it has a bias follow
// from its role and the config (core/model/gguf_weights.cpp).
struct GgufTensorName {
  enum class Role {
    kNorm,      // [d_model] (+ bias under LayerNorm)
    kQNorm,     // q_norm: [d_head] (BlockRecipe::QkNorm::kPerHead) or [q_dim] (kWhole)
    kKNorm,     // k_norm: [d_head] or [kv_dim]
    kQ, kK, kV, kO, kGate, kUp, kDown,
    kQkv,       // q | k | v rows in one matrix [q_dim + 2 kv_dim, d_model]
    kGateUp,    // gate | up rows in one matrix [2 d_ff, d_model]
  };
  std::string gguf;
  std::string hf;
  Role role;
};

// What a GGUF file of a family's architecture holds differently from the folder (core/model/gguf_*.cpp read it).
struct GgufArchitecture {
  std::string name;                   // general.architecture
  bool qk_rows_permuted = true;        // llama.cpp's converter permuted q and k rows per head (GGML's RoPE pairs)
  bool qkv_bias = false;              // q, k and v have biases (else: when blk.0.attn_q.bias is there)
  bool reads_sliding_window = true;   // <arch>.attention.sliding_window applies to every layer
  bool norms_plus_one = false;        // the converter wrote every norm weight as w + 1 (gemma): read back as w
  bool qkv_per_head = false;          // the folder's fused q|k|v rows are [n_head, 3, d_head] (gpt_neox), the file's q|k|v
  bool partial_rotary = false;        // <arch>.rope.dimension_count may be less than the head width
  // The block's tensors and the model's (token_embd, output_norm, output) as the family's bind names them; empty:
  // llama's (kLlamaGgufBlock).
  std::vector<GgufTensorName> block;
  std::string hf_layers = "model.layers.", hf_embedding = "model.embed_tokens", hf_final_norm = "model.norm",
              hf_lm_head = "lm_head";
  // The keys this architecture reads beyond the common ones (gguf_config.h), after them; may be null.
  Status (*read_keys)(const GgufFile& f, const GgufKeys& k, ModelConfig* c) = nullptr;
};

// llama's block as a GGUF file names it (attn_norm, attn_q, ..., ffn_down), which qwen3, gemma and olmo2 extend.
std::vector<GgufTensorName> LlamaGgufBlock();

struct Family {
  const char* name = "";                 // the family (ModelConfig::family)
  std::vector<std::string> model_types;  // the config.json model_type values it reads
  BlockRecipe recipe;
  // config.json's keys -> *c (model_type already set); `j` is the whole object (keys only some configs have).
  Status (*read_config)(const Keys& k, const nlohmann::json& j, ModelConfig* c) = nullptr;
  // The checkpoint's tensors -> params, each shape checked against the config.
  Status (*bind)(const ModelConfig& c, Binder& b, ModelParams* p) = nullptr;
  // The GGUF architectures llama.cpp writes for this family (core/model/gguf_config.cpp reads their keys).
  std::vector<GgufArchitecture> gguf;
};

// Every family, in the order messages list them.
const std::vector<const Family*>& Families();
// The family whose name (Family::name, ModelConfig::family) is `name`; null when none is.
const Family* FamilyNamed(const std::string& name);
// The family that reads `model_type` (config.json) or, with `gguf`, general.architecture; null when none does.
const Family* FamilyFor(const std::string& model_type, bool gguf = false);
// A GGUF file's general.architecture as the family knows it; null when no family reads it.
const GgufArchitecture* GgufArchitectureFor(const std::string& architecture);
// "gpt2, bert, llama, qwen2, mistral, ..., bart, ..., t5, mt5" (every model_type, the encoder-decoder ones last), or
// with `gguf` the GGUF architectures.
std::string SupportedModelTypes(bool gguf = false);
// The model_types whose families have q/k norms (BlockRecipe::qk_norm), as SupportedModelTypes lists them.
std::string QkNormModelTypes();

// The families (one file each).
const Family& Gpt2Family();
const Family& BertFamily();
const Family& LlamaFamily();
const Family& GptNeoxFamily();
const Family& Phi3Family();

// A config.json naming what no family builds: its model_type (mixture-of-experts MLPs, linear-attention layers), or
// a key of a supported family's config that says its layers are built otherwise (layer_types with
// "linear_attention", num_local_experts / num_experts > 1): the message naming it and why; else Ok.
Status RefuseUnbuilt(const nlohmann::json& j, const std::string& model_type, const std::string& where);
const Family& RobertaFamily();

struct Seq2SeqConfig;  // seq2seq.h
struct Seq2SeqParams;

// An encoder-decoder family in one file (arch/bart.cpp, marian.cpp, t5.cpp): its config.json keys and its tensors.
struct Seq2SeqFamily {
  const char* name = "";
  std::vector<std::string> model_types;
  // config.json -> *c (model_type already set).
  Status (*read_config)(const Keys& k, const nlohmann::json& j, Seq2SeqConfig* c) = nullptr;
  // The checkpoint's tensors -> params, each shape checked against the config.
  Status (*bind)(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p) = nullptr;
};
const std::vector<const Seq2SeqFamily*>& Seq2SeqFamilies();
// The encoder-decoder family that reads `model_type`; null when none does.
const Seq2SeqFamily* Seq2SeqFamilyFor(const std::string& model_type);
// "bart, mbart, marian, t5, mt5" (SupportedModelTypes lists them after the others).
std::string SupportedSeq2SeqModelTypes();
const Seq2SeqFamily& BartFamily();
const Seq2SeqFamily& MarianFamily();
const Seq2SeqFamily& T5Family();
const Family& Qwen3Family();
const Family& Olmo2Family();
const Family& Gemma2Family();
const Family& Gemma3Family();

}  // namespace attnviz::model
