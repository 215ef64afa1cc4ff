// The main menu bar: File (open a model: the bundled one or a recent one; open a recent sentence file; back to
// the sandbox; export, which brings the Export panel forward; a lesson; Quit, Ctrl+Q) and View > Reset layout
// (also Ctrl+0). Its height is taken off the top of the work area the panels are laid out in (layout.h).
#include <imgui.h>

#include <string>
#include <vector>

#include "app.h"
#include "sandbox_panel_context.h"
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

void DrawFileMenu(SandboxPanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  if (ImGui::BeginMenu(Tr(Str::kMenuOpenModel))) {
    if (!ctx.bundled_model_dir.empty()) {
      if (ImGui::MenuItem(Tr(Str::kMenuBundledModel))) ctx.verbs.open_model(ctx.bundled_model_dir);
      dump.RecordItem("menu.file.bundled_model");
    }
    const std::vector<std::string> models = ctx.settings.recent_models;  // a copy: opening reorders the list
    RecentMenu(dump, models, "menu.file.recent_model", [&](const std::string& dir) { ctx.verbs.open_model(dir); });
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file.open_model");
  if (ImGui::BeginMenu(Tr(Str::kMenuOpenSentences))) {
    const std::vector<std::string> files = ctx.settings.recent_files;
    RecentMenu(dump, files, "menu.file.recent_file", [&](const std::string& path) { ctx.verbs.open_sentence_file(path); });
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file.open_sentences");
  if (ImGui::MenuItem(Tr(Str::kMenuSandbox), nullptr, false, ctx.settings.source == Source::kModel))
    ctx.verbs.set_source(Source::kSandbox);
  dump.RecordItem("menu.file.sandbox");
  if (ImGui::MenuItem(Tr(Str::kMenuExport))) ImGui::SetWindowFocus(WindowTitle(Str::kWinExport, "Export").c_str());
  dump.RecordItem("menu.file.export");
  if (ImGui::BeginMenu(Tr(Str::kMenuLessons))) {
    for (int i = 0; i < kLessonCount; ++i) {
      const std::string name = std::string("menu.file.lesson.") + LessonLetter((Lesson)i);
      if (ImGui::MenuItem((std::string(Tr(WordsOf((Lesson)i).title)) + "##" + name).c_str())) ctx.verbs.show_lesson((Lesson)i, LessonPart::kMain);
      dump.RecordItem(name);
    }
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file.lessons");
  ImGui::Separator();
  if (ImGui::MenuItem(Tr(Str::kMenuQuit), "Ctrl+Q")) ctx.verbs.quit();
  dump.RecordItem("menu.file.quit");
}

}  // namespace

float DrawMenuBar(SandboxPanelContext& ctx) {
  float height = 0.0f;
  if (!ImGui::BeginMainMenuBar()) return height;
  height = ImGui::GetWindowSize().y;
  WidgetDump& dump = ctx.dump;
  if (ImGui::BeginMenu(Tr(Str::kMenuFile))) {
    DrawFileMenu(ctx);
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.file");
  if (ImGui::BeginMenu(Tr(Str::kMenuView))) {
    if (ImGui::MenuItem(Tr(Str::kMenuResetLayout), "Ctrl+0")) ctx.layout.RequestReset();
    dump.RecordItem("menu.view.reset_layout");
    ImGui::EndMenu();
  }
  dump.RecordItem("menu.view");
  // Where a newcomer starts: the lessons, one click from the first screen (the Lessons tab brought to the front).
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  const bool start = ImGui::MenuItem(Tr(Str::kMenuStartHere));
  ImGui::PopStyleColor();
  dump.RecordItem("menu.start_here");
  if (start) {
    ctx.learn.tab = LearnTab::kLessons;
    ctx.learn.tab_requested = 3;
  }
  ImGui::EndMainMenuBar();
  return height;
}

}  // namespace attnviz
