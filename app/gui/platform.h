// Window, GL context, ImGui init and shutdown (GLFW + OpenGL 3.3 core through glad + the ImGui
// GLFW/OpenGL3 backends). The only place besides app/gl/ that talks to GLFW or GL.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "fonts.h"
#include "base/status.h"

struct GLFWwindow;

namespace attnviz {

struct WindowRect {
  int x = -1, y = -1, width = 1280, height = 800;
};

class Platform {
 public:
  Platform() = default;
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  // Opens the window (HiDPI-aware), loads GL with glad, creates the ImGui context and backends.
  Status Init(const char* title, const WindowRect& rect);
  void Shutdown();

  bool ShouldClose() const;
  void RequestClose();
  // Rebuilds the font atlas at the content scale and re-uploads its texture (between frames only).
  std::string RebuildFonts(UiFonts* fonts);
  float content_scale() const { return content_scale_; }
  // Follows the window's content scale (HiDPI; moving between screens): rescales the style and
  // returns true when the fonts must be rebuilt at the new size.
  bool UpdateContentScale();

  void PollEvents();
  // Blocks until an event arrives or `seconds` pass (an idle or minimized window sleeps here).
  void WaitEvents(double seconds);
  // Ends a WaitEvents now, from any thread (a background result arrived). Nothing before Init or after Shutdown.
  static void Wake();
  // Input events (pointer moves, buttons, wheel, keys, characters) since the last call: the frame pacer draws the
  // next several frames (hover and release settle).
  int TakeInputEvents();
  // Window events (focus, pointer entering, resize, expose, iconify, content scale) since the last call: the window
  // is drawn again, twice (a newly mapped window gets focus, enter and expose: no reason for ten frames).
  int TakeWindowEvents();
  bool Iconified() const;
  // Backends + ImGui::NewFrame. ignore_mouse: no hover (a --screenshot is not about where the pointer is).
  void NewFrame(bool ignore_mouse = false);
  void Render(float r, float g, float b);  // ImGui::Render, clear, draw
  void Swap();
  void Finish();                    // glFinish (benchmark timing)
  // Reads the back buffer (call after Render, before Swap); .ppm writes a binary PPM, else PNG.
  Status SaveScreenshot(const std::string& path) const;

  WindowRect window_rect() const;
  std::vector<std::string> TakeDroppedFiles();
  std::string gl_renderer() const;

 private:
  static void OnDrop(GLFWwindow* window, int count, const char** paths);
  void InstallEventCounters();  // before the ImGui backend, which chains to them
  void InstallUnicodeSlots();    // after it: typed characters and the clipboard (unicode_slots.h)
  static void CountEvent(GLFWwindow* window);
  static void CountWindowEvent(GLFWwindow* window);
  int input_events_ = 0;
  int window_events_ = 0;
  GLFWwindow* window_ = nullptr;
  bool imgui_ready_ = false;
  float content_scale_ = 1.0f;
  ImGuiStyle base_style_;  // the style at content scale 1
  std::vector<std::string> dropped_;
};

}  // namespace attnviz
