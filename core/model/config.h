// config.json (Hugging Face) -> ModelConfig: one struct for every supported architecture.
//
// Keys read, per model_type (HF's names; defaults are HF's when a key is absent):
//   gpt2:    n_layer, n_head, n_embd, n_inner (null -> 4 n_embd), n_positions, vocab_size, layer_norm_epsilon,
//            activation_function, scale_attn_weights, scale_attn_by_inverse_layer_idx, tie_word_embeddings
//   bert:    num_hidden_layers, num_attention_heads, hidden_size, intermediate_size, max_position_embeddings,
//            vocab_size, type_vocab_size, layer_norm_eps, hidden_act, position_embedding_type ("absolute" only)
//   llama, qwen2, mistral: num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim,
//            intermediate_size, max_position_embeddings, vocab_size, rms_norm_eps, hidden_act, rope_theta,
//            rope_scaling (null, {"rope_type"|"type": "linear"|"llama3", ...}), attention_bias, mlp_bias,
//            sliding_window (mistral), use_sliding_window (qwen2: refused when true), tie_word_embeddings
// Every value is range-checked; an error names the key, the value and what is allowed.
#pragma once
#include <string>
#include <vector>

#include "attention/mask.h"
#include "base/status.h"

namespace attnviz::model {

enum class Arch { kGpt2, kBert, kLlama };  // kLlama: llama, qwen2, mistral (they differ only in config)
enum class Activation { kGeluTanh, kGeluErf, kSilu, kRelu };
const char* ActivationName(Activation a);

struct RopeScaling {
  enum class Kind { kNone, kLinear, kLlama3 } kind = Kind::kNone;
  double factor = 1.0;
  // llama3 only
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  int original_max_position_embeddings = 8192;
  // Per-frequency divisors after the above, [d_head / 2] or empty: a GGUF file's rope_freqs.weight (how
  // llama.cpp stores llama3 scaling: inv_freq[j] / freq_factors[j]).
  std::vector<double> freq_factors;
};

struct ModelConfig {
  std::string model_type;  // as in config.json: "gpt2", "bert", "llama", "qwen2", "mistral"
  Arch arch = Arch::kGpt2;
  int n_layer = 0;
  int n_head = 0;     // query heads
  int n_kv_head = 0;  // key/value heads (== n_head except grouped-query attention)
  int d_model = 0;
  int d_head = 0;  // per head; q/k/v widths are n_head*d_head, n_kv_head*d_head
  int d_ff = 0;
  int vocab = 0;
  int max_positions = 0;
  int type_vocab_size = 0;  // bert
  double norm_eps = 1e-5;
  Activation activation = Activation::kGeluTanh;
  // attention
  bool scale_attn = true;                   // gpt2 scale_attn_weights
  bool scale_by_inverse_layer_idx = false;  // gpt2: logits also / (layer + 1)
  bool qkv_bias = false, o_bias = false, mlp_bias = false;  // llama family
  int sliding_window = 0;                   // mistral: key j visible to query i only if i - j < window; 0 = none
  // rope (llama family)
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  bool tie_word_embeddings = false;
  // Not from config.json: the floats of the largest layer's weights that a run dequantizes per layer (model.h,
  // BindModel sets it; 0 when every weight is resident). RunMemoryBytes counts them once per run.
  int64_t layer_scratch_floats = 0;

  int q_dim() const { return n_head * d_head; }
  int kv_dim() const { return n_kv_head * d_head; }
  std::string Describe() const;  // one line, e.g. "gpt2: 12 layers, 12 heads x 64, d_model 768, ..."
};

// The mask of every layer: bert is bidirectional; gpt2 and the llama family causal, with mistral's sliding
// window when its config has one. The one place that decides it (the run, the app's maps, figures, exports).
inline Mask AttentionMask(const ModelConfig& c) {
  return c.arch == Arch::kBert ? Mask::Bidirectional() : Mask::Causal(c.sliding_window);
}

// `json_text`: the bytes of config.json; `where`: its path, used in messages.
Result<ModelConfig> ParseModelConfig(const std::string& json_text, const std::string& where);
Result<ModelConfig> ReadModelConfig(const std::string& path);

}  // namespace attnviz::model
