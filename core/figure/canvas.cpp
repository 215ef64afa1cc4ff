#include "figure/canvas.h"

#include <stb_image_write.h>  // implementation is in libstb

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace attnviz {

namespace {
constexpr float kPi = 3.14159265358979f;

float Overlap(float a0, float a1, float b0, float b1) { return std::max(0.0f, std::min(a1, b1) - std::max(a0, b0)); }

float DistanceToSegment(float px, float py, PointF a, PointF b) {
  float vx = b.x - a.x, vy = b.y - a.y;
  float len2 = vx * vx + vy * vy;
  float t = len2 > 0 ? ((px - a.x) * vx + (py - a.y) * vy) / len2 : 0.0f;
  t = std::clamp(t, 0.0f, 1.0f);
  float dx = px - (a.x + t * vx), dy = py - (a.y + t * vy);
  return std::sqrt(dx * dx + dy * dy);
}

void PngWrite(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), (size_t)size);
}
}  // namespace

PointF TextOrigin(const FontSet& fonts, const std::string& utf8, const TextStyle& style) {
  PointF o;
  if (style.halign != HAlign::kLeft) {
    float w = fonts.TextWidth(utf8, style.size);
    o.x = style.halign == HAlign::kCenter ? -0.5f * w : -w;
  }
  float a = fonts.Ascent(style.size), d = fonts.Descent(style.size);
  switch (style.valign) {
    case VAlign::kBaseline: o.y = 0; break;
    case VAlign::kMiddle: o.y = 0.5f * (a - d); break;
    case VAlign::kTop: o.y = a; break;
    case VAlign::kBottom: o.y = -d; break;
  }
  return o;
}

Canvas::Canvas(int width, int height, std::shared_ptr<const FontSet> fonts, Rgb background)
    : width_(std::max(1, width)), height_(std::max(1, height)), fonts_(std::move(fonts)) {
  pixels_.resize((size_t)width_ * height_ * 3);
  for (size_t i = 0; i < pixels_.size(); i += 3) {
    pixels_[i] = background.r;
    pixels_[i + 1] = background.g;
    pixels_[i + 2] = background.b;
  }
}

Rgb Canvas::At(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return Rgb{};
  const unsigned char* p = &pixels_[((size_t)y * width_ + x) * 3];
  return Rgb{p[0], p[1], p[2]};
}

void Canvas::Blend(int x, int y, Rgb c, float alpha) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_ || !(alpha > 0)) return;
  unsigned char* p = &pixels_[((size_t)y * width_ + x) * 3];
  if (alpha >= 1.0f) {
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
    return;
  }
  p[0] = (unsigned char)std::lround(p[0] + (c.r - p[0]) * alpha);
  p[1] = (unsigned char)std::lround(p[1] + (c.g - p[1]) * alpha);
  p[2] = (unsigned char)std::lround(p[2] + (c.b - p[2]) * alpha);
}

void Canvas::FillRect(const RectF& r, Rgb color) {
  int x0 = std::max(0, (int)std::floor(r.x)), x1 = std::min(width_, (int)std::ceil(r.right()));
  int y0 = std::max(0, (int)std::floor(r.y)), y1 = std::min(height_, (int)std::ceil(r.bottom()));
  for (int y = y0; y < y1; ++y) {
    float cy = Overlap((float)y, y + 1.0f, r.y, r.bottom());
    for (int x = x0; x < x1; ++x) Blend(x, y, color, cy * Overlap((float)x, x + 1.0f, r.x, r.right()));
  }
}

void Canvas::StrokeRect(const RectF& r, Rgb color, float lw) {
  FillRect({r.x - lw / 2, r.y - lw / 2, r.w + lw, lw}, color);
  FillRect({r.x - lw / 2, r.bottom() - lw / 2, r.w + lw, lw}, color);
  FillRect({r.x - lw / 2, r.y + lw / 2, lw, r.h - lw}, color);
  FillRect({r.right() - lw / 2, r.y + lw / 2, lw, r.h - lw}, color);
}

