// The tokenizers of an encoder-decoder folder: the source side (the encoder's text, input_ids), the target side
// (the decoder's text, labels) and a decoder that turns generated target ids back into text.
//
//   auto pair = LoadSeq2SeqTokenizers("opus-mt-en-ko");
//   auto input = pair->source->Encode("the first of December 2026");   // ... </s>
//   auto text = pair->decoder->Decode(generated_ids);                   // "2026-12-01"
//
// By folder (config.json's model_type, else the files present):
//   marian (source.spm)       MarianTokenizer (marian_files.cpp): source.spm / target.spm pieces through vocab.json
//                             (target_vocab.json on the target side with separate_vocabs), </s> appended; decoding
//                             through target.spm
//   t5, mt5, umt5             LoadTokenizer's (spiece.model: T5Tokenizer's </s> and <extra_id_N>; tokenizer.json) on
//                             both sides; decoding: the pieces' bytes, special tokens left out, stripped at both ends
//                             as T5Tokenizer's convert_tokens_to_string does
//   bart                      LoadTokenizer's (vocab.json + merges.txt: <s> ... </s>; tokenizer.json) on both sides;
//                             decoding: the byte-level pieces' bytes, special tokens left out
// Any other model_type is refused by name.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "tokenize/tokenizer.h"

namespace attnviz::tokenize {

// Generated target ids -> text, as transformers' decode(ids, skip_special_tokens=True) gives it. Bytes that are
// not UTF-8 read as U+FFFD; tokenizer_config.json's clean_up_tokenization_spaces (default false) is applied.
class TextDecoder {
 public:
  virtual ~TextDecoder() = default;
  // Fails on an id no token has, naming the id, the allowed range and the file.
  virtual Result<std::string> Decode(const std::vector<int>& ids) const = 0;
};

struct Seq2SeqTokenizers {
  std::shared_ptr<const Tokenizer> source;      // the encoder's text
  std::shared_ptr<const Tokenizer> target;      // the decoder's text; the same object as source but for Marian
  std::shared_ptr<const TextDecoder> decoder;   // the target side's ids -> text
  std::string model_type;                       // "marian", "t5", "bart", ... as decided
};

Result<Seq2SeqTokenizers> LoadSeq2SeqTokenizers(const std::string& model_dir);

// A Marian folder's sides one by one (LoadTokenizer gives the source side for such a folder).
Result<std::unique_ptr<Tokenizer>> LoadMarianTokenizer(const std::string& model_dir, bool target_side);
Result<std::unique_ptr<TextDecoder>> LoadMarianDecoder(const std::string& model_dir);

}  // namespace attnviz::tokenize
