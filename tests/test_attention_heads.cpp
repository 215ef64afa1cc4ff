// core/attention/attention.*'s view form (AttendHeads), the one kernel every layer goes through: a model's fused
// projection [n, ld] seen as heads against naive loops (grouped-query attention, causal, sliding windows,
// bidirectional); the sandbox's Tensor entry points and a model's views give the same bits; cancellation.
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "attention/attention.h"
#include "attention/metrics.h"
#include <gtest/gtest.h>

namespace attnviz {
namespace {

struct Shape {
  int n, n_head, n_kv, d_head;
  Mask mask;
};

// A model's projection buffer [n, ld]: q | k | v columns, as core/model/run.cpp lays them out.
struct Inputs {
  size_t ld = 0;
  std::vector<float> qkv;
};

Inputs Random(const Shape& s, unsigned seed, float scale = 2.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, scale);
  Inputs in;
  in.ld = (size_t)(s.n_head + 2 * s.n_kv) * s.d_head;
  in.qkv.resize((size_t)s.n * in.ld);
  for (float& x : in.qkv) x = nd(rng);
  return in;
}

HeadsView Q(const Shape& s, const Inputs& in) {
  return HeadsView::Columns(in.qkv.data(), s.n, s.n_head, s.d_head, in.ld);
}
HeadsView K(const Shape& s, const Inputs& in) {
  return HeadsView::Columns(in.qkv.data() + (size_t)s.n_head * s.d_head, s.n, s.n_kv, s.d_head, in.ld);
}
HeadsView V(const Shape& s, const Inputs& in) {
  return HeadsView::Columns(in.qkv.data() + (size_t)(s.n_head + s.n_kv) * s.d_head, s.n, s.n_kv, s.d_head, in.ld);
}

// probs: [n_head, n, n], z: [n, n_head * d_head] through the kernel.
bool RunKernel(const Shape& s, const Inputs& in, float mult, std::vector<float>* probs, std::vector<float>* z,
               std::vector<HeadMetrics>* metrics = nullptr, const AttendSink* sink = nullptr) {
  probs->assign((size_t)s.n_head * s.n * s.n, -1.0f);
  z->assign((size_t)s.n * s.n_head * s.d_head, -1.0f);
  const HeadsOut zv = HeadsOut::Columns(z->data(), s.n, s.n_head, s.d_head, (size_t)s.n_head * s.d_head);
  return AttendHeads(Q(s, in), K(s, in), V(s, in), mult, s.mask, probs->data(), metrics, &zv, sink);
}

// The second opinion: one plain loop per entry, in double, over the keys the mask lets each row see.
void Naive(const Shape& s, const Inputs& in, float mult, std::vector<double>* probs, std::vector<double>* z) {
  const int n = s.n, dh = s.d_head, group = s.n_head / s.n_kv;
  probs->assign((size_t)s.n_head * n * n, 0.0);
  z->assign((size_t)n * s.n_head * dh, 0.0);
  const float* q = in.qkv.data();
  const float* k = q + (size_t)s.n_head * dh;
  const float* v = k + (size_t)s.n_kv * dh;
  std::vector<double> row(n);
  for (int h = 0; h < s.n_head; ++h) {
    const int g = h / group;
    for (int i = 0; i < n; ++i) {
      const int lo = s.mask.Begin(i), hi = s.mask.End(i, n);
      double m = -INFINITY;
      for (int j = lo; j < hi; ++j) {
        double dot = 0;
        for (int c = 0; c < dh; ++c) dot += (double)q[i * in.ld + h * dh + c] * k[j * in.ld + g * dh + c];
        row[j] = dot * mult;
        m = std::max(m, row[j]);
      }
      double sum = 0;
      for (int j = lo; j < hi; ++j) sum += row[j] = std::exp(row[j] - m);
      double* p = probs->data() + ((size_t)h * n + i) * n;
      for (int j = lo; j < hi; ++j) p[j] = row[j] / sum;
      for (int c = 0; c < dh; ++c) {
        double acc = 0;
        for (int j = lo; j < hi; ++j) acc += p[j] * v[j * in.ld + g * dh + c];
        (*z)[(size_t)i * s.n_head * dh + h * dh + c] = acc;
      }
    }
  }
}

void ExpectSameAsNaive(const Shape& s, float mult, unsigned seed) {
  const Inputs in = Random(s, seed);
  std::vector<float> p, z;
  std::vector<HeadMetrics> metrics;
  ASSERT_TRUE(RunKernel(s, in, mult, &p, &z, &metrics));
  std::vector<double> np, nz;
  Naive(s, in, mult, &np, &nz);
  for (size_t i = 0; i < p.size(); ++i) {
    ASSERT_NEAR(p[i], np[i], 2e-6) << "probs " << i;
    if (np[i] == 0.0) ASSERT_EQ(p[i], 0.0f) << "masked entry " << i << " must be exactly 0";
  }
  for (size_t i = 0; i < z.size(); ++i) ASSERT_NEAR(z[i], nz[i], 2e-5) << "z " << i;
  // Rows sum to 1; masked entries exactly 0; the row figures count only the keys a row may see.
  ASSERT_EQ(metrics.size(), (size_t)s.n_head);
  for (int h = 0; h < s.n_head; ++h)
    for (int i = 0; i < s.n; ++i) {
      const float* row = p.data() + ((size_t)h * s.n + i) * s.n;
      double sum = 0, entropy = 0;
      for (int j = 0; j < s.n; ++j) {
        sum += row[j];
        if (s.mask.Masked(i, j, s.n)) ASSERT_EQ(row[j], 0.0f) << "head " << h << " row " << i << " key " << j;
        if (row[j] > 0) entropy -= row[j] * std::log((double)row[j]);
      }
      ASSERT_NEAR(sum, 1.0, 1e-5);
      const int visible = s.mask.Visible(i, s.n);
      const RowMetrics& r = metrics[(size_t)h].rows[(size_t)i];
      ASSERT_NEAR(r.entropy, entropy, 1e-4) << "head " << h << " row " << i;
      ASSERT_NEAR(r.norm_entropy, visible > 1 ? entropy / std::log((double)visible) : 0.0, 1e-4)
          << "normalized over the " << visible << " keys row " << i << " may see";
    }
}

TEST(AttendHeads, MatchesNaiveBidirectional) { ExpectSameAsNaive({37, 3, 3, 8, Mask::Bidirectional()}, 1 / std::sqrt(8.0f), 1); }

TEST(AttendHeads, MatchesNaiveCausalAcrossBlocks) {
  ExpectSameAsNaive({203, 4, 4, 16, Mask::Causal()}, 0.25f, 2);  // several row blocks, a ragged last one
}

TEST(AttendHeads, MatchesNaiveGroupedQueryAndSlidingWindow) {
  ExpectSameAsNaive({150, 6, 2, 8, Mask::Causal(20)}, 0.35f, 3);
  ExpectSameAsNaive({9, 2, 1, 4, Mask::Causal(1)}, 1.0f, 4);  // window 1: each token sees only itself
  ExpectSameAsNaive({300, 2, 1, 8, Mask::Causal(37)}, 0.5f, 5);  // windows that cross row blocks
}

TEST(AttendHeads, HugeMultiplierStaysFinite) {
  const Shape s{70, 2, 2, 8, Mask::Causal()};
  const Inputs in = Random(s, 5);
  std::vector<float> p, z;
  ASSERT_TRUE(RunKernel(s, in, 1e35f, &p, &z));
  for (float x : p) ASSERT_TRUE(std::isfinite(x));
  for (float x : z) ASSERT_TRUE(std::isfinite(x));
}

TEST(AttendHeads, QueryHeadsOfOneGroupSeeTheSameKeys) {
  // 4 query heads on 2 kv heads: heads 0, 1 read kv head 0; heads 2, 3 read kv head 1.
  const Shape s{40, 4, 2, 8, Mask::Causal()};
  Inputs in = Random(s, 6);
  const int dh = s.d_head;
  for (int i = 0; i < s.n; ++i)  // every query head gets head 0's queries
    for (int c = 0; c < dh; ++c)
      for (int h = 1; h < 4; ++h) in.qkv[(size_t)i * in.ld + h * dh + c] = in.qkv[(size_t)i * in.ld + c];
  std::vector<float> p, z;
  ASSERT_TRUE(RunKernel(s, in, 0.3f, &p, &z));
  const size_t nn = (size_t)s.n * s.n;
  for (size_t i = 0; i < nn; ++i) ASSERT_EQ(p[i], p[nn + i]) << "heads 0 and 1 share kv head 0";
  bool differs = false;
  for (size_t i = 0; i < nn; ++i) differs |= p[i] != p[2 * nn + i];
  EXPECT_TRUE(differs) << "head 2 reads kv head 1, not kv head 0";
  for (size_t i = 0; i < nn; ++i) ASSERT_EQ(p[2 * nn + i], p[3 * nn + i]) << "heads 2 and 3 share kv head 1";
  for (int i = 0; i < s.n; ++i) in.qkv[(size_t)i * in.ld + 4 * dh + dh] += 1.0f;  // kv head 1's keys change
  std::vector<float> p2, z2;
  ASSERT_TRUE(RunKernel(s, in, 0.3f, &p2, &z2));
  for (size_t i = 0; i < 2 * nn; ++i) ASSERT_EQ(p[i], p2[i]);
}

// The same q, k, v as a sandbox layer (Tensors [n_head, n, d], Attend) and as a model layer (views into one
// [n, ld] projection, AttendHeads): the same bits, for every mask, in full and in streamed mode and as exact rows.
TEST(AttendHeads, SandboxAndModelLayerGiveTheSameBits) {
  for (const Mask& mask : {Mask::None(), Mask::Causal(), Mask::Causal(23), Mask::Bidirectional()}) {
    const Shape s{131, 3, 3, 16, mask};
    const Inputs in = Random(s, 11);
    Tensor q, k, v;
    for (auto [t, view] : {std::pair{&q, Q(s, in)}, std::pair{&k, K(s, in)}, std::pair{&v, V(s, in)}}) {
      t->Resize({(size_t)s.n_head, (size_t)s.n, (size_t)s.d_head});
      for (int h = 0; h < s.n_head; ++h) t->Slice((size_t)h) = view.Head((size_t)h);
    }
    const float mult = 0.3f;
    Tensor scores, logits, probs, z;
    std::vector<HeadMetrics> sandbox_metrics, model_metrics;
    ASSERT_TRUE(Attend(AttendFrom::kQueryKey, q, k, v, mult, mask, &scores, &logits, &probs, &sandbox_metrics, &z));
    std::vector<float> model_probs, model_z;
    ASSERT_TRUE(RunKernel(s, in, mult, &model_probs, &model_z, &model_metrics));
    ASSERT_EQ(probs.data, model_probs) << Describe(mask);
    for (int i = 0; i < s.n; ++i)
      for (int h = 0; h < s.n_head; ++h)
        for (int c = 0; c < s.d_head; ++c)
          ASSERT_EQ(z.data[((size_t)h * s.n + i) * s.d_head + c],
                    model_z[(size_t)i * s.n_head * s.d_head + h * s.d_head + c]) << Describe(mask);
    for (int h = 0; h < s.n_head; ++h) {
      EXPECT_EQ(sandbox_metrics[(size_t)h].norm_entropy, model_metrics[(size_t)h].norm_entropy);
      EXPECT_EQ(sandbox_metrics[(size_t)h].logit_mean, model_metrics[(size_t)h].logit_mean);
    }
    // Streamed (no map kept): each block's probs as the sink sees them.
    std::vector<float> streamed(probs.data.size(), -1.0f);
    AttendSink sink;
    sink.on_block = [&](const RowBlock& b) {
      std::copy(b.probs, b.probs + (size_t)b.rows * b.n_k,
                streamed.begin() + ((size_t)b.head * s.n + b.r0) * s.n);
    };
    ASSERT_TRUE(AttendStream(q, k, v, mult, mask, sink, nullptr, nullptr));
    ASSERT_EQ(streamed, probs.data) << Describe(mask);
    // Exact rows on demand, with their scores: the visible scores equal the full map's.
    Tensor row_scores, row_probs;
    AttendRows(q, k, mult, mask, 2, 40, 97, &row_scores, &row_probs);
    for (int i = 40; i < 97; ++i)
      for (int j = 0; j < s.n; ++j) {
        ASSERT_EQ(row_probs.data[(size_t)(i - 40) * s.n + j], probs.data[((size_t)2 * s.n + i) * s.n + j]);
        ASSERT_EQ(row_scores.data[(size_t)(i - 40) * s.n + j], scores.data[((size_t)2 * s.n + i) * s.n + j]);
      }
  }
}

// A map buffer reused under the same mask (a model's layers, one after another) keeps its masked zeros: with
// probs_masked_zero the kernel writes only the cells the mask shows. Here the masked cells start as -0.0 (a zero the
// kernel's own +0.0 can be told from) and the shown ones as -1: the masked cells must still be -0.0 (not written),
// and every shown cell, z and the row figures equal the ordinary pass.
TEST(AttendHeads, AMapWhoseMaskedCellsHoldZeroAlreadyIsWrittenOnlyWhereShown) {
  for (const Mask& mask : {Mask::Causal(), Mask::Causal(37)}) {
    const Shape s{300, 2, 1, 8, mask};
    const Inputs in = Random(s, 11);
    std::vector<float> p_all, z_all;
    std::vector<HeadMetrics> m_all, m_shown;
    ASSERT_TRUE(RunKernel(s, in, 0.5f, &p_all, &z_all, &m_all));
    std::vector<float> p_shown((size_t)s.n_head * s.n * s.n), z_shown((size_t)s.n * s.n_head * s.d_head, -1.0f);
    for (int h = 0; h < s.n_head; ++h)
      for (int i = 0; i < s.n; ++i)
        for (int j = 0; j < s.n; ++j) p_shown[((size_t)h * s.n + i) * s.n + j] = mask.Masked(i, j, s.n) ? -0.0f : -1.0f;
    AttendSink sink;
    sink.probs_masked_zero = true;
    const HeadsOut zv = HeadsOut::Columns(z_shown.data(), s.n, s.n_head, s.d_head, (size_t)s.n_head * s.d_head);
    ASSERT_TRUE(AttendHeads(Q(s, in), K(s, in), V(s, in), 0.5f, s.mask, p_shown.data(), &m_shown, &zv, &sink));
    size_t masked = 0;
    for (int h = 0; h < s.n_head; ++h)
      for (int i = 0; i < s.n; ++i)
        for (int j = 0; j < s.n; ++j) {
          const size_t c = ((size_t)h * s.n + i) * s.n + j;
          if (!mask.Masked(i, j, s.n)) {
            ASSERT_EQ(p_shown[c], p_all[c]) << h << "," << i << "," << j;
          } else {
            ASSERT_TRUE(p_all[c] == 0.0f && !std::signbit(p_all[c])) << "the ordinary pass writes +0";
            ASSERT_TRUE(std::signbit(p_shown[c])) << "a masked cell was written: " << h << "," << i << "," << j;
            ++masked;
          }
        }
    EXPECT_GT(masked, 0u);
    EXPECT_EQ(z_shown, z_all);
    for (int h = 0; h < s.n_head; ++h)
      for (int i = 0; i < s.n; ++i) ASSERT_EQ(m_shown[h].rows[i].entropy, m_all[h].rows[i].entropy);
  }
}

// A kept prefix (AttendSink::first_row): the blocks wholly before it are skipped, or with replay_kept_rows made
// again for on_block alone: their probs are a whole pass's bits, while their z and row figures stay as the caller
// left them (a model's kept rows); the block holding first_row and those after it run as ever.
TEST(AttendHeads, KeptRowsBlocksAreSkippedOrMadeAgainForTheSinkOnly) {
  const Shape s{300, 2, 1, 8, Mask::Causal()};  // 128-row blocks: rows [0, 256) are two kept blocks
  const Inputs in = Random(s, 11);
  const float mult = 1 / std::sqrt(8.0f);
  std::vector<float> want_probs, want_z;
  std::vector<HeadMetrics> want_metrics;
  ASSERT_TRUE(RunKernel(s, in, mult, &want_probs, &want_z, &want_metrics));
  ASSERT_EQ(AttendBlockRows((size_t)s.n), 128u);
  const size_t first = 256;
  for (bool replay : {false, true}) {
    SCOPED_TRACE(replay ? "made again" : "skipped");
    std::vector<float> handed((size_t)s.n_head * s.n * s.n, -2.0f);
    std::vector<int> times((size_t)s.n_head * s.n, 0);
    AttendSink sink;
    sink.first_row = first;
    sink.replay_kept_rows = replay;
    sink.on_block = [&](const RowBlock& b) {  // blocks of one head hold their own rows
      for (int r = 0; r < b.rows; ++r) {
        const size_t row = (size_t)b.head * s.n + (size_t)(b.r0 + r);
        std::copy_n(b.probs + (size_t)r * b.n_k, s.n, handed.begin() + (ptrdiff_t)(row * s.n));
        ++times[row];
      }
    };
    std::vector<HeadMetrics> metrics(2);
    for (HeadMetrics& m : metrics) m.rows.assign((size_t)s.n, RowMetrics{});
    for (HeadMetrics& m : metrics) m.rows[5].entropy = 42.0f;  // a kept row's figure, left as it is
    std::vector<float> z((size_t)s.n * s.n_head * s.d_head, 7.0f);
    const HeadsOut zv = HeadsOut::Columns(z.data(), s.n, s.n_head, s.d_head, (size_t)s.n_head * s.d_head);
    ASSERT_TRUE(AttendHeads(Q(s, in), K(s, in), V(s, in), mult, s.mask, nullptr, &metrics, &zv, &sink));
    for (int h = 0; h < s.n_head; ++h)
      for (int i = 0; i < s.n; ++i) {
        const size_t row = (size_t)h * s.n + i;
        const bool kept = (size_t)i < first;
        ASSERT_EQ(times[row], kept && !replay ? 0 : 1) << "head " << h << " row " << i;
        if (times[row])
          ASSERT_EQ(0, std::memcmp(handed.data() + row * s.n, want_probs.data() + row * s.n, s.n * sizeof(float)))
              << "head " << h << " row " << i;
        const float* zr = z.data() + (size_t)i * s.n_head * s.d_head + (size_t)h * s.d_head;
        const float* wz = want_z.data() + (size_t)i * s.n_head * s.d_head + (size_t)h * s.d_head;
        if (kept) ASSERT_EQ(zr[0], 7.0f) << "a kept row's z is the caller's";
        else ASSERT_EQ(0, std::memcmp(zr, wz, s.d_head * sizeof(float))) << "head " << h << " row " << i;
      }
    EXPECT_EQ(metrics[0].rows[5].entropy, 42.0f);
    EXPECT_EQ(metrics[1].rows[5].entropy, 42.0f);
    EXPECT_EQ(0, std::memcmp(&metrics[0].rows[first], &want_metrics[0].rows[first], sizeof(RowMetrics)));
  }
}

// The block holding a kept prefix's first new row runs from the row group (kMatMulRowGroup) holding the first row
// needed (the run's first_row, or the sink's replay_from_row before it), not from the block's start: each row it makes
// has the whole pass's bits (probs, z, row figures), whatever the block's length, the row's place, the mask, the
// head width; the rows before that group are neither made nor handed over.
TEST(AttendHeads, AKeptPrefixsLastBlockRunsFromTheRowGroupNeeded) {
  for (const Shape& s : {Shape{300, 2, 1, 64, Mask::Causal()}, Shape{211, 3, 3, 8, Mask::Causal()},
                         Shape{260, 2, 2, 64, Mask::Causal(40)}, Shape{997, 1, 1, 64, Mask::Causal()}}) {
    const Inputs in = Random(s, 21);
    const float mult = 1 / std::sqrt((float)s.d_head);
    std::vector<float> want_probs, want_z;
    std::vector<HeadMetrics> want_metrics;
    ASSERT_TRUE(RunKernel(s, in, mult, &want_probs, &want_z, &want_metrics));
    const size_t block = AttendBlockRows((size_t)s.n);
    for (size_t first : {(size_t)s.n - 1, (size_t)s.n - 3, (size_t)s.n - 17, (size_t)s.n / 2 + 5, block + 1}) {
      for (size_t replay_from : {first, first - first % 16 - 16}) {
        SCOPED_TRACE("n " + std::to_string(s.n) + ", d_head " + std::to_string(s.d_head) + ", first " +
                     std::to_string(first) + ", blocks handed over from " + std::to_string(replay_from));
        const size_t needed = std::min(first, replay_from);
        const size_t block_r0 = needed / block * block;
        const size_t from = block_r0 + (needed - block_r0) / 16 * 16;  // the row group holding it
        std::vector<float> handed((size_t)s.n_head * s.n * s.n, -2.0f);
        std::vector<int> times((size_t)s.n_head * s.n, 0);
        AttendSink sink;
        sink.first_row = first;
        sink.replay_kept_rows = true;
        sink.replay_from_row = replay_from;
        sink.on_block = [&](const RowBlock& b) {
          for (int r = 0; r < b.rows; ++r) {
            const size_t row = (size_t)b.head * s.n + (size_t)(b.r0 + r);
            std::copy_n(b.probs + (size_t)r * b.n_k, s.n, handed.begin() + (ptrdiff_t)(row * s.n));
            ++times[row];
          }
        };
        std::vector<HeadMetrics> metrics((size_t)s.n_head);
        for (HeadMetrics& m : metrics) m.rows.assign((size_t)s.n, RowMetrics{});
        std::vector<float> z((size_t)s.n * s.n_head * s.d_head, 7.0f);
        const HeadsOut zv = HeadsOut::Columns(z.data(), s.n, s.n_head, s.d_head, (size_t)s.n_head * s.d_head);
        ASSERT_TRUE(AttendHeads(Q(s, in), K(s, in), V(s, in), mult, s.mask, nullptr, &metrics, &zv, &sink));
        for (int h = 0; h < s.n_head; ++h)
          for (size_t i = 0; i < (size_t)s.n; ++i) {
            const size_t row = (size_t)h * s.n + i;
            ASSERT_EQ(times[row], i >= from ? 1 : 0) << "head " << h << " row " << i;
            if (i >= from)
              ASSERT_EQ(0, std::memcmp(handed.data() + row * s.n, want_probs.data() + row * s.n, s.n * sizeof(float)))
                  << "head " << h << " row " << i;
            if (i < first) continue;
            const float* zr = z.data() + i * s.n_head * s.d_head + (size_t)h * s.d_head;
            const float* wz = want_z.data() + i * s.n_head * s.d_head + (size_t)h * s.d_head;
            ASSERT_EQ(0, std::memcmp(zr, wz, s.d_head * sizeof(float))) << "head " << h << " row " << i;
            ASSERT_EQ(0, std::memcmp(&metrics[(size_t)h].rows[i], &want_metrics[(size_t)h].rows[i], sizeof(RowMetrics)))
                << "head " << h << " row " << i;
          }
      }
    }
  }
}

TEST(AttendHeads, CancelledWithinABlock) {
  const Shape s{512, 2, 2, 8, Mask::Causal()};
  const Inputs in = Random(s, 7);
  std::vector<float> p, z;
  std::atomic<bool> cancel{false};
  std::atomic<size_t> done{0};
  AttendSink sink;
  sink.cancel = &cancel;
  sink.blocks_done = &done;
  sink.on_block = [&](const RowBlock&) { cancel = true; };  // the user moves on after the first block
  EXPECT_FALSE(RunKernel(s, in, 1.0f, &p, &z, nullptr, &sink));
  const size_t blocks = AttendBlockCount(2, 512, 512);
  EXPECT_LT(done.load(), blocks) << "a cancelled pass skips the rest";
  EXPECT_LE(done.load(), 2u) << "at most one block per thread after the cancel";
}

TEST(Mask, DescribesAndBoundsEachKind) {
  EXPECT_EQ(Describe(Mask::None()), "none");
  EXPECT_EQ(Describe(Mask::Causal()), "causal");
  EXPECT_EQ(Describe(Mask::Causal(8)), "causal, window 8");
  EXPECT_EQ(Describe(Mask::Bidirectional()), "bidirectional");
  const Mask w = Mask::Causal(8);
  EXPECT_EQ(w.Begin(3), 0);
  EXPECT_EQ(w.Begin(20), 13);
  EXPECT_EQ(w.End(20, 24), 21);
  EXPECT_EQ(w.Visible(20, 24), 8);
  EXPECT_TRUE(w.Masked(20, 12, 24));
  EXPECT_FALSE(w.Masked(20, 13, 24));
  EXPECT_TRUE(w.AllMasked(16, 24, 0, 8, 24));   // every key before every row's window
  EXPECT_FALSE(w.AllMasked(8, 24, 0, 8, 24));   // row 8 still sees key 1
  EXPECT_TRUE(w.HidesAny(24, 24));
  EXPECT_FALSE(Mask::Bidirectional().HidesAny(24, 24));
  EXPECT_EQ(Mask(MaskKind::kCausal), Mask::Causal());
}

}  // namespace
}  // namespace attnviz
