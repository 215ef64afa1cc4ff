// t5, mt5 (T5ForConditionalGeneration, MT5ForConditionalGeneration; modeling_t5.py, modeling_mt5.py is the same
// code): pre-norm layers with T5LayerNorm (an RMSNorm: no mean, no bias), no biases anywhere, no 1/sqrt(d) scaling
// of q.k, no position table: a bias per head added to the scores, looked up by the log bucket of (key - query)
// (T5Attention._relative_position_bucket) in the relative_attention_bias of each stack's FIRST layer and shared by
// the stack's layers (bidirectional in the encoder, causal in the decoder, none in cross-attention); a
// final_layer_norm per stack. d_kv (the per-head width) need not be d_model / num_heads.
// feed_forward_proj: "relu" (v1.0: wo(relu(wi x))), "gated-gelu" (v1.1, mt5: wo(gelu_new(wi_0 x) * wi_1 x)),
// "gated-<act>", "<act>". tie_word_embeddings (default true): lm_head = shared and the decoder output is scaled by
// d_model^-0.5 before it; untied (v1.1, mt5): lm_head.weight, no rescale.
//   config.json: d_model, d_kv, d_ff, num_layers, num_decoder_layers (default num_layers), num_heads,
//                relative_attention_num_buckets, relative_attention_max_distance, layer_norm_epsilon,
//                feed_forward_proj, tie_word_embeddings, vocab_size, pad/eos/decoder_start_token_id
//   tensors: shared (or encoder.embed_tokens / decoder.embed_tokens), {encoder,decoder}.block.N.layer.0.SelfAttention.
//                {q,k,v,o}, block.0's SelfAttention.relative_attention_bias [num_buckets, num_heads], layer.0.layer_norm,
//                decoder layer.1.EncDecAttention.{q,k,v,o} + layer.1.layer_norm, the MLP layer (encoder 1, decoder 2):
//                DenseReluDense.{wi | wi_0, wi_1, wo} + layer_norm, {encoder,decoder}.final_layer_norm, lm_head.weight.
// umt5 (a bias in every layer) is refused by name (arch/refused.cpp).
#include <array>

#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/arch/seq2seq_bind.h"
#include "model/binder.h"
#include "model/seq2seq.h"