void Canvas::Polyline(const std::vector<PointF>& points, Rgb color, float lw, float dash) {
  if (points.size() < 2) return;
  // The pieces of the line that carry ink (all of it, or the dashes).
  std::vector<std::pair<PointF, PointF>> pieces;
  if (dash <= 0) {
    for (size_t i = 1; i < points.size(); ++i) pieces.push_back({points[i - 1], points[i]});
  } else {
    float phase = 0;  // distance along the dash pattern [0, 2*dash)
    for (size_t i = 1; i < points.size(); ++i) {
      PointF a = points[i - 1], b = points[i];
      float len = std::hypot(b.x - a.x, b.y - a.y);
      float s = 0;
      while (s < len) {
        float left = (phase < dash ? dash : 2 * dash) - phase;
        float step = std::min(left, len - s);
        if (phase < dash) {
          float t0 = s / len, t1 = (s + step) / len;
          pieces.push_back({{a.x + (b.x - a.x) * t0, a.y + (b.y - a.y) * t0}, {a.x + (b.x - a.x) * t1, a.y + (b.y - a.y) * t1}});
        }
        s += step;
        phase = std::fmod(phase + step, 2 * dash);
      }
    }
  }
  // Coverage = max over pieces, blended once, so joints are not darker than the line.
  float minx = 1e30f, miny = 1e30f, maxx = -1e30f, maxy = -1e30f;
  for (auto& p : pieces) {
    minx = std::min({minx, p.first.x, p.second.x});
    maxx = std::max({maxx, p.first.x, p.second.x});
    miny = std::min({miny, p.first.y, p.second.y});
    maxy = std::max({maxy, p.first.y, p.second.y});
  }
  float pad = lw / 2 + 1;
  int bx0 = std::max(0, (int)std::floor(minx - pad)), bx1 = std::min(width_, (int)std::ceil(maxx + pad));
  int by0 = std::max(0, (int)std::floor(miny - pad)), by1 = std::min(height_, (int)std::ceil(maxy + pad));
  if (bx0 >= bx1 || by0 >= by1) return;
  int bw = bx1 - bx0, bh = by1 - by0;
  std::vector<float> coverage((size_t)bw * bh, 0.0f);
  for (auto& p : pieces) {
    int x0 = std::max(bx0, (int)std::floor(std::min(p.first.x, p.second.x) - pad));
    int x1 = std::min(bx1, (int)std::ceil(std::max(p.first.x, p.second.x) + pad));
    int y0 = std::max(by0, (int)std::floor(std::min(p.first.y, p.second.y) - pad));
    int y1 = std::min(by1, (int)std::ceil(std::max(p.first.y, p.second.y) + pad));
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        float d = DistanceToSegment(x + 0.5f, y + 0.5f, p.first, p.second);
        float c = std::clamp(lw / 2 + 0.5f - d, 0.0f, 1.0f);
        float& dst = coverage[(size_t)(y - by0) * bw + (x - bx0)];
        dst = std::max(dst, c);
      }
  }
  for (int y = by0; y < by1; ++y)
    for (int x = bx0; x < bx1; ++x) Blend(x, y, color, coverage[(size_t)(y - by0) * bw + (x - bx0)]);
}

void Canvas::FillCircle(PointF c, float radius, Rgb color) {
  int x0 = std::max(0, (int)std::floor(c.x - radius - 1)), x1 = std::min(width_, (int)std::ceil(c.x + radius + 1));
  int y0 = std::max(0, (int)std::floor(c.y - radius - 1)), y1 = std::min(height_, (int)std::ceil(c.y + radius + 1));
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      float d = std::hypot(x + 0.5f - c.x, y + 0.5f - c.y);
      Blend(x, y, color, std::clamp(radius + 0.5f - d, 0.0f, 1.0f));
    }
}

