#include "model/gguf_file.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <type_traits>

#include "base/memory_budget.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "GGUF data is read as little endian");

namespace attnviz::model {
namespace {

constexpr GgmlTypeInfo kGgmlTypes[] = {
    {GgmlType::kF32, "f32", 1, 4},          {GgmlType::kF16, "f16", 1, 2},
    {GgmlType::kQ4_0, "q4_0", 32, 18},      {GgmlType::kQ4_1, "q4_1", 32, 20},
    {GgmlType::kQ5_0, "q5_0", 32, 22},      {GgmlType::kQ5_1, "q5_1", 32, 24},
    {GgmlType::kQ8_0, "q8_0", 32, 34},      {GgmlType::kQ8_1, "q8_1", 32, 36},
    {GgmlType::kQ2_K, "q2_K", 256, 84},     {GgmlType::kQ3_K, "q3_K", 256, 110},
    {GgmlType::kQ4_K, "q4_K", 256, 144},    {GgmlType::kQ5_K, "q5_K", 256, 176},
    {GgmlType::kQ6_K, "q6_K", 256, 210},    {GgmlType::kQ8_K, "q8_K", 256, 292},
    {GgmlType::kIQ2_XXS, "iq2_xxs", 256, 66}, {GgmlType::kIQ2_XS, "iq2_xs", 256, 74},
    {GgmlType::kIQ3_XXS, "iq3_xxs", 256, 98}, {GgmlType::kIQ1_S, "iq1_s", 256, 50},
    {GgmlType::kIQ4_NL, "iq4_nl", 32, 18},  {GgmlType::kIQ3_S, "iq3_s", 256, 110},
    {GgmlType::kIQ2_S, "iq2_s", 256, 82},   {GgmlType::kIQ4_XS, "iq4_xs", 256, 136},
    {GgmlType::kI8, "i8", 1, 1},            {GgmlType::kI16, "i16", 1, 2},
    {GgmlType::kI32, "i32", 1, 4},          {GgmlType::kI64, "i64", 1, 8},
    {GgmlType::kF64, "f64", 1, 8},          {GgmlType::kIQ1_M, "iq1_m", 256, 56},
    {GgmlType::kBF16, "bf16", 1, 2},        {GgmlType::kTQ1_0, "tq1_0", 256, 54},
    {GgmlType::kTQ2_0, "tq2_0", 256, 66},   {GgmlType::kMXFP4, "mxfp4", 32, 17},
};

// No real dimension comes near this; it keeps every product below overflow with room to spare.
constexpr uint64_t kMaxDim = uint64_t(1) << 40;

// The fewest bytes one value of a type takes in the file (so a count can be checked before anything is
// allocated for it).
uint64_t MinValueBytes(GgufValueType t) {
  switch (t) {
    case GgufValueType::kU8: case GgufValueType::kI8: case GgufValueType::kBool: return 1;
    case GgufValueType::kU16: case GgufValueType::kI16: return 2;
    case GgufValueType::kU32: case GgufValueType::kI32: case GgufValueType::kF32: return 4;
    case GgufValueType::kU64: case GgufValueType::kI64: case GgufValueType::kF64: return 8;
    case GgufValueType::kString: return 8;
    case GgufValueType::kArray: return 12;
  }
  return 1;
}

bool KnownValueType(uint32_t t) { return t <= uint32_t(GgufValueType::kF64); }

// Bounds-checked little-endian reads over the map; every failure names the byte offset and what was read.
class Cursor {
 public:
  Cursor(const uint8_t* data, uint64_t size, const std::string& path)
      : d_(data), size_(size), path_(path), memory_limit_(MemoryLimitBytes()) {}
  uint64_t pos() const { return pos_; }
  uint64_t left() const { return size_ - pos_; }

