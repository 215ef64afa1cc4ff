// Panels drawn from a PanelContext built without an App: an ImGui context, settings, a sandbox result made by a
// Pipeline here, fake verbs that record what a panel asks for, and a fake renderer.
#include <gtest/gtest.h>
#include <imgui.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app.h"
#include "panel_context.h"
#include "sandbox/pipeline.h"

namespace attnviz {
namespace {

class CountingRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey& key, const HeatmapImage& image, int, int) override {
    ++calls[key];
    return (ImTextureID)(intptr_t)1;
  }
  std::string error() const override { return ""; }
  std::map<HeatmapKey, int> calls;
};

// Verbs that record the calls a panel makes; the reads answer "nothing running".
class RecordingVerbs : public PanelVerbs {
 public:
  void CycleHead(int direction) override { cycled.push_back(direction); }
  void SetSource(Source) override {}
  void OpenModel(const std::string& dir) override { opened.push_back(dir); }
  void SetLanguage(Lang) override {}
  void OpenNeuronView(int, int, int) override {}
  void SetHeadAblated(int, int, bool) override {}
  void RestoreAllHeads() override {}
  void StartAblationScan() override {}
  void CancelAblationScan() override {}
  void StartExport(const std::string& path, std::function<Status()> job) override {
    exports.push_back(path);
    export_jobs_given += job != nullptr;
  }
  JobProgress SandboxProgress() const override { return {}; }
  JobProgress SweepProgress() const override { return {}; }
  bool Exporting() const override { return false; }
  std::shared_ptr<const ModelFolder> ModelFolderOpen() const override { return nullptr; }
  bool ModelOpening() const override { return false; }
  ModelProgress ModelRunProgress() const override { return {}; }
  std::string ModelOpenError() const override { return ""; }
  std::shared_ptr<const WeightedOverview> WeightedOverviewMade() const override { return nullptr; }
  bool AblationScanBusy() const override { return false; }
  std::string AblationScanProgress(float*) const override { return ""; }
  ColorRange RangeFor(const std::vector<int>&, bool) const override { return ColorRange{}; }
  std::shared_ptr<const AblationScanResult> ShownScan() const override { return nullptr; }
  const AttentionTensors& OverviewLayer(int, bool) override { return none_; }

  std::vector<int> cycled;
  std::vector<std::string> opened, exports;
  int export_jobs_given = 0;

 private:
  AttentionTensors none_;
};

class PanelContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 800);
    io.DeltaTime = 1.0f / 60.0f;
    io.Fonts->AddFontDefault();
    io.Fonts->Build();
    io.Fonts->SetTexID((ImTextureID)(intptr_t)1);
    dump.set_enabled(true);
    // A sandbox result, as the worker would publish it.
    settings.config.n_head = 4;
    Pipeline pipeline;
    ASSERT_TRUE(pipeline.SetText("I go home.").ok());
    ASSERT_TRUE(pipeline.SetConfig(settings.config).ok());
    ASSERT_TRUE(pipeline.Run(Stage::kOutput).ok());
    auto result = std::make_shared<ComputeResult>();
    result->generation = 1;
    result->request.config = settings.config;
    result->tensors = pipeline.tensors();
    results.shown = result;
  }
  void TearDown() override { ImGui::DestroyContext(); }

  PanelContext Context() {
    PanelContext c{settings, results, views, dump, layout, verbs};
    c.renderer = &renderer;
    return c;
  }
  // One frame of `draw`, the mouse at `mouse` (pressed when `down`).
  template <typename Draw>
  void Frame(Draw draw, ImVec2 mouse = ImVec2(-1, -1), bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    dump.BeginFrame(frame++);
    ImGui::NewFrame();
    layout.BeginFrame(PanelRect{0.0f, 0.0f, io.DisplaySize.x, io.DisplaySize.y});
    PanelContext c = Context();
    draw(c);
    ImGui::Render();
  }
  template <typename Draw>
  void Click(Draw draw, const std::string& widget) {
    const WidgetDump::Widget* w = dump.Find(widget);
    ASSERT_NE(w, nullptr) << widget;
    const ImVec2 at((w->x0 + w->x1) * 0.5f, (w->y0 + w->y1) * 0.5f);
    Frame(draw, at);
    Frame(draw, at, true);
    Frame(draw, at);
    Frame(draw, at);
  }

  AppSettings settings;
  AppResults results;
  PanelViews views;
  WidgetDump dump;
  WindowLayout layout;
  RecordingVerbs verbs;
  CountingRenderer renderer;
  uint64_t frame = 0;
};

TEST_F(PanelContextTest, HeadsPanelDrawsEveryVisibleHeadAndAClickEnlargesIt) {
  settings.head_hidden[1] = true;
  auto draw = [](PanelContext& c) { DrawHeadsPanel(c); };
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

TEST_F(PanelContextTest, ExportPanelsButtonCallsTheExportVerb) {
  auto draw = [](PanelContext& c) { DrawExportPanel(c); };
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
  auto draw = [](PanelContext& c) { DrawModelPanel(c); };
  Frame(draw);
  Frame(draw);
  Click(draw, "model.open");
  ASSERT_EQ(verbs.opened.size(), 1u);
  EXPECT_EQ(verbs.opened[0], "/no/such/model");
}

}  // namespace
}  // namespace attnviz
