#include "widgets.h"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>

#include "io/json.h"

namespace attnviz::widget {
namespace {

std::string Id(WidgetDump& dump, const Label& label, const char* name) { return dump.Label(label.text, name); }
std::string BoolJson(bool b) { return b ? "true" : "false"; }

// imgui keeps one edit state, for the field edited last; it is reused when that field is clicked again. A field not
// being edited whose text is no longer the state's (TextW[0, CurLenW)) gets a fresh state on its next click.
void ForgetStaleTextState(const char* id, const std::string& text) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiID item = ImGui::GetID(id);  // as InputTextEx makes it: the label in the current ID stack
  const ImGuiInputTextState* state = ImGui::GetInputTextState(item);
  if (!state || g.ActiveId == item) return;
  std::string held((size_t)state->CurLenW * 4 + 1, '\0');
  held.resize((size_t)ImTextStrToUtf8(held.data(), (int)held.size(), state->TextW.Data,
                                      state->TextW.Data + state->CurLenW));
  if (held != text) g.InputTextState.ID = 0;
}

}  // namespace

bool Button(WidgetDump& dump, const Label& label, const char* name, const ImVec2& size) {
  const bool pressed = ImGui::Button(Id(dump, label, name).c_str(), size);
  dump.RecordItem(name);
  return pressed;
}

void ProgressBar(WidgetDump& dump, const char* name, float fraction, float width, const std::string& text) {
  const float inside = width - 2.0f * ImGui::GetStyle().FramePadding.x;
  const bool fits = ImGui::CalcTextSize(text.c_str()).x <= inside;
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.0f%%", std::clamp(fraction, 0.0f, 1.0f) * 100.0f);
  const std::string overlay = fits ? text : percent;
  ImGui::ProgressBar(fraction, ImVec2(width, 0), overlay.c_str());
  dump.RecordItem(name, "{\"fraction\": " + JsonNumber(fraction) + ", \"overlay\": " + JsonString(overlay) +
                            ", \"below\": " + JsonString(fits ? std::string() : text) + "}");  // the bar's rect
  if (!fits) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
  }
}

bool SmallButton(WidgetDump& dump, const Label& label, const char* name) {
  const bool pressed = ImGui::SmallButton(Id(dump, label, name).c_str());
  dump.RecordItem(name);
  return pressed;
}

bool InputInt(WidgetDump& dump, const Label& label, const char* name, int* value) {
  const bool changed = ImGui::InputInt(Id(dump, label, name).c_str(), value, 0, 0);
  dump.RecordItem(name, std::to_string(*value));
  return changed;
}

bool InputU64(WidgetDump& dump, const Label& label, const char* name, uint64_t* value) {
  const bool changed = ImGui::InputScalar(Id(dump, label, name).c_str(), ImGuiDataType_U64, value);
  dump.RecordItem(name, std::to_string(*value));
  return changed;
}

bool Checkbox(WidgetDump& dump, const Label& label, const char* name, bool* value) {
  const bool changed = ImGui::Checkbox(Id(dump, label, name).c_str(), value);
  dump.RecordItem(name, BoolJson(*value));
  return changed;
}

bool RadioButton(WidgetDump& dump, const Label& label, const char* name, bool active) {
  const bool pressed = ImGui::RadioButton(Id(dump, label, name).c_str(), active);
  dump.RecordItem(name, BoolJson(active));
  return pressed;
}

bool RadioButton(WidgetDump& dump, const Label& label, const char* name, int* value, int choice) {
  const bool pressed = ImGui::RadioButton(Id(dump, label, name).c_str(), value, choice);
  dump.RecordItem(name, BoolJson(*value == choice));
  return pressed;
}

bool SliderInt(WidgetDump& dump, const Label& label, const char* name, int* value, int lo, int hi, const char* format,
               ImGuiSliderFlags flags) {
  const bool changed = ImGui::SliderInt(Id(dump, label, name).c_str(), value, lo, hi, format, flags);
  dump.RecordItem(name, std::to_string(*value));
  return changed;
}

bool SliderFloat(WidgetDump& dump, const Label& label, const char* name, float* value, float lo, float hi,
                 const char* format, ImGuiSliderFlags flags) {
  const bool changed = ImGui::SliderFloat(Id(dump, label, name).c_str(), value, lo, hi, format, flags);
  dump.RecordItem(name, JsonNumber(*value));
  return changed;
}

bool TextField(const char* id, std::string* text, ImGuiInputTextFlags flags, ImGuiInputTextCallback callback) {
  ForgetStaleTextState(id, *text);
  return ImGui::InputText(id, text, flags, callback);
}

bool TextFieldWithHint(const char* id, const char* hint, std::string* text, ImGuiInputTextFlags flags) {
  ForgetStaleTextState(id, *text);
  return ImGui::InputTextWithHint(id, hint, text, flags);
}

bool TextFieldMultiline(const char* id, std::string* text, const ImVec2& size, ImGuiInputTextFlags flags,
                        ImGuiInputTextCallback callback) {
  ForgetStaleTextState(id, *text);
  return ImGui::InputTextMultiline(id, text, size, flags, callback);
}

bool InputText(WidgetDump& dump, const Label& label, const char* name, std::string* text, ImGuiInputTextFlags flags) {
  const bool changed = TextField(Id(dump, label, name).c_str(), text, flags);
  dump.RecordItem(name, JsonString(*text));
  return changed;
}

bool InputTextWithHint(WidgetDump& dump, const Label& label, const char* name, const char* hint, std::string* text,
                       ImGuiInputTextFlags flags) {
  const bool changed = TextFieldWithHint(Id(dump, label, name).c_str(), hint, text, flags);
  dump.RecordItem(name, JsonString(*text));
  return changed;
}

}  // namespace attnviz::widget

namespace attnviz {

void ApplyAppStyle(ImGuiStyle* style) {
  ImGui::StyleColorsDark(style);
  style->WindowRounding = 3.0f;
  style->FrameRounding = 2.0f;
  style->ItemSpacing = ImVec2(6, 4);
  style->FramePadding = ImVec2(5, 2);
  style->Colors[ImGuiCol_PopupBg].w = 1.0f;  // tooltips, menus and combo lists hide what is behind them
}

}  // namespace attnviz
