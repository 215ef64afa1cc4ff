// The lessons' buttons as pure functions from the defaults (lessons.h): each sets the knobs its text names and
// every other knob to its default, so any order gives the same picture; the settings it makes are valid (the
// engine would run them); --lesson takes a..g and refuses anything else. Showing a lesson (lesson_show.h) drives
// the app only through the verbs it is given, recorded here with no App.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "i18n/ui_strings.h"
#include "lesson_show.h"
#include "lessons.h"
#include "sandbox/text.h"
#include "settings.h"

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

TEST(Lessons, EachButtonGivesValidSettingsWithEveryOtherKnobAtItsDefault) {
  const AppSettings before = Changed();
  for (int i = 0; i < kLessonCount; ++i) {
    LessonSetup setup = ApplyLesson((Lesson)i, before);
    EXPECT_TRUE(Validate(setup.settings.config).ok()) << "lesson " << i << ": " << Validate(setup.settings.config).message();
    EXPECT_EQ(setup.settings.source, (Lesson)i == Lesson::kE ? Source::kModel : Source::kSandbox) << i;
    EXPECT_EQ(setup.settings.config.seed, 0u) << i;  // not a lesson's knob: the default
    EXPECT_EQ(setup.settings.config.mask, MaskKind::kNone) << i;
    EXPECT_FALSE(setup.settings.head_hidden[2]) << i;
    EXPECT_EQ(setup.settings.colormap, Colormap::kMagma) << i;  // taste, not a knob
  }
}

// The learner trial: after (f), (a) showed q and k one wide; after (d), (e) showed unscaled heads. Every lesson
// (either part) taken after every other gives the picture it gives from the defaults.
TEST(Lessons, AnyOrderGivesTheSamePicture) {
  const LessonPart parts[] = {LessonPart::kMain, LessonPart::kSecond};
  for (bool shipped : {true, false}) {
    const BundledModels bundled{shipped, shipped};
    for (int i = 0; i < kLessonCount; ++i)
      for (LessonPart part : parts) {
        const std::string fresh = SerializeSettings(ApplyLesson((Lesson)i, AppSettings(), bundled, part).settings);
        for (int before = 0; before < kLessonCount; ++before)
          for (LessonPart before_part : parts) {
            const AppSettings after_other = ApplyLesson((Lesson)before, AppSettings(), bundled, before_part).settings;
            EXPECT_EQ(SerializeSettings(ApplyLesson((Lesson)i, after_other, bundled, part).settings), fresh)
                << "lesson " << (char)('a' + i) << (int)part << " after " << (char)('a' + before) << (int)before_part
                << (shipped ? "" : " (no bundled models)");
          }
      }
  }
}

TEST(Lessons, TheUsersOwnTextAndFilesAreKept) {
  AppSettings before = Changed();
  before.kv_text = "My own sentence.";
  before.export_dir = "/tmp/figs";
  before.recent_models = {"/m"};
  for (Lesson lesson : {Lesson::kA, Lesson::kC, Lesson::kF}) {
    const AppSettings s = ApplyLesson(lesson, before).settings;
    EXPECT_EQ(s.kv_text, "My own sentence.");
    EXPECT_EQ(s.export_dir, "/tmp/figs");
    EXPECT_EQ(s.recent_models, before.recent_models);
  }
}

