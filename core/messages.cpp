#include "messages.h"

#include <iterator>

namespace attnviz {

namespace {
// In MsgId order (the static_assert below keeps the two in step).
constexpr const char* kEnglish[] = {
    "",
    "{0}: ",
    "{0}:{1}: ",
    "key/value text: ",
    "query text: ",
    "query sentence (left of '|||'): ",
    "key/value sentence (right of '|||'): ",
    "sweep: ",
    "sweep: d_k={0}: ",
    "{0} = {1} is out of range: allowed {2}..{3}",
    "temperature = {0} is out of range: allowed {1}..{2} (must be > 0)",
    "mask = causal applies to self-attention only (query i may see keys 0..i of its own sentence); use mask none "
    "in cross mode",
    "d_model * n_head * (2*d_k + d_v) = {0} projection weights is too large: allowed up to {1} (lower d_model, "
    "n_head, d_k or d_v)",
    "{0} '{1}' is unknown: allowed {2}",
    "a score needs d_q = d_k: the query from {0} has width {1}{2}, the key from {3} has width {4}{5} (q . k pairs "
    "every component of q with one of k)",
    "temperature must be a finite number",
    "'{0}' is not a whole number (allowed {1}..{2})",
    "{0} is out of range: allowed {1}",
    "'{0}' is not a number (allowed {1})",
    "{0}: missing value",
    "the text is empty: type at least one word",
    "the text holds only whitespace: type at least one word",
    "the text has more than {0} tokens (allowed 1..{0})",
    "invalid UTF-8 at byte offset {0} (byte 0x{1})",
    "control character {0} at byte offset {1} is not allowed",
    "invalid UTF-8 at byte offset {0} of the file (byte {1} of the line)",
    "more than one '|||' separator (a cross item is QUERY ||| KEY/VALUE)",
    "{0}: no sentences (only blank lines and # comments)",
    "{0}: cannot open: {1}",
    "{0}: is a folder, not a file",
};
static_assert(std::size(kEnglish) == (size_t)MsgId::kCount, "messages.cpp: one English template per MsgId");
}  // namespace

const char* EnglishTemplate(MsgId id) {
  const int i = (int)id;
  return i >= 0 && i < (int)MsgId::kCount ? kEnglish[i] : "";
}

std::string FillTemplate(const std::string& pattern, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 2 < pattern.size() && pattern[i + 1] >= '0' && pattern[i + 1] <= '9' &&
        pattern[i + 2] == '}') {
      const size_t n = (size_t)(pattern[i + 1] - '0');
      if (n < args.size()) out += args[n];
      i += 2;
      continue;
    }
    out += pattern[i];
  }
  return out;
}

}  // namespace attnviz
