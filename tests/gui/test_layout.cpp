// The window layout without GL: panels placed from the window size, kept inside it when it shrinks,
// a saved layout with panels off screen pulled back in, and View > Reset layout / Ctrl+0.
#include <gtest/gtest.h>
#include <imgui.h>

#include <map>
#include <string>

#include "app.h"
#include "app_driver.h"
#include "layout.h"

namespace attnviz {
namespace {

TEST(Layout, FractionsOfTheWorkArea) {
  PanelRect area{0, 20, 800, 580};
  EXPECT_EQ(FractionRect(0.5f, 0.5f, 0.5f, 0.5f, area), (PanelRect{400, 310, 400, 290}));
  EXPECT_EQ(FractionRect(0, 0, 1, 1, area), area);
}

TEST(Layout, KeepInsideMovesThenShrinks) {
  PanelRect area{0, 20, 800, 580};
  EXPECT_EQ(KeepInside(PanelRect{-214, -60, 330, 472}, area), (PanelRect{0, 20, 330, 472}));
  EXPECT_EQ(KeepInside(PanelRect{900, 700, 200, 100}, area), (PanelRect{600, 500, 200, 100}));
  EXPECT_EQ(KeepInside(PanelRect{100, 100, 2000, 2000}, area), (PanelRect{0, 20, 800, 580}));
  PanelRect inside{10, 30, 100, 100};
  EXPECT_EQ(KeepInside(inside, area), inside);
}

class FakeRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

class LayoutTest : public AppDriver<FakeRenderer> {
 protected:
  App& MakeApp() {
    AppOptions options;
    options.input.text = "I go home.";
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    return *app_;
  }
  std::map<std::string, PanelRect> Panels() const {
    std::map<std::string, PanelRect> out;
    for (const WidgetDump::Widget& w : app_->dump.widgets())
      if (w.name.rfind("panel.", 0) == 0) out[w.name.substr(6)] = PanelRect{w.x0, w.y0, w.x1 - w.x0, w.y1 - w.y0};
    return out;
  }
  void ExpectAllInside(float width, float height) {
    std::map<std::string, PanelRect> panels = Panels();
    EXPECT_EQ(panels.size(), 6u);  // Controls, Sentences, Heads, Shapes, Saturation, Export
    float menu = app_->layout.area().y;
    EXPECT_GT(menu, 0.0f);  // below the menu bar
    for (const auto& [title, r] : panels) {
      EXPECT_GE(r.x, 0.0f) << title;
      EXPECT_GE(r.y, menu) << title;
      EXPECT_LE(r.x + r.w, width) << title;
      EXPECT_LE(r.y + r.h, height) << title;
    }
  }
  void Resize(float width, float height) {
    ImGui::GetIO().DisplaySize = ImVec2(width, height);
    Frames(3);
  }
};

TEST_F(LayoutTest, ShrinkingTheWindowKeepsEveryPanelInside) {
  MakeApp();
  Frames(3);
  ExpectAllInside(1280, 800);
  Resize(800, 600);
  ExpectAllInside(800, 600);
  // Laid out again from the new size: the right column ends at the window's right edge.
  EXPECT_NEAR(Panels()["Export"].x + Panels()["Export"].w, 800.0f, 2.0f);  // ImGui floors positions and sizes
  Resize(1400, 900);
  ExpectAllInside(1400, 900);
  EXPECT_NEAR(Panels()["Saturation"].x + Panels()["Saturation"].w, 1400.0f, 2.0f);
  EXPECT_NEAR(Panels()["Shapes"].y + Panels()["Shapes"].h, 900.0f, 2.0f);
}

TEST_F(LayoutTest, OffScreenSavedLayoutIsPulledBackIn) {
  const char* ini =
      "[Window][###Controls]\nPos=-214,-60\nSize=330,472\nCollapsed=0\n\n"
      "[Window][###Export]\nPos=1900,1200\nSize=360,280\nCollapsed=0\n\n"
      "[Window][###Heads]\nPos=100,100\nSize=3000,2000\nCollapsed=0\n\n";
  ImGui::LoadIniSettingsFromMemory(ini);
  MakeApp();
  Frames(3);
  ExpectAllInside(1280, 800);
  EXPECT_EQ(Panels()["Controls"].x, 0.0f);
  EXPECT_EQ(Panels()["Controls"].w, 330.0f);  // the saved size fits: kept
}

TEST_F(LayoutTest, ResetLayoutFromTheMenuAndCtrl0) {
  App& app = MakeApp();
  Frames(3);
  const PanelRect home = Panels()["Controls"];
  ImGui::SetWindowPos("###Controls", ImVec2(500, 300));
  Frames(2);
  EXPECT_EQ(Panels()["Controls"].x, 500.0f);
  Click("menu.view");
  Click("menu.view.reset_layout");
  EXPECT_EQ(Panels()["Controls"], home);
  ImGui::SetWindowPos("###Controls", ImVec2(400, 200));
  Frames(2);
  int layouts = app.layout.layouts();
  PressKey('0', /*ctrl=*/true);
  EXPECT_EQ(app.layout.layouts(), layouts + 1);
  Frames(1);
  EXPECT_EQ(Panels()["Controls"], home);
}

}  // namespace
}  // namespace attnviz
