// A loaded checkpoint: config.json + the safetensors weights bound to ModelParams. Immutable once loaded and
// shared (std::shared_ptr<const Model>); runs read it from any thread.
//
// Supported model_type: those of the families in arch/family.h, the one list (SupportedModelTypes() names them).
// The tokenizer is not here.
//
// Weights not resident as floats (a quantized GGUF file, gguf_weights.h) are dequantized per layer: a run asks
// BlockWeights(l, scratch) for block l and gets float pointers into its own scratch, filled from the mapped file;
// params() then holds null for those weights. A model whose weights are all floats returns params().blocks[l].
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/params.h"
#include "model/tensor_store.h"
#include "base/status.h"

namespace attnviz::model {

// Where the weights that are not resident come from (gguf_weights.cpp). Read-only: any thread may call it.
class LayerWeightSource {
 public:
  virtual ~LayerWeightSource() = default;
  // Floats of layer `layer`'s deferred weights (each tensor's start rounded up to 16 floats: 64-byte aligned).
  virtual size_t LayerFloats(int layer) const = 0;
  // Dequantizes layer `layer`'s deferred weights into scratch [LayerFloats(layer)] and points their fields of *b
  // (the resident BlockParams copied in) there.
  virtual void Fill(int layer, float* scratch, BlockParams* b) const = 0;
  // Row `id` of the token embedding into out [d_model]; asked only when params().tok_emb is null.
  virtual void TokenRow(int id, float* out) const = 0;
  // Whether the LM head is deferred (a quantized output.weight, or the tied token embedding quantized).
  virtual bool HasLmHead() const = 0;
  // Rows [first, first + count) of the deferred LM head [vocab, d_model] into out [count, d_model].
  virtual void LmHeadRows(int64_t first, int64_t count, float* out) const = 0;
};

// One thread's (or one run's) reused buffers for Model::BlockWeights: grown to the largest layer, never shrunk.
struct WeightScratch {
  std::vector<float> floats;  // [LayerFloats(layer)]
  BlockParams block;          // the resident fields copied, the deferred ones pointing into floats
};

class Model {
 public:
  const ModelConfig& config() const { return config_; }
  // !! With a LayerWeightSource the deferred weights are null here: runs read BlockWeights and TokenEmbedding.
  const ModelParams& params() const { return params_; }
  const std::string& dir() const { return dir_; }
  // Config line + weights: files, dtypes, bytes mapped and converted.
  std::string Describe() const;

  // The weights of block `layer` (0 <= layer < n_layer): params().blocks[layer] when all are resident, else a
  // copy in scratch->block whose deferred weights are dequantized into scratch->floats (valid until the next call
  // with the same scratch). Threads: one scratch per thread; the Model is not changed.
  const BlockParams& BlockWeights(int layer, WeightScratch* scratch) const;
  // Row `id` (0 <= id < vocab) of the token embedding into out [d_model], dequantized when stored quantized.
  void TokenEmbedding(int id, float* out) const;
  // Whether there is an LM head: params().lm_head.w resident, or a deferred one served by LmHeadRows.
  bool has_lm_head() const { return params_.lm_head.w != nullptr || (deferred_ && deferred_->HasLmHead()); }
  // Rows [first, first + count) of the LM head W_head [vocab, d_model] into out [count, d_model]: copied when
  // resident, dequantized when deferred (predict.cpp asks chunks of vocab rows into one reused buffer, so a
  // quantized head is never held whole as floats).
  void LmHeadRows(int first, int count, float* out) const;
  // True when some weights are dequantized per layer (BlockWeights fills a scratch).
  bool per_layer() const { return deferred_ != nullptr; }
  // Bytes of F32 weights held in memory (converted or dequantized copies kept by the store; not the mapped file's
  // pages), plus with `with_scratch` one layer's scratch (what a run adds: config().layer_scratch_floats).
  size_t ResidentFloatBytes(bool with_scratch) const;
  // The weights' file types as stored, most tensors first, in ggml's/safetensors' spelling upper-cased:
  // "Q4_K, Q6_K, F32"; and the bytes of the weight file(s) on disk; "GGUF" or "safetensors".
  std::string TensorTypes() const;
  uint64_t FileBytes() const;
  const char* format() const { return store_->added() ? "GGUF" : "safetensors"; }

 private:
  friend Result<std::shared_ptr<const Model>> BindModel(ModelConfig, std::shared_ptr<TensorStore>, std::string,
                                                        std::shared_ptr<const LayerWeightSource>);
  ModelConfig config_;
  std::shared_ptr<TensorStore> store_;  // keeps the maps (and converted copies) alive
  ModelParams params_;
  std::string dir_;
  std::shared_ptr<const LayerWeightSource> deferred_;  // null: every weight resident
};

// dir/config.json + dir/model.safetensors (or dir/model.safetensors.index.json and its shards).
Result<std::shared_ptr<const Model>> LoadModel(const std::string& dir);
// A config and an open store (tests, benchmarks). `dir` is only a label. `deferred`: the weights the store holds as
// deferred entries (TensorStore::AddDeferred), dequantized per layer; sets config.layer_scratch_floats.
Result<std::shared_ptr<const Model>> BindModel(ModelConfig config, std::shared_ptr<TensorStore> store, std::string dir,
                                               std::shared_ptr<const LayerWeightSource> deferred = nullptr);

}  // namespace attnviz::model
