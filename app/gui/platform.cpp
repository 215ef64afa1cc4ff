#include "platform.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "unicode_slots.h"
#include "widgets.h"

#if defined(__SANITIZE_ADDRESS__)
#include <dlfcn.h>
#include <link.h>
#endif

namespace attnviz {

namespace {

void OnGlfwError(int code, const char* description) { std::fprintf(stderr, "attnviz: GLFW error %d: %s\n", code, description); }

#if defined(__SANITIZE_ADDRESS__)
// LeakSanitizer reports at exit, after glfwTerminate has dlclose()d the GL driver: its leaks would then come from
// "<unknown module>" and escape tests/sanitize/lsan.supp, which names the driver's libraries. Every library loaded
// now is kept mapped (RTLD_NODELETE) so the report names it; our own leaks are still reported.
void KeepLibrariesMappedForLeakReports() {
  std::vector<std::string> names;
  dl_iterate_phdr([](dl_phdr_info* info, size_t, void* out) {
    if (info->dlpi_name && info->dlpi_name[0]) ((std::vector<std::string>*)out)->push_back(info->dlpi_name);
    return 0;
  }, &names);
  for (const std::string& name : names) dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}
#else
void KeepLibrariesMappedForLeakReports() {}
#endif

}  // namespace

namespace {
// Wake may post between Init and Shutdown only; the mutex keeps a post from crossing glfwTerminate.
std::mutex g_wake_mutex;
bool g_wake_ready = false;
void SetWakeReady(bool ready) {
  std::lock_guard<std::mutex> lock(g_wake_mutex);
  g_wake_ready = ready;
}
}  // namespace

void Platform::Wake() {
  std::lock_guard<std::mutex> lock(g_wake_mutex);
  if (g_wake_ready) glfwPostEmptyEvent();
}

Platform::~Platform() { Shutdown(); }

Status Platform::Init(const char* title, const WindowRect& rect) {
  glfwSetErrorCallback(OnGlfwError);
  if (!glfwInit()) return Status::Error("cannot open a window: GLFW failed to initialize (is DISPLAY set?)");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);  // HiDPI: the window grows with the content scale
  window_ = glfwCreateWindow(rect.width, rect.height, title, nullptr, nullptr);
  if (!window_) {
    KeepLibrariesMappedForLeakReports();
    glfwTerminate();
    return Status::Error("cannot open a window with an OpenGL 3.3 core context");
  }
  if (rect.x >= 0 && rect.y >= 0) glfwSetWindowPos(window_, rect.x, rect.y);
  glfwMakeContextCurrent(window_);
  if (!gladLoadGL(glfwGetProcAddress)) return Status::Error("cannot load OpenGL functions (glad)");
  glfwSwapInterval(1);
  glfwSetWindowUserPointer(window_, this);
  glfwSetDropCallback(window_, OnDrop);
  InstallEventCounters();
  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window_, &xs, &ys);
  content_scale_ = xs > 0 ? xs : 1.0f;

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is saved atomically by main.cpp
  // A drag that starts on a panel's content (just off a slider) must not carry the panel away.
  io.ConfigWindowsMoveFromTitleBarOnly = true;
  // An idle window draws nothing (frame_pacer.h): a blinking caret would cost a frame every half second.
  io.ConfigInputTextCursorBlink = false;
  ImGuiStyle& style = ImGui::GetStyle();
  ApplyAppStyle(&style);
  base_style_ = style;
  style.ScaleAllSizes(content_scale_);
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  InstallUnicodeSlots();
  imgui_ready_ = true;
  SetWakeReady(true);
  return Status::Ok();
}

bool Platform::UpdateContentScale() {
  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window_, &xs, &ys);
  if (xs <= 0 || xs == content_scale_) return false;
  content_scale_ = xs;
  ImGuiStyle& style = ImGui::GetStyle();
  style = base_style_;
  style.ScaleAllSizes(content_scale_);
  return true;
}

void Platform::Shutdown() {
  SetWakeReady(false);
  if (imgui_ready_) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    imgui_ready_ = false;
  }
  if (window_) {
    glfwDestroyWindow(window_);
    window_ = nullptr;
    KeepLibrariesMappedForLeakReports();
    glfwTerminate();
  }
}

bool Platform::ShouldClose() const { return glfwWindowShouldClose(window_); }
void Platform::RequestClose() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

std::string Platform::RebuildFonts(UiFonts* fonts) {
  std::string message = fonts->Build(ImGui::GetIO().Fonts, 15.0f * content_scale_);
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  return message;
}

void Platform::WaitEvents(double seconds) { glfwWaitEventsTimeout(seconds); }


bool Platform::Iconified() const { return window_ && glfwGetWindowAttrib(window_, GLFW_ICONIFIED) != 0; }

void Platform::PollEvents() { glfwPollEvents(); }

void Platform::CountEvent(GLFWwindow* window) { ++((Platform*)glfwGetWindowUserPointer(window))->input_events_; }
void Platform::CountWindowEvent(GLFWwindow* window) { ++((Platform*)glfwGetWindowUserPointer(window))->window_events_; }

