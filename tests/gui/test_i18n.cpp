// The UI's string tables (app/common/i18n): both languages have every id (also a static_assert), the same
// {n} placeholders per id, Korean text that is Korean, and the language choice from --lang and the locale.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "english_words.h"
#include "sandbox/config.h"
#include "io/file_io.h"
#include "figure/font.h"
#include "figure/heatmap_figure.h"
#include "fonts.h"
#include "i18n/app_messages.h"
#include "i18n/help_ko.h"
#include "i18n/localized.h"
#include "sandbox/pipeline.h"
#include "sandbox/qkv_source.h"
#include "sandbox/text.h"
#include "i18n/ui_strings.h"

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

// ---- the engine's words (localized.h)

// Every engine message id has a Korean template with the English one's placeholders, in Hangul (the bare
// prefixes "{0}: " and "{0}:{1}: " have no words to translate).
TEST(I18n, EveryEngineMessageIdHasKoreanText) {
  std::vector<int> ids;  // core's (core/base/messages.h), then the programs' own (i18n/app_messages.h)
  for (int i = 1; i < (int)MsgId::kCount; ++i) ids.push_back(i);
  for (int i = (int)MsgId::kAppFirst; i < (int)AppMsgId::kCount; ++i) ids.push_back(i);
  for (int i : ids) {
    const MsgId id = (MsgId)i;
    const std::string en = AnyEnglishTemplate(id);
    ASSERT_FALSE(en.empty()) << "id " << i << " has no English template";
    const char* ko = MessageTemplate(id, Lang::kKo);
    ASSERT_NE(ko, nullptr) << "id " << i << " has no Korean text: " << en;
    EXPECT_EQ(Placeholders(en), Placeholders(ko)) << en << " | " << ko;
    EXPECT_TRUE(ValidateUtf8(ko).ok()) << i;
    const bool bare_prefix = id == MsgId::kPrefixContext || id == MsgId::kPrefixFileLine;
    if (!bare_prefix) EXPECT_TRUE(HasHangul(ko)) << "not Korean: " << en << " -> " << ko;
  }
  EXPECT_EQ(MessageTemplate(MsgId::kNone, Lang::kKo), nullptr);
  EXPECT_EQ(MessageTemplate(MsgId::kCount, Lang::kKo), nullptr);
  EXPECT_EQ(MessageTemplate(ToMsgId(AppMsgId::kCount), Lang::kKo), nullptr);
  // Every stage of the progress indicator and every head role reads in Hangul too.
  SetLang(Lang::kKo);
  // The stages a run reports (collected from a real one), each in Hangul, also behind the twin's phase.
  std::vector<std::string> reported;
  RunControl control;
  control.progress = [&](const char* stage, size_t, size_t) { reported.push_back(stage); };
  Pipeline p;
  p.set_pooled_above_cells(1);  // pooled mode: z comes from a pass of its own ("values (z)")
  ASSERT_TRUE(p.SetText("a b c").ok());
  ASSERT_TRUE(p.Run(Stage::kMetrics, &control).ok());
  ASSERT_TRUE(p.Run(Stage::kOutput, &control).ok());
  ASSERT_FALSE(reported.empty());
  for (const std::string& stage : reported) EXPECT_TRUE(HasHangul(LocalizedStage(stage))) << stage;
  for (const std::string& stage : ProgressStagesForTests())
    EXPECT_NE(std::find(reported.begin(), reported.end(), stage), reported.end()) << "not reported: " << stage;
  EXPECT_EQ(LocalizedStage("other scaling: attention maps"), "다른 스케일: 어텐션 맵");
  for (model::HeadRole role : model::AllHeadRoles()) {
    EXPECT_TRUE(HasHangul(LocalizedRoleName(role))) << model::RoleName(role);
    EXPECT_TRUE(HasHangul(LocalizedRoleSentence(role))) << model::RoleName(role);
  }
  SetLang(Lang::kEn);
  EXPECT_EQ(LocalizedRoleName(model::HeadRole::kInduction), "induction");
  EXPECT_EQ(LocalizedStage("embed"), "embed");
}

