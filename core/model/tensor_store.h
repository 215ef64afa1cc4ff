// The weights of one checkpoint folder as one set of names: `model.safetensors`, or a sharded checkpoint
// (`model.safetensors.index.json` whose "weight_map" sends each name to a shard file in the same folder).
// F32 tensors are used in place (pointers into the maps); F16/BF16 (or a misaligned F32) are converted to float
// once and kept here. Tensors of another format (a GGUF file, gguf_weights.h) are added already as floats, under
// the Hugging Face names the binder asks for. Not thread-safe while binding; read-only afterwards.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/safetensors.h"
#include "base/status.h"

namespace attnviz::model {

class TensorStore {
 public:
  // dir/model.safetensors.index.json when present, else dir/model.safetensors.
  static Result<std::shared_ptr<TensorStore>> OpenDir(const std::string& dir);
  // The given files as one set (a name in two files is an error).
  static Result<std::shared_ptr<TensorStore>> OpenFiles(const std::vector<std::string>& paths);
  // A sharded checkpoint from its index file.
  static Result<std::shared_ptr<TensorStore>> OpenIndex(const std::string& index_path);

  struct Entry {
    const SafetensorsFile* file = nullptr;  // null for a tensor added as floats
    const TensorInfo* info = nullptr;       // shape in PyTorch order
    const float* floats = nullptr;          // set for a tensor added as floats
    const std::string* origin = nullptr;    // its file, for messages (set for a tensor added as floats)
    bool deferred = false;                  // dequantized per layer by the model's LayerWeightSource (model.h)
    const std::string& path() const { return file ? file->path() : *origin; }
  };
  const Entry* Find(const std::string& name) const;
  bool Has(const std::string& name) const { return Find(name) != nullptr; }
  std::vector<std::string> Names() const;  // sorted
  const std::vector<std::shared_ptr<const SafetensorsFile>>& files() const { return files_; }

  // [elements] floats of tensor `name`: the map itself for aligned F32, else a converted copy made once.
  Result<const float*> Floats(const std::string& name);
  size_t converted_bytes() const { return converted_bytes_; }
  size_t mapped_bytes() const;

  // A tensor from a file of another format, as floats: `values` kept here (`stored_as`: its type in that file,
  // e.g. "q4_K", for Describe), or `in_place` pointing into a map kept alive with Keep. `shape` in PyTorch order.
  // A name given twice is a programming error.
  void AddFloats(const std::string& name, std::vector<int64_t> shape, std::vector<float> values,
                 const std::string& origin, const std::string& stored_as);
  void AddInPlace(const std::string& name, std::vector<int64_t> shape, const float* in_place,
                  const std::string& origin, const std::string& stored_as, size_t mapped_bytes);
  // A tensor no float copy is kept of: Floats refuses it, the binder checks its shape and binds null, and the model's
  // LayerWeightSource dequantizes it per layer (`file_bytes`: its bytes in the mapped file).
  void AddDeferred(const std::string& name, std::vector<int64_t> shape, const std::string& origin,
                   const std::string& stored_as, size_t file_bytes);
  void Keep(std::shared_ptr<const void> owner) { kept_.push_back(std::move(owner)); }
  // The one file of another format the added tensors come from: its size on disk.
  void SetSourceBytes(uint64_t bytes) { source_bytes_ = bytes; }
  uint64_t source_bytes() const { return source_bytes_; }
  bool added() const { return !origins_.empty(); }
  // Tensors added per stored type ("q4_K" -> 60).
  const std::map<std::string, int>& added_types() const { return added_types_; }
  // "GGUF FILE: 12 f32, 7 q4_K" for the tensors added as floats; "" when there are none.
  std::string DescribeAdded() const;

 private:
  std::vector<std::shared_ptr<const SafetensorsFile>> files_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::vector<float>> converted_;
  size_t converted_bytes_ = 0;
  // Tensors added as floats (std::map: the Entry pointers into it stay valid).
  std::map<std::string, TensorInfo> added_infos_;
  std::vector<std::shared_ptr<const std::string>> origins_;
  std::map<std::string, int> added_types_;
  size_t added_mapped_bytes_ = 0;
  uint64_t source_bytes_ = 0;
  std::vector<std::shared_ptr<const void>> kept_;
  Entry& AddEntry(const std::string& name, std::vector<int64_t> shape, const std::string& origin,
                  const std::string& stored_as);
};

}  // namespace attnviz::model
