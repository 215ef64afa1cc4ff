#include "sandbox/sweep.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "attention/attention.h"

using namespace attnviz;

namespace {
std::vector<Token> Words(const std::string& text) { return *Tokenize(text); }
}  // namespace

TEST(Sweep, HonoursTheScoreAndRawSources) {
  const std::vector<Token> tokens = Words("the cat sat on the extraordinarily warm mat");
  SweepOptions o;
  o.d_ks = {1, 4, 64};
  o.n_seeds = 1;
  AttentionConfig c;
  c.score = ScoreKind::kCosine;  // never divided by sqrt(d_k): the scaled and unscaled points agree
  auto cosine = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(cosine.ok()) << cosine.message();
  for (size_t i = 0; i < cosine->size(); i += 2) EXPECT_EQ((*cosine)[i].max_weight, (*cosine)[i + 1].max_weight);
  // Raw length features keep their width (1) at every d_k: every point is the same.
  c.query_from = c.key_from = FeatureSource::kLength;
  c.score = ScoreKind::kNegDistance;
  auto length = SweepDk({}, tokens, c, o);
  ASSERT_TRUE(length.ok()) << length.message();
  for (const SweepPoint& p : *length) EXPECT_EQ(p.max_weight, (*length)[0].max_weight);
  // The default sweep differs from both (the sources and score are used, not ignored).
  auto plain = SweepDk({}, tokens, AttentionConfig(), o);
  ASSERT_TRUE(plain.ok());
  EXPECT_NE((*plain)[4].max_weight, (*length)[4].max_weight);
  EXPECT_NE((*plain)[4].max_weight, (*cosine)[4].max_weight);
}

TEST(Sweep, RefusesTheDkThatMakesQueryAndKeyWidthsDiffer) {
  AttentionConfig c;
  c.query_from = FeatureSource::kLength;  // width 1 against projected keys of width d_k
  SweepOptions o;
  o.d_ks = {1, 2};
  o.n_seeds = 1;
  auto r = SweepDk({}, Words("a b c"), c, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("d_k=2: a score needs d_q = d_k"), std::string::npos) << r.message();
  o.d_ks = {1};
  EXPECT_TRUE(SweepDk({}, Words("a b c"), c, o).ok());
}

TEST(Sweep, SampledRowsOfARawQueryFeatureKeepTheirPositions) {
  // q = k = position, dot score: row i's logits are i * j, so row 0 is uniform (max weight 1/40) and every other
  // row puts at least 1 - 1/e on the last key. One sampled row: renumbered from 0 it would always be uniform.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "w" + std::to_string(i % 7) + " ";
  AttentionConfig c;
  c.query_from = c.key_from = FeatureSource::kPosition;
  c.score = ScoreKind::kDot;
  SweepOptions o;
  o.d_ks = {8};
  o.n_seeds = 1;
  o.sample_above_rows = 10;
  o.sample_rows = 1;
  auto s = SweepDk({}, Words(text), c, o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ((*s)[0].rows, 1);
  EXPECT_GT((*s)[0].max_weight, 0.6f);
}

// The sweep stops within one block of work once cancelled, even inside one d_k (before, the flag was read only
// between d_ks: at 8192 keys and d_k 4096 one d_k is seconds of work, minutes under a sanitizer, and the app's
// sandbox session waited for it at shutdown).
TEST(SweepCancel, StopsInsideOneDkWithinABlock) {
  // Cross mode, 1024 query rows (every row: no sampling) x 2048 keys, 2 heads: one d_k is many blocks.
  const size_t n_q = 1024, n_k = 2048, n_head = 2;
  std::string q_text, k_text;
  for (size_t i = 0; i < n_k; ++i) (i < n_q ? q_text : k_text) += "w" + std::to_string(i) + " ";
  for (size_t i = 0; i < n_q; ++i) k_text += "v" + std::to_string(i) + " ";
  const std::vector<Token> queries = Words(q_text), keys = Words(k_text);
  ASSERT_EQ(queries.size(), n_q);
  ASSERT_EQ(keys.size(), n_k);
  AttentionConfig base;
  base.mode = AttentionMode::kCross;
  std::atomic<bool> cancel{false};
  std::atomic<size_t> blocks{0};
  SweepOptions o;
  o.d_ks = {1024};
  o.n_seeds = 1;
  o.n_head = (int)n_head;
  o.control.cancel = &cancel;
  o.blocks_done = &blocks;
  size_t blocks_at_cancel = 0;
  // Cancels once the first attention block of the d_k has finished (a hang guard of 120 s otherwise).
  std::thread canceller([&] {
    const auto t0 = std::chrono::steady_clock::now();
    while (blocks.load() == 0 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    blocks_at_cancel = blocks.load();
    cancel = true;
  });
  auto r = SweepDk(queries, keys, base, o);
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().cancelled()) << r.message();
  ASSERT_GE(blocks_at_cancel, 1u) << "the sweep's attention pass reported no block";
  // At most the blocks already running on each thread finish after the flag.
  const size_t total = AttendBlockCount(n_head, n_q, n_k);
  EXPECT_LE(blocks.load(), blocks_at_cancel + 8) << "of " << total << " blocks";
  EXPECT_LT(blocks.load(), total / 2);
}
