// core/model/run.*: every fixture's probs and hidden against PyTorch (1e-4), the what-ifs, the sink, resuming,
// input checks, cancellation.
#include "model/run.h"

#include <cmath>

#include "io/npy.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::FixtureDir;

constexpr float kTol = 1e-4f;

struct Case {
  std::vector<int> ids;
  RunOptions whatif;
};

Case ReadCase(const std::string& name) {
  nlohmann::json j = nlohmann::json::parse(testing::ReadBytes(FixtureDir(name) + "/case.json"));
  Case c;
  c.ids = j["ids"].get<std::vector<int>>();
  c.whatif.no_scale = j["whatif"]["no_scale"].get<std::vector<bool>>();
  c.whatif.temperature = j["whatif"]["temperature"].get<std::vector<float>>();
  return c;
}

Tensor Npy(const std::string& name, const std::string& file) {
  auto t = ReadNpy(FixtureDir(name) + "/" + file);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : Tensor{};
}

void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  float worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got.data[i])) << what << " [" << i << "]";
    const float e = std::fabs(got.data[i] - want.data[i]);
    if (e > worst) worst = e, at = i;
  }
  EXPECT_LE(worst, kTol) << what << ": worst |diff| " << worst << " at flat index " << at << " (got "
                         << got.data[at] << ", torch " << want.data[at] << ")";
}

// Per layer too, so a failure says which layer.
void ExpectLayers(const ModelRun& run, const Tensor& probs, const Tensor& hidden, const std::string& what) {
  ExpectClose(run.probs, probs, what + " probs");
  ExpectClose(run.hidden, hidden, what + " hidden");
}

class Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixture, ProbsAndHiddenMatchTorch) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const Case c = ReadCase(name);
  auto run = RunModel(**model, c.ids);
  ASSERT_TRUE(run.ok()) << run.message();
  ExpectLayers(*run, Npy(name, "probs.npy"), Npy(name, "hidden.npy"), name);
}

TEST_P(Fixture, WhatIfsMatchTorch) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const Case c = ReadCase(name);
  auto run = RunModel(**model, c.ids, c.whatif);
  ASSERT_TRUE(run.ok()) << run.message();
  ExpectLayers(*run, Npy(name, "whatif_probs.npy"), Npy(name, "whatif_hidden.npy"), name + " what-if");
}

TEST_P(Fixture, RowsSumToOneAndMaskedEntriesAreExactlyZero) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& cfg = (*model)->config();
  auto run = RunModel(**model, ReadCase(name).ids);
  ASSERT_TRUE(run.ok());
  const size_t n = run->probs.dim(2);
  const bool causal = !cfg.recipe.bidirectional;
  for (size_t lh = 0; lh < run->probs.dim(0) * run->probs.dim(1); ++lh) {
    const size_t window = (size_t)cfg.WindowOf((int)(lh / run->probs.dim(1)));  // gemma: per layer
    for (size_t i = 0; i < n; ++i) {
      const float* row = run->probs.data.data() + (lh * n + i) * n;
      double sum = 0;
      for (size_t j = 0; j < n; ++j) {
        sum += row[j];
        const bool visible =
            (!causal || j <= i) && (window == 0 || (j <= i && i - j < window));
        if (!visible) {
          ASSERT_EQ(row[j], 0.0f) << name << " row " << i << " key " << j;
        }
        ASSERT_GE(row[j], 0.0f);
      }
      ASSERT_NEAR(sum, 1.0, 1e-5) << name;
    }
  }
}

TEST_P(Fixture, StreamingSinkSeesWhatCollectingKeeps) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok());
  const Case c = ReadCase(name);
  auto all = RunModel(**model, c.ids, c.whatif);
  ASSERT_TRUE(all.ok());
  struct Sink : LayerSink {
    const ModelRun* want;
    int layers = 0, embeddings = 0;
    Status OnEmbeddings(const float* hidden, int n, int d) override {
      ++embeddings;
      for (int i = 0; i < n * d; ++i) EXPECT_EQ(hidden[i], want->hidden.data[i]);
      return Status::Ok();
    }
    Status OnLayer(const LayerOutput& o) override {
      const size_t per = (size_t)o.n_head * o.n * o.n, nd = (size_t)o.n * o.d_model;
      EXPECT_EQ(layers, o.layer);
      for (size_t i = 0; i < per; ++i) EXPECT_EQ(o.probs[i], want->probs.data[o.layer * per + i]);
      for (size_t i = 0; i < nd; ++i) EXPECT_EQ(o.hidden[i], want->hidden.data[(o.layer + 1) * nd + i]);
      ++layers;
      return Status::Ok();
    }
  } sink;
  sink.want = &*all;
  std::vector<int> progress;
  RunOptions o = c.whatif;
  o.control.progress = [&](const char* stage, size_t done, size_t total) {
    EXPECT_STREQ(stage, "layers");
    EXPECT_EQ(total, (size_t)(*model)->config().n_layer);
    progress.push_back((int)done);
  };
  ASSERT_TRUE(RunModel(**model, c.ids, o, &sink).ok());
  EXPECT_EQ(sink.layers, (*model)->config().n_layer);
  EXPECT_EQ(sink.embeddings, 1);
  EXPECT_EQ((int)progress.size(), (*model)->config().n_layer);
  for (size_t i = 0; i < progress.size(); ++i) EXPECT_EQ(progress[i], (int)i + 1);  // layers done, in order
}

