// Bounded reads of a model folder's tokenizer files: regular files only, at most 64 MiB, and JSON errors that
// say where (byte offset, line, column). Internal to attnviz_tokenize (it exposes nlohmann::json).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace attnviz::tokenize {

constexpr size_t kMaxTokenizerFileBytes = size_t(64) << 20;
// Real tokenizer files nest under 10 levels. The parser itself is iterative, but each level costs heap (64 MiB of
// '[' would be gigabytes) and anything recursive over the tree (dump, copy, ==) uses stack per level.
constexpr size_t kMaxJsonDepth = 1000;

// The whole file; refuses folders, devices, FIFOs and files over kMaxTokenizerFileBytes.
Result<std::string> ReadTokenizerFile(const std::string& path);
// Parses `text` (read from `path`); a syntax error or nesting deeper than kMaxJsonDepth names the byte offset,
// line and column.
Result<nlohmann::json> ParseJson(const std::string& text, const std::string& path);
Result<nlohmann::json> ReadJsonFile(const std::string& path);
// A JSON integer in 64 bits (an unsigned one past int64's range saturates), so an id is range-checked before it
// could wrap into an int; nothing for any other value.
std::optional<int64_t> JsonInteger(const nlohmann::json& value);

}  // namespace attnviz::tokenize
