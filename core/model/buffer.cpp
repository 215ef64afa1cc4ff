#include "model/buffer.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace attnviz::model {
namespace {
constexpr size_t kMapAbove = 4u << 20;  // smaller buffers come from the heap
constexpr size_t kMapUnit = 2u << 20;  // mmapped lengths are whole units
}  // namespace

FloatBuffer::FloatBuffer(std::vector<size_t> shape) : shape_(std::move(shape)) {
  size_ = 1;
  for (size_t d : shape_) size_ *= d;
  const size_t bytes = size_ * sizeof(float);
  if (bytes >= kMapAbove) {
    const size_t len = (bytes + kMapUnit - 1) / kMapUnit * kMapUnit;
    void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<float*>(p);    // anonymous maps are zero-filled
    mapped_bytes_ = len;
  } else {
    data_ = new float[size_ ? size_ : 1]();
  }
}

FloatBuffer::~FloatBuffer() { Release(); }

FloatBuffer& FloatBuffer::operator=(FloatBuffer&& o) noexcept {
  if (this != &o) {
    Release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    mapped_bytes_ = std::exchange(o.mapped_bytes_, 0);
    shape_ = std::move(o.shape_);
  }
  return *this;
}

void FloatBuffer::Release() {
  if (!data_) return;
  if (mapped_bytes_)
    ::munmap(data_, mapped_bytes_);
  else
    delete[] data_;
  data_ = nullptr;
}

}  // namespace attnviz::model