void Platform::InstallEventCounters() {
  // ImGui's GLFW backend installs its own button, wheel, key, char, focus and enter callbacks after
  // these and calls them first; the pointer, size and expose ones are only ours.
  glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double, double) { CountEvent(w); });
  glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int, int, int) { CountEvent(w); });
  glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double) { CountEvent(w); });
  glfwSetKeyCallback(window_, [](GLFWwindow* w, int, int, int, int) { CountEvent(w); });
  glfwSetWindowFocusCallback(window_, [](GLFWwindow* w, int) { CountWindowEvent(w); });
  glfwSetCursorEnterCallback(window_, [](GLFWwindow* w, int) { CountWindowEvent(w); });
  glfwSetWindowSizeCallback(window_, [](GLFWwindow* w, int, int) { CountWindowEvent(w); });
  glfwSetFramebufferSizeCallback(window_, [](GLFWwindow* w, int, int) { CountWindowEvent(w); });
  glfwSetWindowRefreshCallback(window_, [](GLFWwindow* w) { CountWindowEvent(w); });
  glfwSetWindowIconifyCallback(window_, [](GLFWwindow* w, int) { CountWindowEvent(w); });
  glfwSetWindowContentScaleCallback(window_, [](GLFWwindow* w, float, float) { CountWindowEvent(w); });
}

void Platform::InstallUnicodeSlots() {
  // Typed characters beyond U+FFFF (and Private Use Area ones) go to the AnyUnicode field with the
  // keyboard as slots: the backend would queue U+FFFD, and imgui's fields drop typed slots.
  glfwSetCharCallback(window_, [](GLFWwindow* w, unsigned int c) {
    CountEvent(w);
    if (ImGuiCharFor(c) != c) QueueTypedSlot(c);
    else ImGui_ImplGlfw_CharCallback(w, c);
  });
  // The clipboard in both directions through the slots, so a pasted or copied emoji stays itself.
  ImGuiIO& io = ImGui::GetIO();
  io.ClipboardUserData = window_;
  io.GetClipboardTextFn = [](void* window) -> const char* {
    static std::string text;  // imgui copies it before the next call
    const char* raw = glfwGetClipboardString((GLFWwindow*)window);
    text = raw ? ToImGui(raw) : std::string();
    return text.c_str();
  };
  io.SetClipboardTextFn = [](void* window, const char* text) {
    glfwSetClipboardString((GLFWwindow*)window, FromImGui(text ? text : "").c_str());
  };
}

int Platform::TakeInputEvents() {
  int n = input_events_;
  input_events_ = 0;
  return n;
}

int Platform::TakeWindowEvents() {
  int n = window_events_;
  window_events_ = 0;
  return n;
}

void Platform::NewFrame(bool ignore_mouse) {
  NewFrameTypedSlots();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // The first frame after an idle wait (or one slow frame) must not count as a key held past imgui's
  // KeyRepeatDelay (0.275 s in 1.86): imgui would repeat it (Ctrl+V pasting twice). Capped below that, yet long
  // enough that two clicks around an idle wait never make a double click (the frames after input can be slow).
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = std::min(io.DeltaTime, 0.25f);
  if (ignore_mouse) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
}

void Platform::Render(float r, float g, float b) {
  ImGui::Render();
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, w, h);
  glClearColor(r, g, b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void Platform::Swap() { glfwSwapBuffers(window_); }
void Platform::Finish() { glFinish(); }

Status Platform::SaveScreenshot(const std::string& path) const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  if (w <= 0 || h <= 0) return Status::Error("the window has no pixels to save");
  std::vector<unsigned char> pixels((size_t)w * (size_t)h * 3), flipped(pixels.size());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  size_t row = (size_t)w * 3;
  for (int y = 0; y < h; ++y) std::copy_n(&pixels[(size_t)(h - 1 - y) * row], row, &flipped[(size_t)y * row]);
  std::string bytes;
  if (FileExtension(path) == ".ppm") {
    bytes = "P6\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
    bytes.append((const char*)flipped.data(), flipped.size());
  } else {
    stbi_write_png_to_func(
        [](void* context, void* data, int size) { ((std::string*)context)->append((const char*)data, (size_t)size); },
        &bytes, w, h, 3, flipped.data(), (int)row);
    if (bytes.empty()) return Status::Error("PNG encoding failed for " + path);
  }
  return WriteFileAtomic(path, bytes);
}

WindowRect Platform::window_rect() const {
  WindowRect r;
  glfwGetWindowPos(window_, &r.x, &r.y);
  glfwGetWindowSize(window_, &r.width, &r.height);
  return r;
}

std::vector<std::string> Platform::TakeDroppedFiles() {
  std::vector<std::string> out;
  out.swap(dropped_);
  return out;
}

std::string Platform::gl_renderer() const {
  const GLubyte* r = glGetString(GL_RENDERER);
  const GLubyte* v = glGetString(GL_VERSION);
  return std::string(r ? (const char*)r : "?") + ", OpenGL " + (v ? (const char*)v : "?");
}

void Platform::OnDrop(GLFWwindow* window, int count, const char** paths) {
  auto* self = (Platform*)glfwGetWindowUserPointer(window);
  for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
  ++self->input_events_;
}

}  // namespace attnviz
