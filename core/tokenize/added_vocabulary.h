// Added tokens (tokenizer.json "added_tokens": <|endoftext|>, [CLS], <s>, user additions) are found in the
// text before the model sees it, as the library does: first the ones marked normalized=false in the raw text,
// then, after normalization, the normalized ones in the normalized text (their content normalized the same
// way). Leftmost-longest matching; single_word, lstrip and rstrip as the library defines them.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tokenize/aligned_text.h"
#include "tokenize/normalizers.h"

namespace attnviz::tokenize {

struct AddedToken {
  std::string content;
  int id = 0;
  bool single_word = false;  // only where no word character touches it on either side
  bool lstrip = false;       // swallows the whitespace before it
  bool rstrip = false;       // swallows the whitespace after it
  bool normalized = true;    // matched in the normalized text (content normalized too), else in the raw text
  bool special = false;
};

class AddedVocabulary {
 public:
  AddedVocabulary() = default;
  // `normalizer` may be null; it is used once here to normalize the contents of normalized tokens.
  static Result<AddedVocabulary> Create(std::vector<AddedToken> tokens, const Normalizer* normalizer);

  // Cut the pieces that are not added tokens yet at the matches of the raw (normalized=false) tokens or of
  // the normalized tokens; the matches become pieces whose `added_token` is the token's index.
  void SplitRaw(std::vector<Piece>* pieces) const { Split(raw_, pieces); }
  void SplitNormalized(std::vector<Piece>* pieces) const { Split(normalized_, pieces); }

  const AddedToken& token(int index) const { return tokens_[size_t(index)]; }
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // Every pattern (token content) sorted bytewise, equal ones by token index: the patterns that start with
  // some bytes are one range, so the longest match at a position is found by narrowing that range byte by byte
  // (skipping the stretch all patterns of the range share) instead of trying every token: the cost is the
  // match's length, not the number of tokens (trying every token at every position made many long tokens over a
  // long text take minutes).
  struct Matcher {
    std::vector<std::pair<std::string, int>> patterns;
    // The longest pattern that `text` starts with: its token index and length, or {-1, 0}.
    std::pair<int, size_t> LongestAt(std::string_view text) const;
  };
  void Split(const Matcher& matcher, std::vector<Piece>* pieces) const;

  std::vector<AddedToken> tokens_;
  Matcher raw_, normalized_;
};

}  // namespace attnviz::tokenize
