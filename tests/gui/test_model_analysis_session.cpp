// app/gui/model_analysis.*: what the model session keeps beside the maps, checked against the core on the same run:
// rollout maps = core Rollout over the run's probs; value-weighted maps = core ValueNorms; the neuron view's
// probability = the map's cell; a click's display indices map back to model positions past hidden special tokens.
#include "model_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "model/run.h"
#include "figure/export.h"
#include "io/npy.h"
#include "model_figure.h"
#include "maps/view.h"
#include "model_display.h"
#include "model_folder.h"
#include "model_session_test_util.h"

namespace attnviz {
namespace {

const char* kText = "The cat sat on the mat and the dog sat on the log. A bird sang in the tree.";
using testing::ExactLayer;
using testing::LayerProbsSink;
using testing::Open;
using testing::PatchedE2eFixture;
using testing::RunOnce;

// The same text on one fixture, streamed (no whole maps kept) and whole: what the streamed kinds are checked against.
struct StreamedAndWhole {
  ModelSession streamed_session{OpenModelFolder}, whole_session{OpenModelFolder};
  std::shared_ptr<const ModelResult> streamed, whole;
  explicit StreamedAndWhole(const char* fixture) {
    streamed_session.set_stream_above_cells(0);
    ModelRequest request;
    request.folder = Open(streamed_session, fixture);
    request.text = kText;
    streamed = RunOnce(streamed_session, request);
    request.folder = Open(whole_session, fixture);
    whole = RunOnce(whole_session, request);
  }
};


// The core's side of the same run: each layer's value-norm map [n_head, n, n] (core ValueNorms) and probs.
class CoreSink : public model::LayerSink {
 public:
  explicit CoreSink(const model::Model& m) : model_(m) {}
  Status OnLayer(const model::LayerOutput& out) override {
    const size_t cells = (size_t)out.n_head * out.n * out.n;
    probs.emplace_back(out.probs, out.probs + cells);
    value_norm.emplace_back(cells);
    model::ValueNorms(model_, out, value_norm.back().data());
    return Status::Ok();
  }
  std::vector<std::vector<float>> probs, value_norm;  // [n_layer][n_head * n * n]

