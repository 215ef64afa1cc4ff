// BERT's vocab.txt + tokenizer_config.json: the input is the two files separated by a NUL byte.
#include "tokenizer_check.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::AsText(data, size);
  const size_t nul = input.find('\0');
  const std::string vocab = input.substr(0, nul), config = nul == std::string::npos ? "" : input.substr(nul + 1);
  auto tokenizer = tokenize::LoadBertTokenizer(fuzz::WriteScratch("vocab.txt", vocab),
                                               fuzz::WriteScratch("tokenizer_config.json", config));
  if (!tokenizer) {
    const std::string& m = tokenizer.message();
    FUZZ_EXPECT(m.find("vocab.txt") != std::string::npos || m.find("tokenizer_config.json") != std::string::npos);
    return 0;
  }
  fuzz::CheckEncodes(**tokenizer, input);
  return 0;
}
