// core/base/finite.*: the first NaN or Inf is found wherever it is (first, last, either side of a chunk's edge, in a
// chunk of its own among many), the smallest index wins when there are several, and the finite extremes are finite.
#include "base/finite.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

namespace attnviz {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(FirstNotFinite, FiniteExtremesAreFinite) {
  const std::vector<float> v = {0.0f, -0.0f, FLT_MIN, FLT_MIN / 8 /* denormal */, -FLT_MAX, FLT_MAX, 1e-45f};
  EXPECT_EQ(FirstNotFinite(v.data(), v.size()), v.size());
  EXPECT_EQ(FirstNotFinite(v.data(), 0), 0u);
}

TEST(FirstNotFinite, FindsEachOneWhereverItIs) {
  // Long enough for many chunks (run on every core), with odd sizes around each chunk's edge.
  const size_t count = (size_t(1) << 20) + 37, chunk = size_t(1) << 16;
  std::vector<float> v(count, 1.25f);
  const size_t places[] = {0, 1, chunk - 1, chunk, chunk + 1, 5 * chunk + 3, count - 2, count - 1};
  for (size_t at : places) {
    for (float bad : {kNaN, kInf, -kInf, -kNaN}) {
      v[at] = bad;
      EXPECT_EQ(FirstNotFinite(v.data(), count), at) << "value " << bad << " at " << at;
      v[at] = 1.25f;
    }
  }
  EXPECT_EQ(FirstNotFinite(v.data(), count), count);
}

TEST(FirstNotFinite, TheSmallestIndexWins) {
  const size_t count = (size_t(1) << 20) + 5;
  std::vector<float> v(count, -3.0f);
  v[count - 1] = kNaN;  // a later chunk, likely scanned by another thread
  v[700000] = kInf;
  v[70000] = kNaN;
  v[70001] = kInf;
  EXPECT_EQ(FirstNotFinite(v.data(), count), 70000u);
  // Only the part counted is scanned.
  EXPECT_EQ(FirstNotFinite(v.data(), 70000), 70000u);
}

}  // namespace
}  // namespace attnviz
