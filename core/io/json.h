// Minimal JSON writing helpers (the project only writes JSON from core).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// Quoted and escaped; a byte that is not part of valid UTF-8 is written as the text \xNN (EscapeInvalidUtf8), so the
// result is always valid UTF-8 and valid JSON.
std::string JsonString(std::string_view text);
// `text` with every byte that is not part of a valid UTF-8 sequence (a cut or overlong sequence, a surrogate, past
// U+10FFFF, a stray continuation byte) written as \xNN; valid UTF-8 is kept as it is.
std::string EscapeInvalidUtf8(std::string_view text);
std::string JsonNumber(double value);           // shortest round-trip form; null for NaN/Inf
std::string JsonStringArray(const std::vector<std::string>& items);

}  // namespace attnviz
