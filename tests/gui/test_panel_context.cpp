// Panels drawn from a PanelContext built without an App (panel_fixture.h): settings, a sandbox result made by a
// Pipeline here (a model run by a ModelSession here), fake verbs that record what a panel asks for, and a fake
// renderer.
#include <gtest/gtest.h>
#include <imgui.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app.h"
#include "io/json.h"
#include "model_folder.h"
#include "panel_context.h"
#include "panel_fixture.h"
#include "session/model_session.h"

namespace attnviz {
namespace {

class CountingRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey& key, const HeatmapImage& image, int, int) override {
    ++calls[key];
    versions[key] = image.data_version;
    values[key].assign(image.probs, image.probs + (size_t)image.n_q * (size_t)image.n_k);
    return (ImTextureID)(intptr_t)1;
  }
  std::string error() const override { return ""; }
  std::map<HeatmapKey, int> calls;
  std::map<HeatmapKey, uint64_t> versions;         // the last image's data_version, per key
  std::map<HeatmapKey, std::vector<float>> values;  // the last image's texels, per key
};

// Verbs that record the calls a panel makes; the reads answer "nothing running".
class RecordingVerbs : public PanelVerbs {
 public:
  void CycleHead(int direction) override { cycled.push_back(direction); }
  void SetSource(Source source) override { sources.push_back(source); }
  void OpenModel(const std::string& dir) override { opened.push_back(dir); }
  void SetLanguage(Lang) override {}
  void OpenNeuronView(int, int, int) override {}
  void SetHeadAblated(int, int, bool) override {}
  void RestoreAllHeads() override {}
  void StartAblationScan(std::vector<int>) override {}
  void CancelAblationScan() override {}
  void StartExport(const std::string& path, std::function<Status()> job) override {
    exports.push_back(path);
    export_jobs_given += job != nullptr;
  }
  JobProgress SandboxProgress() const override { return {}; }
  JobProgress SweepProgress() const override { return {}; }
  bool Exporting() const override { return false; }
  std::shared_ptr<const ModelFolder> ModelFolderOpen() const override { return folder; }
  bool ModelOpening() const override { return false; }
  ModelProgress ModelRunProgress() const override { return {}; }
  std::string ModelOpenError() const override { return ""; }
  std::shared_ptr<const WeightedOverview> WeightedOverviewMade() const override { return nullptr; }
  bool AblationScanBusy() const override { return false; }
  std::string AblationScanProgress(float*) const override { return ""; }
  ColorRange RangeFor(const std::vector<int>&, bool) const override { return ColorRange{}; }
  std::shared_ptr<const AblationScanResult> ShownScan() const override { return nullptr; }
  std::shared_ptr<const LayerMaps> OverviewLayer(int, bool) override { return nullptr; }
  void RequestLens(int first, int count) override { lens_requests.push_back({first, count}); }
  void CancelLens() override {}
  std::shared_ptr<const LensResult> ShownLens() const override { return nullptr; }
  bool LensBusy() const override { return false; }
  JobProgress LensProgress() const override { return {}; }
  void RequestAttribution(int, int) override {}
  std::shared_ptr<const AttributionResult> ShownAttribution() const override { return nullptr; }
  bool AttributionBusy() const override { return false; }
  void StartPatching(const std::string&, int, int) override {}
  void CancelPatching() override {}
  std::shared_ptr<const PatchingResult> ShownPatching() const override { return nullptr; }
  bool PatchingBusy() const override { return false; }
  JobProgress PatchingProgress() const override { return {}; }
  std::vector<std::pair<int, int>> lens_requests;

  std::vector<int> cycled;
  std::vector<Source> sources;
  std::shared_ptr<const ModelFolder> folder;  // the "open" model
  std::vector<std::string> opened, exports;
  int export_jobs_given = 0;
};

class PanelContextTest : public PanelFixture {
 protected:
  void SetUp() override {
    PanelFixture::SetUp();
    settings.config.n_head = 4;
    ShowSandboxResult("I go home.");
  }
  PanelContext Context() {
    PanelContext c{settings, results, views, dump, layout, verbs};
    c.renderer = &renderer;
    return c;
  }
  // `draw_panel` drawn from a fresh context each frame, as the App draws it.
  template <typename DrawPanel>
  auto Drawing(DrawPanel draw_panel) {
    return [this, draw_panel] {
      PanelContext c = Context();
      draw_panel(c);
    };
  }

