// The binding every encoder-decoder family (bart.cpp, marian.cpp, t5.cpp) does alike: an attention sublayer's four
// projections under the family's names, and the LM head. Internal to core/model/arch.
#pragma once
#include <array>
#include <string>

#include "model/binder.h"
#include "model/seq2seq.h"

namespace attnviz::model {

// "<name><suffix>" for the suffixes of q, k, v (nn.Linear [inner, d_model]) and o ([d_model, inner]), with biases
// where the config has them (Seq2SeqConfig::biases). The sublayer's norm is the family's to bind.
Status BindAttentionProjections(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s, Binder& b, const std::string& name,
                                const std::array<const char*, 4>& suffixes, AttentionParams* a);
// lm_head: the decoder's token table when tied (bind it first), else lm_head.weight [decoder_vocab, d_model].
Status BindSeq2SeqLmHead(const Seq2SeqConfig& c, Binder& b, Seq2SeqParams* p);

}  // namespace attnviz::model
