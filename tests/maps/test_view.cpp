// Exact rows and zoomed views against the full map: on a mid-size case every recomputed cell (hover,
// zoom down to single cells) equals the full pass bit for bit; pooled views never hide a spike.
#include "maps/view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "attention/attention.h"
#include "sandbox/projection.h"
#include "sandbox/embedding.h"
#include "attention/metrics.h"
#include "sandbox/weights.h"

using namespace attnviz;

namespace {

struct Case {
  Tensor q, k, v, scores, probs;
  float multiplier = 0;
};

// A mid-size layer: n = 700 tokens (not a multiple of the block rows), 4 heads, the real projection.
Case MakeCase(int n, int n_head, int d_k, bool scale, const Mask& mask) {
  AttentionConfig c;
  c.d_model = 64;
  c.n_head = n_head;
  c.d_k = d_k;
  c.scale = scale;
  c.mask = mask.causal() ? MaskKind::kCausal : MaskKind::kNone;  // the knob; the pass takes `mask` itself
  std::vector<Token> tokens;
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? " w" : "w") + std::to_string(i % 97);
  auto t = Tokenize(text);
  EXPECT_TRUE(t.ok());
  Tensor x;
  Embed(*t, c.d_model, c.seed, c.positional, &x);
  ProjectionWeights w;
  InitWeights(c, &w);
  Case cs;
  Project(x, x, w, &cs.q, &cs.k, &cs.v);
  cs.multiplier = c.logit_multiplier();
  Attend(AttendFrom::kQueryKey, cs.q, cs.k, cs.v, cs.multiplier, mask, &cs.scores, nullptr, &cs.probs, nullptr,
         nullptr);
  return cs;
}

