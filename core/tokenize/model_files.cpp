#include "tokenize/model_files.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "io/file_io.h"
#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {

Result<std::string> ReadTokenizerFile(const std::string& path) {
  return ReadFile(path, kMaxTokenizerFileBytes, "tokenizer file");
}

namespace {

// 1-based line and column of a byte offset.
std::pair<size_t, size_t> LineAndColumn(const std::string& text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// The byte offset of the first bracket that opens level kMaxJsonDepth + 1 (outside strings), or npos.
size_t FirstTooDeep(const std::string& text) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

}  // namespace

std::optional<int64_t> JsonInteger(const nlohmann::json& value) {
  if (value.is_number_unsigned()) {
    uint64_t u = value.get<uint64_t>();
    return u > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  return std::nullopt;
}

Result<nlohmann::json> ParseJson(const std::string& text, const std::string& path) {
  if (size_t deep = FirstTooDeep(text); deep != std::string::npos) {
    auto [line, column] = LineAndColumn(text, deep);
    return Status::ErrorAt(path, MsgId::kJsonTooDeep, {std::to_string(kMaxJsonDepth), std::to_string(deep),
                                                       std::to_string(line), std::to_string(column)});
  }
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser stopped.
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    auto [line, column] = LineAndColumn(text, offset);
    std::string what = e.what();
    // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    size_t colon = what.find(": ");
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    // "...; last read: '<the token so far>'" quotes the file: an unterminated string can be megabytes.
    if (size_t last = reason.find("last read: '"); last != std::string::npos) {
      size_t from = last + 12, to = reason.rfind('\'');
      if (to > from)
        reason = reason.substr(0, from) + ValueForMessage(reason.substr(from, to - from)) + reason.substr(to);
    }
    return Status::ErrorAt(path, MsgId::kJsonInvalidAtOffset,
                           {std::to_string(offset), std::to_string(line), std::to_string(column), reason});
  } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond double's range (out_of_range 406)
    return Status::ErrorAt(path, MsgId::kJsonInvalidShort, {CappedJsonError(e.what())});
  }
}

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  auto text = ReadTokenizerFile(path);
  if (!text.ok()) return text.status();
  return ParseJson(*text, path);
}

}  // namespace attnviz::tokenize
