#include "tokenize/shown_text.h"

#include <cstdio>

#include "tokenize/token.h"

namespace attnviz::tokenize {

std::string ShownText(const std::string& display) {
  const std::string readable = ReadableBytes(display);
  std::string out;
  size_t i = 0;
  for (; i < readable.size() && readable[i] == ' '; ++i) out += "\xC2\xB7";  // U+00B7 MIDDLE DOT
  for (; i < readable.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(readable[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace attnviz::tokenize
