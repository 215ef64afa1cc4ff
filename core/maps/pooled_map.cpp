#include "maps/pooled_map.h"

#include <algorithm>

#include "base/check.h"

namespace attnviz {

int PooledSide(int n, int f) { return (n + f - 1) / f; }

void PoolMapPlane(const float* plane, int n_q, int n_k, int f, PoolKind kind, float* out) {
  ATTNVIZ_CHECK_SHAPE(n_q > 0 && n_k > 0 && f >= 1, "pooling a " + std::to_string(n_q) + " x " + std::to_string(n_k) +
                                                        " map in blocks of " + std::to_string(f));
  const int nb_q = PooledSide(n_q, f), nb_k = PooledSide(n_k, f);
  // 1. Per block row: each block's max or sum over the rows it covers, one pass over the rows in memory order.
  std::vector<double> sum((size_t)nb_k);
  for (int bi = 0; bi < nb_q; ++bi) {
    const int r0 = bi * f, r1 = std::min(n_q, r0 + f);
    float* row_out = out + (size_t)bi * nb_k;
    std::fill(row_out, row_out + nb_k, 0.0f);  // weights are >= 0: 0 is the max of an all-zero block
    std::fill(sum.begin(), sum.end(), 0.0);
    for (int i = r0; i < r1; ++i) {
      const float* row = plane + (size_t)i * n_k;
      for (int bj = 0; bj < nb_k; ++bj) {
        const int c0 = bj * f, c1 = std::min(n_k, c0 + f);
        float m = row_out[bj];
        double s = 0;
        for (int j = c0; j < c1; ++j) m = std::max(m, row[j]), s += row[j];
        row_out[bj] = m;
        sum[(size_t)bj] += s;
      }
    }
    // 2. mean: the sum over the cells the block covers.
    if (kind == PoolKind::kMean)
      for (int bj = 0; bj < nb_k; ++bj) {
        const int cols = std::min(n_k, (bj + 1) * f) - bj * f;
        row_out[bj] = (float)(sum[(size_t)bj] / ((double)(r1 - r0) * cols));
      }
  }
}

Mask PooledMask(const Mask& mask, int f) {
  if (!mask.causal()) return mask;
  // !! Block (R, C) is all masked when its nearest cell is: (R f, C f + f - 1) is i - j >= W when
  // (R - C) f >= W + f - 1.
  return Mask::Causal(mask.windowed() ? (mask.window + f - 1 + f - 1) / f : 0);
}

std::vector<Token> BlockTokens(int n, int f) {
  std::vector<Token> blocks((size_t)PooledSide(n, f));
  for (size_t b = 0; b < blocks.size(); ++b) {
    const int first = (int)b * f, last = std::min(n, first + f) - 1;
    blocks[b].display = first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
    blocks[b].piece = blocks[b].display;
    blocks[b].special = true;  // !! each block its own word: a thinned axis (axis_labels.h) names blocks, not spans
  }
  return blocks;
}

std::string PooledTitle(PoolKind kind, int f) {
  return std::string(ToString(kind)) + "-pooled " + std::to_string(f) + "x" + std::to_string(f);
}

}  // namespace attnviz