TEST_P(Fixture, ResumingFromALayerGivesTheSameDownstream) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok());
  const Case c = ReadCase(name);
  auto base = RunModel(**model, c.ids);
  ASSERT_TRUE(base.ok());
  // Change only the last layer: resume there from the base run's residual stream.
  const int L = (*model)->config().n_layer, n = (int)c.ids.size(), d = (*model)->config().d_model;
  RunOptions full;
  full.temperature.assign(L, 1.0f);
  full.temperature[L - 1] = 0.3f;
  auto want = RunModel(**model, c.ids, full);
  ASSERT_TRUE(want.ok());
  struct Sink : LayerSink {
    std::vector<float> probs, hidden;
    Status OnEmbeddings(const float*, int, int) override { return Status::Error("not expected when resuming"); }
    Status OnLayer(const LayerOutput& o) override {
      probs.assign(o.probs, o.probs + (size_t)o.n_head * o.n * o.n);
      hidden.assign(o.hidden, o.hidden + (size_t)o.n * o.d_model);
      return Status::Ok();
    }
  } sink;
  RunOptions resume = full;
  resume.first_layer = L - 1;
  resume.resume_hidden = base->hidden.data.data() + (size_t)(L - 1) * n * d;
  ASSERT_TRUE(RunModel(**model, c.ids, resume, &sink).ok());
  const size_t per = sink.probs.size();
  for (size_t i = 0; i < per; ++i) ASSERT_EQ(sink.probs[i], want->probs.data[(L - 1) * per + i]);
  for (size_t i = 0; i < sink.hidden.size(); ++i) ASSERT_EQ(sink.hidden[i], want->hidden.data[(size_t)L * n * d + i]);
}

// last_layer: the run stops after that block. The layers it runs are bit-equal to a full run's (plain and streamed),
// no later layer reaches the sink, and progress counts to last_layer + 1.
TEST_P(Fixture, StoppingAfterALayerKeepsItsLayersBitEqualAndRunsNoLater) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok());
  const Case c = ReadCase(name);
  const int L = (*model)->config().n_layer;
  auto all = RunModel(**model, c.ids, c.whatif);
  ASSERT_TRUE(all.ok());
  struct Sink : LayerSink {
    const ModelRun* want;
    bool streamed = false;
    int layers = 0, blocks_past = 0, last = -1;
    void OnBlock(int layer, const RowBlock&) override {
      if (layer > last) ++blocks_past;  // a streamed pass past the last layer
    }
    Status OnLayer(const LayerOutput& o) override {
      const size_t per = (size_t)o.n_head * o.n * o.n, nd = (size_t)o.n * o.d_model;
      EXPECT_EQ(layers, o.layer);
      EXPECT_LE(o.layer, last);
      if (!streamed)
        for (size_t i = 0; i < per; ++i) EXPECT_EQ(o.probs[i], want->probs.data[o.layer * per + i]) << o.layer;
      for (size_t i = 0; i < nd; ++i) EXPECT_EQ(o.hidden[i], want->hidden.data[(o.layer + 1) * nd + i]) << o.layer;
      ++layers;
      return Status::Ok();
    }
  };
  for (bool streamed : {false, true})
    for (int last = 0; last < L; ++last) {
      SCOPED_TRACE(std::string(streamed ? "streamed" : "whole maps") + ", last_layer " + std::to_string(last));
      Sink sink;
      sink.want = &*all, sink.streamed = streamed, sink.last = last;
      RunOptions o = c.whatif;
      o.last_layer = last;
      o.stream_maps = streamed;
      size_t progress_total = 0, progress_calls = 0;
      o.control.progress = [&](const char*, size_t, size_t total) { progress_total = total, ++progress_calls; };
      ASSERT_TRUE(RunModel(**model, c.ids, o, &sink).ok());
      EXPECT_EQ(sink.layers, last + 1) << "layers after last_layer are not computed";
      EXPECT_EQ(sink.blocks_past, 0);
      EXPECT_EQ(progress_total, (size_t)last + 1);
      EXPECT_EQ(progress_calls, (size_t)last + 1);
    }
}

