// tokenizer.ggml.* -> tokenize::GgufVocab (plain values; core/tokenize/gguf_tokenizer.h builds the pipeline).
// Checked: the model name is a string, tokens an array of strings (at most 2^24), scores / token_type arrays of
// numbers as long as tokens, merges an array of strings, bos/eos/unknown ids inside the vocabulary, the add_*
// flags bools. Messages name the file and the key.
#pragma once
#include "base/status.h"
#include "model/gguf_file.h"
#include "tokenize/gguf_vocab.h"

namespace attnviz::model {

Result<tokenize::GgufVocab> ReadGgufVocab(const GgufFile& file);

}  // namespace attnviz::model
