// BERT's encoder as bert.cpp reads and binds it, shared with the families built on the same body (roberta.cpp):
// the config keys, and the tensors under a prefix (embeddings.*, encoder.layer.N.*). Internal to core/model/arch.
#pragma once
#include <string>

#include "model/arch/config_keys.h"
#include "model/binder.h"
#include "model/config.h"
#include "model/params.h"

namespace attnviz::model {

// num_hidden_layers, num_attention_heads, hidden_size, intermediate_size, vocab_size, max_position_embeddings,
// type_vocab_size (default `type_vocab_default`), layer_norm_eps, hidden_act, position_embedding_type.
Status ParseBertBody(const Keys& k, int type_vocab_default, ModelConfig* c);
// Embeddings and blocks under `pre` ("bert.", "roberta.", ""; messages also name the word embeddings under
// `family_prefix`); the position table has `position_rows` rows.
Status BindBertBody(const ModelConfig& c, Binder& b, const std::string& pre, const std::string& family_prefix,
                    int position_rows, ModelParams* p);

}  // namespace attnviz::model
