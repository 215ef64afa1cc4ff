// One call draws a widget and records it for --widgets-json (widgets_dump.h): the label in the UI's language with
// a stable ImGui id (the dump name, so a language switch keeps the widget's identity), then the widget recorded
// under that name with its value after this frame's edit. Panels never write a widget twice.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <string>

#include "i18n/ui_strings.h"
#include "io/json.h"
#include "widgets_dump.h"

namespace attnviz::widget {

// `name`: the dump's name for the widget, "<panel>.<what>" (e.g. "controls.scale"); tests find widgets by it.
// `label`: a Str (translated) or a literal kept in every language (math symbols: "d_k").
struct Label {
  Label(Str text) : text(Tr(text)) {}            // NOLINT: either kind of label reads the same at the call
  Label(const char* literal) : text(literal) {}  // NOLINT
  std::string text;
};

bool Button(WidgetDump& dump, const Label& label, const char* name, const ImVec2& size = ImVec2(0, 0));
bool SmallButton(WidgetDump& dump, const Label& label, const char* name);
bool Checkbox(WidgetDump& dump, const Label& label, const char* name, bool* value);
// Recorded as `active` (what the button showed this frame).
bool RadioButton(WidgetDump& dump, const Label& label, const char* name, bool active);
// One of a group: sets *value = choice when pressed; recorded as (*value == choice).
bool RadioButton(WidgetDump& dump, const Label& label, const char* name, int* value, int choice);
bool SliderInt(WidgetDump& dump, const Label& label, const char* name, int* value, int lo, int hi,
               const char* format = "%d", ImGuiSliderFlags flags = 0);
bool SliderFloat(WidgetDump& dump, const Label& label, const char* name, float* value, float lo, float hi,
                 const char* format = "%.3f", ImGuiSliderFlags flags = 0);
bool InputInt(WidgetDump& dump, const Label& label, const char* name, int* value);
bool InputU64(WidgetDump& dump, const Label& label, const char* name, uint64_t* value);
// Every text field of the app is one of these ImGui::InputText* on a std::string (id: the ImGui label), which first
// forget imgui 1.86's edit state of the field when its text was changed from outside since it was last edited (a
// sentence picked from the list): 1.86 reuses that state's undo stack when the field is clicked again, and Ctrl+Z
// then reads past the text and asserts (later imgui reuses it only for an unchanged text).
bool TextField(const char* id, std::string* text, ImGuiInputTextFlags flags = 0,
               ImGuiInputTextCallback callback = nullptr);
bool TextFieldWithHint(const char* id, const char* hint, std::string* text, ImGuiInputTextFlags flags = 0);
bool TextFieldMultiline(const char* id, std::string* text, const ImVec2& size, ImGuiInputTextFlags flags = 0,
                        ImGuiInputTextCallback callback = nullptr);

bool InputText(WidgetDump& dump, const Label& label, const char* name, std::string* text,
               ImGuiInputTextFlags flags = 0);
bool InputTextWithHint(WidgetDump& dump, const Label& label, const char* name, const char* hint, std::string* text,
                       ImGuiInputTextFlags flags = 0);

// A combo over `choices` (any range of T): shown(choice) is its text in the UI's language, recorded(choice) the
// dump's value (a stable word). True when the user picked another choice (then *value is it).
template <typename T, typename Choices, typename Shown, typename Recorded>
bool Combo(WidgetDump& dump, const Label& label, const char* name, T* value, const Choices& choices, Shown shown,
           Recorded recorded) {
  bool changed = false;
  if (ImGui::BeginCombo(dump.Label(label.text, name).c_str(), std::string(shown(*value)).c_str())) {
    for (const T& choice : choices) {
      if (ImGui::Selectable(std::string(shown(choice)).c_str(), choice == *value) && !(choice == *value)) {
        *value = choice;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  dump.RecordItem(name, JsonString(std::string(recorded(*value))));
  return changed;
}

// A progress bar `width` wide saying `text`: inside the bar when it fits, else the bar says the percentage and the
// text wraps below it (ImGui centres an overlay and cuts both ends of one that does not fit). Recorded as
// {"fraction", "overlay", "below"}.
void ProgressBar(WidgetDump& dump, const char* name, float fraction, float width, const std::string& text);

}  // namespace attnviz::widget

namespace attnviz {

// The app's ImGui style at content scale 1: the dark colours, small rounding and spacing, and opaque popups and
// tooltips (the dark theme's PopupBg is 94% opaque: a tooltip over a panel's text let that text show through).
void ApplyAppStyle(ImGuiStyle* style);

}  // namespace attnviz
