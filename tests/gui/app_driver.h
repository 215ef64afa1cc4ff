// Drives the real App through ImGui without GL, frame by frame, as the no-GL panel tests need it:
// the tests' ImGui context (headless_imgui.h), frames that first wait for the background runners (so results are
// deterministic), and a person's click on a named widget (--widgets-json names). `Renderer` is the
// test's fake HeatmapRenderer.
#pragma once
#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "app.h"
#include "headless_imgui.h"

namespace attnviz {

template <typename Renderer>
class AppDriver : public ::testing::Test {
 protected:
  void SetUp() override { CreateTestImGui(); }
  void TearDown() override {
    app_.reset();
    ImGui::DestroyContext();
  }
  // One frame; waits for the sandbox worker and the model session first.
  void Frame() {
    app_->worker->WaitIdle(30.0);
    app_->models->WaitIdle(30.0);
    app_->Update();
    ImGuiIO& io = ImGui::GetIO();
    if (app_->fonts.dirty()) {
      app_->fonts.Build(io.Fonts, 15.0f);
      io.Fonts->SetTexID((ImTextureID)(intptr_t)1);
    }
    ImGui::NewFrame();
    app_->Draw(renderer_);
    ImGui::Render();
    ++app_->frame;
  }
  void Frames(int n) {
    for (int i = 0; i < n; ++i) Frame();
  }
  // A person's click (headless_imgui.h ClickWidget).
  void Click(const std::string& widget, int button = 0) {
    ClickWidget(app_->dump, widget, [this] { Frame(); }, button);
  }
  // Clicks Export and waits (frames) until the background export reports.
  void Export() {
    Click("export.button");
    for (int i = 0; i < 500 && app_->exporting(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Frame();
    }
    Frame();
  }
  void PressKey(int key, bool ctrl = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    io.KeysDown[key] = true;
    Frame();
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    Frame();
  }

  std::unique_ptr<App> app_;
  Renderer renderer_;
};

}  // namespace attnviz
