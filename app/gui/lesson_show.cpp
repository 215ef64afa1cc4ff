#include "lesson_show.h"

namespace attnviz {

void ShowLesson(Lesson lesson, const LessonStage& stage, LessonPart part) {
  AppSettings& settings = stage.settings;
  LearnPanelView& learn = stage.views.learn;
  const LessonSetup setup = ApplyLesson(
      lesson, settings, BundledModels{!stage.bundled_model_dir.empty(), !stage.bundled_seq2seq_dir.empty()}, part);
  ResetViewsForLesson(stage.views);
  const Source was = settings.source;
  settings = setup.settings;
  if (setup.bundled_model) {
    if (stage.bundled_model_open) {
      settings.model_dir = stage.bundled_model_dir;
      stage.set_source(Source::kModel);
    } else {
      stage.open_model(stage.bundled_model_dir);
    }
  } else if (setup.bundled_seq2seq) {
    stage.open_model(stage.bundled_seq2seq_dir);  // open, or run again on the lesson's source when open
    Seq2SeqPanelView& seq2seq = stage.views.seq2seq;
    seq2seq.stack = setup.seq2seq_stack;
    seq2seq.target_text.clear();
    seq2seq.translate = true;  // the App generates the target on its next submit, once the folder is open
  } else if (was != settings.source) {
    settings.source = was;  // set_source switches from what was shown
    stage.set_source(setup.settings.source);
  }
  learn.lesson = lesson;
  learn.part = part;
  learn.tab = setup.tab;
  learn.tab_requested = 3;  // the tab bar takes the request on its next frame
  learn.lesson_beside = true;
  learn.scroll_to_top = true;
}

// What would make the same lesson look different each time: a Rollout map kind hides the role line, an ablated head
// changes every later map, a zoom window hides cells, an edited Dictionary table answers another lookup.
void ResetViewsForLesson(PanelViews& views) {
  views.heads.kind = MapKind::kAttention;
  views.heads.pool = HeadsPanelView().pool;  // max pooling: a one-hot row stays visible
  views.model.ablated.clear();
  views.model.pinned_position = -1;
  views.model.color_by_delta = false;  // the Overview's cells by role, not by an earlier scan's delta loss
  views.neuron.open = false;           // a neuron view of an earlier lesson's cell
  for (auto& [key, ms] : views.heads.maps) ms.window = MapWindow{0, ms.n_q, 0, ms.n_k};  // the whole map again
  views.learn.dictionary = DictionaryView();
  views.learn.numbers.query = NumbersCache().query;  // the Numbers tab reads query row 0 again
}

}  // namespace attnviz
