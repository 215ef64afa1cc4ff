// Small helpers shared by the tokenize tests: a temporary folder of tokenizer files, fixture JSON, ids of tokens.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tokenize/tokenizer.h"

namespace attnviz::tokenize::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "attnviz_tok_XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::string path_;
};

// A fixture's JSON file (expected.json, sentences.json).
inline nlohmann::json ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

inline std::vector<int> Ids(const std::vector<Token>& tokens) {
  std::vector<int> ids;
  for (const auto& t : tokens) ids.push_back(t.id);
  return ids;
}

}  // namespace attnviz::tokenize::testing
