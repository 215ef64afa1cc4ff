// Counter-based random numbers: value = f(seed, stream, index). No state, so any element of
// any matrix can be drawn in any order (this is what makes fused == separate exact).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace attnviz {

uint64_t Mix64(uint64_t x);                    // splitmix64 finalizer
uint64_t HashBytes(std::string_view bytes);    // FNV-1a 64
// A standard normal draw, fixed by (seed, stream, index).
float NormalAt(uint64_t seed, uint64_t stream, uint64_t index);
// out[i] = scale * a standard normal draw fixed by (seed, stream, index0 + i), for i < count: 16 at a time in
// float vector math (Box-Muller on two 24-bit uniforms from one hash), far faster than NormalAt one at a time, and
// not the same numbers. For draws whose values nobody compares, only their distribution (the d_k sweep's weights).
void FastNormals(uint64_t seed, uint64_t stream, uint64_t index0, size_t count, float scale, float* out);

}  // namespace attnviz
