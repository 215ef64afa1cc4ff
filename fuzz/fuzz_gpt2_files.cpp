// GPT-2's vocab.json + merges.txt: the input is the two files separated by a NUL byte.
#include "tokenizer_check.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::FuzzTwoFileTokenizer(
      data, size, "vocab.json", "merges.txt", [](const std::string& a, const std::string& b) {
        return tokenize::LoadGpt2Tokenizer(a, b);
      });
}
