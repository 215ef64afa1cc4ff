// Lesson (b)'s second part in the app (no GL): its button opens the bundled encoder-decoder model
// (assets/models/tiny-seq2seq) on a date written out, translates it, and ends with the cross-attention stack's layer 1
// head 3 shown in the Heads panel, whose rows (target tokens) look at the source tokens they translate; and Translate
// pressed while a folder is still opening is kept.
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <string>

#include "app.h"
#include "app_driver.h"

namespace attnviz {
namespace {

class NoRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

class LessonSeq2SeqAppTest : public AppDriver<NoRenderer> {
 protected:
  App& MakeApp() {
    ImGui::GetIO().DisplaySize = ImVec2(1600, 1200);
    AppOptions options;
    options.widgets_json_path = "(memory)";
    options.no_settings = true;
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    Frames(3);
    return *app_;
  }
  // Frames until the encoder-decoder session is idle with nothing left to submit (a translation, then its forced
  // run), or 60 s.
  void WaitForSeq2Seq() {
    for (int i = 0; i < 1200; ++i) {
      app_->seq2seqs->WaitIdle(0.05);
      Frame();
      if (!app_->seq2seqs->busy() && !app_->views.seq2seq.translate && app_->results.seq2seq &&
          app_->results.seq2seq->complete() && app_->results.seq2seq->request.generate == 0 && i > 2)
        break;
    }
    Frames(3);
  }
};

// The column of row `row`'s largest weight in head `head`.
int ArgmaxColumn(const LayerMaps& maps, int head, int row) {
  const int n_q = maps.n_q(), n_k = maps.n_k();
  const float* r = maps.probs->data.data() + ((size_t)head * n_q + row) * n_k;
  return (int)(std::max_element(r, r + n_k) - r);
}

TEST_F(LessonSeq2SeqAppTest, LessonBSecondPartTranslatesADateAndShowsCrossLayer1Head3) {
  App& app = MakeApp();
  ASSERT_FALSE(app.bundled_seq2seq_dir.empty()) << "the source tree's assets/models/tiny-seq2seq";
  app.PickLesson(Lesson::kB);
  app.ShowLesson(Lesson::kB, LessonPart::kSecond);  // the part's button (test_sandbox_panel_context.cpp clicks it)
  WaitForSeq2Seq();
  ASSERT_TRUE(app.Seq2SeqShown());
  ASSERT_TRUE(app.results.seq2seq && app.results.seq2seq->complete()) << app.results.seq2seq_error.Render();
  EXPECT_EQ(app.settings.kv_text, "March 3, 1999");
  EXPECT_EQ(app.views.seq2seq.target_text, "1999-03-03");  // greedy, as docs/models.md says it translates
  // The Heads panel: the cross stack's layer 1, head 3 enlarged; rows are the decoder's tokens, columns the source's.
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  EXPECT_EQ(app.results.shown->stack, (int)kCrossStack);
  EXPECT_EQ(app.results.shown->layer, 1);
  EXPECT_EQ(app.settings.selected_head, 3);
  EXPECT_TRUE(app.settings.enlarged);
  ASSERT_NE(app.dump.Find("heads.enlarged"), nullptr);
  const LayerMaps& maps = *app.results.shown->maps;
  const Seq2SeqResult& r = *app.results.seq2seq;
  EXPECT_EQ(maps.n_q(), (int)r.decoder_tokens.size());
  EXPECT_EQ(maps.n_k(), (int)r.source_tokens.size());
  EXPECT_NE(maps.n_q(), maps.n_k());
  EXPECT_NE(app.dump.Field("seq2seq_shapes").find("\"stack\": \"cross\""), std::string::npos);
  // Trained weights: each row writing a field's digit looks at that field's source words. Row i reads decoder token i
  // and writes the target's character i ("1999-03-03"): rows 0-3 the year's digits, each on the source's same digit;
  // rows 5-6 the month's, on "March"; row 9 the day's 3, on the source's 3 (not the year's digits).
  auto column_text = [&](int row) { return r.source_tokens[(size_t)ArgmaxColumn(maps, 3, row)].display; };
  const std::string iso = "1999-03-03";
  for (int row : {0, 1, 2, 3}) EXPECT_EQ(column_text(row), iso.substr((size_t)row, 1)) << row;
  for (int row : {5, 6}) EXPECT_NE(column_text(row).find("March"), std::string::npos) << row << ": " << column_text(row);
  EXPECT_EQ(column_text(9), "3");
  EXPECT_LT(ArgmaxColumn(maps, 3, 9), ArgmaxColumn(maps, 3, 0));  // the day's 3 comes before the year in the source
  // The lesson's words beside the Shapes tab, which says n_q and n_k.
  EXPECT_EQ(app.views.learn.tab, LearnTab::kShapes);
  EXPECT_TRUE(app.views.learn.lesson_beside);
}

// Translate pressed while the folder is still opening (its first run not back yet) is not lost: the generation
// runs once the folder is open, and its text becomes the target.
TEST_F(LessonSeq2SeqAppTest, TranslatePressedWhileTheFolderOpensIsKept) {
  App& app = MakeApp();
  ASSERT_FALSE(app.bundled_seq2seq_dir.empty());
  app.settings.kv_text = "March 3, 1999";
  app.OpenModel(app.bundled_seq2seq_dir);
  Frame();  // the Model panel drawn, the folder's first run submitted
  ASSERT_TRUE(app.seq2seqs->busy()) << "still opening";
  Click("model.translate");
  WaitForSeq2Seq();
  ASSERT_TRUE(app.results.seq2seq) << app.results.seq2seq_error.Render();
  EXPECT_EQ(app.views.seq2seq.target_text, "1999-03-03");
  EXPECT_FALSE(app.views.seq2seq.generated_ids.empty());
}

}  // namespace
}  // namespace attnviz
