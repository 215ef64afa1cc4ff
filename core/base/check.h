// Shape checks at the core's entry points, as ggml asserts them: a caller that passes tensors of
// the wrong shape is a programming error, stopped at once with both shapes in the message instead of
// reading out of bounds. The checks are O(1) per call, so they stay on in release builds too.
#pragma once
#include <string>

namespace attnviz {

[[noreturn]] void ShapeCheckFailed(const char* file, int line, const char* condition, const std::string& detail);

}  // namespace attnviz

// ATTNVIZ_CHECK_SHAPE(q.dim(2) == k.dim(2), "q " + ShapeString(q.shape) + " vs k " + ShapeString(k.shape))
#define ATTNVIZ_CHECK_SHAPE(condition, detail)                                        \
  do {                                                                                 \
    if (!(condition)) ::attnviz::ShapeCheckFailed(__FILE__, __LINE__, #condition, detail); \
  } while (0)
