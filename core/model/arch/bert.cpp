// bert (BertModel, BertFor*): post-LayerNorm blocks (x = LN(x + sublayer(x))), a LayerNorm after the summed
// word, position and token-type embeddings, bidirectional attention, the masked-LM head (cls.predictions).
//   config.json: num_hidden_layers, num_attention_heads, hidden_size, intermediate_size, max_position_embeddings,
//                vocab_size, type_vocab_size, layer_norm_eps, hidden_act, position_embedding_type ("absolute" only)
//   tensors ("bert." prefix or none): embeddings.{word,position,token_type}_embeddings, embeddings.LayerNorm,
//                encoder.layer.N.{attention.self.{query,key,value}, attention.output.{dense, LayerNorm},
//                intermediate.dense, output.{dense, LayerNorm}}, cls.predictions.* when there; LayerNorm.gamma/beta
//                accepted for weight/bias. Skipped: pooler, embeddings.position_ids.
#include "model/arch/bert_body.h"
#include "model/arch/family.h"

namespace attnviz::model {

// 1. config.json
Status ParseBertBody(const Keys& k, int type_vocab_default, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(k.Int("num_attention_heads", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.Int("hidden_size", 1, kMaxWidth, &c->d_model));
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 512, &c->max_positions));
  ATTNVIZ_TRY(k.IntOr("type_vocab_size", 0, kMaxVocab, type_vocab_default, &c->type_vocab_size));
  ATTNVIZ_TRY(k.Double("layer_norm_eps", 0, 1, 1e-12, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "gelu", &c->activation));
  std::string pe;
  ATTNVIZ_TRY(k.String("position_embedding_type", "absolute", &pe));
  if (pe != "absolute")
    return Status::ErrorAt(k.where(), MsgId::kConfigPositionEmbedding, {CappedValue(pe)});
  if (c->d_model % c->n_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple, {"hidden_size", std::to_string(c->d_model),
                                                                  "num_attention_heads", std::to_string(c->n_head)});
  c->n_kv_head = c->n_head;
  c->d_head = c->d_model / c->n_head;
  c->tie_word_embeddings = true;
  return Status::Ok();
}

// 2. Tensor names -> params
Status BindBertBody(const ModelConfig& c, Binder& b, const std::string& pre, const std::string& family_prefix,
                    int position_rows, ModelParams* p) {
  const int d = c.d_model;
  const std::string e = pre + "embeddings.";
  if (Status s = b.Get({e + "word_embeddings.weight", family_prefix + "embeddings.word_embeddings.weight"}, {c.vocab, d}, &p->tok_emb); !s) return s;
  if (Status s = b.Get(e + "position_embeddings.weight", {position_rows, d}, &p->pos_emb); !s) return s;
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
  return Status::Ok();
}

namespace {

Status ParseBert(const Keys& k, const json&, ModelConfig* c) { return ParseBertBody(k, 2, c); }

Status BindBert(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embeddings.word_embeddings.weight", {"bert.", ""});
  if (Status s = BindBertBody(c, b, pre, "bert.", c.max_positions, p); !s) return s;
  const int d = c.d_model;
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

}  // namespace

const Family& BertFamily() {
  static const Family family = [] {
    Family f;
    f.name = "bert";
    f.model_types = {"bert"};
    f.recipe.norm = BlockRecipe::Norm::kLayerNorm;
    f.recipe.post_norm = true;
    f.recipe.embed_norm = true;
    f.recipe.bidirectional = true;
    f.recipe.masked_lm = true;
    f.recipe.attn_norm_stage = "the attention's output norm";
    f.recipe.mlp_norm_stage = "the MLP's output norm";
    f.read_config = ParseBert;
    f.bind = BindBert;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
