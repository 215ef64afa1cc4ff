// A .gguf file (header, metadata, tensor infos; then its model config, llama-family weights, tokenizer keys and the
// tokenizer they build, run on one text):
// every tensor it accepts lies inside the file and dequantizes without reading past it, or a message naming the
// file.
#include <algorithm>
#include <utility>
#include <vector>

#include "fuzz_util.h"
#include "model/gguf_config.h"
#include "model/gguf_quant.h"
#include "model/gguf_vocab_reader.h"
#include "model/gguf_weights.h"
#include "tokenize/gguf_tokenizer.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz::WriteScratch("model.gguf", fuzz::AsText(data, size));
  auto file = model::GgufFile::Open(path);
  if (!file) {
    FUZZ_EXPECT(file.message().find("model.gguf") != std::string::npos);
    return 0;
  }
  const model::GgufFile& f = **file;
  // What a real file needs bounds what is held, whatever the file's size allows.
  FUZZ_EXPECT(f.tensors().size() <= model::GgufFile::kMaxTensors && f.metadata().size() <= model::GgufFile::kMaxKeys);
  for (const auto& [key, value] : f.metadata())
    FUZZ_EXPECT(key.size() <= model::GgufFile::kMaxKeyBytes && value.s.size() <= model::GgufFile::kMaxStringBytes);
  // No two accepted tensors share bytes.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const model::GgufTensor& t : f.tensors()) ranges.emplace_back(t.begin, t.end);
  std::sort(ranges.begin(), ranges.end());
  for (size_t k = 1; k < ranges.size(); ++k) FUZZ_EXPECT(ranges[k].first >= ranges[k - 1].second);
  for (const model::GgufTensor& t : f.tensors()) {
    FUZZ_EXPECT(t.begin >= f.data_start() && t.begin <= t.end && t.end <= size);
    FUZZ_EXPECT(f.FindTensor(t.name) != nullptr);
    if (model::GgmlTypeDequantizable(t.type) && t.elements <= (1u << 20)) {
      FUZZ_EXPECT(model::GgmlRowBytes(t.type, t.ne[0]) * (uint64_t)t.rows() == t.end - t.begin);
      std::vector<float> values(t.elements);
      FUZZ_EXPECT(model::DequantizeTensorRows(f, t, 0, t.rows(), values.data()).ok());
    }
  }
  auto config = model::GgufModelConfig(f);
  if (config && (int64_t)config->n_layer * config->d_model * config->d_ff < (int64_t(1) << 26)) {
    auto m = model::LoadGgufModel(*file);
    if (!m) FUZZ_EXPECT(!m.message().empty());
  }
  auto vocab = model::ReadGgufVocab(f);
  if (!vocab) {
    FUZZ_EXPECT(vocab.message().find("model.gguf") != std::string::npos);
    return 0;
  }
  auto tokenizer = tokenize::MakeGgufTokenizer(*vocab);
  if (!tokenizer) return 0;
  auto tokens = (*tokenizer)->Encode("Hello world, 안녕하세요 123 <s>");
  if (tokens)
    for (const auto& t : *tokens) FUZZ_EXPECT(t.id >= 0 && (size_t)t.id < vocab->tokens.size());
  return 0;
}
