// Panels drawn from a PanelContext built without an App (panel_fixture.h): settings, a sandbox result made by a
// Pipeline here, fake verbs that record what a panel asks for, and a fake renderer.
#include <gtest/gtest.h>
#include <imgui.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app.h"
#include "panel_context.h"
#include "panel_fixture.h"

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

}  // namespace
}  // namespace attnviz
