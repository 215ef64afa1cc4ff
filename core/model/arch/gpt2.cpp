// gpt2 (GPT2Model, GPT2LMHeadModel): pre-LayerNorm blocks, one fused Conv1D c_attn, a gelu MLP, learned positions,
// causal attention (scale_attn_by_inverse_layer_idx: logits / (layer + 1) too).
//   config.json: n_layer, n_head, n_embd, n_inner (null -> 4 n_embd), n_positions (n_ctx), vocab_size,
//                layer_norm_epsilon, activation_function, scale_attn_weights, scale_attn_by_inverse_layer_idx,
//                tie_word_embeddings
//   tensors ("transformer." prefix or none): wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc,
//                mlp.c_proj}, ln_f; lm_head.weight when untied. !! Conv1D weights are [in, out].
//                Skipped: h.N.attn.bias / masked_bias buffers.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseGpt2(const Keys& k, const json&, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("n_layer", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(k.Int("n_head", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.Int("n_embd", 1, kMaxWidth, &c->d_model));
  ATTNVIZ_TRY(k.IntOr("n_inner", 1, 16 * kMaxWidth, 4 * c->d_model, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  int n_ctx = 1024;
  ATTNVIZ_TRY(k.IntOr("n_ctx", 1, kMaxPositions, 1024, &n_ctx));  // old configs
  ATTNVIZ_TRY(k.IntOr("n_positions", 1, kMaxPositions, n_ctx, &c->max_positions));
  ATTNVIZ_TRY(k.Double("layer_norm_epsilon", 0, 1, 1e-5, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "activation_function", "gelu_new", &c->activation));
  ATTNVIZ_TRY(k.Bool("scale_attn_weights", true, &c->scale_attn));
  ATTNVIZ_TRY(k.Bool("scale_attn_by_inverse_layer_idx", false, &c->scale_by_inverse_layer_idx));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", true, &c->tie_word_embeddings));
  if (c->d_model % c->n_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple,
                           {"n_embd", std::to_string(c->d_model), "n_head", std::to_string(c->n_head)});
  c->n_kv_head = c->n_head;
  c->d_head = c->d_model / c->n_head;
  return Status::Ok();
}

// 2. Tensor names -> params
Status BindGpt2(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "wte.weight", {"transformer.", ""});
  const int d = c.d_model;
  if (Status s = b.Get({pre + "wte.weight", "transformer.wte.weight"}, {c.vocab, d}, &p->tok_emb); !s) return s;
  if (Status s = b.Get(pre + "wpe.weight", {c.max_positions, d}, &p->pos_emb); !s) return s;
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "h." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    if (Status s = b.LayerNorm(h + "ln_1", d, &bp.attn_norm); !s) return s;
    // 1. Fused c_attn [d, 3d] (!! Conv1D): q, k, v are its column blocks 0..d, d..2d, 2d..3d.
    Linear qkv;
    if (Status s = b.Conv1D(h + "attn.c_attn", d, 3 * d, &qkv); !s) return s;
    for (int i = 0; i < 3; ++i) {
      Linear part = qkv;
      part.w = qkv.w + i * d;
      part.b = qkv.b + i * d;
      part.out = d;  // ld stays 3d
      (i == 0 ? bp.q : i == 1 ? bp.k : bp.v) = part;
    }
    if (Status s = b.Conv1D(h + "attn.c_proj", d, d, &bp.o); !s) return s;
    if (Status s = b.LayerNorm(h + "ln_2", d, &bp.mlp_norm); !s) return s;
    if (Status s = b.Conv1D(h + "mlp.c_fc", d, c.d_ff, &bp.up); !s) return s;
    if (Status s = b.Conv1D(h + "mlp.c_proj", c.d_ff, d, &bp.down); !s) return s;
  }
  if (Status s = b.LayerNorm(pre + "ln_f", d, &p->final_norm); !s) return s;
  // The LM head: tied (HF's default for gpt2) = wte, as HF ties it (a stored lm_head.weight is then ignored).
  if (c.tie_word_embeddings) p->lm_head.w = p->tok_emb;
  else if (b.store().Has("lm_head.weight"))
    if (Status s = b.Get("lm_head.weight", {c.vocab, d}, &p->lm_head.w); !s) return s;
  return Status::Ok();
}

}  // namespace

const Family& Gpt2Family() {
  static const Family family = [] {
    Family f;
    f.name = "gpt2";
    f.model_types = {"gpt2"};
    f.recipe.norm = BlockRecipe::Norm::kLayerNorm;
    f.recipe.attn_norm_stage = "the attention's input norm (ln_1)";
    f.recipe.mlp_norm_stage = "the MLP's input norm (ln_2)";
    f.read_config = ParseGpt2;
    f.bind = BindGpt2;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
