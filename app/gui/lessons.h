// The seven lessons (a)-(g) of the Lessons tab as data: each lesson's words (string ids) and what its
// button does to the app's settings, as a pure function (no ImGui, no worker), so a test checks every knob.
#pragma once
#include <optional>
#include <vector>

#include "i18n/ui_strings.h"
#include "model/roles.h"
#include "session/seq2seq_session.h"
#include "settings.h"

namespace attnviz {

// The tabs of the Shapes · learn window (panel_shapes.cpp).
enum class LearnTab { kShapes = 0, kNumbers, kLessons, kDictionary, kVariance };

enum class Lesson { kA = 0, kB, kC, kD, kE, kF, kG };
constexpr int kLessonCount = 7;

// A lesson may have a second part below the first, with its own words and button: (b) the same question answered
// by a trained translation model, (d) how today's models keep logits in range.
enum class LessonPart { kMain = 0, kSecond };
struct LessonPartWords {
  Str text, button, question;
};
struct LessonWords {
  Str title, text, button, question;     // the main part
  std::optional<LessonPartWords> second;  // the second part, when the lesson has one
};
LessonWords WordsOf(Lesson lesson);

// "a".."g" (any case) to the lesson; false for anything else (the caller names the allowed range).
bool ParseLessonLetter(const std::string& text, Lesson* lesson);
char LessonLetter(Lesson lesson);  // 'a'..'g'

// The sentence lesson (e) runs the bundled model on: a sentence said twice, so that the second time each token's
// next token can be found by looking back (what an induction head does).
extern const char* const kRepeatedSentence;

// The bundled models a lesson may open (the app passes what is shipped: lessons fall back without one).
struct BundledModels {
  bool decoder_only = true;  // assets/models/tiny: lesson (e)
  bool seq2seq = true;       // assets/models/tiny-seq2seq: lesson (b)'s second part
};

struct LessonSetup {
  AppSettings settings;  // the lesson's picture: the knobs it names, every other knob at its default
  LearnTab tab;          // the tab that shows the answer
  bool bundled_model = false;  // (e): open the bundled model (settings.source is kModel, model_layer the layer)
  // (b)'s second part: open the bundled encoder-decoder model on settings.kv_text (the source), translate it
  // (greedy), and show `seq2seq_stack` at settings.model_layer, head settings.selected_head, enlarged.
  bool bundled_seq2seq = false;
  Seq2SeqStackIndex seq2seq_stack = kCrossStack;
};
// A pure function from the defaults, so lessons can be taken in any order: every knob (the attention config,
// the seed, the colour scale and range, the shown heads, enlarged and side by side, the model's what-ifs) is the
// default unless the lesson names it. Kept from `before`: what is not a knob (files, recent lists, export
// choices, language, window, the colormap as a matter of taste) and the user's own text, unless it is one a
// lesson set (then the default sentence), so no lesson inherits another's sentence.
// (a) 2 heads, d_k 16 with d_v 48, the Shapes tab; (b) cross mode (no mask) with 6 query (5 in Korean) and 4
// key/value tokens; (c) fused QKV with 4 heads, the Numbers tab; (a) and (c) on a 7-token sentence unless the text is
// the user's own; (d) d_k 512 unscaled beside scaled, the Variance tab; (e) the bundled model
// on kRepeatedSentence at layer 1 (its induction heads), every head shown; without a bundled model
// (`bundled.decoder_only` false) 8 sandbox heads at d_model 128; (f) q and k from word length scored by -|q - k|;
// (g) the Dictionary tab. Second parts (LessonPart::kSecond): (b) the bundled encoder-decoder model translating a
// date written out (English, or Korean in the Korean UI), cross-attention layer 1 head 3 enlarged (the head that
// aligns each output field with its source words; without the model, the main part's picture); (d) d_k 4096
// unscaled beside scaled with the soft cap at kDefaultSoftcap, the Variance tab. A lesson without a second part
// gives its main part's picture.
LessonSetup ApplyLesson(Lesson lesson, const AppSettings& before, BundledModels bundled = {},
                        LessonPart part = LessonPart::kMain);

// Lesson (e) names the heads in words: those whose strongest role (model::StrongestRole) is `role` and clears
// model::kPointedRoleScore, layer by layer, head by head.
struct NamedHead {
  int layer = 0, head = 0;
  float score = 0;
};
std::vector<NamedHead> HeadsWithRole(const model::HeadRoles& roles, model::HeadRole role);

}  // namespace attnviz
