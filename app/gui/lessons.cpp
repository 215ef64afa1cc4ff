#include "lessons.h"

namespace attnviz {

LessonWords WordsOf(Lesson lesson) {
  static const LessonWords kWords[kLessonCount] = {
      {Str::kLessonATitle, Str::kLessonAText, Str::kLessonAButton, Str::kLessonAQuestion},
      {Str::kLessonBTitle, Str::kLessonBText, Str::kLessonBButton, Str::kLessonBQuestion},
      {Str::kLessonCTitle, Str::kLessonCText, Str::kLessonCButton, Str::kLessonCQuestion},
      {Str::kLessonDTitle, Str::kLessonDText, Str::kLessonDButton, Str::kLessonDQuestion},
      {Str::kLessonETitle, Str::kLessonEText, Str::kLessonEButton, Str::kLessonEQuestion},
      {Str::kLessonFTitle, Str::kLessonFText, Str::kLessonFButton, Str::kLessonFQuestion},
      {Str::kLessonGTitle, Str::kLessonGText, Str::kLessonGButton, Str::kLessonGQuestion},
  };
  return kWords[(int)lesson];
}

LessonSetup ApplyLesson(Lesson lesson, const AppSettings& before) {
  LessonSetup setup{before, LearnTab::kLessons};
  AppSettings& s = setup.settings;
  AttentionConfig& c = s.config;
  s.source = Source::kSandbox;
  switch (lesson) {
    case Lesson::kA:  // q and k share d_k; v has its own width
      c.mode = AttentionMode::kSelf;
      c.d_k = 16;
      c.d_v = 48;
      setup.tab = LearnTab::kShapes;
      break;
    case Lesson::kB:  // 6 queries read 4 key/value pairs
      c.mode = AttentionMode::kCross;
      c.mask = MaskKind::kNone;  // a causal mask is self-attention's (query i sees keys 0..i of its sentence)
      s.kv_text = "I go home.";
      s.query_text = "Ich gehe jetzt nach Hause.";
      setup.tab = LearnTab::kShapes;
      break;
    case Lesson::kC:  // one fused matrix, split into q, k, v and into heads
      c.qkv = QkvLayout::kFused;
      c.mode = AttentionMode::kSelf;
      c.d_model = 64;
      c.n_head = 4;
      c.d_k = c.d_v = 0;
      setup.tab = LearnTab::kNumbers;
      break;
    case Lesson::kD:  // wide d_k without the 1/sqrt(d_k): the softmax saturates
      c.d_k = 512;
      c.scale = false;
      c.temperature = 1.0f;
      s.side_by_side = true;
      setup.tab = LearnTab::kVariance;
      break;
    case Lesson::kE:  // many heads, each its own map
      c.d_model = 128;
      c.n_head = 8;
      c.d_k = c.d_v = 0;
      s.enlarged = s.side_by_side = false;
      s.head_hidden.assign(s.head_hidden.size(), false);
      setup.tab = LearnTab::kNumbers;
      break;
    case Lesson::kF:  // the lecture note's length scorer
      c.mode = AttentionMode::kSelf;
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