// The width refusal as the engine returns it: English text for logs and tests, and in Korean the same numbers
// and names through the table. The fallback rule: a part without an id shows the whole English text.
TEST(I18n, EngineMessagesRenderInTheCurrentLanguageWithAnEnglishFallback) {
  AttentionConfig c;
  c.query_from = FeatureSource::kLength;
  c.key_from = FeatureSource::kOneHot;
  const Status refusal = CheckQueryKeyWidths(c, 7);
  ASSERT_FALSE(refusal.ok());
  SetLang(Lang::kEn);
  EXPECT_EQ(Localized(refusal), refusal.message());
  EXPECT_NE(refusal.message().find("the query from length has width 1, the key from onehot has width 7 (n_vocab)"),
            std::string::npos)
      << refusal.message();
  SetLang(Lang::kKo);
  const std::string ko = Localized(refusal);
  EXPECT_TRUE(HasHangul(ko)) << ko;
  EXPECT_NE(ko.find("d_q = d_k"), std::string::npos) << ko;
  EXPECT_NE(ko.find("단어 길이에서 온 쿼리의 차원은 1"), std::string::npos) << ko;
  EXPECT_NE(ko.find("원-핫 토큰에서 온 키의 차원은 7 (n_vocab)"), std::string::npos) << ko;
  // A prefixed chain: "FILE:3: query text: the text is empty ..." part by part.
  const Status chain = Status::Prefixed(MsgId::kPrefixFileLine, {"s.txt", "3"},
                                        Status::Prefixed(MsgId::kPrefixQueryText, {}, Status::Error(MsgId::kTextEmpty, {})));
  EXPECT_EQ(chain.message(), "s.txt:3: query text: the text is empty: type at least one word");
  EXPECT_EQ(Localized(chain), "s.txt:3: 쿼리 문장: 문장이 비어 있습니다: 낱말을 하나 이상 입력하십시오");
  // Plain text (no id), alone or under a prefix: English.
  EXPECT_EQ(Localized(Status::Error("disk on fire")), "disk on fire");
  EXPECT_EQ(Localized(Status::Prefixed(MsgId::kPrefixQueryText, {}, Status::Error("disk on fire"))),
            "query text: disk on fire");
  // Validate's out-of-range message and a tokenizer error.
  AttentionConfig bad;
  bad.n_head = 0;
  EXPECT_EQ(Localized(Validate(bad)), "n_head = 0 은(는) 범위를 벗어났습니다: 허용 범위 1..64");
  EXPECT_EQ(Localized(Tokenize("   ").status()), "문장에 공백만 있습니다: 낱말을 하나 이상 입력하십시오");
  EXPECT_EQ(Localized(Status::Ok()), "");
  SetLang(Lang::kEn);
}

// ReadFile's refusals name the kind of file (its `what`): in Korean the noun is Korean too, for every kind its
// callers pass; the English text stays as it was.
TEST(I18n, ReadErrorsSayTheKindOfFileInKorean) {
  const std::pair<const char*, const char*> kinds[] = {
      {"file", "파일"},           {"sentence file", "문장 파일"}, {"tokenizer file", "토크나이저 파일"},
      {".npy file", ".npy 파일"}, {"settings file", "설정 파일"}, {"font file", "글꼴 파일"}};
  for (const auto& [en, ko] : kinds) {
    const Status device = ReadFile("/dev/zero", 64, en).status();
    EXPECT_EQ(device.message(),
              std::string("/dev/zero: is not a regular file (a device, FIFO or socket): refusing to read it as a ") + en);
    EXPECT_EQ(Localized(device, Lang::kKo),
              std::string("/dev/zero: 일반 파일이 아닙니다 (장치, FIFO 또는 소켓): ") + ko + "(으)로 읽지 않습니다");
    const Status big = Status::Error(MsgId::kFileTooLargeFor, {"a.bin", "20971520", en, "16 MiB"});
    EXPECT_EQ(big.message(), std::string("a.bin: 20971520 bytes is too large for a ") + en + " (at most 16 MiB)");
    EXPECT_EQ(Localized(big, Lang::kKo), std::string("a.bin: 20971520바이트는 ") + ko + "(으)로 너무 큽니다 (최대 16 MiB)");
    const Status grew = Status::Error(MsgId::kFileGrewWhileRead, {"a.bin", "1 MiB", en});
    EXPECT_EQ(Localized(grew, Lang::kKo), std::string("a.bin: 읽는 동안 1 MiB을(를) 넘게 커졌습니다: ") + ko + "(으)로 너무 큽니다");
  }
  // A path that happens to read like a kind is left as it is.
  EXPECT_EQ(Localized(Status::Error(MsgId::kReadError, {"file", "Input/output error"}), Lang::kKo),
            "file: 읽기 오류: Input/output error");
}

