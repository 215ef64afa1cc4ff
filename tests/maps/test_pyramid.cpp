// Pyramid invariants: a max level is >= every cell it covers, a single spike survives every level,
// mean levels keep row sums; built from streamed blocks it equals the one built from the full map.
#include "maps/pyramid.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>

#include "attention/attention.h"

using namespace attnviz;

namespace {

// Random softmax rows [n_head, n_q, n_k] (each row sums to 1).
Tensor RandomProbs(int n_head, int n_q, int n_k, uint32_t seed) {
  std::mt19937 rng(seed);
  std::exponential_distribution<float> e(1.0f);
  Tensor t;
  t.Resize({(size_t)n_head, (size_t)n_q, (size_t)n_k});
  for (size_t r = 0; r < (size_t)n_head * n_q; ++r) {
    double s = 0;
    for (int j = 0; j < n_k; ++j) s += t.data[r * n_k + j] = e(rng);
    for (int j = 0; j < n_k; ++j) t.data[r * n_k + j] /= (float)s;
  }
  return t;
}

// q, k, v: [H, n, d_k] each, standard normal from `seed`.
void RandomQkv(int H, int n, int d_k, unsigned seed, Tensor* q, Tensor* k, Tensor* v) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  for (Tensor* t : {q, k, v}) {
    t->Resize({(size_t)H, (size_t)n, (size_t)d_k});
    for (float& x : t->data) x = g(rng);
  }
}

MapPyramid Build(const Tensor& probs, int factor) {
  MapPyramid p;
  p.Reset((int)probs.dim(0), (int)probs.dim(1), (int)probs.dim(2), factor);
  p.AddMap(probs);
  p.Finish();
  return p;
}

}  // namespace

TEST(Pyramid, MaxLevelCoversEveryCellAndIsOneOfThem) {
  for (int factor : {2, 4, 8}) {
    const int H = 2, n_q = 203, n_k = 157;  // edges that do not divide
    Tensor probs = RandomProbs(H, n_q, n_k, 7);
    MapPyramid p = Build(probs, factor);
    ASSERT_GE(p.levels().size(), 2u);
    for (const PyramidLevel& l : p.levels()) {
      for (int h = 0; h < H; ++h) {
        const float* mx = l.Plane(PoolKind::kMax, h);
        for (int R = 0; R < l.rows; ++R)
          for (int C = 0; C < l.cols; ++C) {
            float true_max = 0;
            for (int i = R * l.factor; i < std::min(n_q, (R + 1) * l.factor); ++i)
              for (int j = C * l.factor; j < std::min(n_k, (C + 1) * l.factor); ++j)
                true_max = std::max(true_max, probs.data[((size_t)h * n_q + i) * n_k + j]);
            ASSERT_EQ(mx[(size_t)R * l.cols + C], true_max) << "factor " << l.factor << " cell " << R << "," << C;
          }
      }
    }
  }
}

TEST(Pyramid, SingleSpikeSurvivesEveryLevel) {
  const int H = 1, n_q = 300, n_k = 300;
  Tensor probs;
  probs.Resize({(size_t)H, (size_t)n_q, (size_t)n_k});
  // Every row almost uniform (1/n), one one-hot row: query 137 puts everything on key 211.
  for (float& v : probs.data) v = 1.0f / n_k;
  std::fill(probs.data.begin() + 137 * n_k, probs.data.begin() + 138 * n_k, 0.0f);
  probs.data[137 * n_k + 211] = 1.0f;
  MapPyramid p = Build(probs, 2);
  for (const PyramidLevel& l : p.levels()) {
    const float* mx = l.Plane(PoolKind::kMax, 0);
    EXPECT_EQ(mx[(size_t)(137 / l.factor) * l.cols + 211 / l.factor], 1.0f) << "factor " << l.factor;
    // ... and it is the only such cell.
    int ones = 0;
    for (int c = 0; c < l.rows * l.cols; ++c) ones += mx[c] == 1.0f;
    EXPECT_EQ(ones, 1);
  }
  EXPECT_EQ(p.head_max(0), 1.0f);
  EXPECT_LE(p.head_min(0), 1.0f / n_k);
}

