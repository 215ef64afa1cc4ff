#include "model/safetensors.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "model/json_limits.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "safetensors data is little endian; this reader maps it as is");

namespace attnviz::model {
namespace {

using json = nlohmann::json;

struct DTypeRow {
  DType type;
  const char* name;
  size_t size;
};
constexpr DTypeRow kDTypes[] = {
    {DType::kF32, "F32", 4},     {DType::kF16, "F16", 2},         {DType::kBF16, "BF16", 2},
    {DType::kF64, "F64", 8},     {DType::kI64, "I64", 8},         {DType::kI32, "I32", 4},
    {DType::kI16, "I16", 2},     {DType::kI8, "I8", 1},           {DType::kU8, "U8", 1},
    {DType::kU16, "U16", 2},     {DType::kU32, "U32", 4},         {DType::kU64, "U64", 8},
    {DType::kBool, "BOOL", 1},   {DType::kF8E4M3, "F8_E4M3", 1},  {DType::kF8E5M2, "F8_E5M2", 1},
};

// The safetensors library's own header limit; a larger one is a corrupt length field, not a real header.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;
// No real dimension comes near this; it keeps every product below overflow with room to spare.
constexpr uint64_t kMaxDim = uint64_t(1) << 40;

bool MulOverflows(uint64_t a, uint64_t b, uint64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

const char* DTypeName(DType t) {
  for (const auto& r : kDTypes)
    if (r.type == t) return r.name;
  return "?";
}
size_t DTypeSize(DType t) {
  for (const auto& r : kDTypes)
    if (r.type == t) return r.size;
  return 0;
}
bool DTypeIsFloatConvertible(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

// ---------------------------------------------------------------------------------------------------------------
// MappedFile

namespace {

// The maps the SIGBUS handler knows: a fixed table, so the handler reads it without locks or allocation.
constexpr int kMaxMaps = 256;
struct MapSlot {
  std::atomic<uintptr_t> begin{0}, end{0};  // 0, 0: free
  std::atomic<bool> changed{false};
  const MappedFile* owner = nullptr;        // read under g_maps_mutex only
};
MapSlot g_maps[kMaxMaps];
std::mutex g_maps_mutex;
struct sigaction g_previous_sigbus;
uintptr_t g_page = 4096;

void OnSigbus(int sig, siginfo_t* info, void* context) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (MapSlot& slot : g_maps) {
    const uintptr_t begin = slot.begin.load(std::memory_order_acquire), end = slot.end.load(std::memory_order_acquire);
    if (begin == 0 || at < begin || at >= end) continue;
    // The file now ends before this page: the rest of the map reads as zeros (one fault, not one per page).
    const uintptr_t page = at & ~(g_page - 1);
    if (::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
        MAP_FAILED) {
      slot.changed.store(true, std::memory_order_release);
      return;  // the read is tried again and finds zeros
    }
    break;
  }
  // Not a map's page: what was there before runs when the read faults again.
  ::sigaction(SIGBUS, &g_previous_sigbus, nullptr);
  (void)sig;
  (void)context;
}

void InstallSigbusHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) g_page = (uintptr_t)page;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, &g_previous_sigbus);
  });
}

int RegisterMap(const MappedFile* owner, const uint8_t* data, size_t size) {
  InstallSigbusHandler();
  std::lock_guard<std::mutex> lock(g_maps_mutex);
  for (int i = 0; i < kMaxMaps; ++i) {
    MapSlot& slot = g_maps[i];
    if (slot.begin.load() != 0) continue;
    slot.owner = owner;
    slot.changed.store(false);
    slot.end.store(reinterpret_cast<uintptr_t>(data) + size, std::memory_order_release);
    slot.begin.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
    return i;
  }
  return -1;  // more maps than slots: this one keeps the default behaviour
}

}  // namespace

Result<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused right after, as not regular).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ELOOP) return Status::Error(MsgId::kStSymlinkLoop, {path});
  if (fd < 0) return Status::Error(MsgId::kCannotOpen, {path, std::strerror(errno)});
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return Status::ErrorAt(path, MsgId::kCannotStat, {std::strerror(e)});
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::ErrorAt(path, MsgId::kNotRegularToMap, {});
  }
  std::shared_ptr<MappedFile> m(new MappedFile());
  m->path_ = path;
  m->size_ = (size_t)st.st_size;
  if (m->size_ > 0) {
    void* p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      return Status::ErrorAt(path, MsgId::kCannotMmap, {std::to_string(m->size_), std::strerror(e)});
    }
    m->data_ = static_cast<const uint8_t*>(p);
    m->slot_ = RegisterMap(m.get(), m->data_, m->size_);
  }
  ::close(fd);  // the map keeps the file
  return std::shared_ptr<const MappedFile>(std::move(m));
}

