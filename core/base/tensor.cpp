#include "base/tensor.h"

namespace attnviz {

const SharedTensor& EmptyTensor() {
  static const SharedTensor empty = std::make_shared<const Tensor>();
  return empty;
}

std::string ShapeString(const std::vector<size_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace attnviz