// A missing font: the family, the file, the folder and the package to install, in Korean too.
TEST(I18n, FontNotFoundInKorean) {
  const char* saved = std::getenv("ATTNVIZ_FONT_DIR");
  const std::string restore = saved ? saved : "";
  ::setenv("ATTNVIZ_FONT_DIR", "/nonexistent-attnviz-fonts", 1);
  const Status missing = FontSet::FindFontFile("DejaVuSans.ttf", "DejaVu Sans", "fonts-dejavu-core").status();
  if (saved) ::setenv("ATTNVIZ_FONT_DIR", restore.c_str(), 1);
  else ::unsetenv("ATTNVIZ_FONT_DIR");
  EXPECT_EQ(missing.message(),
            "font DejaVu Sans (DejaVuSans.ttf) not found in ATTNVIZ_FONT_DIR=/nonexistent-attnviz-fonts: install the "
            "Debian package fonts-dejavu-core (apt-get install fonts-dejavu-core)");
  EXPECT_EQ(Localized(missing, Lang::kKo),
            "글꼴 DejaVu Sans (DejaVuSans.ttf) 이(가) ATTNVIZ_FONT_DIR=/nonexistent-attnviz-fonts 에 없습니다: 데비안 "
            "패키지 fonts-dejavu-core 을(를) 설치하십시오 (apt-get install fonts-dejavu-core)");
}

// The programs' own ids (i18n/app_messages.h) travel in a Status as core's do: the English text from their own
// table, the parts rendered in Korean, alone, under a core prefix, or as a prefix over a core message.
TEST(I18n, AppMessagesRenderLikeTheEngines) {
  EXPECT_FALSE(IsAppMsgId(MsgId::kPrefixContext));
  EXPECT_FALSE(IsAppMsgId(MsgId::kCount));
  EXPECT_TRUE(IsAppMsgId(ToMsgId(AppMsgId::kMissingValue)));
  EXPECT_STREQ(EnglishTemplate(ToMsgId(AppMsgId::kNoText)), "");  // core does not know it
  const Status missing = AppError(AppMsgId::kMissingValue, {"--text"});
  EXPECT_EQ(missing.message(), "--text: missing value");
  ASSERT_EQ(missing.parts().size(), 1u);
  EXPECT_EQ(missing.parts()[0].id, ToMsgId(AppMsgId::kMissingValue));
  EXPECT_EQ(Localized(missing, Lang::kKo), "--text: 값이 없습니다");
  const Status at = AppErrorAt("--layers", AppMsgId::kNoLayerGiven, {});
  EXPECT_EQ(at.message(), "--layers: no layer given");
  EXPECT_EQ(Localized(at, Lang::kKo), "--layers: 층이 하나도 없습니다");
  const Status over = AppPrefixed(AppMsgId::kPrefixWhatIfLayers, {}, Status::Error(MsgId::kTextEmpty, {}));
  EXPECT_EQ(over.message(), "what-if layers: the text is empty: type at least one word");
  EXPECT_EQ(Localized(over, Lang::kKo), "가정 실험 층: 문장이 비어 있습니다: 낱말을 하나 이상 입력하십시오");
  EXPECT_EQ(Localized(over, Lang::kEn), over.message());
}

