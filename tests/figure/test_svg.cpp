// The SVG painter (core/figure/svg.h): the colorbar's bands leave no gap a renderer could show as a hairline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "color/colormap.h"
#include "figure/svg.h"

namespace attnviz {
namespace {

struct SvgRect {
  float x, y, w, h;
  std::string fill;
};

// The rects inside <g id="colorbar" ...> ... </g>.
std::vector<SvgRect> ColorbarRects(const std::string& svg) {
  const size_t begin = svg.find("<g id=\"colorbar\"");
  const size_t end = svg.find("</g>", begin);
  std::vector<SvgRect> rects;
  if (begin == std::string::npos || end == std::string::npos) return rects;
  const std::string group = svg.substr(begin, end - begin);
  static const std::regex kRect(
      "<rect x=\"([-0-9.e]+)\" y=\"([-0-9.e]+)\" width=\"([-0-9.e]+)\" height=\"([-0-9.e]+)\" fill=\"(#[0-9a-f]{6})\"");
  for (auto it = std::sregex_iterator(group.begin(), group.end(), kRect); it != std::sregex_iterator(); ++it)
    rects.push_back({std::stof((*it)[1]), std::stof((*it)[2]), std::stof((*it)[3]), std::stof((*it)[4]), (*it)[5]});
  return rects;
}

// The colour a renderer paints at (x, y): the last rect drawn that holds the point, "" for none (the page shows).
std::string PaintedAt(const std::vector<SvgRect>& rects, float x, float y) {
  std::string fill;
  for (const SvgRect& r : rects)
    if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) fill = r.fill;
  return fill;
}

std::string LutHex(Colormap colormap, int k) {
  return SvgColor({ColormapRgb(colormap)[3 * k], ColormapRgb(colormap)[3 * k + 1], ColormapRgb(colormap)[3 * k + 2]});
}

TEST(Svg, ColorbarBandsCoverTheBarWithoutGapsAtAnyRowSnapping) {
  const RectF bar{10, 20, 14, 173};  // 173 px for 256 entries: bands of 0.68 px, which crispEdges snaps
  SvgPainter painter(60, 220, nullptr, Rgb{255, 255, 255});
  painter.Gradient(bar, Colormap::kViridis, true);
  const std::vector<SvgRect> rects = ColorbarRects(painter.Finish());
  ASSERT_EQ(rects.size(), (size_t)kColormapSize);
  for (const SvgRect& r : rects) {
    // Snapped to whole pixels, a band still reaches the bar's top: no row left to the white page.
    EXPECT_FLOAT_EQ(r.y, bar.y);
    EXPECT_GE(std::round(r.y + r.h), std::round(bar.y) + 1);
  }
  // Each row shows the entry its height maps to: the bottom row entry 0, the top row entry 255.
  for (float y = bar.y + 0.5f; y < bar.bottom(); y += 1.0f) {
    // The entry its height maps to (a row centre on a band edge may round to the neighbour either way).
    const int k = std::min(kColormapSize - 1, (int)((bar.bottom() - y) / bar.h * kColormapSize));
    const std::string painted = PaintedAt(rects, bar.x + 1, y);
    EXPECT_TRUE(painted == LutHex(Colormap::kViridis, k) || painted == LutHex(Colormap::kViridis, std::max(0, k - 1)) ||
                painted == LutHex(Colormap::kViridis, std::min(kColormapSize - 1, k + 1)))
        << "row " << y << ": " << painted;
  }
}

TEST(Svg, HorizontalColorbarRunsLowToHighLeftToRight) {
  const RectF bar{5, 5, 100, 10};
  SvgPainter painter(120, 20, nullptr, Rgb{255, 255, 255});
  painter.Gradient(bar, Colormap::kMagma, false);
  const std::vector<SvgRect> rects = ColorbarRects(painter.Finish());
  ASSERT_EQ(rects.size(), (size_t)kColormapSize);
  EXPECT_EQ(PaintedAt(rects, bar.x + 0.1f, bar.y + 1), LutHex(Colormap::kMagma, 0));
  EXPECT_EQ(PaintedAt(rects, bar.right() - 0.1f, bar.y + 1), LutHex(Colormap::kMagma, kColormapSize - 1));
  for (const SvgRect& r : rects) EXPECT_NEAR(r.x + r.w, bar.right(), 1e-3);
}

}  // namespace
}  // namespace attnviz
