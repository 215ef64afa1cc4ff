#include "lessons.h"

#include <cctype>

#include "i18n/ui_strings.h"

namespace attnviz {

LessonWords WordsOf(Lesson lesson) {
  static const LessonWords kWords[kLessonCount] = {
      {Str::kLessonATitle, Str::kLessonAText, Str::kLessonAButton, Str::kLessonAQuestion, std::nullopt},
      {Str::kLessonBTitle, Str::kLessonBText, Str::kLessonBButton, Str::kLessonBQuestion,
       LessonPartWords{Str::kLessonBTrainedText, Str::kLessonBTrainedButton, Str::kLessonBTrainedQuestion}},
      {Str::kLessonCTitle, Str::kLessonCText, Str::kLessonCButton, Str::kLessonCQuestion, std::nullopt},
      {Str::kLessonDTitle, Str::kLessonDText, Str::kLessonDButton, Str::kLessonDQuestion,
       LessonPartWords{Str::kLessonDTodayText, Str::kLessonDTodayButton, Str::kLessonDTodayQuestion}},
      {Str::kLessonETitle, Str::kLessonEText, Str::kLessonEButton, Str::kLessonEQuestion, std::nullopt},
      {Str::kLessonFTitle, Str::kLessonFText, Str::kLessonFButton, Str::kLessonFQuestion, std::nullopt},
      {Str::kLessonGTitle, Str::kLessonGText, Str::kLessonGButton, Str::kLessonGQuestion, std::nullopt},
  };
  return kWords[(int)lesson];
}

bool ParseLessonLetter(const std::string& text, Lesson* lesson) {
  if (text.size() != 1) return false;
  const char c = (char)std::tolower((unsigned char)text[0]);
  if (c < 'a' || c >= 'a' + kLessonCount) return false;
  *lesson = (Lesson)(c - 'a');
  return true;
}

char LessonLetter(Lesson lesson) { return (char)('a' + (int)lesson); }

const char* const kRepeatedSentence =
    "The old man gave the small dog a red ball in the park. The old man gave the small dog a red ball in the park.";

namespace {
constexpr int kBundledInductionLayer = 1;  // the bundled model's layer 1 holds its induction heads (its README)
// The bundled encoder-decoder model's cross-attention head that aligns each output field (year, month, day) with the
// source words it comes from (docs/models.md "The bundled encoder-decoder model").
constexpr int kBundledAlignLayer = 1, kBundledAlignHead = 3;
// The date it translates, written out in the UI's language: "1999-03-03" either way.
const char* const kDateText = "March 3, 1999";
const char* const kDateTextKo = "1999년 3월 3일";
const char* const kCrossKvText = "I go home.";
// The translation's queries in the UI's language: a Korean student reads a Korean sentence attending to English.
const char* const kCrossQueryText = "Ich gehe jetzt nach Hause.";
const char* const kCrossQueryTextKo = "나는 지금 집으로 갑니다.";
// (a) and (c) on 7 tokens with 2 or 4 heads, d_k 16, d_v 48, d_model 64: no two axes of a shape have the same
// size, so [batch, seq, head, d/head] -> [batch, head, seq, d/head] can be read off the numbers.
const char* const kShapesSentence = "The cat sat on the mat.";
}  // namespace

std::vector<NamedHead> HeadsWithRole(const model::HeadRoles& roles, model::HeadRole role) {
  std::vector<NamedHead> heads;
  for (int l = 0; l < roles.n_layer; ++l)
    for (int h = 0; h < roles.n_head; ++h) {
      const model::RoleScore best = model::StrongestRole(roles.at(l, h));
      if (best.role == role && best.score >= model::kPointedRoleScore) heads.push_back({l, h, best.score});
    }
  return heads;
}

LessonSetup ApplyLesson(Lesson lesson, const AppSettings& before, BundledModels bundled, LessonPart part) {
  // Start from the defaults and carry over only what is not a knob.
  LessonSetup setup{AppSettings(), LearnTab::kLessons};
  AppSettings& s = setup.settings;
  s.sentence_file = before.sentence_file;
  s.recent_files = before.recent_files;
  s.colormap = before.colormap;
  s.export_target = before.export_target;
  s.export_format = before.export_format;
  s.export_dir = before.export_dir;
  s.export_title = before.export_title;
  s.export_size = before.export_size;
  s.export_dpi = before.export_dpi;
  s.export_annotate = before.export_annotate;
  s.model_dir = before.model_dir;
  s.recent_models = before.recent_models;
  s.lang = before.lang;
  s.window_x = before.window_x;
  s.window_y = before.window_y;
  s.window_w = before.window_w;
  s.window_h = before.window_h;
  const bool lesson_text = before.kv_text == kRepeatedSentence || before.kv_text == kCrossKvText ||
                           before.kv_text == kShapesSentence || before.kv_text == kDateText ||
                           before.kv_text == kDateTextKo || before.query_text == kCrossQueryText ||
                           before.query_text == kCrossQueryTextKo;
  const bool users_text = !lesson_text && before.kv_text != AppSettings().kv_text;
  if (!lesson_text) {
    s.kv_text = before.kv_text;
    s.query_text = before.query_text;
  }
  AttentionConfig& c = s.config;
  switch (lesson) {
    case Lesson::kA:  // q and k share d_k; v has its own width
      c.n_head = 2;
      c.d_k = 16;
      c.d_v = 48;
      if (!users_text) s.kv_text = kShapesSentence;
      setup.tab = LearnTab::kShapes;
      break;
    case Lesson::kB:  // 6 queries read 4 key/value pairs (second part: a trained model's target reads its source)
      if (part == LessonPart::kSecond && bundled.seq2seq) {
        s.source = Source::kModel;
        s.kv_text = CurrentLang() == Lang::kKo ? kDateTextKo : kDateText;
        s.model_layer = kBundledAlignLayer;
        s.selected_head = kBundledAlignHead;
        s.enlarged = true;
        setup.bundled_seq2seq = true;
        setup.seq2seq_stack = kCrossStack;
        setup.tab = LearnTab::kShapes;  // its q, k, v and probs shapes: n_q target tokens, n_k source tokens
        break;
      }
      c.mode = AttentionMode::kCross;
      c.mask = MaskKind::kNone;  // a causal mask is self-attention's (query i sees keys 0..i of its sentence)
      s.kv_text = kCrossKvText;
      s.query_text = CurrentLang() == Lang::kKo ? kCrossQueryTextKo : kCrossQueryText;
      setup.tab = LearnTab::kShapes;
      break;
    case Lesson::kC:  // one fused matrix, split into q, k, v and into heads
      c.qkv = QkvLayout::kFused;
      c.d_model = 64;
      c.n_head = 4;
      if (!users_text) s.kv_text = kShapesSentence;
      setup.tab = LearnTab::kNumbers;
      break;
    case Lesson::kD:  // wide d_k without the 1/sqrt(d_k): the softmax saturates (today: unless a soft cap bounds it)
      c.d_k = part == LessonPart::kSecond ? kMaxHeadDim : 512;
      c.scale = false;
      if (part == LessonPart::kSecond) c.softcap = kDefaultSoftcap;
      s.side_by_side = true;
      setup.tab = LearnTab::kVariance;
      break;
    case Lesson::kE:  // many heads, each its own map: a trained model's induction heads
      if (bundled.decoder_only) {
        s.source = Source::kModel;
        s.kv_text = kRepeatedSentence;
        s.model_layer = kBundledInductionLayer;
        setup.bundled_model = true;
      } else {
        c.d_model = 128;
        c.n_head = 8;
      }
      setup.tab = LearnTab::kLessons;  // the lesson names the heads; the Heads and Overview panels show them
      break;
    case Lesson::kF:  // the lecture note's length scorer
      c.query_from = FeatureSource::kLength;
      c.key_from = FeatureSource::kLength;
      c.value_from = FeatureSource::kEmbedding;
      c.score = ScoreKind::kNegDistance;
      setup.tab = LearnTab::kShapes;
      break;
    case Lesson::kG:
      setup.tab = LearnTab::kDictionary;
      break;
  }
  return setup;
}

}  // namespace attnviz