// The atlas holds the Hangul of the engine's Korean texts from the start: adding any of them adds no code point
// (a role sentence had drawn '넓', '높' and '맥' as boxes).
TEST(I18n, FontAtlasHasEveryGlyphOfTheEngineTexts) {
  UiFonts fonts;
  const size_t before = fonts.codepoint_count();
  for (const std::string& text : KoreanEngineTexts()) EXPECT_FALSE(fonts.AddText(text)) << text;
  EXPECT_EQ(fonts.codepoint_count(), before);
  EXPECT_GT(KoreanEngineTexts().size(), (size_t)MsgId::kCount);
}

// The log scale's colorbar drew 10⁻¹ as "10\uFFFD¹": U+207B and U+2074 were not in the atlas. Every tick label of
// a log colorbar (down to its floor, 10⁻⁴) needs no glyph the fonts do not already carry.
TEST(I18n, LogColorbarTicksHaveTheirSuperscriptsInTheAtlas) {
  UiFonts fonts;
  std::vector<float> ticks;
  for (int e = -4; e <= 0; ++e) ticks.push_back(std::pow(10.0f, (float)e));
  const std::vector<std::string> labels = FormatTicks(ticks, ColorScale::kLog, ColorRange{kLogFloor, 1.0f});
  ASSERT_EQ(labels.size(), ticks.size());
  std::string all;
  for (const std::string& label : labels) all += label;
  EXPECT_NE(all.find("\u207B"), std::string::npos) << all;  // the test sees superscripts at all
  EXPECT_FALSE(fonts.AddText(all)) << all;
}

// Titles and the summary line: word segments translated, numbers and names kept.
// Every Korean text a person can meet: the UI table, the engine's and the programs' message templates (with the
// role names and progress stages) and the help texts.
std::vector<std::string> EveryKoreanText() {
  std::vector<std::string> texts = KoreanEngineTexts();
  for (int id = 0; id < (int)Str::kCount; ++id) texts.push_back(Tr((Str)id, Lang::kKo));
  SetLang(Lang::kKo);
  for (Help h : {Help::kUsage, Help::kCompute, Help::kInputOptions, Help::kSweep, Help::kExport, Help::kModel,
                 Help::kAppHead, Help::kAppOptions})
    texts.push_back(WithModelTypes(HelpText(h, "")));  // as printed: the lists filled in
  SetLang(Lang::kEn);
  return texts;
}

// Where `term` occurs in `text` as a word of its own: not the tail of a longer Hangul word ("되살리지도" is
// "restore ... nor", no 지도 "map").
bool HasTermAsWord(const std::string& text, const std::string& term) {
  for (size_t at = text.find(term); at != std::string::npos; at = text.find(term, at + 1)) {
    const std::u32string before = DecodeUtf8(text.substr(0, at));
    if (before.empty() || before.back() < 0xAC00 || before.back() > 0xD7A3) return true;
  }
  return false;
}

// The terms the Korean review retired stay retired: 맵 not 지도, 설정 not 손잡이, 인덕션 not 귀납, 넓은 분포 not
// 넓게, 컬러맵 not 색상표; and 합니다체 throughout, no casual or 해요체 endings (보여 줘, 하세요).
TEST(I18n, KoreanTextsUseNoRetiredTermAndNoCasualEnding) {
  const std::vector<std::string> texts = EveryKoreanText();
  EXPECT_GT(texts.size(), 500u);
  EXPECT_TRUE(HasTermAsWord("어텐션 지도", "지도"));  // the checks themselves can fail
  EXPECT_FALSE(HasTermAsWord("되살리지도 않습니다", "지도"));
  for (const std::string& text : texts) {
    EXPECT_FALSE(HasTermAsWord(text, "지도")) << text;
    for (const char* retired : {"손잡이", "귀납", "넓게", "색상표", "줘", "세요", "해요", "에요", "예요"})
      EXPECT_EQ(text.find(retired), std::string::npos) << retired << " in: " << text;
  }
}

bool IsHangulSyllable(char32_t c) { return c >= 0xAC00 && c <= 0xD7A3; }

