// The lessons' buttons as pure functions on the state (lessons.h): each sets the knobs its text names and
// keeps the rest, and the settings it makes are valid (the engine would run them).
#include <gtest/gtest.h>

#include "lessons.h"
#include "sandbox/text.h"

namespace attnviz {
namespace {

AppSettings Changed() {
  AppSettings s;
  s.config.seed = 7;
  s.config.mask = MaskKind::kCausal;
  s.colormap = Colormap::kMagma;
  s.source = Source::kModel;
  s.head_hidden[2] = true;
  return s;
}

TEST(Lessons, EachButtonGivesValidSandboxSettingsAndKeepsTheRest) {
  const AppSettings before = Changed();
  for (int i = 0; i < kLessonCount; ++i) {
    LessonSetup setup = ApplyLesson((Lesson)i, before);
    EXPECT_TRUE(Validate(setup.settings.config).ok()) << "lesson " << i << ": " << Validate(setup.settings.config).message();
    EXPECT_EQ(setup.settings.source, Source::kSandbox) << i;
    EXPECT_EQ(setup.settings.config.seed, 7u) << i;          // not a lesson's knob
    if ((Lesson)i != Lesson::kB) EXPECT_EQ(setup.settings.config.mask, MaskKind::kCausal) << i;  // (b) needs none
    EXPECT_EQ(setup.settings.colormap, Colormap::kMagma) << i;
  }
}

TEST(Lessons, A_DvDiffersFromDkAndTheShapesTabOpens) {
  LessonSetup s = ApplyLesson(Lesson::kA, AppSettings());
  EXPECT_EQ(s.settings.config.head_dim_k(), 16);
  EXPECT_EQ(s.settings.config.head_dim_v(), 48);
  EXPECT_EQ(s.settings.config.mode, AttentionMode::kSelf);
  EXPECT_EQ(s.tab, LearnTab::kShapes);
}

TEST(Lessons, B_CrossModeWithMoreQueriesThanKeys) {
  LessonSetup s = ApplyLesson(Lesson::kB, AppSettings());
  EXPECT_EQ(s.settings.config.mode, AttentionMode::kCross);
  auto tokens = TokenizeTexts(s.settings.kv_text, s.settings.query_text);
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  EXPECT_EQ((*tokens)->kv_tokens.size(), 4u);     // I | go | home | .
  EXPECT_EQ((*tokens)->query_tokens.size(), 6u);  // Ich | gehe | jetzt | nach | Hause | .
  EXPECT_EQ(s.tab, LearnTab::kShapes);
}

TEST(Lessons, C_FusedFourHeadsAndTheNumbersTab) {
  AppSettings before;
  before.config.qkv = QkvLayout::kSeparate;
  before.config.d_k = 100;
  LessonSetup s = ApplyLesson(Lesson::kC, before);
  EXPECT_EQ(s.settings.config.qkv, QkvLayout::kFused);
  EXPECT_EQ(s.settings.config.n_head, 4);
  EXPECT_EQ(s.settings.config.head_dim_k(), 16);  // 64 / 4: the split of [d_model, 3 d_model]
  EXPECT_EQ(s.tab, LearnTab::kNumbers);
}

TEST(Lessons, D_WideDkUnscaledBesideScaled) {
  AppSettings before;
  before.config.temperature = 3.0f;
  LessonSetup s = ApplyLesson(Lesson::kD, before);
  EXPECT_EQ(s.settings.config.head_dim_k(), 512);
  EXPECT_FALSE(s.settings.config.scale);
  EXPECT_EQ(s.settings.config.temperature, 1.0f);
  EXPECT_TRUE(s.settings.side_by_side);
  EXPECT_EQ(s.tab, LearnTab::kVariance);
}

TEST(Lessons, E_EightHeadsAllShownInTheGrid) {
  AppSettings before = Changed();
  before.enlarged = true;
  LessonSetup s = ApplyLesson(Lesson::kE, before);
  EXPECT_EQ(s.settings.config.n_head, 8);
  EXPECT_EQ(s.settings.config.head_dim_k(), 16);
  EXPECT_FALSE(s.settings.enlarged);
  EXPECT_FALSE(s.settings.side_by_side);
  for (int h = 0; h < 8; ++h) EXPECT_TRUE(s.settings.head_visible(h)) << h;
}

TEST(Lessons, F_QueryAndKeyFromWordLengthScoredByDistance) {
  LessonSetup s = ApplyLesson(Lesson::kF, AppSettings());
  EXPECT_EQ(s.settings.config.query_from, FeatureSource::kLength);
  EXPECT_EQ(s.settings.config.key_from, FeatureSource::kLength);
  EXPECT_EQ(s.settings.config.value_from, FeatureSource::kEmbedding);
  EXPECT_EQ(s.settings.config.score, ScoreKind::kNegDistance);
}

TEST(Lessons, G_OpensTheDictionary) {
  AppSettings before;
  LessonSetup s = ApplyLesson(Lesson::kG, before);
  EXPECT_EQ(s.tab, LearnTab::kDictionary);
  EXPECT_EQ(SerializeSettings(s.settings), SerializeSettings(before));  // no knob changes
}

TEST(Lessons, EveryLessonHasItsOwnWords) {
  for (int i = 0; i < kLessonCount; ++i) {
    LessonWords w = WordsOf((Lesson)i);
    for (Lang lang : {Lang::kEn, Lang::kKo}) {
      const std::string title = Tr(w.title, lang);
      EXPECT_EQ(title.substr(0, 3), std::string("(") + (char)('a' + i) + ")") << title;
      EXPECT_GT(std::string(Tr(w.text, lang)).size(), 100u) << title;
      EXPECT_NE(std::string(Tr(w.question, lang)).find('?'), std::string::npos) << title;
    }
  }
}

}  // namespace
}  // namespace attnviz
