// marian (MarianMTModel; modeling_marian.py): bart's post-norm layers (bart_body.h) with fixed sinusoidal positions
// (MarianSinusoidalPositionalEmbedding: sin of pos / 10000^(2i / d_model) in the first half of the dims, cos in the
// second half, from position 0; computed here, a stored table is never read), token embeddings * sqrt(d_model) when
// scale_embedding, no embedding LayerNorm, final_logits_bias, decoder_start_token_id = pad.
// share_encoder_decoder_embeddings false: the decoder has a table of its own [decoder_vocab_size, d_model] and the
// logits are over decoder_vocab_size (lm_head tied to the decoder's table, or lm_head.weight when untied).
//   config.json: bart's keys (bart_body.h) + share_encoder_decoder_embeddings, decoder_vocab_size, bad_words_ids
//   tensors ("model." prefix or none): shared (or encoder.embed_tokens, decoder.embed_tokens when not shared),
//                {encoder,decoder}.layers.N.*, lm_head.weight (untied), final_logits_bias [1, decoder_vocab].
//                Skipped: {encoder,decoder}.embed_positions.weight.
#include <cmath>

#include "model/arch/bart_body.h"
#include "model/arch/family.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseMarian(const Keys& k, const json&, Seq2SeqConfig* c) {
  // MarianConfig's defaults (Helsinki-NLP/opus-mt-en-de's sizes).
  ATTNVIZ_TRY(ParseBartStyle(k, BartStyleDefaults{58101, 58100, -1, 0, 58100}, c));
  ATTNVIZ_TRY(k.Bool("share_encoder_decoder_embeddings", true, &c->shared_embeddings));
  ATTNVIZ_TRY(k.IntOr("decoder_vocab_size", 1, kMaxVocab, c->vocab, &c->decoder_vocab));
  if (c->shared_embeddings && c->decoder_vocab != c->vocab)  // one table for both
    return Status::ErrorAt(k.where(), MsgId::kConfigNotInt, {"decoder_vocab_size", std::to_string(c->decoder_vocab),
                                                             std::to_string(c->vocab), std::to_string(c->vocab)});
  // decoder_start_token_id: MarianConfig's default is the pad token.
  if (c->pad_id >= 0) ATTNVIZ_TRY(k.IntOr("decoder_start_token_id", 0, kMaxVocab, c->pad_id, &c->decoder_start_id));
  c->positions = PositionKind::kSinusoidal;
  c->position_offset = 0;
  c->embed_norm = false;
  c->pre_norm = false;
  c->final_norms = false;
  return Status::Ok();
}

// The fixed table [n_pos, d] as MarianSinusoidalPositionalEmbedding._init_weight makes it (float64, then float):
// column i < half = sin(pos / 10000^(2i / d)), column half + i = cos(pos / 10000^(2i / d)); half = ceil(d / 2).
std::vector<float> SinusoidTable(int n_pos, int d) {
  std::vector<float> t((size_t)n_pos * d);
  const int half = d % 2 == 0 ? d / 2 : d / 2 + 1;  // !! odd d: one more sin column than cos columns
  for (int pos = 0; pos < n_pos; ++pos)
    for (int j = 0; j < d; ++j) {
      const bool sin_part = j < half;
      const int i = sin_part ? j : j - half;
      const double angle = pos / std::pow(10000.0, 2.0 * i / d);
      t[(size_t)pos * d + j] = (float)(sin_part ? std::sin(angle) : std::cos(angle));
    }
  return t;
}

// 2. Tensor names -> params: each stack's token table (one shared, or the decoder's own), the computed positions.
Status BindMarian(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p) {
  const int d = c.d_model;
  const float* positions = b.Keep(SinusoidTable(c.max_positions, d));
  return BindBartStyle(c, b, p, [&](const std::string& pre, const std::string& stack, bool decoder,
                                    Seq2SeqStackParams* s) {
    s->pos_emb = positions;
    if (c.shared_embeddings)
      return b.Get({pre + "shared.weight", stack + "embed_tokens.weight"}, {c.vocab, d}, &s->tok_emb);
    return b.Get(stack + "embed_tokens.weight", {decoder ? c.decoder_vocab : c.vocab, d}, &s->tok_emb);
  });
}

}  // namespace

const Seq2SeqFamily& MarianFamily() {
  static const Seq2SeqFamily family = [] {
    Seq2SeqFamily f;
    f.name = "marian";
    f.model_types = {"marian"};
    f.read_config = ParseMarian;
    f.bind = BindMarian;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
