// Minimal JSON writing helpers (the project only writes JSON from core).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

std::string JsonString(std::string_view text);  // quoted and escaped
std::string JsonNumber(double value);           // shortest round-trip form; null for NaN/Inf
std::string JsonStringArray(const std::vector<std::string>& items);

}  // namespace attnviz
