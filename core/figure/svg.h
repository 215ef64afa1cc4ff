// The vector backend: the same Painter calls as the raster, written as SVG 1.1 (UTF-8, valid XML).
// Text stays text (font-family DejaVu Sans, NanumGothic); positions use the same font metrics as the
// raster, so both backends share one layout.
#pragma once
#include <memory>
#include <string>

#include "figure/font.h"
#include "figure/painter.h"

namespace attnviz {

class SvgPainter : public Painter {
 public:
  SvgPainter(int width, int height, std::shared_ptr<const FontSet> fonts, Rgb background = kWhite);

  void FillRect(const RectF& r, Rgb color) override;
  void StrokeRect(const RectF& r, Rgb color, float line_width) override;
  void Polyline(const std::vector<PointF>& points, Rgb color, float line_width, float dash = 0) override;
  void FillCircle(PointF center, float radius, Rgb color) override;
  void Text(float x, float y, const std::string& utf8, const TextStyle& style) override;
  void Gradient(const RectF& r, Colormap colormap, bool vertical) override;
  // An <image> holding the pixels as a base64 PNG data URI, drawn unsmoothed.
  void Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) override;
  void BeginGroup(const std::string& id, bool crisp = false) override;
  void EndGroup() override;

  // The document's width and height attributes in inches (the viewBox stays in pixels).
  void SetPhysicalSize(float width_in, float height_in);
  // The whole document (closes the root element).
  std::string Finish() const;

 private:
  int width_, height_;
  float width_in_ = 0, height_in_ = 0;
  std::shared_ptr<const FontSet> fonts_;
  std::string body_;
};

std::string XmlEscape(const std::string& text);
std::string SvgColor(Rgb color);  // "#rrggbb"
std::string Base64(const std::string& bytes);

}  // namespace attnviz