bool BitEqual(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST(ExactRows, EqualTheFullPassBitForBit) {
  for (Mask mask : {Mask::None(), Mask::Causal(), Mask::Causal(50)}) {
    for (int d_k : {16, 512}) {
      Case cs = MakeCase(700, 3, d_k, d_k == 16, mask);
      const int n = 700;
      for (int head : {0, 2}) {
        for (auto [r0, r1] : {std::pair{0, 1}, {5, 77}, {640, 700}, {0, 700}}) {
          Tensor scores, probs;
          AttendRows(cs.q, cs.k, cs.multiplier, mask, head, r0, r1, &scores, &probs);
          ASSERT_EQ(probs.shape, (std::vector<size_t>{(size_t)(r1 - r0), (size_t)n}));
          for (int i = r0; i < r1; ++i)
            for (int j = 0; j < n; ++j) {
              const size_t full = ((size_t)head * n + i) * n + j, row = (size_t)(i - r0) * n + j;
              ASSERT_TRUE(BitEqual(probs.data[row], cs.probs.data[full])) << i << "," << j << " d_k " << d_k;
              ASSERT_TRUE(BitEqual(scores.data[row], cs.scores.data[full])) << i << "," << j;
            }
        }
      }
    }
  }
}

TEST(ExactRows, StreamedPassGivesTheSameProbsAsTheFullPass) {
  Case cs = MakeCase(700, 2, 32, true, MaskKind::kNone);
  const int n = 700;
  std::vector<float> seen(cs.probs.size(), -1.0f);
  AttendSink sink;
  sink.on_block = [&](const RowBlock& b) {
    std::copy(b.probs, b.probs + (size_t)b.rows * n, seen.begin() + ((size_t)b.head * n + b.r0) * n);
  };
  Tensor z;
  std::vector<HeadMetrics> metrics;
  ASSERT_TRUE(AttendStream(cs.q, cs.k, cs.v, cs.multiplier, MaskKind::kNone, sink, &metrics, &z));
  EXPECT_EQ(0, std::memcmp(seen.data(), cs.probs.data.data(), seen.size() * sizeof(float)));
  EXPECT_EQ(z.shape, (std::vector<size_t>{2, 700, 32}));
  // The figures equal the full pass's.
  std::vector<HeadMetrics> full_metrics;
  Tensor scores, probs, z2;
  Attend(AttendFrom::kQueryKey, cs.q, cs.k, cs.v, cs.multiplier, MaskKind::kNone, &scores, nullptr, &probs,
         &full_metrics, &z2);
  EXPECT_EQ(0, std::memcmp(z.data.data(), z2.data.data(), z.size() * sizeof(float)));
  EXPECT_EQ(metrics[1].max_weight, full_metrics[1].max_weight);
  EXPECT_EQ(metrics[1].rows[99].entropy, full_metrics[1].rows[99].entropy);
}

TEST(ExactRows, CancelStopsWithinABlock) {
  Case cs = MakeCase(700, 3, 16, true, MaskKind::kNone);
  std::atomic<bool> cancel{false};
  std::atomic<size_t> done{0};
  AttendSink sink;
  sink.cancel = &cancel;
  sink.blocks_done = &done;
  sink.on_block = [&](const RowBlock&) {
    if (done.load() >= 3) cancel.store(true);
  };
  EXPECT_FALSE(AttendStream(cs.q, cs.k, cs.v, cs.multiplier, MaskKind::kNone, sink, nullptr, nullptr));
  // At most one more block per thread after the flag is set.
  EXPECT_LE(done.load(), 3u + 2u + 2u);
  EXPECT_LT(done.load(), AttendBlockCount(3, 700, 700));
}

TEST(View, ZoomedToCellsEqualsTheFullMapExactly) {
  for (Mask mask : {Mask::None(), Mask::Causal(), Mask::Causal(50)}) {
    Case cs = MakeCase(700, 2, 16, false, mask);
    const int n = 700;
    MapPyramid pyramid;
    pyramid.Reset(2, n, n, 2);
    pyramid.AddMap(cs.probs);
    pyramid.Finish();
    MapSource pooled;  // what the app has in pooled mode: a pyramid and q, k
    pooled.pyramid = &pyramid;
    pooled.q = &cs.q;
    pooled.k = &cs.k;
    pooled.multiplier = cs.multiplier;
    pooled.mask = mask;
    for (MapWindow w : {MapWindow{0, 40, 0, 60}, MapWindow{333, 350, 600, 700}, MapWindow{690, 700, 0, 10}}) {
      // Window no larger than the slot: one texel per cell, every one exact.
      ViewImage v = ComposeView(pooled, 1, w, 400, 400, PoolKind::kMax);
      ASSERT_TRUE(v.exact());
      ASSERT_EQ(v.width, w.cols());
      ASSERT_EQ(v.height, w.rows());
      for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
          const int i = w.r0 + y, j = w.c0 + x;
          const float full = cs.probs.data[((size_t)1 * n + i) * n + j];
          const float got = v.values[(size_t)y * v.width + x];
          if (mask.Masked(i, j, n)) ASSERT_TRUE(std::isnan(got));
          else ASSERT_TRUE(BitEqual(got, full)) << i << "," << j;
        }
      // Hover: exact at any zoom.
      for (auto [i, j] : {std::pair{w.r0, w.c0}, {w.r1 - 1, w.c1 - 1}}) {
        ExactCell cell = ExactAt(pooled, nullptr, 1, i, j);
        ASSERT_TRUE(BitEqual(cell.prob, cs.probs.data[((size_t)n + i) * n + j]));
        ASSERT_TRUE(BitEqual(cell.score, cs.scores.data[((size_t)n + i) * n + j]));
      }
    }
  }
}

TEST(View, PooledViewsKeepASpikeAndReadTheRightLevel) {
  Case cs = MakeCase(700, 1, 8, true, MaskKind::kNone);
  const int n = 700;
  // Make row 401 one-hot on key 523.
  std::fill(cs.probs.data.begin() + 401 * n, cs.probs.data.begin() + 402 * n, 0.0f);
  cs.probs.data[401 * n + 523] = 1.0f;
  MapPyramid pyramid;
  pyramid.Reset(1, n, n, 2);
  pyramid.AddMap(cs.probs);
  pyramid.Finish();
  MapSource full_src;
  full_src.probs = &cs.probs;
  MapSource pooled;
  pooled.pyramid = &pyramid;
  pooled.q = &cs.q;
  pooled.k = &cs.k;
  pooled.multiplier = cs.multiplier;
  for (int px : {700, 350, 200, 64, 20, 7}) {
    for (const MapSource* src : {&full_src, &pooled}) {
      if (src == &pooled && px == 700) continue;  // exact rows from q, k: not the spiked map
      ViewImage v = ComposeView(*src, 0, MapWindow{0, n, 0, n}, px, px, PoolKind::kMax);
      EXPECT_LE(v.width, px);
      float best = 0;
      for (float x : v.values) best = std::max(best, x);
      EXPECT_EQ(best, 1.0f) << px << " px";
      if (src == &pooled && px <= 350) EXPECT_GE(v.level, 0);
      // The mean view averages: the spike is diluted but the view is a mean of probs.
      ViewImage m = ComposeView(*src, 0, MapWindow{0, n, 0, n}, px, px, PoolKind::kMean);
      double s = 0;
      for (float x : m.values) s += x;
      EXPECT_NEAR(s / m.values.size(), 1.0 / n, 0.2 / n);
    }
  }
}

