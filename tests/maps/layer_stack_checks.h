// The invariants every published LayerStack keeps, as gtest assertions: tests/maps (stacks of the sandbox's
// pipeline) and tests/session (the sessions' published stacks) check the same ones.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "maps/layer_stack.h"

namespace attnviz::testing {

// Every layer made: its maps are n_q x n_k as the stack's tokens say; every row of every head sums to 1 over the
// keys its mask lets it see and is exactly 0 on the others; no NaN or Inf. Returns the layers checked (whole maps).
inline int ExpectStackInvariants(const LayerStack& stack) {
  int checked = 0;
  for (int l = 0; l < stack.n_layer(); ++l) {
    const LayerMaps* maps = stack.layer(l);
    if (!maps) continue;
    SCOPED_TRACE(std::string(StackKindName(stack.kind)) + " layer " + std::to_string(l));
    EXPECT_EQ(maps->n_q(), stack.n_q());
    EXPECT_EQ(maps->n_k(), stack.n_k());
    EXPECT_EQ(maps->query_tokens.size(), stack.row_tokens.size());
    EXPECT_EQ(maps->kv_tokens.size(), stack.column_tokens.size());
    if (maps->probs->empty()) continue;  // pooled: the pyramid's own tests hold its cells
    ++checked;
    const Tensor& p = *maps->probs;  // [n_head, n_q, n_k]
    const int n_head = (int)p.dim(0), n_q = (int)p.dim(1), n_k = (int)p.dim(2);
    int bad = 0;  // at most one failure a layer is reported
    for (int h = 0; h < n_head && !bad; ++h)
      for (int i = 0; i < n_q && !bad; ++i) {
        double sum = 0;
        for (int j = 0; j < n_k; ++j) {
          const float x = p.data[((size_t)h * n_q + i) * n_k + j];
          if (!std::isfinite(x)) {
            ADD_FAILURE() << "not finite: head " << h << " row " << i << " key " << j;
            ++bad;
          }
          if (stack.mask.Masked(i, j, n_k) && x != 0.0f) {
            ADD_FAILURE() << "masked but " << x << ": head " << h << " row " << i << " key " << j;
            ++bad;
          }
          sum += x;
        }
        if (std::abs(sum - 1.0) > 1e-4) {
          ADD_FAILURE() << "row sums to " << sum << ": head " << h << " row " << i;
          ++bad;
        }
      }
  }
  return checked;
}

}  // namespace attnviz::testing
