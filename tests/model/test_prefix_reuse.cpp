// core/model/prefix_cache.*: a causal run that keeps its prefix (RunOptions::prefix) and a later run over ids sharing
// the first p of them, which computes only the rows after them, give the same bits as a full run over the new ids
// (maps and hidden states, memcmp), on every decoder-only fixture: appending, an edit in the middle, a shorter text,
// sliding windows shorter than the text. Refusals fall back to a full run and say why; a cancelled reused run
// leaves the state usable.
#include <atomic>
#include <cstring>

#include "attention/attention.h"
#include "base/matmul.h"
#include "model/prefix_cache.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::FixtureDir;

const std::vector<std::string>& CausalFixtures() {
  static const std::vector<std::string> k = {"gpt2",  "gpt2_f16", "llama",  "qwen2",  "mistral_sharded",
                                             "gpt_neox", "gpt_neox_seq_bf16", "phi3", "phi3_partial_f16",
                                             "qwen3", "qwen3_sliding", "olmo2", "gemma2", "gemma2_bf16",
                                             "gemma3_text"};
  return k;
}

std::vector<int> Ids(const ModelConfig& c, int n, int seed) {
  std::vector<int> ids((size_t)n);
  for (int i = 0; i < n; ++i) ids[(size_t)i] = (int)(((i + seed) % 37) * 7919 % c.vocab);
  return ids;
}

// Keeps every layer's maps and hidden states; before a reused run its maps get the previous run's kept rows.
struct KeepSink : LayerSink {
  size_t n_head = 0, n = 0, d = 0;
  Tensor probs, hidden;  // [n_layer, n_head, n, n], [n_layer + 1, n, d_model]
  std::atomic<bool>* cancel = nullptr;  // set after layer 0 when not null
  void Start(const ModelConfig& c, size_t tokens, const KeepSink* previous, size_t kept_rows) {
    n_head = (size_t)c.n_head, n = tokens, d = (size_t)c.d_model;
    probs.Resize({(size_t)c.n_layer, n_head, n, n});
    hidden.Resize({(size_t)c.n_layer + 1, n, d});
    if (!previous || kept_rows == 0) return;
    for (int l = 0; l < c.n_layer; ++l)
      MovePrefixRows(previous->probs.data.data() + (size_t)l * n_head * previous->n * previous->n, n_head,
                     previous->n, n, kept_rows, probs.data.data() + (size_t)l * n_head * n * n);
  }
  Status OnEmbeddings(const float* h, int rows, int width) override {
    std::copy(h, h + (size_t)rows * width, hidden.data.begin());
    return Status::Ok();
  }
  float* ProbsBuffer(int layer) override { return probs.data.data() + (size_t)layer * n_head * n * n; }
  Status OnLayer(const LayerOutput& out) override {
    std::copy(out.hidden, out.hidden + n * d, hidden.data.begin() + (ptrdiff_t)((size_t)(out.layer + 1) * n * d));
    if (out.metrics) metrics.push_back(*out.metrics);
    if (cancel) cancel->store(true);
    return Status::Ok();
  }
  std::vector<std::vector<HeadMetrics>> metrics;  // [layers run][n_head] with RunOptions::row_figures
};

// Every head's row figures and means, bit for bit.
void ExpectSameFigures(const std::vector<std::vector<HeadMetrics>>& got,
                       const std::vector<std::vector<HeadMetrics>>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t l = 0; l < want.size(); ++l) {
    ASSERT_EQ(got[l].size(), want[l].size()) << what;
    for (size_t h = 0; h < want[l].size(); ++h) {
      const HeadMetrics &g = got[l][h], &w = want[l][h];
      const std::string at = what + ": layer " + std::to_string(l) + " head " + std::to_string(h);
      ASSERT_EQ(g.rows.size(), w.rows.size()) << at;
      EXPECT_EQ(0, std::memcmp(g.rows.data(), w.rows.data(), w.rows.size() * sizeof(RowMetrics))) << at << " rows";
      const float gm[] = {g.entropy, g.norm_entropy, g.max_weight, g.effective_keys, g.grad_norm, g.logit_mean, g.logit_std};
      const float wm[] = {w.entropy, w.norm_entropy, w.max_weight, w.effective_keys, w.grad_norm, w.logit_mean, w.logit_std};
      EXPECT_EQ(0, std::memcmp(gm, wm, sizeof(gm))) << at << " means (logit mean " << g.logit_mean << " vs "
                                                   << w.logit_mean << ", std " << g.logit_std << " vs " << w.logit_std << ")";
    }
  }
}

