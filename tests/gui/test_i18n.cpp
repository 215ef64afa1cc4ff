// The UI's string tables (app/gui/i18n): both languages have every id (also a static_assert), the same
// {n} placeholders per id, Korean text that is Korean, and the language choice from --lang and the locale.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "text.h"
#include "ui_strings.h"

namespace attnviz {
namespace {

std::set<std::string> Placeholders(const std::string& text) {
  std::set<std::string> found;
  for (size_t i = 0; i + 2 < text.size(); ++i)
    if (text[i] == '{' && text[i + 1] >= '0' && text[i + 1] <= '9' && text[i + 2] == '}') found.insert(text.substr(i, 3));
  return found;
}

bool HasHangul(const std::string& text) {
  for (char32_t c : DecodeUtf8(text))
    if (c >= 0xAC00 && c <= 0xD7A3) return true;
  return false;
}

TEST(I18n, BothTablesHaveEveryIdInOrderAndNoneEmpty) {
  for (Lang lang : {Lang::kEn, Lang::kKo}) {
    const StringEntry* table = StringTable(lang);
    for (int id = 0; id < (int)Str::kCount; ++id) {
      EXPECT_EQ((int)table[id].id, id) << ToString(lang);
      ASSERT_NE(table[id].text, nullptr);
      EXPECT_STRNE(table[id].text, "") << ToString(lang) << " id " << id;
      EXPECT_TRUE(ValidateUtf8(table[id].text).ok()) << ToString(lang) << " id " << id;
    }
  }
}

TEST(I18n, SamePlaceholdersInBothLanguages) {
  for (int id = 0; id < (int)Str::kCount; ++id)
    EXPECT_EQ(Placeholders(Tr((Str)id, Lang::kEn)), Placeholders(Tr((Str)id, Lang::kKo)))
        << Tr((Str)id, Lang::kEn) << " | " << Tr((Str)id, Lang::kKo);
}

TEST(I18n, KoreanTableIsKoreanWhereEnglishHasWords) {
  // Every entry whose English has a word of 4+ letters reads in Hangul (names like d_model, QKV, softmax
  // and the score formula stay as they are).
  int translated = 0, words = 0;
  for (int id = 0; id < (int)Str::kCount; ++id) {
    const std::string en = Tr((Str)id, Lang::kEn), ko = Tr((Str)id, Lang::kKo);
    int run = 0, longest = 0;
    for (char c : en) {
      run = (c >= 'a' && c <= 'z') ? run + 1 : 0;
      longest = std::max(longest, run);
    }
    if (longest < 4 || en == "d_model" || en == "viridis") continue;
    ++words;
    if (HasHangul(ko)) ++translated;
    else ADD_FAILURE() << "not translated: " << en << " -> " << ko;
  }
  EXPECT_GT(words, 150);
  EXPECT_EQ(translated, words);
}

TEST(I18n, TrfFillsNumberedArgumentsInEitherOrder) {
  SetLang(Lang::kEn);
  EXPECT_EQ(Trf(Str::kLoadedSentencesFrom, {"3", "a.txt"}), "Loaded 3 sentences from a.txt");
  SetLang(Lang::kKo);
  // Korean puts the file first: {1}에서 문장 {0}개.
  EXPECT_EQ(Trf(Str::kLoadedSentencesFrom, {"3", "a.txt"}), "a.txt에서 문장 3개를 불러왔습니다");
  EXPECT_EQ(Trf(Str::kTipHead, {}), "헤드 ");  // a missing argument is left out, never read past
  SetLang(Lang::kEn);
}

TEST(I18n, ParseLangAndLocale) {
  Lang lang = Lang::kEn;
  EXPECT_TRUE(ParseLang("ko", &lang));
  EXPECT_EQ(lang, Lang::kKo);
  EXPECT_TRUE(ParseLang("en", &lang));
  EXPECT_EQ(lang, Lang::kEn);
  EXPECT_FALSE(ParseLang("fr", &lang));
  EXPECT_FALSE(ParseLang("", &lang));
  const char* saved[3];
  const char* names[3] = {"LC_ALL", "LC_MESSAGES", "LANG"};
  std::string keep[3];
  for (int i = 0; i < 3; ++i) {
    saved[i] = std::getenv(names[i]);
    if (saved[i]) keep[i] = saved[i];
    unsetenv(names[i]);
  }
  setenv("LANG", "ko_KR.UTF-8", 1);
  EXPECT_EQ(LangFromEnvironment(), Lang::kKo);
  setenv("LC_MESSAGES", "en_US.UTF-8", 1);  // LC_MESSAGES before LANG
  EXPECT_EQ(LangFromEnvironment(), Lang::kEn);
  setenv("LC_ALL", "ko_KR.UTF-8", 1);  // LC_ALL before both
  EXPECT_EQ(LangFromEnvironment(), Lang::kKo);
  setenv("LC_ALL", "C", 1);
  EXPECT_EQ(LangFromEnvironment(), Lang::kEn);
  for (int i = 0; i < 3; ++i) {
    if (saved[i]) setenv(names[i], keep[i].c_str(), 1);
    else unsetenv(names[i]);
  }
}

}  // namespace
}  // namespace attnviz
