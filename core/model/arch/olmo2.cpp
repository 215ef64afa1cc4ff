// olmo2 (Olmo2ForCausalLM or the bare Olmo2Model): a block with no input norms and a norm on each sublayer's output,
// x = x + post_attention_layernorm(attn(x)), then x = x + post_feedforward_layernorm(mlp(x)); q/k norms over the
// whole projections before the head split (q_norm [n_head * head_dim], k_norm [n_kv_head * head_dim]), then RoPE;
// grouped-query attention, a SwiGLU MLP.
//   config.json: num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, intermediate_size,
//                vocab_size, max_position_embeddings, rms_norm_eps, hidden_act, rope_theta, rope_scaling,
//                attention_bias, tie_word_embeddings
//   tensors ("model." prefix or none): embed_tokens, layers.N.{self_attn.{q,k,v,o}_proj, self_attn.{q_norm, k_norm},
//                post_attention_layernorm, mlp.{gate,up,down}_proj, post_feedforward_layernorm}, norm;
//                lm_head.weight when untied.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"
#include "model/gguf_config.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseOlmo2(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(ParseGqaHeads(k, j, c));
  if (c->d_head % 2 != 0) return Status::ErrorAt(k.where(), MsgId::kConfigHeadDimOdd, {std::to_string(c->d_head)});
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 2048, &c->max_positions));
  ATTNVIZ_TRY(k.Double("rms_norm_eps", 0, 1, 1e-5, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "silu", &c->activation));
  ATTNVIZ_TRY(k.Double("rope_theta", 1e-6, 1e12, 10000.0, &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", false, &c->tie_word_embeddings));
  bool bias = false;
  ATTNVIZ_TRY(k.Bool("attention_bias", false, &bias));
  c->qkv_bias = c->o_bias = bias;
  return Status::Ok();
}

// 2. Tensor names -> params
Status BindOlmo2(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embed_tokens.weight", {"model.", ""});
  const int d = c.d_model;
  ATTNVIZ_TRY(b.Get({pre + "embed_tokens.weight", "model.embed_tokens.weight"}, {c.vocab, d}, &p->tok_emb));
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "layers." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.q_proj", d, c.q_dim(), c.qkv_bias, &bp.q));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.k_proj", d, c.kv_dim(), c.qkv_bias, &bp.k));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.v_proj", d, c.kv_dim(), c.qkv_bias, &bp.v));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.o_proj", c.q_dim(), d, c.o_bias, &bp.o));
    ATTNVIZ_TRY(b.RmsNorm(h + "self_attn.q_norm", c.q_dim(), &bp.q_norm));
    ATTNVIZ_TRY(b.RmsNorm(h + "self_attn.k_norm", c.kv_dim(), &bp.k_norm));
    ATTNVIZ_TRY(b.RmsNorm(h + "post_attention_layernorm", d, &bp.attn_out_norm));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.gate_proj", d, c.d_ff, false, &bp.gate));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.up_proj", d, c.d_ff, false, &bp.up));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.down_proj", c.d_ff, d, false, &bp.down));
    ATTNVIZ_TRY(b.RmsNorm(h + "post_feedforward_layernorm", d, &bp.mlp_out_norm));
  }
  ATTNVIZ_TRY(b.RmsNorm(pre + "norm", d, &p->final_norm));
  return BindLmHead(c, b, "lm_head.weight", p);
}

// 3. A GGUF file (llama.cpp's olmo2, convert_hf_to_gguf.py's Olmo2Model: TextModel's keys): no attn_norm or ffn_norm,
// attn_q_norm [q_dim] and attn_k_norm [kv_dim] over the whole projections, post_attention_norm and post_ffw_norm on
// the sublayers' outputs, q and k unpermuted (llama.cpp turns them NEOX-style).
// Refused: olmo2.attention.sliding_window above 0 (Olmo 3's sliding layers, which this family does not build).
Status ReadOlmo2Gguf(const GgufFile& f, const GgufKeys& k, ModelConfig* c) {
  const std::string key = c->model_type + ".attention.sliding_window";
  int window = 0;
  ATTNVIZ_TRY(k.IntOr(key, 0, kMaxPositions, 0, &window));
  if (window > 0) return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {key});
  return Status::Ok();
}

GgufArchitecture Olmo2Gguf() {
  using R = GgufTensorName::Role;
  GgufArchitecture a;
  a.name = "olmo2";
  a.qk_rows_permuted = false;
  a.reads_sliding_window = false;
  a.block = {{"attn_q", "self_attn.q_proj", R::kQ},
             {"attn_k", "self_attn.k_proj", R::kK},
             {"attn_v", "self_attn.v_proj", R::kV},
             {"attn_output", "self_attn.o_proj", R::kO},
             {"attn_q_norm", "self_attn.q_norm", R::kQNorm},
             {"attn_k_norm", "self_attn.k_norm", R::kKNorm},
             {"post_attention_norm", "post_attention_layernorm", R::kNorm},
             {"ffn_gate", "mlp.gate_proj", R::kGate},
             {"ffn_up", "mlp.up_proj", R::kUp},
             {"ffn_down", "mlp.down_proj", R::kDown},
             {"post_ffw_norm", "post_feedforward_layernorm", R::kNorm}};
  a.read_keys = ReadOlmo2Gguf;
  return a;
}

}  // namespace

const Family& Olmo2Family() {
  static const Family family = [] {
    Family f;
    f.name = "olmo2";
    f.model_types = {"olmo2"};
    f.recipe.norm = BlockRecipe::Norm::kRms;
    f.recipe.rope = true;
    f.recipe.gated_mlp = true;
    f.recipe.qk_norm = BlockRecipe::QkNorm::kWhole;
    f.recipe.input_norms = false;
    f.recipe.output_norms = true;
    f.recipe.attn_out_norm_stage = "the attention output norm (post_attention_layernorm)";
    f.recipe.mlp_out_norm_stage = "the MLP output norm (post_feedforward_layernorm)";
    f.recipe.qk_norm_stage = "the q and k norms over the whole projections (self_attn.q_norm, self_attn.k_norm)";
    f.read_config = ParseOlmo2;
    f.bind = BindOlmo2;
    f.gguf = {Olmo2Gguf()};
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
