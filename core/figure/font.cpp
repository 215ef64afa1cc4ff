#include "figure/font.h"

#include <stb_truetype.h>  // implementation is in libstb: never define STB_TRUETYPE_IMPLEMENTATION here

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sys/stat.h>

#include "io/file_io.h"

namespace attnviz {

namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Every font file fontconfig knows about.
std::vector<std::string> FcListFiles() {
  std::vector<std::string> files;
  FILE* pipe = popen("fc-list --format '%{file}\\n' 2>/dev/null", "r");
  if (!pipe) return files;
  char line[4096];
  while (fgets(line, sizeof line, pipe)) {
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty()) files.push_back(s);
  }
  pclose(pipe);
  return files;
}

}  // namespace

std::u32string DecodeUtf8Lenient(const std::string& text) {
  std::u32string out;
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = (unsigned char)text[i];
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > n) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      unsigned char cc = (unsigned char)text[i + k];
      if ((cc & 0xC0) != 0x80) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (!ok) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string EncodeUtf8(const std::u32string& text) {
  std::string out;
  for (char32_t cp : text) {
    if (cp < 0x80) {
      out.push_back((char)cp);
    } else if (cp < 0x800) {
      out.push_back((char)(0xC0 | (cp >> 6)));
      out.push_back((char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back((char)(0xE0 | (cp >> 12)));
      out.push_back((char)(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back((char)(0x80 | (cp & 0x3F)));
    } else {
      out.push_back((char)(0xF0 | (cp >> 18)));
      out.push_back((char)(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back((char)(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back((char)(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

struct FontSet::Impl {
  std::string paths[2];
  std::string bytes[2];
  stbtt_fontinfo info[2];
  int ascent = 0, descent = 0;  // font units of font 0 (descent negative, as stb reports it)
};

FontSet::FontSet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FontSet::~FontSet() = default;

Result<std::string> FontSet::FindFontFile(const std::string& file_name, const std::string& family,
                                          const std::string& package) {
  const char* env = std::getenv("ATTNVIZ_FONT_DIR");
  if (env && *env) {
    std::string path = std::string(env) + "/" + file_name;
    if (IsRegularFile(path)) return path;
    return Status::Error(MsgId::kFontNotFoundInDir, {family, file_name, env, package});
  }
  const char* known[] = {"/usr/share/fonts/truetype/dejavu/", "/usr/share/fonts/truetype/nanum/",
                         "/usr/share/fonts/TTF/", "/usr/share/fonts/truetype/"};
  for (const char* dir : known) {
    std::string path = std::string(dir) + file_name;
    if (IsRegularFile(path)) return path;
  }
  for (const std::string& path : FcListFiles())
    if (Basename(path) == file_name && IsRegularFile(path)) return path;
  return Status::Error(MsgId::kFontNotFound, {family, file_name, package});
}

Result<std::shared_ptr<const FontSet>> FontSet::Load(const std::string& latin_path, const std::string& hangul_path) {
  auto impl = std::make_unique<Impl>();
  const std::string paths[2] = {latin_path, hangul_path};
  const char* packages[2] = {"fonts-dejavu-core", "fonts-nanum"};
  for (int f = 0; f < 2; ++f) {
    Result<std::string> bytes = ReadFile(paths[f], size_t(64) << 20, "font file");
    if (!bytes.ok())
      return Status::Error("cannot read font " + paths[f] + " (" + bytes.message() + "): install the Debian package " +
                           packages[f]);
    impl->paths[f] = paths[f];
    impl->bytes[f] = std::move(bytes.value());
    const unsigned char* data = reinterpret_cast<const unsigned char*>(impl->bytes[f].data());
    int offset = stbtt_GetFontOffsetForIndex(data, 0);
    if (offset < 0 || !stbtt_InitFont(&impl->info[f], data, offset))
      return Status::Error(MsgId::kFontNotTrueType, {paths[f], packages[f]});
  }
  int line_gap = 0;
  stbtt_GetFontVMetrics(&impl->info[0], &impl->ascent, &impl->descent, &line_gap);
  return std::shared_ptr<const FontSet>(new FontSet(std::move(impl)));
}

Result<std::shared_ptr<const FontSet>> FontSet::Default() {
  static std::mutex mutex;
  static std::shared_ptr<const FontSet> cached;
  static std::string cached_env;
  std::lock_guard<std::mutex> lock(mutex);
  const char* env = std::getenv("ATTNVIZ_FONT_DIR");
  std::string env_now = env ? env : "";
  if (cached && env_now == cached_env) return cached;
  Result<std::string> latin = FindFontFile("DejaVuSans.ttf", "DejaVu Sans", "fonts-dejavu-core");
  if (!latin.ok()) return latin.status();
  Result<std::string> hangul = FindFontFile("NanumGothic.ttf", "NanumGothic", "fonts-nanum");
  if (!hangul.ok()) return hangul.status();
  Result<std::shared_ptr<const FontSet>> fonts = Load(*latin, *hangul);
  if (!fonts.ok()) return fonts.status();
  cached = *fonts;
  cached_env = env_now;
  return cached;
}

const std::string& FontSet::path(int font) const { return impl_->paths[font == 1 ? 1 : 0]; }

GlyphRef FontSet::Glyph(char32_t code_point) const {
  for (int f = 0; f < 2; ++f) {
    int g = stbtt_FindGlyphIndex(&impl_->info[f], (int)code_point);
    if (g != 0) return GlyphRef{f, g};
  }
  return GlyphRef{0, 0};
}

float FontSet::Scale(int font, float size_px) const {
  return stbtt_ScaleForMappingEmToPixels(&impl_->info[font == 1 ? 1 : 0], size_px);
}

float FontSet::Ascent(float size_px) const { return impl_->ascent * Scale(0, size_px); }
float FontSet::Descent(float size_px) const { return -impl_->descent * Scale(0, size_px); }

namespace {
struct PlacedGlyph {
  GlyphRef ref;
  float x;  // pen position (pixels from the line start)
};
}  // namespace

static std::vector<PlacedGlyph> Place(const FontSet::Impl& impl, const FontSet& fonts, const std::u32string& text,
                                      float size_px, float* width) {
  std::vector<PlacedGlyph> placed;
  float pen = 0;
  GlyphRef prev{-1, 0};
  for (char32_t cp : text) {
    GlyphRef g = fonts.Glyph(cp);
    float scale = fonts.Scale(g.font, size_px);
    if (prev.font == g.font) pen += scale * stbtt_GetGlyphKernAdvance(&impl.info[g.font], prev.glyph, g.glyph);
    placed.push_back({g, pen});
    int advance = 0, lsb = 0;
    stbtt_GetGlyphHMetrics(&impl.info[g.font], g.glyph, &advance, &lsb);
    pen += scale * advance;
    prev = g;
  }
  if (width) *width = pen;
  return placed;
}

float FontSet::TextWidth(const std::string& utf8, float size_px) const {
  float width = 0;
  Place(*impl_, *this, DecodeUtf8Lenient(utf8), size_px, &width);
  return width;
}

std::string FontSet::Ellipsize(const std::string& utf8, float size_px, float max_width) const {
  const std::u32string cps = DecodeUtf8Lenient(utf8);
  float width = 0;
  // Each glyph is measured once: placed[k].x, where glyph k starts, is the width of the first k code
  // points. Cutting by binary search keeps a 100 KB word linear (re-measuring per cut was quadratic).
  const std::vector<PlacedGlyph> placed = Place(*impl_, *this, cps, size_px, &width);
  if (width <= max_width) return utf8;
  const float budget = max_width - TextWidth("\u2026", size_px);
  size_t keep = std::upper_bound(placed.begin(), placed.end(), budget,
                                 [](float b, const PlacedGlyph& p) { return b < p.x; }) -
                placed.begin();
  keep = keep > 0 ? keep - 1 : 0;
  // Kerning against "…" may add a hair: step back while the joined text is still too wide (rare, few steps).
  for (int step = 0; keep > 0 && step < 8; ++step, --keep) {
    const std::string candidate = EncodeUtf8(cps.substr(0, keep)) + "\u2026";
    if (TextWidth(candidate, size_px) <= max_width) return candidate;
  }
  return EncodeUtf8(cps.substr(0, keep)) + "\u2026";
}

void FontSet::RenderLine(const std::string& utf8, float size_px, AlphaMask* mask, float* origin_x,
                         float* origin_y) const {
  float width = 0;
  std::vector<PlacedGlyph> placed = Place(*impl_, *this, DecodeUtf8Lenient(utf8), size_px, &width);
  // Bounds of all glyph bitmaps relative to the baseline origin.
  int pad = 2;
  int x0 = 0, y0 = (int)std::floor(-Ascent(size_px)) - pad, x1 = (int)std::ceil(width) + pad,
      y1 = (int)std::ceil(Descent(size_px)) + pad;
  struct Box {
    int ix0, iy0, ix1, iy1;
    float shift;
    int base_x;
  };
  std::vector<Box> boxes;
  for (const PlacedGlyph& p : placed) {
    float scale = Scale(p.ref.font, size_px);
    int base_x = (int)std::floor(p.x);
    float shift = p.x - base_x;
    Box b{0, 0, 0, 0, shift, base_x};
    stbtt_GetGlyphBitmapBoxSubpixel(&impl_->info[p.ref.font], p.ref.glyph, scale, scale, shift, 0.0f, &b.ix0, &b.iy0,
                                    &b.ix1, &b.iy1);
    x0 = std::min(x0, base_x + b.ix0);
    y0 = std::min(y0, b.iy0);
    x1 = std::max(x1, base_x + b.ix1);
    y1 = std::max(y1, b.iy1);
    boxes.push_back(b);
  }
  x0 -= pad;
  mask->width = x1 - x0;
  mask->height = y1 - y0;
  mask->data.assign((size_t)mask->width * mask->height, 0);
  *origin_x = (float)-x0;
  *origin_y = (float)-y0;
  std::vector<unsigned char> glyph_buf;
  for (size_t i = 0; i < placed.size(); ++i) {
    const Box& b = boxes[i];
    int w = b.ix1 - b.ix0, h = b.iy1 - b.iy0;
    if (w <= 0 || h <= 0) continue;
    glyph_buf.assign((size_t)w * h, 0);
    float scale = Scale(placed[i].ref.font, size_px);
    stbtt_MakeGlyphBitmapSubpixel(&impl_->info[placed[i].ref.font], glyph_buf.data(), w, h, w, scale, scale, b.shift,
                                  0.0f, placed[i].ref.glyph);
    int ox = b.base_x + b.ix0 - x0, oy = b.iy0 - y0;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        unsigned char& dst = mask->data[(size_t)(oy + y) * mask->width + (ox + x)];
        dst = (unsigned char)std::min(255, dst + glyph_buf[(size_t)y * w + x]);
      }
    }
  }
}

void FontSet::RenderGlyph(GlyphRef glyph, float size_px, AlphaMask* mask) const {
  float scale = Scale(glyph.font, size_px);
  int ix0, iy0, ix1, iy1;
  stbtt_GetGlyphBitmapBox(&impl_->info[glyph.font], glyph.glyph, scale, scale, &ix0, &iy0, &ix1, &iy1);
  mask->width = std::max(0, ix1 - ix0);
  mask->height = std::max(0, iy1 - iy0);
  mask->data.assign((size_t)mask->width * mask->height, 0);
  if (mask->width > 0 && mask->height > 0)
    stbtt_MakeGlyphBitmap(&impl_->info[glyph.font], mask->data.data(), mask->width, mask->height, mask->width, scale,
                          scale, glyph.glyph);
}

}  // namespace attnviz