// A particle whose form follows the final consonant of the word before it (을/를, 이/가, 은/는, 과/와, 으로/로),
// alone, right after a value the text does not know ({0}, or '{0}' quoted, with or without a space): "d_k = {0}를"
// reads wrong for 16 ("16을"). The paired forms ("{0}을(를)") and rephrasings read right for any value.
bool HasParticleAfterPlaceholder(const std::string& text) {
  static const std::vector<std::u32string> kParticles = {U"을", U"를", U"이", U"가", U"은", U"는",
                                                         U"과", U"와", U"으로", U"로"};
  const std::u32string t = DecodeUtf8(text);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != U'{') continue;
    size_t j = i + 1;
    while (j < t.size() && t[j] >= U'0' && t[j] <= U'9') ++j;
    if (j == i + 1 || j >= t.size() || t[j] != U'}') continue;
    size_t k = j + 1;
    if (k < t.size() && (t[k] == U'\'' || t[k] == U'"')) ++k;
    if (k < t.size() && t[k] == U' ') ++k;
    for (const std::u32string& particle : kParticles) {
      if (t.compare(k, particle.size(), particle) != 0) continue;
      const size_t after = k + particle.size();
      if (after < t.size() && (IsHangulSyllable(t[after]) || t[after] == U'(')) continue;  // a word, or 을(를)
      return true;
    }
  }
  return false;
}

// A sentence ends in 합니다체, not in a noun form ("저장함", "가짐", "이어 붙임"): a word ending in 함 or 짐, or 붙임.
// Labels may still end in 없음, 않음 or 됨 ("스케일 없음", "마스크됨"), as Korean UIs write them.
bool HasNounFormEnding(const std::string& text) {
  const std::u32string t = DecodeUtf8(text);
  for (size_t i = 0; i < t.size(); ++i) {
    const bool word_end = i + 1 == t.size() || !IsHangulSyllable(t[i + 1]);
    if (!word_end) continue;
    if (t[i] == U'함' || t[i] == U'짐') return true;
    if (t[i] == U'임' && i > 0 && t[i - 1] == U'붙') return true;
  }
  return false;
}

TEST(I18n, KoreanWordingChecksCanFail) {
  EXPECT_TRUE(HasParticleAfterPlaceholder("q와 k는 d_k = {0}를 공유해야 합니다"));
  EXPECT_TRUE(HasParticleAfterPlaceholder("크기 '{0}' 는 가로x세로 꼴이 아닙니다"));
  EXPECT_TRUE(HasParticleAfterPlaceholder("{0}로 옮겼습니다"));
  EXPECT_FALSE(HasParticleAfterPlaceholder("{0}은(는) 범위를 벗어났습니다"));
  EXPECT_FALSE(HasParticleAfterPlaceholder("문장 {0}개를 불러왔습니다; {0}가지, {1}에서, {2}의"));
  EXPECT_TRUE(HasNounFormEnding("{0} 저장함"));
  EXPECT_TRUE(HasNounFormEnding("키 하나가 전부 가짐)"));
  EXPECT_TRUE(HasNounFormEnding("헤드를 이어 붙임 {0}"));
  EXPECT_FALSE(HasNounFormEnding("저장했습니다: {0}; 스케일 없음; 마스크됨; 그다음"));
}

// The wording a Korean student reads as Korean (the trial's review): particles that read right for any value,
// 합니다체 sentences, copulas written without a space ("q·k입니다"), 차원 for a dimension (not 폭), 표준편차 (not
// 퍼짐), 가산 for the additive score (덧셈 only in "덧셈 순서", the order of additions), 가중 평균 (not 가중 혼합),
// 가정 실험 for what-ifs (not 만약에), "view" not as 보기 in the neuron view's name.
TEST(I18n, KoreanTextsReadAsKorean) {
  const std::vector<std::string> texts = EveryKoreanText();
  for (const std::string& text : texts) {
    EXPECT_FALSE(HasParticleAfterPlaceholder(text)) << "a particle that depends on the value: " << text;
    EXPECT_FALSE(HasNounFormEnding(text)) << "not 합니다체: " << text;
    for (const char* spaced : {" 입니다", " 이어야", " 여야"})
      EXPECT_EQ(text.find(spaced), std::string::npos) << "a space before the copula: " << text;
    for (const char* retired : {"폭", "퍼짐", "으로서의", "가중 혼합", "혼합된", "두 번 말한", "만약에"})
      EXPECT_EQ(text.find(retired), std::string::npos) << retired << " in: " << text;
    for (size_t at = text.find("덧셈"); at != std::string::npos; at = text.find("덧셈", at + 1))
      EXPECT_EQ(text.compare(at, std::string("덧셈 순서").size(), "덧셈 순서"), 0) << text;
  }
  EXPECT_EQ(std::string(Tr(Str::kScoreAdditive, Lang::kKo)), "가산");
  EXPECT_EQ(std::string(Tr(Str::kWinNeuron, Lang::kKo)).find("보기"), std::string::npos);
}

