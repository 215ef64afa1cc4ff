// The score twists in the app (core/model/arch/qwen3.cpp, gemma.cpp): the Model panel offers a model's own what-ifs
// (no attention soft cap on gemma2, no q/k norms on qwen3) and no other's, each changes the run as the core's run
// with the same option does, and the neuron view shows the steps they act on (q and k before the norms, whole or
// streamed; the uncapped logit and the cap). The numbers themselves are checked against torch in tests/model.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "app.h"
#include "app_driver.h"
#include "model/analysis.h"
#include "model/run.h"
#include "model_analysis.h"
#include "model_session_test_util.h"

namespace attnviz {
namespace {

class NullRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

// Eleven tokens: the ids 5, 9, 2, ... of the fixture's vocabulary (model_session_test_util.h WithWordIdTokenizer).
const char* kWords = "w5 w9 w2 w17 w33 w8 w41 w12 w3 w27 w19";

class ScoreTwistPanelTest : public AppDriver<NullRenderer> {
 protected:
  void SetUp() override {
    AppDriver::SetUp();
    char pattern[] = "/tmp/attnviz-score-twists-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    AppDriver::TearDown();
    std::filesystem::remove_all(dir_);
  }
  App& Open(const std::string& fixture) {
    AppOptions options;
    options.input.text = kWords;
    options.input.model_dir = testing::WithWordIdTokenizer(fixture, dir_ + "/" + fixture);
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    Frames(4);
    EXPECT_TRUE(app_->results.model) << app_->results.model_error << OpenErrorText(*app_->models);
    return *app_;
  }
  // The core's run of the same ids with `options`: what the app's run must show.
  model::ModelRun CoreRun(const App& app, const model::RunOptions& options) {
    const ModelResult& r = *app.results.model;
    std::vector<int> ids;
    for (const auto& t : r.tokens) ids.push_back(t.id);
    auto run = model::RunModel(*r.request.folder->model, ids, options);
    EXPECT_TRUE(run.ok()) << run.message();
    return std::move(*run);
  }
  std::string dir_;
};

TEST_F(ScoreTwistPanelTest, Gemma2OffersTheSoftCapWhatIfAndShowsTheCapInTheNeuronView) {
  App& app = Open("gemma2");
  ASSERT_TRUE(app.results.model);
  EXPECT_NE(app.dump.Find("model.no_softcap"), nullptr) << "gemma2 has an attention soft cap to remove";
  EXPECT_EQ(app.dump.Find("model.no_qk_norm"), nullptr) << "gemma2 has no q/k norms";
  const int n_layer = app.results.model->n_layer();
  // The checkbox as a person clicks it: the run follows, equal to the core's run without the cap.
  Click("model.no_softcap");
  Frames(4);
  ASSERT_TRUE(app.settings.model_no_softcap);
  ASSERT_TRUE(app.results.model->request.no_softcap);
  model::RunOptions uncapped;
  uncapped.no_softcap.assign((size_t)n_layer, true);
  const model::ModelRun want = CoreRun(app, uncapped), plain = CoreRun(app, {});
  const size_t per = want.probs.size() / n_layer;
  float moved = 0;
  for (int l = 0; l < n_layer; ++l) {
    const Tensor& got = *app.results.model->layers[(size_t)l]->probs;
    ASSERT_EQ(got.size(), per);
    for (size_t t = 0; t < per; ++t) {
      ASSERT_NEAR(got.data[t], want.probs.data[l * per + t], 1e-6) << "layer " << l;
      moved = std::max(moved, std::fabs(got.data[t] - plain.probs.data[l * per + t]));
    }
  }
  EXPECT_GT(moved, 1e-2f) << "removing the cap changed nothing";
  // Back on: the neuron view of a visible cell shows the uncapped logit and the cap, and they make the logit.
  Click("model.no_softcap");
  Frames(4);
  ASSERT_FALSE(app.results.model->request.no_softcap);
  const int n = (int)app.results.model->tokens.size();
  app.PanelContextFor(nullptr).verbs.OpenNeuronView(1, n - 1, n - 3);
  Frames(2);
  const std::string neuron = app.dump.Field("neuron");
  EXPECT_NE(neuron.find("\"softcap\": 2"), std::string::npos) << neuron;
  EXPECT_NE(neuron.find("\"scale_source\": \"query_pre_attn_scalar\""), std::string::npos) << neuron;
  Result<model::NeuronView> v = NeuronOf(*app.results.model, app.settings.model_layer, 1, n - 1, n - 3);
  ASSERT_TRUE(v) << v.message();
  EXPECT_NEAR(v->logit, 2.0 * std::tanh(v->uncapped_logit / 2.0), 1e-5);
  EXPECT_NEAR(v->uncapped_logit, v->score * v->scale, 1e-5 * (1 + std::fabs(v->uncapped_logit)));
}

TEST_F(ScoreTwistPanelTest, Qwen3OffersTheQkNormWhatIfAndShowsQAndKBeforeTheNormsWholeOrStreamed) {
  App& app = Open("qwen3");
  ASSERT_TRUE(app.results.model);
  EXPECT_NE(app.dump.Find("model.no_qk_norm"), nullptr);
  EXPECT_EQ(app.dump.Find("model.no_softcap"), nullptr);
  const int n_layer = app.results.model->n_layer();
  Click("model.no_qk_norm");
  Frames(4);
  ASSERT_TRUE(app.results.model->request.no_qk_norm);
  model::RunOptions skipped;
  skipped.no_qk_norm.assign((size_t)n_layer, true);
  const model::ModelRun want = CoreRun(app, skipped);
  const size_t per = want.probs.size() / n_layer;
  for (int l = 0; l < n_layer; ++l)
    for (size_t t = 0; t < per; ++t)
      ASSERT_NEAR(app.results.model->layers[(size_t)l]->probs->data[t], want.probs.data[l * per + t], 1e-6) << l;
  Click("model.no_qk_norm");
  Frames(4);
  ASSERT_FALSE(app.results.model->request.no_qk_norm);
  // The neuron view's q and k before the norms: kept by a whole-map run, made again for a streamed one; the same.
  const int n = (int)app.results.model->tokens.size();
  Result<model::NeuronView> whole = NeuronOf(*app.results.model, 1, 4, n - 1, 2);
  ASSERT_TRUE(whole) << whole.message();
  ASSERT_TRUE(whole->qk_norm);
  ASSERT_EQ(whole->q_before_norm.size(), 16u);
  app.models->set_stream_above_cells(0);
  app.settings.model_temperature = 0.999f;  // a new request, streamed
  Frames(4);
  ASSERT_TRUE(app.results.model->streamed);
  app.settings.model_temperature = 1.0f;
  Frames(4);
  ASSERT_TRUE(app.results.model->streamed);
  Result<model::NeuronView> streamed = NeuronOf(*app.results.model, 1, 4, n - 1, 2);
  ASSERT_TRUE(streamed) << streamed.message();
  ASSERT_TRUE(streamed->qk_norm);
  ASSERT_EQ(streamed->q_before_norm.size(), whole->q_before_norm.size());
  for (size_t t = 0; t < whole->q_before_norm.size(); ++t) {
    EXPECT_NEAR(streamed->q_before_norm[t], whole->q_before_norm[t], 1e-4) << t;
    EXPECT_NEAR(streamed->k_before_norm[t], whole->k_before_norm[t], 1e-4) << t;
  }
  // Normed: the q the score multiplies is not the projection's.
  float differs = 0;
  for (size_t t = 0; t < whole->q.size(); ++t) differs = std::max(differs, std::fabs(whole->q[t] - whole->q_before_norm[t]));
  EXPECT_GT(differs, 1e-3f);
  app.PanelContextFor(nullptr).verbs.OpenNeuronView(4, n - 1, 2);
  Frames(2);
  EXPECT_NE(app.dump.Field("neuron").find("\"qk_norm\": true"), std::string::npos) << app.dump.Field("neuron");
  EXPECT_NE(app.dump.Find("neuron.q_before_norm"), nullptr);
}

}  // namespace
}  // namespace attnviz
