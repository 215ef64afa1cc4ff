// nlohmann::json with bounds, for the model's JSON files (config.json, safetensors headers, the shard index).
// Parsing refuses nesting deeper than kMaxJsonDepth: copying or comparing an nlohmann value recurses once per
// level, so a million-deep array would end the process on the first copy. A value is quoted in a message through
// JsonValueText, never dump(): dump() recurses once per level (a crash at a million levels) and has no length
// bound (a 15 MB message from a 15 MB value).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"

namespace attnviz::model {

// Far deeper than any real config.json (rope_scaling, quantization_config: 2 or 3 levels).
constexpr int kMaxJsonDepth = 64;

// json::parse of [begin, end) into *out with the depth bound: throws what json::parse throws; false (and *out
// null) when the text nests deeper than kMaxJsonDepth.
bool ParseJsonWithinDepth(const char* begin, const char* end, nlohmann::json* out);
// The same as a Status: "WHERE: not valid JSON at byte N: ...", "WHERE: JSON nests deeper than 64 levels ...".
Status ParseJsonBounded(const char* begin, const char* end, const std::string& where, nlohmann::json* out);

// `value` as compact JSON of at most kMaxQuotedChars characters, "..." when cut; the rendering is iterative and
// stops at the cap, so any depth and size costs the same small work.
std::string JsonValueText(const nlohmann::json& value);

}  // namespace attnviz::model
