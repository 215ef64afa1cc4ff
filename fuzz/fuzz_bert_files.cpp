// BERT's vocab.txt + tokenizer_config.json: the input is the two files separated by a NUL byte.
#include "tokenizer_check.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzz::FuzzTwoFileTokenizer(
      data, size, "vocab.txt", "tokenizer_config.json", [](const std::string& a, const std::string& b) {
        return tokenize::LoadBertTokenizer(a, b);
      });
}
