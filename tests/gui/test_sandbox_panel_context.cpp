// The sandbox's panels and the menu bar drawn from a SandboxPanelContext built without an App (panel_fixture.h):
// what they show comes from the context's parts, and what a person presses calls the context's verbs, recorded here.
#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app.h"
#include "io/json.h"
#include "model/roles.h"
#include "panel_fixture.h"
#include "sandbox_panel_context.h"

namespace attnviz {
namespace {

class SandboxPanelContextTest : public PanelFixture {
 protected:
  void SetUp() override {
    PanelFixture::SetUp();
    settings.config.n_head = 4;
    ShowSandboxResult("I go home.");
    verbs.open_sentence_file = [this](const std::string& path) {
      opened_files.push_back(path);
      views.sentences.items = sentences_in_file;  // as the App loads them into the panel's list
      return Status::Ok();
    };
    verbs.select_sentence = [this](int index) { selected.push_back(index); };
    verbs.show_lesson = [this](Lesson lesson, LessonPart part) {
      shown_lessons.push_back(lesson);
      shown_parts.push_back(part);
    };
    verbs.open_model = [this](const std::string& dir) { opened_models.push_back(dir); };
    verbs.set_source = [this](Source source) { sources.push_back(source); };
    verbs.set_language = [this](Lang lang) { langs.push_back(lang); };
    verbs.quit = [this] { ++quits; };
  }
  // The context as the App fills it, from this test's parts.
  SandboxPanelContext Context() {
    SandboxPanelContext c{settings, views.sentences, views.learn, dump, layout, verbs};
    c.shown.sandbox = results.shown ? results.shown->sandbox.get() : nullptr;
    c.shown.maps = results.shown ? results.shown->maps.get() : nullptr;
    c.shown.sweep = results.sweep.get();
    c.shown.roles = roles.n_layer > 0 ? &roles : nullptr;
    c.bundled_model_dir = bundled_model_dir;
    c.bundled_seq2seq_dir = bundled_seq2seq_dir;
    return c;
  }
  // `draw_panel` drawn from a fresh context each frame, as the App draws it.
  auto Drawing(void (*draw_panel)(SandboxPanelContext&)) {
    return [this, draw_panel] {
      SandboxPanelContext c = Context();
      draw_panel(c);
    };
  }
  // A tab of the Shapes · learn window, drawn in a window of its own (DrawShapesPanel draws it into its tab).
  auto DrawingTab(void (*draw_panel)(SandboxPanelContext&)) {
    return [this, draw_panel] {
      SandboxPanelContext c = Context();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(900, 700));
      ImGui::Begin("tab");
      draw_panel(c);
      ImGui::End();
    };
  }
  std::string Value(const std::string& widget) const {
    const WidgetDump::Widget* w = dump.Find(widget);
    return w ? w->value_json : "(not drawn)";
  }