MappedFile::~MappedFile() {
  if (slot_ >= 0) {
    std::lock_guard<std::mutex> lock(g_maps_mutex);
    g_maps[slot_].begin.store(0, std::memory_order_release);
    g_maps[slot_].end.store(0, std::memory_order_release);
    g_maps[slot_].owner = nullptr;
  }
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

bool MappedFile::changed() const { return slot_ >= 0 && g_maps[slot_].changed.load(std::memory_order_acquire); }

Status MappedFilesUnchanged() {
  std::lock_guard<std::mutex> lock(g_maps_mutex);
  for (const MapSlot& slot : g_maps)
    if (slot.owner && slot.changed.load(std::memory_order_acquire))
      return Status::ErrorAt(slot.owner->path(), MsgId::kMappedFileChanged, {std::to_string(slot.owner->size())});
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------------------------
// SafetensorsFile

Result<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::Open(const std::string& path) {
  auto map = MappedFile::Open(path);
  if (!map) return map.status();
  return Parse(*map);
}

Result<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::Parse(std::shared_ptr<const MappedFile> map) {
  const std::string& path = map->path();
  const uint64_t size = map->size();
  // 1. Header length: 8 bytes, little endian, and the header must fit in the file.
  if (size < 8)
    return Status::ErrorAt(path, MsgId::kStTruncated, {std::to_string(size)});
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | map->data()[i];
  if (n > size - 8)
    return Status::ErrorAt(path, MsgId::kStHeaderPastEnd,
                           {std::to_string(n), std::to_string(size), std::to_string(size - 8)});
  if (n > kMaxHeaderBytes)
    return Status::ErrorAt(path, MsgId::kStHeaderTooLong, {std::to_string(n)});
  if (n < 2) return Status::ErrorAt(path, MsgId::kStHeaderTooShort, {std::to_string(n)});

  // 2. JSON header.
  const char* hb = reinterpret_cast<const char*>(map->data() + 8);
  json header;
  try {
    if (!ParseJsonWithinDepth(hb, hb + n, &header))
      return Status::ErrorAt(path, MsgId::kJsonNestsTooDeep, {std::to_string(kMaxJsonDepth)});
  } catch (const json::parse_error& e) {
    return Status::ErrorAt(path, MsgId::kStHeaderJsonAt,
                           {std::to_string(e.byte), std::to_string(8 + e.byte), CappedJsonError(e.what())});
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (out_of_range 406)
    return Status::ErrorAt(path, MsgId::kStHeaderJson, {CappedJsonError(e.what())});
  }
  if (!header.is_object()) return Status::ErrorAt(path, MsgId::kStHeaderNotObject, {});

  std::shared_ptr<SafetensorsFile> f(new SafetensorsFile());
  f->map_ = map;
  f->data_start_ = 8 + n;
  const uint64_t data_size = size - f->data_start_;

  // 3. Entries.
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& e = it.value();
    // "PATH: tensor 'NAME': " in front of what is wrong with the entry.
    auto entry_error = [&](MsgId id, std::vector<std::string> args) {
      return Status::Prefixed(MsgId::kPrefixContext, {path},
                              Status::Prefixed(MsgId::kPrefixTensor, {CappedValue(name)}, Status::Error(id, std::move(args))));
    };
    if (name == "__metadata__") {
      if (!e.is_object()) return Status::ErrorAt(path, MsgId::kStMetadataForm, {});
      for (auto m = e.begin(); m != e.end(); ++m) {
        if (!m.value().is_string()) return Status::ErrorAt(path, MsgId::kStMetadataValue, {CappedValue(m.key())});
        f->metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    if (!e.is_object()) return entry_error(MsgId::kStEntryForm, {});
    TensorInfo t;
    t.name = name;
    // dtype
    auto d = e.find("dtype");
    if (d == e.end() || !d->is_string()) return entry_error(MsgId::kStDtypeMissing, {});
    const std::string dname = d->get<std::string>();
    bool known = false;
    for (const auto& r : kDTypes)
      if (dname == r.name) t.dtype = r.type, known = true;
    if (!known) return entry_error(MsgId::kStDtypeUnknown, {CappedValue(dname)});
    // shape, with checked products
    auto s = e.find("shape");
    if (s == e.end() || !s->is_array()) return entry_error(MsgId::kStShapeMissing, {});
    uint64_t elements = 1;
    for (const json& dim : *s) {
      if (!dim.is_number_unsigned()) return entry_error(MsgId::kStShapeNegative, {JsonValueText(*s)});
      const uint64_t v = dim.get<uint64_t>();
      if (v > kMaxDim || MulOverflows(elements, v, &elements) || elements > kMaxDim)
        return entry_error(MsgId::kStShapeElements, {JsonValueText(*s)});
      t.shape.push_back((int64_t)v);
    }
    t.elements = elements;
    uint64_t nbytes = 0;
    if (MulOverflows(elements, DTypeSize(t.dtype), &nbytes))
      return entry_error(MsgId::kStShapeBytes, {JsonValueText(*s)});
    // data_offsets: relative to the data section
    auto o = e.find("data_offsets");
    if (o == e.end() || !o->is_array() || o->size() != 2 || !(*o)[0].is_number_unsigned() ||
        !(*o)[1].is_number_unsigned())
      return entry_error(MsgId::kStOffsetsForm, {});
    const uint64_t b = (*o)[0].get<uint64_t>(), en = (*o)[1].get<uint64_t>();
    if (b > en) return entry_error(MsgId::kStOffsetsReversed, {JsonValueText(*o)});
    if (en > data_size) return entry_error(MsgId::kStOffsetsOutside, {JsonValueText(*o), std::to_string(data_size)});
    if (en - b != nbytes)
      return entry_error(MsgId::kStOffsetsSpan,
                         {JsonValueText(*o), std::to_string(en - b), ShapeString(t.shape), CappedValue(dname), std::to_string(nbytes)});
    t.begin = f->data_start_ + b;
    t.end = f->data_start_ + en;
    f->tensors_.push_back(std::move(t));
  }

  // 4. No two tensors share bytes. Empty tensors hold no bytes and are left out (one between two overlapping
  //    tensors would hide the overlap from a neighbours-only check); sorted by start, each tensor is compared with
  //    the furthest end reached so far, so every overlapping pair is caught, not only neighbours.
  std::vector<const TensorInfo*> by_begin;
  for (const auto& t : f->tensors_)
    if (t.end > t.begin) by_begin.push_back(&t);
  std::sort(by_begin.begin(), by_begin.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  const TensorInfo* furthest = nullptr;  // of the tensors so far, the one reaching furthest
  for (const TensorInfo* b : by_begin) {
    if (furthest && b->begin < furthest->end)
      return Status::ErrorAt(path, MsgId::kStOverlap,
                             {CappedValue(furthest->name), CappedValue(b->name),
                              std::to_string(b->begin - f->data_start_), std::to_string(furthest->end - f->data_start_)});
    if (!furthest || b->end > furthest->end) furthest = b;
  }
  // File order = data order, which is what a reader expects when listing.
  std::sort(f->tensors_.begin(), f->tensors_.end(),
            [](const TensorInfo& a, const TensorInfo& b) { return a.begin < b.begin; });
  for (size_t i = 0; i < f->tensors_.size(); ++i) f->index_[f->tensors_[i].name] = i;
  if (map->changed()) return Status::ErrorAt(path, MsgId::kMappedFileChanged, {std::to_string(map->size())});
  return std::shared_ptr<const SafetensorsFile>(std::move(f));
}

const TensorInfo* SafetensorsFile::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

// ---------------------------------------------------------------------------------------------------------------
// Conversions

float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;  // +-0
    } else {        // subnormal: normalize
      uint32_t m = mant;
      int e = -1;
      do {
        m <<= 1;
        ++e;
      } while (!(m & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (m & 0x3ff) << 13;
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | mant << 13;  // inf / nan
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

Status ConvertToFloat(const SafetensorsFile& file, const TensorInfo& t, float* dst) {
  static_assert(sizeof(float) == 4, "float must be IEEE binary32");
  if (t.elements == 0) return Status::Ok();  // !! an empty tensor's data pointer may be null; memcpy forbids that
  const uint8_t* src = file.Bytes(t);
  switch (t.dtype) {
    case DType::kF32:
      std::memcpy(dst, src, t.elements * 4);  // little-endian host (x86-64, aarch64)
      return Status::Ok();
    case DType::kF16:
      for (uint64_t i = 0; i < t.elements; ++i) dst[i] = HalfToFloat(uint16_t(src[2 * i] | src[2 * i + 1] << 8));
      return Status::Ok();
    case DType::kBF16:
      for (uint64_t i = 0; i < t.elements; ++i) dst[i] = BFloat16ToFloat(uint16_t(src[2 * i] | src[2 * i + 1] << 8));
      return Status::Ok();
    default:
      return Status::ErrorAt(file.path(), MsgId::kTensorDtype, {t.name, DTypeName(t.dtype)});
  }
}

}  // namespace attnviz::model
