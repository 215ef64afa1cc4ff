// Text -> the token ids a real Hugging Face model expects.
//
//   auto tokenizer = LoadTokenizer("assets/models/gpt2");        // a model folder
//   auto tokens = (*tokenizer)->Encode("나는 사과를 먹었다");        // ids, pieces, byte spans
//
// LoadTokenizer reads, in this order of preference:
//   tokenizer.json              the Hugging Face tokenizers pipeline (normalizer, pre-tokenizer, BPE/WordPiece/
//                               WordLevel model, added tokens, post-processor); anything it cannot run exactly
//                               is refused by name
//   vocab.json + merges.txt     GPT-2's byte-level BPE (no special tokens added, as GPT-2 adds none; RoBERTa's
//                               files: <s> ... </s>)
//   vocab.txt                   BERT WordPiece (+ tokenizer_config.json: do_lower_case, default true;
//                               strip_accents; tokenize_chinese_chars); [CLS] ... [SEP] added
//   source.spm (+ vocab.json)  Marian (opus-mt): the source side of marian_files.h's pair (an encoder-decoder
//                               folder's both sides and its decoder: seq2seq_tokenizers.h)
//   tokenizer.model, spiece.model, sentencepiece.bpe.model
//                               SentencePiece, run by libsentencepiece (sentencepiece_files.cpp: which special
//                               tokens each adds; sentencepiece.bpe.model has XLM-RoBERTa's fairseq ids). Also
//                               used when tokenizer.json cannot be loaded (e.g. its Precompiled normalizer).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tokenize/token.h"

namespace attnviz::tokenize {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Fails on invalid UTF-8 (the message names the byte offset) and on errors the files only reveal in use
  // (e.g. an unknown token missing from the vocabulary). With add_special_tokens the post-processor's tokens
  // ([CLS], [SEP], <s>, ...) are added, as the library does by default.
  // max_tokens > 0: the model stops after the word (pre-tokenized piece) that takes the text past max_tokens
  // tokens, and the first max_tokens + 1 are returned without the post-processor's: the caller refuses a text
  // too long for its model without tokenizing the rest of it.
  virtual Result<std::vector<Token>> Encode(std::string_view utf8_text, bool add_special_tokens = true,
                                            size_t max_tokens = 0) const = 0;
  // Number of distinct ids (the model's vocabulary and the added tokens).
  virtual size_t vocab_size() const = 0;
  // The vocabulary string of an id, or nothing for an id no token has.
  virtual std::optional<std::string> IdToPiece(int id) const = 0;
  // What an id reads as, as Token::display: its bytes ("Ġthe" -> " the", "▁the" -> " the", "<0xEB>" -> the
  // byte) with any byte that is not a whole character shown as <0xNN>; a special token's own text. Nothing for an
  // id no token has.
  virtual std::optional<std::string> IdToDisplay(int id) const = 0;
  // The raw bytes an id stands for, as Token::bytes ("▁the" -> " the", "<0xEB>" -> the byte, a special token's own
  // text); nothing for an id no token has.
  virtual std::optional<std::string> IdToBytes(int id) const = 0;
  // A special token's id (post-processor tokens, added tokens marked special): decode(skip_special_tokens=True)
  // leaves these out.
  virtual bool IsSpecialId(int id) const = 0;
  // What was loaded, for a person: e.g. "tokenizer.json: BPE (byte-level), 50257 tokens".
  virtual std::string Describe() const = 0;
};

// Errors name the file and the problem: missing files, files over 64 MiB or not regular files, bad JSON (byte
// offset, line and column), unsupported types ("tokenizer.json: pre_tokenizer type 'UnicodeScripts' is not
// supported"), inconsistent vocabularies.
Result<std::unique_ptr<Tokenizer>> LoadTokenizer(const std::string& model_dir);

// The formats one by one (LoadTokenizer picks among them by the files present).
Result<std::unique_ptr<Tokenizer>> LoadTokenizerJson(const std::string& path);
// RoBERTa's files (<s> and </s> in vocab.json) get RobertaTokenizer's special tokens and <s> ... </s>;
// `config_path` (tokenizer_config.json: add_prefix_space, default false) may be empty or name a missing file.
Result<std::unique_ptr<Tokenizer>> LoadGpt2Tokenizer(const std::string& vocab_json_path,
                                                     const std::string& merges_txt_path,
                                                     const std::string& config_path = "");
// `config_path` may be empty or name a missing file (then do_lower_case = true).
Result<std::unique_ptr<Tokenizer>> LoadBertTokenizer(const std::string& vocab_txt_path,
                                                     const std::string& config_path);
// A SentencePiece .model file; the file's name picks the ids and added tokens; `config_path` (tokenizer_config.json)
// may be empty or name a missing file.
Result<std::unique_ptr<Tokenizer>> LoadSentencePieceTokenizer(const std::string& model_path,
                                                              const std::string& config_path);

}  // namespace attnviz::tokenize
