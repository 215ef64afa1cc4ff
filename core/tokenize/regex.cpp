#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenize/regex.h"

#include <pcre2.h>

#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

namespace {

// Oniguruma's \s is the White_Space property, which includes U+0085 (NEL); PCRE2's UCP \s does not. Adding it
// keeps regexes like GPT-2's `\s+(?!\S)` splitting where the Hugging Face library splits.
std::string AddNextLineToSpaceClasses(const std::string& pattern) {
  std::string out;
  out.reserve(pattern.size() + 16);
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char n = pattern[i + 1];
      if (n == 's') {
        out += in_class ? "\\s\\x{85}" : "[\\s\\x{85}]";
      } else if (n == 'S' && !in_class) {
        out += "[^\\s\\x{85}]";
      } else {
        out += c;
        out += n;
      }
      ++i;
      continue;
    }
    if (c == '[' && !in_class) {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal, not the end of the class.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    out += c;
  }
  return out;
}

// The work budget of one FindAll, counted by PCRE2's automatic callouts (one before each pattern item tried):
// each callout is a step, and so is each byte the matcher moved over since the previous one (a greedy .* or a
// lookahead scanning the rest of the text moves far between two callouts).
struct WorkBudget {
  uint64_t steps = 0;
  uint64_t limit = 0;
  size_t last_position = 0;
};

int CountStep(pcre2_callout_block* block, void* data) {
  auto* budget = static_cast<WorkBudget*>(data);
  size_t pos = block->current_position;
  budget->steps += 1 + (pos > budget->last_position ? pos - budget->last_position : budget->last_position - pos);
  budget->last_position = pos;
  return budget->steps > budget->limit ? PCRE2_ERROR_CALLOUT : 0;  // negative: the match stops with it
}

}  // namespace

Result<Regex> Regex::Compile(const std::string& pattern) {
  std::string translated = AddNextLineToSpaceClasses(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_AUTO_CALLOUT, &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return Status::Error(MsgId::kRegexCompile,
                         {ValueForMessage(pattern), reinterpret_cast<char*>(message), std::to_string(offset)});
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // optional speed-up; the interpreter is used if JIT is absent
  Regex regex;
  auto holder = std::make_shared<Code>();
  holder->code = code;
  regex.code_ = std::move(holder);
  regex.pattern_ = pattern;
  return regex;
}

std::string EscapeRegex(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}-/#&~ \t\n\r").find(c) != std::string_view::npos) {
      if (c == '\t') out += "\\t";
      else if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == ' ') out += "\\x{20}";
      else { out += '\\'; out += c; }
    } else {
      out += c;
    }
  }
  return out;
}

Result<Regex> Regex::Literal(std::string_view literal) { return Compile(EscapeRegex(literal)); }

Result<std::vector<std::pair<size_t, size_t>>> Regex::FindAll(std::string_view utf8, uint64_t* steps) const {
  std::vector<std::pair<size_t, size_t>> out;
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  WorkBudget budget;
  budget.limit = kRegexStepsPerByte * utf8.size() + kRegexStepSlack;
  pcre2_match_context* context = pcre2_match_context_create(nullptr);
  pcre2_set_callout(context, CountStep, &budget);
  // The work budget above is the limit; the interpreter's own per-match limit would refuse first on long texts.
  pcre2_set_match_limit(context, UINT32_MAX);
  pcre2_set_heap_limit(context, (uint32_t)(kRegexHeapBytes >> 10));
  // PCRE2's JIT stack is 32 KiB unless one is given: a repeated group keeps a frame per repetition, so a few
  // hundred capital letters in a row ran out of it in the tekken split. This one grows as needed up to
  // kRegexJitStackBytes; a match that needs more runs again in the interpreter, within the same budget.
  pcre2_jit_stack* jit_stack = pcre2_jit_stack_create(32 << 10, kRegexJitStackBytes, nullptr);
  if (jit_stack) pcre2_jit_stack_assign(context, nullptr, jit_stack);
  auto subject = reinterpret_cast<PCRE2_SPTR>(utf8.data());
  size_t search_from = 0;
  bool have_last_end = false;
  size_t last_end = 0;
  while (search_from <= utf8.size()) {
    budget.last_position = search_from;
    int rc = pcre2_match(code_->code, subject, utf8.size(), search_from, PCRE2_NO_UTF_CHECK, match, context);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      budget.last_position = search_from;
      rc = pcre2_match(code_->code, subject, utf8.size(), search_from, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match,
                       context);
    }
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(match);
      pcre2_match_context_free(context);
      pcre2_jit_stack_free(jit_stack);
      if (steps) *steps = budget.steps;
      if (rc == PCRE2_ERROR_CALLOUT)
        return Status::Error(MsgId::kRegexBudget, {ValueForMessage(pattern_), std::to_string(budget.limit),
                                                   std::to_string(utf8.size()), std::to_string(kRegexStepsPerByte)});
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      return Status::Error(MsgId::kRegexMatch, {ValueForMessage(pattern_), reinterpret_cast<char*>(message)});
    }
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(match);
    size_t s = ov[0], e = ov[1];
    if (s == e && have_last_end && last_end == e) {
      // Oniguruma's find_iter: skip an empty match touching the previous match; step one code point on.
      if (search_from >= utf8.size()) break;
      ++search_from;
      while (search_from < utf8.size() && (static_cast<unsigned char>(utf8[search_from]) & 0xC0) == 0x80)
        ++search_from;
      continue;
    }
    out.emplace_back(s, e);
    search_from = e;
    last_end = e;
    have_last_end = true;
  }
  pcre2_match_data_free(match);
  pcre2_match_context_free(context);
  pcre2_jit_stack_free(jit_stack);
  if (steps) *steps = budget.steps;
  return out;
}

bool Regex::Search(std::string_view utf8) const {
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(utf8.data()), utf8.size(), 0, PCRE2_NO_UTF_CHECK,
                       match, nullptr);
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT)  // the default JIT stack is small; the interpreter has none of its limit
    rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(utf8.data()), utf8.size(), 0,
                     PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match, nullptr);
  pcre2_match_data_free(match);
  return rc >= 0;
}

}  // namespace attnviz::tokenize
