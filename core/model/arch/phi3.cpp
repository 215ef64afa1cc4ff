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
#include "model/gguf_config.h"

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

// 3. A GGUF file (llama.cpp's phi3, convert_hf_to_gguf.py's Phi3MiniModel): qkv_proj and gate_up_proj kept fused as
// attn_qkv and ffn_up (gate rows first, as HF's chunk), q and k unpermuted (llama.cpp turns them NEOX-style); keys
// phi3.rope.dimension_count (partial rotary), phi3.attention.sliding_window (0: none); longrope as the tensors
// rope_factors_long.weight and rope_factors_short.weight [rotary dims / 2] with
// phi3.rope.scaling.original_context_length (default: the context length) and phi3.rope.scaling.attn_factor (the
// converter's sqrt(1 + ln(factor) / ln(original)); default 1, as llama.cpp's).
// !! llama.cpp disables phi3's sliding window (it warns "Phi SWA is currently disabled"); attnviz applies it, as the
//    folder's config and HF do. llama.cpp picks the long factors when its context is longer than the original one,
//    attnviz (as HF) when the text is.
// Refused: rope_freqs.weight (llama.cpp's phi3 reads none), a rope scaling key beside the factors, one factor tensor
// without the other.
Status ReadPhi3Gguf(const GgufFile& f, const GgufKeys& k, ModelConfig* c) {
  const std::string& a = c->model_type;
  if (f.FindTensor("rope_freqs.weight")) return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {"rope_freqs.weight"});
  const char* kLong = "rope_factors_long.weight";
  const char* kShort = "rope_factors_short.weight";
  const bool has_long = f.FindTensor(kLong) != nullptr, has_short = f.FindTensor(kShort) != nullptr;
  if (!has_long && !has_short) return Status::Ok();
  if (!has_long || !has_short)
    return Status::ErrorAt(f.path(), MsgId::kGgufTensorMissing, {has_long ? kShort : kLong, f.path()});
  RopeScaling& r = c->rope_scaling;
  if (r.kind != RopeScaling::Kind::kNone)
    return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {a + ".rope.scaling.type"});
  ATTNVIZ_TRY(ReadRopeFactors(f, kLong, c->rope_dim() / 2, &r.long_factor));
  ATTNVIZ_TRY(ReadRopeFactors(f, kShort, c->rope_dim() / 2, &r.short_factor));
  r.kind = RopeScaling::Kind::kLongRope;
  ATTNVIZ_TRY(k.IntOr(a + ".rope.scaling.original_context_length", 1, kMaxPositions, c->max_positions,
                      &r.original_max_position_embeddings));
  r.factor = (double)c->max_positions / r.original_max_position_embeddings;
  return k.Double(a + ".rope.scaling.attn_factor", 1e-6, 1e6, 1.0, &r.attention_factor);
}

GgufArchitecture Phi3Gguf() {
  using R = GgufTensorName::Role;
  GgufArchitecture a;
  a.name = "phi3";
  a.qk_rows_permuted = false;
  a.partial_rotary = true;
  a.block = {{"attn_norm", "input_layernorm", R::kNorm},
             {"attn_qkv", "self_attn.qkv_proj", R::kQkv},
             {"attn_output", "self_attn.o_proj", R::kO},
             {"ffn_norm", "post_attention_layernorm", R::kNorm},
             {"ffn_up", "mlp.gate_up_proj", R::kGateUp},
             {"ffn_down", "mlp.down_proj", R::kDown}};
  a.read_keys = ReadPhi3Gguf;
  return a;
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
    f.gguf = {Phi3Gguf()};
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
