// bart, mbart (BartForConditionalGeneration, MBartForConditionalGeneration; modeling_bart.py, modeling_mbart.py):
// learned positions read at row position + 2 (BartLearnedPositionalEmbedding's offset), token embeddings
// * sqrt(d_model) when scale_embedding, a LayerNorm of the embeddings (layernorm_embedding), q scaled by
// d_head^-0.5 before q.k, biases everywhere, one shared token table (model.shared, tied lm_head) + final_logits_bias.
//   bart:  post-norm layers (x = LN(x + f(x))), no final norm
//   mbart: pre-norm layers (x = x + f(LN(x))), a final layer_norm per stack
//   config.json: see bart_body.h (ParseBartStyle); bart's normalize_before / add_final_layer_norm are not read
//                (modeling_bart.py does not read them either)
//   tensors ("model." prefix or none): shared, {encoder,decoder}.embed_tokens (tied copies, either may be the one
//                stored), {encoder,decoder}.embed_positions [max_position_embeddings + 2, d_model],
//                {encoder,decoder}.layernorm_embedding, {encoder,decoder}.layers.N.*, mbart {encoder,decoder}.layer_norm,
//                lm_head.weight (untied), final_logits_bias [1, vocab].
#include "model/arch/bart_body.h"
#include "model/arch/family.h"
#include "model/arch/seq2seq_bind.h"

namespace attnviz::model {

Status ParseBartStyle(const Keys& k, const BartStyleDefaults& d, Seq2SeqConfig* c) {
  ATTNVIZ_TRY(k.Int("d_model", 1, kMaxWidth, &c->d_model));
  ATTNVIZ_TRY(k.Int("encoder_layers", 1, kMaxLayers, &c->encoder.n_layer));
  ATTNVIZ_TRY(k.Int("decoder_layers", 1, kMaxLayers, &c->decoder.n_layer));
  ATTNVIZ_TRY(k.Int("encoder_attention_heads", 1, kMaxHeads, &c->encoder.n_head));
  ATTNVIZ_TRY(k.Int("decoder_attention_heads", 1, kMaxHeads, &c->decoder.n_head));
  ATTNVIZ_TRY(k.Int("encoder_ffn_dim", 1, 16 * kMaxWidth, &c->encoder.d_ff));
  ATTNVIZ_TRY(k.Int("decoder_ffn_dim", 1, 16 * kMaxWidth, &c->decoder.d_ff));
  ATTNVIZ_TRY(k.IntOr("vocab_size", 1, kMaxVocab, d.vocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 1024, &c->max_positions));
  ATTNVIZ_TRY(ParseActivation(k, "activation_function", "gelu", &c->activation));
  ATTNVIZ_TRY(k.Bool("scale_embedding", false, &c->scale_embedding));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", true, &c->tie_word_embeddings));
  ATTNVIZ_TRY(k.IntOr("pad_token_id", -1, kMaxVocab, d.pad, &c->pad_id));
  ATTNVIZ_TRY(k.IntOr("bos_token_id", -1, kMaxVocab, d.bos, &c->bos_id));
  ATTNVIZ_TRY(k.IntOr("eos_token_id", -1, kMaxVocab, d.eos, &c->eos_id));
  ATTNVIZ_TRY(k.IntOr("decoder_start_token_id", 0, kMaxVocab, d.decoder_start, &c->decoder_start_id));
  for (auto [stack, heads_key] : {std::pair{&c->encoder, "encoder_attention_heads"},
                                  std::pair{&c->decoder, "decoder_attention_heads"}}) {
    if (c->d_model % stack->n_head != 0)
      return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple,
                             {"d_model", std::to_string(c->d_model), heads_key, std::to_string(stack->n_head)});
    stack->d_head = c->d_model / stack->n_head;
  }
  c->decoder_vocab = c->vocab;
  c->norm = BlockRecipe::Norm::kLayerNorm;
  c->norm_eps = 1e-5;  // nn.LayerNorm's default: the modeling code passes no eps
  c->biases = true;
  c->scale_q = true;
  c->final_logits_bias = true;
  return Status::Ok();
}

