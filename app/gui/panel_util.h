// Small ImGui helpers shared by the panel_*.cpp files (no GL).
#pragma once
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "layout.h"
#include "i18n/ui_strings.h"
#include "widgets_dump.h"

namespace attnviz {

// A window title in the current language with a stable id ("설정###Controls"): the window keeps its
// place and size when the language changes.
inline std::string WindowTitle(Str title, const char* stable_id) { return std::string(Tr(title)) + "###" + stable_id; }
// A widget label in the current language with a stable ImGui id; the dump records the visible text.
inline std::string Labeled(WidgetDump& dump, Str text, const char* stable_id) { return dump.Label(Tr(text), stable_id); }


inline const ImVec4 kErrorColor(1.0f, 0.45f, 0.40f, 1.0f);
inline const ImVec4 kOkColor(0.55f, 0.90f, 0.55f, 1.0f);
inline const ImVec4 kDimColor(0.65f, 0.65f, 0.70f, 1.0f);

inline void ErrorText(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

inline void DimText(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// SameLine() when a radio button labelled `label` still fits on the current line of the window, else a new line: a
// row of choices flows onto more lines in a narrow panel instead of running past its edge.
inline void SameLineIfRadioFits(const char* label) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float w = ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + w <= right) ImGui::SameLine();
}

inline std::string BoolJson(bool b) { return b ? "true" : "false"; }

// The most opaque the delta-loss colour gets (the cell with the largest |delta|), so the map stays readable.
constexpr float kDeltaAlpha = 130.0f;
// A scan's tint over a cell: d = delta / the largest |delta|; red where the loss rises without the head, blue where
// it falls.
inline void DrawDeltaTint(double d, ImVec2 p0, ImVec2 p1) {
  const int alpha = (int)(kDeltaAlpha * std::min(1.0, std::abs(d)));
  ImGui::GetWindowDrawList()->AddRectFilled(p0, p1, d >= 0 ? IM_COL32(230, 40, 30, alpha) : IM_COL32(40, 90, 230, alpha));
}

// The d_q = d_k refusal (in any language: the symbols are kept). The Controls panel shows it beside the source and
// score combos that cause it; the other panels leave it out or point there, so it is on screen once.
inline bool IsWidthRefusal(const std::string& rendered) { return rendered.find("d_q = d_k") != std::string::npos; }

}  // namespace attnviz