TEST(Pyramid, MeanLevelsKeepRowSums) {
  const int H = 3, n_q = 131, n_k = 97;
  Tensor probs = RandomProbs(H, n_q, n_k, 11);
  MapPyramid p = Build(probs, 4);
  for (const PyramidLevel& l : p.levels()) {
    for (int h = 0; h < H; ++h) {
      const float* mean = l.Plane(PoolKind::kMean, h);
      for (int R = 0; R < l.rows; ++R) {
        const int rows_covered = std::min(l.factor, n_q - R * l.factor);
        double sum = 0;
        for (int C = 0; C < l.cols; ++C) sum += (double)mean[(size_t)R * l.cols + C] * std::min(l.factor, n_k - C * l.factor);
        // The mean of a cell times the cells it covers is the sum of those probs; a band of rows_covered
        // rows sums to rows_covered.
        EXPECT_NEAR(sum * rows_covered, rows_covered, 1e-4 * rows_covered) << "factor " << l.factor << " row " << R;
      }
    }
  }
}

TEST(Pyramid, StreamedBlocksEqualTheFullMap) {
  // The pass's sink (blocks from AttendStream, any thread) gives the pyramid of the full map, bit for bit.
  const int H = 4, n = 300, d_k = 16;
  Tensor q, k, v;
  RandomQkv(H, n, d_k, 3, &q, &k, &v);
  for (Mask mask : {Mask::None(), Mask::Causal(), Mask::Causal(37)}) {
    Tensor scores, probs;
    Attend(AttendFrom::kQueryKey, q, k, v, 0.25f, mask, &scores, nullptr, &probs, nullptr, nullptr);
    MapPyramid full = Build(probs, 4);
    MapPyramid streamed;
    streamed.Reset(H, n, n, 4, mask);  // a causal one writes its masked half 0 unread: the same bits
    AttendSink sink;
    std::atomic<size_t> done{0};
    sink.blocks_done = &done;
    sink.on_block = [&](const RowBlock& b) { streamed.AddBlock(b); };
    ASSERT_TRUE(AttendStream(q, k, v, 0.25f, mask, sink, nullptr, nullptr));
    streamed.Finish();
    EXPECT_EQ(done.load(), AttendBlockCount(H, n, n));
    ASSERT_EQ(full.levels().size(), streamed.levels().size());
    for (size_t l = 0; l < full.levels().size(); ++l) {
      EXPECT_EQ(full.levels()[l].max, streamed.levels()[l].max);
      EXPECT_EQ(full.levels()[l].mean, streamed.levels()[l].mean);
    }
  }
}

// Under a causal mask the cells past the diagonal are exactly 0, and a pyramid Reset with that mask reads none past
// the base cell holding the diagonal: with NaN written past the factor-8 diagonal cells, every level equals the full
// map's pyramid built without the mask, bit for bit (factors 2, 4 and 8, a size no factor divides, a window).
TEST(Pyramid, ACausalPyramidWritesTheMaskedHalfWithoutReadingIt) {
  const int H = 3, n = 203, d_k = 8;
  Tensor q, k, v;
  RandomQkv(H, n, d_k, 11, &q, &k, &v);
  for (Mask mask : {Mask::Causal(), Mask::Causal(29)}) {
    Tensor probs;
    Attend(AttendFrom::kQueryKey, q, k, v, 0.5f, mask, nullptr, nullptr, &probs, nullptr, nullptr);
    Tensor poisoned = probs;
    size_t poisoned_cells = 0;
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
          ASSERT_EQ(probs.data[((size_t)h * n + i) * n + j], 0.0f);
          if (j < (i / 8 + 1) * 8) continue;  // the diagonal's base cell: pooled (its masked keys are 0)
          poisoned.data[((size_t)h * n + i) * n + j] = std::numeric_limits<float>::quiet_NaN();
          ++poisoned_cells;
        }
    ASSERT_GT(poisoned_cells, 0u);
    for (int factor : {2, 4, 8}) {
      SCOPED_TRACE("factor " + std::to_string(factor) + (mask.windowed() ? ", windowed" : ""));
      MapPyramid want = Build(probs, factor);
      MapPyramid causal;
      causal.Reset(H, n, n, factor, mask);
      causal.AddMap(poisoned);
      causal.Finish();
      ASSERT_EQ(want.levels().size(), causal.levels().size());
      for (size_t l = 0; l < want.levels().size(); ++l) {
        EXPECT_EQ(want.levels()[l].max, causal.levels()[l].max) << "level " << l;
        EXPECT_EQ(want.levels()[l].mean, causal.levels()[l].mean) << "level " << l;
      }
      for (int h = 0; h < H; ++h) {
        EXPECT_EQ(want.head_max(h), causal.head_max(h));
        EXPECT_EQ(want.head_min(h), causal.head_min(h));
      }
    }
  }
}

