// What every tokenizer harness checks once a tokenizer loaded: it encodes a few texts (and the input's own
// leading bytes) into tokens whose spans lie inside the text, or fails with a message.
#pragma once
#include <algorithm>
#include <string>

#include "fuzz_util.h"
#include "tokenize/tokenizer.h"

namespace attnviz::fuzz {

inline void CheckEncodes(const tokenize::Tokenizer& tokenizer, const std::string& input) {
  (void)tokenizer.Describe();
  const std::string texts[] = {"Hello, world! I go home.", "나는 사과를 먹었다 😀 \t\n", "",
                               input.substr(0, std::min<size_t>(input.size(), 64))};
  for (const std::string& text : texts) {
    for (bool special : {true, false}) {
      auto tokens = tokenizer.Encode(text, special);
      if (!tokens) {
        FUZZ_EXPECT(!tokens.message().empty());
        continue;
      }
      for (const tokenize::Token& t : *tokens) {
        FUZZ_EXPECT(t.byte_begin <= t.byte_end && t.byte_end <= text.size());
        (void)tokenizer.IdToPiece(t.id);
      }
    }
  }
}

// A tokenizer read from two files (GPT-2's vocab.json + merges.txt, BERT's vocab.txt + tokenizer_config.json):
// the input is the two files separated by a NUL byte. A refusal names one of the two files; a tokenizer that
// loads must encode (CheckEncodes). load(first_path, second_path) returns a Result<unique_ptr<Tokenizer>>.
template <typename Load>
int FuzzTwoFileTokenizer(const uint8_t* data, size_t size, const std::string& first_name,
                         const std::string& second_name, Load load) {
  const std::string input = AsText(data, size);
  const size_t nul = input.find('\0');
  const std::string first = input.substr(0, nul), second = nul == std::string::npos ? "" : input.substr(nul + 1);
  auto tokenizer = load(WriteScratch(first_name, first), WriteScratch(second_name, second));
  if (!tokenizer) {
    const std::string& m = tokenizer.message();
    FUZZ_EXPECT(m.find(first_name) != std::string::npos || m.find(second_name) != std::string::npos);
    return 0;
  }
  CheckEncodes(**tokenizer, input);
  return 0;
}

}  // namespace attnviz::fuzz
