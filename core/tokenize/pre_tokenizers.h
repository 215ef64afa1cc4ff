// Pre-tokenizers: cut normalized text into the words the model sees one at a time, as the Hugging Face
// pre-tokenizers of the same name do (ByteLevel, Split, Metaspace, Digits, Whitespace, WhitespaceSplit,
// BertPreTokenizer, Punctuation, CharDelimiterSplit, Sequence). Pieces that are added tokens pass through.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "tokenize/aligned_text.h"
#include "tokenize/growth_bound.h"
#include "tokenize/regex.h"

namespace attnviz::tokenize {

// What happens to the delimiter a split finds (tokenizers' SplitDelimiterBehavior).
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// Every pre-tokenizer keeps the pieces' code points within the GrowthBound of what the outermost one was given.
class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  Status PreTokenize(std::vector<Piece>* pieces) const {
    return PreTokenizeWithin(pieces, GrowthBound{CodePoints(*pieces)});
  }
  virtual Status PreTokenizeWithin(std::vector<Piece>* pieces, const GrowthBound& bound) const = 0;
  static size_t CodePoints(const std::vector<Piece>& pieces) {
    size_t n = 0;
    for (const Piece& p : pieces) n += p.chars.size();
    return n;
  }
};

// GPT-2's byte-level step: optional leading space, optional split with GPT-2's regex, then every UTF-8 byte
// becomes the printable code point bytes_to_unicode gives it.
std::unique_ptr<PreTokenizer> MakeByteLevelPreTokenizer(bool add_prefix_space, bool use_regex);
// Splits on the matches of `pattern` (invert: the matches are the words and the rest the delimiters).
std::unique_ptr<PreTokenizer> MakeSplitPreTokenizer(Regex pattern, SplitBehavior behavior, bool invert);
enum class PrependScheme { kAlways, kFirst, kNever, kEveryPiece };
// SentencePiece style: ' ' -> replacement, a replacement in front (always / only at the start of the text /
// never; the first two only when the piece does not start with one already, as the library does), then (when
// `split`) a new word at every replacement. kEveryPiece is llama.cpp's SPM rule: one in front of every piece of text
// (the text's start and each piece after a special token), whatever it starts with.
std::unique_ptr<PreTokenizer> MakeMetaspacePreTokenizer(char32_t replacement, PrependScheme scheme, bool split);
// Numbers apart from the rest; each digit alone when `individual_digits`.
std::unique_ptr<PreTokenizer> MakeDigitsPreTokenizer(bool individual_digits);
// Runs of word characters and runs of other non-space characters (regex \w+|[^\w\s]+).
std::unique_ptr<PreTokenizer> MakeWhitespacePreTokenizer();
// Splits on White_Space, dropping it.
std::unique_ptr<PreTokenizer> MakeWhitespaceSplitPreTokenizer();
// BERT: split on White_Space (dropped), then every punctuation character alone.
std::unique_ptr<PreTokenizer> MakeBertPreTokenizer();
std::unique_ptr<PreTokenizer> MakePunctuationPreTokenizer(SplitBehavior behavior);
std::unique_ptr<PreTokenizer> MakeCharDelimiterSplit(char32_t delimiter);
std::unique_ptr<PreTokenizer> MakePreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> steps);

// GPT-2's pre-tokenization regex.
extern const char kGpt2SplitPattern[];

}  // namespace attnviz::tokenize
