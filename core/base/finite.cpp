#include "base/finite.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace attnviz {
namespace {

inline bool NotFinite(const float* v) {
  uint32_t bits;
  std::memcpy(&bits, v, 4);
  return (bits & 0x7f800000u) == 0x7f800000u;
}

// True when values[begin, end) holds a NaN or an Inf. No early exit, so the loop vectorizes.
bool AnyNotFinite(const float* values, size_t begin, size_t end) {
  uint32_t any = 0;
  for (size_t i = begin; i < end; ++i) any |= (uint32_t)NotFinite(values + i);
  return any != 0;
}

}  // namespace

bool AllFinite(const float* values, size_t count) { return !AnyNotFinite(values, 0, count); }

size_t FirstNotFinite(const float* values, size_t count) {
  constexpr size_t kChunk = size_t(1) << 16;  // 256 KiB of floats: in L2 while a chunk is searched again
  const long long chunks = (long long)((count + kChunk - 1) / kChunk);
  size_t first = count;
#pragma omp parallel for schedule(static) reduction(min : first) if (chunks > 4)
  for (long long c = 0; c < chunks; ++c) {
    const size_t begin = (size_t)c * kChunk, end = std::min(count, begin + kChunk);
    if (!AnyNotFinite(values, begin, end)) continue;
    for (size_t i = begin; i < end; ++i)
      if (NotFinite(values + i)) {
        first = std::min(first, i);
        break;
      }
  }
  return first;
}

}  // namespace attnviz
