// Unigram (SentencePiece's other model) as the Hugging Face library runs it: the segmentation of a word with the
// highest sum of piece scores (Viterbi over every vocabulary piece that starts at each byte), a code point no
// piece covers scored as the unknown token (the lowest score minus 10); consecutive unknown code points fused
// into one unknown token; with byte_fallback an unknown stretch becomes its <0xNN> byte tokens instead.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tokenize/model.h"

namespace attnviz::tokenize {

struct UnigramOptions {
  int unk_id = -1;  // -1: none (a word no piece covers is then an error, as in the library)
  bool byte_fallback = false;
  bool fuse_unk = true;  // the library's Unigram always fuses
};

// `pieces` in id order: (piece, score). Fails when unk_id names no piece; `where` names the file.
Result<std::unique_ptr<Model>> MakeUnigramModel(std::vector<std::pair<std::string, double>> pieces,
                                                UnigramOptions options, const std::string& where);

}  // namespace attnviz::tokenize
