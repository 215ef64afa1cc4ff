#include "model/tensor_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "base/check.h"
#include "io/file_io.h"
#include "model/json_limits.h"


namespace attnviz::model {
namespace {

using json = nlohmann::json;

// The index is small (names -> file names); anything over this is not an index.
constexpr size_t kMaxIndexBytes = 64u << 20;
// NAME_MAX on Linux file systems.
constexpr size_t kMaxShardNameBytes = 255;

Status AddFile(std::shared_ptr<const SafetensorsFile> file, std::map<std::string, TensorStore::Entry>* entries) {
  for (const TensorInfo& t : file->tensors()) {
    auto it = entries->find(t.name);
    if (it != entries->end())
      return Status::Error(MsgId::kTensorInTwoFiles, {CappedValue(t.name), it->second.file->path(), file->path()});
    (*entries)[t.name] = TensorStore::Entry{file.get(), &t};
  }
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<TensorStore>> TensorStore::OpenDir(const std::string& dir) {
  const std::string index = dir + "/model.safetensors.index.json";
  if (PathExists(index)) return OpenIndex(index);
  const std::string single = dir + "/model.safetensors";
  if (PathExists(single)) return OpenFiles({single});
  return Status::ErrorAt(dir, MsgId::kNoSafetensors, {});
}

Result<std::shared_ptr<TensorStore>> TensorStore::OpenFiles(const std::vector<std::string>& paths) {
  auto store = std::make_shared<TensorStore>();
  for (const std::string& p : paths) {
    auto f = SafetensorsFile::Open(p);
    if (!f) return f.status();
    if (Status s = AddFile(*f, &store->entries_); !s) return s;
    store->files_.push_back(*f);
  }
  return store;
}

Result<std::shared_ptr<TensorStore>> TensorStore::OpenIndex(const std::string& index_path) {
  // 1. Read the index (bounded) and parse it.
  auto map = MappedFile::Open(index_path);
  if (!map) return map.status();
  if ((*map)->size() > kMaxIndexBytes)
    return Status::ErrorAt(index_path, MsgId::kIndexTooLarge, {std::to_string((*map)->size())});
  const char* b = reinterpret_cast<const char*>((*map)->data());
  json index;
  if (Status s = ParseJsonBounded(b, b + (*map)->size(), index_path, &index); !s) return s;
  auto wm = index.is_object() ? index.find("weight_map") : index.end();
  if (!index.is_object() || wm == index.end() || !wm->is_object())
    return Status::ErrorAt(index_path, MsgId::kIndexNoWeightMap, {});
  // 2. Shard files: plain names in the index's folder.
  const size_t slash = index_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : index_path.substr(0, slash);
  std::vector<std::string> shards;  // each once, in the order the index first names them
  std::set<std::string> seen;       // O(log n) per entry: an index may list hundreds of thousands of tensors
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    if (!it->is_string())
      return Status::ErrorAt(index_path, MsgId::kIndexEntryNotString, {CappedValue(it.key())});
    const std::string shard = it->get<std::string>();
    // A file name longer than NAME_MAX cannot exist; refusing it here keeps the message bounded (the open
    // error would quote the whole path).
    if (shard.empty() || shard.size() > kMaxShardNameBytes || shard.find('/') != std::string::npos || shard == "." ||
        shard == "..")
      return Status::ErrorAt(index_path, MsgId::kIndexShardName, {CappedValue(it.key()), CappedValue(shard)});
    if (seen.insert(shard).second) shards.push_back(shard);
  }
  if (shards.empty()) return Status::ErrorAt(index_path, MsgId::kIndexEmpty, {});
  std::vector<std::string> paths;
  for (const auto& s : shards) paths.push_back(dir + "/" + s);
  auto store = OpenFiles(paths);
  if (!store) return store.status();
  // 3. Every indexed tensor is in the shard the index names.
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    const Entry* e = (*store)->Find(it.key());
    const std::string want = dir + "/" + it->get<std::string>();
    if (!e) return Status::ErrorAt(index_path, MsgId::kIndexTensorAbsent, {CappedValue(it.key()), CappedValue(want)});
    if (e->file->path() != want)
      return Status::ErrorAt(index_path, MsgId::kIndexTensorElsewhere, {CappedValue(it.key()), CappedValue(want), CappedValue(e->file->path())});
  }
  return store;
}

const TensorStore::Entry* TensorStore::Find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<std::string> TensorStore::Names() const {
  std::vector<std::string> names;
  for (const auto& [n, e] : entries_) names.push_back(n);
  return names;
}

size_t TensorStore::mapped_bytes() const {
  size_t n = added_mapped_bytes_;
  for (const auto& f : files_) n += f->tensors().empty() ? 0 : f->tensors().back().end;
  return n;
}

Result<const float*> TensorStore::Floats(const std::string& name) {
  const Entry* e = Find(name);
  if (!e) return Status::Error(MsgId::kTensorNotFound, {name});
  if (e->floats) return e->floats;
  if (e->deferred) return Status::Error(MsgId::kTensorNotFound, {name + " (dequantized per layer)"});
  const TensorInfo& t = *e->info;
  const uint8_t* bytes = e->file->Bytes(t);
  // 1. F32 in place when aligned (the writer aligns the data section to 8 bytes; offsets are multiples of 4).
  if (t.dtype == DType::kF32 && reinterpret_cast<uintptr_t>(bytes) % alignof(float) == 0)
    return reinterpret_cast<const float*>(bytes);
  // 2. Otherwise one converted copy.
  auto it = converted_.find(name);
  if (it != converted_.end()) return static_cast<const float*>(it->second.data());
  if (!DTypeIsFloatConvertible(t.dtype))
    return Status::ErrorAt(e->file->path(), MsgId::kTensorDtype, {name, DTypeName(t.dtype)});
  std::vector<float> buf(t.elements);
  if (Status s = ConvertToFloat(*e->file, t, buf.data()); !s) return s;
  converted_bytes_ += buf.size() * sizeof(float);
  auto& stored = converted_[name] = std::move(buf);
  return static_cast<const float*>(stored.data());
}

TensorStore::Entry& TensorStore::AddEntry(const std::string& name, std::vector<int64_t> shape,
                                          const std::string& origin, const std::string& stored_as) {
  ATTNVIZ_CHECK_SHAPE(entries_.count(name) == 0, "tensor ", name, " ", shape, " added twice");
  if (origins_.empty() || *origins_.back() != origin) origins_.push_back(std::make_shared<const std::string>(origin));
  TensorInfo& info = added_infos_[name];
  info.name = name;
  info.dtype = DType::kF32;
  info.elements = 1;
  for (int64_t d : shape) info.elements *= (uint64_t)d;
  info.shape = std::move(shape);
  ++added_types_[stored_as];
  Entry& e = entries_[name];
  e.info = &info;
  e.origin = origins_.back().get();
  return e;
}

void TensorStore::AddFloats(const std::string& name, std::vector<int64_t> shape, std::vector<float> values,
                            const std::string& origin, const std::string& stored_as) {
  Entry& e = AddEntry(name, std::move(shape), origin, stored_as);
  ATTNVIZ_CHECK_SHAPE(values.size() == e.info->elements, "tensor ", name, " ", e.info->shape, " of ", e.info->elements,
                      " values, given ", values.size());
  converted_bytes_ += values.size() * sizeof(float);
  auto& stored = converted_[name] = std::move(values);
  e.floats = stored.data();
}

void TensorStore::AddInPlace(const std::string& name, std::vector<int64_t> shape, const float* in_place,
                             const std::string& origin, const std::string& stored_as, size_t mapped_bytes) {
  Entry& e = AddEntry(name, std::move(shape), origin, stored_as);
  e.floats = in_place;
  added_mapped_bytes_ += mapped_bytes;
}

void TensorStore::AddDeferred(const std::string& name, std::vector<int64_t> shape, const std::string& origin,
                              const std::string& stored_as, size_t file_bytes) {
  Entry& e = AddEntry(name, std::move(shape), origin, stored_as);
  e.deferred = true;
  added_mapped_bytes_ += file_bytes;
}

std::string TensorStore::DescribeAdded() const {
  if (origins_.empty()) return "";
  std::string s = *origins_.front() + ":";
  bool first = true;
  for (const auto& [type, count] : added_types_) s += (first ? " " : ", ") + std::to_string(count) + " " + type, first = false;
  return s;
}

}  // namespace attnviz::model
