#include "model/arch/seq2seq_bind.h"

#include "model/arch/config_keys.h"  // ATTNVIZ_TRY

namespace attnviz::model {

Status BindAttentionProjections(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s, Binder& b, const std::string& name,
                                const std::array<const char*, 4>& suffixes, AttentionParams* a) {
  const int d = c.d_model, inner = s.inner();
  ATTNVIZ_TRY(b.LinearOutIn(name + suffixes[0], d, inner, c.biases, &a->q));
  ATTNVIZ_TRY(b.LinearOutIn(name + suffixes[1], d, inner, c.biases, &a->k));
  ATTNVIZ_TRY(b.LinearOutIn(name + suffixes[2], d, inner, c.biases, &a->v));
  return b.LinearOutIn(name + suffixes[3], inner, d, c.biases, &a->o);
}

Status BindSeq2SeqLmHead(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p) {
  if (c.tie_word_embeddings) {
    p->lm_head = p->decoder.tok_emb;
    return Status::Ok();
  }
  return b.Get("lm_head.weight", {c.decoder_vocab, c.d_model}, &p->lm_head);
}

}  // namespace attnviz::model