TEST(View, ExactCellsLimitReadsTheFinestLevelInsteadOfWaiting) {
  Case cs = MakeCase(700, 1, 8, true, Mask::Causal());
  const int n = 700;
  MapPyramid full;
  full.Reset(1, n, n, 2);
  full.AddMap(cs.probs);
  full.Finish();
  const MapPyramid coarse = full.Coarsened(16);  // what a model keeps of a layer
  ASSERT_EQ(coarse.levels().front().factor, 16);
  EXPECT_EQ(coarse.levels().back().factor, full.levels().back().factor);
  EXPECT_EQ(coarse.head_max(0), full.head_max(0));
  MapSource src;
  src.pyramid = &coarse;
  src.q = &cs.q;
  src.k = &cs.k;
  src.multiplier = cs.multiplier;
  src.mask = Mask::Causal();
  // 700 cells on 350 px: 2 cells a pixel, finer than the kept levels -> exact rows, unless they cost too much.
  EXPECT_TRUE(ComposeView(src, 0, MapWindow{0, n, 0, n}, 350, 350, PoolKind::kMax).exact());
  src.exact_cells_limit = (size_t)100 * n;
  const ViewImage v = ComposeView(src, 0, MapWindow{0, n, 0, n}, 350, 350, PoolKind::kMax);
  EXPECT_EQ(v.level, 0);
  EXPECT_EQ(v.width, 350);
  // A window of at most 100 rows is still exact.
  EXPECT_TRUE(ComposeView(src, 0, MapWindow{200, 300, 0, n}, 350, 350, PoolKind::kMax).exact());
  // Hover is exact whatever the limit.
  const ExactCell cell = ExactAt(src, nullptr, 0, 650, 3);
  EXPECT_TRUE(BitEqual(cell.prob, cs.probs.data[(size_t)650 * n + 3]));
}

TEST(View, ColumnScaleMultipliesEveryExactCell) {
  // Value-weighted maps: with col_scale, every exact cell (full map or recomputed rows, hover) is prob * scale, and a
  // pooled exact view pools those products as a plain loop over the cells would.
  for (Mask mask : {Mask::None(), Mask::Causal()}) {
    Case cs = MakeCase(300, 2, 16, true, mask);
    const int n = 300;
    Tensor scale;
    scale.Resize({2, (size_t)n});  // [n_head, n_k]
    for (size_t c = 0; c < scale.data.size(); ++c) scale.data[c] = 0.25f + (float)((c * 7919) % 97) / 16.0f;
    MapPyramid pyramid;
    ASSERT_TRUE(ValueWeightedPyramid(cs.q, cs.k, cs.multiplier, mask, scale, 2, &pyramid));
    MapSource pooled;
    pooled.pyramid = &pyramid;
    pooled.q = &cs.q;
    pooled.k = &cs.k;
    pooled.multiplier = cs.multiplier;
    pooled.mask = mask;
    pooled.col_scale = &scale;
    MapSource full;
    full.probs = &cs.probs;
    full.mask = mask;
    full.col_scale = &scale;
    auto weighted = [&](int h, int i, int j) {
      return cs.probs.data[((size_t)h * n + i) * n + j] * scale.data[(size_t)h * n + j];
    };
    for (const MapSource* src : {&pooled, &full}) {
      for (int head : {0, 1}) {
        for (MapWindow w : {MapWindow{0, 40, 0, 60}, MapWindow{250, 300, 200, 300}}) {
          const ViewImage v = ComposeView(*src, head, w, 400, 400, PoolKind::kMax);
          ASSERT_TRUE(v.exact());
          for (int y = 0; y < v.height; ++y)
            for (int x = 0; x < v.width; ++x) {
              const int i = w.r0 + y, j = w.c0 + x;
              const float got = v.values[(size_t)y * v.width + x];
              if (mask.Masked(i, j, n)) ASSERT_TRUE(std::isnan(got));
              else ASSERT_TRUE(BitEqual(got, weighted(head, i, j))) << i << "," << j;
            }
          const ExactCell cell = ExactAt(*src, nullptr, head, w.r1 - 1, w.c0);
          ASSERT_TRUE(BitEqual(cell.prob, weighted(head, w.r1 - 1, w.c0)));
        }
        // 300 cells on 200 px: finer than the base level, so exact rows pooled (1.5 cells a texel); the naive loop.
        for (PoolKind kind : {PoolKind::kMax, PoolKind::kMean}) {
          const ViewImage v = ComposeView(*src, head, MapWindow{0, n, 0, n}, 200, 200, kind);
          ASSERT_TRUE(v.exact());
          for (int y = 0; y < v.height; ++y)
            for (int x = 0; x < v.width; ++x) {
              const int r0 = v.RowStart(y), r1 = v.RowStart(y + 1), c0 = v.ColStart(x), c1 = v.ColStart(x + 1);
              const float got = v.values[(size_t)y * v.width + x];
              if (mask.AllMasked(r0, r1, c0, c1, n)) {
                ASSERT_TRUE(std::isnan(got));
                continue;
              }
              float m = -INFINITY;
              double s = 0;
              for (int i = r0; i < r1; ++i)
                for (int j = c0; j < c1; ++j) m = std::max(m, weighted(head, i, j)), s += weighted(head, i, j);
              if (kind == PoolKind::kMax) ASSERT_EQ(got, m) << y << "," << x;
              else ASSERT_NEAR(got, s / ((r1 - r0) * (c1 - c0)), 1e-6) << y << "," << x;
            }
        }
      }
    }
  }
}

