// The raster backend: an RGB8 image with anti-aliased shapes and stb_truetype text, encoded to PNG
// with stb_image_write.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "figure/font.h"
#include "figure/painter.h"

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
  void Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) override;

  // Blends `color` over pixel (x, y) with coverage alpha in [0, 1]; outside the image is ignored.
  void Blend(int x, int y, Rgb color, float alpha);
  // The PNG file bytes (RGB, 8 bit); dpi > 0 is recorded in a pHYs chunk (pixels per metre).
  std::string EncodePng(float dpi = 0) const;

 private:
  int width_, height_;
  std::shared_ptr<const FontSet> fonts_;
  std::vector<unsigned char> pixels_;
};

// RGB8 pixels ([height, width, 3]) as PNG bytes (stb_image_write), with a pHYs chunk when dpi > 0.
std::string EncodeRgbPng(int width, int height, const unsigned char* rgb, float dpi = 0);
// Inserts a pHYs chunk (dpi as pixels per metre, both axes) right after IHDR, where the PNG spec wants
// it (before IDAT); stb_image_write writes none. Input that is not a PNG is returned unchanged.
std::string InsertPngDpi(const std::string& png, float dpi);
// The CRC-32 of PNG chunks (ISO 3309, as zlib's crc32).
uint32_t PngCrc(const unsigned char* data, size_t n, uint32_t crc = 0);

// The offset from a text anchor to the text's baseline origin, in the text's own frame
// (both backends use it, so the SVG and the PNG put text at the same place).
PointF TextOrigin(const FontSet& fonts, const std::string& utf8, const TextStyle& style);

}  // namespace attnviz