// The whole-text review's glossary (the head of strings_ko.cpp): one word per concept. The retired variant of a
// unified term, or "" when the text has none.
std::string RetiredGlossaryTerm(const std::string& text) {
  // v is 밸류 (값 is a number or a setting's value), the q/k norm is 정규화, the Overview 한눈에 보기, the residual
  // stream 잔차 스트림, induction 인덕션.
  for (const char* retired : {"키/값", "키와 값", "값 행", "값 가중", "값 출처", "값의 가중 평균", "가중 평균한 값",
                              "노름", "개요", "잔차 흐름", "유도"})
    if (text.find(retired) != std::string::npos) return retired;
  return "";
}

// A map's cell is 칸, not 셀 (셀프, 픽셀 and 텍셀 are other words).
bool HasRetiredCell(const std::string& text) {
  const std::u32string t = DecodeUtf8(text);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != U'셀' || (i + 1 < t.size() && t[i + 1] == U'프')) continue;
    if (i > 0 && (t[i - 1] == U'픽' || t[i - 1] == U'텍')) continue;
    return true;
  }
  return false;
}

// A panel is a 패널 ("설정 패널을 보십시오"); 창 is the program's window only ("창에 끌어다 놓으면").
bool NamesAPanelAsWindow(const std::string& text) {
  for (Str title : {Str::kWinControls, Str::kWinSentences, Str::kWinHeads, Str::kWinShapes, Str::kWinSaturation,
                    Str::kWinExport, Str::kWinModel, Str::kWinOverview, Str::kWinNeuron})
    if (text.find(std::string(Tr(title, Lang::kKo)) + " 창") != std::string::npos) return true;
  return false;
}

// A count reads noun, number, counter: 층 3개, 토큰 512개; not "3개 층" or "512토큰".
bool HasNumberBeforeItsNoun(const std::string& text) {
  if (text.find("개 층") != std::string::npos) return true;
  for (size_t at = text.find("토큰"); at != std::string::npos; at = text.find("토큰", at + 1))
    if (at > 0 && (std::isdigit((unsigned char)text[at - 1]) || text[at - 1] == '}')) return true;
  return false;
}

// A question or an aside in 해요체 or casual speech ("파일이 잘렸나요?", "...죠"), where 합니다체 asks "잘렸습니까?".
bool HasCasualQuestion(const std::string& text) {
  for (const char* casual : {"나요", "까요", "죠"})
    if (text.find(casual) != std::string::npos) return true;
  return false;
}

