#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenize/regex.h"

#include <pcre2.h>

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

}  // namespace

Result<Regex> Regex::Compile(const std::string& pattern) {
  std::string translated = AddNextLineToSpaceClasses(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                   PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    return Status::Error(MsgId::kRegexCompile, {pattern, reinterpret_cast<char*>(message), std::to_string(offset)});
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

Result<std::vector<std::pair<size_t, size_t>>> Regex::FindAll(std::string_view utf8) const {
  std::vector<std::pair<size_t, size_t>> out;
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  auto subject = reinterpret_cast<PCRE2_SPTR>(utf8.data());
  size_t search_from = 0;
  bool have_last_end = false;
  size_t last_end = 0;
  while (search_from <= utf8.size()) {
    int rc = pcre2_match(code_->code, subject, utf8.size(), search_from, PCRE2_NO_UTF_CHECK, match, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      pcre2_match_data_free(match);
      return Status::Error(MsgId::kRegexMatch, {pattern_, reinterpret_cast<char*>(message)});
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
  return out;
}

bool Regex::Search(std::string_view utf8) const {
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(utf8.data()), utf8.size(), 0, PCRE2_NO_UTF_CHECK,
                       match, nullptr);
  pcre2_match_data_free(match);
  return rc >= 0;
}

}  // namespace attnviz::tokenize
