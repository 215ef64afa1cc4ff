// The glyphs of the Unicode slots (unicode_slots.h): each slot is drawn with the real code point's glyph,
// rasterized with stb_truetype from the first font that has it (DejaVu Sans, NanumGothic, then the
// monochrome Symbola from fonts-symbola for emoji), or as a hollow box when none has it, into a custom
// rectangle of imgui's font atlas. (Debian's colour emoji font is bitmap-only, which stb_truetype cannot draw.)
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace attnviz {

class SlotGlyphs {
 public:
  // The font files to look in, in order; the first one's ascent is the baseline (files read once).
  void SetFonts(const std::vector<std::string>& paths);
  // Before atlas->Build(): a rectangle in `font` for every slot used so far, at `size_px`.
  void AddRects(ImFontAtlas* atlas, ImFont* font, float size_px);
  // After atlas->Build(): draws the glyphs into the atlas's alpha texture (before it is uploaded).
  void Draw(ImFontAtlas* atlas);
  size_t built() const { return built_; }
  // How many of the built slots came from a font (the rest are boxes).
  int from_fonts() const { return from_fonts_; }

 private:
  struct Placed {
    int rect_id = -1;
    int font = -1;  // index into fonts_, -1: a box
    int glyph = 0;
    float scale = 1.0f;
    int w = 0, h = 0;
  };
  std::vector<std::string> paths_;
  std::vector<std::string> data_;  // file bytes, kept for stb_truetype
  std::vector<Placed> placed_;
  size_t built_ = 0;
  int from_fonts_ = 0;
};

}  // namespace attnviz
