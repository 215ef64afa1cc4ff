#include "figure/pdf.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "base/messages.h"
#include "figure/canvas.h"  // TextOrigin

// libstb's zlib stream (the PNG writer's): not in the header's declarations, but exported by the library.
extern "C" unsigned char* stbi_zlib_compress(unsigned char* data, int data_len, int* out_len, int quality);

namespace attnviz {

namespace {

constexpr float kPi = 3.14159265358979f;

// Helvetica's advance widths (1/1000 em, from its AFM) for WinAnsi codes 32..255; 0 where WinAnsi has no glyph.
const short kHelveticaWidths[224] = {
    // 32..63: space ! " # $ % & ' ( ) * + , - . / 0-9 : ; < = > ?
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556,
    556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    // 64..95: @ A-Z [ \ ] ^ _
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722,
    667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    // 96..127: ` a-z { | } ~ (127 unused)
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556,
    500, 722, 500, 500, 500, 334, 260, 334, 584, 0,
    // 128..159: € . ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ . Ž . . ‘ ’ “ ” • – — ˜ ™ š › œ . ž Ÿ
    556, 0, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0, 0, 222, 222, 333, 333, 350, 556,
    1000, 333, 1000, 500, 333, 944, 0, 500, 667,
    // 160..191: nbsp ¡ ¢ £ ¤ ¥ ¦ § ¨ © ª « ¬ shy ® ¯ ° ± ² ³ ´ µ ¶ · ¸ ¹ º » ¼ ½ ¾ ¿
    278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 333, 400, 584, 333, 333, 333, 556,
    537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
    // 192..223: À-Å Æ Ç È-Ë Ì-Ï Ð Ñ Ò-Ö × Ø Ù-Ü Ý Þ ß
    667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278, 722, 722, 778, 778, 778, 778,
    778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
    // 224..255: à-å æ ç è-ë ì-ï ð ñ ò-ö ÷ ø ù-ü ý þ ÿ
    556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278, 556, 556, 556, 556, 556, 556,
    556, 584, 611, 556, 556, 556, 556, 500, 556, 500};

// WinAnsi's codes 128..159 (0: none).
const char32_t kWinAnsiHigh[32] = {0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
                                   0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0,      0x017D, 0,
                                   0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
                                   0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

// A superscript digit or sign: its plain form, or 0.
char Superscript(char32_t c) {
  switch (c) {
    case 0x2070: return '0';
    case 0x00B9: return '1';
    case 0x00B2: return '2';
    case 0x00B3: return '3';
    case 0x207A: return '+';
    case 0x207B: return '-';
    default: return c >= 0x2074 && c <= 0x2079 ? (char)('4' + (c - 0x2074)) : 0;
  }
}

// The WinAnsi code of a code point, or -1.
int WinAnsiCode(char32_t c) {
  if ((c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xFF)) return (int)c;
  for (int k = 0; k < 32; ++k)
    if (kWinAnsiHigh[k] && kWinAnsiHigh[k] == c) return 128 + k;
  return -1;
}

bool IdentifierChar(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Compact number: up to 3 decimals, no trailing zeros.
std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s(buf);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::string Color(Rgb c, const char* op) {
  return Num(c.r / 255.0) + " " + Num(c.g / 255.0) + " " + Num(c.b / 255.0) + " " + op;
}

// A PDF literal string of bytes: ( ) and \ escaped, bytes outside printable ASCII as octal.
std::string Literal(const std::string& bytes) {
  std::string out = "(";
  for (unsigned char c : bytes) {
    if (c == '(' || c == ')' || c == '\\') {
      out += '\\';
      out += (char)c;
    } else if (c < 0x20 || c > 0x7E) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += (char)c;
    }
  }
  return out + ")";
}

// A PDF text string for the document information: UTF-16BE with its byte order mark, as hex.
std::string Utf16Hex(const std::string& utf8) {
  std::string out = "<FEFF";
  char buf[8];
  for (char32_t c : DecodeUtf8Lenient(utf8)) {
    auto unit = [&](unsigned u) {
      std::snprintf(buf, sizeof buf, "%04X", u);
      out += buf;
    };
    if (c >= 0x10000) {
      c -= 0x10000;
      unit(0xD800 + (unsigned)(c >> 10));
      unit(0xDC00 + (unsigned)(c & 0x3FF));
    } else {
      unit((unsigned)c);
    }
  }
  return out + ">";
}

std::string Deflate(const std::string& bytes) {
  int n = 0;
  unsigned char* z = stbi_zlib_compress((unsigned char*)bytes.data(), (int)bytes.size(), &n, 8);
  if (!z) return std::string();
  std::string out((const char*)z, (size_t)n);
  std::free(z);
  return out;
}

std::string HexCode(char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", (unsigned)c);
  return buf;
}

}  // namespace

bool ToWinAnsi(const std::string& utf8, std::string* out, char32_t* bad) {
  out->clear();
  const std::u32string text = DecodeUtf8Lenient(utf8);
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c == 0x221A) {  // the root sign: "sqrt(d_k)", or "sqrt" before anything else
      size_t j = i + 1;
      while (j < text.size() && IdentifierChar(text[j])) ++j;
      if (j == i + 1) {
        *out += "sqrt";
      } else {
        *out += "sqrt(";
        for (size_t k = i + 1; k < j; ++k) *out += (char)text[k];
        *out += ")";
      }
      i = j - 1;
      continue;
    }
    if (c == 0x2212) {  // the minus sign
      *out += '-';
      continue;
    }
    if (Superscript(c)) {  // a run of superscripts: as it is when WinAnsi has all of it (x²), else "^-3"
      size_t j = i;
      bool latin1 = true;
      for (; j < text.size() && Superscript(text[j]); ++j) latin1 = latin1 && WinAnsiCode(text[j]) >= 0;
      if (!latin1) *out += '^';
      for (size_t k = i; k < j; ++k) *out += latin1 ? (char)WinAnsiCode(text[k]) : Superscript(text[k]);
      i = j - 1;
      continue;
    }
    if (c == '\t' || c == '\n' || c == '\r') {
      *out += ' ';
      continue;
    }
    if (c == 0xFFFD) {  // bytes that were not UTF-8
      *out += '?';
      continue;
    }
    const int code = WinAnsiCode(c);
    if (code < 0) {
      if (bad) *bad = c;
      return false;
    }
    *out += (char)code;
  }
  return true;
}

