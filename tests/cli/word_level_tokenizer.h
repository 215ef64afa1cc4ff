// A WordLevel tokenizer.json whose vocabulary is "t0" .. "t{vocab_size-1}", for the torch model fixtures (which
// have weights but no tokenizer): the text "t5 t9 t2" is the ids 5, 9, 2.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace attnviz::testing {

inline void WriteWordLevelTokenizer(const std::string& dir, int vocab_size) {
  nlohmann::json vocab = nlohmann::json::object();
  for (int i = 0; i < vocab_size; ++i) vocab["t" + std::to_string(i)] = i;
  const nlohmann::json tokenizer = {{"version", "1.0"},
                                    {"normalizer", nullptr},
                                    {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
                                    {"post_processor", nullptr},
                                    {"decoder", nullptr},
                                    {"added_tokens", nlohmann::json::array()},
                                    {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", "t0"}}}};
  std::ofstream(dir + "/tokenizer.json") << tokenizer.dump();
}

inline nlohmann::json ReadJsonFile(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// A copy of tests/fixtures/models/<name> in the temp folder with the WordLevel tokenizer above (the fixtures have
// weights but no tokenizer), named by `tag` and the process so parallel tests never share one; removed at the end.
class WordLevelModelCopy {
 public:
  WordLevelModelCopy(const std::string& name, const std::string& tag)
      : dir_((std::filesystem::temp_directory_path() /
              ("attnviz_cli_" + tag + "_" + name + "_" + std::to_string(::getpid())))
                 .string()) {
    std::filesystem::remove_all(dir_);
    std::filesystem::copy(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models/" + name, dir_,
                          std::filesystem::copy_options::recursive);
    WriteWordLevelTokenizer(dir_, Read("config.json")["vocab_size"].get<int>());
  }
  ~WordLevelModelCopy() { std::filesystem::remove_all(dir_); }
  WordLevelModelCopy(const WordLevelModelCopy&) = delete;
  WordLevelModelCopy& operator=(const WordLevelModelCopy&) = delete;
  const std::string& dir() const { return dir_; }
  bool Has(const std::string& file) const { return std::filesystem::exists(dir_ + "/" + file); }
  nlohmann::json Read(const std::string& file) const { return ReadJsonFile(dir_ + "/" + file); }

 private:
  std::string dir_;
};

}  // namespace attnviz::testing