// A streamed run keeps the finest levels that fit its budget over all layers and pools straight into the finest kept
// (GPT-2 small at 1024 tokens: from factor 4, not its base 2; the SmolLM2 shape at 8192: kept from 32, pooled at 8).
TEST(Pyramid, AStreamedRunPoolsIntoTheFinestLevelItKeeps) {
  const double budget = 192.0 * 1048576;
  const MapPyramid::StreamedFactors gpt2 = MapPyramid::ForStreamedRun(12, 12, 1024, budget);
  EXPECT_EQ(MapPyramid::BaseFactor(12, 1024, 1024), 2);
  EXPECT_EQ(gpt2.kept, 4);
  EXPECT_EQ(gpt2.pass, 4);
  const MapPyramid::StreamedFactors smol = MapPyramid::ForStreamedRun(30, 9, 8192, budget);
  EXPECT_EQ(smol.kept, 32);
  EXPECT_EQ(smol.pass, 8);
  for (const auto& [layers, heads, n] : {std::tuple{12, 12, 1024}, std::tuple{30, 9, 8192}, std::tuple{4, 2, 300}}) {
    const MapPyramid::StreamedFactors f = MapPyramid::ForStreamedRun(layers, heads, n, budget);
    const double side = std::ceil((double)n / f.kept);
    EXPECT_LE((double)layers * heads * side * side * 2 * sizeof(float) * 4 / 3, budget);
    EXPECT_GE(f.pass, MapPyramid::BaseFactor(heads, n, n));
    EXPECT_LE(f.pass, f.kept);
  }
}

TEST(Pyramid, BaseFactorKeepsTheBudget) {
  EXPECT_EQ(MapPyramid::BaseFactor(16, 1024, 1024), 2);
  EXPECT_EQ(MapPyramid::BaseFactor(16, 2048, 2048), 4);
  EXPECT_EQ(MapPyramid::BaseFactor(16, 4096, 4096), 8);
  EXPECT_EQ(MapPyramid::BaseFactor(64, 8192, 8192), 8);
  MapPyramid p;
  p.Reset(16, 4096, 4096, MapPyramid::BaseFactor(16, 4096, 4096));
  // Both kinds, every level: about 4/3 of the base, a small part of the 1 GiB of one full fp32 map.
  EXPECT_LT(p.bytes(), (size_t)45 << 20);
  EXPECT_EQ(p.LevelFor(1.0), -1);
  EXPECT_EQ(p.LevelFor(8.0), 0);
  EXPECT_EQ(p.LevelFor(17.5), 1);
}

TEST(Pyramid, ValueWeightedPyramidEqualsThePyramidOfTheWholeWeightedMap) {
  // Blocks of the pass scaled by the column scale give the pyramid of probs * scale made whole (AddMap).
  const int H = 4, n = 300, d_k = 16;
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  std::uniform_real_distribution<float> u(0.1f, 3.0f);
  Tensor q, k, v, scale;
  for (Tensor* t : {&q, &k, &v}) {
    t->Resize({(size_t)H, (size_t)n, (size_t)d_k});
    for (float& x : t->data) x = g(rng);
  }
  scale.Resize({(size_t)H, (size_t)n});  // [n_head, n_k]
  for (float& x : scale.data) x = u(rng);
  for (Mask mask : {Mask::None(), Mask::Causal(), Mask::Causal(37)}) {
    for (int factor : {2, 4}) {
      Tensor scores, probs;
      Attend(AttendFrom::kQueryKey, q, k, v, 0.25f, mask, &scores, nullptr, &probs, nullptr, nullptr);
      Tensor weighted = probs;  // [n_head, n, n]
      for (int h = 0; h < H; ++h)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) weighted.data[((size_t)h * n + i) * n + j] *= scale.data[(size_t)h * n + j];
      const MapPyramid whole = Build(weighted, factor);
      MapPyramid made;
      std::atomic<size_t> done{0};
      ASSERT_TRUE(ValueWeightedPyramid(q, k, 0.25f, mask, scale, factor, &made, nullptr, &done));
      EXPECT_EQ(done.load(), AttendBlockCount(H, n, n));
      ASSERT_EQ(whole.levels().size(), made.levels().size());
      for (size_t l = 0; l < whole.levels().size(); ++l) {
        const PyramidLevel &a = whole.levels()[l], &b = made.levels()[l];
        ASSERT_EQ(a.factor, b.factor);
        ASSERT_EQ(a.max.size(), b.max.size());
        for (size_t c = 0; c < a.max.size(); ++c) {
          ASSERT_NEAR(a.max[c], b.max[c], 1e-6f) << "level " << l << " cell " << c;
          ASSERT_NEAR(a.mean[c], b.mean[c], 1e-6f) << "level " << l << " cell " << c;
        }
      }
      for (int h = 0; h < H; ++h) EXPECT_NEAR(whole.head_max(h), made.head_max(h), 1e-6f);
    }
  }
}

