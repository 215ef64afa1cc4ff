// A GGUF file's tokenizer (tokenizer.ggml.*) as the same pipeline object a tokenizer.json builds (pipeline.h), from
// this library's own pieces, so GGUF and folder tokenize alike:
//   model "gpt2"  byte-level BPE: tokens + merges; tokenizer.ggml.pre picks the pre-tokenizer, as llama.cpp's
//                 llama-vocab.cpp does, written as the Hugging Face tokenizer.json of that family writes it:
//                   default, gpt2 (and the gpt2-regex families mpt, olmo, jais)  ByteLevel with GPT-2's regex
//                   llama-bpe, llama3   Split(Llama 3's regex, Isolated) + ByteLevel without regex
//                   qwen2               NFC, Split(Qwen2's regex: digits one by one) + ByteLevel without regex
//                   smollm              Digits(individual) + ByteLevel with GPT-2's regex
//                 no BOS unless add_bos_token.
//   model "llama" SentencePiece BPE with byte fallback: the merges are every split of a token into two tokens,
//                 ranked by the merged token's score (highest first: llama.cpp's SPM merges the pair whose result
//                 scores highest); "▁" for spaces, one in front when add_space_prefix (default true), no split
//                 (Metaspace prepend_scheme first); <0xNN> tokens for bytes; BOS unless add_bos_token is false.
// Control and user-defined tokens are added tokens (found in the text before the model), control ones special.
#pragma once
#include <memory>

#include "base/status.h"
#include "tokenize/gguf_vocab.h"
#include "tokenize/tokenizer.h"

namespace attnviz::tokenize {

Result<std::unique_ptr<Tokenizer>> MakeGgufTokenizer(const GgufVocab& vocab);

}  // namespace attnviz::tokenize