TEST(I18n, KoreanTextsUseTheGlossarysOneWordPerConcept) {
  EXPECT_TRUE(HasCasualQuestion("데이터 구역은 8바이트뿐입니다 (파일이 잘렸나요?)"));  // the checks themselves can fail
  EXPECT_FALSE(HasCasualQuestion("파일이 잘렸습니까? 나는 지금 집으로 갑니다."));
  EXPECT_EQ(RetiredGlossaryTerm("키/값 문장 (열)"), "키/값");  // the checks themselves can fail
  EXPECT_EQ(RetiredGlossaryTerm("노름 전 q_i"), "노름");
  EXPECT_EQ(RetiredGlossaryTerm("키/밸류 문장; 기본값을 씁니다; 정규화 전 q_i"), "");
  EXPECT_TRUE(HasRetiredCell("셀이 수치를 넣기에 너무 작습니다"));
  EXPECT_FALSE(HasRetiredCell("셀프 어텐션; 16384x16384 픽셀; 텍셀마다 칸"));
  EXPECT_TRUE(NamesAPanelAsWindow("쿼리와 키의 차원이 다릅니다 (설정 창을 보십시오)"));
  EXPECT_FALSE(NamesAPanelAsWindow("모델 폴더를 창에 끌어다 놓으십시오; 헤드 패널"));
  EXPECT_TRUE(HasNumberBeforeItsNoun("gpt2: 12개 층"));
  EXPECT_TRUE(HasNumberBeforeItsNoun("처음 {0}토큰만"));
  EXPECT_FALSE(HasNumberBeforeItsNoun("층 12개, 토큰 {0}개, 첫 토큰"));
  for (const std::string& text : EveryKoreanText()) {
    EXPECT_EQ(RetiredGlossaryTerm(text), "") << text;
    EXPECT_FALSE(HasRetiredCell(text)) << "셀 for 칸: " << text;
    EXPECT_FALSE(NamesAPanelAsWindow(text)) << "창 for 패널: " << text;
    EXPECT_FALSE(HasNumberBeforeItsNoun(text)) << "a number before its noun: " << text;
    EXPECT_FALSE(HasCasualQuestion(text)) << "not 합니다체: " << text;
  }
  EXPECT_EQ(std::string(Tr(Str::kDictValue, Lang::kKo)), "밸류");
  EXPECT_EQ(std::string(Tr(Str::kWinOverview, Lang::kKo)), "한눈에 보기");
}

// Every Korean text a person can meet (the UI table, the engine's and the programs' messages, role names and
// sentences, progress stages, the help texts) holds to the one list of what stays in Latin letters, word by word: a
// stray "min" inside an otherwise Korean sentence fails here, where KoreanTableIsKoreanWhereEnglishHasWords passes any
// entry with some Hangul.
TEST(I18n, KoreanTextsCarryNoEnglishWordOutsideTheKeptNames) {
  EXPECT_EQ(EnglishWords("평균 min 가중치"), std::vector<std::string>{"min"});  // the check itself can fail
  const std::vector<std::string> texts = EveryKoreanText();
  std::map<std::string, std::string> found;  // word -> the first text it is in
  for (const std::string& text : texts)
    for (const std::string& word : EnglishWords(text)) found.emplace(word, text);
  for (const auto& [word, text] : found) ADD_FAILURE() << "'" << word << "' in: " << text.substr(0, 300);
}

