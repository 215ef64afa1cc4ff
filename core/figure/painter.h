// The drawing interface a figure is painted through. A figure computes its layout once and then
// issues the same calls to either backend: Canvas (RGB raster -> PNG) or SvgPainter (SVG text).
// Coordinates are pixels, origin top left, y down.
#pragma once
#include <string>
#include <vector>

#include "color/colormap.h"

namespace attnviz {

struct Rgb {
  unsigned char r = 0, g = 0, b = 0;
};
inline bool operator==(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};

struct PointF {
  float x = 0, y = 0;
};
struct RectF {
  float x = 0, y = 0, w = 0, h = 0;
  float right() const { return x + w; }
  float bottom() const { return y + h; }
  bool contains(float px, float py) const { return px >= x && px < x + w && py >= y && py < y + h; }
};

enum class HAlign { kLeft, kCenter, kRight };
// kMiddle centres the font's ascent..descent box on the anchor.
enum class VAlign { kBaseline, kMiddle, kTop, kBottom };

struct TextStyle {
  float size = 12;  // em size, pixels
  Rgb color = kBlack;
  HAlign halign = HAlign::kLeft;
  VAlign valign = VAlign::kBaseline;
  float angle = 0;  // degrees, counter-clockwise (90 = reads bottom to top)
  bool bold = false;  // SVG only (the raster fonts are regular): used for titles
};

class Painter {
 public:
  virtual ~Painter() = default;
  // A filled rectangle.
  virtual void FillRect(const RectF& r, Rgb color) = 0;
  virtual void StrokeRect(const RectF& r, Rgb color, float line_width) = 0;
  // dash > 0: dashes and gaps of that length.
  virtual void Polyline(const std::vector<PointF>& points, Rgb color, float line_width, float dash = 0) = 0;
  virtual void FillCircle(PointF center, float radius, Rgb color) = 0;
  // (x, y) is the anchor, in the rotated frame of the text.
  virtual void Text(float x, float y, const std::string& utf8, const TextStyle& style) = 0;
  // The colormap from low (bottom, or left when !vertical) to high.
  virtual void Gradient(const RectF& r, Colormap colormap, bool vertical) = 0;
  // An RGB image ([height, width, 3]) stretched over r, nearest neighbour (each pixel a crisp cell).
  virtual void Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) = 0;
  // Named groups (SVG <g id="...">; the raster ignores them). crisp: no anti-aliasing seams
  // between adjacent rectangles.
  virtual void BeginGroup(const std::string& id, bool crisp = false) {}
  virtual void EndGroup() {}
  void Line(PointF a, PointF b, Rgb color, float line_width, float dash = 0) { Polyline({a, b}, color, line_width, dash); }
};

}  // namespace attnviz
