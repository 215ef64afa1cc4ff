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

}  // namespace attnviz::fuzz