namespace attnviz::model {
namespace {

// feed_forward_proj as T5Config reads it: "[gated-]ACT"; "gated-gelu" is gelu_new (tanh).
Status ParseFeedForward(const Keys& k, Seq2SeqConfig* c) {
  std::string ff;
  ATTNVIZ_TRY(k.String("feed_forward_proj", "relu", &ff));
  std::string act = ff;
  c->gated_mlp = false;
  if (ff.rfind("gated-", 0) == 0) {
    c->gated_mlp = true;
    act = ff.substr(6);
  }
  if (ff == "gated-gelu") act = "gelu_new";
  // "gated-gelu-x", "foo-relu": no form T5Config reads.
  if (act.find('-') != std::string::npos)
    return Status::ErrorAt(k.where(), MsgId::kConfigActivation, {"feed_forward_proj", CappedValue(ff)});
  const json one = {{"feed_forward_proj", act}};
  return ParseActivation(Keys(one, k.where()), "feed_forward_proj", "", &c->activation);
}

// 1. config.json
Status ParseT5(const Keys& k, const json&, Seq2SeqConfig* c) {
  ATTNVIZ_TRY(k.Int("d_model", 1, kMaxWidth, &c->d_model));
  int d_kv = 0, heads = 0, d_ff = 0, layers = 0;
  ATTNVIZ_TRY(k.IntOr("d_kv", 1, kMaxWidth, 64, &d_kv));
  ATTNVIZ_TRY(k.IntOr("d_ff", 1, 16 * kMaxWidth, 2048, &d_ff));
  ATTNVIZ_TRY(k.IntOr("num_layers", 1, kMaxLayers, 6, &layers));
  ATTNVIZ_TRY(k.IntOr("num_heads", 1, kMaxHeads, 8, &heads));
  c->encoder = {layers, heads, d_kv, d_ff};
  c->decoder = c->encoder;
  ATTNVIZ_TRY(k.IntOr("num_decoder_layers", 1, kMaxLayers, layers, &c->decoder.n_layer));
  ATTNVIZ_TRY(k.IntOr("vocab_size", 1, kMaxVocab, 32128, &c->vocab));
  c->decoder_vocab = c->vocab;
  // Each half of the buckets (bidirectional) needs an exact bucket, and the log buckets start past the exact ones.
  ATTNVIZ_TRY(k.IntOr("relative_attention_num_buckets", 4, 1 << 16, 32, &c->num_buckets));
  ATTNVIZ_TRY(k.IntOr("relative_attention_max_distance", c->num_buckets / 4 + 1, kMaxPositions, 128, &c->max_distance));
  ATTNVIZ_TRY(k.Double("layer_norm_epsilon", 0, 1, 1e-6, &c->norm_eps));
  ATTNVIZ_TRY(ParseFeedForward(k, c));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", true, &c->tie_word_embeddings));
  ATTNVIZ_TRY(k.IntOr("pad_token_id", -1, kMaxVocab, 0, &c->pad_id));
  ATTNVIZ_TRY(k.IntOr("eos_token_id", -1, kMaxVocab, 1, &c->eos_id));
  c->bos_id = -1;
  ATTNVIZ_TRY(k.IntOr("decoder_start_token_id", 0, kMaxVocab, c->pad_id >= 0 ? c->pad_id : 0, &c->decoder_start_id));
  c->positions = PositionKind::kRelative;
  c->max_positions = 0;
  c->position_offset = 0;
  c->scale_embedding = false;
  c->embed_norm = false;
  c->norm = BlockRecipe::Norm::kRms;
  c->pre_norm = true;
  c->final_norms = true;
  c->biases = false;
  c->scale_q = false;
  c->lm_head_rescale = c->tie_word_embeddings;
  c->final_logits_bias = false;
  return Status::Ok();
}

Status BindMlp(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s, Binder& b, const std::string& layer, MlpParams* m) {
  const int d = c.d_model;
  const std::string ff = layer + "DenseReluDense.";
  if (c.gated_mlp) {
    ATTNVIZ_TRY(b.LinearOutIn(ff + "wi_0", d, s.d_ff, false, &m->gate));
    ATTNVIZ_TRY(b.LinearOutIn(ff + "wi_1", d, s.d_ff, false, &m->up));
  } else {
    ATTNVIZ_TRY(b.LinearOutIn(ff + "wi", d, s.d_ff, false, &m->up));
  }
  ATTNVIZ_TRY(b.LinearOutIn(ff + "wo", s.d_ff, d, false, &m->down));
  return b.RmsNorm(layer + "layer_norm", d, &m->norm);
}

// 2. Tensor names -> params
constexpr std::array<const char*, 4> kProjections = {".q", ".k", ".v", ".o"};

Status BindT5(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p) {
  const int d = c.d_model;
  for (const bool decoder : {false, true}) {
    const std::string stack = decoder ? "decoder." : "encoder.";
    const Seq2SeqStackConfig& sc = decoder ? c.decoder : c.encoder;
    Seq2SeqStackParams& s = decoder ? p->decoder : p->encoder;
    ATTNVIZ_TRY(b.Get({"shared.weight", stack + "embed_tokens.weight"}, {c.vocab, d}, &s.tok_emb));
    // Only block 0 has the table (has_relative_attention_bias); every layer of the stack adds the bias it makes.
    ATTNVIZ_TRY(b.Get(stack + "block.0.layer.0.SelfAttention.relative_attention_bias.weight", {c.num_buckets, sc.n_head},
                      &s.relative_bias));
    s.layers.resize((size_t)sc.n_layer);
    for (int l = 0; l < sc.n_layer; ++l) {
      const std::string h = stack + "block." + std::to_string(l) + ".layer.";
      Seq2SeqLayerParams& lp = s.layers[(size_t)l];
      ATTNVIZ_TRY(BindAttentionProjections(c, sc, b, h + "0.SelfAttention", kProjections, &lp.self_attn));
      ATTNVIZ_TRY(b.RmsNorm(h + "0.layer_norm", d, &lp.self_attn.norm));
      if (decoder) {
        ATTNVIZ_TRY(BindAttentionProjections(c, sc, b, h + "1.EncDecAttention", kProjections, &lp.cross_attn));
        ATTNVIZ_TRY(b.RmsNorm(h + "1.layer_norm", d, &lp.cross_attn.norm));
      }
      ATTNVIZ_TRY(BindMlp(c, sc, b, h + (decoder ? "2." : "1."), &lp.mlp));
    }
    ATTNVIZ_TRY(b.RmsNorm(stack + "final_layer_norm", d, &s.final_norm));
  }
  return BindSeq2SeqLmHead(c, b, p);
}

}  // namespace

const Seq2SeqFamily& T5Family() {
  static const Seq2SeqFamily family = [] {
    Seq2SeqFamily f;
    f.name = "t5";
    f.model_types = {"t5", "mt5"};
    f.read_config = ParseT5;
    f.bind = BindT5;
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
