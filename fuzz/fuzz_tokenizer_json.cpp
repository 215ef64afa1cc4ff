// tokenizer.json (the Hugging Face pipeline): loads and encodes, or fails with a message naming the file.
#include "tokenizer_check.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::AsText(data, size);
  auto tokenizer = tokenize::LoadTokenizerJson(fuzz::WriteScratch("tokenizer.json", input));
  if (!tokenizer) {
    FUZZ_EXPECT(tokenizer.message().find("tokenizer.json") != std::string::npos);
    return 0;
  }
  fuzz::CheckEncodes(**tokenizer, input);
  return 0;
}
