// The config keys and layer tensors bart.cpp reads and marian.cpp shares (modeling_marian.py is modeling_bart.py
// with other positions and embeddings): internal to core/model/arch.
#pragma once
#include <functional>
#include <string>

#include "model/arch/config_keys.h"
#include "model/binder.h"
#include "model/seq2seq.h"

namespace attnviz::model {

// d_model, encoder_layers, decoder_layers, encoder_attention_heads, decoder_attention_heads, encoder_ffn_dim,
// decoder_ffn_dim, vocab_size, max_position_embeddings, activation_function, scale_embedding, pad/bos/eos and
// decoder_start_token_id, tie_word_embeddings; with the family's defaults (its configuration_*.py).
struct BartStyleDefaults {
  int vocab = 50265, pad = 1, bos = 0, eos = 2, decoder_start = 2;
};
Status ParseBartStyle(const Keys& k, const BartStyleDefaults& d, Seq2SeqConfig* c);
// What a family binds of each stack before its layers: its tables (pre: "model." or ""; stack: pre + "encoder." or
// pre + "decoder.").
using BartStyleEmbeddings =
    std::function<Status(const std::string& pre, const std::string& stack, bool decoder, Seq2SeqStackParams* s)>;
// Both stacks: `embeddings`, the layers (layers.N.{self_attn.{q,k,v,out}_proj, self_attn_layer_norm,
// [encoder_attn.{q,k,v,out}_proj, encoder_attn_layer_norm,] fc1, fc2, final_layer_norm}) and, with final_norms,
// layer_norm; then lm_head (untied: lm_head.weight) and final_logits_bias [1, decoder_vocab] when stored (absent:
// zeros, as BartForConditionalGeneration starts it).
Status BindBartStyle(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p, const BartStyleEmbeddings& embeddings);

}  // namespace attnviz::model
