#include "model/model.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>

#include "model/bind.h"
#include "base/check.h"
#include "model/safetensors.h"

namespace attnviz::model {

Result<std::shared_ptr<const Model>> BindModel(ModelConfig config, std::shared_ptr<TensorStore> store, std::string dir,
                                               std::shared_ptr<const LayerWeightSource> deferred) {
  auto params = BindParams(config, store.get());
  if (!params) return Status::Prefixed(MsgId::kPrefixContext, {dir}, params.status());
  std::shared_ptr<Model> m(new Model());
  config.layer_scratch_floats = 0;
  if (deferred)
    for (int l = 0; l < config.n_layer; ++l)
      config.layer_scratch_floats = std::max<int64_t>(config.layer_scratch_floats, (int64_t)deferred->LayerFloats(l));
  m->config_ = std::move(config);
  m->store_ = std::move(store);
  m->params_ = std::move(*params);
  m->dir_ = std::move(dir);
  m->deferred_ = std::move(deferred);
  return std::shared_ptr<const Model>(std::move(m));
}

Result<std::shared_ptr<const Model>> LoadModel(const std::string& dir) {
  // 1. config.json
  auto config = ReadModelConfig(dir + "/config.json");
  if (!config) return config.status();
  // 2. weights (one file or shards)
  auto store = TensorStore::OpenDir(dir);
  if (!store) return store.status();
  // 3. names -> params, shapes checked against the config
  auto model = BindModel(std::move(*config), std::move(*store), dir);
  if (Status unchanged = MappedFilesUnchanged(); !unchanged) return unchanged;  // it shrank while being read
  return model;
}

const BlockParams& Model::BlockWeights(int layer, WeightScratch* scratch) const {
  ATTNVIZ_CHECK_SHAPE(layer >= 0 && layer < config_.n_layer, "layer ", layer, " of ", config_.n_layer);
  if (!deferred_) return params_.blocks[(size_t)layer];
  ATTNVIZ_CHECK_SHAPE(scratch != nullptr, "layer ", layer, " of a model read per layer, without a scratch");
  const size_t floats = deferred_->LayerFloats(layer);
  if (scratch->floats.size() < floats) scratch->floats.resize(floats);
  scratch->block = params_.blocks[(size_t)layer];
  deferred_->Fill(layer, scratch->floats.data(), &scratch->block);
  return scratch->block;
}

void Model::TokenEmbedding(int id, float* out) const {
  ATTNVIZ_CHECK_SHAPE(id >= 0 && id < config_.vocab, "token id ", id, " of a vocabulary of ", config_.vocab);
  const size_t d = (size_t)config_.d_model;
  if (params_.tok_emb) {
    std::memcpy(out, params_.tok_emb + (size_t)id * d, d * sizeof(float));
    return;
  }
  ATTNVIZ_CHECK_SHAPE(deferred_ != nullptr, "token id ", id, ": no embedding bound");
  deferred_->TokenRow(id, out);
}

void Model::LmHeadRows(int first, int count, float* out) const {
  ATTNVIZ_CHECK_SHAPE(first >= 0 && count >= 0 && first + count <= config_.vocab && has_lm_head(), "LM head rows ", first, " + ",
                      count, " of a vocabulary of ", config_.vocab, has_lm_head() ? "" : ", no LM head");
  const size_t d = (size_t)config_.d_model;
  if (params_.lm_head.w) {
    std::memcpy(out, params_.lm_head.w + (size_t)first * d, (size_t)count * d * sizeof(float));
    return;
  }
  deferred_->LmHeadRows(first, count, out);
}

size_t Model::ResidentFloatBytes(bool with_scratch) const {
  return store_->converted_bytes() + (with_scratch ? (size_t)config_.layer_scratch_floats * sizeof(float) : 0);
}

std::string Model::TensorTypes() const {
  std::map<std::string, int> counts = store_->added_types();
  if (counts.empty())
    for (const auto& f : store_->files())
      for (const auto& t : f->tensors()) ++counts[DTypeName(t.dtype)];
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [name, count] : counts) {
    std::string upper = name;
    for (char& ch : upper) ch = (char)std::toupper((unsigned char)ch);
    order.push_back({-count, upper});
  }
  std::sort(order.begin(), order.end());
  std::string s;
  for (const auto& [count, name] : order) s += (s.empty() ? "" : ", ") + name;
  return s;
}

uint64_t Model::FileBytes() const {
  return store_->added() ? store_->source_bytes() : store_->mapped_bytes();
}

std::string Model::Describe() const {
  std::map<std::string, int> dtypes;
  size_t tensors = 0;
  for (const auto& f : store_->files())
    for (const auto& t : f->tensors()) ++dtypes[DTypeName(t.dtype)], ++tensors;
  std::string s = config_.Describe() + "\n" + std::to_string(tensors) + " tensors in " +
                  std::to_string(store_->files().size()) + " file(s) (";
  bool first = true;
  for (const auto& [name, count] : dtypes) s += (first ? "" : ", ") + std::to_string(count) + " " + name, first = false;
  char b[192];
  if (const std::string added = store_->DescribeAdded(); !added.empty()) {  // a GGUF file: its tensor types
    std::snprintf(b, sizeof b, "; %.1f MB mapped, %.1f MB kept as float, %.1f MB of one layer dequantized per run",
                  store_->mapped_bytes() / 1e6, store_->converted_bytes() / 1e6,
                  config_.layer_scratch_floats * 4 / 1e6);
    return config_.Describe() + "\n" + added + b;
  }
  std::snprintf(b, sizeof b, "), %.1f MB mapped, %.1f MB converted to float", store_->mapped_bytes() / 1e6,
                store_->converted_bytes() / 1e6);
  return s + b;
}

}  // namespace attnviz::model
