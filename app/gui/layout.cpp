#include "layout.h"

#include <imgui.h>
#include <imgui_internal.h>  // the context's window list: every panel, whatever its (translated) title

#include <algorithm>
#include <cstring>

#include "io/json.h"
#include "widgets_dump.h"

namespace attnviz {

namespace {

bool IsPanel(const ImGuiWindow* w) {
  const ImGuiWindowFlags not_panel = ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip |
                                     ImGuiWindowFlags_Popup | ImGuiWindowFlags_ChildMenu;
  // Not ImGui's implicit "Debug##Default" window, nor "##MainMenuBar" and the like.
  return w->Active && !w->IsFallbackWindow && !(w->Flags & not_panel) && w->Name[0] != '#';
}

}  // namespace

PanelRect FractionRect(float fx, float fy, float fw, float fh, const PanelRect& area) {
  return PanelRect{area.x + fx * area.w, area.y + fy * area.h, fw * area.w, fh * area.h};
}

PanelRect KeepInside(const PanelRect& r, const PanelRect& area) {
  PanelRect out = r;
  out.w = std::min(r.w, area.w);
  out.h = std::min(r.h, area.h);
  out.x = std::clamp(r.x, area.x, area.x + area.w - out.w);
  out.y = std::clamp(r.y, area.y, area.y + area.h - out.h);
  return out;
}

void WindowLayout::BeginFrame(const PanelRect& area) {
  bool resized = have_area_ && (area.w != area_.w || area.h != area_.h || area.y != area_.y);
  bool usable = area.w > 0 && area.h > 0;  // a minimized window has no size
  force_ = usable && (resized || reset_requested_);
  if (force_) ++layouts_;
  if (usable) {
    reset_requested_ = false;
    area_ = area;
    have_area_ = true;
  }
}

void WindowLayout::PlacePanel(float fx, float fy, float fw, float fh) const {
  if (area_.w <= 0 || area_.h <= 0) return;
  PanelRect r = FractionRect(fx, fy, fw, fh, area_);
  ImGuiCond cond = force_ ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), cond);
}

void WindowLayout::KeepPanelsInside(WidgetDump* dump) const {
  ImGuiContext* context = ImGui::GetCurrentContext();
  if (!context || area_.w <= 0 || area_.h <= 0) return;
  for (ImGuiWindow* w : context->Windows) {
    if (!IsPanel(w)) continue;
    PanelRect drawn{w->Pos.x, w->Pos.y, w->Size.x, w->Size.y};
    if (dump) {
      const char* stable = std::strstr(w->Name, "###");  // "설정###Controls": named by its stable id
      dump->RecordRect(std::string("panel.") + (stable ? stable + 3 : w->Name), drawn.x, drawn.y, drawn.x + drawn.w,
                       drawn.y + drawn.h, false, false, JsonString(w->Name));
    }
    // The full size (a collapsed panel keeps it) is what must fit; the next frame draws it there.
    PanelRect full{w->Pos.x, w->Pos.y, w->SizeFull.x, w->SizeFull.y};
    PanelRect inside = KeepInside(full, area_);
    if (inside == full) continue;
    ImGui::SetWindowSize(w->Name, ImVec2(inside.w, inside.h));
    ImGui::SetWindowPos(w->Name, ImVec2(inside.x, inside.y));
  }
  if (dump)
    dump->SetField("layout", "{\"area\": [" + JsonNumber(area_.x) + ", " + JsonNumber(area_.y) + ", " +
                                 JsonNumber(area_.x + area_.w) + ", " + JsonNumber(area_.y + area_.h) +
                                 "], \"layouts\": " + std::to_string(layouts_) + "}");
}

}  // namespace attnviz
