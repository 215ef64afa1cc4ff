// Code points beyond U+FFFF (emoji, math letters, rare CJK) through imgui 1.86, whose ImWchar is 16-bit:
// Debian's libimgui is built without IMGUI_USE_WCHAR32, so its UTF-8 decoder turns 😀 into U+FFFD (a
// pasted emoji was lost from the text, the tokens and settings.txt). Each such code point gets a slot in
// the Private Use Area (U+E000..U+F8FF) for as long as the process runs. Text handed to ImGui (fields,
// the clipboard, typed characters, labels) goes through ToImGui, text coming back through FromImGui, and
// the font atlas draws each slot with the real code point's glyph (fonts.cpp). Private Use Area
// characters of the text itself take slots too, so the mapping stays one to one.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace attnviz {

// `utf8` with every code point ImGui cannot hold replaced by its slot (3 UTF-8 bytes).
std::string ToImGui(const std::string& utf8);
// The inverse: slots back to the code points they stand for; anything else unchanged.
std::string FromImGui(const std::string& imgui_utf8);
// One typed character: `c` when ImGui can hold it, else its slot.
unsigned int ImGuiCharFor(unsigned int c);
// A typed character beyond U+FFFF: imgui's text fields drop typed Private Use Area characters (they
// filter them as stray key codes), so its slot is queued here and the AnyUnicode field that has the
// keyboard inserts it (platform.cpp queues; NewFrameTypedSlots at each frame start).
void QueueTypedSlot(unsigned int c);
void NewFrameTypedSlots();

struct UnicodeSlot {
  ImWchar slot;
  char32_t codepoint;
};
// Every slot handed out so far, in order (only ever grows).
std::vector<UnicodeSlot> UsedSlots();
size_t UsedSlotCount();

// ImGui::InputText / InputTextMultiline on a std::string that may hold any Unicode (through the slots).
// Returns what ImGui returns (true on an edit, or on Enter with ImGuiInputTextFlags_EnterReturnsTrue).
bool InputTextAnyUnicode(const char* label, std::string* text, ImGuiInputTextFlags flags = 0);
bool InputTextMultilineAnyUnicode(const char* label, std::string* text, const ImVec2& size,
                                  ImGuiInputTextFlags flags = 0);

}  // namespace attnviz
