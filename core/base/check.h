// Shape checks at the core's entry points, as ggml asserts them: a caller that passes tensors of
// the wrong shape is a programming error, stopped at once with the condition and both sides' shapes in the
// message instead of reading out of bounds. The checks are O(1) per call, so they stay on in release builds too.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace attnviz {

// "[2, 3, 4]": the one shape formatter (messages, the Shapes panel, the CLI), for a tensor's size_t dims and a
// file's int64_t ones alike.
template <typename Int>
std::string ShapeString(const Int* dims, size_t rank) {
  static_assert(std::is_integral_v<Int>, "a shape is integers");
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}
template <typename Int>
std::string ShapeString(const std::vector<Int>& shape) {
  return ShapeString(shape.data(), shape.size());
}
template <typename Int>
std::string ShapeString(std::initializer_list<Int> shape) {
  return ShapeString(shape.begin(), shape.size());
}

[[noreturn]] void ShapeCheckFailed(const char* file, int line, const char* condition, const std::string& detail);

namespace check_detail {
inline void Append(std::string& s, const std::string& part) { s += part; }
inline void Append(std::string& s, const char* part) { s += part; }
template <typename Int>
void Append(std::string& s, const std::vector<Int>& shape) {
  s += ShapeString(shape);
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
void Append(std::string& s, T value) {
  s += std::to_string(value);
}
// The message's detail: its parts (text, numbers, shapes as "[2, 3]") one after the other. Made only on failure.
template <typename... Parts>
std::string Join(const Parts&... parts) {
  std::string s;
  (Append(s, parts), ...);
  return s;
}
}  // namespace check_detail

}  // namespace attnviz

// The one check macro of the core. The detail names both sides' shapes; its parts are joined (text, numbers and
// shapes, formatted only when the check fails):
//   ATTNVIZ_CHECK_SHAPE(q.dim(2) == k.dim(2), "q ", q.shape, " vs k ", k.shape)
//   ATTNVIZ_CHECK_SHAPE(id >= 0 && id < vocab, "token id ", id, " of a vocabulary of ", vocab)
// prints "attnviz: shape check failed at FILE:LINE: CONDITION (DETAIL)" and aborts.
#define ATTNVIZ_CHECK_SHAPE(condition, ...)                                                                     \
  do {                                                                                                          \
    if (!(condition))                                                                                           \
      ::attnviz::ShapeCheckFailed(__FILE__, __LINE__, #condition, ::attnviz::check_detail::Join(__VA_ARGS__)); \
  } while (0)
