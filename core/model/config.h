// config.json (Hugging Face) -> ModelConfig: one struct for every supported family. Which keys a family reads,
// its tensor names and how its block computes live in its own file, core/model/arch/<family>.cpp (the list of
// families: arch/family.h); this file holds what every family fills in.
// Every value is range-checked; an error names the key, the value and what is allowed.
#pragma once
#include <string>
#include <vector>

#include "attention/mask.h"
#include "base/status.h"

namespace attnviz::model {

enum class Activation { kGeluTanh, kGeluErf, kSilu, kRelu };
const char* ActivationName(Activation a);

struct RopeScaling {
  enum class Kind { kNone, kLinear, kLlama3, kLongRope } kind = Kind::kNone;
  double factor = 1.0;
  // llama3 only
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  int original_max_position_embeddings = 8192;  // llama3, longrope
  // longrope (phi3) only: per-frequency divisors [rope_dim / 2], long_factor when the text is longer than
  // original_max_position_embeddings, else short_factor; cos and sin are multiplied by attention_factor.
  std::vector<double> short_factor, long_factor;
  double attention_factor = 1.0;
  // Per-frequency divisors after the above, [d_head / 2] or empty: a GGUF file's rope_freqs.weight (how
  // llama.cpp stores llama3 scaling: inv_freq[j] / freq_factors[j]).
  std::vector<double> freq_factors;
};

// How a family's block computes: its file (arch/<family>.cpp) says it, run.cpp, predict.cpp and analysis.cpp follow
// it. No code outside arch/ asks which family a model is.
struct BlockRecipe {
  enum class Norm { kLayerNorm, kRms } norm = Norm::kLayerNorm;
  bool post_norm = false;      // x = norm(x + sublayer(x)) (bert); else x += sublayer(norm(x))
  bool embed_norm = false;     // a LayerNorm right after the embeddings (bert)
  bool rope = false;           // rotary positions on q and k before the scores
  bool gated_mlp = false;      // down(act(gate(x)) * up(x)); else down(act(up(x)))
  bool bidirectional = false;  // every query sees every key; else causal (with the config's sliding window)
  bool masked_lm = false;      // the LM head predicts at mask tokens through its MLM transform; else the next token
  // x + attn(norm1(x)) + mlp(norm2(x)): both sublayers read the block's input (gpt_neox use_parallel_residual);
  // the family's config reader may set it per model.
  bool parallel_residual = false;
  // RMSNorms of q and k between their projections and RoPE (params.h BlockParams q_norm, k_norm):
  //   kPerHead: over each head's d_head dims, one weight [d_head] shared by the heads (qwen3, gemma3)
  //   kWhole:   over the whole projection, q [n_head * d_head] and k [n_kv_head * d_head] (olmo2)
  enum class QkNorm { kNone, kPerHead, kWhole } qk_norm = QkNorm::kNone;
  bool input_norms = true;    // false: each sublayer reads x itself (olmo2)
  // x = x + out_norm(sublayer(...)): a norm of each sublayer's output before the residual add (olmo2, gemma2/3).
  bool output_norms = false;
  // The norms' names in messages: "the attention's input norm (ln_1)".
  const char* attn_norm_stage = "";
  const char* mlp_norm_stage = "";
  const char* attn_out_norm_stage = "";  // output_norms: "the attention output norm (post_attention_layernorm)"
  const char* mlp_out_norm_stage = "";
  const char* qk_norm_stage = "the q and k norms (q_norm, k_norm)";
};

struct ModelConfig {
  std::string model_type;  // as in config.json (or general.architecture of a GGUF file)
  std::string family;      // the family that read it (Family::name in arch/family.h; "llama" reads qwen2 too)
  BlockRecipe recipe;
  int n_layer = 0;
  int n_head = 0;     // query heads
  int n_kv_head = 0;  // key/value heads (== n_head except grouped-query attention)
  int d_model = 0;
  int d_head = 0;  // per head; q/k/v widths are n_head*d_head, n_kv_head*d_head
  int d_ff = 0;
  int vocab = 0;
  int max_positions = 0;
  int type_vocab_size = 0;  // token type embeddings (bert)
  // roberta: position ids start at pad_token_id + 1, so max_positions is max_position_embeddings minus this and
  // params.pos_emb points at that row of the table.
  int position_offset = 0;
  double norm_eps = 1e-5;
  Activation activation = Activation::kGeluTanh;
  // attention
  bool scale_attn = true;                   // gpt2 scale_attn_weights
  bool scale_by_inverse_layer_idx = false;  // gpt2: logits also / (layer + 1)
  bool qkv_bias = false, o_bias = false, mlp_bias = false;  // where a family makes them optional
  int sliding_window = 0;                   // key j visible to query i only if i - j < window; 0 = none
  // Per-layer windows [n_layer] (gemma2/3 alternate sliding and full layers): layer l's window, 0 = full causal;
  // empty = every layer uses sliding_window. AttentionMask(c, layer) reads it.
  std::vector<int> layer_window;
  // Soft caps (gemma2): logits = cap * tanh(logits / cap) for the attention (every layer) and the LM head; 0 = none.
  double attn_softcap = 0, final_softcap = 0;
  // The scaling's divisor: logits * 1/sqrt(query_pre_attn_scalar) (gemma2/3); 0 = 1/sqrt(d_head).
  double query_pre_attn_scalar = 0;
  // The embeddings times sqrt(d_model), rounded to a float first as the checkpoint's dtype does (gemma).
  bool scale_embeddings = false;
  // rope (recipe.rope)
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  // gemma3's second base: layers with layer_local_rope[l] ([n_layer], or empty = none) turn by rope_local_theta
  // with no rope_scaling (modeling_gemma3.py's rotary_emb_local); the others by rope_theta and rope_scaling.
  double rope_local_theta = 10000.0;
  std::vector<bool> layer_local_rope;
  // Partial rotary (gpt_neox rotary_pct, phi3 partial_rotary_factor): RoPE turns the first rotary_dim dims of each
  // head (rotate_half within them) and passes the rest through; 0 = the whole head.
  int rotary_dim = 0;
  bool tie_word_embeddings = false;
  // Not from config.json: the floats of the largest layer's weights that a run dequantizes per layer (model.h,
  // BindModel sets it; 0 when every weight is resident). RunMemoryBytes counts them once per run.
  int64_t layer_scratch_floats = 0;