// docs/app.md's "What stays in English under --lang ko" lists exactly the words the two Korean checks keep: a word
// kept in the test and not in the docs (or the other way round) fails here.
TEST(I18n, DocsListTheKeptLatinWordsExactly) {
  Result<std::string> doc = ReadFile(std::string(ATTNVIZ_SOURCE_DIR) + "/docs/app.md");
  ASSERT_TRUE(doc.ok()) << doc.message();
  const size_t begin = doc->find("<!-- kept-latin-words"), end = doc->find("<!-- /kept-latin-words -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  ASSERT_LT(begin, end);
  const std::string section = doc->substr(begin, end - begin);
  std::set<std::string> listed;
  for (size_t at = section.find('`'); at != std::string::npos;) {
    const size_t close = section.find('`', at + 1);
    if (close == std::string::npos) break;
    listed.insert(section.substr(at + 1, close - at - 1));
    at = section.find('`', close + 1);
  }
  for (const std::string& word : KeptLatinWords()) EXPECT_TRUE(listed.count(word)) << "not in docs/app.md: " << word;
  for (const std::string& word : listed) EXPECT_TRUE(KeptLatinWords().count(word)) << "not kept by the test: " << word;
}

// The role filter reads the Korean role names the UI shows (the role line's, the Overview badges'), as well as the
// English ones; its Korean hint and syntax help name the role in Korean.
TEST(I18n, RoleFilterReadsTheKoreanRoleNames) {
  SetLang(Lang::kKo);
  for (model::HeadRole role : model::AllHeadRoles()) {
    const std::string name = LocalizedRoleName(role);
    ASSERT_TRUE(HasHangul(name)) << name;
    const Result<model::HeadRole> parsed = ParseLocalizedRoleName(name);
    ASSERT_TRUE(parsed.ok()) << name;
    EXPECT_EQ(*parsed, role) << name;
    // The Overview's badge is the name's first word (이전 토큰 -> 이전, 첫 토큰 -> 첫), as English "prev" is of
    // "previous-token": a badge reads as the name it stands for.
    const std::string short_name = Tr((Str)((int)Str::kRoleShortPrev + (int)role));
    EXPECT_EQ(name.substr(0, name.find(' ')), short_name) << name;
    const Result<model::HeadRole> badge = ParseLocalizedRoleName(Tr((Str)((int)Str::kRoleShortPrev + (int)role)));
    ASSERT_TRUE(badge.ok()) << Tr((Str)((int)Str::kRoleShortPrev + (int)role));
    EXPECT_EQ(*badge, role);
    const Result<model::RoleFilter> filter = ParseLocalizedRoleFilter(name + " >= 0.4");
    ASSERT_TRUE(filter.ok()) << name;
    EXPECT_EQ(filter->role, role);
    EXPECT_EQ(filter->op, model::RoleFilter::Op::kGreaterEqual);
    EXPECT_FLOAT_EQ(filter->threshold, 0.4f);
    EXPECT_EQ(ParseLocalizedRoleFilter(std::string(model::RoleName(role)) + " < 0.2")->role, role);  // English too
  }
  const Result<model::RoleFilter> unspaced = ParseLocalizedRoleFilter("이전토큰>0.5");
  ASSERT_TRUE(unspaced.ok());
  EXPECT_EQ(unspaced->role, model::HeadRole::kPreviousToken);
  // The Korean hint and the refusal's syntax help carry no Latin role word.
  const std::string hint = Tr(Str::kRoleFilterHint);
  const std::string refusal = Localized(ParseLocalizedRoleFilter("인덕션 0.4").status());
  const std::string unknown = Localized(ParseLocalizedRoleFilter("귀신 >= 0.4").status());
  for (const std::string& text : {hint, refusal, unknown})
    for (model::HeadRole role : model::AllHeadRoles())
      EXPECT_EQ(text.find(model::RoleName(role)), std::string::npos) << text;
  EXPECT_NE(hint.find("인덕션"), std::string::npos) << hint;
  EXPECT_NE(refusal.find("인덕션 >= 0.4"), std::string::npos) << refusal;
  EXPECT_NE(unknown.find("이전 토큰, 인덕션"), std::string::npos) << unknown;
  // An error after a Korean role quotes the text as typed.
  const std::string no_number = Localized(ParseLocalizedRoleFilter("인덕션 >=").status());
  EXPECT_NE(no_number.find("'인덕션 >='"), std::string::npos) << no_number;
  SetLang(Lang::kEn);
}

TEST(I18n, TitlesAndTheSummaryLineInKorean) {
  AttentionConfig c;
  c.scale = false;
  c.key_from = FeatureSource::kLength;
  c.score = ScoreKind::kNegDistance;
  SetLang(Lang::kEn);
  EXPECT_EQ(LocalizedDescribe(c), Describe(c));
  SetLang(Lang::kKo);
  // k from length is 1 wide, and -|q - k| is never scaled: no "스케일 없음" for a switch that does nothing there.
  EXPECT_EQ(LocalizedDescribe(c), "d_k=1 \u00B7 T=1 \u00B7 단어 길이에서 온 k \u00B7 점수 \u2212|q \u2212 k|");
  EXPECT_EQ(LocalizedTitle("head 2 \u00B7 d_k=16 \u00B7 scaled \u00B7 T=1 \u00B7 causal \u00B7 seed=3"),
            "헤드 2 \u00B7 d_k=16 \u00B7 스케일 적용 \u00B7 T=1 \u00B7 인과 \u00B7 seed=3");
  EXPECT_EQ(LocalizedTitle("softmax saturation \u00B7 n_k=12 \u00B7 T=1 \u00B7 no positions"),
            "softmax 포화 \u00B7 n_k=12 \u00B7 T=1 \u00B7 위치 인코딩 없음");
  EXPECT_EQ(LocalizedTitle("4 heads"), "헤드 4개");
  SetLang(Lang::kEn);
}

}  // namespace
}  // namespace attnviz
