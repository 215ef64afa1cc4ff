// A WordLevel tokenizer.json whose vocabulary is "t0" .. "t{vocab_size-1}", for the torch model fixtures (which
// have weights but no tokenizer): the text "t5 t9 t2" is the ids 5, 9, 2.
#pragma once
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

}  // namespace attnviz::testing
