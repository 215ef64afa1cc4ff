// core/session/layer_collector.*: what each plan keeps (and what it lets go), that the taps see every layer once in
// order and can stop the run, that a rollout made as the layers pass equals the one made after them, and that a
// run resumed from an earlier one's layers equals a full run.
#include "session/layer_collector.h"

#include <gtest/gtest.h>

#include <cstring>

#include "model_folder.h"
#include "session/what_ifs.h"

namespace attnviz {
namespace {

const char* kText = "The cat sat on the mat. The cat sat on the mat. A dog ran to the log.";

struct Opened {
  std::shared_ptr<const ModelFolder> folder;
  std::vector<tokenize::Token> tokens;
  std::vector<int> ids;
};

Opened OpenFixture(const std::string& name) {
  Opened o;
  auto folder = OpenModelFolder(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + name);
  EXPECT_TRUE(folder) << folder.message();
  if (!folder) return o;
  o.folder = *folder;
  auto tokens = TokenizeForModel(**folder, kText);
  EXPECT_TRUE(tokens) << tokens.message();
  if (tokens) o.tokens = *tokens, o.ids = TokenIds(*tokens);
  return o;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.shape == b.shape && std::memcmp(a.data.data(), b.data.data(), a.size() * sizeof(float)) == 0;
}

model::RunOptions Options() {
  model::RunOptions o;
  o.row_figures = true;
  return o;
}

// Runs the model into a collector with `plan`; the collected layers.
CollectedLayers Collect(const Opened& o, const CollectPlan& plan, const model::RunOptions& options,
                        LayerTaps taps = {}, Status* status = nullptr) {
  LayerCollector collector(*o.folder->model, options, o.tokens, plan, std::move(taps));
  Status s = model::RunModel(*o.folder->model, o.ids, options, &collector);
  if (s) s = collector.MakeRollout(RunControl());
  if (status) *status = s;
  else EXPECT_TRUE(s) << s.message();
  CollectedLayers out;
  collector.CopyInto(&out);
  return out;
}

TEST(LayerCollector, NoneKeepsOnlyTheChosenLayersMapsAndEveryLayersRowFiguresAndRoles) {
  const Opened o = OpenFixture("gpt2");
  ASSERT_TRUE(o.folder);
  const CollectedLayers whole = Collect(o, CollectPlan::ForSession(false), Options());
  CollectPlan none;
  none.maps = CollectPlan::Maps::kNone;
  none.keep_layer = 1;
  none.thumbnails = none.neuron_qk = none.resume_points = false;
  none.rollout_with_layers = true;
  const CollectedLayers kept = Collect(o, none, Options());
  ASSERT_EQ(kept.layers_done, whole.layers_done);
  for (int l = 0; l < whole.n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const LayerMaps& a = *whole.layers[(size_t)l];
    const LayerMaps& b = *kept.layers[(size_t)l];
    if (l == none.keep_layer) {
      EXPECT_TRUE(SameBits(*a.probs, *b.probs));
      // Rows of the kept maps sum to 1.
      const size_t n = o.ids.size();
      for (size_t r = 0; r < b.probs->size() / n; ++r) {
        double sum = 0;
        for (size_t j = 0; j < n; ++j) sum += b.probs->data[r * n + j];
        ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << r;
      }
    } else {
      EXPECT_TRUE(b.probs->empty());
      EXPECT_TRUE(kept.analysis[(size_t)l]->rollout->empty());  // the taps had it; nothing of it is held
    }
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    for (size_t h = 0; h < a.metrics.size(); ++h) EXPECT_EQ(a.metrics[h].max_weight, b.metrics[h].max_weight);
    EXPECT_TRUE(whole.thumbnails[(size_t)l] && !whole.thumbnails[(size_t)l]->empty());
  }
  EXPECT_EQ(model::HeadRolesCsv(kept.roles), model::HeadRolesCsv(whole.roles));
  EXPECT_LT(CollectedBytes(o.folder->model->config(), (int)o.ids.size(), none),
            CollectedBytes(o.folder->model->config(), (int)o.ids.size(), CollectPlan::ForSession(false)));
}

TEST(LayerCollector, ARolloutMadeAsTheLayersPassEqualsTheOneMadeAfterThem) {
  const Opened o = OpenFixture("llama");
  ASSERT_TRUE(o.folder);
  const CollectedLayers after = Collect(o, CollectPlan::ForSession(false), Options());
  CollectPlan with_layers = CollectPlan::ForSession(false);
  with_layers.rollout_with_layers = true;
  const CollectedLayers passing = Collect(o, with_layers, Options());
  EXPECT_FALSE(passing.rollout_pending);
  for (int l = 0; l < after.n_layer(); ++l) {
    ASSERT_FALSE(after.analysis[(size_t)l]->rollout->empty());
    EXPECT_TRUE(SameBits(*after.analysis[(size_t)l]->rollout, *passing.analysis[(size_t)l]->rollout)) << "layer " << l;
  }
}

TEST(LayerCollector, TapsSeeEachLayerOnceInOrderAndTheirErrorStopsTheRun) {
  const Opened o = OpenFixture("gpt2");
  ASSERT_TRUE(o.folder);
  std::vector<int> seen;
  int embeddings = 0;
  LayerTaps taps;
  taps.embeddings = [&](const float*, int n, int d) {
    ++embeddings;
    EXPECT_EQ(n, (int)o.ids.size());
    EXPECT_EQ(d, o.folder->model->config().d_model);
    return Status::Ok();
  };
  taps.layer = [&](const model::LayerOutput& out, const LayerMaps& maps, const LayerAnalysis&) {
    seen.push_back(out.layer);
    EXPECT_EQ(maps.n_q(), (int)o.ids.size());
    return out.layer == 1 ? Status::Error("the disk is full") : Status::Ok();
  };
  Status status;
  const CollectedLayers got = Collect(o, CollectPlan::ForSession(false), Options(), taps, &status);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "the disk is full");
  EXPECT_EQ(embeddings, 1);
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
  EXPECT_EQ(got.layers_done, 1);  // the layer whose tap failed is not kept
}

// The residual stream after the last block, which the predictions read: the run's own, held once (the session's
// result shares the collector's vector rather than copying n x d_model floats).
TEST(LayerCollector, TheLastStreamIsTheRunsAndShared) {
  const Opened o = OpenFixture("gpt2");
  ASSERT_TRUE(o.folder);
  const model::Model& m = *o.folder->model;
  const model::RunOptions options = Options();  // (the collector reads it during the run)
  LayerCollector collector(m, options, o.tokens, CollectPlan::ForSession(false));
  EXPECT_FALSE(collector.shared_last_hidden());
  EXPECT_TRUE(collector.last_hidden().empty());
  ASSERT_TRUE(model::RunModel(m, o.ids, options, &collector));
  struct LastSink : model::LayerSink {
    Status OnLayer(const model::LayerOutput& out) override {
      last.assign(out.hidden, out.hidden + (size_t)out.n * out.d_model);
      return Status::Ok();
    }
    std::vector<float> last;
  } plain;
  ASSERT_TRUE(model::RunModel(m, o.ids, Options(), &plain));
  const std::shared_ptr<const std::vector<float>> shared = collector.shared_last_hidden();
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->data(), collector.last_hidden().data());
  EXPECT_EQ(*shared, plain.last);
  EXPECT_EQ(shared->size(), o.ids.size() * (size_t)m.config().d_model);
}

