// Counter-based random numbers: value = f(seed, stream, index). No state, so any element of
// any matrix can be drawn in any order (this is what makes fused == separate exact).
#pragma once
#include <cstdint>
#include <string_view>

namespace attnviz {

uint64_t Mix64(uint64_t x);                    // splitmix64 finalizer
uint64_t HashBytes(std::string_view bytes);    // FNV-1a 64
// A standard normal draw, fixed by (seed, stream, index).
float NormalAt(uint64_t seed, uint64_t stream, uint64_t index);

}  // namespace attnviz
