#include "fonts.h"

#include <cstdio>

#include "io/file_io.h"
#include "i18n/localized.h"
#include "sandbox/text.h"
#include "i18n/ui_strings.h"
#include "unicode_slots.h"

namespace attnviz {


std::string FindFontFile(const std::string& family, const std::string& fallback) {
  std::string cmd = "fc-match -f '%{file}' '" + family + "' 2>/dev/null";
  std::string path;
  if (std::FILE* p = popen(cmd.c_str(), "r")) {
    char buf[1024];
    size_t n = std::fread(buf, 1, sizeof buf - 1, p);
    buf[n] = 0;
    pclose(p);
    path = buf;
  }
  // fc-match always answers something; only accept the family asked for.
  std::string lower_path, lower_family;
  for (char c : path) lower_path += (char)std::tolower((unsigned char)c);
  for (char c : family) if (c != ' ') lower_family += (char)std::tolower((unsigned char)c);
  if (!path.empty() && lower_path.find(lower_family) != std::string::npos && IsRegularFile(path)) return path;
  if (IsRegularFile(fallback)) return fallback;
  return "";
}

UiFonts::UiFonts() {
  // Symbols the panels print: √ · … → ↔ × ² ≤ ≥ − ▶ and the Latin-1 set, and the superscripts of the log
  // scale's colorbar ticks (10⁻¹, 10⁻⁴: figure/heatmap_figure.h FormatTicks).
  const char* ui = "√·…→↔×÷²≤≥−–—∇ᵀ ⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺";
  AddText(ui);
  // Every string of both languages, so switching to Korean never waits for (or misses) a glyph.
  for (Lang lang : {Lang::kEn, Lang::kKo}) {
    AddText(LangName(lang));
    for (int id = 0; id < (int)Str::kCount; ++id) AddText(StringTable(lang)[id].text);
  }
  for (const std::string& text : KoreanEngineTexts()) AddText(text);  // messages, head roles, progress
}

bool UiFonts::AddText(const std::string& utf8) {
  if (!ValidateUtf8(utf8).ok()) return false;
  bool added = false;
  for (char32_t c : DecodeUtf8(utf8)) {
    if (c > 0xFFFF || (c >= 0xE000 && c <= 0xF8FF)) {  // ImWchar is 16-bit: a slot stands for it
      ImGuiCharFor(c);
      continue;
    }
    if (c < 0x80) continue;  // ASCII is always in
    if (codepoints_.insert((ImWchar)c).second) added = true;
  }
  if (added) dirty_ = true;
  return added;
}

bool UiFonts::dirty() const { return dirty_ || UsedSlotCount() != slot_glyphs_.built(); }

std::string UiFonts::Build(ImFontAtlas* atlas, float size_px) {
  if (!searched_) {
    dejavu_ = FindFontFile("DejaVu Sans", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
    nanum_ = FindFontFile("NanumGothic", "/usr/share/fonts/truetype/nanum/NanumGothic.ttf");
    symbola_ = FindFontFile("Symbola", "/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf");
    slot_glyphs_.SetFonts({dejavu_, nanum_, symbola_});
    searched_ = true;
  }
  ImFontGlyphRangesBuilder builder;
  builder.AddRanges(atlas->GetGlyphRangesDefault());  // Basic Latin + Latin-1
  builder.AddChar(0xFFFD);  // what imgui draws for a byte sequence it cannot decode
  for (ImWchar c : codepoints_) builder.AddChar(c);
  ranges_.clear();
  builder.BuildRanges(&ranges_);

  atlas->Clear();
  std::string message;
  ImFontConfig config;
  config.OversampleH = 2;
  config.OversampleV = 1;
  ImFont* font = nullptr;
  if (!dejavu_.empty()) font = atlas->AddFontFromFileTTF(dejavu_.c_str(), size_px, &config, ranges_.Data);
  if (!font) {
    message = "Font DejaVu Sans not found (install fonts-dejavu-core); using ImGui's built-in font.";
    ImFontConfig fallback;
    fallback.SizePixels = size_px;
    atlas->AddFontDefault(&fallback);
  }
  if (!nanum_.empty()) {
    ImFontConfig merge;
    merge.MergeMode = true;
    merge.OversampleH = 2;
    merge.OversampleV = 1;
    atlas->AddFontFromFileTTF(nanum_.c_str(), size_px, &merge, ranges_.Data);
  } else {
    message += (message.empty() ? "" : " ") +
               std::string("Font NanumGothic not found (install fonts-nanum): Hangul shows as '?'.");
  }
  if (!symbola_.empty()) {  // symbols and BMP emoji (❤ ☀ ✓) neither font has; earlier fonts win
    ImFontConfig merge;
    merge.MergeMode = true;
    atlas->AddFontFromFileTTF(symbola_.c_str(), size_px, &merge, ranges_.Data);
  } else if (UsedSlotCount() > 0) {
    message += (message.empty() ? "" : " ") +
               std::string("Font Symbola not found (install fonts-symbola): emoji show as boxes.");
  }
  slot_glyphs_.AddRects(atlas, atlas->Fonts[0], size_px);  // code points beyond U+FFFF
  atlas->Build();
  slot_glyphs_.Draw(atlas);
  dirty_ = false;
  return message;
}

}  // namespace attnviz
