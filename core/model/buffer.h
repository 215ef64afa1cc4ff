// FloatBuffer: an owning float array with a shape, for the big results of a run (all layers' probs can be
// hundreds of MB). Large buffers are anonymous mmaps (given back to the system when freed), on ordinary pages:
// advised huge pages (MADV_HUGEPAGE) make a first touch compact memory synchronously under Debian's THP default
// (defrag=madvise), a stall several times what faulting in 4 KiB pages costs (docs/speed.md, "Ordinary pages").
// Contents start as zeros. Move-only (results are shared, never deep-copied).
#pragma once
#include <cstddef>
#include <vector>

namespace attnviz::model {

class FloatBuffer {
 public:
  FloatBuffer() = default;
  explicit FloatBuffer(std::vector<size_t> shape);
  ~FloatBuffer();
  FloatBuffer(FloatBuffer&& o) noexcept { *this = std::move(o); }
  FloatBuffer& operator=(FloatBuffer&& o) noexcept;
  FloatBuffer(const FloatBuffer&) = delete;
  FloatBuffer& operator=(const FloatBuffer&) = delete;

  float* data() { return data_; }
  const float* data() const { return data_; }
  size_t size() const { return size_; }
  const std::vector<size_t>& shape() const { return shape_; }
  size_t dim(size_t i) const { return i < shape_.size() ? shape_[i] : 1; }
  float& operator[](size_t i) { return data_[i]; }
  float operator[](size_t i) const { return data_[i]; }

 private:
  void Release();
  float* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_bytes_ = 0;  // > 0: data_ is an mmap of this many bytes; else new[]
  std::vector<size_t> shape_;
};

}  // namespace attnviz::model
