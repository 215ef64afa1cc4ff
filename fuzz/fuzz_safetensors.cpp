// A .safetensors file (header length, JSON header, offsets): every tensor it accepts lies inside the file and
// converts to floats without reading past it, or a message naming the file.
#include <vector>

#include "fuzz_util.h"
#include "model/safetensors.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::WriteScratch("model.safetensors", fuzz::AsText(data, size));
  auto file = model::SafetensorsFile::Open(path);
  if (!file) {
    FUZZ_EXPECT(file.message().find("model.safetensors") != std::string::npos);
    return 0;
  }
  for (const model::TensorInfo& t : (*file)->tensors()) {
    FUZZ_EXPECT(t.begin <= t.end && t.end <= size && t.begin >= (*file)->data_start());
    FUZZ_EXPECT(t.end - t.begin == t.elements * model::DTypeSize(t.dtype));
    FUZZ_EXPECT((*file)->Find(t.name) != nullptr);
    if (model::DTypeIsFloatConvertible(t.dtype) && t.elements <= (1u << 20)) {
      std::vector<float> values(t.elements);
      FUZZ_EXPECT(model::ConvertToFloat(**file, t, values.data()).ok());
    }
  }
  return 0;
}
