#include "model/model.h"

#include <map>

#include "model/bind.h"

namespace attnviz::model {

Result<std::shared_ptr<const Model>> BindModel(ModelConfig config, std::shared_ptr<TensorStore> store, std::string dir) {
  auto params = BindParams(config, store.get());
  if (!params) return Status::Prefixed(MsgId::kPrefixContext, {dir}, params.status());
  std::shared_ptr<Model> m(new Model());
  m->config_ = std::move(config);
  m->store_ = std::move(store);
  m->params_ = std::move(*params);
  m->dir_ = std::move(dir);
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
  return BindModel(std::move(*config), std::move(*store), dir);
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
  char b[128];
  if (const std::string added = store_->DescribeAdded(); !added.empty()) {  // a GGUF file: its tensor types
    std::snprintf(b, sizeof b, "; %.1f MB mapped, %.1f MB dequantized to float", store_->mapped_bytes() / 1e6,
                  store_->converted_bytes() / 1e6);
    return config_.Describe() + "\n" + added + b;
  }
  std::snprintf(b, sizeof b, "), %.1f MB mapped, %.1f MB converted to float", store_->mapped_bytes() / 1e6,
                store_->converted_bytes() / 1e6);
  return s + b;
}

}  // namespace attnviz::model
