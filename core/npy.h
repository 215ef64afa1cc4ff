// .npy (NumPy format 1.0/2.0) read and write for float tensors.
#pragma once
#include <string>
#include <vector>

#include "status.h"
#include "tensor.h"

namespace attnviz {

// Reads float32 or float64 (little endian, C order) into a float Tensor.
// Errors name the file and what is wrong (magic, header, dtype, fortran order, truncated data).
Result<Tensor> ReadNpy(const std::string& path);
Result<Tensor> ParseNpy(const std::string& bytes, const std::string& name);
// float32, C order.
std::string EncodeNpy(const float* data, const std::vector<size_t>& shape);
// Atomic (temp file + rename).
Status WriteNpy(const std::string& path, const float* data, const std::vector<size_t>& shape);
inline Status WriteNpy(const std::string& path, const Tensor& t) { return WriteNpy(path, t.data.data(), t.shape); }

}  // namespace attnviz
