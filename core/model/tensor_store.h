// The weights of one checkpoint folder as one set of names: `model.safetensors`, or a sharded checkpoint
// (`model.safetensors.index.json` whose "weight_map" sends each name to a shard file in the same folder).
// F32 tensors are used in place (pointers into the maps); F16/BF16 (or a misaligned F32) are converted to float
// once and kept here. Not thread-safe while binding; read-only afterwards.
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
    const SafetensorsFile* file = nullptr;
    const TensorInfo* info = nullptr;
  };
  const Entry* Find(const std::string& name) const;
  bool Has(const std::string& name) const { return Find(name) != nullptr; }
  std::vector<std::string> Names() const;  // sorted
  const std::vector<std::shared_ptr<const SafetensorsFile>>& files() const { return files_; }

  // [elements] floats of tensor `name`: the map itself for aligned F32, else a converted copy made once.
  Result<const float*> Floats(const std::string& name);
  size_t converted_bytes() const { return converted_bytes_; }
  size_t mapped_bytes() const;

 private:
  std::vector<std::shared_ptr<const SafetensorsFile>> files_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::vector<float>> converted_;
  size_t converted_bytes_ = 0;
};

}  // namespace attnviz::model
