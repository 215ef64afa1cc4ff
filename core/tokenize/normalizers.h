// Normalizers: the first stage of a tokenizer.json pipeline. Each one rewrites AlignedText in place, keeping
// every code point tied to the original bytes it came from, and does exactly what the Hugging Face
// normalizer of the same name does (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace, Prepend, Strip,
// BertNormalizer, Sequence).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "tokenize/aligned_text.h"
#include "tokenize/growth_bound.h"
#include "tokenize/regex.h"
#include "tokenize/unicode.h"

namespace attnviz::tokenize {

// Every normalizer keeps its output within the GrowthBound of the text the tokenizer's normalizer was given.
class Normalizer {
 public:
  virtual ~Normalizer() = default;
  Status Normalize(AlignedText* text) const { return NormalizeWithin(text, GrowthBound{text->size()}); }
  virtual Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const = 0;
  // The tokenizer.json type ("NFC", "Replace /pattern/", ...), for messages.
  virtual std::string name() const = 0;
};

std::unique_ptr<Normalizer> MakeUnicodeNormalizer(NormalForm form);
std::unique_ptr<Normalizer> MakeLowercase();
// Removes every mark (Mn, Mc, Me); models put it after NFD/NFKD so accents are separate marks by then.
std::unique_ptr<Normalizer> MakeStripAccents();
// Every match of `pattern` becomes `content`.
std::unique_ptr<Normalizer> MakeReplace(Regex pattern, std::string content);
// Puts `prefix` before non-empty text.
std::unique_ptr<Normalizer> MakePrepend(std::string prefix);
// Removes White_Space at the left and/or right end.
std::unique_ptr<Normalizer> MakeStrip(bool left, bool right);

struct BertNormalizerOptions {
  bool clean_text = true;            // drop U+0000, U+FFFD and control characters; whitespace -> ' '
  bool handle_chinese_chars = true;  // put spaces around CJK ideographs so each is a word of its own
  bool strip_accents = true;         // NFD, then drop Mn (the JSON's null means "same as lowercase")
  bool lowercase = true;
};
std::unique_ptr<Normalizer> MakeBertNormalizer(const BertNormalizerOptions& options);

std::unique_ptr<Normalizer> MakeNormalizerSequence(std::vector<std::unique_ptr<Normalizer>> steps);

// Helpers the pre-tokenizers share.
void LowercaseAligned(AlignedText* text);
void DecomposeAligned(AlignedText* text, bool compat);

}  // namespace attnviz::tokenize
