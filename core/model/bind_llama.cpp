// llama / qwen2 / mistral names -> params. *ForCausalLM saves "model.layers.0...", the bare model "layers.0...".
#include "model/binder.h"
#include "model/config.h"

namespace attnviz::model {

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
  if (c.tie_word_embeddings) p->lm_head.w = p->tok_emb;
  else if (b.store().Has("lm_head.weight"))
    if (Status s = b.Get("lm_head.weight", {c.vocab, d}, &p->lm_head.w); !s) return s;
  return Status::Ok();
}

}  // namespace attnviz::model
