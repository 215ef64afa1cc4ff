// roberta (RobertaModel, RobertaForMaskedLM; XLMRobertaForMaskedLM the same): BERT's body (bert_body.h) with
// positions offset as HF's create_position_ids_from_input_ids numbers them for a text without padding (token i
// at position pad_token_id + 1 + i), one token type, and the masked-LM head lm_head.
//   config.json: BERT's keys (type_vocab_size default 1) + pad_token_id (default 1); max_position_embeddings
//                counts the offset rows, so a text may have max_position_embeddings - pad_token_id - 1 tokens
//   tensors ("roberta." prefix or none): BERT's embeddings.* and encoder.layer.N.*; lm_head.{dense, layer_norm,
//                bias (or decoder.bias)} when there, the decoder tied to word_embeddings. Skipped: pooler,
//                embeddings.position_ids, embeddings.token_type_ids.
#include "model/arch/bert_body.h"
#include "model/arch/family.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseRoberta(const Keys& k, const json&, ModelConfig* c) {
  ATTNVIZ_TRY(ParseBertBody(k, 1, c));
  int pad = 1;
  ATTNVIZ_TRY(k.IntOr("pad_token_id", 0, c->max_positions - 2, 1, &pad));
  c->position_offset = pad + 1;
  c->max_positions -= c->position_offset;
  return Status::Ok();
}

// 2. Tensor names -> params
Status BindRoberta(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embeddings.word_embeddings.weight", {"roberta.", ""});
  ATTNVIZ_TRY(BindBertBody(c, b, pre, "roberta.", c.max_positions + c.position_offset, p));
  const int d = c.d_model;
  p->pos_emb += (size_t)c.position_offset * d;  // row pad_token_id + 1 is position 0 of the text
  // The masked-LM head (RobertaLMHead): dense, gelu, layer_norm, then the decoder tied to word_embeddings + bias.
  // !! HF's head always uses gelu (erf); the run uses hidden_act, which every released checkpoint sets to gelu.
  const std::string m = "lm_head.";
  if (!b.store().Has(m + "dense.weight")) return Status::Ok();
  LmHead& head = p->lm_head;
  ATTNVIZ_TRY(b.LinearOutIn(m + "dense", d, d, true, &head.transform));
  ATTNVIZ_TRY(b.LayerNorm(m + "layer_norm", d, &head.transform_norm));
  ATTNVIZ_TRY(b.Get({m + "bias", m + "decoder.bias"}, {c.vocab}, &head.b));
  head.w = p->tok_emb;
  return Status::Ok();
}

}  // namespace

const Family& RobertaFamily() {
  static const Family family = [] {
    Family f;
    f.name = "roberta";
    f.model_types = {"roberta", "xlm-roberta"};
    f.recipe = BertFamily().recipe;
    f.read_config = ParseRoberta;
    f.bind = BindRoberta;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