int HelveticaWidth(const std::string& win_ansi) {
  int w = 0;
  for (unsigned char c : win_ansi) w += c >= 32 ? kHelveticaWidths[c - 32] : 0;
  return w;
}

PdfPainter::PdfPainter(int width, int height, float dpi, std::shared_ptr<const FontSet> fonts, Rgb background)
    : width_(width), height_(height), dpi_(dpi > 0 ? dpi : 96), fonts_(std::move(fonts)) {
  FillRect({0, 0, (float)width, (float)height}, background);
}

void PdfPainter::FillRect(const RectF& r, Rgb color) {
  content_ += Color(color, "rg") + " " + Num(r.x) + " " + Num(r.y) + " " + Num(r.w) + " " + Num(r.h) + " re f\n";
}

void PdfPainter::StrokeRect(const RectF& r, Rgb color, float lw) {
  content_ += Color(color, "RG") + " " + Num(lw) + " w " + Num(r.x) + " " + Num(r.y) + " " + Num(r.w) + " " +
              Num(r.h) + " re S\n";
}

void PdfPainter::Polyline(const std::vector<PointF>& points, Rgb color, float lw, float dash) {
  if (points.size() < 2) return;
  content_ += "q 1 j " + Color(color, "RG") + " " + Num(lw) + " w ";
  if (dash > 0) content_ += "[" + Num(dash) + " " + Num(dash) + "] 0 d ";
  for (size_t i = 0; i < points.size(); ++i)
    content_ += Num(points[i].x) + " " + Num(points[i].y) + (i ? " l " : " m ");
  content_ += "S Q\n";
}

void PdfPainter::FillCircle(PointF c, float radius, Rgb color) {
  const float k = 0.5523f * radius, r = radius;  // four cubic arcs
  content_ += Color(color, "rg") + " " + Num(c.x + r) + " " + Num(c.y) + " m ";
  auto arc = [&](float x1, float y1, float x2, float y2, float x3, float y3) {
    content_ += Num(x1) + " " + Num(y1) + " " + Num(x2) + " " + Num(y2) + " " + Num(x3) + " " + Num(y3) + " c ";
  };
  arc(c.x + r, c.y + k, c.x + k, c.y + r, c.x, c.y + r);
  arc(c.x - k, c.y + r, c.x - r, c.y + k, c.x - r, c.y);
  arc(c.x - r, c.y - k, c.x - k, c.y - r, c.x, c.y - r);
  arc(c.x + k, c.y - r, c.x + r, c.y - k, c.x + r, c.y);
  content_ += "f\n";
}

