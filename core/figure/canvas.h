// The raster backend: an RGB8 image with anti-aliased shapes and stb_truetype text, encoded to PNG
// with stb_image_write.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "font.h"
#include "painter.h"

namespace attnviz {

class Canvas : public Painter {
 public:
  Canvas(int width, int height, std::shared_ptr<const FontSet> fonts, Rgb background = kWhite);

  int width() const { return width_; }
  int height() const { return height_; }
  // RGB8, row-major, no padding: [height, width, 3].
  const std::vector<unsigned char>& pixels() const { return pixels_; }
  Rgb At(int x, int y) const;

  void FillRect(const RectF& r, Rgb color) override;
  void StrokeRect(const RectF& r, Rgb color, float line_width) override;
  void Polyline(const std::vector<PointF>& points, Rgb color, float line_width, float dash = 0) override;
  void FillCircle(PointF center, float radius, Rgb color) override;
  void Text(float x, float y, const std::string& utf8, const TextStyle& style) override;
  void Gradient(const RectF& r, Colormap colormap, bool vertical) override;

  // Blends `color` over pixel (x, y) with coverage alpha in [0, 1]; outside the image is ignored.
  void Blend(int x, int y, Rgb color, float alpha);
  // The PNG file bytes (RGB, 8 bit).
  std::string EncodePng() const;

 private:
  int width_, height_;
  std::shared_ptr<const FontSet> fonts_;
  std::vector<unsigned char> pixels_;
};

// The offset from a text anchor to the text's baseline origin, in the text's own frame
// (both backends use it, so the SVG and the PNG put text at the same place).
PointF TextOrigin(const FontSet& fonts, const std::string& utf8, const TextStyle& style);

}  // namespace attnviz