TEST(Pyramid, ValueWeightedPyramidStopsWhenCancelled) {
  const int H = 2, n = 300, d_k = 8;
  Tensor q, k, scale;
  for (Tensor* t : {&q, &k}) {
    t->Resize({(size_t)H, (size_t)n, (size_t)d_k});
    for (size_t i = 0; i < t->data.size(); ++i) t->data[i] = (float)((i * 37) % 11) * 0.1f;
  }
  scale.Resize({(size_t)H, (size_t)n});
  std::fill(scale.data.begin(), scale.data.end(), 1.0f);
  std::atomic<bool> cancel{true};
  MapPyramid made;
  EXPECT_FALSE(ValueWeightedPyramid(q, k, 1.0f, Mask::Causal(), scale, 2, &made, &cancel));
}

// Each coarser level from the one below, by the plain rule: max of the (up to) four cells, and the mean of the cells
// they cover (each child's mean times the cells it covers, summed in double, over the cells covered). Finish's fast
// path for whole cells must give the same bits (naive loop = fast path), on edges that divide and edges that do not.
TEST(Pyramid, CoarserLevelsAreThePlainRuleBitForBit) {
  for (auto [n_q, n_k, factor] : {std::tuple{128, 128, 2}, std::tuple{203, 157, 2}, std::tuple{97, 256, 4}}) {
    const int H = 3;
    const MapPyramid p = Build(RandomProbs(H, n_q, n_k, 11), factor);
    auto covered = [](int index, int f, int n) { return (double)std::min(f, n - index * f); };
    ASSERT_GE(p.levels().size(), 3u);
    for (size_t l = 1; l < p.levels().size(); ++l) {
      const PyramidLevel& c = p.levels()[l - 1];
      const PyramidLevel& q = p.levels()[l];
      for (int h = 0; h < H; ++h)
        for (int R = 0; R < q.rows; ++R)
          for (int C = 0; C < q.cols; ++C) {
            float m = -INFINITY;
            double s = 0;
            for (int r = 2 * R; r < std::min(2 * R + 2, c.rows); ++r)
              for (int cc = 2 * C; cc < std::min(2 * C + 2, c.cols); ++cc) {
                m = std::max(m, c.Plane(PoolKind::kMax, h)[(size_t)r * c.cols + cc]);
                s += (double)c.Plane(PoolKind::kMean, h)[(size_t)r * c.cols + cc] * covered(r, c.factor, n_q) *
                     covered(cc, c.factor, n_k);
              }
            const float mean = (float)(s / (covered(R, q.factor, n_q) * covered(C, q.factor, n_k)));
            const size_t at = (size_t)R * q.cols + C;
            ASSERT_EQ(std::memcmp(&q.Plane(PoolKind::kMax, h)[at], &m, 4), 0) << n_q << "x" << n_k << " level " << l;
            ASSERT_EQ(std::memcmp(&q.Plane(PoolKind::kMean, h)[at], &mean, 4), 0)
                << n_q << "x" << n_k << " level " << l << " cell " << R << "," << C;
          }
    }
  }
}

