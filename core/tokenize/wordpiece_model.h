// WordPiece (BERT): greedy longest match first from the start of the word, later pieces carrying the "##"
// continuation prefix. A word that cannot be covered completely, or is longer than max_input_chars_per_word
// code points, becomes the single unknown token. Also WordLevel: the whole word or the unknown token.
#pragma once
#include <memory>
#include <string>

#include "tokenize/model.h"

namespace attnviz::tokenize {

// The most max_input_chars_per_word a file may ask for (the library's default is 100); larger is refused.
constexpr size_t kMaxWordPieceChars = 1000;

struct WordPieceOptions {
  std::string unk_token = "[UNK]";
  std::string continuing_subword_prefix = "##";
  size_t max_input_chars_per_word = 100;
};

// Fails when the unknown token is not in the vocabulary.
Result<std::unique_ptr<Model>> MakeWordPieceModel(Vocab vocab, WordPieceOptions options, const std::string& where);
Result<std::unique_ptr<Model>> MakeWordLevelModel(Vocab vocab, std::string unk_token, const std::string& where);

}  // namespace attnviz::tokenize
