#include "tokenize/model_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "io/file_io.h"

namespace attnviz::tokenize {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Result<std::string> ReadTokenizerFile(const std::string& path) {
  return ReadFile(path, kMaxTokenizerFileBytes, "tokenizer file");
}

Result<nlohmann::json> ParseJson(const std::string& text, const std::string& path) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser stopped.
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    // nlohmann's message starts "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    size_t colon = what.find(": ");
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    return Status::ErrorAt(path, MsgId::kJsonInvalidAtOffset,
                           {std::to_string(offset), std::to_string(line), std::to_string(column), reason});
  } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond double's range (out_of_range 406)
    return Status::ErrorAt(path, MsgId::kJsonInvalidShort, {e.what()});
  }
}

Result<nlohmann::json> ReadJsonFile(const std::string& path) {
  auto text = ReadTokenizerFile(path);
  if (!text.ok()) return text.status();
  return ParseJson(*text, path);
}

}  // namespace attnviz::tokenize
