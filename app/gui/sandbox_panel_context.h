// What the sandbox's panels and the menu bar read and may call instead of the whole App: the sandbox run they show
// (SandboxShown, one field the App fills), the settings, their own view state, the verbs they may call
// (SandboxVerbs) and the widget recorder. The App builds one each frame (app_panels.cpp); a test builds one from
// parts, with no App, and records the verbs.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "layout.h"
#include "lessons.h"
#include "panel_views.h"
#include "settings.h"
#include "i18n/ui_message.h"
#include "i18n/ui_strings.h"
#include "widgets_dump.h"

namespace attnviz {

struct SandboxExtras;
struct LayerMaps;
struct SweepResult;
struct ProjectionWeights;
namespace model {
struct HeadRoles;
}

// What the sandbox panels show of the latest runs, as of this frame.
struct SandboxShown {
  // The sandbox run shown, beside its maps: null before the first, or while a trained model is shown.
  const SandboxExtras* sandbox = nullptr;
  // The maps the Heads panel shows (the sandbox result's, or a model layer's): the Sentences panel's n_q x n_k.
  const LayerMaps* maps = nullptr;
  const SweepResult* sweep = nullptr;  // the last successful d_k sweep
  // The latest model run's head roles (lesson e names its heads), null without a successful run.
  const model::HeadRoles* roles = nullptr;
  // The --weights files the sandbox runs with; null: each run draws its random init (the Numbers tab redraws it).
  std::shared_ptr<const ProjectionWeights> loaded_weights;
  UiMessage config_error, compute_error, sweep_error;  // as AppResults has them
  bool computing = false, sweeping = false;
};

// The verbs the sandbox panels and the menu bar may call; each one is set by whoever builds the context.
struct SandboxVerbs {
  // Loads a sentence file into the Sentences panel's list (its message says how it went).
  std::function<Status(const std::string& path)> open_sentence_file;
  std::function<void(int index)> select_sentence;  // that loaded item's text into the settings
  // A lesson's knobs set, the tab with its answer brought to the front, its words beside it (App::ShowLesson).
  std::function<void(Lesson lesson, LessonPart part)> show_lesson;
  std::function<void(const std::string& dir_or_name)> open_model;
  std::function<void(Source source)> set_source;
  std::function<void(Lang lang)> set_language;
  std::function<void()> quit;
};

struct SandboxPanelContext {
  SandboxPanelContext(AppSettings& s, SentencesPanelView& se, LearnPanelView& le, WidgetDump& d, WindowLayout& l,
                      const SandboxVerbs& v)
      : settings(s), sentences(se), learn(le), dump(d), layout(l), verbs(v) {}
  AppSettings& settings;           // what the user chose
  SentencesPanelView& sentences;   // the Sentences panel's own state
  LearnPanelView& learn;           // the Shapes · learn window's tabs: lesson, dictionary, variance, numbers
  WidgetDump& dump;                // the widget recorder (--widgets-json)
  WindowLayout& layout;
  const SandboxVerbs& verbs;
  SandboxShown shown;
  std::string bundled_model_dir;   // the bundled model's folder, "" when not shipped (the menu offers it)
  std::string bundled_seq2seq_dir;  // the bundled encoder-decoder model's folder, "" when not shipped (lesson (b))

  // The width q and k share, as the shown run has it (attnviz::QueryKeyWidth of the settings; one-hot: the run's).
  int QueryKeyWidth() const;
};

// The sandbox panels (panel_*.cpp) and the main menu bar (menu_bar.cpp; returns its height).
float DrawMenuBar(SandboxPanelContext& ctx);
void DrawSentencesPanel(SandboxPanelContext& ctx);
void DrawSaturationPanel(SandboxPanelContext& ctx);
// The tabs of the Shapes · learn window (drawn into the open tab by DrawShapesPanel).
void DrawLessonsPanel(SandboxPanelContext& ctx);
void DrawLessonBeside(SandboxPanelContext& ctx);  // the shown lesson's words beside its evidence tab
void DrawNumbersPanel(SandboxPanelContext& ctx);
void DrawDictionaryPanel(SandboxPanelContext& ctx);
void DrawVariancePanel(SandboxPanelContext& ctx);

}  // namespace attnviz
