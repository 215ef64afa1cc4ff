// File content quoted in a message: at most kMaxQuotedChars code points, then "…" and the full length, with
// control bytes (NUL among them) and invalid UTF-8 written as \xNN, so a 1 MB token or a NUL inside one neither
// floods nor cuts the message.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attnviz::tokenize {

constexpr size_t kMaxQuotedChars = 80;

// "abc" -> "abc"; 200 letters -> the first 80 + "…(200 bytes)"; "a\0b" -> "a\x00b".
std::string ValueForMessage(std::string_view value);

}  // namespace attnviz::tokenize
