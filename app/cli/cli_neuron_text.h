// The neuron view (model/analysis.h's NeuronView) as attnviz-cli prints it: JSON, or a table of q, k and q*k per
// dimension with the score's steps. Shared by decoder-only models (cli_model.cpp) and the encoder-decoder stacks
// (cli_seq2seq_analysis.cpp), which add the stack's name and t5's position bias.
#pragma once
#include <string>
#include <vector>

#include "model/analysis.h"
#include "tokenize/token.h"

namespace attnviz {

// What an encoder-decoder stack adds to the view.
struct NeuronStackExtras {
  const char* stack = nullptr;  // "encoder", "decoder", "cross"; null: a decoder-only model (no stack named)
  bool has_position_bias = false;
  double position_bias = 0;  // added to score * scale (the logit's last step)
};

// {"layer", "head", "i", "j", "masked", "q", "k", "product", ..., "score", "scale", ..., "logit", "prob"}; with a
// stack also "stack" and "position_bias" (null where the stack adds none).
std::string NeuronJson(const model::NeuronView& v, const NeuronStackExtras& extras = {});
// queries: the tokens of the query rows, keys: of the key columns (the same for self-attention).
std::string NeuronText(const model::NeuronView& v, const std::vector<tokenize::Token>& queries,
                       const std::vector<tokenize::Token>& keys, const NeuronStackExtras& extras = {});

}  // namespace attnviz