INSTANTIATE_TEST_SUITE_P(Models, Fixture, ::testing::ValuesIn(testing::AllFixtures()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// The collecting run keeps its results as Tensors of exactly the floats RunMemoryBytes counts for `collect`, so the
// memory check before it refuses what it would hold.
TEST(Run, KeepsExactlyTheBytesItsMemoryCheckCounts) {
  auto model = LoadModel(FixtureDir("gpt2"));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const std::vector<int> ids = {1, 2, 3, 4, 5, 6, 7};
  auto run = RunModel(**model, ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const size_t n = ids.size();
  EXPECT_EQ(run->probs.shape, (std::vector<size_t>{(size_t)c.n_layer, (size_t)c.n_head, n, n}));
  EXPECT_EQ(run->hidden.shape, (std::vector<size_t>{(size_t)c.n_layer + 1, n, (size_t)c.d_model}));
  const double held = (double)(run->probs.data.capacity() + run->hidden.data.capacity()) * sizeof(float);
  EXPECT_EQ(RunMemoryBytes(c, n, /*collect=*/true) - RunMemoryBytes(c, n, /*collect=*/false), held);
}

TEST(Run, InputChecks) {
  auto model = LoadModel(FixtureDir("gpt2"));
  ASSERT_TRUE(model.ok());
  EXPECT_THAT(RunModel(**model, {}).message(), HasSubstr("no tokens"));
  EXPECT_THAT(RunModel(**model, {1, 100}).message(), HasSubstr("token 1 has id 100; allowed: 0..99 (vocab_size 100)"));
  EXPECT_THAT(RunModel(**model, {-1}).message(), HasSubstr("token 0 has id -1"));
  EXPECT_THAT(RunModel(**model, std::vector<int>(41, 1)).message(),
              HasSubstr("41 tokens exceed the model's 40 positions (max_position_embeddings)"));
  EXPECT_TRUE(RunModel(**model, std::vector<int>(40, 1)).ok());
  RunOptions o;
  o.temperature = {1.0f, 0.0f};
  EXPECT_THAT(RunModel(**model, {1, 2}, o).message(), HasSubstr("temperature of layer 1 is 0.000000; allowed"));
  o.temperature = {1.0f};
  EXPECT_THAT(RunModel(**model, {1, 2}, o).message(), HasSubstr("temperature has 1 entries; the model has 2 layers"));
  RunOptions r;
  r.first_layer = 1;
  EXPECT_THAT(RunModel(**model, {1, 2}, r).message(), HasSubstr("needs resume_hidden"));
  struct Sink : LayerSink {
    Status OnLayer(const LayerOutput&) override { return Status::Ok(); }
  } sink;
  RunOptions last;
  last.last_layer = 2;  // gpt2 has layers 0..1
  EXPECT_THAT(RunModel(**model, {1, 2}, last, &sink).message(), HasSubstr("last_layer 2 is outside 0..1"));
  last.last_layer = -2;
  EXPECT_THAT(RunModel(**model, {1, 2}, last, &sink).message(), HasSubstr("last_layer -2 is outside 0..1"));
  last.last_layer = 0;
  EXPECT_THAT(RunModel(**model, {1, 2}, last).message(), HasSubstr("last_layer needs a LayerSink"));
}

TEST(Run, CancelledRunSaysSo) {
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok());
  std::atomic<bool> cancel{true};
  RunOptions o;
  o.control.cancel = &cancel;
  auto run = RunModel(**model, {1, 2, 3}, o);
  ASSERT_FALSE(run.ok());
  EXPECT_TRUE(run.status().cancelled()) << run.message();
  // Cancelled from the progress callback after layer 0: layer 1 never runs.
  std::atomic<bool> later{false};
  int layers = 0;
  RunOptions p;
  p.control.cancel = &later;
  p.control.progress = [&](const char*, size_t, size_t) { ++layers, later = true; };
  EXPECT_TRUE(RunModel(**model, {1, 2, 3}, p).status().cancelled());
  EXPECT_EQ(layers, 1);
}

TEST(Run, SinkErrorStopsTheRun) {
  auto model = LoadModel(FixtureDir("bert"));
  ASSERT_TRUE(model.ok());
  struct Sink : LayerSink {
    Status OnLayer(const LayerOutput&) override { return Status::Error("disk full"); }
  } sink;
  EXPECT_EQ(RunModel(**model, {1, 2}, RunOptions{}, &sink).message(), "disk full");
}

TEST(Run, AttentionMultiplier) {
  ModelConfig c;
  c.d_head = 16;
  c.n_layer = 2;
  RunOptions o;
  EXPECT_FLOAT_EQ(AttentionMultiplier(c, 0, o), 0.25f);
  o.no_scale = {true, false};
  o.temperature = {2.0f, 0.5f};
  EXPECT_FLOAT_EQ(AttentionMultiplier(c, 0, o), 0.5f);
  EXPECT_FLOAT_EQ(AttentionMultiplier(c, 1, o), 0.5f);
  c.scale_by_inverse_layer_idx = true;
  EXPECT_FLOAT_EQ(AttentionMultiplier(c, 1, o), 0.25f);
}

}  // namespace
}  // namespace attnviz::model

