// phi3 (Phi3ForCausalLM or the bare Phi3Model): pre-RMSNorm blocks, one fused qkv_proj sliced q | k | v (grouped-query
// attention: k and v narrower than q), RoPE (longrope: short and long factors, an attention factor on cos and sin;
// partial_rotary_factor), a SwiGLU MLP from one fused gate_up_proj, causal attention with the sliding window.
//   config.json: num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim,
//                intermediate_size, vocab_size, max_position_embeddings, original_max_position_embeddings,
//                rms_norm_eps, hidden_act, rope_theta, rope_scaling (null, {"type"|"rope_type": "longrope",
//                short_factor, long_factor, ...}), partial_rotary_factor, sliding_window, tie_word_embeddings
//   tensors ("model." prefix or none): embed_tokens, layers.N.{input_layernorm, self_attn.{qkv_proj, o_proj},
//                post_attention_layernorm, mlp.{gate_up_proj, down_proj}}, norm; lm_head.weight when untied.
// The fused weights are bound as views, nothing copied: q, k, v are adjacent row blocks of qkv_proj
// [q_dim + 2 kv_dim, d], gate and up the two halves of gate_up_proj [2 d_ff, d] (gate first, as HF's chunk).
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParsePhi3(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(ParseGqaHeads(k, j, c));
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 4096, &c->max_positions));
  ATTNVIZ_TRY(k.Double("rms_norm_eps", 0, 1, 1e-5, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "silu", &c->activation));
  ATTNVIZ_TRY(k.Double("rope_theta", 1e-6, 1e12, 10000.0, &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  double partial = 1.0;
  ATTNVIZ_TRY(k.Double("partial_rotary_factor", 0, 1, 1.0, &partial));
  c->rotary_dim = (int)(c->d_head * partial);  // HF: int(head_dim * partial_rotary_factor)
  if (c->rotary_dim < 2 || c->rotary_dim % 2 != 0) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", partial);
    return Status::ErrorAt(k.where(), MsgId::kConfigRotaryDims, {"partial_rotary_factor", value,
                                                                 std::to_string(c->d_head), std::to_string(c->rotary_dim)});
  }
  ATTNVIZ_TRY(k.IntOr("sliding_window", 1, kMaxPositions, 0, &c->sliding_window));
  return k.Bool("tie_word_embeddings", false, &c->tie_word_embeddings);
}

// 2. Tensor names -> params
Status BindPhi3(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embed_tokens.weight", {"model.", ""});
  const int d = c.d_model;
  if (Status s = b.Get({pre + "embed_tokens.weight", "model.embed_tokens.weight"}, {c.vocab, d}, &p->tok_emb); !s)
    return s;
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "layers." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    if (Status s = b.RmsNorm(h + "input_layernorm", d, &bp.attn_norm); !s) return s;
    Linear qkv, gate_up;
    if (Status s = b.LinearOutIn(h + "self_attn.qkv_proj", d, c.q_dim() + 2 * c.kv_dim(), false, &qkv); !s) return s;
    SplitRows(qkv, {{c.q_dim(), &bp.q}, {c.kv_dim(), &bp.k}, {c.kv_dim(), &bp.v}});
    if (Status s = b.LinearOutIn(h + "self_attn.o_proj", c.q_dim(), d, false, &bp.o); !s) return s;
    if (Status s = b.RmsNorm(h + "post_attention_layernorm", d, &bp.mlp_norm); !s) return s;
    if (Status s = b.LinearOutIn(h + "mlp.gate_up_proj", d, 2 * c.d_ff, false, &gate_up); !s) return s;
    SplitRows(gate_up, {{c.d_ff, &bp.gate}, {c.d_ff, &bp.up}});
    if (Status s = b.LinearOutIn(h + "mlp.down_proj", c.d_ff, d, false, &bp.down); !s) return s;
  }
  if (Status s = b.RmsNorm(pre + "norm", d, &p->final_norm); !s) return s;
  return BindLmHead(c, b, "lm_head.weight", p);
}

}  // namespace

const Family& Phi3Family() {
  static const Family family = [] {
    Family f;
    f.name = "phi3";
    f.model_types = {"phi3"};
    f.recipe.norm = BlockRecipe::Norm::kRms;
    f.recipe.rope = true;
    f.recipe.gated_mlp = true;
    f.recipe.attn_norm_stage = "the attention's input norm (input_layernorm)";
    f.recipe.mlp_norm_stage = "the MLP's input norm (post_attention_layernorm)";
    f.read_config = ParsePhi3;
    f.bind = BindPhi3;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