// AddBlock pools the first coarser level's rows a block covers whole; Finish makes the others. Blocks of any rows
// (aligned to that level or not, a mix) give the pyramid of the whole map bit for bit, and a Reset pyramid forgets
// which rows were made.
TEST(Pyramid, BlocksAlignedOrNotGiveTheWholeMapsLevelsBitForBit) {
  for (auto [n_q, n_k, factor] : {std::tuple{203, 157, 2}, std::tuple{128, 96, 8}}) {
    const int H = 2;
    const Tensor probs = RandomProbs(H, n_q, n_k, 13);
    const MapPyramid whole = Build(probs, factor);
    MapPyramid p;
    for (int rows : {factor, 2 * factor, 3 * factor, 64}) {  // factor: never a whole row of the next level
      SCOPED_TRACE(std::to_string(n_q) + "x" + std::to_string(n_k) + " factor " + std::to_string(factor) +
                   ", blocks of " + std::to_string(rows) + " rows");
      p.Reset(H, n_q, n_k, factor);
      for (int h = H - 1; h >= 0; --h)
        for (int r0 = 0; r0 < n_q; r0 += rows) {
          RowBlock b;
          b.head = h, b.r0 = r0, b.rows = std::min(rows, n_q - r0), b.n_k = n_k;
          b.probs = probs.data.data() + ((size_t)h * n_q + r0) * n_k;
          p.AddBlock(b);
        }
      p.Finish();
      ASSERT_EQ(p.levels().size(), whole.levels().size());
      for (size_t l = 0; l < p.levels().size(); ++l) {
        const PyramidLevel &a = p.levels()[l], &w = whole.levels()[l];
        ASSERT_EQ(a.max.size(), w.max.size());
        ASSERT_EQ(std::memcmp(a.max.data(), w.max.data(), a.max.size() * 4), 0) << "level " << l;
        ASSERT_EQ(std::memcmp(a.mean.data(), w.mean.data(), a.mean.size() * 4), 0) << "level " << l;
      }
    }
  }
}

// A streamed run keeps each layer's coarser levels by taking them (std::move(p).Coarsened): the same levels, bits and
// head ranges as the copy, and the pyramid left behind, Reset, builds the next layer as a new one would.
TEST(Pyramid, TakingTheCoarserLevelsEqualsCopyingThemAndTheRestIsReusable) {
  const int H = 2, n = 203;
  for (int min_factor : {2, 8}) {  // every level taken, or the finer ones left
    MapPyramid p = Build(RandomProbs(H, n, n, 5), 2);
    const MapPyramid copied = p.Coarsened(min_factor);
    const MapPyramid taken = std::move(p).Coarsened(min_factor);
    ASSERT_EQ(taken.levels().size(), copied.levels().size());
    for (size_t l = 0; l < taken.levels().size(); ++l) {
      const PyramidLevel &a = taken.levels()[l], &b = copied.levels()[l];
      ASSERT_EQ(a.factor, b.factor);
      ASSERT_EQ(a.max.size(), b.max.size());
      EXPECT_EQ(std::memcmp(a.max.data(), b.max.data(), a.max.size() * 4), 0) << "level " << l;
      EXPECT_EQ(std::memcmp(a.mean.data(), b.mean.data(), a.mean.size() * 4), 0) << "level " << l;
    }
    for (int h = 0; h < H; ++h) EXPECT_EQ(taken.head_max(h), copied.head_max(h));
    const Tensor next = RandomProbs(H, n, n, 6);  // the next layer, in the pyramid left behind
    p.Reset(H, n, n, 2);
    p.AddMap(next);
    p.Finish();
    const MapPyramid fresh = Build(next, 2);
    ASSERT_EQ(p.levels().size(), fresh.levels().size());
    for (size_t l = 0; l < p.levels().size(); ++l)
      EXPECT_EQ(std::memcmp(p.levels()[l].max.data(), fresh.levels()[l].max.data(), p.levels()[l].max.size() * 4), 0);
  }
}

namespace {

// Causal softmax rows [n_head, n, n]: row i over keys 0..i (the rest exactly 0).
Tensor RandomCausalProbs(int n_head, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::exponential_distribution<float> e(1.0f);
  Tensor t;
  t.Resize({(size_t)n_head, (size_t)n, (size_t)n});
  for (size_t h = 0; h < (size_t)n_head; ++h)
    for (size_t i = 0; i < (size_t)n; ++i) {
      float* row = t.data.data() + (h * n + i) * n;
      double s = 0;
      for (size_t j = 0; j <= i; ++j) s += row[j] = e(rng);
      for (size_t j = 0; j <= i; ++j) row[j] /= (float)s;
    }
  return t;
}

// The maps of a text sharing rows [0, shared) with `a` ([n_head, n_a, n_a], causal), n rows: the rest new.
Tensor SharingRows(const Tensor& a, int shared, int n, uint32_t seed) {
  Tensor t = RandomCausalProbs((int)a.dim(0), n, seed);
  const size_t n_a = a.dim(1);
  for (size_t h = 0; h < a.dim(0); ++h)
    for (size_t i = 0; i < (size_t)shared; ++i)
      for (size_t j = 0; j < (size_t)n; ++j)
        t.data[(h * n + i) * n + j] = j < n_a ? a.data[(h * n_a + i) * n_a + j] : 0.0f;
  return t;
}

// A causal pass's pyramid of probs from its blocks of kBlock rows, those ending after from_row only when `kept`.
constexpr int kBlock = 16;
MapPyramid PassPyramid(const Tensor& probs, int factor, const MapPyramid* kept, int from_row) {
  const int H = (int)probs.dim(0), n = (int)probs.dim(1);
  MapPyramid p;
  p.Reset(H, n, n, factor, Mask::Causal());
  if (kept) EXPECT_TRUE(p.KeepRowsOf(*kept, from_row));
  for (int h = 0; h < H; ++h)
    for (int r0 = 0; r0 < n; r0 += kBlock) {
      RowBlock b;
      b.head = h, b.r0 = r0, b.rows = std::min(kBlock, n - r0), b.n_k = n;
      b.probs = probs.data.data() + ((size_t)h * n + r0) * n;
      if (!kept || r0 + b.rows > from_row) p.AddBlock(b);
    }
  p.Finish();
  return p;
}

}  // namespace

