#include "unicode_slots.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "widgets.h"

namespace attnviz {

namespace {

constexpr char32_t kFirstSlot = 0xE000, kLastSlot = 0xF8FF;  // the BMP's Private Use Area
constexpr char32_t kReplacement = 0xFFFD;                    // when all 6400 slots are taken

struct SlotTable {
  std::mutex mutex;
  std::map<char32_t, char32_t> slot_of;  // code point -> slot
  std::vector<UnicodeSlot> slots;        // slot - kFirstSlot -> code point
  std::string typed_incoming, typed_this_frame;  // typed slots (UTF-8) for the field with the keyboard
};
SlotTable& Table() {
  static SlotTable table;
  return table;
}

bool NeedsSlot(char32_t c) { return c > 0xFFFF || (c >= kFirstSlot && c <= kLastSlot); }

char32_t SlotFor(SlotTable& t, char32_t c) {
  auto it = t.slot_of.find(c);
  if (it != t.slot_of.end()) return it->second;
  char32_t slot = kFirstSlot + (char32_t)t.slots.size();
  if (slot > kLastSlot) return kReplacement;
  t.slot_of[c] = slot;
  t.slots.push_back(UnicodeSlot{(ImWchar)slot, c});
  return slot;
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    *out += (char)c;
  } else if (c < 0x800) {
    *out += (char)(0xC0 | (c >> 6));
    *out += (char)(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    *out += (char)(0xE0 | (c >> 12));
    *out += (char)(0x80 | ((c >> 6) & 0x3F));
    *out += (char)(0x80 | (c & 0x3F));
  } else {
    *out += (char)(0xF0 | (c >> 18));
    *out += (char)(0x80 | ((c >> 12) & 0x3F));
    *out += (char)(0x80 | ((c >> 6) & 0x3F));
    *out += (char)(0x80 | (c & 0x3F));
  }
}

bool Continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// The code point of a well-formed 3- or 4-byte sequence at s[i] (lead byte 0xEE..0xEF or 0xF0..0xF4),
// its length in *len; 0 when the bytes are anything else (then they are copied as they are).
char32_t DecodeLong(const std::string& s, size_t i, size_t* len) {
  const unsigned char b0 = (unsigned char)s[i];
  if (b0 >= 0xEE && b0 <= 0xEF && i + 2 < s.size() && Continuation(s[i + 1]) && Continuation(s[i + 2])) {
    *len = 3;
    return ((char32_t)(b0 & 0x0F) << 12) | ((char32_t)(s[i + 1] & 0x3F) << 6) | (char32_t)(s[i + 2] & 0x3F);
  }
  if (b0 >= 0xF0 && b0 <= 0xF4 && i + 3 < s.size() && Continuation(s[i + 1]) && Continuation(s[i + 2]) &&
      Continuation(s[i + 3])) {
    char32_t c = ((char32_t)(b0 & 0x07) << 18) | ((char32_t)(s[i + 1] & 0x3F) << 12) |
                 ((char32_t)(s[i + 2] & 0x3F) << 6) | (char32_t)(s[i + 3] & 0x3F);
    if (c < 0x10000 || c > 0x10FFFF) return 0;  // overlong or out of range: not ours to fix
    *len = 4;
    return c;
  }
  return 0;
}

// Copies `in`, replacing each 3/4-byte code point for which map(c) returns another code point.
template <typename Map>
std::string Rewrite(const std::string& in, Map map) {
  size_t first = 0;
  while (first < in.size() && (unsigned char)in[first] < 0xEE) ++first;
  if (first == in.size()) return in;  // nothing beyond U+DFFF: the common case costs one scan
  std::string out = in.substr(0, first);
  for (size_t i = first; i < in.size();) {
    size_t len = 1;
    char32_t c = (unsigned char)in[i] >= 0xEE ? DecodeLong(in, i, &len) : 0;
    char32_t mapped = c ? map(c) : 0;
    if (mapped && mapped != c) AppendUtf8(mapped, &out);
    else out.append(in, i, len);
    i += len;
  }
  return out;
}

}  // namespace

std::string ToImGui(const std::string& utf8) {
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return Rewrite(utf8, [&](char32_t c) { return NeedsSlot(c) ? SlotFor(t, c) : c; });
}

std::string FromImGui(const std::string& imgui_utf8) {
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return Rewrite(imgui_utf8, [&](char32_t c) {
    if (c < kFirstSlot || c > kLastSlot || c - kFirstSlot >= t.slots.size()) return c;
    return t.slots[c - kFirstSlot].codepoint;
  });
}

unsigned int ImGuiCharFor(unsigned int c) {
  if (!NeedsSlot(c)) return c;
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return c > 0x10FFFF ? kReplacement : SlotFor(t, c);
}

void QueueTypedSlot(unsigned int c) {
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  AppendUtf8(c > 0x10FFFF ? kReplacement : SlotFor(t, c), &t.typed_incoming);
}

void NewFrameTypedSlots() {
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.typed_this_frame.swap(t.typed_incoming);  // what no field took last frame is dropped, as imgui drops keys
  t.typed_incoming.clear();
}

std::vector<UnicodeSlot> UsedSlots() {
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.slots;
}

size_t UsedSlotCount() {
  SlotTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.slots.size();
}

namespace {

// Called every frame while the field has the keyboard: inserts the slots typed this frame at the caret.
int InsertTypedSlots(ImGuiInputTextCallbackData* data) {
  SlotTable& t = Table();
  std::string typed;
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    typed.swap(t.typed_this_frame);
  }
  if (typed.empty()) return 0;
  if (data->HasSelection()) {  // typing replaces the selection
    int lo = std::min(data->SelectionStart, data->SelectionEnd), hi = std::max(data->SelectionStart, data->SelectionEnd);
    data->DeleteChars(lo, hi - lo);
    data->CursorPos = lo;
  }
  data->InsertChars(data->CursorPos, typed.c_str());
  data->SelectionStart = data->SelectionEnd = data->CursorPos;
  return 0;
}

// `edit` runs the imgui field on the slot form of *text; the result is mapped back when it changed.
template <typename Edit>
bool EditAnyUnicode(std::string* text, Edit edit) {
  std::string shown = ToImGui(*text);
  const std::string before = shown;
  bool result = edit(&shown);
  if (shown != before) *text = FromImGui(shown);  // also an edit under EnterReturnsTrue
  return result;
}

}  // namespace

bool InputTextAnyUnicode(const char* label, std::string* text, ImGuiInputTextFlags flags) {
  return EditAnyUnicode(text, [&](std::string* shown) {
    return widget::TextField(label, shown, flags | ImGuiInputTextFlags_CallbackAlways, InsertTypedSlots);
  });
}

bool InputTextMultilineAnyUnicode(const char* label, std::string* text, const ImVec2& size,
                                  ImGuiInputTextFlags flags) {
  return EditAnyUnicode(text, [&](std::string* shown) {
    return widget::TextFieldMultiline(label, shown, size, flags | ImGuiInputTextFlags_CallbackAlways,
                                      InsertTypedSlots);
  });
}

}  // namespace attnviz