void ExpectBitEqual(const KeepSink& got, const ModelRun& want, const std::string& what) {
  ASSERT_EQ(got.probs.size(), want.probs.size()) << what;
  ASSERT_EQ(got.hidden.size(), want.hidden.size()) << what;
  EXPECT_EQ(0, std::memcmp(got.probs.data.data(), want.probs.data.data(), want.probs.size() * sizeof(float)))
      << what << ": maps";
  EXPECT_EQ(0, std::memcmp(got.hidden.data.data(), want.hidden.data.data(), want.hidden.size() * sizeof(float)))
      << what << ": hidden states";
}

// One run through the state after `previous`: returns the rows it kept (and checks them against the plan).
int RunKept(const Model& model, const std::vector<int>& ids, RunOptions options, PrefixState* state,
            const KeepSink* previous, KeepSink* sink) {
  const PrefixPlan plan = PlanPrefixReuse(model.config(), *state, ids, options);
  sink->Start(model.config(), ids.size(), previous, (size_t)plan.rows);
  options.prefix = state;
  const Status s = RunModel(model, ids, options, sink);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(state->reused_rows, plan.rows);
  EXPECT_EQ(state->refused, plan.refused);
  return state->reused_rows;
}

class PrefixReuse : public ::testing::TestWithParam<std::string> {};

// Append, edit in the middle, cut the end: each reused run equals a full run over its ids, bit for bit.
TEST_P(PrefixReuse, ReusedRunsEqualFullRuns) {
  auto model = LoadModel(FixtureDir(GetParam()));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const int max_n = (int)std::min<int64_t>(c.max_positions, 250);
  const int n0 = max_n - 6;
  std::vector<std::vector<int>> texts;
  texts.push_back(Ids(c, n0, 0));                                   // the first text
  texts.push_back(texts[0]), texts[1].insert(texts[1].end(), {3, 5, 7, 11, 13, 17});  // appended (max_n)
  texts.push_back(texts[1]), texts[2][(size_t)n0 / 2] = (texts[2][(size_t)n0 / 2] + 1) % c.vocab;  // edited mid
  texts.push_back(texts[2]), texts[3].resize((size_t)n0 - 9), texts[3].back() = 1;                  // cut shorter
  texts.push_back(texts[3]), texts[4].push_back(2);                 // one more token
  PrefixState state;
  KeepSink sinks[2];
  for (size_t t = 0; t < texts.size(); ++t) {
    SCOPED_TRACE("text " + std::to_string(t) + " (" + std::to_string(texts[t].size()) + " tokens)");
    KeepSink& sink = sinks[t % 2];
    const int kept = RunKept(**model, texts[t], {}, &state, t ? &sinks[(t + 1) % 2] : nullptr, &sink);
    const int shared = t ? (int)CommonPrefix(texts[t - 1], texts[t]) : 0;
    if (t > 0) {
      EXPECT_GT(kept, 0) << state.refused;
      EXPECT_LE(kept, shared);
      EXPECT_GE(kept, shared - 2 * (int)kMatMulRowGroup);
    }
    auto full = RunModel(**model, texts[t]);
    ASSERT_TRUE(full.ok()) << full.message();
    ExpectBitEqual(sink, *full, "reusing " + std::to_string(kept) + " rows");
    EXPECT_EQ(state.ids, texts[t]);
  }
}

