// core/model/run.* with RunOptions::stream_maps (long inputs): no map is kept, each block of rows goes to the
// sink. What a streamed run hands over (blocks pooled into a pyramid, role rows, q and k for exact rows) equals
// what the full run keeps: pyramid invariants, exact rows bit-equal, the same role scores; cancellation stops
// within one block per thread.
#include <atomic>
#include <cmath>
#include <thread>

#include "maps/pyramid.h"
#include "maps/view.h"
#include "gguf_test_util.h"
#include "model/gguf_weights.h"
#include "model/roles.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::FixtureDir;

// Every position the model allows (the mid-size input of each fixture), ids spread over the vocabulary with
// repeats (so the induction rows say something).
std::vector<int> LongIds(const ModelConfig& c) {
  const int n = (int)std::min<int64_t>(c.max_positions, 256);
  std::vector<int> ids((size_t)n);
  for (int i = 0; i < n; ++i) ids[(size_t)i] = (int)((i % 37) * 7919 % c.vocab);
  return ids;
}

Tensor Copy(const HeadsView& v) {
  // v: [n_head, n, d] as strides -> a contiguous tensor
  Tensor t;
  t.Resize({v.n_head, v.n, v.d});
  for (size_t h = 0; h < v.n_head; ++h)
    for (size_t i = 0; i < v.n; ++i)
      for (size_t c = 0; c < v.d; ++c) t.data[(h * v.n + i) * v.d + c] = v.data[h * v.head_stride + i * v.row_stride + c];
  return t;
}

// What the app keeps of a streamed layer.
struct StreamedLayer {
  MapPyramid pyramid;
  Tensor q, k;
  float multiplier = 0, softcap = 0;
  RoleScores roles[64];
};

struct StreamSink : LayerSink {
  const ModelConfig* c = nullptr;
  std::vector<int> ids;
  std::vector<StreamedLayer> layers;
  std::unique_ptr<RoleRows> rows;
  std::atomic<size_t> blocks{0};
  int current = -1;
  bool probs_given = false;
  void OnBlock(int layer, const RowBlock& b) override {
    if (layer != current) ADD_FAILURE() << "block of layer " << layer << " during layer " << current;
    layers[(size_t)layer].pyramid.AddBlock(b);
    rows->AddRows(b.head, b.r0, b.rows, b.probs);
    ++blocks;
  }
  Status OnLayer(const LayerOutput& o) override {
    probs_given |= o.probs != nullptr;
    StreamedLayer& l = layers[(size_t)o.layer];
    l.pyramid.Finish();
    l.q = Copy(o.q);
    l.k = Copy(o.k);
    l.multiplier = o.multiplier;
    l.softcap = o.softcap;
    for (int h = 0; h < o.n_head; ++h) l.roles[h] = rows->Head(h);
    if (o.layer + 1 < o.n_layer) {
      current = o.layer + 1;
      const int n = o.n;
      layers[(size_t)current].pyramid.Reset(o.n_head, n, n, MapPyramid::BaseFactor(o.n_head, n, n));
    }
    return Status::Ok();
  }
};

// A fixture folder by name, or "gguf_<name>": tests/fixtures/gguf/models/<name>.gguf (quantized ones dequantized
// per layer, as the app reads them).
Result<std::shared_ptr<const Model>> LoadFixture(const std::string& name) {
  const std::string gguf = "gguf_";
  if (name.rfind(gguf, 0) == 0) return LoadGgufModel(testing::GgufFixture("models/" + name.substr(gguf.size()) + ".gguf"));
  return LoadModel(FixtureDir(name));
}

class Streamed : public ::testing::TestWithParam<std::string> {};

