// Fonts: DejaVu Sans with NanumGothic merged in for Hangul. The glyph ranges are built from both
// languages' UI strings (ui_strings.h) and the text actually loaded (the full Korean range would cost a large
// atlas and a slow first frame; docs/speed.md), and the atlas is rebuilt between frames when new characters arrive.
#pragma once
#include <imgui.h>

#include <set>
#include <string>

#include "slot_glyphs.h"

namespace attnviz {

// The path of a font family (asks fontconfig with fc-match, then tries `fallback`); "" if none.
std::string FindFontFile(const std::string& family, const std::string& fallback);

class UiFonts {
 public:
  UiFonts();
  // Notes the code points of `utf8`; returns true when some were new (call Build before the next frame).
  bool AddText(const std::string& utf8);
  // Also when a code point beyond U+FFFF got a slot since the last build (unicode_slots.h).
  bool dirty() const;
  void Invalidate() { dirty_ = true; }  // e.g. the window moved to a screen with another scale
  // Rebuilds `atlas` at `size_px` (the caller re-uploads the font texture). Returns "" or a message
  // naming the missing font (the default ImGui font is used then).
  std::string Build(ImFontAtlas* atlas, float size_px);
  size_t codepoint_count() const { return codepoints_.size(); }
  // Slots drawn in the atlas, and how many of them from a font (the rest are boxes).
  size_t slot_glyph_count() const { return slot_glyphs_.built(); }
  int slot_glyphs_from_fonts() const { return slot_glyphs_.from_fonts(); }

 private:
  std::set<ImWchar> codepoints_;
  ImVector<ImWchar> ranges_;  // must outlive the atlas build
  bool dirty_ = true;
  std::string dejavu_, nanum_, symbola_;
  SlotGlyphs slot_glyphs_;
  bool searched_ = false;
};

}  // namespace attnviz
