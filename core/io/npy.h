// .npy (NumPy format 1.0/2.0) read and write for float tensors.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"

namespace attnviz {

// The largest .npy ReadNpy takes: kMaxProjectionFloats (config.h) float64 values and a header.
constexpr size_t kMaxNpyBytes = (size_t(2) << 30) + (size_t(1) << 20);

// Reads float32 or float64 (little endian, C order) into a float Tensor.
// Errors name the file and what is wrong (magic, header, dtype, fortran order, a shape that is not a
// tuple or whose size overflows, data that does not match the shape, a value that is not a finite float32).
Result<Tensor> ReadNpy(const std::string& path);
Result<Tensor> ParseNpy(const std::string& bytes, const std::string& name);
// The .npy header (magic, version 1.0, dict, padding) for float32 data of `shape`, C order.
std::string NpyHeader(const std::vector<size_t>& shape);
// float32, C order.
std::string EncodeNpy(const float* data, const std::vector<size_t>& shape);
// Atomic (temp file + rename).
Status WriteNpy(const std::string& path, const float* data, const std::vector<size_t>& shape);
inline Status WriteNpy(const std::string& path, const Tensor& t) { return WriteNpy(path, t.data.data(), t.shape); }

// Writes a float32 .npy piece by piece (e.g. one layer's probs at a time), so a tensor larger than
// memory can be written. Close() checks that exactly the shape's count was appended. Not atomic by
// itself: write into a DumpFolder (file_io.h), which renames into place only when all is written.
class NpyStreamWriter {
 public:
  NpyStreamWriter() = default;
  ~NpyStreamWriter();
  NpyStreamWriter(const NpyStreamWriter&) = delete;
  NpyStreamWriter& operator=(const NpyStreamWriter&) = delete;
  Status Open(const std::string& path, const std::vector<size_t>& shape);
  Status Append(const float* data, size_t count);
  Status Close();

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  size_t expected_ = 0, written_ = 0;
};

}  // namespace attnviz
