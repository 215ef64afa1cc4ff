// The main menu bar: View > Reset layout (also Ctrl+0) and File > Quit (Ctrl+Q). Its height is taken
// off the top of the work area the panels are laid out in (layout.h).
#include <imgui.h>

#include "app.h"
#include "panel_util.h"

namespace attnviz {

float DrawMenuBar(App& app) {
  float height = 0.0f;
  if (!ImGui::BeginMainMenuBar()) return height;
  height = ImGui::GetWindowSize().y;
  WidgetDump& dump = app.dump;
  if (ImGui::BeginMenu(Tr(Str::kMenuFile))) {
    if (ImGui::MenuItem(Tr(Str::kMenuQuit), "Ctrl+Q")) app.quit_requested = true;
    dump.RecordItem("menu.file.quit");
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
