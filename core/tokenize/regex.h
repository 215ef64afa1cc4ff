// A compiled PCRE2 regex in UTF + UCP mode (so \p{L}, \p{N}, \s and \w mean their Unicode selves), with the
// match iteration the Hugging Face library uses (Oniguruma's find_iter: an empty match right where the previous
// match ended is skipped). Patterns from tokenizer.json are Oniguruma syntax; the ones real models ship
// (GPT-2, Llama 3, Qwen2, ...) are also valid PCRE2.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace attnviz::tokenize {

class Regex {
 public:
  // Fails with PCRE2's message and the offset in the pattern.
  static Result<Regex> Compile(const std::string& pattern);
  // A pattern that matches `literal` exactly (tokenizer.json's {"String": ...} patterns).
  static Result<Regex> Literal(std::string_view literal);

  // Byte ranges [begin, end) of successive matches in `utf8` (valid UTF-8).
  Result<std::vector<std::pair<size_t, size_t>>> FindAll(std::string_view utf8) const;
  // True when the pattern matches somewhere in `utf8`.
  bool Search(std::string_view utf8) const;

  const std::string& pattern() const { return pattern_; }

 private:
  struct Code;
  std::shared_ptr<const Code> code_;
  std::string pattern_;
};

// Escapes every regex metacharacter so the pattern matches `literal` as is.
std::string EscapeRegex(std::string_view literal);

}  // namespace attnviz::tokenize
