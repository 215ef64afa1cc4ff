// gpt2 names -> params. GPT2LMHeadModel saves "transformer.h.0...", GPT2Model saves "h.0...".
#include "model/binder.h"
#include "model/config.h"

namespace attnviz::model {

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

}  // namespace attnviz::model
