// Fonts: DejaVu Sans with NanumGothic merged in for Hangul. The glyph ranges are built from both
// languages' UI strings (ui_strings.h) and the text actually loaded (the full Korean range costs ~200 ms
// and a 2048x4096 atlas; the code points used cost ~7 ms), and the atlas is rebuilt between frames when
// new characters arrive.
#pragma once
#include <imgui.h>

#include <set>
#include <string>

namespace attnviz {

// The path of a font family (asks fontconfig with fc-match, then tries `fallback`); "" if none.
std::string FindFontFile(const std::string& family, const std::string& fallback);

class UiFonts {
 public:
  UiFonts();
  // Notes the code points of `utf8`; returns true when some were new (call Build before the next frame).
  bool AddText(const std::string& utf8);
  bool dirty() const { return dirty_; }
  void Invalidate() { dirty_ = true; }  // e.g. the window moved to a screen with another scale
  // Rebuilds `atlas` at `size_px` (the caller re-uploads the font texture). Returns "" or a message
  // naming the missing font (the default ImGui font is used then).
  std::string Build(ImFontAtlas* atlas, float size_px);
  size_t codepoint_count() const { return codepoints_.size(); }

 private:
  std::set<ImWchar> codepoints_;
  ImVector<ImWchar> ranges_;  // must outlive the atlas build
  bool dirty_ = true;
  std::string dejavu_, nanum_;
  bool searched_ = false;
};

}  // namespace attnviz
