// The seven lessons (a)-(g) of the Lessons tab as data: each lesson's words (string ids) and what its
// button does to the app's settings, as a pure function (no ImGui, no worker), so a test checks every knob.
#pragma once
#include "settings.h"
#include "i18n/ui_strings.h"

namespace attnviz {

// The tabs of the Shapes · learn window (panel_shapes.cpp).
enum class LearnTab { kShapes = 0, kNumbers, kLessons, kDictionary, kVariance };

enum class Lesson { kA = 0, kB, kC, kD, kE, kF, kG };
constexpr int kLessonCount = 7;

struct LessonWords {
  Str title, text, button, question;
};
LessonWords WordsOf(Lesson lesson);

struct LessonSetup {
  AppSettings settings;  // the knobs the lesson sets; everything else as it was
  LearnTab tab;     // the tab that shows the answer
};
// (a) d_k 16 with d_v 48, the Shapes tab; (b) cross mode (no mask) with 6 query and 4 key/value tokens; (c) fused
// QKV with 4 heads, the Numbers tab; (d) d_k 512 unscaled beside scaled, the Variance tab; (e) 8 heads at
// d_model 128, every head shown in the grid; (f) q and k from word length scored by -|q - k|; (g) the
// Dictionary tab. Always the sandbox (a trained model has none of these knobs).
LessonSetup ApplyLesson(Lesson lesson, const AppSettings& settings);

}  // namespace attnviz