  // results.model: a run of the e2e gpt2 fixture, and that folder as the one open.
  void RunModel(const std::string& text) {
    ModelSession session(OpenModelFolder);
    session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/gpt2");
    ASSERT_TRUE(session.WaitIdle(60));
    ASSERT_TRUE(session.folder()) << session.open_status().message();
    ModelRequest request;
    request.folder = session.folder();
    request.text = text;
    session.Submit(request);
    ASSERT_TRUE(session.WaitIdle(120));
    ASSERT_TRUE(session.latest() && session.latest()->complete());
    results.model = session.latest();
    verbs.folder = request.folder;
  }

  RecordingVerbs verbs;
  CountingRenderer renderer;
};

TEST_F(PanelContextTest, HeadsPanelDrawsEveryVisibleHeadAndAClickEnlargesIt) {
  settings.head_hidden[1] = true;
  auto draw = Drawing(DrawHeadsPanel);
  Frame(draw);
  Frame(draw);
  for (int h : {0, 2, 3}) {
    EXPECT_NE(dump.Find("heads.map." + std::to_string(h)), nullptr) << h;
    EXPECT_GT((renderer.calls[HeatmapKey{MapView::kGrid, 0, h, 0}]), 0) << h;
  }
  EXPECT_EQ(dump.Find("heads.map.1"), nullptr);  // hidden
  EXPECT_EQ((renderer.calls.count(HeatmapKey{MapView::kGrid, 0, 1, 0})), 0u);
  Click(draw, "heads.map.2");
  EXPECT_EQ(settings.selected_head, 2);
  EXPECT_TRUE(settings.enlarged);
  EXPECT_NE(dump.Find("heads.enlarged"), nullptr);
}

// Attention sinks: a model layer whose heads rest most of each row on the first token says so in the Heads panel,
// with the log scale one click away; the Overview names the run's mass on the first token. The gpt2 fixture's heads
// are no sinks, so the run's first-token scores are raised here (the panels read them from the roles).
TEST_F(PanelContextTest, SinksAreNamedWithTheLogScaleOneClickAway) {
  RunModel("The cat sat on the mat. The cat sat on the mat.");
  settings.source = Source::kModel;
  auto draw_heads = Drawing(DrawHeadsPanel);
  auto show = [this](std::shared_ptr<const ModelResult> r) {
    results.model = r;
    results.shown = ShownModelLayer(r, 0, MapKind::kAttention, false, r->layers[0], 7);
  };
  show(results.model);
  Frame(draw_heads);
  Frame(draw_heads);
  EXPECT_LT(std::stod(dump.Field("heads_sink_mass")), model::kSinkMass);
  EXPECT_EQ(dump.Find("heads.sink_log_scale"), nullptr);  // no sinks: no hint

  auto sunk = std::make_shared<ModelResult>(*results.model);
  for (int h = 0; h < sunk->roles.n_head; ++h) sunk->roles.at(0, h)[model::HeadRole::kFirstToken] = 0.9f;
  show(sunk);
  Frame(draw_heads);
  Frame(draw_heads);
  EXPECT_NEAR(std::stod(dump.Field("heads_sink_mass")), 0.9, 1e-6);
  ASSERT_NE(dump.Find("heads.sink_log_scale"), nullptr);
  Click(draw_heads, "heads.sink_log_scale");
  EXPECT_EQ(settings.color_scale, ColorScale::kLog);
  Frame(draw_heads);
  EXPECT_EQ(dump.Find("heads.sink_log_scale"), nullptr);  // on the log scale already

  auto draw_overview = Drawing(DrawOverviewPanel);
  Frame(draw_overview);
  Frame(draw_overview);
  const model::SinkSummary all = model::SummarizeSinks(sunk->roles);
  EXPECT_EQ(all.sinks, sunk->roles.n_head);  // layer 0's heads
  const std::string line = dump.Field("overview_sinks");
  EXPECT_NE(line.find(std::to_string(all.sinks) + " of " + std::to_string(all.heads) + " heads"), std::string::npos)
      << line;
}

