// Code points beyond U+FFFF through imgui's 16-bit ImWchar: the slot mapping both ways, the text field
// wrapper, and the font atlas drawing a slot with the real code point's glyph.
#include <gtest/gtest.h>
#include <imgui.h>

#include <string>

#include "fonts.h"
#include "io/file_io.h"
#include "unicode_slots.h"

namespace attnviz {
namespace {

const std::string kEmojiText = "I \xE2\x9D\xA4 \xEC\x84\x9C\xEC\x9A\xB8 \xF0\x9F\x98\x80 caf\xC3\xA9";  // I ❤ 서울 😀 café

bool HasFourByteSequence(const std::string& s) {
  for (unsigned char c : s)
    if (c >= 0xF0) return true;
  return false;
}

TEST(UnicodeSlots, RoundTripKeepsEveryCodePoint) {
  std::string shown = ToImGui(kEmojiText);
  EXPECT_NE(shown, kEmojiText);
  EXPECT_FALSE(HasFourByteSequence(shown));  // nothing imgui would decode as U+FFFD
  EXPECT_EQ(FromImGui(shown), kEmojiText);
  // The same code point always gets the same slot; BMP text is left alone.
  EXPECT_EQ(ToImGui(kEmojiText), shown);
  EXPECT_EQ(ToImGui("plain \xEC\x84\x9C\xEC\x9A\xB8 caf\xC3\xA9"), "plain \xEC\x84\x9C\xEC\x9A\xB8 caf\xC3\xA9");
}

TEST(UnicodeSlots, PrivateUseCharactersOfTheTextTakeSlotsToo) {
  // U+E000 typed by the user must not be read back as whatever the first slot stands for.
  const std::string text = "\xEE\x80\x80 \xF0\x9F\x98\x81 \xEE\x80\x81";  // U+E000 😁 U+E001
  EXPECT_EQ(FromImGui(ToImGui(text)), text);
  const std::string many = "\xF0\x9D\x94\xB8\xF0\x9F\x8E\x89\xF0\x9F\x87\xB0\xF0\x9F\x87\xB7";  // 𝔸 🎉 and a flag
  EXPECT_EQ(FromImGui(ToImGui(many)), many);
}

TEST(UnicodeSlots, MalformedBytesPassThrough) {
  const std::string bad = "a\xF0\x9F\x98 b\xEE\x80 \xF5\x80\x80\x80 \xF0\x80\x80\x80";  // cut, cut, >U+10FFFF, overlong
  EXPECT_EQ(ToImGui(bad), bad);
  EXPECT_EQ(FromImGui(bad), bad);
}

TEST(UnicodeSlots, TypedCharacters) {
  EXPECT_EQ(ImGuiCharFor('a'), (unsigned)'a');
  EXPECT_EQ(ImGuiCharFor(0xC11C), 0xC11Cu);  // 서
  unsigned slot = ImGuiCharFor(0x1F600);
  EXPECT_GE(slot, 0xE000u);
  EXPECT_LE(slot, 0xF8FFu);
  std::string typed;
  typed += (char)(0xE0 | (slot >> 12));
  typed += (char)(0x80 | ((slot >> 6) & 0x3F));
  typed += (char)(0x80 | (slot & 0x3F));
  EXPECT_EQ(FromImGui(typed), "\xF0\x9F\x98\x80");
}

class UnicodeFieldTest : public ::testing::Test {
 protected:
  void SetUp() override {  // one window with one field; frames of imgui's default 1/60 s
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::GetIO().DisplaySize = ImVec2(800, 600);
    ImGui::GetIO().KeyMap[ImGuiKey_End] = 269;  // GLFW_KEY_END
  }
  void TearDown() override { ImGui::DestroyContext(); }
  void Frame() {
    NewFrameTypedSlots();  // as Platform::NewFrame does
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::Begin("field");
    InputTextAnyUnicode("##text", &text_);
    rect_min_ = ImGui::GetItemRectMin();
    rect_max_ = ImGui::GetItemRectMax();
    ImGui::End();
    ImGui::Render();
  }
  std::string text_;
  ImVec2 rect_min_, rect_max_;
};

TEST_F(UnicodeFieldTest, TypingKeepsAndAddsEmoji) {
  ImGuiIO& io = ImGui::GetIO();
  UiFonts fonts;
  fonts.AddText(kEmojiText);
  fonts.Build(io.Fonts, 15.0f);
  io.Fonts->SetTexID((ImTextureID)(intptr_t)1);
  text_ = kEmojiText;
  Frame();
  Frame();  // a new window is laid out before it takes clicks
  // Click into the field, go to the end, type "!" and an emoji as the platform's char callback does.
  io.MousePos = ImVec2((rect_min_.x + rect_max_.x) / 2, (rect_min_.y + rect_max_.y) / 2);
  Frame();
  io.MouseDown[0] = true;
  Frame();
  io.MouseDown[0] = false;
  Frame();
  io.KeysDown[269] = true;
  Frame();
  io.KeysDown[269] = false;
  io.AddInputCharacter('!');
  QueueTypedSlot(0x1F389);  // 🎉
  Frame();
  Frame();
  EXPECT_EQ(text_, kEmojiText + "!\xF0\x9F\x8E\x89");
  // Select all and type an emoji: it replaces the selection, as a typed letter would.
  io.KeyCtrl = true;
  io.KeyMap[ImGuiKey_A] = 'A';
  io.KeysDown['A'] = true;
  Frame();
  io.KeysDown['A'] = false;
  io.KeyCtrl = false;
  QueueTypedSlot(0x1F680);  // 🚀
  Frame();
  Frame();
  EXPECT_EQ(text_, "\xF0\x9F\x9A\x80");
}

TEST(SlotGlyphs, AtlasDrawsTheEmojiFromAFont) {
  ImGui::CreateContext();
  ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  UiFonts fonts;
  fonts.AddText(kEmojiText);
  EXPECT_TRUE(fonts.dirty());
  fonts.Build(atlas, 15.0f);
  EXPECT_FALSE(fonts.dirty());
  EXPECT_GE(fonts.slot_glyph_count(), 1u);
  // The slot's glyph is in the font, with ink in its rectangle of the atlas.
  std::string shown = ToImGui("\xF0\x9F\x98\x80");
  unsigned slot = ((unsigned)(shown[0] & 0x0F) << 12) | ((unsigned)(shown[1] & 0x3F) << 6) | (unsigned)(shown[2] & 0x3F);
  const ImFontGlyph* glyph = atlas->Fonts[0]->FindGlyphNoFallback((ImWchar)slot);
  ASSERT_NE(glyph, nullptr);
  EXPECT_GT(glyph->AdvanceX, 4.0f);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  atlas->GetTexDataAsAlpha8(&pixels, &w, &h);
  int ink = 0;
  for (int y = (int)(glyph->V0 * h); y < (int)(glyph->V1 * h); ++y)
    for (int x = (int)(glyph->U0 * w); x < (int)(glyph->U1 * w); ++x) ink += pixels[(size_t)y * w + x] > 128;
  EXPECT_GT(ink, 10);
  if (IsRegularFile("/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf")) {
    EXPECT_GE(fonts.slot_glyphs_from_fonts(), 1);  // Symbola's smiley, not a box
  }
  // A new emoji later makes the atlas dirty again.
  ToImGui("\xF0\x9F\xA7\xAD");  // 🧭, used by no other test (the slot table lives as long as the process)
  EXPECT_TRUE(fonts.dirty());
  ImGui::DestroyContext();
}

}  // namespace
}  // namespace attnviz
