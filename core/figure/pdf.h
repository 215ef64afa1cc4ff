// The PDF backend: the same Painter calls as the raster and the SVG, written as one PDF 1.4 page whose size is the
// figure at its DPI (72 points an inch). Vector cells, lines and colorbars; large cell maps as one image (FlateDecode,
// drawn unsmoothed). Text is the standard Helvetica font in WinAnsiEncoding, placed with the figure's own layout
// (the shared font metrics) and aligned with Helvetica's widths, so nothing is embedded and any PDF reader shows it.
// Characters WinAnsi has no code for are spelled out when that reads the same (sqrt(d_k) for the root sign, 10^-3
// for superscripts, - for the minus sign); any other (Hangul, Greek, ...) makes Finish() an error naming it.
// The bytes depend only on the calls: no dates, no ids (the same figure gives the same file).
#pragma once
#include <memory>
#include <string>

#include "base/status.h"
#include "figure/font.h"
#include "figure/painter.h"

namespace attnviz {

class PdfPainter : public Painter {
 public:
  // width x height pixels at `dpi` pixels per inch (the page is width/dpi x height/dpi inches).
  PdfPainter(int width, int height, float dpi, std::shared_ptr<const FontSet> fonts, Rgb background = kWhite);

  void FillRect(const RectF& r, Rgb color) override;
  void StrokeRect(const RectF& r, Rgb color, float line_width) override;
  void Polyline(const std::vector<PointF>& points, Rgb color, float line_width, float dash = 0) override;
  void FillCircle(PointF center, float radius, Rgb color) override;
  void Text(float x, float y, const std::string& utf8, const TextStyle& style) override;
  void Gradient(const RectF& r, Colormap colormap, bool vertical) override;
  void Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) override;

  // The document's Info title (the figure's title; UTF-16 there, so any script).
  void SetTitle(const std::string& utf8) { title_ = utf8; }
  // The whole file, or the error for text the standard font cannot show.
  Result<std::string> Finish() const;

 private:
  int width_, height_;
  float dpi_;
  std::shared_ptr<const FontSet> fonts_;
  std::string content_;
  std::vector<std::string> images_;  // each an image XObject's dictionary entries + stream
  std::string title_;
  std::string refused_;  // the first text WinAnsi cannot show, and why
};

// UTF-8 -> WinAnsiEncoding bytes, with the spelled-out forms above. False (and *bad the first code point that has
// no form) when some character cannot be shown.
bool ToWinAnsi(const std::string& utf8, std::string* out, char32_t* bad);
// Helvetica's width of WinAnsi bytes, in 1/1000 em.
int HelveticaWidth(const std::string& win_ansi);

}  // namespace attnviz
