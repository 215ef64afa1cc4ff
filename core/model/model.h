// A loaded checkpoint: config.json + the safetensors weights bound to ModelParams. Immutable once loaded and
// shared (std::shared_ptr<const Model>); runs read it from any thread.
//
// Supported model_type: gpt2, bert, llama, qwen2, mistral (config.h, bind.h). The tokenizer is not here.
#pragma once
#include <memory>
#include <string>

#include "model/config.h"
#include "model/params.h"
#include "model/tensor_store.h"
#include "base/status.h"

namespace attnviz::model {

class Model {
 public:
  const ModelConfig& config() const { return config_; }
  const ModelParams& params() const { return params_; }
  const std::string& dir() const { return dir_; }
  // Config line + weights: files, dtypes, bytes mapped and converted.
  std::string Describe() const;

 private:
  friend Result<std::shared_ptr<const Model>> BindModel(ModelConfig, std::shared_ptr<TensorStore>, std::string);
  ModelConfig config_;
  std::shared_ptr<TensorStore> store_;  // keeps the maps (and converted copies) alive
  ModelParams params_;
  std::string dir_;
};

// dir/config.json + dir/model.safetensors (or dir/model.safetensors.index.json and its shards).
Result<std::shared_ptr<const Model>> LoadModel(const std::string& dir);
// A config and an open store (tests, benchmarks). `dir` is only a label.
Result<std::shared_ptr<const Model>> BindModel(ModelConfig config, std::shared_ptr<TensorStore> store, std::string dir);

}  // namespace attnviz::model