// A causal pass continuing from a kept prefix: the pyramid of the new text made from the blocks past from_row and an
// earlier pyramid (coarsened to the levels a streamed run keeps, or whole) is the whole pass's, bit for bit, at every
// kept level and in every head's range; the new text longer or shorter than the old, the pass's base finer than the
// kept levels or not.
TEST(Pyramid, KeptRowsOfAnEarlierPassGiveTheWholePassBitForBit) {
  const int H = 3;
  struct Case {
    int n_old, n_new, shared, pass, kept;
  };
  for (const Case& c : {Case{203, 211, 203, 2, 2}, Case{203, 211, 200, 2, 8}, Case{300, 260, 250, 4, 16},
                        Case{130, 131, 130, 8, 8}}) {
    SCOPED_TRACE("n " + std::to_string(c.n_old) + " -> " + std::to_string(c.n_new) + ", pass " +
                 std::to_string(c.pass) + ", kept " + std::to_string(c.kept));
    const Tensor before = RandomCausalProbs(H, c.n_old, 11);
    const Tensor after = SharingRows(before, c.shared, c.n_new, 12);
    const MapPyramid old_kept = PassPyramid(before, c.pass, nullptr, 0).Coarsened(c.kept);
    const int from = c.shared / c.kept * c.kept;
    const MapPyramid whole = PassPyramid(after, c.pass, nullptr, 0);
    const MapPyramid reused = PassPyramid(after, c.pass, &old_kept, from);
    EXPECT_TRUE(SameBits(reused.Coarsened(c.kept), whole.Coarsened(c.kept)));
    for (int h = 0; h < H; ++h) {
      EXPECT_EQ(reused.head_min(h), whole.head_min(h));
      EXPECT_EQ(reused.head_max(h), whole.head_max(h));
    }
    // Rows kept past the shared ones are told apart (the comparison can fail).
    const int too_far = (c.shared + c.kept) / c.kept * c.kept;
    if (too_far <= std::min(c.n_old, c.n_new)) {
      const MapPyramid wrong = PassPyramid(after, c.pass, &old_kept, too_far);
      EXPECT_FALSE(SameBits(wrong.Coarsened(c.kept), whole.Coarsened(c.kept)));
    }
  }
}

TEST(Pyramid, KeptRowsThatDoNotFitAreRefused) {
  const Tensor probs = RandomCausalProbs(2, 100, 3);
  const MapPyramid kept = PassPyramid(probs, 2, nullptr, 0).Coarsened(4);
  const Mask causal = Mask::Causal();
  MapPyramid p;
  p.Reset(2, 100, 100, 2, causal);
  EXPECT_FALSE(p.KeepRowsOf(kept, 6)) << "not a multiple of the kept factor";
  EXPECT_FALSE(p.KeepRowsOf(kept, 104)) << "past the rows";
  EXPECT_FALSE(p.KeepRowsOf(kept, 0));
  EXPECT_TRUE(p.KeepRowsOf(kept, 96));
  MapPyramid other_heads;
  other_heads.Reset(3, 100, 100, 2, causal);
  EXPECT_FALSE(other_heads.KeepRowsOf(kept, 96));
  MapPyramid other_base;
  other_base.Reset(2, 100, 100, 4, causal);
  EXPECT_FALSE(other_base.KeepRowsOf(kept, 96)) << "the kept row minima are of another base";
  MapPyramid bidirectional;
  bidirectional.Reset(2, 100, 100, 2);
  EXPECT_FALSE(bidirectional.KeepRowsOf(kept, 96));
}
