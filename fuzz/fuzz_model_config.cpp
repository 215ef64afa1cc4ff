// A model folder's config.json (ParseModelConfig): a config with usable sizes, or a message naming the file.
#include "fuzz_util.h"
#include "model/config.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto config = model::ParseModelConfig(fuzz::AsText(data, size), "config.json");
  if (!config) {
    FUZZ_EXPECT(config.message().find("config.json") != std::string::npos);
    return 0;
  }
  FUZZ_EXPECT(config->n_layer > 0 && config->n_head > 0 && config->n_kv_head > 0 && config->d_head > 0);
  FUZZ_EXPECT(config->n_head % config->n_kv_head == 0);
  (void)config->Describe();
  return 0;
}
