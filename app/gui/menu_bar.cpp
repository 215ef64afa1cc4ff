// The main menu bar: File (open a model: the bundled one or a recent one; open a recent sentence file; back to
// the sandbox; export, which brings the Export panel forward; a lesson; Quit, Ctrl+Q) and View > Reset layout
// (also Ctrl+0). Its height is taken off the top of the work area the panels are laid out in (layout.h).
#include <imgui.h>

#include <string>
#include <vector>

#include "app.h"
#include "io/json.h"
#include "panel_util.h"

namespace attnviz {
namespace {

// A submenu of paths (most recent first); `open` runs on the one chosen. Names: <name>.0, <name>.1, ...
template <typename Open>
void RecentMenu(WidgetDump& dump, const std::vector<std::string>& paths, const std::string& name, Open open) {
  if (paths.empty()) ImGui::MenuItem(Tr(Str::kMenuNothingRecent), nullptr, false, false);
  for (size_t i = 0; i < paths.size(); ++i) {
    if (ImGui::MenuItem((paths[i] + "##" + name + std::to_string(i)).c_str())) open(paths[i]);
    dump.RecordItem(name + "." + std::to_string(i), JsonString(paths[i]));
  }
}

void DrawFileMenu(App& app) {
  WidgetDump& dump = app.dump;
  if (ImGui::BeginMenu(Tr(Str::kMenuOpenModel))) {
    if (!app.bundled_model_dir.empty()) {
      if (ImGui::MenuItem(Tr(Str::kMenuBundledModel))) app.OpenModel(app.bundled_model_dir);
      dump.RecordItem("menu.file.bundled_model");
    }
    const std::vector<std::string> models = app.settings.recent_models;  // a copy: opening reorders the list
    RecentMenu(dump, models, "menu.file.recent_model", [&](const std::string& dir) { app.OpenModel(dir); });
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file.open_model");
  if (ImGui::BeginMenu(Tr(Str::kMenuOpenSentences))) {
    const std::vector<std::string> files = app.settings.recent_files;
    RecentMenu(dump, files, "menu.file.recent_file", [&](const std::string& path) { app.OpenSentenceFile(path); });
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file.open_sentences");
  if (ImGui::MenuItem(Tr(Str::kMenuSandbox), nullptr, false, app.settings.source == Source::kModel))
    app.SetSource(Source::kSandbox);
  dump.RecordItem("menu.file.sandbox");
  if (ImGui::MenuItem(Tr(Str::kMenuExport))) ImGui::SetWindowFocus(WindowTitle(Str::kWinExport, "Export").c_str());
  dump.RecordItem("menu.file.export");
  if (ImGui::BeginMenu(Tr(Str::kMenuLessons))) {
    for (int i = 0; i < kLessonCount; ++i) {
      const std::string name = std::string("menu.file.lesson.") + LessonLetter((Lesson)i);
      if (ImGui::MenuItem((std::string(Tr(WordsOf((Lesson)i).title)) + "##" + name).c_str())) app.ShowLesson((Lesson)i);
      dump.RecordItem(name);
    }
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file.lessons");
  ImGui::Separator();
  if (ImGui::MenuItem(Tr(Str::kMenuQuit), "Ctrl+Q")) app.quit_requested = true;
  dump.RecordItem("menu.file.quit");
}

}  // namespace

float DrawMenuBar(App& app) {
  float height = 0.0f;
  if (!ImGui::BeginMainMenuBar()) return height;
  height = ImGui::GetWindowSize().y;
  WidgetDump& dump = app.dump;
  if (ImGui::BeginMenu(Tr(Str::kMenuFile))) {
    DrawFileMenu(app);
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file");
  if (ImGui::BeginMenu(Tr(Str::kMenuView))) {
    if (ImGui::MenuItem(Tr(Str::kMenuResetLayout), "Ctrl+0")) app.layout.RequestReset();
    dump.RecordItem("menu.view.reset_layout");
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.view");
  ImGui::EndMainMenuBar();
  return height;
}

}  // namespace attnviz