TEST(Lessons, LettersParseAndBadOnesAreRefused) {
  Lesson lesson = Lesson::kA;
  EXPECT_TRUE(ParseLessonLetter("e", &lesson));
  EXPECT_EQ(lesson, Lesson::kE);
  EXPECT_TRUE(ParseLessonLetter("G", &lesson));
  EXPECT_EQ(lesson, Lesson::kG);
  for (const char* bad : {"h", "", "ab", "1", "z", "`"}) EXPECT_FALSE(ParseLessonLetter(bad, &lesson)) << bad;
  for (int i = 0; i < kLessonCount; ++i) EXPECT_EQ(LessonLetter((Lesson)i), 'a' + i);
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

// Seed 001's [batch, head, seq, d/head] transpose can only be read off the numbers when no two axes have the same
// size: (a) and (c) open on a sentence whose token count is none of the head count, d_k, d_v or d_model.
TEST(Lessons, A_And_C_ShapesHaveNoTwoAxesOfTheSameSize) {
  for (Lesson lesson : {Lesson::kA, Lesson::kC}) {
    const AppSettings s = ApplyLesson(lesson, AppSettings()).settings;
    auto tokens = TokenizeTexts(s.kv_text, "");
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    const std::set<int> sizes = {1, (int)(*tokens)->kv_tokens.size(), s.config.n_head, s.config.head_dim_k(),
                                 s.config.d_model};
    EXPECT_EQ(sizes.size(), 5u) << "lesson " << LessonLetter(lesson) << ": batch 1, n " << (*tokens)->kv_tokens.size()
                                << ", heads " << s.config.n_head << ", d_k " << s.config.head_dim_k() << ", d_model "
                                << s.config.d_model;
    if (lesson == Lesson::kA) EXPECT_FALSE(sizes.count(s.config.head_dim_v()));
  }
}

// Lesson (b) in the Korean UI: the queries are a Korean sentence (not German) reading an English one's keys.
TEST(Lessons, B_InKoreanTheQueriesAreKorean) {
  SetLang(Lang::kKo);
  LessonSetup s = ApplyLesson(Lesson::kB, AppSettings());
  SetLang(Lang::kEn);
  auto tokens = TokenizeTexts(s.settings.kv_text, s.settings.query_text);
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  EXPECT_NE(s.settings.query_text.find("집"), std::string::npos) << s.settings.query_text;
  EXPECT_EQ((*tokens)->kv_tokens.size(), 4u);
  EXPECT_EQ((*tokens)->query_tokens.size(), 5u);  // 나는 | 지금 | 집으로 | 갑니다 | .
  // Another lesson after it does not inherit the Korean sentence.
  AppSettings after = s.settings;
  EXPECT_EQ(ApplyLesson(Lesson::kA, after).settings.query_text, "");
}

// (b)'s second part, with trained weights (seeds 000 and 002: encoder-decoder attention in translation): the bundled
// encoder-decoder model translates a date written out, and the Heads panel shows cross-attention layer 1 head 3,
// whose rows (target tokens) look at the source tokens they translate; the Shapes tab beside it says n_q != n_k.
TEST(Lessons, B_SecondPartTranslatesADateOnTheBundledEncoderDecoder) {
  AppSettings before = Changed();
  before.kv_text = "My own sentence.";  // the lesson names its source text
  const LessonSetup s = ApplyLesson(Lesson::kB, before, {}, LessonPart::kSecond);
  EXPECT_TRUE(s.bundled_seq2seq);
  EXPECT_FALSE(s.bundled_model);
  EXPECT_EQ(s.settings.source, Source::kModel);
  EXPECT_EQ(s.settings.kv_text, "March 3, 1999");
  EXPECT_EQ(s.seq2seq_stack, kCrossStack);
  EXPECT_EQ(s.settings.model_layer, 1);
  EXPECT_EQ(s.settings.selected_head, 3);
  EXPECT_TRUE(s.settings.enlarged);
  EXPECT_EQ(s.tab, LearnTab::kShapes);
  EXPECT_EQ(s.settings.config.seed, 0u);  // every knob it does not name at its default
  EXPECT_EQ(s.settings.colormap, Colormap::kMagma);
  // The main part stays the sandbox's cross mode with random weights.
  const LessonSetup main = ApplyLesson(Lesson::kB, before);
  EXPECT_FALSE(main.bundled_seq2seq);
  EXPECT_EQ(main.settings.source, Source::kSandbox);
  EXPECT_EQ(main.settings.config.mode, AttentionMode::kCross);
  // Another lesson after it does not inherit the date.
  EXPECT_EQ(ApplyLesson(Lesson::kA, s.settings).settings.kv_text, "The cat sat on the mat.");
}

TEST(Lessons, B_SecondPartInKoreanTranslatesAKoreanDate) {
  SetLang(Lang::kKo);
  const LessonSetup s = ApplyLesson(Lesson::kB, AppSettings(), {}, LessonPart::kSecond);
  SetLang(Lang::kEn);
  EXPECT_EQ(s.settings.kv_text, "1999년 3월 3일");
  EXPECT_EQ(ApplyLesson(Lesson::kA, s.settings).settings.kv_text, "The cat sat on the mat.");
}

// Without the bundled encoder-decoder model the part's button is off (panel_lessons.cpp); asked anyway, it gives the
// main part's picture rather than a model that is not there.
TEST(Lessons, B_SecondPartWithoutTheBundledEncoderDecoderIsTheMainPart) {
  const LessonSetup s = ApplyLesson(Lesson::kB, AppSettings(), BundledModels{true, false}, LessonPart::kSecond);
  EXPECT_FALSE(s.bundled_seq2seq);
  EXPECT_EQ(SerializeSettings(s.settings), SerializeSettings(ApplyLesson(Lesson::kB, AppSettings()).settings));
}

// Two lessons have a second part, (b) with trained weights and (d) today's guards; each has its own words.
TEST(Lessons, OnlyBAndDHaveASecondPartWithItsOwnWords) {
  for (int i = 0; i < kLessonCount; ++i) {
    const LessonWords w = WordsOf((Lesson)i);
    const bool expected = (Lesson)i == Lesson::kB || (Lesson)i == Lesson::kD;
    ASSERT_EQ(w.second.has_value(), expected) << LessonLetter((Lesson)i);
    if (!expected) continue;
    for (Lang lang : {Lang::kEn, Lang::kKo}) {
      EXPECT_GT(std::string(Tr(w.second->text, lang)).size(), 100u) << LessonLetter((Lesson)i);
      EXPECT_NE(std::string(Tr(w.second->text, lang)), Tr(w.text, lang));
      EXPECT_NE(std::string(Tr(w.second->question, lang)).find('?'), std::string::npos);
    }
  }
  // (b)'s words say what the picture shows: rows are target tokens, columns source tokens, n_q != n_k, keys and
  // values in pairs from the encoder.
  const std::string en = Tr(WordsOf(Lesson::kB).second->text, Lang::kEn);
  for (const char* said : {"trained weights", "one row per target token", "one column per source token", "n_q != n_k",
                           "in pairs", "encoder", "layer 1, head 3"})
    EXPECT_NE(en.find(said), std::string::npos) << said;
  const std::string ko = Tr(WordsOf(Lesson::kB).second->text, Lang::kKo);
  for (const char* said : {"학습된 가중치", "대상 토큰마다 행 하나", "원문 토큰마다 열 하나", "n_q != n_k", "짝으로",
                           "층 1", "헤드 3"})
    EXPECT_NE(ko.find(said), std::string::npos) << said;
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
  EXPECT_EQ(s.settings.config.softcap, 0.0f);
  EXPECT_FALSE(s.settings.config.qk_norm);
}

// (d)'s second part: today's answer, a soft cap on the widest unscaled d_k; the main part again takes it away.
TEST(Lessons, D_SecondPartASoftCapOnTheWidestUnscaledDk) {
  AppSettings before;
  before.config.qk_norm = true;  // a knob the part does not name: back to its default
  LessonSetup s = ApplyLesson(Lesson::kD, before, {}, LessonPart::kSecond);
  EXPECT_EQ(s.settings.config.head_dim_k(), kMaxHeadDim);
  EXPECT_FALSE(s.settings.config.scale);
  EXPECT_EQ(s.settings.config.softcap, kDefaultSoftcap);
  EXPECT_FALSE(s.settings.config.qk_norm);
  EXPECT_TRUE(s.settings.side_by_side);
  EXPECT_EQ(s.tab, LearnTab::kVariance);
  EXPECT_FALSE(s.bundled_seq2seq);
  EXPECT_EQ(ApplyLesson(Lesson::kD, s.settings).settings.config.softcap, 0.0f);
}

TEST(Lessons, E_TheBundledModelOnARepeatedSentenceAtItsInductionLayer) {
  AppSettings before = Changed();
  before.enlarged = true;
  LessonSetup m = ApplyLesson(Lesson::kE, before);
  EXPECT_TRUE(m.bundled_model);
  EXPECT_EQ(m.settings.source, Source::kModel);
  EXPECT_EQ(m.settings.model_layer, 1);
  EXPECT_EQ(m.settings.kv_text, kRepeatedSentence);
  const std::string text = kRepeatedSentence, half = text.substr(0, text.size() / 2);
  EXPECT_EQ(text, half + " " + half) << "said twice";
  EXPECT_FALSE(m.settings.enlarged);
  EXPECT_FALSE(m.settings.model_no_scale);
  for (int h = 0; h < 4; ++h) EXPECT_TRUE(m.settings.head_visible(h)) << h;
}

TEST(Lessons, E_WithoutABundledModelEightSandboxHeads) {
  AppSettings before = Changed();
  before.enlarged = true;
  LessonSetup s = ApplyLesson(Lesson::kE, before, BundledModels{false, true});
  EXPECT_FALSE(s.bundled_model);
  EXPECT_EQ(s.settings.source, Source::kSandbox);
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
  EXPECT_EQ(SerializeSettings(s.settings), SerializeSettings(before));  // the defaults: no knob changes
}

TEST(Lessons, HeadsWithRoleNamesOnlyHeadsWhoseRoleClearsItsThreshold) {
  model::HeadRoles roles;
  roles.n_layer = 2, roles.n_head = 2;
  roles.scores.resize(4);
  roles.at(0, 1)[model::HeadRole::kPreviousToken] = 0.7f;
  roles.at(1, 0)[model::HeadRole::kInduction] = 0.56f;
  roles.at(1, 0)[model::HeadRole::kBroad] = 0.9f;  // broad scores higher: still an induction head
  roles.at(1, 1)[model::HeadRole::kInduction] = 0.2f;  // too weak to name
  const std::vector<NamedHead> prev = HeadsWithRole(roles, model::HeadRole::kPreviousToken);
  ASSERT_EQ(prev.size(), 1u);
  EXPECT_EQ(prev[0].layer, 0);
  EXPECT_EQ(prev[0].head, 1);
  const std::vector<NamedHead> ind = HeadsWithRole(roles, model::HeadRole::kInduction);
  ASSERT_EQ(ind.size(), 1u);
  EXPECT_EQ(ind[0].layer, 1);
  EXPECT_EQ(ind[0].head, 0);
  EXPECT_FLOAT_EQ(ind[0].score, 0.56f);
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

// Lesson (c)'s words say what its check measures: the fused and separate Linears agree to float32 rounding (the
// sums may run in another order), not exactly.
TEST(Lessons, C_TextClaimsEqualityOnlyUpToFloat32Rounding) {
  for (Lang lang : {Lang::kEn, Lang::kKo}) {
    const std::string text = Tr(Str::kLessonCText, lang);
    EXPECT_NE(text.find("float32"), std::string::npos) << text;
    for (const char* exact : {"exactly", "identical", "똑같", "정확히"}) EXPECT_EQ(text.find(exact), std::string::npos) << text;
  }
  EXPECT_NE(std::string(Tr(Str::kLessonCText, Lang::kEn)).find("rounding"), std::string::npos);
  EXPECT_NE(std::string(Tr(Str::kLessonCText, Lang::kKo)).find("반올림"), std::string::npos);
}

// A stage with recording verbs: the model folders opened and the sources switched to.
struct RecordedStage {
  AppSettings settings;
  PanelViews views;
  std::vector<std::string> opened;
  std::vector<Source> sources;
  LessonStage Stage(const std::string& bundled_dir, bool bundled_open, const std::string& seq2seq_dir = "") {
    LessonStage stage{settings, views};
    stage.bundled_model_dir = bundled_dir;
    stage.bundled_seq2seq_dir = seq2seq_dir;
    stage.bundled_model_open = bundled_open;
    stage.open_model = [this](const std::string& dir) { opened.push_back(dir); };
    stage.set_source = [this](Source source) {
      sources.push_back(source);
      settings.source = source;
    };
    return stage;
  }
};

TEST(ShowLesson, LessonEOpensTheBundledModelOrShowsItWhenOpen) {
  RecordedStage closed;
  ShowLesson(Lesson::kE, closed.Stage("/share/tiny", false));
  EXPECT_EQ(closed.opened, std::vector<std::string>{"/share/tiny"});
  EXPECT_TRUE(closed.sources.empty());
  EXPECT_EQ(closed.settings.kv_text, kRepeatedSentence);
  EXPECT_EQ(closed.views.learn.lesson, Lesson::kE);
  EXPECT_TRUE(closed.views.learn.lesson_beside);

  RecordedStage open;
  ShowLesson(Lesson::kE, open.Stage("/share/tiny", true));
  EXPECT_TRUE(open.opened.empty());
  EXPECT_EQ(open.sources, std::vector<Source>{Source::kModel});
  EXPECT_EQ(open.settings.model_dir, "/share/tiny");

  RecordedStage none;  // no bundled model: (e) on the sandbox, nothing opened or switched
  ShowLesson(Lesson::kE, none.Stage("", false));
  EXPECT_TRUE(none.opened.empty());
  EXPECT_TRUE(none.sources.empty());
  EXPECT_EQ(none.settings.config.n_head, 8);
}

// (b)'s second part opens the bundled encoder-decoder model (the App does the opening), asks for a translation of
// the lesson's source and picks the cross-attention stack, whatever the Overview showed before.
TEST(ShowLesson, LessonBSecondPartOpensTheEncoderDecoderAndAsksForATranslation) {
  RecordedStage stage;
  stage.views.seq2seq.stack = kEncoderStack;
  stage.views.seq2seq.target_text = "an old target";
  ShowLesson(Lesson::kB, stage.Stage("/share/tiny", false, "/share/tiny-seq2seq"), LessonPart::kSecond);
  EXPECT_EQ(stage.opened, std::vector<std::string>{"/share/tiny-seq2seq"});
  EXPECT_EQ(stage.settings.source, Source::kModel);
  EXPECT_EQ(stage.settings.kv_text, "March 3, 1999");
  EXPECT_EQ(stage.views.seq2seq.stack, kCrossStack);
  EXPECT_TRUE(stage.views.seq2seq.translate);
  EXPECT_EQ(stage.views.seq2seq.target_text, "");
  EXPECT_EQ(stage.settings.model_layer, 1);
  EXPECT_EQ(stage.settings.selected_head, 3);
  EXPECT_EQ(stage.views.learn.lesson, Lesson::kB);
  EXPECT_EQ(stage.views.learn.part, LessonPart::kSecond);  // its words first beside the evidence
  EXPECT_EQ(stage.views.learn.tab, LearnTab::kShapes);
  EXPECT_TRUE(stage.views.learn.lesson_beside);

  RecordedStage none;  // not shipped: the main part's sandbox picture, nothing opened, no translation asked
  ShowLesson(Lesson::kB, none.Stage("/share/tiny", false, ""), LessonPart::kSecond);
  EXPECT_TRUE(none.opened.empty());
  EXPECT_FALSE(none.views.seq2seq.translate);
  EXPECT_EQ(none.settings.config.mode, AttentionMode::kCross);
  EXPECT_EQ(none.settings.source, Source::kSandbox);
}

TEST(ShowLesson, ASandboxLessonSwitchesFromAModelAndResetsTheViews) {
  RecordedStage stage;
  stage.settings.source = Source::kModel;
  stage.views.model.ablated.push_back({0, 1});
  stage.views.learn.dictionary.rows.clear();
  stage.views.learn.numbers.query = 3;
  ShowLesson(Lesson::kD, stage.Stage("/share/tiny", true));
  EXPECT_EQ(stage.sources, std::vector<Source>{Source::kSandbox});
  EXPECT_TRUE(stage.opened.empty());
  EXPECT_EQ(stage.settings.config.d_k, 512);
  EXPECT_TRUE(stage.views.model.ablated.empty());
  EXPECT_EQ(stage.views.learn.dictionary.rows.size(), DictionaryView().rows.size());
  EXPECT_EQ(stage.views.learn.numbers.query, 0);
  EXPECT_EQ(stage.views.learn.tab, LearnTab::kVariance);
  EXPECT_GT(stage.views.learn.tab_requested, 0);
  EXPECT_TRUE(stage.views.learn.lesson_beside);
}

}  // namespace
}  // namespace attnviz
