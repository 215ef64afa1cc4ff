// Hand-made GGUF bytes for the parser tests: a builder that writes exactly what it is told (so a test can write
// a wrong count, a misaligned offset, a name twice), and the fixture paths of tests/fixtures/gguf.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace attnviz::model::testing {

inline std::string GgufFixture(const std::string& rel) {
  return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/gguf/" + rel;
}

class GgufBytes {
 public:
  template <typename T>
  GgufBytes& Put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s_.append(b, sizeof(T));
    return *this;
  }
  GgufBytes& Str(const std::string& v) { return Put<uint64_t>(v.size()).Raw(v); }
  GgufBytes& Raw(const std::string& v) {
    s_ += v;
    return *this;
  }
  // magic, version, counts
  GgufBytes& Header(uint32_t version, uint64_t n_tensors, uint64_t n_kv) {
    return Raw("GGUF").Put(version).Put(n_tensors).Put(n_kv);
  }
  GgufBytes& KvU32(const std::string& key, uint32_t v) { return Str(key).Put<uint32_t>(4).Put(v); }
  GgufBytes& KvStr(const std::string& key, const std::string& v) { return Str(key).Put<uint32_t>(8).Str(v); }
  // A tensor info: name, ne, ggml type id, offset.
  GgufBytes& Info(const std::string& name, const std::vector<uint64_t>& ne, uint32_t type, uint64_t offset) {
    Str(name).Put<uint32_t>((uint32_t)ne.size());
    for (uint64_t d : ne) Put(d);
    return Put(type).Put(offset);
  }
  GgufBytes& Align(size_t a = 32) {
    s_.append((a - s_.size() % a) % a, '\0');
    return *this;
  }
  GgufBytes& Floats(const std::vector<float>& v) {
    for (float f : v) Put(f);
    return *this;
  }
  size_t size() const { return s_.size(); }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

}  // namespace attnviz::model::testing
