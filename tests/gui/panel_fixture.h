// A panel drawn with no App: the tests' ImGui context (headless_imgui.h), the parts a panel context is built from
// (settings, results, view state, the widget recorder, the layout), frames that draw one panel, a person's click,
// and a sandbox result made by a Pipeline here, as the worker would publish it.
#pragma once
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdint>
#include <memory>
#include <string>

#include "headless_imgui.h"
#include "layout.h"
#include "panel_context.h"
#include "panel_views.h"
#include "sandbox/pipeline.h"
#include "settings.h"
#include "session/sandbox_session.h"
#include "widgets_dump.h"

namespace attnviz {

class PanelFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    CreateTestImGui();
    dump.set_enabled(true);
  }
  void TearDown() override { ImGui::DestroyContext(); }

  // A sandbox run of the settings on `text`, shown (results.shown), as the worker publishes one.
  void ShowSandboxResult(const std::string& text) {
    Pipeline pipeline;
    ASSERT_TRUE(pipeline.SetText(text).ok());
    ASSERT_TRUE(pipeline.SetConfig(settings.config).ok());
    ASSERT_TRUE(pipeline.Run(Stage::kOutput).ok());
    ComputeRequest request;
    request.kv_text = text;
    request.config = settings.config;
    const auto run = MakeSandboxRun(++generation, request, Status::Ok(),
                                    std::make_shared<const AttentionTensors>(pipeline.tensors()), nullptr, 0);
    results.shown = ShownSandbox(*run, generation);
  }
  // One frame: `draw` draws the panel into a window laid out over the whole display.
  template <typename Draw>
  void Frame(Draw draw) {
    dump.BeginFrame(frame++);
    ImGui::NewFrame();
    const ImGuiIO& io = ImGui::GetIO();
    layout.BeginFrame(PanelRect{0.0f, 0.0f, io.DisplaySize.x, io.DisplaySize.y});
    draw();
    ImGui::Render();
  }
  template <typename Draw>
  void Frames(Draw draw, int n) {
    for (int i = 0; i < n; ++i) Frame(draw);
  }
  template <typename Draw>
  void Click(Draw draw, const std::string& widget) {
    ClickWidget(dump, widget, [&] { Frame(draw); });
  }

  AppSettings settings;
  AppResults results;
  PanelViews views;
  WidgetDump dump;
  WindowLayout layout;
  uint64_t frame = 0, generation = 0;
};

}  // namespace attnviz
