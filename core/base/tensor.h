// Plain tensors in PyTorch order, plus row-major Eigen views for the math.
// One row per query, so a head's map data() uploads straight to a texture.
#pragma once
#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/check.h"  // ShapeString, the one shape formatter

namespace attnviz {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;
using ConstRowMap = Eigen::Map<const RowMatrix>;

// A dense float tensor in C order, of any rank (the views below read rank 2 and 3). shape = {d0, d1, ...} (unused
// trailing dims are absent). New cells start as zeros.
struct Tensor {
  std::vector<size_t> shape;
  std::vector<float> data;

  size_t size() const { return data.size(); }
  bool empty() const { return data.empty(); }
  // Resizes without shrinking capacity, so buffers are reused between runs.
  void Resize(std::vector<size_t> new_shape) {
    size_t n = 1;
    for (size_t d : new_shape) n *= d;
    shape = std::move(new_shape);
    data.resize(n);
  }
  size_t dim(size_t i) const { return i < shape.size() ? shape[i] : 1; }
  // For a rank-3 tensor [a, rows, cols]: the slice a as a row-major matrix.
  RowMap Slice(size_t a) {
    return RowMap(data.data() + a * dim(1) * dim(2), (Eigen::Index)dim(1), (Eigen::Index)dim(2));
  }
  ConstRowMap Slice(size_t a) const {
    return ConstRowMap(data.data() + a * dim(1) * dim(2), (Eigen::Index)dim(1), (Eigen::Index)dim(2));
  }
  // For a rank-2 tensor [rows, cols].
  RowMap Matrix() { return RowMap(data.data(), (Eigen::Index)dim(0), (Eigen::Index)dim(1)); }
  ConstRowMap Matrix() const {
    return ConstRowMap(data.data(), (Eigen::Index)dim(0), (Eigen::Index)dim(1));
  }
};

// A published tensor: immutable and shared, never deep-copied. A result hands these out; a stage
// that reruns writes a new buffer when someone still holds the old one (see Pipeline).
using SharedTensor = std::shared_ptr<const Tensor>;
// The one empty tensor (what a result holds for a tensor it has not computed).
const SharedTensor& EmptyTensor();

// a: [n, n]. Every cell above the diagonal exactly 0 (a causal map, or a causal model's head mean).
bool IsLowerTriangular(const float* a, int n);

}  // namespace attnviz