// Redoing lesson (d) after d_k was changed by hand: the new run's scale-flipped twin may sit where the old twin was
// freed (the same tensor address, the same sizes) with other numbers. The scaled side's texture is handed the new
// numbers under its key with a new data version, so the GL renderer uploads and redraws it.
TEST_F(PanelContextTest, SideBySideRedrawsATwinWhoseNumbersChangedAtTheSameAddress) {
  settings.config.scale = false;  // lesson (d): the result unscaled, its twin scaled
  settings.side_by_side = true;
  settings.selected_head = 1;
  const std::string text = "I go home.";
  auto tensors_of = [&](int d_k, bool scale) {
    AttentionConfig c = settings.config;
    c.d_k = d_k;
    c.scale = scale;
    Pipeline pipeline;
    EXPECT_TRUE(pipeline.SetText(text).ok());
    EXPECT_TRUE(pipeline.SetConfig(c).ok());
    EXPECT_TRUE(pipeline.Run(Stage::kOutput).ok());
    return pipeline.tensors();
  };
  auto twin = std::make_shared<AttentionTensors>(tensors_of(512, true));
  auto show = [&](int d_k) {
    ComputeRequest request;
    request.kv_text = text;
    request.config = settings.config;
    request.config.d_k = d_k;
    const auto run = MakeSandboxRun(++generation, request, Status::Ok(),
                                    std::make_shared<const AttentionTensors>(tensors_of(d_k, false)), twin, 0);
    results.shown = ShownSandbox(*run, generation);
  };
  auto plane = [](const AttentionTensors& t, int h) {
    const size_t n = (size_t)t.n_q() * (size_t)t.n_k();
    return std::vector<float>(t.probs->data.begin() + (long)(h * n), t.probs->data.begin() + (long)((h + 1) * n));
  };
  const HeatmapKey scaled{MapView::kScaledSide, 0, 1, 1};  // the twin is the scaled side
  auto draw = Drawing(DrawHeadsPanel);
  show(512);
  Frames(draw, 2);
  ASSERT_NE(dump.Find("heads.scaled"), nullptr);
  ASSERT_GT(renderer.calls[scaled], 0);
  EXPECT_EQ(renderer.values[scaled], plane(*twin, 1));
  const uint64_t first_version = renderer.versions[scaled];

  // d_k by hand, then the lesson again: the new twin's numbers where the old twin's were.
  const AttentionTensors redone = tensors_of(16, true);
  ASSERT_NE(plane(redone, 1), plane(*twin, 1));
  const_cast<Tensor&>(*twin->probs).data = redone.probs->data;
  twin->multiplier = redone.multiplier;
  twin->d_qk = redone.d_qk;
  show(16);
  Frames(draw, 2);
  EXPECT_EQ(renderer.values[scaled], plane(redone, 1)) << "the scaled side still draws the old twin";
  EXPECT_NE(renderer.versions[scaled], first_version);
}

TEST_F(PanelContextTest, ExportPanelsButtonCallsTheExportVerb) {
  auto draw = Drawing(DrawExportPanel);
  Frame(draw);
  Frame(draw);
  ASSERT_TRUE(verbs.exports.empty());
  Click(draw, "export.button");
  ASSERT_EQ(verbs.exports.size(), 1u);
  EXPECT_NE(verbs.exports[0].find(".png"), std::string::npos) << verbs.exports[0];
  EXPECT_EQ(verbs.export_jobs_given, 1);
}

TEST_F(PanelContextTest, ModelPanelsOpenButtonCallsTheOpenVerb) {
  settings.source = Source::kModel;
  views.model.path_input = "/no/such/model";
  auto draw = Drawing(DrawModelPanel);
  Frame(draw);
  Frame(draw);
  Click(draw, "model.open");
  ASSERT_EQ(verbs.opened.size(), 1u);
  EXPECT_EQ(verbs.opened[0], "/no/such/model");
}

TEST_F(PanelContextTest, ControlsPanelEditsTheSettingsAndSwitchesToTheModelsByItsVerb) {
  auto draw = Drawing([](PanelContext& c) { DrawControlsPanel(c); });
  Frame(draw);
  Frame(draw);
  const WidgetDump::Widget* heads = dump.Find("controls.n_head");
  ASSERT_NE(heads, nullptr);
  EXPECT_EQ(heads->value_json, "4");  // the settings' n_head
  ASSERT_NE(dump.Find("controls.color_log"), nullptr);  // the picture knobs too
  ASSERT_TRUE(settings.config.scale);
  Click(draw, "controls.scale");
  EXPECT_FALSE(settings.config.scale);  // the panel edits the context's settings
  EXPECT_TRUE(verbs.sources.empty());
  Click(draw, "controls.trained_model");
  ASSERT_EQ(verbs.sources.size(), 1u);
  EXPECT_EQ(verbs.sources[0], Source::kModel);
}

