// Text for figures: stb_truetype over two Debian fonts, chosen per glyph.
//   DejaVu Sans  (fonts-dejavu-core) Latin, Greek, Cyrillic, symbols
//   NanumGothic  (fonts-nanum)       Hangul, when DejaVu Sans has no glyph for the code point
// A code point neither font has is drawn as DejaVu Sans's missing-glyph box (glyph 0).
// Sizes are em sizes in pixels (the same meaning as SVG/CSS font-size), so the raster and the
// SVG backend lay text out alike.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace attnviz {

struct GlyphRef {
  int font = 0;   // 0 = DejaVu Sans, 1 = NanumGothic
  int glyph = 0;  // glyph index in that font; 0 = missing-glyph box
};

// An 8-bit coverage image (0 = no ink, 255 = full ink), row-major.
struct AlphaMask {
  int width = 0, height = 0;
  std::vector<unsigned char> data;
};

class FontSet {
 public:
  // The process-wide fonts, loaded once (thread-safe). Looks in $ATTNVIZ_FONT_DIR only when that is
  // set (tests use it), else the Debian paths, else `fc-list`. A missing font is an error naming the
  // Debian package to install.
  static Result<std::shared_ptr<const FontSet>> Default();
  // Explicit files (errors name the file and the package).
  static Result<std::shared_ptr<const FontSet>> Load(const std::string& latin_path, const std::string& hangul_path);
  // Where Default() looks for a font file name ("DejaVuSans.ttf"): the path, or an error naming `package`.
  static Result<std::string> FindFontFile(const std::string& file_name, const std::string& family,
                                          const std::string& package);

  ~FontSet();
  FontSet(const FontSet&) = delete;
  FontSet& operator=(const FontSet&) = delete;

  GlyphRef Glyph(char32_t code_point) const;
  // Pixels per font unit for an em size in pixels.
  float Scale(int font, float size_px) const;
  // Line metrics of the Latin font (used for every line so baselines match): ascent above the
  // baseline and descent below it, both positive, in pixels.
  float Ascent(float size_px) const;
  float Descent(float size_px) const;
  float TextWidth(const std::string& utf8, float size_px) const;
  // `utf8` when it fits in max_width pixels, else its longest prefix + "…" that fits.
  std::string Ellipsize(const std::string& utf8, float size_px, float max_width) const;
  // Renders one line horizontally. The baseline's left end lands at (*origin_x, *origin_y) in the mask.
  void RenderLine(const std::string& utf8, float size_px, AlphaMask* mask, float* origin_x, float* origin_y) const;
  // Renders a single glyph at the origin of a fresh mask (tests compare Hangul with the missing box).
  void RenderGlyph(GlyphRef glyph, float size_px, AlphaMask* mask) const;

  const std::string& path(int font) const;

  struct Impl;  // opaque (stb_truetype state)

 private:
  explicit FontSet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Lenient UTF-8 decoding for labels (bad bytes become U+FFFD).
std::u32string DecodeUtf8Lenient(const std::string& text);
std::string EncodeUtf8(const std::u32string& text);

}  // namespace attnviz
