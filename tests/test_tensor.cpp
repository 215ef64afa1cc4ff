// core/base/tensor.*: small and large tensors (a run's kept maps are hundreds of MB) start zeroed, reach any rank,
// and move without copying (results are shared, never deep-copied).
#include "base/tensor.h"

#include <gtest/gtest.h>

#include <utility>

namespace attnviz {
namespace {

TEST(Tensor, SmallAndLargeStartZeroedAndMove) {
  for (size_t n : {size_t(3), size_t(3) << 20}) {
    Tensor t;
    t.Resize({2, n, 1, 2});  // rank 4, as a run's probs [n_layer, n_head, n, n]
    ASSERT_EQ(t.size(), 4 * n);
    EXPECT_EQ(t.shape, (std::vector<size_t>{2, n, 1, 2}));
    EXPECT_EQ(t.dim(1), n);
    EXPECT_EQ(t.dim(5), 1u);
    for (size_t i = 0; i < t.size(); i += 4099) ASSERT_EQ(t.data[i], 0.0f);
    t.data.back() = 7.0f;
    const float* p = t.data.data();
    Tensor u = std::move(t);
    EXPECT_EQ(u.data.data(), p);
    EXPECT_TRUE(t.empty());
    EXPECT_EQ(u.data.back(), 7.0f);
    Tensor w;
    w = std::move(u);
    EXPECT_EQ(w.data.data(), p);
  }
}

TEST(Tensor, ResizeReusesTheBufferAndKeepsItsCells) {
  Tensor t;
  t.Resize({4, 4});
  t.data[0] = 1.0f;
  const float* p = t.data.data();
  t.Resize({2, 2});  // a smaller run reuses the buffer
  EXPECT_EQ(t.data.data(), p);
  EXPECT_EQ(t.size(), 4u);
  t.Resize({3, 3});
  EXPECT_EQ(t.data.data(), p);
  EXPECT_EQ(t.data[0], 1.0f);
  EXPECT_EQ(t.data[8], 0.0f);
}

}  // namespace
}  // namespace attnviz