class Resumed : public ::testing::TestWithParam<bool> {};

TEST(FirstChangedLayer, AnAblatedHeadsModeIsAChangeAtItsLayer) {
  // Zero and mean ablation of one head are different runs: a session must not reuse the one's layers for the other.
  const Opened o = OpenFixture("gpt2");
  ASSERT_TRUE(o.folder);
  const model::ModelConfig& c = o.folder->model->config();
  model::RunOptions zero, mean;
  zero.ablate = {{1, 2, model::AblateMode::kZero}};
  mean.ablate = {{1, 2, model::AblateMode::kMean}};
  EXPECT_EQ(FirstChangedLayer(c, zero, mean), 1);
  EXPECT_EQ(FirstChangedLayer(c, mean, mean), c.n_layer);
}

TEST_P(Resumed, ARunResumedFromAnEarlierOnesLayersEqualsAFullRun) {
  const bool stream = GetParam();
  const Opened o = OpenFixture("gpt2");
  ASSERT_TRUE(o.folder);
  const model::ModelConfig& c = o.folder->model->config();
  ASSERT_GE(c.n_layer, 2);
  model::RunOptions base = Options();
  base.stream_maps = stream;
  const CollectedLayers earlier = Collect(o, CollectPlan::ForSession(stream), base);
  // A what-if on the last layer: the layers below it are the earlier run's.
  ModelWhatIfs what_if;
  what_if.no_scale = true;
  what_if.layers = {c.n_layer - 1};
  model::RunOptions changed = WhatIfRunOptions(what_if, c.n_layer);
  changed.row_figures = true;
  changed.stream_maps = stream;
  const int first = FirstChangedLayer(c, base, changed);
  ASSERT_EQ(first, c.n_layer - 1);
  const CollectedLayers full = Collect(o, CollectPlan::ForSession(stream), changed);
  // Resumed: ResumeStride may not keep every layer's input of a whole-map run; the last kept one at or before first.
  int from = first;
  while (from > 0 && !earlier.resume_inputs[(size_t)from]) --from;
  LayerCollector collector(*o.folder->model, changed, o.tokens, CollectPlan::ForSession(stream));
  collector.Reuse(earlier, from);
  model::RunOptions resumed = changed;
  resumed.first_layer = from;
  resumed.resume_hidden = from > 0 ? earlier.resume_inputs[(size_t)from]->data() : nullptr;
  ASSERT_TRUE(model::RunModel(*o.folder->model, o.ids, resumed, &collector));
  ASSERT_TRUE(collector.MakeRollout(RunControl()));
  CollectedLayers got;
  collector.CopyInto(&got);
  EXPECT_EQ(model::HeadRolesCsv(got.roles), model::HeadRolesCsv(full.roles));
  for (int l = 0; l < c.n_layer; ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const LayerMaps& a = *full.layers[(size_t)l];
    const LayerMaps& b = *got.layers[(size_t)l];
    if (stream) {
      ASSERT_TRUE(a.pyramid && b.pyramid);
      ASSERT_EQ(a.pyramid->levels().size(), b.pyramid->levels().size());
      for (size_t v = 0; v < a.pyramid->levels().size(); ++v)
        EXPECT_EQ(a.pyramid->levels()[v].max, b.pyramid->levels()[v].max);
    } else {
      EXPECT_TRUE(SameBits(*a.probs, *b.probs));
    }
    EXPECT_TRUE(SameBits(*full.thumbnails[(size_t)l], *got.thumbnails[(size_t)l]));
    // !! The rollout resumes from R_(from-1) through a layer whose head mean is 2R - I (Reuse): equal to rounding.
    const Tensor& ra = *full.analysis[(size_t)l]->rollout;
    const Tensor& rb = *got.analysis[(size_t)l]->rollout;
    ASSERT_EQ(ra.shape, rb.shape);
    for (size_t i = 0; i < ra.size(); ++i) ASSERT_NEAR(ra.data[i], rb.data[i], 1e-6) << "cell " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(WholeAndStreamed, Resumed, ::testing::Bool());

}  // namespace
}  // namespace attnviz
