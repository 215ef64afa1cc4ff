#include "base/tensor.h"

namespace attnviz {

const SharedTensor& EmptyTensor() {
  static const SharedTensor empty = std::make_shared<const Tensor>();
  return empty;
}

bool IsLowerTriangular(const float* a, int n) {
  for (int i = 0; i + 1 < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (a[(size_t)i * n + j] != 0.0f) return false;
  return true;
}

}  // namespace attnviz