  SandboxVerbs verbs;
  model::HeadRoles roles;
  std::string bundled_model_dir, bundled_seq2seq_dir;
  std::vector<SentenceItem> sentences_in_file;
  std::vector<std::string> opened_files, opened_models;
  std::vector<int> selected;
  std::vector<Lesson> shown_lessons;
  std::vector<LessonPart> shown_parts;
  std::vector<Source> sources;
  std::vector<Lang> langs;
  int quits = 0;
};

TEST_F(SandboxPanelContextTest, SentencesPanelShowsTheTextAndItsOpenButtonCallsTheVerbs) {
  settings.kv_text = "the cat sat";
  views.sentences.path_input = "/data/sentences.txt";
  SentenceItem first, second;
  first.kv_text = "one sentence";
  first.line = 1;
  second.kv_text = "another";
  second.line = 3;
  sentences_in_file = {first, second};
  auto draw = Drawing(DrawSentencesPanel);
  Frames(draw, 2);
  EXPECT_EQ(Value("sentences.kv_text"), JsonString("the cat sat"));
  EXPECT_EQ(dump.Find("sentences.query_text"), nullptr);  // self-attention: one sentence
  EXPECT_EQ(dump.Find("sentences.list"), nullptr);        // nothing loaded yet
  Click(draw, "sentences.open");
  ASSERT_EQ(opened_files, std::vector<std::string>{"/data/sentences.txt"});
  EXPECT_EQ(selected, std::vector<int>{0});  // a file that loads shows its first sentence
  EXPECT_EQ(Value("sentences.list"), "2");
  EXPECT_EQ(Value("sentences.item.1"), "3");  // the item's line in the file
  Click(draw, "sentences.item.1");
  EXPECT_EQ(selected, (std::vector<int>{0, 1}));
}

// Enter in the Sentence box ends the edit (the text is already applied as typed) and adds no newline, which a model's
// tokenizer would keep as a last "\n" token; Ctrl+Enter writes a newline.
TEST_F(SandboxPanelContextTest, EnterInTheSentenceBoxAddsNoNewlineAndCtrlEnterDoes) {
  settings.kv_text = "the cat sat";
  ImGuiIO& io = ImGui::GetIO();
  io.KeyMap[ImGuiKey_Enter] = 257;  // GLFW_KEY_ENTER
  io.KeyMap[ImGuiKey_End] = 269;    // GLFW_KEY_END
  auto draw = Drawing(DrawSentencesPanel);
  Frames(draw, 2);
  auto press = [&](int key, bool ctrl) {
    io.KeyCtrl = ctrl;
    io.KeysDown[key] = true;
    Frame(draw);
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    Frame(draw);
  };
  Click(draw, "sentences.kv_text");
  ASSERT_TRUE(ImGui::IsAnyItemActive());
  press(269, false);  // End
  io.AddInputCharacter('!');
  Frame(draw);
  press(257, false);  // Enter
  EXPECT_EQ(settings.kv_text, "the cat sat!");
  EXPECT_FALSE(ImGui::IsAnyItemActive()) << "Enter ends the edit";
  Click(draw, "sentences.kv_text");
  press(269, false);
  press(257, true);  // Ctrl+Enter
  io.AddInputCharacter('a');
  Frame(draw);
  Frame(draw);
  EXPECT_EQ(settings.kv_text, "the cat sat!\na");
}

TEST_F(SandboxPanelContextTest, SentencesPanelInCrossModeShowsTheQuerySentence) {
  settings.config.mode = AttentionMode::kCross;
  settings.query_text = "Ich gehe";
  Frames(Drawing(DrawSentencesPanel), 2);
  EXPECT_EQ(Value("sentences.query_text"), JsonString("Ich gehe"));
}

TEST_F(SandboxPanelContextTest, SaturationPanelDrawsTheSweepAndMarksTheSettingsDk) {
  auto sweep = std::make_shared<SweepResult>();
  sweep->request.base = settings.config;
  for (int d_k : {1, 16, 256})
    for (bool scaled : {false, true}) {
      SweepPoint p;
      p.d_k = d_k;
      p.scaled = scaled;
      p.max_weight = scaled ? 0.3f : 0.9f;
      sweep->points.push_back(p);
    }
  results.sweep = sweep;
  settings.config.d_k = 32;
  Frames(Drawing(DrawSaturationPanel), 2);
  for (const char* chart : {"saturation.max_weight", "saturation.norm_entropy", "saturation.grad_norm"})
    EXPECT_EQ(Value(chart), "6") << chart;  // every point of the sweep
  EXPECT_EQ(dump.Field("saturation_lines"), "2");  // scaled-dot: divided and undivided
  EXPECT_NE(dump.Field("saturation_now").find("32"), std::string::npos) << dump.Field("saturation_now");
  EXPECT_EQ(Value("saturation.error"), JsonString(""));
}

TEST_F(SandboxPanelContextTest, LessonsPanelPicksALessonAndItsButtonCallsShowLesson) {
  auto draw = DrawingTab(DrawLessonsPanel);
  Frames(draw, 2);
  EXPECT_EQ(Value("lessons.pick.a"), "true");
  EXPECT_EQ(Value("lessons.title"), JsonString(Tr(WordsOf(Lesson::kA).title)));
  Click(draw, "lessons.pick.c");
  EXPECT_EQ(views.learn.lesson, Lesson::kC);  // the panel's own view state
  EXPECT_EQ(Value("lessons.title"), JsonString(Tr(WordsOf(Lesson::kC).title)));
  EXPECT_TRUE(shown_lessons.empty());  // picking only shows the words
  Click(draw, "lessons.show.c");
  EXPECT_EQ(shown_lessons, std::vector<Lesson>{Lesson::kC});
}

// Lesson (b)'s second part runs the bundled encoder-decoder model: its button takes the second part when the model is
// shipped, and is off with the reason said when it is not.
TEST_F(SandboxPanelContextTest, LessonBSecondPartButtonIsOffWithAReasonWithoutTheBundledEncoderDecoder) {
  views.learn.lesson = Lesson::kB;
  auto draw = DrawingTab(DrawLessonsPanel);
  bundled_seq2seq_dir = "/share/attnviz/tiny-seq2seq";
  Frames(draw, 2);
  EXPECT_EQ(Value("lessons.second_text"), JsonString(Tr(Str::kLessonBTrainedText)));
  EXPECT_EQ(Value("lessons.second_missing"), JsonString(""));
  Click(draw, "lessons.show.b.second");
  EXPECT_EQ(shown_lessons, std::vector<Lesson>{Lesson::kB});
  EXPECT_EQ(shown_parts, std::vector<LessonPart>{LessonPart::kSecond});
  Click(draw, "lessons.show.b");
  EXPECT_EQ(shown_parts, (std::vector<LessonPart>{LessonPart::kSecond, LessonPart::kMain}));

  bundled_seq2seq_dir.clear();
  Frames(draw, 2);
  EXPECT_EQ(Value("lessons.second_missing"), JsonString(Tr(Str::kLessonNoBundledSeq2Seq)));
  Click(draw, "lessons.show.b.second");
  EXPECT_EQ(shown_parts.size(), 2u);  // off: the click does nothing
  // Lesson (d)'s second part needs no model: its button stays on.
  Click(draw, "lessons.pick.d");
  EXPECT_EQ(Value("lessons.second_missing"), JsonString(""));
  Click(draw, "lessons.show.d.second");
  EXPECT_EQ(shown_parts.back(), LessonPart::kSecond);
  EXPECT_EQ(shown_lessons.back(), Lesson::kD);
}

// Beside the evidence, the part taken comes first under the title: (b)'s trained-weights words sit above its main
// part's when that part was shown, below them otherwise.
TEST_F(SandboxPanelContextTest, BesideTheEvidenceThePartTakenComesFirst) {
  views.learn.lesson = Lesson::kB;
  views.learn.lesson_beside = true;
  auto draw = DrawingTab(DrawLessonBeside);
  auto second_text_top = [&](LessonPart part) {
    views.learn.part = part;
    Frames(draw, 2);
    const WidgetDump::Widget* title = dump.Find("lessons.title");
    const WidgetDump::Widget* second = dump.Find("lessons.second_text");
    EXPECT_TRUE(title && second);
    return title && second ? second->y0 - title->y1 : -1.0f;
  };
  const float after_main = second_text_top(LessonPart::kMain), first = second_text_top(LessonPart::kSecond);
  EXPECT_GT(after_main, 40.0f);  // the main part's words and question in between
  EXPECT_LT(first, 10.0f);        // right under the title
  EXPECT_EQ(dump.Find("lessons.show.b.second"), nullptr);  // beside: no buttons
}

TEST_F(SandboxPanelContextTest, LessonENamesTheHeadsOfTheShownRolesAndTheBesideColumnCloses) {
  settings.source = Source::kModel;
  roles.n_layer = 2;
  roles.n_head = 2;
  roles.scores.resize(4);
  roles.at(0, 1)[model::HeadRole::kPreviousToken] = 0.9f;
  roles.at(1, 0)[model::HeadRole::kInduction] = 0.8f;
  views.learn.lesson = Lesson::kE;
  views.learn.lesson_beside = true;
  auto draw = DrawingTab(DrawLessonBeside);
  Frames(draw, 2);
  EXPECT_EQ(Value("lessons.named_heads"), "{\"previous_token\": [[0, 1]], \"induction\": [[1, 0]]}");
  EXPECT_EQ(dump.Find("lessons.show.e"), nullptr);  // beside the evidence: the words, no button
  Click(draw, "lessons.beside.close");
  EXPECT_FALSE(views.learn.lesson_beside);
}

TEST_F(SandboxPanelContextTest, NumbersPanelReadsTheShownRunAndNothingInModelMode) {
  auto draw = DrawingTab(DrawNumbersPanel);
  Frames(draw, 2);
  EXPECT_EQ(Value("numbers.weights"), JsonString("random"));  // no --weights in the context
  const Tensor& q = *results.shown->maps->q;  // [n_head, n_q, d_k]
  const std::string merged = "[1, " + std::to_string(q.dim(1)) + ", " + std::to_string(q.dim(0) * q.dim(2)) + "]";
  EXPECT_EQ(Value("numbers.q_shapes"), "[" + JsonString(merged) + ", " + JsonString(ShapeString(q.shape)) + "]");
  EXPECT_NE(Value("numbers.linears_verdict").find("\"same\": true"), std::string::npos);
  settings.source = Source::kModel;
  Frames(draw, 2);
  EXPECT_EQ(dump.Find("numbers.weights"), nullptr);
}

TEST_F(SandboxPanelContextTest, DictionaryPanelLooksUpTheQueryAndAddsARow) {
  auto draw = DrawingTab(DrawDictionaryPanel);
  Frames(draw, 2);
  EXPECT_NE(dump.Field("dictionary").find("\"best\": 1"), std::string::npos) << dump.Field("dictionary");  // "b"
  ASSERT_EQ(dump.Find("dictionary.key.3"), nullptr);
  Click(draw, "dictionary.add");
  EXPECT_EQ(views.learn.dictionary.rows.size(), 4u);
  EXPECT_EQ(Value("dictionary.key.3"), JsonString("d"));
}

TEST_F(SandboxPanelContextTest, VariancePanelSamplesAtTheSettingsDk) {
  settings.config.d_k = 64;
  auto draw = DrawingTab(DrawVariancePanel);
  for (int i = 0; i < 500 && !dump.Find("variance.histogram"); ++i) {
    Frame(draw);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::string histogram = Value("variance.histogram");
  EXPECT_NE(histogram.find("\"d_k\": " + std::to_string(settings.config.head_dim_k())), std::string::npos)
      << histogram;
  EXPECT_NE(Value("variance.row"), "(not drawn)");
}

TEST_F(SandboxPanelContextTest, MenuBarItemsCallTheVerbs) {
  settings.source = Source::kModel;
  bundled_model_dir = "/share/attnviz/tiny";
  auto draw = [this] {
    SandboxPanelContext c = Context();
    DrawMenuBar(c);
  };
  Frames(draw, 2);
  Click(draw, "menu.file");
  Click(draw, "menu.file.sandbox");
  EXPECT_EQ(sources, std::vector<Source>{Source::kSandbox});
  Click(draw, "menu.file");
  Click(draw, "menu.file.open_model");
  Click(draw, "menu.file.bundled_model");
  EXPECT_EQ(opened_models, std::vector<std::string>{"/share/attnviz/tiny"});
  Click(draw, "menu.file");
  Click(draw, "menu.file.lessons");
  Click(draw, "menu.file.lesson.d");
  EXPECT_EQ(shown_lessons, std::vector<Lesson>{Lesson::kD});
  Click(draw, "menu.file");
  EXPECT_EQ(quits, 0);
  Click(draw, "menu.file.quit");
  EXPECT_EQ(quits, 1);
}

}  // namespace
}  // namespace attnviz
