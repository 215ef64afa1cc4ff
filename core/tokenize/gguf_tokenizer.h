// A GGUF file's tokenizer (tokenizer.ggml.*) as the same pipeline object a tokenizer.json builds (pipeline.h), from
// this library's own pieces, so GGUF and folder tokenize alike:
//   model "gpt2"  byte-level BPE: tokens + merges; tokenizer.ggml.pre picks the pre-tokenizer, as llama.cpp's
//                 llama-vocab.cpp does, written as the Hugging Face tokenizer.json of that family writes it:
//                   default, gpt2 (and the gpt2-regex families mpt, olmo, jais)  ByteLevel with GPT-2's regex
//                   llama-bpe, llama3   Split(Llama 3's regex, Isolated) + ByteLevel without regex
//                   qwen2               NFC, Split(Qwen2's regex: digits one by one) + ByteLevel without regex
//                   smollm              Digits(individual) + ByteLevel with GPT-2's regex
//                 no BOS unless add_bos_token.
//   model "llama" SentencePiece with byte fallback, merged as llama.cpp's SPM tokenizer merges (spm_model.h: two
//                 neighbours whose text is a piece, highest score first); "▁" for spaces, and when
//                 add_space_prefix (default true) one in front of the text and of each piece after a special
//                 token, as llama.cpp puts it (even before a space); no split; <0xNN> tokens for bytes; BOS unless
//                 add_bos_token is false.
// Control and user-defined tokens are added tokens (found in the text before the model), control ones special.
#pragma once
#include <memory>

#include "base/status.h"
#include "tokenize/gguf_vocab.h"
#include "tokenize/tokenizer.h"

namespace attnviz::tokenize {

Result<std::unique_ptr<Tokenizer>> MakeGgufTokenizer(const GgufVocab& vocab);

}  // namespace attnviz::tokenize
