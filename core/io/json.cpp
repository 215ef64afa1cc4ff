#include "io/json.h"

#include <cmath>
#include <cstdio>

namespace attnviz {

namespace {

// The length of the valid UTF-8 sequence at text[i], 0 when the byte there does not start one.
size_t ValidSequenceAt(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return i + k < text.size() ? (unsigned char)text[i + k] : 0u; };
  const unsigned c = byte(0);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c == 0xE0) len = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) len = 3;
  else if (c == 0xED) len = 3, hi = 0x9F;  // not a surrogate
  else if (c >= 0xEE && c <= 0xEF) len = 3;
  else if (c == 0xF0) len = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) len = 4;
  else if (c == 0xF4) len = 4, hi = 0x8F;  // not past U+10FFFF
  else return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  return len;
}

// \xNN
void AppendHexEscape(unsigned char c, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  *out += "\\x";
  *out += kHex[c >> 4];
  *out += kHex[c & 15];
}

}  // namespace

std::string EscapeInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t len = ValidSequenceAt(text, i);
    if (len == 0) {
      AppendHexEscape((unsigned char)text[i++], &out);
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = (unsigned char)text[i];
    const size_t len = ValidSequenceAt(text, i);
    if (len == 0) {  // JSON text is UTF-8: the byte is shown as the text \xNN (its backslash escaped)
      out += '\\';
      AppendHexEscape(c, &out);
      ++i;
      continue;
    }
    if (len > 1) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += (char)c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  snprintf(buf, sizeof buf, "%.9g", value);
  return buf;
}

std::string JsonStringArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + JsonString(items[i]);
  return out + "]";
}

}  // namespace attnviz