namespace {

Status BindAttention(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s, Binder& b, const std::string& name,
                     AttentionParams* a) {
  ATTNVIZ_TRY(BindAttentionProjections(c, s, b, name, {".q_proj", ".k_proj", ".v_proj", ".out_proj"}, a));
  return b.LayerNorm(name + "_layer_norm", c.d_model, &a->norm);
}

// One stack's layers under `stack` ("model.encoder." / "model.decoder."): layers.N.{self_attn.{q,k,v,out}_proj,
// self_attn_layer_norm, [encoder_attn.{q,k,v,out}_proj, encoder_attn_layer_norm,] fc1, fc2, final_layer_norm}.
Status BindLayers(const Seq2SeqConfig& c, Binder& b, const std::string& stack, bool decoder, Seq2SeqStackParams* p) {
  const Seq2SeqStackConfig& s = decoder ? c.decoder : c.encoder;
  const int d = c.d_model;
  p->layers.resize((size_t)s.n_layer);
  for (int l = 0; l < s.n_layer; ++l) {
    const std::string h = stack + "layers." + std::to_string(l) + ".";
    Seq2SeqLayerParams& lp = p->layers[(size_t)l];
    ATTNVIZ_TRY(BindAttention(c, s, b, h + "self_attn", &lp.self_attn));
    if (decoder) ATTNVIZ_TRY(BindAttention(c, s, b, h + "encoder_attn", &lp.cross_attn));
    ATTNVIZ_TRY(b.LinearOutIn(h + "fc1", d, s.d_ff, true, &lp.mlp.up));
    ATTNVIZ_TRY(b.LinearOutIn(h + "fc2", s.d_ff, d, true, &lp.mlp.down));
    ATTNVIZ_TRY(b.LayerNorm(h + "final_layer_norm", d, &lp.mlp.norm));
  }
  return Status::Ok();
}

}  // namespace

Status BindBartStyle(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p, const BartStyleEmbeddings& embeddings) {
  const std::string pre = DetectPrefix(b.store(), "encoder.layers.0.fc1.weight", {"model.", ""});
  for (const bool decoder : {false, true}) {
    const std::string stack = pre + (decoder ? "decoder." : "encoder.");
    Seq2SeqStackParams& s = decoder ? p->decoder : p->encoder;
    ATTNVIZ_TRY(embeddings(pre, stack, decoder, &s));
    ATTNVIZ_TRY(BindLayers(c, b, stack, decoder, &s));
    if (c.final_norms) ATTNVIZ_TRY(b.LayerNorm(stack + "layer_norm", c.d_model, &s.final_norm));
  }
  ATTNVIZ_TRY(BindSeq2SeqLmHead(c, b, p));
  if (!b.store().Has("final_logits_bias")) return Status::Ok();
  return b.Get("final_logits_bias", {1, c.decoder_vocab}, &p->final_logits_bias);
}

namespace {

// 1. config.json
Status ParseBart(const Keys& k, const json&, Seq2SeqConfig* c) {
  ATTNVIZ_TRY(ParseBartStyle(k, BartStyleDefaults{}, c));
  const bool mbart = c->model_type == "mbart";
  c->positions = PositionKind::kLearned;
  c->position_offset = 2;
  c->embed_norm = true;
  c->pre_norm = mbart;
  c->final_norms = mbart;
  return Status::Ok();
}

// 2. Tensor names -> params: the one shared token table (tied: any of its names may be the one stored), the learned
// positions, layernorm_embedding.
Status BindBart(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p) {
  const int d = c.d_model;
  return BindBartStyle(c, b, p, [&](const std::string& pre, const std::string& stack, bool, Seq2SeqStackParams* s) {
    ATTNVIZ_TRY(b.Get({pre + "shared.weight", stack + "embed_tokens.weight", "model.shared.weight"}, {c.vocab, d},
                      &s->tok_emb));
    ATTNVIZ_TRY(b.Get(stack + "embed_positions.weight", {c.max_positions + c.position_offset, d}, &s->pos_emb));
    return b.LayerNorm(stack + "layernorm_embedding", d, &s->emb_norm);
  });
}

}  // namespace

const Seq2SeqFamily& BartFamily() {
  static const Seq2SeqFamily family = [] {
    Seq2SeqFamily f;
    f.name = "bart";
    f.model_types = {"bart", "mbart"};
    f.read_config = ParseBart;
    f.bind = BindBart;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
