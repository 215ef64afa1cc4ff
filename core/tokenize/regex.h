// A compiled PCRE2 regex in UTF + UCP mode (so \p{L}, \p{N}, \s and \w mean their Unicode selves), with the
// match iteration the Hugging Face library uses (Oniguruma's find_iter: an empty match right where the previous
// match ended is skipped). Patterns from tokenizer.json are Oniguruma syntax; the ones real models ship
// (GPT-2, Llama 3, Qwen2, ...) are also valid PCRE2.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace attnviz::tokenize {

// The matching work FindAll allows on one text: kRegexStepsPerByte x its bytes + kRegexStepSlack steps, summed
// over every position a match is tried from (PCRE2's own match limit is per position, so a lookahead over the rest
// of the text cost the text's length squared). A step is one pattern item tried or one byte the
// matcher moved over; real tokenizer patterns take under 100 steps a byte.
constexpr uint64_t kRegexStepsPerByte = 2000;
constexpr uint64_t kRegexStepSlack = 1'000'000;
// The stack PCRE2's JIT may grow to in one FindAll (a repeated group keeps a frame per repetition, so a long run of
// letters needs a stack as long), and the heap the interpreter may take for a match that needs more.
constexpr size_t kRegexJitStackBytes = size_t(8) << 20;
constexpr size_t kRegexHeapBytes = size_t(1) << 30;

class Regex {
 public:
  // Fails with PCRE2's message and the offset in the pattern.
  static Result<Regex> Compile(const std::string& pattern);
  // A pattern that matches `literal` exactly (tokenizer.json's {"String": ...} patterns).
  static Result<Regex> Literal(std::string_view literal);

  // Byte ranges [begin, end) of successive matches in `utf8` (valid UTF-8); fails naming the pattern when the
  // work exceeds the budget above. `steps`, when given, receives the work done.
  Result<std::vector<std::pair<size_t, size_t>>> FindAll(std::string_view utf8, uint64_t* steps = nullptr) const;
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
