#include "tokenize/decoded_text.h"

#include <utility>

#include "tokenize/unicode.h"

namespace attnviz::tokenize {
namespace {

// The lead byte's sequence length and the allowed range of the second byte (Unicode Table 3-7), or 0 for a byte
// that starts nothing.
int SequenceLength(unsigned char lead, unsigned char* lo, unsigned char* hi) {
  *lo = 0x80;
  *hi = 0xBF;
  if (lead < 0x80) return 1;
  if (lead < 0xC2) return 0;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) {
    if (lead == 0xE0) *lo = 0xA0;
    if (lead == 0xED) *hi = 0x9F;  // no surrogates
    return 3;
  }
  if (lead < 0xF5) {
    if (lead == 0xF0) *lo = 0x90;
    if (lead == 0xF4) *hi = 0x8F;  // nothing past U+10FFFF
    return 4;
  }
  return 0;
}

bool IsPythonSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace

std::string ReplaceInvalidUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    unsigned char lo, hi;
    const int n = SequenceLength(static_cast<unsigned char>(bytes[i]), &lo, &hi);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    int good = 1;  // bytes of the sequence that fit so far
    while (good < n && i + size_t(good) < bytes.size()) {
      const unsigned char c = static_cast<unsigned char>(bytes[i + size_t(good)]);
      const unsigned char low = good == 1 ? lo : 0x80, high = good == 1 ? hi : 0xBF;
      if (c < low || c > high) break;
      ++good;
    }
    if (good == n) out.append(bytes.substr(i, size_t(n)));
    else out += "\xEF\xBF\xBD";  // the maximal subpart that fit, as one replacement
    i += size_t(good);
  }
  return out;
}

std::string StripPythonWhitespace(std::string_view utf8) {
  const std::u32string text = [&] {
    std::u32string cps;
    size_t pos = 0;
    while (pos < utf8.size()) cps.push_back(NextCodePoint(utf8, &pos));
    return cps;
  }();
  size_t begin = 0, end = text.size();
  while (begin < end && IsPythonSpace(text[begin])) ++begin;
  while (end > begin && IsPythonSpace(text[end - 1])) --end;
  std::string out;
  for (size_t k = begin; k < end; ++k) AppendUtf8(text[k], &out);
  return out;
}

std::string CleanUpTokenizationSpaces(std::string text) {
  for (const auto& [from, to] : {std::pair{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
                                 {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}}) {
    std::string out;
    const std::string_view f(from);
    size_t pos = 0, hit;
    while ((hit = text.find(f, pos)) != std::string::npos) {
      out.append(text, pos, hit - pos);
      out += to;
      pos = hit + f.size();
    }
    out.append(text, pos, std::string::npos);
    text = std::move(out);
  }
  return text;
}

}  // namespace attnviz::tokenize