// A pyramid made from pooled cells only (a pooled rollout: MapPyramid::FromPooledMean), no probs, q or k: a window
// finer than its base factor (zoomed in) reads the base level's cells, never out of bounds; hover has nothing exact.
TEST(View, PooledOnlyPyramidZoomedInReadsItsBaseCellsAndHoverIsNotExact) {
  const int n = 37, f = 4, nb = (n + f - 1) / f;  // 10 blocks, the last of 1 token
  // pooled: [1, nb, nb], rows summing to 1 (row mean of column sums, as a pooled rollout keeps).
  std::vector<float> pooled((size_t)nb * nb);
  for (int I = 0; I < nb; ++I) {
    double sum = 0;
    for (int J = 0; J <= I; ++J) sum += pooled[(size_t)I * nb + J] = 1.0f + (float)((I * 7 + J * 3) % 5);
    for (int J = 0; J <= I; ++J) pooled[(size_t)I * nb + J] = (float)(pooled[(size_t)I * nb + J] / sum);
  }
  const MapPyramid p = MapPyramid::FromPooledMean(pooled.data(), 1, n, n, f);
  ASSERT_EQ(p.levels()[0].factor, f);
  ASSERT_EQ(p.levels()[0].rows, nb);
  // The base cells: pooled / columns covered, max = mean; a mean level keeps each row block's sum.
  auto cols_covered = [&](int J) { return std::min(n, (J + 1) * f) - J * f; };
  for (const PyramidLevel& level : p.levels())
    for (int R = 0; R < level.rows; ++R) {
      double sum = 0;
      for (int C = 0; C < level.cols; ++C)
        sum += (double)level.mean[(size_t)R * level.cols + C] * (std::min(n, (C + 1) * level.factor) - C * level.factor);
      EXPECT_NEAR(sum, 1.0, 1e-5) << "factor " << level.factor << " row " << R;
    }
  EXPECT_FLOAT_EQ(p.levels()[0].max[(size_t)9 * nb + 9], pooled[(size_t)9 * nb + 9] / cols_covered(9));
  MapSource src;
  src.pyramid = &p;
  src.mask = Mask::Causal();
  EXPECT_EQ(src.n_q(), n);
  for (PoolKind kind : {PoolKind::kMax, PoolKind::kMean}) {
    // Cell for cell (one texel a token): each texel is its block's base cell; the corner block is partial.
    for (MapWindow w : {MapWindow{0, n, 0, n}, MapWindow{30, 37, 28, 37}, MapWindow{5, 6, 2, 3}}) {
      const ViewImage v = ComposeView(src, 0, w, w.cols(), w.rows(), kind);
      EXPECT_EQ(v.level, 0);
      ASSERT_EQ(v.width, w.cols());
      for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
          const int i = w.r0 + y, j = w.c0 + x;
          const float got = v.values[(size_t)y * v.width + x];
          if (j > i) {
            EXPECT_TRUE(std::isnan(got)) << i << ", " << j;  // masked
            continue;
          }
          EXPECT_FLOAT_EQ(got, pooled[(size_t)(i / f) * nb + j / f] / cols_covered(j / f)) << i << ", " << j;
        }
    }
  }
  const ExactCell cell = ExactAt(src, nullptr, 0, 36, 36);
  EXPECT_TRUE(std::isnan(cell.prob));
  EXPECT_TRUE(std::isnan(cell.score));
}