  int q_dim() const { return n_head * d_head; }
  int kv_dim() const { return n_kv_head * d_head; }
  int rope_dim() const { return rotary_dim > 0 ? rotary_dim : d_head; }
  // Layer l's sliding window (0 = none) and whether it turns by the local RoPE base.
  int WindowOf(int layer) const {
    return layer >= 0 && layer < (int)layer_window.size() ? layer_window[(size_t)layer] : sliding_window;
  }
  bool LocalRope(int layer) const {
    return layer >= 0 && layer < (int)layer_local_rope.size() && layer_local_rope[(size_t)layer];
  }
  std::string Describe() const;  // one line, e.g. "gpt2: 12 layers, 12 heads x 64, d_model 768, ..."
};

// The score as this family computes it, in the notation every language shares (the Shapes tab, figures' notes):
//   "softmax(q k\u1d40 / \u221ad_head)"; gpt2 with scale_attn_by_inverse_layer_idx "... / (l + 1)"; gemma2
//   "softmax(50 \u00b7 tanh(q k\u1d40 / \u221a256 / 50))" (query_pre_attn_scalar 256, attention soft cap 50); an
//   unscaled family "softmax(q k\u1d40)". The q and k it names are after the family's q/k norms (QkFormula).
std::string AttentionFormula(const ModelConfig& c);
// "q = x W_q", or "q = q_norm(x W_q)" under q/k norms (BlockRecipe::qk_norm); side: 'q' or 'k'.
std::string QkFormula(const ModelConfig& c, char side);

// The mask of `layer`: bidirectional (bert) or causal, with the layer's sliding window when it has one (WindowOf:
// gemma's layers alternate). The one place that decides it (the run, the app's maps, figures, exports).
inline Mask AttentionMask(const ModelConfig& c, int layer) {
  return c.recipe.bidirectional ? Mask::Bidirectional() : Mask::Causal(c.WindowOf(layer));
}

// `json_text`: the bytes of config.json; `where`: its path, used in messages.
Result<ModelConfig> ParseModelConfig(const std::string& json_text, const std::string& where);
Result<ModelConfig> ReadModelConfig(const std::string& path);

}  // namespace attnviz::model