 private:
  const model::Model& model_;
};

struct Run {
  std::shared_ptr<const ModelResult> result;
  CoreSink core;
};

std::unique_ptr<Run> RunBoth(ModelSession& session, const std::string& fixture, const ModelRequest& extra = {}) {
  ModelRequest request = extra;
  request.folder = Open(session, fixture);
  if (request.text.empty()) request.text = kText;
  auto result = RunOnce(session, request);
  if (!result) return nullptr;
  const model::Model& m = *request.folder->model;
  auto run = std::unique_ptr<Run>(new Run{result, CoreSink(m)});
  model::RunOptions options = WhatIfRunOptions(request.what_ifs(), m.config().n_layer);
  EXPECT_TRUE(model::RunModel(m, TokenIds(result->tokens), options, &run->core).ok());
  return run;
}

class SessionAnalysis : public ::testing::TestWithParam<std::string> {};

TEST_P(SessionAnalysis, RolloutMapsEqualCoreRollout) {
  ModelSession session(OpenModelFolder);
  auto run = RunBoth(session, GetParam());
  ASSERT_TRUE(run);
  const ModelResult& r = *run->result;
  const int n = (int)r.tokens.size(), n_head = r.layers[0]->n_head();
  EXPECT_TRUE(MapKindRefusal(r, MapKind::kRollout).empty());
  model::Rollout core(n);
  std::vector<float> want((size_t)n * n);
  for (int l = 0; l < r.n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    core.AddLayer(run->core.probs[(size_t)l].data(), n_head, want.data());
    const LayerMaps t = *KindLayerForDisplay(r, l, MapKind::kRollout, false);
    ASSERT_EQ(t.n_head(), 1);  // one map per layer
    ASSERT_EQ(t.n_q(), n);
    for (size_t c = 0; c < want.size(); ++c) ASSERT_NEAR(t.probs->data[c], want[c], 1e-6f) << c;
    EXPECT_TRUE(t.metrics.empty());  // the row figures are attention's
  }
}

TEST_P(SessionAnalysis, ValueWeightedMapsEqualCoreValueNorms) {
  ModelSession session(OpenModelFolder);
  auto run = RunBoth(session, GetParam());
  ASSERT_TRUE(run);
  const ModelResult& r = *run->result;
  for (int l = 0; l < r.n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const LayerMaps t = *KindLayerForDisplay(r, l, MapKind::kValueWeighted, false);
    const std::vector<float>& want = run->core.value_norm[(size_t)l];
    ASSERT_EQ(t.probs->size(), want.size());
    ASSERT_EQ(t.n_head(), r.layers[(size_t)l]->n_head());
    double largest = 0;
    for (size_t c = 0; c < want.size(); ++c) {
      ASSERT_NEAR(t.probs->data[c], want[c], 1e-5 * (1 + std::fabs(want[c]))) << c;
      largest = std::max(largest, (double)std::fabs(want[c]));
    }
    EXPECT_GT(largest, 0);
    // Not the attention map: the norms weigh it.
    EXPECT_NE(t.probs->data, r.layers[(size_t)l]->probs->data);
  }
}

TEST_P(SessionAnalysis, NeuronProbEqualsTheMapCell) {
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streamed" : "whole maps");
    ModelSession session(OpenModelFolder);
    if (stream) session.set_stream_above_cells(0);
    ModelRequest request;
    request.folder = Open(session, GetParam());
    request.text = kText;
    auto r = RunOnce(session, request);
    ASSERT_TRUE(r);
    const int n = (int)r->tokens.size();
    const model::ModelConfig& c = request.folder->model->config();
    for (int l = 0; l < r->n_layer(); ++l) {
      // A streamed layer as the screen shows it: its q and k made from its input (LayerWithExactRows).
      const LayerMaps shown = ExactLayer(*r, l);
      for (int h = 0; h < c.n_head; ++h)
        for (auto [i, j] : {std::pair<int, int>{n - 1, 1}, {n / 2, n / 3}, {3, 3}, {2, n - 1}}) {
          Result<model::NeuronView> v = NeuronOf(*r, l, h, i, j);
          ASSERT_TRUE(v) << v.message();
          EXPECT_EQ(v->q.size(), (size_t)c.d_head);
          const LayerMaps& maps = *r->layers[(size_t)l];
          const float cell = stream ? ExactAt(shown.Source(1), nullptr, h, i, j).prob
                                    : maps.probs->data[((size_t)h * n + i) * n + j];
          if (stream) EXPECT_NEAR(v->prob, cell, 1e-6) << l << ":" << h << ":" << i << ":" << j;
          else EXPECT_EQ(v->prob, cell) << l << ":" << h << ":" << i << ":" << j;  // the pass's own number
          EXPECT_EQ(v->masked, maps.mask.Masked(i, j, n));
          EXPECT_NEAR(v->logit, v->score * v->scale, 1e-9 * (1 + std::fabs(v->logit)));
        }
    }
    EXPECT_FALSE(NeuronOf(*r, 0, c.n_head, 0, 0));  // out of range: refused, named
    EXPECT_FALSE(NeuronOf(*r, 0, 0, n, 0));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SessionAnalysis, ::testing::Values("gpt2", "llama", "bert"));

TEST(SessionAnalysisKinds, AWhatIfResumedAtALaterLayerKeepsTheRolloutOfAFreshRun) {
  for (bool stream : {false, true}) {
    SCOPED_TRACE(stream ? "streamed" : "whole maps");
    ModelSession session(OpenModelFolder), fresh(OpenModelFolder);
    if (stream) session.set_stream_above_cells(0), fresh.set_stream_above_cells(0);
    ModelRequest request;
    request.folder = Open(session, "llama");
    request.text = kText;
    const auto before = RunOnce(session, request);
    ASSERT_TRUE(before);
    const int L = before->n_layer();
    ModelRequest what_if = request;
    what_if.temperature = 0.5f;
    what_if.whatif_layers = {L - 1};
    const auto after = RunOnce(session, what_if);
    ASSERT_TRUE(after);
    ASSERT_EQ(after->resumed_from, L - 1);  // the rollout state: the earlier run's R below it
    EXPECT_EQ(after->analysis[0], before->analysis[0]);  // shared
    what_if.folder = Open(fresh, "llama");
    const auto want = RunOnce(fresh, what_if);
    ASSERT_TRUE(want);
    const Tensor& got = *after->analysis[(size_t)L - 1]->rollout;
    const Tensor& exp = *want->analysis[(size_t)L - 1]->rollout;
    ASSERT_EQ(got.shape, exp.shape);
    for (size_t c = 0; c < got.size(); ++c) ASSERT_NEAR(got.data[c], exp.data[c], 1e-5f) << c;
    // And the what-if changed it (the last layer's maps are another temperature's).
    const Tensor& old = *before->analysis[(size_t)L - 1]->rollout;
    double diff = 0;
    for (size_t c = 0; c < got.size(); ++c) diff += std::fabs(got.data[c] - old.data[c]);
    EXPECT_GT(diff, 1e-4);
  }
}

TEST(SessionAnalysisKinds, DisplayIndicesMapBackPastHiddenSpecialTokens) {
  ModelSession session(OpenModelFolder);
  auto run = RunBoth(session, "bert");  // [CLS] ... [SEP]
  ASSERT_TRUE(run);
  const ModelResult& r = *run->result;
  const int n = (int)r.tokens.size();
  ASSERT_TRUE(r.tokens.front().special && r.tokens.back().special);
  const std::vector<int> shown = DisplayPositions(r, /*hide_special=*/true);
  ASSERT_EQ((int)shown.size(), n - 2);
  EXPECT_EQ(shown.front(), 1);
  EXPECT_EQ(shown.back(), n - 2);
  std::vector<int> all = DisplayPositions(r, false);
  ASSERT_EQ((int)all.size(), n);
  for (int p = 0; p < n; ++p) EXPECT_EQ(all[(size_t)p], p);
  // Display cell (a, b) of the hidden-special maps is model cell (shown[a], shown[b]), for every kind.
  const int m = (int)shown.size();
  for (MapKind kind : {MapKind::kAttention, MapKind::kValueWeighted, MapKind::kRollout}) {
    SCOPED_TRACE(MapKindName(kind));
    const LayerMaps cut = *KindLayerForDisplay(r, 1, kind, true), full = *KindLayerForDisplay(r, 1, kind, false);
    ASSERT_EQ(cut.n_q(), m);
    ASSERT_EQ(cut.kv_tokens.size(), (size_t)m);
    for (int h = 0; h < cut.n_head(); ++h)
      for (int a = 0; a < m; ++a)
        for (int b = 0; b < m; ++b)
          ASSERT_EQ(cut.probs->data[((size_t)h * m + a) * m + b],
                    full.probs->data[((size_t)h * n + shown[(size_t)a]) * n + shown[(size_t)b]]);
    EXPECT_EQ(cut.kv_tokens[0].display, full.kv_tokens[(size_t)shown[0]].display);
  }
  // The neuron view of display cell (a, b) is that model cell's.
  Result<model::NeuronView> v = NeuronOf(r, 1, 2, shown[3], shown[0]);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->prob, KindLayerForDisplay(r, 1, MapKind::kAttention, true)->probs->data[((size_t)2 * m + 3) * m + 0]);
}

TEST(SessionAnalysisKinds, StreamedRunsMakeRolloutFromTheirBlocksAndValueWeightedOnDemand) {
  for (const char* fixture : {"llama", "gpt2"}) {
    SCOPED_TRACE(fixture);
    StreamedAndWhole runs(fixture);
    auto r = runs.streamed, w = runs.whole;
    ASSERT_TRUE(r && r->streamed);
    ASSERT_TRUE(w && !w->streamed);
    // Rollout: from the head mean the streamed blocks add up, as a run that keeps whole maps makes it.
    EXPECT_TRUE(MapKindRefusal(*r, MapKind::kRollout).empty());
    for (int l = 0; l < r->n_layer(); ++l) {
      const LayerMaps got = *KindLayerForDisplay(*r, l, MapKind::kRollout, false);
      const LayerMaps want = *KindLayerForDisplay(*w, l, MapKind::kRollout, false);
      ASSERT_EQ(got.n_head(), 1);
      EXPECT_FALSE(got.pooled);
      ASSERT_EQ(got.probs->shape, want.probs->shape);
      for (size_t c = 0; c < want.probs->size(); ++c) ASSERT_NEAR(got.probs->data[c], want.probs->data[c], 1e-5f) << l << ": " << c;
    }
    // Value-weighted: not refused; made per layer on demand (StreamedValueWeightedPyramidsEqualTheWholeRunsMaps). Until
    // then the panels show the attention maps, and the export has no stack of a streamed run.
    EXPECT_TRUE(MapKindRefusal(*r, MapKind::kValueWeighted).empty());
    EXPECT_TRUE(MapKindRefusal(*r, MapKind::kAttention).empty());
    const LayerMaps t = *KindLayerForDisplay(*r, 0, MapKind::kValueWeighted, false);
    EXPECT_EQ(t.n_head(), r->layers[0]->n_head());
    EXPECT_TRUE(t.pooled);
    EXPECT_TRUE(t.col_scale->empty());
    EXPECT_EQ(t.pyramid, r->layers[0]->pyramid);  // the attention maps
    EXPECT_TRUE(ValueWeightedPending(*r, 0, MapKind::kValueWeighted, nullptr));
    EXPECT_TRUE(StackedHeads(KindStack(*r, MapKind::kValueWeighted, false)).probs->empty());
  }
  // Longer than kRolloutMaxTokens: not refused, pooled (PooledRolloutMatchesTheCore).
  EXPECT_TRUE(RolloutRefusalMessage(kRolloutMaxTokens).empty());
  EXPECT_TRUE(RolloutRefusalMessage(kRolloutMaxTokens + 1).empty());
  EXPECT_TRUE(RolloutRefusalMessage(8192).empty());
  EXPECT_EQ(RolloutFactor(kRolloutMaxTokens), 1);
  EXPECT_EQ(RolloutFactor(kRolloutMaxTokens + 1), 2);
}

// The llama fixture with room for more than kRolloutMaxTokens positions (RoPE: no position table to grow), in a
// temporary folder.
std::string LongLlamaFixture() {
  return PatchedE2eFixture("llama", ::testing::TempDir() + "/attnviz_long_llama", "\"max_position_embeddings\": 128",
                           "\"max_position_embeddings\": 4096");
}


TEST(SessionAnalysisKinds, APooledRolloutOfALongInputMatchesTheCoresPooledRollout) {
  const std::string dir = LongLlamaFixture();
  std::string text;
  while (text.size() < 2200) text += kText, text += " ";  // about 1150 tokens: f = 2
  ModelSession streamed(OpenModelFolder), whole(OpenModelFolder), fresh(OpenModelFolder);
  streamed.set_stream_above_cells(0), fresh.set_stream_above_cells(0);
  ModelRequest request;
  request.text = text;
  streamed.Open(dir);
  ASSERT_TRUE(streamed.WaitIdle(60));
  request.folder = streamed.folder();
  ASSERT_TRUE(request.folder) << OpenErrorText(streamed);
  auto s = RunOnce(streamed, request);
  ASSERT_TRUE(s && s->streamed);
  const int n = (int)s->tokens.size(), f = RolloutFactor(n), nb = model::RolloutBlocks(n, f);
  ASSERT_GT(n, kRolloutMaxTokens);
  ASSERT_LE(n, 2 * kRolloutMaxTokens);
  ASSERT_EQ(f, 2);
  EXPECT_TRUE(MapKindRefusal(*s, MapKind::kRollout).empty());
  whole.Open(dir);
  ASSERT_TRUE(whole.WaitIdle(60));
  request.folder = whole.folder();
  auto w = RunOnce(whole, request);
  ASSERT_TRUE(w && !w->streamed);
  // The core's pooled rollout of the same maps (the whole run's tokens; the run itself, not the session).
  const model::Model& m = *request.folder->model;
  LayerProbsSink core;
  ASSERT_TRUE(model::RunModel(m, TokenIds(w->tokens), WhatIfRunOptions(request.what_ifs(), m.config().n_layer), &core).ok());
  model::PooledRolloutRows rows(n, f);
  model::Rollout rollout(nb);
  std::vector<float> mean((size_t)nb * nb), want((size_t)nb * nb);
  for (int l = 0; l < s->n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    rows.AddMap(core.probs[(size_t)l].data(), m.config().n_head);
    rows.TakeMean(m.config().n_head, mean.data());
    rollout.AddMeanLayer(mean.data(), want.data());
    for (const ModelResult* r : {s.get(), w.get()}) {
      const LayerAnalysis& a = *r->analysis[(size_t)l];
      EXPECT_EQ(a.rollout_factor, f);
      ASSERT_EQ(a.rollout->shape, (std::vector<size_t>{1, (size_t)nb, (size_t)nb}));
      for (int I = 0; I < nb; ++I) {
        double sum = 0;
        for (int J = 0; J < nb; ++J) sum += a.rollout->data[(size_t)I * nb + J];
        ASSERT_NEAR(sum, 1.0, 1e-5) << "block row " << I;
      }
      for (size_t c = 0; c < want.size(); ++c) ASSERT_NEAR(a.rollout->data[c], want[c], 1e-5f) << c;
      // As the panels draw it: every token, pooled, one head; the base cells are R' per covered column.
      const LayerMaps t = *KindLayerForDisplay(*r, l, MapKind::kRollout, true);
      EXPECT_TRUE(t.pooled);
      EXPECT_TRUE(t.probs->empty() && t.q->empty() && t.k->empty());
      ASSERT_TRUE(t.pyramid);
      EXPECT_EQ(t.n_head(), 1);
      EXPECT_EQ(t.n_q(), n);
      EXPECT_EQ((int)t.kv_tokens.size(), n);
      EXPECT_EQ(t.pyramid->levels()[0].factor, f);
      EXPECT_FLOAT_EQ(t.pyramid->levels()[0].mean[(size_t)(nb - 1) * nb + 3], want[(size_t)(nb - 1) * nb + 3] / f);
      // Zoomed in to single tokens: the pooled cells, nothing exact to hover.
      const ViewImage v = ComposeView(t.Source(1), 0, MapWindow{n - 8, n, 0, 8}, 8, 8, PoolKind::kMax);
      EXPECT_EQ(v.level, 0);
      EXPECT_FLOAT_EQ(v.values[0], want[(size_t)((n - 8) / f) * nb] / f);
      EXPECT_TRUE(std::isnan(ExactAt(t.Source(1), nullptr, 0, n - 1, 0).prob));
    }
  }
  EXPECT_TRUE(StackedHeads(KindStack(*w, MapKind::kRollout, false)).probs->empty());  // no whole maps to stack
  // The export's maps of a pooled rollout: its cells [1, nb, nb], named by the tokens each covers, and a figure
  // whose title says how many tokens a cell holds; written as .npy, R' itself.
  const int last = s->n_layer() - 1;
  const LayerMaps blocks = PooledRolloutBlocks(*s, last);
  EXPECT_EQ(blocks.probs, s->analysis[(size_t)last]->rollout);
  ASSERT_EQ((int)blocks.kv_tokens.size(), nb);
  EXPECT_EQ(blocks.kv_tokens[1].display, "2-3");
  EXPECT_EQ(blocks.kv_tokens[(size_t)nb - 1].display, std::to_string((nb - 1) * f) + "-" + std::to_string(n - 1));
  EXPECT_TRUE(blocks.mask.causal());
  const model::ModelConfig& c = request.folder->model->config();
  Result<ModelHeadFigure> figure = MakeModelHeadFigure(c, blocks, n, last, 0, {}, MapKind::kRollout, f);
  ASSERT_TRUE(figure) << figure.message();
  EXPECT_NE(figure->title.find("rollout \u00B7 2 tokens per cell"), std::string::npos) << figure->title;
  EXPECT_FALSE(MakeModelHeadFigure(c, blocks, n, last, 1, {}, MapKind::kRollout, f)) << "a rollout has one map";
  HeatmapExportOptions o;
  o.out_path = ::testing::TempDir() + "/attnviz_pooled_rollout.npy";
  ASSERT_TRUE(ExportHeatmap(figure->maps, nullptr, o).ok());
  Result<Tensor> written = ReadNpy(o.out_path);
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(written->shape, (std::vector<size_t>{(size_t)nb, (size_t)nb}));
  EXPECT_EQ(written->data, s->analysis[(size_t)last]->rollout->data);
  std::filesystem::remove(o.out_path);
  // A what-if resumed at the last layer goes on from the earlier (streamed) run's R' at block level, as a fresh
  // run makes it.
  fresh.Open(dir);
  ASSERT_TRUE(fresh.WaitIdle(60));
  const int L = s->n_layer();
  ModelRequest what_if = request;
  what_if.folder = streamed.folder();
  what_if.temperature = 0.5f;
  what_if.whatif_layers = {L - 1};
  auto after = RunOnce(streamed, what_if);
  ASSERT_TRUE(after);
  ASSERT_EQ(after->resumed_from, L - 1);
  what_if.folder = fresh.folder();
  auto exp = RunOnce(fresh, what_if);
  ASSERT_TRUE(exp);
  const Tensor& got = *after->analysis[(size_t)L - 1]->rollout;
  ASSERT_EQ(got.shape, exp->analysis[(size_t)L - 1]->rollout->shape);
  for (size_t c = 0; c < got.size(); ++c) ASSERT_NEAR(got.data[c], exp->analysis[(size_t)L - 1]->rollout->data[c], 1e-5f) << c;
}

// A streamed run's value-weighted layer, as the Heads panel gets it (MakeExactRows with value_weighted): its pyramid
// equals the pyramid of the whole run's probs * value norms, and its exact cells (zoomed in, hover) are probs * norms.
TEST(SessionAnalysisKinds, StreamedValueWeightedPyramidsEqualTheWholeRunsMaps) {
  for (const char* fixture : {"llama", "gpt2"}) {
    SCOPED_TRACE(fixture);
    StreamedAndWhole runs(fixture);
    auto r = runs.streamed, w = runs.whole;
    ASSERT_TRUE(r && r->streamed);
    ASSERT_TRUE(w && !w->streamed);
    const int n = (int)r->tokens.size();
    for (int l = 0; l < r->n_layer(); ++l) {
      SCOPED_TRACE("layer " + std::to_string(l));
      // The whole run's value-weighted maps [n_head, n, n] = probs * norms, pooled as the streamed layer keeps them.
      const LayerMaps want_maps = *KindLayerForDisplay(*w, l, MapKind::kValueWeighted, false);
      const int n_head = want_maps.n_head();
      ASSERT_EQ(want_maps.probs->size(), (size_t)n_head * n * n);
      MapPyramid want;
      want.Reset(n_head, n, n, MapPyramid::BaseFactor(n_head, n, n));
      want.AddMap(*want_maps.probs);
      want.Finish();
      const int kept = r->layers[(size_t)l]->pyramid->levels().front().factor;
      want = want.Coarsened(kept);

      // The background job, as the app asks for it.
      runs.streamed_session.MakeExactRows(r, l, /*value_weighted=*/true);
      ASSERT_TRUE(runs.streamed_session.WaitIdle(60));
      std::shared_ptr<const ExactRows> made = runs.streamed_session.exact_rows();
      ASSERT_TRUE(made && made->status.ok()) << (made ? made->status.message() : "none");
      ASSERT_TRUE(made->weighted);
      ASSERT_TRUE(made->For(*r, l));
      const MapPyramid& got = *made->weighted;
      ASSERT_EQ(got.levels().size(), want.levels().size());
      for (size_t v = 0; v < want.levels().size(); ++v) {
        const PyramidLevel &a = want.levels()[v], &b = got.levels()[v];
        ASSERT_EQ(a.factor, b.factor);
        ASSERT_EQ(a.max.size(), b.max.size());
        for (size_t c = 0; c < a.max.size(); ++c) {
          ASSERT_NEAR(b.max[c], a.max[c], 1e-5 * (1 + std::fabs(a.max[c]))) << "level " << v << " cell " << c;
          ASSERT_NEAR(b.mean[c], a.mean[c], 1e-5 * (1 + std::fabs(a.mean[c]))) << "level " << v << " cell " << c;
        }
      }
      for (int h = 0; h < n_head; ++h) EXPECT_NEAR(got.head_max(h), want.head_max(h), 1e-5 * (1 + want.head_max(h)));

      // The layer as the Heads panel then draws it: pooled, the weighted pyramid, exact cells times the norms.
      EXPECT_FALSE(ValueWeightedPending(*r, l, MapKind::kValueWeighted, made.get()));
      const LayerMaps t = *KindLayerForDisplay(*r, l, MapKind::kValueWeighted, false, made.get());
      ASSERT_TRUE(t.pooled);
      EXPECT_EQ(t.pyramid, made->weighted);
      EXPECT_EQ(t.col_scale, r->analysis[(size_t)l]->value_norms);
      const MapSource src = t.Source(1);
      auto cell = [&](int h, int i, int j) { return want_maps.probs->data[((size_t)h * n + i) * n + j]; };
      for (int h = 0; h < n_head; ++h) {
        const MapWindow window{0, std::min(n, 12), n - std::min(n, 12), n};
        const ViewImage v = ComposeView(src, h, window, 64, 64, PoolKind::kMax);  // zoomed in: cell for cell
        ASSERT_TRUE(v.exact());
        for (int y = 0; y < v.height; ++y)
          for (int x = 0; x < v.width; ++x) {
            const int i = window.r0 + y, j = window.c0 + x;
            const float value = v.values[(size_t)y * v.width + x];
            if (t.mask.Masked(i, j, n)) ASSERT_TRUE(std::isnan(value)) << i << "," << j;
            else ASSERT_NEAR(value, cell(h, i, j), 1e-5 * (1 + std::fabs(cell(h, i, j)))) << i << "," << j;
          }
        for (auto [i, j] : {std::pair<int, int>{n - 1, 0}, {n / 2, n / 3}, {5, 2}}) {
          const float hover = ExactAt(src, nullptr, h, i, j).prob;
          ASSERT_NEAR(hover, cell(h, i, j), 1e-5 * (1 + std::fabs(cell(h, i, j)))) << i << "," << j;
        }
      }
    }
    // Another layer's pyramid is not this one's.
    if (r->n_layer() > 1) EXPECT_TRUE(ValueWeightedPending(*r, 0, MapKind::kValueWeighted, runs.streamed_session.exact_rows().get()));
  }
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// ModelSession::MakeWeightedOverview: every layer of a streamed run, published as each is made, equal to the whole
// run's value-weighted maps pooled to the thumbnails' level; refused for a run that keeps whole maps.
TEST(SessionAnalysisKinds, TheWeightedOverviewOfAStreamedRunPoolsTheWholeRunsValueWeightedMaps) {
  StreamedAndWhole runs("llama");
  auto r = runs.streamed, w = runs.whole;
  ASSERT_TRUE(r && r->streamed && w && !w->streamed);
  runs.streamed_session.MakeWeightedOverview(r);
  ASSERT_TRUE(runs.streamed_session.WaitIdle(60));
  const std::shared_ptr<const WeightedOverview> made = runs.streamed_session.weighted_overview();
  ASSERT_TRUE(made && made->complete()) << (made ? made->status.message() : "none");
  const int n = (int)r->tokens.size();
  for (int l = 0; l < r->n_layer(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const LayerMaps want_maps = *KindLayerForDisplay(*w, l, MapKind::kValueWeighted, false);
    const int n_head = want_maps.n_head();
    MapPyramid want;
    want.Reset(n_head, n, n, MapPyramid::BaseFactor(n_head, n, n));
    want.AddMap(*want_maps.probs);
    want.Finish();
    want = want.Coarsened(ThumbnailFactor(n));
    const MapPyramid& got = *made->layers[(size_t)l];
    ASSERT_EQ(got.levels().size(), want.levels().size());
    for (size_t v = 0; v < want.levels().size(); ++v) {
      ASSERT_EQ(got.levels()[v].factor, want.levels()[v].factor);
      for (size_t c = 0; c < want.levels()[v].mean.size(); ++c) {
        ASSERT_NEAR(got.levels()[v].mean[c], want.levels()[v].mean[c], 1e-5f) << v << ": " << c;
        ASSERT_NEAR(got.levels()[v].max[c], want.levels()[v].max[c], 1e-5f) << v << ": " << c;
      }
    }
  }
  EXPECT_TRUE(made->request.Of(r));
  // Neither the queue's last request nor its answer keeps the run asked of (and so its maps) alive.
  auto asked = std::make_shared<ModelResult>(*r);
  runs.streamed_session.MakeWeightedOverview(asked);
  ASSERT_TRUE(runs.streamed_session.WaitIdle(60));
  ASSERT_TRUE(runs.streamed_session.weighted_overview()->request.Of(asked));
  const std::weak_ptr<const ModelResult> gone = asked;
  asked.reset();
  EXPECT_TRUE(gone.expired());
  EXPECT_FALSE(runs.streamed_session.weighted_overview()->request.Of(r));
  // A whole-map run has its value-weighted maps already: the job says so rather than make them again.
  runs.whole_session.MakeWeightedOverview(w);
  ASSERT_TRUE(runs.whole_session.WaitIdle(60));
  ASSERT_TRUE(runs.whole_session.weighted_overview());
  EXPECT_FALSE(runs.whole_session.weighted_overview()->status.ok());
}

TEST(SessionAnalysisKinds, ThumbnailFactorIsTheSmallestPowerOfTwoThatFits) {
  EXPECT_EQ(ThumbnailFactor(1), 1);
  EXPECT_EQ(ThumbnailFactor(kThumbnailCells), 1);
  EXPECT_EQ(ThumbnailFactor(kThumbnailCells + 1), 2);
  EXPECT_EQ(ThumbnailFactor(8192), 128);  // ceil(8192 / 128) = 64 <= 96 < ceil(8192 / 64) = 128
}

}  // namespace
}  // namespace attnviz
