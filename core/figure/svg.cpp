#include "figure/svg.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "figure/canvas.h"  // TextOrigin

namespace attnviz {

namespace {
// Compact number: up to 2 decimals, no trailing zeros.
std::string Num(float v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.2f", v);
  std::string s(buf);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}
}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0.
        if ((unsigned char)c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += "\xEF\xBF\xBD";
        else out += c;
    }
  }
  return out;
}

std::string SvgColor(Rgb c) {
  char buf[8];
  snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

SvgPainter::SvgPainter(int width, int height, std::shared_ptr<const FontSet> fonts, Rgb background)
    : width_(width), height_(height), fonts_(std::move(fonts)) {
  FillRect({0, 0, (float)width, (float)height}, background);
}

void SvgPainter::FillRect(const RectF& r, Rgb color) {
  body_ += "<rect";
  body_ += " x=\"" + Num(r.x) + "\" y=\"" + Num(r.y) + "\" width=\"" + Num(r.w) + "\" height=\"" + Num(r.h) +
           "\" fill=\"" + SvgColor(color) + "\"/>\n";
}

void SvgPainter::StrokeRect(const RectF& r, Rgb color, float lw) {
  body_ += "<rect x=\"" + Num(r.x) + "\" y=\"" + Num(r.y) + "\" width=\"" + Num(r.w) + "\" height=\"" + Num(r.h) +
           "\" fill=\"none\" stroke=\"" + SvgColor(color) + "\" stroke-width=\"" + Num(lw) + "\"/>\n";
}

void SvgPainter::Polyline(const std::vector<PointF>& points, Rgb color, float lw, float dash) {
  if (points.size() < 2) return;
  body_ += "<polyline points=\"";
  for (size_t i = 0; i < points.size(); ++i) body_ += (i ? " " : "") + Num(points[i].x) + "," + Num(points[i].y);
  body_ += "\" fill=\"none\" stroke=\"" + SvgColor(color) + "\" stroke-width=\"" + Num(lw) +
           "\" stroke-linejoin=\"round\" stroke-linecap=\"butt\"";
  if (dash > 0) body_ += " stroke-dasharray=\"" + Num(dash) + "," + Num(dash) + "\"";
  body_ += "/>\n";
}

void SvgPainter::FillCircle(PointF c, float radius, Rgb color) {
  body_ += "<circle cx=\"" + Num(c.x) + "\" cy=\"" + Num(c.y) + "\" r=\"" + Num(radius) + "\" fill=\"" +
           SvgColor(color) + "\"/>\n";
}

void SvgPainter::Text(float x, float y, const std::string& utf8, const TextStyle& style) {
  if (utf8.empty()) return;
  // Horizontal alignment via text-anchor (robust when the viewer's font differs); the baseline
  // shift uses the same metrics as the raster.
  TextStyle left = style;
  left.halign = HAlign::kLeft;
  PointF origin = TextOrigin(*fonts_, utf8, left);
  const char* anchor = style.halign == HAlign::kLeft ? "start" : style.halign == HAlign::kCenter ? "middle" : "end";
  // Rotated text is placed with translate + rotate (the form every renderer understands).
  bool rotated = style.angle != 0;
  body_ += "<text x=\"" + Num(rotated ? 0 : x) + "\" y=\"" + Num((rotated ? 0 : y) + origin.y) + "\" font-size=\"" +
           Num(style.size) + "\" text-anchor=\"" + anchor + "\" fill=\"" + SvgColor(style.color) + "\"";
  if (style.bold) body_ += " font-weight=\"bold\"";
  if (rotated) body_ += " transform=\"translate(" + Num(x) + " " + Num(y) + ") rotate(" + Num(-style.angle) + ")\"";
  body_ += ">" + XmlEscape(utf8) + "</text>\n";
}

void SvgPainter::Gradient(const RectF& r, Colormap colormap, bool vertical) {
  // One rectangle per colormap entry (exact LUT colours; SVG gradients interpolate and some
  // renderers ignore them). Each runs from its band's start to the bar's high end, drawn low to high: the
  // next one covers the rest, so a renderer that snaps sub-pixel bands under crispEdges leaves no gap (256
  // abutting bands showed white hairlines).
  BeginGroup("colorbar", true);
  const unsigned char* lut = ColormapRgb(colormap);
  for (int k = 0; k < kColormapSize; ++k) {
    Rgb c{lut[3 * k], lut[3 * k + 1], lut[3 * k + 2]};
    const float f0 = (float)k / kColormapSize;
    if (vertical) FillRect({r.x, r.y, r.w, (1.0f - f0) * r.h}, c);
    else FillRect({r.x + f0 * r.w, r.y, (1.0f - f0) * r.w, r.h}, c);
  }
  EndGroup();
}

std::string Base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = (uint32_t)(unsigned char)bytes[i] << 16;
    if (i + 1 < bytes.size()) v |= (uint32_t)(unsigned char)bytes[i + 1] << 8;
    if (i + 2 < bytes.size()) v |= (uint32_t)(unsigned char)bytes[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

void SvgPainter::Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) {
  body_ += "<image x=\"" + Num(r.x) + "\" y=\"" + Num(r.y) + "\" width=\"" + Num(r.w) + "\" height=\"" + Num(r.h) +
           "\" preserveAspectRatio=\"none\" image-rendering=\"pixelated\" style=\"image-rendering:pixelated\"" +
           " xlink:href=\"data:image/png;base64," + Base64(EncodeRgbPng(width, height, rgb.data())) + "\"/>\n";
}

void SvgPainter::SetPhysicalSize(float width_in, float height_in) {
  width_in_ = width_in;
  height_in_ = height_in;
}

void SvgPainter::BeginGroup(const std::string& id, bool crisp) {
  body_ += "<g id=\"" + XmlEscape(id) + "\"" + (crisp ? " shape-rendering=\"crispEdges\"" : "") + ">\n";
}

void SvgPainter::EndGroup() { body_ += "</g>\n"; }

std::string SvgPainter::Finish() const {
  std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  std::string w = std::to_string(width_), h = std::to_string(height_);
  if (width_in_ > 0 && height_in_ > 0) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.5gin", width_in_);
    w = buf;
    snprintf(buf, sizeof buf, "%.5gin", height_in_);
    h = buf;
  }
  doc += "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"" +
         w + "\" height=\"" + h + "\" viewBox=\"0 0 " + std::to_string(width_) + " " +
         std::to_string(height_) + "\" font-family=\"DejaVu Sans, NanumGothic, sans-serif\">\n";
  doc += body_;
  doc += "</svg>\n";
  return doc;
}

}  // namespace attnviz
