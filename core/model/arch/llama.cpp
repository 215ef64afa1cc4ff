// llama, qwen2, mistral (*ForCausalLM or the bare model): pre-RMSNorm blocks, RoPE on q and k, grouped-query
// attention, a SwiGLU MLP, causal attention (mistral's sliding window). They differ only in their config.
//   config.json: num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim,
//                intermediate_size, max_position_embeddings, vocab_size, rms_norm_eps, hidden_act, rope_theta,
//                rope_scaling (null, {"rope_type"|"type": "linear"|"llama3", ...}), attention_bias, mlp_bias,
//                sliding_window (mistral), use_sliding_window (qwen2: refused when true), tie_word_embeddings
//   tensors ("model." prefix or none): embed_tokens, layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj,
//                post_attention_layernorm, mlp.{gate,up,down}_proj}, norm; lm_head.weight when untied. Biases where
//                the config says (qwen2: q/k/v). Skipped: rotary_emb.inv_freq.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseLlamaFamily(const Keys& k, const json& j, ModelConfig* c) {
  const bool qwen2 = c->model_type == "qwen2", mistral = c->model_type == "mistral";
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(ParseGqaHeads(k, j, c));
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

// 2. Tensor names -> params
Status BindLlama(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embed_tokens.weight", {"model.", ""});
  const int d = c.d_model;
  if (Status s = b.Get({pre + "embed_tokens.weight", "model.embed_tokens.weight"}, {c.vocab, d}, &p->tok_emb); !s)
    return s;
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "layers." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    if (Status s = b.RmsNorm(h + "input_layernorm", d, &bp.attn_norm); !s) return s;
    if (Status s = b.LinearOutIn(h + "self_attn.q_proj", d, c.q_dim(), c.qkv_bias, &bp.q); !s) return s;
    if (Status s = b.LinearOutIn(h + "self_attn.k_proj", d, c.kv_dim(), c.qkv_bias, &bp.k); !s) return s;
    if (Status s = b.LinearOutIn(h + "self_attn.v_proj", d, c.kv_dim(), c.qkv_bias, &bp.v); !s) return s;
    if (Status s = b.LinearOutIn(h + "self_attn.o_proj", c.q_dim(), d, c.o_bias, &bp.o); !s) return s;
    if (Status s = b.RmsNorm(h + "post_attention_layernorm", d, &bp.mlp_norm); !s) return s;
    if (Status s = b.LinearOutIn(h + "mlp.gate_proj", d, c.d_ff, c.mlp_bias, &bp.gate); !s) return s;
    if (Status s = b.LinearOutIn(h + "mlp.up_proj", d, c.d_ff, c.mlp_bias, &bp.up); !s) return s;
    if (Status s = b.LinearOutIn(h + "mlp.down_proj", c.d_ff, d, c.mlp_bias, &bp.down); !s) return s;
  }
  if (Status s = b.RmsNorm(pre + "norm", d, &p->final_norm); !s) return s;
  // The LM head: lm_head.weight, or embed_tokens when tied; a bare model without lm_head has none.
  return BindLmHead(c, b, "lm_head.weight", p);
}

}  // namespace

const Family& LlamaFamily() {
  static const Family family = [] {
    Family f;
    f.name = "llama";
    f.model_types = {"llama", "qwen2", "mistral"};
    f.recipe.norm = BlockRecipe::Norm::kRms;
    f.recipe.rope = true;
    f.recipe.gated_mlp = true;
    f.recipe.attn_norm_stage = "the attention's input norm (input_layernorm)";
    f.recipe.mlp_norm_stage = "the MLP's input norm (post_attention_layernorm)";
    f.read_config = ParseLlamaFamily;
    f.bind = BindLlama;
    // qwen2: its converter writes q and k unpermuted, its q/k/v always have biases, and its sliding window is off.
    f.gguf = {{"llama", true, false, true}, {"qwen2", false, true, false}, {"mistral", true, false, true}};
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
