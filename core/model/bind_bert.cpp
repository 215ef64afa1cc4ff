// bert names -> params. BertFor* saves "bert.embeddings...", BertModel saves "embeddings...".
#include "model/binder.h"
#include "model/config.h"

namespace attnviz::model {

Status BindBert(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embeddings.word_embeddings.weight", {"bert.", ""});
  const int d = c.d_model;
  const std::string e = pre + "embeddings.";
  if (Status s = b.Get({e + "word_embeddings.weight", "bert.embeddings.word_embeddings.weight"}, {c.vocab, d}, &p->tok_emb); !s) return s;
  if (Status s = b.Get(e + "position_embeddings.weight", {c.max_positions, d}, &p->pos_emb); !s) return s;
  if (c.type_vocab_size > 0)
    if (Status s = b.Get(e + "token_type_embeddings.weight", {c.type_vocab_size, d}, &p->type_emb); !s) return s;
  if (Status s = b.LayerNorm(e + "LayerNorm", d, &p->emb_norm); !s) return s;
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "encoder.layer." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    if (Status s = b.LinearOutIn(h + "attention.self.query", d, d, true, &bp.q); !s) return s;
    if (Status s = b.LinearOutIn(h + "attention.self.key", d, d, true, &bp.k); !s) return s;
    if (Status s = b.LinearOutIn(h + "attention.self.value", d, d, true, &bp.v); !s) return s;
    if (Status s = b.LinearOutIn(h + "attention.output.dense", d, d, true, &bp.o); !s) return s;
    if (Status s = b.LayerNorm(h + "attention.output.LayerNorm", d, &bp.attn_norm); !s) return s;
    if (Status s = b.LinearOutIn(h + "intermediate.dense", d, c.d_ff, true, &bp.up); !s) return s;
    if (Status s = b.LinearOutIn(h + "output.dense", c.d_ff, d, true, &bp.down); !s) return s;
    if (Status s = b.LayerNorm(h + "output.LayerNorm", d, &bp.mlp_norm); !s) return s;
  }
  // The masked-LM head (BertForMaskedLM's cls.predictions.*), when the checkpoint has one. The decoder is tied
  // to word_embeddings (HF's default; a stored cls.predictions.decoder.weight is then ignored) + its own bias.
  const std::string m = "cls.predictions.";
  if (!b.store().Has(m + "transform.dense.weight")) return Status::Ok();
  LmHead& head = p->lm_head;
  if (Status s = b.LinearOutIn(m + "transform.dense", d, d, true, &head.transform); !s) return s;
  if (Status s = b.LayerNorm(m + "transform.LayerNorm", d, &head.transform_norm); !s) return s;
  if (Status s = b.Get({m + "bias", m + "decoder.bias"}, {c.vocab}, &head.b); !s) return s;
  if (c.tie_word_embeddings) head.w = p->tok_emb;
  else if (Status s = b.Get(m + "decoder.weight", {c.vocab, d}, &head.w); !s) return s;
  return Status::Ok();
}

}  // namespace attnviz::model