namespace attnviz::model {
namespace {

// A run whose sink keeps no map writes each layer into the workspace's own map buffer, reused from layer to layer and
// from run to run on the same thread (RunWithWorkspace), and writes its masked cells only when that buffer last held
// another shape or mask (AttendSink::probs_masked_zero). A bidirectional run first (BERT: every cell above 0) on the
// same [n_head, n, n] must leave nothing in a causal run's masked cells: every layer equals a run into fresh maps.
TEST(Run, AReusedMapBufferHoldsNoCellOfAnotherMasksRun) {
  auto bert = LoadModel(testing::FixtureDir("bert"));
  auto gpt2 = LoadModel(testing::FixtureDir("gpt2"));
  ASSERT_TRUE(bert.ok() && gpt2.ok());
  ASSERT_EQ((*bert)->config().n_head, (*gpt2)->config().n_head) << "the test needs one shape for both";
  const std::vector<int> ids = {5, 9, 2, 7, 1, 3, 8, 4};
  const size_t n = ids.size(), plane = (size_t)(*gpt2)->config().n_head * n * n;
  struct Keep : LayerSink {  // gives no buffer: the layer is written into the workspace's
    size_t plane = 0;
    std::vector<std::vector<float>> probs;
    Status OnLayer(const LayerOutput& o) override {
      probs.emplace_back(o.probs, o.probs + plane);
      return Status::Ok();
    }
  };
  auto want = RunModel(**gpt2, ids);  // into fresh maps
  ASSERT_TRUE(want.ok());
  for (int round = 0; round < 2; ++round) {  // the second causal run also follows a causal one (its own zeros)
    SCOPED_TRACE("round " + std::to_string(round));
    Keep before, got;
    before.plane = got.plane = plane;
    ASSERT_TRUE(RunModel(**bert, ids, RunOptions{}, &before).ok());
    ASSERT_GT(before.probs.back()[1], 0.0f) << "BERT's row 0 sees key 1";
    if (round == 1) ASSERT_TRUE(RunModel(**gpt2, ids, RunOptions{}, &got).ok());
    got.probs.clear();
    ASSERT_TRUE(RunModel(**gpt2, ids, RunOptions{}, &got).ok());
    ASSERT_EQ(got.probs.size(), (size_t)(*gpt2)->config().n_layer);
    for (size_t l = 0; l < got.probs.size(); ++l) {
      const float* w = want->probs.data.data() + l * plane;
      for (size_t c = 0; c < plane; ++c) ASSERT_EQ(got.probs[l][c], w[c]) << "layer " << l << " cell " << c;
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(got.probs[l][i * n + n - 1], i + 1 == n ? w[i * n + n - 1] : 0.0f);
    }
  }
}

TEST(Run, ARunStartedInsideASinkDoesNotDisturbTheOuterRun) {
  auto outer = LoadModel(testing::FixtureDir("llama"));
  auto inner = LoadModel(testing::FixtureDir("gpt2"));
  ASSERT_TRUE(outer.ok() && inner.ok());
  const std::vector<int> ids = {5, 9, 2, 7, 1, 3};
  auto want = RunModel(**outer, ids);
  auto want_inner = RunModel(**inner, {4, 4, 8});
  ASSERT_TRUE(want.ok() && want_inner.ok());
  struct Sink : LayerSink {
    const Model* inner;
    std::vector<float> hidden;
    bool inner_same = false;
    const ModelRun* want_inner;
    Status OnLayer(const LayerOutput& o) override {
      if (o.layer == 0) {
        auto r = RunModel(*inner, {4, 4, 8});  // same thread, while the outer run is between layers
        if (!r.ok()) return r.status();
        inner_same = std::equal(r->probs.data.begin(), r->probs.data.end(), want_inner->probs.data.begin());
      }
      hidden.assign(o.hidden, o.hidden + (size_t)o.n * o.d_model);
      return Status::Ok();
    }
  } sink;
  sink.inner = inner->get();
  sink.want_inner = &*want_inner;
  ASSERT_TRUE(RunModel(**outer, ids, RunOptions{}, &sink).ok());
  EXPECT_TRUE(sink.inner_same);
  const size_t nd = sink.hidden.size();
  EXPECT_TRUE(std::equal(sink.hidden.begin(), sink.hidden.end(), want->hidden.data.data() + want->hidden.size() - nd));
}

}  // namespace
}  // namespace attnviz::model