// With row figures (the app's runs): each reused run's head figures, rows and means, are a full run's bit for bit
// (the kept rows' figures and logit sums come from the state), through appends, an edit and a shorter text.
TEST_P(PrefixReuse, RowFiguresOfReusedRunsEqualFullRuns) {
  auto model = LoadModel(FixtureDir(GetParam()));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const int n0 = (int)std::min<int64_t>(c.max_positions, 200) - 6;
  std::vector<std::vector<int>> texts;
  texts.push_back(Ids(c, n0, 1));
  texts.push_back(texts[0]), texts[1].insert(texts[1].end(), {3, 5, 7});
  ASSERT_GE(n0, 20) << "a fixture of at least 26 positions";
  texts.push_back(texts[1]), texts[2][(size_t)n0 - 3] = (texts[2][(size_t)n0 - 3] + 1) % c.vocab;
  texts.push_back(texts[2]), texts[3].resize((size_t)n0 - 2);
  RunOptions figures;
  figures.row_figures = true;
  PrefixState state;
  KeepSink sinks[2];
  for (size_t t = 0; t < texts.size(); ++t) {
    SCOPED_TRACE("text " + std::to_string(t));
    KeepSink& sink = sinks[t % 2];
    sink.metrics.clear();
    const int kept = RunKept(**model, texts[t], figures, &state, t ? &sinks[(t + 1) % 2] : nullptr, &sink);
    if (t > 0) EXPECT_GT(kept, 0) << state.refused;
    KeepSink full;
    full.Start(c, texts[t].size(), nullptr, 0);
    ASSERT_TRUE(RunModel(**model, texts[t], figures, &full).ok());
    ExpectSameFigures(sink.metrics, full.metrics, "reusing " + std::to_string(kept) + " rows");
    EXPECT_EQ(0, std::memcmp(sink.probs.data.data(), full.probs.data.data(), full.probs.size() * sizeof(float)));
  }
}

// Streamed maps (the app's long texts): every block a pass hands over, laid into whole maps, and how often each row
// came (a consumer that pools every row needs each once).
struct BlockSink : LayerSink {
  size_t n_head = 0, n = 0;
  Tensor probs;                    // [n_layer, n_head, n, n]
  std::vector<int> times_handed;   // [n_layer, n_head, n]
  std::vector<std::vector<HeadMetrics>> metrics;
  void Start(const ModelConfig& c, size_t tokens) {
    n_head = (size_t)c.n_head, n = tokens;
    probs.Resize({(size_t)c.n_layer, n_head, n, n});
    times_handed.assign((size_t)c.n_layer * n_head * n, 0);
    metrics.clear();
  }
  void OnBlock(int layer, const RowBlock& b) override {  // each block covers its own rows: no lock needed
    for (int r = 0; r < b.rows; ++r) {
      const size_t row = ((size_t)layer * n_head + (size_t)b.head) * n + (size_t)(b.r0 + r);
      std::copy_n(b.probs + (size_t)r * b.n_k, n, probs.data.begin() + (ptrdiff_t)(row * n));
      ++times_handed[row];
    }
  }
  Status OnLayer(const LayerOutput& out) override {
    if (out.metrics) metrics.push_back(*out.metrics);
    return Status::Ok();
  }
};

// RunOptions::prefix_blocks: a streamed run that keeps a prefix hands over the kept rows' blocks too, made again
// from the kept q and k, so the maps a consumer pools are a full run's bit for bit and every row comes once (the row
// figures still from the state); without it only the rows run come.
TEST_P(PrefixReuse, StreamedReusedRunsHandOverEveryRowWhenAsked) {
  auto model = LoadModel(FixtureDir(GetParam()));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const int n0 = (int)std::min<int64_t>(c.max_positions, 200) - 6;
  std::vector<int> first = Ids(c, n0, 2), typed = first;
  typed.insert(typed.end(), {3, 5, 7});
  for (bool blocks : {true, false}) {
    SCOPED_TRACE(blocks ? "prefix_blocks" : "the rows run only");
    RunOptions o;
    o.stream_maps = true;
    o.row_figures = true;
    o.prefix_blocks = blocks;
    PrefixState state;
    o.prefix = &state;
    BlockSink sink;
    sink.Start(c, first.size());
    ASSERT_TRUE(RunModel(**model, first, o, &sink).ok());
    sink.Start(c, typed.size());
    ASSERT_TRUE(RunModel(**model, typed, o, &sink).ok());
    const int kept = state.reused_rows;
    ASSERT_GT(kept, 0) << state.refused;
    RunOptions whole;
    whole.row_figures = true;
    KeepSink full;
    full.Start(c, typed.size(), nullptr, 0);
    ASSERT_TRUE(RunModel(**model, typed, whole, &full).ok());
    ExpectSameFigures(sink.metrics, full.metrics, "streamed, reusing " + std::to_string(kept) + " rows");
    const size_t n = typed.size();
    int wrong_count = 0, wrong_bits = 0;
    for (size_t row = 0; row < sink.times_handed.size(); ++row) {
      const bool kept_row = (int)(row % n) < kept;
      // (the block holding the first row run runs whole: up to a block's rows before it come without the flag too)
      if (blocks ? sink.times_handed[row] != 1
                 : sink.times_handed[row] > 1 || (!kept_row && sink.times_handed[row] != 1))
        ++wrong_count;
      if (sink.times_handed[row] == 1 &&
          std::memcmp(sink.probs.data.data() + row * n, full.probs.data.data() + row * n, n * sizeof(float)) != 0)
        ++wrong_bits;
    }
    EXPECT_EQ(wrong_count, 0);
    EXPECT_EQ(wrong_bits, 0);
    if (!blocks && kept >= (int)AttendBlockRows(n)) {  // (mistral_sharded: whole blocks kept)
      int missing = 0;
      for (size_t row = 0; row < sink.times_handed.size(); ++row) missing += sink.times_handed[row] == 0;
      EXPECT_GT(missing, 0) << "without the flag the kept rows' blocks are not handed over";
    }
  }
}