void Canvas::Text(float x, float y, const std::string& utf8, const TextStyle& style) {
  if (utf8.empty()) return;
  AlphaMask mask;
  float ox = 0, oy = 0;
  fonts_->RenderLine(utf8, style.size, &mask, &ox, &oy);
  if (mask.width == 0 || mask.height == 0) return;
  PointF origin = TextOrigin(*fonts_, utf8, style);
  float th = style.angle * kPi / 180.0f;
  float cs = std::cos(th), sn = std::sin(th);
  if (std::fabs(cs) < 1e-6f) cs = 0;
  if (std::fabs(sn) < 1e-6f) sn = 0;
  // Local text frame (u right along the text, v down) -> canvas: (x + u cs + v sn, y - u sn + v cs).
  // The mask's top-left corner sits at local (origin.x - ox, origin.y - oy); snap it to a pixel corner
  // so unrotated and quarter-turned text stays crisp.
  float lu = origin.x - ox, lv = origin.y - oy;
  float cx = x + lu * cs + lv * sn, cy = y - lu * sn + lv * cs;
  x += std::round(cx) - cx;
  y += std::round(cy) - cy;
  // Canvas bounding box of the mask.
  float us[2] = {lu, lu + mask.width}, vs[2] = {lv, lv + mask.height};
  float minx = 1e30f, maxx = -1e30f, miny = 1e30f, maxy = -1e30f;
  for (float u : us)
    for (float v : vs) {
      float px = x + u * cs + v * sn, py = y - u * sn + v * cs;
      minx = std::min(minx, px);
      maxx = std::max(maxx, px);
      miny = std::min(miny, py);
      maxy = std::max(maxy, py);
    }
  int x0 = std::max(0, (int)std::floor(minx) - 1), x1 = std::min(width_, (int)std::ceil(maxx) + 1);
  int y0 = std::max(0, (int)std::floor(miny) - 1), y1 = std::min(height_, (int)std::ceil(maxy) + 1);
  auto sample = [&](int mx, int my) -> float {
    if (mx < 0 || my < 0 || mx >= mask.width || my >= mask.height) return 0.0f;
    return mask.data[(size_t)my * mask.width + mx] / 255.0f;
  };
  for (int py = y0; py < y1; ++py)
    for (int px = x0; px < x1; ++px) {
      float dx = px + 0.5f - x, dy = py + 0.5f - y;
      float u = dx * cs - dy * sn, v = dx * sn + dy * cs;
      float mx = u - lu - 0.5f, my = v - lv - 0.5f;  // mask pixel-centre coordinates
      int ix = (int)std::floor(mx), iy = (int)std::floor(my);
      float fx = mx - ix, fy = my - iy;
      float a = sample(ix, iy) * (1 - fx) * (1 - fy) + sample(ix + 1, iy) * fx * (1 - fy) +
                sample(ix, iy + 1) * (1 - fx) * fy + sample(ix + 1, iy + 1) * fx * fy;
      Blend(px, py, style.color, a);
    }
}

void Canvas::Gradient(const RectF& r, Colormap colormap, bool vertical) {
  int x0 = std::max(0, (int)std::lround(r.x)), x1 = std::min(width_, (int)std::lround(r.right()));
  int y0 = std::max(0, (int)std::lround(r.y)), y1 = std::min(height_, (int)std::lround(r.bottom()));
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      float t = vertical ? (r.bottom() - (y + 0.5f)) / r.h : (x + 0.5f - r.x) / r.w;
      unsigned char rgb[3];
      MapColor(colormap, t, rgb);
      Blend(x, y, Rgb{rgb[0], rgb[1], rgb[2]}, 1.0f);
    }
}

void Canvas::Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) {
  if (width <= 0 || height <= 0 || rgb.size() < (size_t)width * height * 3 || !(r.w > 0) || !(r.h > 0)) return;
  int x0 = std::max(0, (int)std::lround(r.x)), x1 = std::min(width_, (int)std::lround(r.right()));
  int y0 = std::max(0, (int)std::lround(r.y)), y1 = std::min(height_, (int)std::lround(r.bottom()));
  for (int y = y0; y < y1; ++y) {
    int sy = std::min(height - 1, (int)((y + 0.5f - r.y) / r.h * height));
    for (int x = x0; x < x1; ++x) {
      int sx = std::min(width - 1, (int)((x + 0.5f - r.x) / r.w * width));
      const unsigned char* p = &rgb[((size_t)sy * width + sx) * 3];
      Blend(x, y, Rgb{p[0], p[1], p[2]}, 1.0f);
    }
  }
}

uint32_t PngCrc(const unsigned char* data, size_t n, uint32_t crc) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::string InsertPngDpi(const std::string& png, float dpi) {
  // Signature (8) + IHDR chunk (4 length + 4 type + 13 data + 4 CRC) = 33 bytes.
  if (!(dpi > 0) || png.size() < 33 || png.compare(12, 4, "IHDR") != 0) return png;
  const uint32_t ppm = (uint32_t)std::lround(dpi / 0.0254);
  unsigned char chunk[4 + 4 + 9 + 4];
  auto put32 = [](unsigned char* p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
  };
  put32(chunk, 9);
  std::memcpy(chunk + 4, "pHYs", 4);
  put32(chunk + 8, ppm);
  put32(chunk + 12, ppm);
  chunk[16] = 1;  // unit: the metre
  put32(chunk + 17, PngCrc(chunk + 4, 4 + 9));
  return png.substr(0, 33) + std::string(reinterpret_cast<const char*>(chunk), sizeof chunk) + png.substr(33);
}

std::string EncodeRgbPng(int width, int height, const unsigned char* rgb, float dpi) {
  std::string out;
  stbi_write_png_to_func(PngWrite, &out, width, height, 3, rgb, width * 3);
  return InsertPngDpi(out, dpi);
}

std::string Canvas::EncodePng(float dpi) const { return EncodeRgbPng(width_, height_, pixels_.data(), dpi); }

}  // namespace attnviz
