// .npy bytes (ParseNpy): a tensor whose shape matches its data, or a message; what it reads encodes back
// to the same tensor.
#include <cstring>

#include "fuzz_util.h"
#include "io/npy.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto tensor = ParseNpy(fuzz::AsText(data, size), "fuzz.npy");
  if (!tensor) {
    FUZZ_EXPECT(tensor.message().find("fuzz.npy") != std::string::npos);
    return 0;
  }
  size_t count = 1;
  for (size_t d : tensor->shape) count *= d;
  FUZZ_EXPECT(count == tensor->data.size());
  auto again = ParseNpy(EncodeNpy(tensor->data.data(), tensor->shape), "again.npy");
  FUZZ_EXPECT(again.ok() && again->shape == tensor->shape && again->data.size() == tensor->data.size());
  FUZZ_EXPECT(tensor->data.empty() ||
              std::memcmp(again->data.data(), tensor->data.data(), tensor->data.size() * sizeof(float)) == 0);
  return 0;
}
