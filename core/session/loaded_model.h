// A model as both programs hold it once loaded: the checkpoint (core/model) and its tokenizer (core/tokenize),
// shared and immutable, and the text -> tokens step every run starts with. Opening one from a path (the bundled
// model, GGUF files, folders) is the programs' (app/common/model_folder.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/model.h"
#include "tokenize/tokenizer.h"

namespace attnviz {

struct ModelFolder {
  std::string dir;
  std::shared_ptr<const model::Model> model;
  std::shared_ptr<const tokenize::Tokenizer> tokenizer;
  std::string Describe() const;  // "DIR: gpt2, 12 layers ... · tokenizer.json: BPE ..."
};

// No token of a real text covers more bytes than this (a long word becomes several tokens); a text of more than
// max_positions times this many bytes cannot fit the model and is refused before it is tokenized.
inline constexpr size_t kMaxBytesPerToken = 64;

// The model's tokens for `text` (with the model's special tokens, as its tokenizer adds them by
// default). Refuses text longer than the model's positions, naming both numbers (a text of more than
// max_positions * kMaxBytesPerToken bytes before tokenizing), and control characters, as the sandbox does.
Result<std::vector<tokenize::Token>> TokenizeForModel(const ModelFolder& folder, const std::string& text);
std::vector<int> TokenIds(const std::vector<tokenize::Token>& tokens);
// The token an id stands for, as the tokenizer would show it (piece, bytes, display, special): a token the run reads
// without having tokenized a text (a decoder start token, a generated one). An id with no piece reads "#<id>".
tokenize::Token TokenOfId(const tokenize::Tokenizer& tokenizer, int id);
// The longest start of `text`, cut where a token ends, that TokenizeForModel takes: what "use the first
// max_positions tokens" runs for a text too long for the model (the special tokens the tokenizer adds counted).
// `text` itself when it fits; an error when no start of it does.
Result<std::string> TextOfFirstTokens(const ModelFolder& folder, const std::string& text);
// The positions of the mask token ("[MASK]", roberta's "<mask>"): where a masked-LM head (bert) predicts.
std::vector<int> MaskPositions(const std::vector<tokenize::Token>& tokens);

}  // namespace attnviz
