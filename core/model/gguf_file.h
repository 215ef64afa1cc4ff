// Read-only, memory-mapped GGUF files (ggml's format: github.com/ggml-org/ggml docs/gguf.md), versions 2 and 3.
//
// Layout of a file (little endian):
//   magic "GGUF" | u32 version | u64 tensor_count | u64 kv_count
//   kv_count x  { string key | u32 value_type | value }      string = u64 length + bytes (no terminator)
//                                                             array  = u32 item_type + u64 count + items
//   tensor_count x { string name | u32 n_dims | u64 ne[n_dims] | u32 ggml_type | u64 offset }
//   padding to general.alignment (default 32) | data section: a tensor's bytes at data_start + offset
//
// !! ne is innermost first: ne[0] is the row length. A Hugging Face weight [out, in] is stored as ne = {in, out}.
//
// Every count, length, offset and size is checked against the file before it is used (checked arithmetic):
// a count the remaining bytes cannot hold, a string past the end, arrays of arrays nested deeper than
// kMaxArrayDepth, an unknown value or tensor type, more than 4 dims, an overflowing element count, a row that
// is not whole blocks, an offset off the alignment, a tensor past the end, a name twice, two tensors sharing bytes; at most 2^23 array items
// in all (each is held in memory). Counts and lengths are also bounded by what a real file needs (kMaxTensors,
// kMaxKeys, kMaxKeyBytes, kMaxStringBytes), and what the parse will hold is checked against the memory limit
// (base/memory_budget.h) before it is allocated. Each refusal names the file, the key or tensor and the byte offset. Types ggml knows but attnviz cannot dequantize (IQ*, ...) parse
// fine and are refused when their floats are asked for (gguf_quant.h), by their ggml name.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/safetensors.h"  // MappedFile

namespace attnviz::model {

enum class GgufValueType : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7, kString = 8, kArray = 9,
  kU64 = 10, kI64 = 11, kF64 = 12,
};
const char* GgufValueTypeName(GgufValueType t);  // "uint32", "string", "array", ...

// One metadata value. Scalars keep their value in the field of their kind; arrays their items (all of one type).
struct GgufValue {
  GgufValueType type = GgufValueType::kU8;
  uint64_t u = 0;     // kU8..kU64, kBool
  int64_t i = 0;      // kI8..kI64 (and the unsigned kinds when they fit)
  double f = 0;       // kF32, kF64
  std::string s;      // kString
  GgufValueType item_type = GgufValueType::kU8;  // kArray
  std::vector<GgufValue> items;                   // kArray
  uint64_t at = 0;    // byte offset of the value in the file (for messages)

  bool is_integer() const;  // any of the eight integer kinds
  bool is_number() const { return is_integer() || type == GgufValueType::kF32 || type == GgufValueType::kF64; }
  double number() const;    // any numeric kind as double
};

// ggml tensor types: the ids of ggml.h's enum ggml_type (gaps are ids ggml retired).
enum class GgmlType : uint32_t {
  kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ4_1 = 3, kQ5_0 = 6, kQ5_1 = 7, kQ8_0 = 8, kQ8_1 = 9, kQ2_K = 10, kQ3_K = 11,
  kQ4_K = 12, kQ5_K = 13, kQ6_K = 14, kQ8_K = 15, kIQ2_XXS = 16, kIQ2_XS = 17, kIQ3_XXS = 18, kIQ1_S = 19,
  kIQ4_NL = 20, kIQ3_S = 21, kIQ2_S = 22, kIQ4_XS = 23, kI8 = 24, kI16 = 25, kI32 = 26, kI64 = 27, kF64 = 28,
  kIQ1_M = 29, kBF16 = 30, kTQ1_0 = 34, kTQ2_0 = 35, kMXFP4 = 39,
};
struct GgmlTypeInfo {
  GgmlType type;
  const char* name;  // ggml's: "f32", "q4_K", "iq2_xxs", ...
  uint32_t block;    // elements per block (1 for plain types, 32 legacy quants, 256 k-quants)
  uint32_t bytes;    // bytes per block
};
// Null for an id ggml does not define (or retired).
const GgmlTypeInfo* FindGgmlType(uint32_t id);
const char* GgmlTypeName(GgmlType t);

struct GgufTensor {
  std::string name;
  std::vector<int64_t> ne;  // !! innermost first, 1..4 dims
  GgmlType type = GgmlType::kF32;
  uint64_t elements = 0;
  uint64_t offset = 0;           // relative to the data section, as stored
  uint64_t begin = 0, end = 0;   // absolute byte range in the file
  uint64_t info_at = 0;          // byte offset of the tensor's info record (for messages)
  int64_t rows() const;          // ne[1] * ne[2] * ne[3]
  std::vector<int64_t> torch_shape() const;  // ne reversed: PyTorch order
};

std::string NeString(const std::vector<int64_t>& ne);  // "{48, 80}"

class GgufFile {
 public:
  static constexpr int kMaxArrayDepth = 2;         // an array of arrays of scalars, no deeper
  static constexpr uint64_t kMaxNameBytes = 63;    // ggml's GGML_MAX_NAME - 1
  static constexpr uint32_t kDefaultAlignment = 32;
  // What a real file needs, far from any: the largest models (MoE with unmerged experts) have under 50,000 tensors
  // and under 100 keys, a key is a dotted name of tens of bytes, the longest strings are chat templates and an
  // embedded tokenizer.json (at most the 64 MiB a tokenizer file may have).
  static constexpr uint64_t kMaxTensors = 65536;
  static constexpr uint64_t kMaxKeys = 65536;
  static constexpr uint64_t kMaxKeyBytes = 65535;
  static constexpr uint64_t kMaxStringBytes = uint64_t(64) << 20;

  static Result<std::shared_ptr<const GgufFile>> Open(const std::string& path);
  static Result<std::shared_ptr<const GgufFile>> Parse(std::shared_ptr<const MappedFile> map);

  const std::string& path() const { return map_->path(); }
  uint32_t version() const { return version_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t data_start() const { return data_start_; }
  size_t file_size() const { return map_->size(); }
  const std::map<std::string, GgufValue>& metadata() const { return kv_; }
  const GgufValue* Find(const std::string& key) const;
  const std::vector<GgufTensor>& tensors() const { return tensors_; }  // in file order
  const GgufTensor* FindTensor(const std::string& name) const;
  const uint8_t* Bytes(const GgufTensor& t) const { return map_->data() + t.begin; }

 private:
  std::shared_ptr<const MappedFile> map_;
  uint32_t version_ = 0;
  uint32_t alignment_ = kDefaultAlignment;
  uint64_t data_start_ = 0;
  std::map<std::string, GgufValue> kv_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string, size_t> index_;
};

}  // namespace attnviz::model
