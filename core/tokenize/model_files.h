// Bounded reads of a model folder's tokenizer files: regular files only, at most 64 MiB, and JSON errors that
// say where (byte offset, line, column). Internal to attnviz_tokenize (it exposes nlohmann::json).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace attnviz::tokenize {

constexpr size_t kMaxTokenizerFileBytes = size_t(64) << 20;

// The whole file; refuses folders, devices, FIFOs and files over kMaxTokenizerFileBytes.
Result<std::string> ReadTokenizerFile(const std::string& path);
// Parses `text` (read from `path`); a syntax error names the byte offset, line and column.
Result<nlohmann::json> ParseJson(const std::string& text, const std::string& path);
Result<nlohmann::json> ReadJsonFile(const std::string& path);
bool FileExists(const std::string& path);

}  // namespace attnviz::tokenize