TEST_F(PanelContextTest, ShapesPanelShowsTheShownResultsShapesAndHandsTheOtherTabsToTheirDrawers) {
  int numbers_drawn = 0;
  LearnTabDrawers others;
  others.numbers = [&numbers_drawn] {
    ++numbers_drawn;
    ImGui::TextUnformatted("numbers here");
  };
  auto draw = Drawing([&others](PanelContext& c) { DrawShapesPanel(c, others); });
  Frame(draw);
  Frame(draw);
  const int n = results.shown->maps->n_q();
  ASSERT_GT(n, 0);
  const WidgetDump::Widget* probs = dump.Find("shapes.probs");
  ASSERT_NE(probs, nullptr);
  EXPECT_EQ(probs->value_json, JsonString("[4, " + std::to_string(n) + ", " + std::to_string(n) + "]"));
  EXPECT_EQ(dump.Field("shapes_step_q"), JsonString("x W \xE2\x86\x92 [:, q]"));
  EXPECT_EQ(numbers_drawn, 0);  // the Shapes tab is open
  Click(draw, "learn.tab.numbers");
  EXPECT_GT(numbers_drawn, 0);
  EXPECT_EQ(views.learn.tab, LearnTab::kNumbers);
  // In model mode the Shapes tab shows the open model's tensors (the verbs say which model is open).
  RunModel("The cat sat on the mat.");
  settings.source = Source::kModel;
  views.learn.tab = LearnTab::kShapes;
  views.learn.tab_requested = 2;
  Frame(draw);
  Frame(draw);
  const model::ModelConfig& c = verbs.folder->model->config();
  const int tokens = (int)results.model->tokens.size();
  const WidgetDump::Widget* q = dump.Find("shapes.model.q = x W_q");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->value_json, JsonString("[" + std::to_string(c.n_head) + ", " + std::to_string(tokens) + ", " +
                                      std::to_string(c.d_head) + "]  [n_head, n, d_head]"));
}

TEST_F(PanelContextTest, NeuronViewOpensOnACellAndShowsItsScoreFromAContext) {
  RunModel("The cat sat on the mat.");
  settings.source = Source::kModel;
  auto draw = Drawing([](PanelContext& c) { DrawNeuronPanel(c); });
  Frame(draw);
  EXPECT_EQ(dump.Field("neuron"), "{\"open\": false}");
  Frame(Drawing([](PanelContext& c) { OpenNeuronView(c, 1, 3, 2); }));
  ASSERT_TRUE(views.neuron.open);
  EXPECT_EQ(views.neuron.head, 1);
  EXPECT_EQ(views.neuron.i, 3);
  EXPECT_EQ(views.neuron.j, 2);
  Frame(draw);
  Frame(draw);
  const std::string field = dump.Field("neuron");
  EXPECT_NE(field.find("\"open\": true"), std::string::npos) << field;
  EXPECT_NE(field.find("\"error\": \"\""), std::string::npos) << field;
  const int d_head = verbs.folder->model->config().d_head;
  EXPECT_NE(field.find("\"d_head\": " + std::to_string(d_head)), std::string::npos) << field;
  EXPECT_NE(field.find("\"masked\": false"), std::string::npos) << field;  // key 2 is before query 3
  // The cell's probability is the Heads map's: layer 0, head 1, row 3, key 2 of the run's own probs.
  const Tensor& probs = *results.model->layers[0]->probs;  // [n_head, n, n]
  const size_t n = probs.dim(1);
  EXPECT_NE(field.find("\"prob\": " + JsonNumber(probs.data[(1 * n + 3) * n + 2])), std::string::npos) << field;
  const WidgetDump::Widget* q = dump.Find("neuron.q");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->value_json.find("{\"d\": " + std::to_string(d_head)), 0u) << q->value_json;
}

}  // namespace
}  // namespace attnviz