void PdfPainter::Text(float x, float y, const std::string& utf8, const TextStyle& style) {
  if (utf8.empty()) return;
  std::string bytes;
  char32_t bad = 0;
  if (!ToWinAnsi(utf8, &bytes, &bad)) {
    if (refused_.empty()) refused_ = EncodeUtf8(std::u32string(1, bad)) + "\x1F" + HexCode(bad) + "\x1F" + utf8;
    return;
  }
  // The baseline from the shared metrics (as the raster and the SVG place it); the horizontal alignment from
  // Helvetica's own width. Local frame: u along the text, v down; page: (x + u cs + v sn, y - u sn + v cs).
  TextStyle left = style;
  left.halign = HAlign::kLeft;
  const PointF origin = TextOrigin(*fonts_, utf8, left);
  const float w = style.size * (float)HelveticaWidth(bytes) / 1000.0f;
  const float lu = style.halign == HAlign::kCenter ? -0.5f * w : style.halign == HAlign::kRight ? -w : 0.0f;
  const float lv = origin.y;
  const float th = style.angle * kPi / 180.0f;
  float cs = std::cos(th), sn = std::sin(th);
  if (std::fabs(cs) < 1e-6f) cs = 0;
  if (std::fabs(sn) < 1e-6f) sn = 0;
  const float px = x + lu * cs + lv * sn, py = y - lu * sn + lv * cs;
  const float s = style.size;
  // The page is y-down (the content's first cm): the text matrix turns the glyphs upright again.
  std::string op = "BT /F1 1 Tf " + Color(style.color, "rg") + " ";
  if (style.bold) op += "2 Tr " + Color(style.color, "RG") + " " + Num(s * 0.04f) + " w ";  // filled and outlined
  else op += "0 Tr ";
  op += Num(s * cs) + " " + Num(-s * sn) + " " + Num(-s * sn) + " " + Num(-s * cs) + " " + Num(px) + " " + Num(py) +
        " Tm " + Literal(bytes) + " Tj ET\n";
  content_ += op;
}

void PdfPainter::Gradient(const RectF& r, Colormap colormap, bool vertical) {
  // One rectangle per colormap entry (the exact table colours), each from its band's start to the high end, drawn
  // low to high: the next covers the rest, so no hairline shows between bands (as the SVG's).
  const unsigned char* lut = ColormapRgb(colormap);
  for (int k = 0; k < kColormapSize; ++k) {
    Rgb c{lut[3 * k], lut[3 * k + 1], lut[3 * k + 2]};
    const float f0 = (float)k / kColormapSize;
    if (vertical) FillRect({r.x, r.y, r.w, (1.0f - f0) * r.h}, c);
    else FillRect({r.x + f0 * r.w, r.y, (1.0f - f0) * r.w, r.h}, c);
  }
}

void PdfPainter::Image(const RectF& r, int width, int height, const std::vector<unsigned char>& rgb) {
  const std::string pixels = Deflate(std::string(rgb.begin(), rgb.end()));
  const std::string name = "Im" + std::to_string(images_.size());
  images_.push_back("<< /Type /XObject /Subtype /Image /Width " + std::to_string(width) + " /Height " +
                    std::to_string(height) + " /ColorSpace /DeviceRGB /BitsPerComponent 8 /Interpolate false" +
                    " /Filter /FlateDecode /Length " + std::to_string(pixels.size()) + " >>\nstream\n" + pixels +
                    "\nendstream");
  // The unit square onto r, its top row (the image's first) at r.y.
  content_ += "q " + Num(r.w) + " 0 0 " + Num(-r.h) + " " + Num(r.x) + " " + Num(r.y + r.h) + " cm /" + name +
              " Do Q\n";
}

Result<std::string> PdfPainter::Finish() const {
  if (!refused_.empty()) {
    const size_t a = refused_.find('\x1F'), b = refused_.find('\x1F', a + 1);
    return Status::Error(MsgId::kPdfNoGlyph,
                         {refused_.substr(0, a), refused_.substr(a + 1, b - a - 1), refused_.substr(b + 1)});
  }
  const double pt = 72.0 / dpi_;
  const std::string page_w = Num(width_ * pt), page_h = Num(height_ * pt);
  // Pixels, y down, onto the page in points.
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.6f", pt);  // exact enough that the content fills the page to 0.001 pt
  const std::string content =
      Deflate(std::string(scale) + " 0 0 -" + scale + " 0 " + page_h + " cm\n" + content_);
  std::vector<std::string> objects;  // object k + 1
  objects.push_back("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push_back("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  std::string xobjects;
  for (size_t i = 0; i < images_.size(); ++i)
    xobjects += "/Im" + std::to_string(i) + " " + std::to_string(7 + i) + " 0 R ";
  objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 " + page_w + " " + page_h +
                    "] /Resources << /Font << /F1 5 0 R >>" +
                    (xobjects.empty() ? std::string() : " /XObject << " + xobjects + ">>") +
                    " /ProcSet [/PDF /Text /ImageC] >> /Contents 4 0 R >>");
  objects.push_back("<< /Filter /FlateDecode /Length " + std::to_string(content.size()) + " >>\nstream\n" + content +
                    "\nendstream");
  objects.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  objects.push_back("<< /Title " + Utf16Hex(title_) + " /Producer (attnviz) /Creator (attnviz) >>");
  for (const std::string& image : images_) objects.push_back(image);

  std::string doc = "%PDF-1.4\n%\xE2\xE3\xCF\xD3\n";
  std::vector<size_t> offsets;
  for (size_t k = 0; k < objects.size(); ++k) {
    offsets.push_back(doc.size());
    doc += std::to_string(k + 1) + " 0 obj\n" + objects[k] + "\nendobj\n";
  }
  const size_t xref = doc.size();
  doc += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  char entry[24];
  for (size_t off : offsets) {
    std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", off);
    doc += entry;
  }
  doc += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R /Info 6 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return doc;
}

}  // namespace attnviz
