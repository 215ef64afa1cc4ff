// GPT-2's vocab.json + merges.txt: the input is the two files separated by a NUL byte.
#include "tokenizer_check.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::AsText(data, size);
  const size_t nul = input.find('\0');
  const std::string vocab = input.substr(0, nul), merges = nul == std::string::npos ? "" : input.substr(nul + 1);
  auto tokenizer = tokenize::LoadGpt2Tokenizer(fuzz::WriteScratch("vocab.json", vocab),
                                               fuzz::WriteScratch("merges.txt", merges));
  if (!tokenizer) {
    const std::string& m = tokenizer.message();
    FUZZ_EXPECT(m.find("vocab.json") != std::string::npos || m.find("merges.txt") != std::string::npos);
    return 0;
  }
  fuzz::CheckEncodes(**tokenizer, input);
  return 0;
}
