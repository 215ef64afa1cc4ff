// Read-only, memory-mapped safetensors files (https://github.com/huggingface/safetensors).
//
// Layout of a file:
//   [0, 8)            N: header length, unsigned 64-bit little endian
//   [8, 8 + N)        JSON header {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__"?: {str: str}}
//                     (padded with spaces by the writer)
//   [8 + N, size)     the data section; a tensor's bytes are data[begin, end), little endian, C order
//
// Everything in the header is checked before any tensor is touched, with checked arithmetic: the header length
// against the file, JSON syntax (with the byte offset), dtype names, shapes (no overflow of element or byte
// counts), offsets (inside the data section, end - begin == elements * dtype size, no overlaps). Errors name the
// file and the tensor. The file is mmapped, never read into memory; only regular files are opened.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/check.h"  // ShapeString, for a file's int64_t shapes too
#include "base/status.h"

namespace attnviz::model {

// Every dtype the format defines (so a header with e.g. an I64 buffer is valid); only F32, F16 and BF16 convert
// to float.
enum class DType { kF32, kF16, kBF16, kF64, kI64, kI32, kI16, kI8, kU8, kU16, kU32, kU64, kBool, kF8E4M3, kF8E5M2 };
const char* DTypeName(DType t);
size_t DTypeSize(DType t);
bool DTypeIsFloatConvertible(DType t);  // F32, F16, BF16

// A read-only memory map of a whole regular file (RAII).
// A file that shrinks while mapped (another program rewriting it, a download still in progress) would end the
// process with SIGBUS at the first read past its new end. Every map is registered with a SIGBUS handler instead:
// from the page that faulted to the end of the map reads as zeros, the map is marked changed, and
// MappedFilesUnchanged() (called when a model has loaded and after every run) turns that into a message naming the
// file. A SIGBUS outside every map goes to the handler that was there before.
class MappedFile {
 public:
  static Result<std::shared_ptr<const MappedFile>> Open(const std::string& path);
  bool changed() const;  // a read met a page the file no longer has
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
  int slot_ = -1;  // in the SIGBUS handler's registry, -1 when not registered
};

// Ok, or an error naming the first open map whose file shrank under it (its bytes past the new end read as zeros, so
// nothing computed from it may be shown).
Status MappedFilesUnchanged();

struct TensorInfo {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // PyTorch order; empty = scalar
  uint64_t elements = 1;
  uint64_t begin = 0, end = 0;  // absolute byte offsets in the file (data section start already added)
};


class SafetensorsFile {
 public:
  static Result<std::shared_ptr<const SafetensorsFile>> Open(const std::string& path);
  // The same checks over bytes already in memory (the map must outlive the result); `name` is used in messages.
  static Result<std::shared_ptr<const SafetensorsFile>> Parse(std::shared_ptr<const MappedFile> map);

  const std::string& path() const { return map_->path(); }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }  // in file order
  const TensorInfo* Find(const std::string& name) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const uint8_t* Bytes(const TensorInfo& t) const { return map_->data() + t.begin; }
  uint64_t data_start() const { return data_start_; }

 private:
  std::shared_ptr<const MappedFile> map_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
  uint64_t data_start_ = 0;
};

// Half-precision conversions (exact: every F16 and BF16 value is a float).
float HalfToFloat(uint16_t h);
float BFloat16ToFloat(uint16_t b);
// dst: [t.elements] floats from a F32/F16/BF16 tensor's bytes (unaligned source is fine).
Status ConvertToFloat(const SafetensorsFile& file, const TensorInfo& t, float* dst);

}  // namespace attnviz::model