// A zero-ablated head and a temperature: the prefix is kept under the same what-ifs.
TEST_P(PrefixReuse, WhatIfsKeepThePrefixTooWhenTheyAgree) {
  auto model = LoadModel(FixtureDir(GetParam()));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  RunOptions options;
  options.temperature.assign((size_t)c.n_layer, 1.0f);
  options.temperature[(size_t)c.n_layer - 1] = 0.5f;
  options.ablate.push_back({0, c.n_head - 1, AblateMode::kZero});
  const int n = (int)std::min<int64_t>(c.max_positions, 120);
  std::vector<int> a = Ids(c, n - 3, 1), b = a;
  b.push_back(9);
  PrefixState state;
  KeepSink first, second;
  RunKept(**model, a, options, &state, nullptr, &first);
  EXPECT_GT(RunKept(**model, b, options, &state, &first, &second), 0) << state.refused;
  auto full = RunModel(**model, b, options);
  ASSERT_TRUE(full.ok()) << full.message();
  ExpectBitEqual(second, *full, "under what-ifs");
  // Other what-ifs: refused, and the full run keeps the new ones.
  RunOptions other = options;
  other.temperature[0] = 2.0f;
  KeepSink third;
  EXPECT_EQ(RunKept(**model, b, other, &state, &second, &third), 0);
  EXPECT_NE(state.refused.find("what-ifs"), std::string::npos) << state.refused;
  EXPECT_EQ(state.ids, b);
}

// Cancelled during a reused run: Cancelled, the state cut to the rows both texts share, and a later run reuses them.
TEST_P(PrefixReuse, CancelLeavesTheStateUsable) {
  auto model = LoadModel(FixtureDir(GetParam()));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const int n = (int)std::min<int64_t>(c.max_positions, 100);
  std::vector<int> a = Ids(c, n - 4, 2), b = a, d = a;
  b.insert(b.end(), {1, 2, 3});
  d[(size_t)n / 2] = (d[(size_t)n / 2] + 3) % c.vocab;
  PrefixState state;
  KeepSink first, cancelled, last;
  RunKept(**model, a, {}, &state, nullptr, &first);
  std::atomic<bool> flag{false};
  RunOptions options;
  options.control.cancel = &flag;
  options.prefix = &state;
  const PrefixPlan plan = PlanPrefixReuse(c, state, b, options);
  ASSERT_GT(plan.rows, 0) << plan.refused;
  cancelled.Start(c, b.size(), &first, (size_t)plan.rows);
  cancelled.cancel = &flag;  // after layer 0
  EXPECT_TRUE(RunModel(**model, b, options, &cancelled).cancelled());
  EXPECT_EQ(state.ids, std::vector<int>(a.begin(), a.begin() + plan.rows));
  // The maps of `first` hold the kept rows of every layer still: the next text reuses them.
  const int kept = RunKept(**model, d, {}, &state, &first, &last);
  EXPECT_GT(kept, 0) << state.refused;
  auto full = RunModel(**model, d);
  ASSERT_TRUE(full.ok()) << full.message();
  ExpectBitEqual(last, *full, "after a cancelled run");
}

INSTANTIATE_TEST_SUITE_P(Families, PrefixReuse, ::testing::ValuesIn(CausalFixtures()));

