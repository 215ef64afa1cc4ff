// What every no-GL panel test shares, whether it drives the whole App (app_driver.h) or draws one panel from a
// context built without an App (panel_fixture.h): the ImGui context it draws into, and a person's click.
#pragma once
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdint>
#include <string>

#include "widgets_dump.h"

namespace attnviz {

// An ImGui context at 1280x800 and 60 frames a second, no .ini file, the arrow keys mapped as the GLFW backend maps
// them, and the default font (its atlas built, under a texture id no GL made).
inline void CreateTestImGui() {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1280, 800);
  io.DeltaTime = 1.0f / 60.0f;
  io.KeyMap[ImGuiKey_LeftArrow] = 263;  // GLFW key codes
  io.KeyMap[ImGuiKey_RightArrow] = 262;
  io.Fonts->AddFontDefault();
  io.Fonts->Build();
  io.Fonts->SetTexID((ImTextureID)(intptr_t)1);
}

constexpr int kRightButton = 1;  // ImGui's mouse button 1: a context menu
// A person's click on this frame's widget `name` of `dump`: the mouse moved to its middle for a frame, `button`
// pressed for one, released, and two more frames (`frame` draws one). Fails the test when the widget was not drawn.
template <typename Frame>
void ClickWidget(const WidgetDump& dump, const std::string& name, Frame frame, int button = 0) {
  const WidgetDump::Widget* w = dump.Find(name);
  ASSERT_NE(w, nullptr) << name;
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2((w->x0 + w->x1) * 0.5f, (w->y0 + w->y1) * 0.5f);
  frame();
  io.MouseDown[button] = true;
  frame();
  io.MouseDown[button] = false;
  frame();
  frame();
}

}  // namespace attnviz
