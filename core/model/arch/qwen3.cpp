// qwen3 (Qwen3ForCausalLM or the bare Qwen3Model): llama's pre-RMSNorm block with q/k norms: q_norm and k_norm are
// RMSNorms over each head's head_dim (one weight [head_dim] shared by the heads), after the split and before RoPE;
// grouped-query attention, no q/k/v bias (attention_bias), a head_dim that need not be hidden_size / heads.
//   config.json: num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim (default 128,
//                Qwen3Config's), intermediate_size, vocab_size, max_position_embeddings, rms_norm_eps, hidden_act,
//                rope_theta, rope_scaling, attention_bias, tie_word_embeddings, use_sliding_window,
//                sliding_window, max_window_layers, layer_types
//   tensors ("model." prefix or none): embed_tokens, layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj,
//                self_attn.{q_norm, k_norm}, post_attention_layernorm, mlp.{gate,up,down}_proj}, norm; lm_head.weight
//                when untied.
// !! Sliding layers: layer_types when given, else (Qwen3Config) layer i slides iff use_sliding_window and
//    i >= max_window_layers; without use_sliding_window, sliding_window is ignored.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"
#include "model/gguf_config.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseQwen3(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(ParseHeadsWithHeadDim(k, 128, c));
  if (c->d_head % 2 != 0) return Status::ErrorAt(k.where(), MsgId::kConfigHeadDimOdd, {std::to_string(c->d_head)});
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 32768, &c->max_positions));
  ATTNVIZ_TRY(k.Double("rms_norm_eps", 0, 1, 1e-6, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "silu", &c->activation));
  ATTNVIZ_TRY(k.Double("rope_theta", 1e-6, 1e12, 10000.0, &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", false, &c->tie_word_embeddings));
  bool bias = false;
  ATTNVIZ_TRY(k.Bool("attention_bias", false, &bias));
  c->qkv_bias = c->o_bias = bias;
  bool use_sliding = false;
  int window = 0, max_window_layers = c->n_layer;
  ATTNVIZ_TRY(k.Bool("use_sliding_window", false, &use_sliding));
  ATTNVIZ_TRY(k.IntOr("sliding_window", 1, kMaxPositions, 4096, &window));
  ATTNVIZ_TRY(k.IntOr("max_window_layers", 0, kMaxLayers, 28, &max_window_layers));
  std::vector<bool> derived((size_t)c->n_layer, false);
  for (int l = 0; l < c->n_layer; ++l) derived[(size_t)l] = use_sliding && l >= max_window_layers;
  ATTNVIZ_TRY(ParseLayerTypes(k, j, c->n_layer, derived, use_sliding ? window : 0, &c->layer_window));
  return Status::Ok();
}

// 2. Tensor names -> params
Status BindQwen3(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embed_tokens.weight", {"model.", ""});
  const int d = c.d_model;
  ATTNVIZ_TRY(b.Get({pre + "embed_tokens.weight", "model.embed_tokens.weight"}, {c.vocab, d}, &p->tok_emb));
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "layers." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    ATTNVIZ_TRY(b.RmsNorm(h + "input_layernorm", d, &bp.attn_norm));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.q_proj", d, c.q_dim(), c.qkv_bias, &bp.q));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.k_proj", d, c.kv_dim(), c.qkv_bias, &bp.k));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.v_proj", d, c.kv_dim(), c.qkv_bias, &bp.v));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.o_proj", c.q_dim(), d, c.o_bias, &bp.o));
    ATTNVIZ_TRY(b.RmsNorm(h + "self_attn.q_norm", c.d_head, &bp.q_norm));
    ATTNVIZ_TRY(b.RmsNorm(h + "self_attn.k_norm", c.d_head, &bp.k_norm));
    ATTNVIZ_TRY(b.RmsNorm(h + "post_attention_layernorm", d, &bp.mlp_norm));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.gate_proj", d, c.d_ff, false, &bp.gate));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.up_proj", d, c.d_ff, false, &bp.up));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.down_proj", c.d_ff, d, false, &bp.down));
  }
  ATTNVIZ_TRY(b.RmsNorm(pre + "norm", d, &p->final_norm));
  return BindLmHead(c, b, "lm_head.weight", p);
}

// 3. A GGUF file (llama.cpp's qwen3): llama's keys and tensors with blk.N.attn_{q,k}_norm, q and k unpermuted
// (convert_hf_to_gguf.py's Qwen3Model writes them as they are; llama.cpp turns them NEOX-style). No sliding window
// (llama.cpp's qwen3 has none). Refused: a reranker's cls.output (its classifier head).
Status ReadQwen3Gguf(const GgufFile& f, const GgufKeys&, ModelConfig*) {
  if (f.FindTensor("cls.output.weight")) return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {"cls.output.weight"});
  return Status::Ok();
}

GgufArchitecture Qwen3Gguf() {
  using R = GgufTensorName::Role;
  GgufArchitecture a;
  a.name = "qwen3";
  a.qk_rows_permuted = false;
  a.reads_sliding_window = false;
  a.block = LlamaGgufBlock();
  a.block.insert(a.block.begin() + 5, {{"attn_q_norm", "self_attn.q_norm", R::kQNorm},
                                       {"attn_k_norm", "self_attn.k_norm", R::kKNorm}});
  a.read_keys = ReadQwen3Gguf;
  return a;
}

}  // namespace

const Family& Qwen3Family() {
  static const Family family = [] {
    Family f;
    f.name = "qwen3";
    f.model_types = {"qwen3"};
    f.recipe.norm = BlockRecipe::Norm::kRms;
    f.recipe.rope = true;
    f.recipe.gated_mlp = true;
    f.recipe.qk_norm = BlockRecipe::QkNorm::kPerHead;
    f.recipe.attn_norm_stage = "the attention's input norm (input_layernorm)";
    f.recipe.mlp_norm_stage = "the MLP's input norm (post_attention_layernorm)";
    f.recipe.qk_norm_stage = "the per-head q and k norms (self_attn.q_norm, self_attn.k_norm)";
    f.read_config = ParseQwen3;
    f.bind = BindQwen3;
    f.gguf = {Qwen3Gguf()};
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