  Status Need(uint64_t n, const std::string& what) const {
    if (n > left())
      return Status::ErrorAt(path_, MsgId::kGgufTruncated,
                             {std::to_string(pos_), what, std::to_string(n), std::to_string(left())});
    return Status::Ok();
  }
  template <typename T>
  Status Read(T* out, const std::string& what) {
    if (Status s = Need(sizeof(T), what); !s) return s;
    std::memcpy(out, d_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return Status::Ok();
  }
  // A string of at most `most` bytes (a bound checked before anything is allocated for it).
  Status String(std::string* out, const std::string& what, uint64_t most) {
    uint64_t n = 0;
    const uint64_t at = pos_;
    if (Status s = Read(&n, what + " (length)"); !s) return s;
    if (Status s = Need(n, what); !s) return s;
    if (n > most)
      return Status::ErrorAt(path_, MsgId::kGgufCountLimit,
                             {"the length of " + what, std::to_string(n), std::to_string(at), std::to_string(most)});
    if (Status s = Hold(n, "the length of " + what, n, at); !s) return s;
    out->assign(reinterpret_cast<const char*>(d_ + pos_), n);
    pos_ += n;
    return Status::Ok();
  }
  // A count of items that take at least `min_bytes` each must fit in what is left.
  Status Count(uint64_t n, uint64_t min_bytes, const std::string& what, uint64_t at) const {
    const uint64_t most = left() / min_bytes;
    if (n > most)
      return Status::ErrorAt(path_, MsgId::kGgufCountTooLarge,
                             {what, std::to_string(n), std::to_string(at), std::to_string(most)});
    return Status::Ok();
  }
  // A count of at most `most` (what a real file needs), whatever the file's size allows.
  Status Bounded(uint64_t n, uint64_t most, const std::string& what, uint64_t at) const {
    if (n > most)
      return Status::ErrorAt(path_, MsgId::kGgufCountLimit,
                             {what, std::to_string(n), std::to_string(at), std::to_string(most)});
    return Status::Ok();
  }
  // What the parse is about to hold in memory, checked against the memory limit before it is allocated: a file of
  // one-byte array items costs about a hundred times its size.
  Status Hold(uint64_t bytes, const std::string& what, uint64_t value, uint64_t at) {
    if (bytes > memory_limit_ || held_ > memory_limit_ - bytes)
      return Status::ErrorAt(path_, MsgId::kGgufMemory,
                             {what, std::to_string(value), std::to_string(at), MemoryText((double)held_ + (double)bytes),
                              MemoryText((double)memory_limit_)});
    held_ += bytes;
    return Status::Ok();
  }
  const std::string& path() const { return path_; }

 private:
  const uint8_t* d_;
  uint64_t size_;
  uint64_t pos_ = 0;
  const std::string& path_;
  uint64_t memory_limit_;
  uint64_t held_ = 0;  // bytes the parse holds so far (as estimated by Hold's callers)
};

// Held per key besides its value's own strings and items: the value, the key and a map node.
constexpr uint64_t kKeyBytes = sizeof(GgufValue) + sizeof(std::string) + 64;
// Held per tensor besides its name: the info, its ne and the index's node.
constexpr uint64_t kTensorBytes = sizeof(GgufTensor) + 4 * sizeof(int64_t) + sizeof(std::string) + 64;

// Array items of the whole file held in memory (about 100 bytes each whatever their size in the file): far above
// any real vocabulary (a 256k-token vocabulary with scores, types and merges is ~1M), low enough that a file of
// one-byte items cannot ask for tens of GB.
constexpr uint64_t kMaxArrayItems = uint64_t(1) << 23;

// `key`: the key as messages show it.
Status ReadValue(Cursor& c, GgufValueType type, const std::string& key, int depth, GgufValue* v,
                 uint64_t* items_left) {
  v->type = type;
  v->at = c.pos();
  const std::string what = "the value of '" + key + "'";
  auto scalar = [&](auto sample) -> Status {
    decltype(sample) x;
    if (Status s = c.Read(&x, what); !s) return s;
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      v->f = x;
    } else if constexpr (std::is_signed_v<decltype(x)>) {
      v->i = x;
      v->u = (uint64_t)x;
    } else {
      v->u = x;
      v->i = (int64_t)x;
    }
    return Status::Ok();
  };
  switch (type) {
    case GgufValueType::kU8: return scalar(uint8_t{});
    case GgufValueType::kI8: return scalar(int8_t{});
    case GgufValueType::kU16: return scalar(uint16_t{});
    case GgufValueType::kI16: return scalar(int16_t{});
    case GgufValueType::kU32: return scalar(uint32_t{});
    case GgufValueType::kI32: return scalar(int32_t{});
    case GgufValueType::kU64: return scalar(uint64_t{});
    case GgufValueType::kI64: return scalar(int64_t{});
    case GgufValueType::kF32: return scalar(float{});
    case GgufValueType::kF64: return scalar(double{});
    case GgufValueType::kBool: {
      uint8_t b = 0;
      if (Status s = c.Read(&b, what); !s) return s;
      v->u = v->i = b != 0;
      return Status::Ok();
    }
    case GgufValueType::kString: return c.String(&v->s, what, GgufFile::kMaxStringBytes);
    case GgufValueType::kArray: {
      if (depth >= GgufFile::kMaxArrayDepth)
        return Status::ErrorAt(c.path(), MsgId::kGgufArrayDepth,
                               {key, std::to_string(v->at), std::to_string(GgufFile::kMaxArrayDepth)});
      uint32_t item = 0;
      if (Status s = c.Read(&item, what + " (array item type)"); !s) return s;
      if (!KnownValueType(item))
        return Status::ErrorAt(c.path(), MsgId::kGgufValueType, {key, std::to_string(v->at), std::to_string(item)});
      v->item_type = GgufValueType(item);
      uint64_t n = 0;
      const uint64_t count_at = c.pos();
      if (Status s = c.Read(&n, what + " (array count)"); !s) return s;
      if (Status s = c.Count(n, MinValueBytes(v->item_type), "array count of '" + key + "'", count_at); !s) return s;
      if (n > *items_left)
        return Status::ErrorAt(c.path(), MsgId::kGgufCountTooLarge,
                               {"array count of '" + key + "'", std::to_string(n), std::to_string(count_at),
                                std::to_string(*items_left) + " more array items in all"});
      *items_left -= n;
      if (Status s = c.Hold(n * sizeof(GgufValue), "array count of '" + key + "'", n, count_at); !s) return s;
      v->items.resize(n);
      for (uint64_t k = 0; k < n; ++k)
        if (Status s = ReadValue(c, v->item_type, key, depth + 1, &v->items[k], items_left); !s) return s;
      return Status::Ok();
    }
  }
  return Status::ErrorAt(c.path(), MsgId::kGgufValueType, {key, std::to_string(v->at), std::to_string((uint32_t)type)});
}

bool MulOverflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

const char* GgufValueTypeName(GgufValueType t) {
  static const char* const kNames[] = {"uint8", "int8",  "uint16", "int16",  "uint32", "int32", "float32",
                                       "bool",  "string", "array", "uint64", "int64",  "float64"};
  const uint32_t i = (uint32_t)t;
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "?";
}

bool GgufValue::is_integer() const {
  switch (type) {
    case GgufValueType::kU8: case GgufValueType::kI8: case GgufValueType::kU16: case GgufValueType::kI16:
    case GgufValueType::kU32: case GgufValueType::kI32: case GgufValueType::kU64: case GgufValueType::kI64:
      return true;
    default:
      return false;
  }
}

double GgufValue::number() const {
  switch (type) {
    case GgufValueType::kF32: case GgufValueType::kF64: return f;
    case GgufValueType::kI8: case GgufValueType::kI16: case GgufValueType::kI32: case GgufValueType::kI64:
      return (double)i;
    default:
      return (double)u;
  }
}

const GgmlTypeInfo* FindGgmlType(uint32_t id) {
  for (const auto& t : kGgmlTypes)
    if ((uint32_t)t.type == id) return &t;
  return nullptr;
}
const char* GgmlTypeName(GgmlType t) {
  const GgmlTypeInfo* i = FindGgmlType((uint32_t)t);
  return i ? i->name : "?";
}

int64_t GgufTensor::rows() const {
  int64_t r = 1;
  for (size_t k = 1; k < ne.size(); ++k) r *= ne[k];
  return r;
}
std::vector<int64_t> GgufTensor::torch_shape() const { return std::vector<int64_t>(ne.rbegin(), ne.rend()); }

std::string NeString(const std::vector<int64_t>& ne) {
  std::string s = "{";
  for (size_t i = 0; i < ne.size(); ++i) s += (i ? ", " : "") + std::to_string(ne[i]);
  return s + "}";
}

Result<std::shared_ptr<const GgufFile>> GgufFile::Open(const std::string& path) {
  auto map = MappedFile::Open(path);
  if (!map) return map.status();
  // An allocation that fails despite the bounds names the file.
  try {
    return Parse(*map);
  } catch (const std::bad_alloc&) {
    return Status::ErrorAt(path, MsgId::kOutOfMemory, {"reading the GGUF header"});
  }
}

Result<std::shared_ptr<const GgufFile>> GgufFile::Parse(std::shared_ptr<const MappedFile> map) {
  const std::string& path = map->path();
  std::shared_ptr<GgufFile> f(new GgufFile());
  f->map_ = map;
  Cursor c(map->data(), map->size(), path);

  // 1. Header: magic, version, the two counts.
  if (map->size() < 4 || std::memcmp(map->data(), "GGUF", 4) != 0) {
    std::string start;
    for (size_t i = 0; i < 4 && i < map->size(); ++i) {
      char b[8];
      std::snprintf(b, sizeof b, "%s%02x", i ? " " : "", map->data()[i]);
      start += b;
    }
    return Status::ErrorAt(path, MsgId::kGgufNotGguf, {start.empty() ? "nothing (empty file)" : "bytes " + start});
  }
  uint32_t magic = 0;
  (void)c.Read(&magic, "the magic");
  if (Status s = c.Read(&f->version_, "the version"); !s) return s;
  if (f->version_ == 0x02000000u || f->version_ == 0x03000000u)  // v3 allows big-endian files
    return Status::ErrorAt(path, MsgId::kGgufBigEndian, {std::to_string(__builtin_bswap32(f->version_))});
  if (f->version_ != 2 && f->version_ != 3)
    return Status::ErrorAt(path, MsgId::kGgufVersion, {std::to_string(f->version_)});
  uint64_t n_tensors = 0, n_kv = 0;
  const uint64_t n_tensors_at = c.pos();
  if (Status s = c.Read(&n_tensors, "tensor_count"); !s) return s;
  const uint64_t n_kv_at = c.pos();
  if (Status s = c.Read(&n_kv, "kv_count"); !s) return s;
  // A key-value pair takes at least 13 bytes (empty key, type, one byte); a tensor info at least 32.
  if (Status s = c.Count(n_kv, 13, "kv_count", n_kv_at); !s) return s;
  if (Status s = c.Count(n_tensors, 32, "tensor_count", n_tensors_at); !s) return s;
  if (Status s = c.Bounded(n_kv, kMaxKeys, "kv_count", n_kv_at); !s) return s;
  if (Status s = c.Bounded(n_tensors, kMaxTensors, "tensor_count", n_tensors_at); !s) return s;
  if (Status s = c.Hold(n_kv * kKeyBytes, "kv_count", n_kv, n_kv_at); !s) return s;
  if (Status s = c.Hold(n_tensors * kTensorBytes, "tensor_count", n_tensors, n_tensors_at); !s) return s;

  // 2. Metadata.
  uint64_t items_left = kMaxArrayItems;
  for (uint64_t k = 0; k < n_kv; ++k) {
    const uint64_t at = c.pos();
    std::string key;
    if (Status s = c.String(&key, "key " + std::to_string(k), kMaxKeyBytes); !s) return s;
    const std::string shown = CappedValue(key);  // a key is the file's text: quoted short, control bytes escaped
    uint32_t type = 0;
    if (Status s = c.Read(&type, "the value type of '" + shown + "'"); !s) return s;
    if (!KnownValueType(type))
      return Status::ErrorAt(path, MsgId::kGgufValueType, {shown, std::to_string(at), std::to_string(type)});
    GgufValue v;
    if (Status s = ReadValue(c, GgufValueType(type), shown, 0, &v, &items_left); !s) return s;
    if (!f->kv_.emplace(key, std::move(v)).second)
      return Status::ErrorAt(path, MsgId::kGgufKeyTwice, {shown, std::to_string(at)});
  }
  if (const GgufValue* a = f->Find("general.alignment")) {
    if (a->type != GgufValueType::kU32)
      return Status::ErrorAt(path, MsgId::kGgufKeyType, {"general.alignment", GgufValueTypeName(a->type), "uint32"});
    if (a->u == 0 || a->u > 65536 || (a->u & (a->u - 1)) != 0)
      return Status::ErrorAt(path, MsgId::kGgufAlignment, {std::to_string(a->u)});
    f->alignment_ = (uint32_t)a->u;
  }

  // 3. Tensor infos (sizes checked here; the data section's place is known only after the last one).
  f->tensors_.resize(n_tensors);
  for (uint64_t k = 0; k < n_tensors; ++k) {
    GgufTensor& t = f->tensors_[k];
    t.info_at = c.pos();
    const std::string at = std::to_string(t.info_at);
    if (Status s = c.String(&t.name, "the name of tensor " + std::to_string(k), kMaxKeyBytes); !s) return s;
    if (t.name.size() > kMaxNameBytes)
      return Status::ErrorAt(path, MsgId::kGgufNameLength,
                             {at, std::to_string(t.name.size()), std::to_string(kMaxNameBytes)});
    const std::string name = CappedValue(t.name);
    const std::string what = "tensor '" + name + "'";
    uint32_t n_dims = 0;
    if (Status s = c.Read(&n_dims, what + " (n_dims)"); !s) return s;
    if (n_dims < 1 || n_dims > 4)
      return Status::ErrorAt(path, MsgId::kGgufTensorDims, {name, at, std::to_string(n_dims)});
    t.elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t v = 0;
      if (Status s = c.Read(&v, what + " (ne[" + std::to_string(d) + "])"); !s) return s;
      if (v < 1 || v > kMaxDim)
        return Status::ErrorAt(path, MsgId::kGgufTensorDim,
                               {name, at, std::to_string(d), std::to_string(v), std::to_string(kMaxDim)});
      t.ne.push_back((int64_t)v);
      if (MulOverflows(t.elements, v, &t.elements) || t.elements > kMaxDim) {
        for (uint32_t rest = d + 1; rest < n_dims; ++rest) t.ne.push_back(0);  // shown as read so far
        return Status::ErrorAt(path, MsgId::kGgufTensorElements, {name, at, NeString(t.ne)});
      }
    }
    uint32_t type = 0;
    if (Status s = c.Read(&type, what + " (type)"); !s) return s;
    const GgmlTypeInfo* info = FindGgmlType(type);
    if (!info) return Status::ErrorAt(path, MsgId::kGgufTensorType, {name, at, std::to_string(type)});
    t.type = info->type;
    if (t.ne[0] % info->block != 0)
      return Status::ErrorAt(path, MsgId::kGgufTensorRow,
                             {name, at, std::to_string(t.ne[0]), info->name, std::to_string(info->block)});
    if (Status s = c.Read(&t.offset, what + " (offset)"); !s) return s;
    if (t.offset % f->alignment_ != 0)
      return Status::ErrorAt(path, MsgId::kGgufTensorAlign,
                             {name, at, std::to_string(t.offset), std::to_string(f->alignment_)});
    auto [it, fresh] = f->index_.emplace(t.name, k);
    if (!fresh)
      return Status::ErrorAt(path, MsgId::kGgufTensorTwice,
                             {name, at, std::to_string(f->tensors_[it->second].info_at)});
  }

