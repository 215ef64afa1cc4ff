#include "slot_glyphs.h"

#include <stb_truetype.h>  // the implementation is in libstb (never define STB_TRUETYPE_IMPLEMENTATION)

#include <algorithm>
#include <cmath>

#include "io/file_io.h"
#include "unicode_slots.h"

namespace attnviz {

namespace {

bool InitFont(const std::string& data, stbtt_fontinfo* info) {
  if (data.empty()) return false;
  const auto* bytes = (const unsigned char*)data.data();
  int offset = stbtt_GetFontOffsetForIndex(bytes, 0);
  return offset >= 0 && stbtt_InitFont(info, bytes, offset) != 0;
}

}  // namespace

void SlotGlyphs::SetFonts(const std::vector<std::string>& paths) {
  if (paths == paths_) return;
  paths_ = paths;
  data_.clear();
  for (const std::string& path : paths) {
    Result<std::string> bytes = path.empty() ? Result<std::string>(std::string()) : ReadFile(path);
    data_.push_back(bytes.ok() ? *bytes : std::string());
  }
}

void SlotGlyphs::AddRects(ImFontAtlas* atlas, ImFont* font, float size_px) {
  std::vector<stbtt_fontinfo> infos(data_.size());
  std::vector<bool> usable(data_.size());
  for (size_t i = 0; i < data_.size(); ++i) usable[i] = InitFont(data_[i], &infos[i]);
  // The baseline: imgui's own rule for a TTF font's ascent (floor(ascent * scale + 1)), from the first font.
  float ascent = std::round(size_px * 0.8f);
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!usable[i]) continue;
    int a = 0, d = 0, gap = 0;
    stbtt_GetFontVMetrics(&infos[i], &a, &d, &gap);
    ascent = std::round(std::floor(a * stbtt_ScaleForPixelHeight(&infos[i], size_px) + 1.0f));
    break;
  }
  placed_.clear();
  from_fonts_ = 0;
  std::vector<UnicodeSlot> slots = UsedSlots();
  for (const UnicodeSlot& s : slots) {
    Placed p;
    for (size_t i = 0; i < infos.size() && p.font < 0; ++i) {
      if (!usable[i]) continue;
      int glyph = stbtt_FindGlyphIndex(&infos[i], (int)s.codepoint);
      if (glyph == 0) continue;
      p.font = (int)i;
      p.glyph = glyph;
      p.scale = stbtt_ScaleForPixelHeight(&infos[i], size_px);
    }
    if (p.font >= 0) {
      int x0, y0, x1, y1, advance, lsb;
      stbtt_GetGlyphBitmapBox(&infos[(size_t)p.font], p.glyph, p.scale, p.scale, &x0, &y0, &x1, &y1);
      stbtt_GetGlyphHMetrics(&infos[(size_t)p.font], p.glyph, &advance, &lsb);
      p.w = std::max(1, x1 - x0);
      p.h = std::max(1, y1 - y0);
      p.rect_id = atlas->AddCustomRectFontGlyph(font, s.slot, p.w, p.h, std::round(advance * p.scale),
                                                ImVec2((float)x0, ascent + (float)y0));
      ++from_fonts_;
    } else {  // no font has it: a hollow box the size of a capital letter
      p.w = std::max(4, (int)std::round(size_px * 0.5f));
      p.h = std::max(6, (int)std::round(size_px * 0.7f));
      p.rect_id = atlas->AddCustomRectFontGlyph(font, s.slot, p.w, p.h, (float)p.w + 2.0f,
                                                ImVec2(1.0f, ascent - (float)p.h));
    }
    placed_.push_back(p);
  }
  built_ = slots.size();
}

void SlotGlyphs::Draw(ImFontAtlas* atlas) {
  if (placed_.empty()) return;
  unsigned char* pixels = nullptr;
  int tex_w = 0, tex_h = 0;
  atlas->GetTexDataAsAlpha8(&pixels, &tex_w, &tex_h);
  if (!pixels) return;
  std::vector<stbtt_fontinfo> infos(data_.size());
  for (size_t i = 0; i < data_.size(); ++i) InitFont(data_[i], &infos[i]);
  for (const Placed& p : placed_) {
    const ImFontAtlasCustomRect* r = atlas->GetCustomRectByIndex(p.rect_id);
    if (!r || !r->IsPacked()) continue;
    unsigned char* dst = pixels + (size_t)r->Y * (size_t)tex_w + r->X;
    if (p.font >= 0) {
      stbtt_MakeGlyphBitmap(&infos[(size_t)p.font], dst, p.w, p.h, tex_w, p.scale, p.scale, p.glyph);
      continue;
    }
    for (int y = 0; y < p.h; ++y)
      for (int x = 0; x < p.w; ++x)
        dst[(size_t)y * (size_t)tex_w + x] = (x == 0 || y == 0 || x == p.w - 1 || y == p.h - 1) ? 0xFF : 0x00;
  }
}

}  // namespace attnviz
