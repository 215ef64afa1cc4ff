#include "tokenize/value_for_message.h"

#include <utf8proc.h>

#include <cstdio>

namespace attnviz::tokenize {

std::string ValueForMessage(std::string_view value) {
  std::string out;
  size_t pos = 0, chars = 0;
  while (pos < value.size() && chars < kMaxQuotedChars) {
    utf8proc_int32_t cp = -1;
    auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(value.data() + pos),
                              utf8proc_ssize_t(value.size() - pos), &cp);
    if (n <= 0 || cp < 0x20 || cp == 0x7F) {  // a control byte or a byte that is not UTF-8: shown, not sent
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(value[pos]));
      out += hex;
      pos += 1;
    } else {
      out.append(value, pos, size_t(n));
      pos += size_t(n);
    }
    ++chars;
  }
  if (pos < value.size()) out += "…(" + std::to_string(value.size()) + " bytes)";
  return out;
}

}  // namespace attnviz::tokenize
