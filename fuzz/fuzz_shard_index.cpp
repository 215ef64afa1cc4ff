// model.safetensors.index.json (TensorStore::OpenDir): the input is the index, then after a NUL byte one shard
// file (written as shard-0.safetensors). Every accepted store holds what the index names, in the shard it names;
// every refusal is a message naming a file of the folder, of bounded length (quoted values are capped).
#include "fuzz_util.h"
#include "model/tensor_store.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::AsText(data, size);
  const size_t nul = text.find('\0');
  fuzz::WriteScratch("model.safetensors.index.json", text.substr(0, nul));
  fuzz::WriteScratch("shard-0.safetensors", nul == std::string::npos ? std::string() : text.substr(nul + 1));
  auto store = model::TensorStore::OpenDir(fuzz::ScratchDir());
  if (!store) {
    FUZZ_EXPECT(store.message().find(fuzz::ScratchDir()) != std::string::npos);
    FUZZ_EXPECT(store.message().size() < 4096);
    return 0;
  }
  for (const std::string& name : (*store)->Names()) {
    const model::TensorStore::Entry* e = (*store)->Find(name);
    FUZZ_EXPECT(e && e->file && e->info && e->info->name == name);
  }
  return 0;
}