TEST_P(Streamed, StreamedMapsEqualFullMaps) {
  auto model = LoadFixture(GetParam());
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  ASSERT_LE(c.n_head, 64);
  const std::vector<int> ids = LongIds(c);
  const int n = (int)ids.size();
  RunOptions options;
  options.temperature.assign((size_t)c.n_layer, 1.0f);
  options.temperature[0] = 0.7f;  // a what-if on the way too
  auto full = RunModel(**model, ids, options);
  ASSERT_TRUE(full.ok()) << full.message();

  StreamSink sink;
  sink.c = &c;
  sink.ids = ids;
  sink.layers.resize((size_t)c.n_layer);
  sink.rows = std::make_unique<RoleRows>(c.n_head, ids, AttentionMask(c, 0).causal());
  sink.current = 0;
  sink.layers[0].pyramid.Reset(c.n_head, n, n, MapPyramid::BaseFactor(c.n_head, n, n));
  RunOptions streamed = options;
  streamed.stream_maps = true;
  ASSERT_TRUE(RunModel(**model, ids, streamed, &sink).ok());
  EXPECT_FALSE(sink.probs_given) << "a streamed run hands over no map";
  EXPECT_EQ(sink.blocks.load(), (size_t)c.n_layer * AttendBlockCount(c.n_head, n, n));

  const size_t plane = (size_t)n * n;
  for (int l = 0; l < c.n_layer; ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const StreamedLayer& got = sink.layers[(size_t)l];
    Tensor layer_probs;
    layer_probs.Resize({(size_t)c.n_head, (size_t)n, (size_t)n});
    std::copy(full->probs.data.data() + l * c.n_head * plane, full->probs.data.data() + (l + 1) * c.n_head * plane,
              layer_probs.data.begin());
    // 1. Exact rows from the kept q and k: bit-equal to the full pass, every head, every row.
    EXPECT_EQ(got.multiplier, AttentionMultiplier(c, l, options));
    for (int h = 0; h < c.n_head; ++h) {
      Tensor rows;
      AttendRows(got.q, got.k, got.multiplier, AttentionMask(c, l), h, 0, n, nullptr, &rows, got.softcap);
      ASSERT_EQ(rows.size(), plane);
      for (size_t i = 0; i < plane; ++i)
        ASSERT_EQ(rows.data[i], layer_probs.data[h * plane + i]) << "head " << h << " cell " << i;
    }
    // 2. The pyramid from blocks: max levels equal to the full map's pyramid; mean levels keep the row sums.
    MapPyramid want;
    want.Reset(c.n_head, n, n, MapPyramid::BaseFactor(c.n_head, n, n));
    want.AddMap(layer_probs);
    want.Finish();
    ASSERT_EQ(got.pyramid.levels().size(), want.levels().size());
    for (size_t v = 0; v < want.levels().size(); ++v) {
      const PyramidLevel& a = got.pyramid.levels()[v];
      const PyramidLevel& b = want.levels()[v];
      ASSERT_EQ(a.max.size(), b.max.size());
      for (size_t i = 0; i < a.max.size(); ++i) ASSERT_EQ(a.max[i], b.max[i]) << "level " << v << " cell " << i;
      for (size_t i = 0; i < a.mean.size(); ++i) ASSERT_NEAR(a.mean[i], b.mean[i], 1e-6f) << "level " << v;
      // pooled max >= every cell below it
      for (int h = 0; h < c.n_head; ++h)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j)
            ASSERT_GE(a.Plane(PoolKind::kMax, h)[(size_t)(i / a.factor) * a.cols + j / a.factor],
                      layer_probs.data[h * plane + (size_t)i * n + j]);
    }
    for (int h = 0; h < c.n_head; ++h) EXPECT_EQ(got.pyramid.head_max(h), want.head_max(h));
    // 3. Role scores from role rows equal those of the whole map.
    for (int h = 0; h < c.n_head; ++h) {
      const RoleScores whole = ScoreHead(layer_probs.data.data() + h * plane, n, ids);
      for (HeadRole r : AllHeadRoles()) EXPECT_EQ(got.roles[h][r], whole[r]) << "head " << h << " " << RoleName(r);
    }
    // 4. What the screen shows from the streamed layer (pyramid + exact rows) equals the full map's view.
    MapSource streamed_source;
    streamed_source.pyramid = &got.pyramid;
    streamed_source.q = &got.q;
    streamed_source.k = &got.k;
    streamed_source.multiplier = got.multiplier;
    streamed_source.softcap = got.softcap;
    streamed_source.mask = AttentionMask(c, l);
    MapSource full_source = streamed_source;
    full_source.probs = &layer_probs;
    full_source.pyramid = nullptr;
    for (int px : {n, n / 3 + 1}) {
      const ViewImage a = ComposeView(streamed_source, 0, MapWindow{0, n, 0, n}, px, px, PoolKind::kMax);
      const ViewImage b = ComposeView(full_source, 0, MapWindow{0, n, 0, n}, px, px, PoolKind::kMax);
      ASSERT_EQ(a.values.size(), b.values.size());
      if (!a.exact()) continue;  // a pooled view reads the pyramid (compared above)
      for (size_t i = 0; i < a.values.size(); ++i)  // NaN: every covered cell masked, in both
        ASSERT_TRUE(a.values[i] == b.values[i] || (std::isnan(a.values[i]) && std::isnan(b.values[i])))
            << px << " px, texel " << i;
    }
  }
}