// Each refusal runs in full (the same bits as without a state) and names its reason.
TEST(PrefixReuseRefusals, FallBackToFullRunsSayingWhy) {
  auto llama = LoadModel(FixtureDir("llama"));
  auto bert = LoadModel(FixtureDir("bert"));
  ASSERT_TRUE(llama.ok() && bert.ok());
  const ModelConfig& c = (*llama)->config();
  std::vector<int> a = Ids(c, 50, 3), b = a;
  b.push_back(4);
  auto refused = [&](const Model& model, const std::vector<int>& first, const std::vector<int>& second,
                     const RunOptions& options, const std::string& reason) {
    SCOPED_TRACE(reason);
    PrefixState state;
    KeepSink s1, s2;
    RunKept(model, first, options, &state, nullptr, &s1);
    EXPECT_EQ(RunKept(model, second, options, &state, &s1, &s2), 0);
    EXPECT_NE(state.refused.find(reason), std::string::npos) << state.refused;
    auto full = RunModel(model, second, options);
    ASSERT_TRUE(full.ok()) << full.message();
    ExpectBitEqual(s2, *full, reason);
  };
  refused(**bert, Ids((*bert)->config(), 30, 0), Ids((*bert)->config(), 31, 0), {}, "bidirectional");
  RunOptions mean;
  mean.ablate.push_back({0, 0, AblateMode::kMean});
  refused(**llama, a, b, mean, "mean ablation");
  std::vector<int> changed_first = b;
  changed_first[0] = (changed_first[0] + 1) % c.vocab;
  refused(**llama, a, changed_first, {}, "first token");
  std::vector<int> early = b;
  early[5] = (early[5] + 1) % c.vocab;
  refused(**llama, a, early, {}, "within the first");
  {  // rows kept without row figures serve no run that makes them
    PrefixState state;
    KeepSink s1, s2;
    RunKept(**llama, a, {}, &state, nullptr, &s1);
    RunOptions figures;
    figures.row_figures = true;
    EXPECT_EQ(RunKept(**llama, b, figures, &state, &s1, &s2), 0);
    EXPECT_NE(state.refused.find("row figures"), std::string::npos) << state.refused;
  }
  auto full_a = RunModel(**llama, b);
  ASSERT_TRUE(full_a.ok());
  RunOptions patch;
  patch.patch.push_back({0, 0, nullptr});
  std::vector<float> z((size_t)b.size() * c.q_dim(), 0.0f);
  patch.patch[0].z = z.data();
  refused(**llama, b, b, patch, "patched");
}

TEST(PrefixReuseHelpers, CommonPrefixAndRowStart) {
  EXPECT_EQ(CommonPrefix({1, 2, 3}, {1, 2, 4, 5}), 2u);
  EXPECT_EQ(CommonPrefix({}, {1}), 0u);
  EXPECT_EQ(CommonPrefix({1, 2}, {1, 2}), 2u);
  EXPECT_EQ(PrefixRowStart(40, 40, 41), 32);
  EXPECT_EQ(PrefixRowStart(15, 40, 41), 0);
  EXPECT_EQ(PrefixRowStart(100, 37, 120), 32) << "rows past the making run's last whole packet are not kept";
  EXPECT_EQ(PrefixRowStart(32, 40, 33), 16) << "a 1-row product the full run does not have";
  EXPECT_EQ(PrefixRowStart(512, 600, 513), 512) << "the full run's own 1-row tile";
}

TEST(PrefixReuseHelpers, MovePrefixRowsInPlaceBothWays) {
  // 2 heads of 3 x 3 -> 2 heads of 4 x 4, kept rows 2, in one buffer; and back.
  std::vector<float> buf(2 * 4 * 4, -1.0f);
  for (size_t h = 0; h < 2; ++h)
    for (size_t i = 0; i < 3; ++i)
      for (size_t j = 0; j < 3; ++j) buf[(h * 3 + i) * 3 + j] = j <= i ? float(100 * h + 10 * i + j) : 0.0f;
  MovePrefixRows(buf.data(), 2, 3, 4, 2, buf.data());
  for (size_t h = 0; h < 2; ++h)
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 4; ++j)
        EXPECT_EQ(buf[(h * 4 + i) * 4 + j], j <= i ? float(100 * h + 10 * i + j) : 0.0f) << h << i << j;
  MovePrefixRows(buf.data(), 2, 4, 3, 2, buf.data());
  for (size_t h = 0; h < 2; ++h)
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 3; ++j)
        EXPECT_EQ(buf[(h * 3 + i) * 3 + j], j <= i ? float(100 * h + 10 * i + j) : 0.0f) << h << i << j;
}

}  // namespace
}  // namespace attnviz::model
