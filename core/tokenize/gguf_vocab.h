// The tokenizer.ggml.* keys of a GGUF file as plain values (read and checked by core/model/gguf_vocab_reader.h,
// turned into a pipeline by gguf_tokenizer.h). Header only, standard types only, so core/model can fill it without
// linking the tokenizer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnviz::tokenize {

// llama.cpp's token types (tokenizer.ggml.token_type).
enum class GgufTokenType : int32_t { kUndefined = 0, kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4,
                                     kUnused = 5, kByte = 6 };

struct GgufVocab {
  std::string where;                     // the file, for messages
  std::string model;                     // tokenizer.ggml.model: "gpt2" (byte-level BPE), "llama" (SentencePiece)
  std::string pre;                       // tokenizer.ggml.pre ("" when absent: "default")
  std::vector<std::string> tokens;       // by id
  std::vector<float> scores;             // by id, or empty
  std::vector<GgufTokenType> types;      // by id, or empty (all normal)
  std::vector<std::string> merges;       // "left right", in rank order (gpt2)
  std::optional<int> bos, eos, unk;      // ids, checked < tokens.size()
  std::optional<bool> add_bos, add_eos, add_space_prefix;
};

}  // namespace attnviz::tokenize
