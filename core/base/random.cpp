#include "base/random.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

namespace attnviz {

uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

uint64_t HashBytes(std::string_view bytes) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

float NormalAt(uint64_t seed, uint64_t stream, uint64_t index) {
  // Box-Muller on two uniforms drawn from the hash of (seed, stream, index).
  uint64_t base = Mix64(Mix64(seed ^ 0x5851F42D4C957F2DULL) ^ Mix64(stream + 0x14057B7EF767814FULL));
  uint64_t a = Mix64(base ^ (2 * index));
  uint64_t b = Mix64(base ^ (2 * index + 1));
  double u1 = ((a >> 11) + 0.5) * (1.0 / 9007199254740992.0);  // (0, 1)
  double u2 = (b >> 11) * (1.0 / 9007199254740992.0);          // [0, 1)
  return (float)(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

void FastNormals(uint64_t seed, uint64_t stream, uint64_t index0, size_t count, float scale, float* out) {
  // Not NormalAt's stream family: a different constant, so the two never coincide by accident.
  const uint64_t base = Mix64(Mix64(seed ^ 0x2545F4914F6CDD1DULL) ^ Mix64(stream + 0x9E3779B97F4A7C15ULL));
  using Lanes = Eigen::Array<float, 16, 1>;
  Lanes u1, u2;
  for (size_t i = 0; i < count; i += 16) {
    for (int l = 0; l < 16; ++l) {
      const uint64_t h = Mix64(base ^ (index0 + i + (uint64_t)l));
      u1[l] = ((float)(uint32_t)(h >> 40) + 0.5f) * (1.0f / 16777216.0f);  // (0, 1)
      u2[l] = (float)(uint32_t)(h & 0xFFFFFFu) * (1.0f / 16777216.0f);    // [0, 1)
    }
    const Lanes z = (-2.0f * u1.log()).sqrt() * (6.2831853f * u2).cos() * scale;
    std::copy(z.data(), z.data() + std::min<size_t>(16, count - i), out + i);
  }
}

}  // namespace attnviz