// The whole-map scoring (attnviz-cli model, the app below the streaming threshold) given the pass's row figures:
// broad from their entropy (no log per prob), every other role bit-equal to ScoreHead's, on each fixture (causal
// and bidirectional); row figures of another shape are refused, naming the head.
TEST_P(Streamed, ScoreLayerFromRowFiguresEqualsScoreHead) {
  auto model = LoadFixture(GetParam());
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const std::vector<int> ids = LongIds(c);
  const int n = (int)ids.size();
  struct Both : LayerSink {
    const std::vector<int>* ids = nullptr;
    HeadRoles from_figures, from_probs;
    Status bad_shape;
    Status OnLayer(const LayerOutput& o) override {
      if (Status s = ScoreLayer(o.probs, o.layer, o.n_head, o.n, *ids, &from_figures, o.metrics); !s) return s;
      if (Status s = ScoreLayer(o.probs, o.layer, o.n_head, o.n, *ids, &from_probs); !s) return s;
      std::vector<HeadMetrics> short_rows = *o.metrics;
      short_rows.back().rows.pop_back();
      bad_shape = ScoreLayer(o.probs, o.layer, o.n_head, o.n, *ids, &from_figures, &short_rows);
      return Status::Ok();
    }
  } sink;
  sink.ids = &ids;
  sink.from_figures = sink.from_probs = MakeHeadRoles(c.n_layer, c.n_head, ids);
  RunOptions options;
  options.row_figures = true;
  ASSERT_TRUE(RunModel(**model, ids, options, &sink).ok());
  for (int l = 0; l < c.n_layer; ++l)
    for (int h = 0; h < c.n_head; ++h) {
      const RoleScores& a = sink.from_figures.at(l, h);
      const RoleScores& b = sink.from_probs.at(l, h);
      for (HeadRole r : AllHeadRoles()) {
        if (r == HeadRole::kBroad) EXPECT_NEAR(a[r], b[r], 1e-5) << "layer " << l << " head " << h;
        else EXPECT_EQ(a[r], b[r]) << "layer " << l << " head " << h << " " << RoleName(r);
      }
      EXPECT_GT(a[HeadRole::kBroad], 0.0f);  // scored, not left at 0
    }
  ASSERT_FALSE(sink.bad_shape.ok());
  EXPECT_NE(sink.bad_shape.message().find("head " + std::to_string(c.n_head - 1) + " has row figures for " +
                                          std::to_string(n - 1) + " rows, not " + std::to_string(n)),
            std::string::npos)
      << sink.bad_shape.message();
}

INSTANTIATE_TEST_SUITE_P(Models, Streamed, ::testing::ValuesIn(testing::AllFixtures()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
// GGUF files on the long-input path: every legacy quant (qwen2), an untied quantized LM head (mistral, sliding
// window), f16/bf16 (llama), each matrix dequantized per layer.
INSTANTIATE_TEST_SUITE_P(Gguf, Streamed,
                         ::testing::Values("gguf_qwen2_mixed", "gguf_mistral_mixed", "gguf_llama_e2e_half"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(Streamed, CancelStopsWithinABlockPerThread) {
  auto model = LoadModel(FixtureDir("mistral_sharded"));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const std::vector<int> ids = LongIds(c);
  struct Sink : LayerSink {
    std::atomic<bool> cancel{false};
    std::atomic<size_t> blocks{0}, after{0};
    std::atomic<int> layers{0};
    void OnBlock(int, const RowBlock&) override {
      if (cancel) ++after;
      if (++blocks == 3) cancel = true;  // mid-layer: the third block of layer 0
    }
    Status OnLayer(const LayerOutput&) override {
      ++layers;
      return Status::Ok();
    }
  } sink;
  RunOptions o;
  o.stream_maps = true;
  o.control.cancel = &sink.cancel;
  const Status s = RunModel(**model, ids, o, &sink);
  EXPECT_TRUE(s.cancelled()) << s.message();
  EXPECT_EQ(sink.layers.load(), 0) << "the cancelled layer is never handed over";
  // Each of the pass's threads may finish the block it had started; none starts another.
  EXPECT_LE(sink.after.load(), (size_t)std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_LT(sink.blocks.load(), AttendBlockCount(c.n_head, ids.size(), ids.size()));
}

TEST(Streamed, MemoryEstimateLeavesOutTheMapScratch) {
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok());
  const ModelConfig& c = (*model)->config();
  RunOptions kept, streamed;
  streamed.stream_maps = true;
  const size_t n = 8192;
  const double map_bytes = (double)c.n_head * n * n * sizeof(float);
  EXPECT_DOUBLE_EQ(RunMemoryBytes(c, n, false, kept) - RunMemoryBytes(c, n, false, streamed), map_bytes);
}

TEST(Streamed, TheCollectingRunRefusesToStream) {
  auto model = LoadModel(FixtureDir("gpt2"));
  ASSERT_TRUE(model.ok());
  RunOptions o;
  o.stream_maps = true;
  auto run = RunModel(**model, {1, 2, 3}, o);
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.message(), ::testing::HasSubstr("stream_maps needs a LayerSink"));
}

}  // namespace
}  // namespace attnviz::model
