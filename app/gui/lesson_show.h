// Showing a lesson (the Lessons tab's button, the File menu, --lesson): ApplyLesson's settings (lessons.h), the
// panels' view state back to its defaults, the tab with the answer brought to the front, the lesson's words beside
// it, for lesson (e) the bundled model opened or shown, and for lesson (b)'s second part the bundled encoder-decoder
// model opened and asked to translate, its cross-attention stack picked. It drives the app only through what it is given: the
// settings and view state it sets, and the verbs it calls (the App's, app.cpp; a test's, to see them called).
#pragma once
#include <functional>
#include <string>

#include "lessons.h"
#include "panel_views.h"
#include "settings.h"

namespace attnviz {

struct LessonStage {
  LessonStage(AppSettings& s, PanelViews& v) : settings(s), views(v) {}
  AppSettings& settings;
  PanelViews& views;
  std::string bundled_model_dir;    // "" when not shipped: lesson (e) runs on the sandbox
  bool bundled_model_open = false;  // the bundled model is open and not opening again: (e) shows it as it is
  std::string bundled_seq2seq_dir;  // "" when not shipped: (b)'s second part shows the main part's picture
  std::function<void(const std::string& dir_or_name)> open_model;
  std::function<void(Source source)> set_source;  // switches what is shown (the settings' source with it)
};
void ShowLesson(Lesson lesson, const LessonStage& stage, LessonPart part = LessonPart::kMain);

// The panels' view state an earlier lesson or the user left, back to its defaults (a lesson looks the same in any
// order); the user's text and files stay (ApplyLesson keeps them).
void ResetViewsForLesson(PanelViews& views);

}  // namespace attnviz