  // 4. Data section: aligned after the infos; every tensor inside the file.
  const uint64_t size = map->size();
  f->data_start_ = (c.pos() + f->alignment_ - 1) / f->alignment_ * f->alignment_;
  for (GgufTensor& t : f->tensors_) {
    const GgmlTypeInfo* info = FindGgmlType((uint32_t)t.type);
    // No overflow: elements <= 2^40 and a block of at most 292 bytes holds at least one element.
    const uint64_t nbytes = t.elements / info->block * info->bytes;
    uint64_t begin = 0, end = 0;
    if (__builtin_add_overflow(f->data_start_, t.offset, &begin) || __builtin_add_overflow(begin, nbytes, &end) ||
        end > size)
      return Status::ErrorAt(path, MsgId::kGgufTensorPastEnd,
                             {CappedValue(t.name), std::to_string(begin), std::to_string(end), NeString(t.ne), info->name,
                              std::to_string(size)});
    t.begin = begin;
    t.end = end;
  }
  // No two tensors share bytes (safetensors and llama.cpp refuse it too): sorted by start, each is checked against
  // the furthest end so far, so an overlap behind a tensor that ends earlier is found as well.
  std::vector<size_t> order(f->tensors_.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return f->tensors_[a].begin != f->tensors_[b].begin ? f->tensors_[a].begin < f->tensors_[b].begin : a < b;
  });
  const GgufTensor* furthest = nullptr;
  for (size_t k : order) {
    const GgufTensor& t = f->tensors_[k];
    if (furthest && t.begin < furthest->end)
      return Status::ErrorAt(path, MsgId::kGgufTensorOverlap,
                             {CappedValue(furthest->name), std::to_string(furthest->begin), std::to_string(furthest->end),
                              CappedValue(t.name), std::to_string(t.begin), std::to_string(t.end)});
    if (!furthest || t.end > furthest->end) furthest = &t;
  }
  if (map->changed()) return Status::ErrorAt(path, MsgId::kMappedFileChanged, {std::to_string(map->size())});
  return std::shared_ptr<const GgufFile>(std::move(f));
}

const GgufValue* GgufFile::Find(const std::string& key) const {
  auto it = kv_.find(key);
  return it == kv_.end() ? nullptr : &it->second;
}

const GgufTensor* GgufFile::FindTensor(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace attnviz::model
