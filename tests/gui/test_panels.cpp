// The no-GL panel test: an ImGui context without any backend draws every panel for a few frames,
// with a fake heatmap renderer standing in for the GL one (panels never call GL themselves).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <imgui.h>
#include <imgui_internal.h>  // the context's window list (the squeeze test)

#include <cstdio>
#include <filesystem>
#include <vector>
#include <cstdlib>
#include <map>
#include <set>
#include <cctype>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <chrono>

#include "app.h"
#include "sandbox/text.h"
#include "app_driver.h"
#include "english_words.h"
#include "io/file_io.h"
#include "io/json.h"
#include "widgets.h"
#include "panel_util.h"
#include "sandbox/score.h"
#include "settings.h"
#include "session/sandbox_session.h"

namespace attnviz {
namespace {

class FakeRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey& key, const HeatmapImage& image, int width_px, int height_px) override {
    ++calls[key];
    last[key] = image;
    EXPECT_GT(width_px, 0);
    EXPECT_GT(height_px, 0);
    EXPECT_NE(image.probs, nullptr);
    return error_text.empty() ? (ImTextureID)(intptr_t)(calls.size()) : (ImTextureID)0;
  }
  std::string error() const override { return error_text; }
  std::map<HeatmapKey, int> calls;
  std::map<HeatmapKey, HeatmapImage> last;
  std::string error_text;
};

HeatmapKey Grid(int head) { return HeatmapKey{MapView::kGrid, 0, head, 0}; }
HeatmapKey Enlarged(int head) { return HeatmapKey{MapView::kEnlarged, 0, head, 0}; }
// The side-by-side view: the result is scaled (the default), so the unscaled side is its twin.
HeatmapKey Scaled(int head) { return HeatmapKey{MapView::kScaledSide, 0, head, 0}; }
HeatmapKey Unscaled(int head) { return HeatmapKey{MapView::kUnscaledSide, 0, head, 1}; }

// A fresh folder under /tmp, removed when the test program ends.
std::string TempDir() {
  static std::vector<std::string> made;
  static struct Cleanup {
    ~Cleanup() {
      for (const std::string& d : made) std::filesystem::remove_all(d);
    }
  } cleanup;
  char pattern[] = "/tmp/attnviz-gui-test-XXXXXX";
  const char* dir = mkdtemp(pattern);
  if (!dir) return "/tmp";
  made.push_back(dir);
  return dir;
}

class PanelTest : public AppDriver<FakeRenderer> {
 protected:
  App& MakeApp(const std::string& text = "I go home.", int n_head = 4, const std::string& lang = "") {
    AppOptions options;
    options.input.text = text;
    options.input.config.n_head = n_head;
    options.widgets_json_path = "(memory)";
    options.lang = lang;
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    return *app_;
  }
};

// A 100 KB word as a token label: the heads panel cuts it with one pass over the glyph advances.
// Cutting one character at a time and re-measuring never returned (the UI thread hung at every
// launch that restored the sentence). The guard is generous: no speed claim, only "it returns".
// A progress text wider than its bar: the bar says the percentage and the whole text wraps below it (ImGui would
// centre it in the bar and cut both ends: "...ng next-token predictions: 0 of 1023 posi..."); one that fits stays in.
TEST_F(PanelTest, AProgressTextTooWideForItsBarWrapsBelowIt) {
  MakeApp();
  Frame();  // the fonts (the text's width is measured with them)
  WidgetDump dump;
  dump.set_enabled(true);
  const std::string text = "running: next-token predictions: 0 of 1023 positions";
  const float text_width = ImGui::CalcTextSize(text.c_str()).x;
  for (const float width : {text_width + 40.0f, text_width * 0.5f}) {
    SCOPED_TRACE(width);
    ImGui::NewFrame();
    dump.BeginFrame(0);
    ImGui::SetNextWindowSize(ImVec2(width + 100.0f, 200.0f));
    ImGui::Begin("progress");
    widget::ProgressBar(dump, "test.progress", 0.25f, width, text);
    const float below_y = ImGui::GetCursorScreenPos().y;
    ImGui::End();
    ImGui::Render();
    const WidgetDump::Widget* w = dump.Find("test.progress");
    ASSERT_NE(w, nullptr);
    const bool fits = width > text_width;
    const std::string overlay = fits ? text : "25%", below = fits ? "" : text;
    EXPECT_EQ(w->value_json, "{\"fraction\": 0.25, \"overlay\": " + JsonString(overlay) + ", \"below\": " +
                                 JsonString(below) + "}");
    // Wrapped below: more than one line under the bar (the text is twice the bar's width).
    if (!fits) EXPECT_GT(below_y - w->y1, 1.5f * ImGui::GetTextLineHeight());
  }
}

// The app's style hides what is behind a tooltip or a menu: every popup colour is opaque (the dark theme's PopupBg
// is 94% opaque, so a tooltip over a panel's text showed that text through it).
TEST(AppStyleTest, TooltipsAndMenusAreOpaque) {
  ImGuiStyle style;
  ApplyAppStyle(&style);
  EXPECT_EQ(style.Colors[ImGuiCol_PopupBg].w, 1.0f);
  EXPECT_EQ(style.WindowRounding, 3.0f);  // the rest of the app's look is kept
  EXPECT_EQ(style.FramePadding.x, 5.0f);
}

TEST_F(PanelTest, A100KbWordLabelDoesNotHangTheFrame) {
  std::string word(100000, 'w');
  App& app = MakeApp("I " + word + " go");
  const auto start = std::chrono::steady_clock::now();
  Frames(3);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 60.0) << "hang guard";
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.latest->request.kv_text.size(), word.size() + 5);
  EXPECT_NE(app.dump.Find("heads.map.0"), nullptr);
}

TEST_F(PanelTest, DrawsEveryPanelWithoutGl) {
  App& app = MakeApp();
  Frames(4);
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.shown->maps->n_head(), 4);
  for (const char* name : {"controls.d_k", "controls.scale", "controls.temperature", "sentences.kv_text",
                           "heads.map.0", "heads.map.3", "heads.show.2", "saturation.max_weight",
                           "saturation.grad_norm", "shapes.q", "shapes.out", "export.button"})
    EXPECT_NE(app.dump.Find(name), nullptr) << name;
  for (int h = 0; h < 4; ++h) EXPECT_GT(renderer_.calls[Grid(h)], 0) << "head " << h;
  EXPECT_EQ(renderer_.last[Grid(0)].n_q, 4);  // I | go | home | .
  EXPECT_EQ(renderer_.last[Grid(0)].n_k, 4);
  std::string json = app.dump.ToJson();
  EXPECT_EQ(json.find("nan"), std::string::npos);
  EXPECT_NE(json.find("\"frame\": "), std::string::npos);
}

TEST_F(PanelTest, HiddenHeadIsNotDrawn) {
  App& app = MakeApp();
  Frames(3);
  Click("heads.show.1");
  EXPECT_FALSE(app.settings.head_visible(1));
  renderer_.calls.clear();
  Frames(2);
  EXPECT_EQ(renderer_.calls.count(Grid(1)), 0u);
  EXPECT_GT(renderer_.calls[Grid(0)], 0);
  EXPECT_EQ(app.dump.Find("heads.map.1"), nullptr);
  EXPECT_NE(app.dump.Find("heads.map.2"), nullptr);
}

TEST_F(PanelTest, KeysToggleScalingAndCycleHeads) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_TRUE(app.settings.config.scale);
  PressKey('S');
  EXPECT_FALSE(app.settings.config.scale);
  Frames(2);
  ASSERT_TRUE(app.results.shown);
  EXPECT_FALSE(app.results.shown->sandbox->config.scale);
  PressKey(262);  // Right
  EXPECT_EQ(app.settings.selected_head, 1);
  PressKey(263);  // Left
  PressKey(263);
  EXPECT_EQ(app.settings.selected_head, 3);
  PressKey('Q', /*ctrl=*/true);
  EXPECT_TRUE(app.quit_requested);
}

TEST_F(PanelTest, ClickEnlargesAndSideBySideUsesBothScalings) {
  App& app = MakeApp();
  Frames(3);
  Click("heads.map.2");
  EXPECT_TRUE(app.settings.enlarged);
  EXPECT_EQ(app.settings.selected_head, 2);
  EXPECT_NE(app.dump.Find("heads.enlarged"), nullptr);
  EXPECT_GT(renderer_.calls[Enlarged(2)], 0);
  Click("heads.view_side_by_side");
  Frames(3);
  ASSERT_TRUE(app.results.shown && app.results.shown->sandbox->twin);
  EXPECT_NE(app.dump.Find("heads.scaled"), nullptr);
  EXPECT_NE(app.dump.Find("heads.unscaled"), nullptr);
  // The two sides show different numbers: the scaled map is softer.
  ASSERT_GT(renderer_.calls[Scaled(2)], 0);
  ASSERT_GT(renderer_.calls[Unscaled(2)], 0);
  EXPECT_NE(renderer_.last[Scaled(2)].probs, renderer_.last[Unscaled(2)].probs);
}

TEST_F(PanelTest, InvalidSettingsShowAnErrorAndNeverNaN) {
  App& app = MakeApp();
  Frames(3);
  uint64_t generation = app.results.shown->generation;
  app.settings.config.temperature = 0.0f;
  Frames(2);
  EXPECT_NE(app.results.config_error.Render().find("temperature"), std::string::npos) << app.results.config_error;
  EXPECT_EQ(app.results.shown->generation, generation);  // nothing submitted
  app.settings.config.temperature = 1.0f;
  app.settings.config.n_head = 999;
  Frames(2);
  EXPECT_NE(app.results.config_error.Render().find("n_head"), std::string::npos) << app.results.config_error;
  app.settings.config.n_head = 4;
  app.settings.kv_text = "   ";
  Frames(3);
  EXPECT_FALSE(app.results.compute_error.empty());
  ASSERT_TRUE(app.results.shown);  // the last good maps stay
  EXPECT_EQ(app.dump.ToJson().find("nan"), std::string::npos);
  app.settings.kv_text = "back to text";
  Frames(3);
  EXPECT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
}

TEST_F(PanelTest, RendererErrorIsShownInsteadOfMaps) {
  App& app = MakeApp();
  renderer_.error_text = "shader heatmap.frag does not compile: 0:1(1): error";
  Frames(3);
  EXPECT_EQ(app.dump.Find("heads.map.0"), nullptr);
  EXPECT_NE(app.dump.Field("renderer_error").find("does not compile"), std::string::npos);
}

TEST_F(PanelTest, CrossSentenceFromFileAndDroppedFile) {
  App& app = MakeApp();
  std::string dir = TempDir();
  std::string path = dir + "/s.txt";  // TempDir() is absolute and free of symlinks under /tmp
  ASSERT_TRUE(WriteFileAtomic(path, "# test\nI go home.\nIch gehe nach Hause. ||| I go home.\n").ok());
  app.pending_drops.push_back(path);
  Frames(2);
  ASSERT_EQ(app.views.sentences.items.size(), 2u);
  EXPECT_EQ(app.settings.recent_files.front(), path);
  Click("sentences.item.1");
  EXPECT_EQ(app.settings.config.mode, AttentionMode::kCross);
  Frames(3);
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.shown->maps->n_q(), 5);  // Ich gehe nach Hause .
  EXPECT_EQ(app.results.shown->maps->n_k(), 4);
  EXPECT_NE(app.dump.Find("sentences.query_text"), nullptr);
  EXPECT_NE(app.dump.Find("shapes.xq"), nullptr);
  // A file that does not exist: a message, nothing else changes.
  app.pending_drops.push_back(dir + "/missing.txt");
  Frames(2);
  EXPECT_TRUE(app.views.sentences.error);
  EXPECT_EQ(app.views.sentences.items.size(), 2u);
}

TEST_F(PanelTest, CrossModeStartsFromTheUsersOwnSentence) {
  App& app = MakeApp("The cat sat down.");
  Frames(2);
  EXPECT_EQ(app.settings.query_text, "");
  Click("controls.mode_cross");
  EXPECT_EQ(app.settings.config.mode, AttentionMode::kCross);
  EXPECT_EQ(app.settings.query_text, "The cat sat down.");
  Frames(2);
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.latest->request.query_text, "The cat sat down.");
  EXPECT_EQ(app.results.shown->maps->n_q(), app.results.shown->maps->n_k());
  // Back to self, a new sentence, cross again: the query typed (here: filled in) before is kept.
  Click("controls.mode_self");
  app.settings.kv_text = "A dog ran.";
  Click("controls.mode_cross");
  EXPECT_EQ(app.settings.query_text, "The cat sat down.");
}

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    had_ = std::getenv(name) != nullptr;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// The Export panel's defaults fit a paper's figure and the machine: 300 dpi, and the user's pictures folder (never
// the folder the app was started from); a saved folder and dpi are the user's and kept.
TEST(SettingsTest, ExportDefaultsAreThePicturesFolderAnd300Dpi) {
  EXPECT_EQ(AppSettings().export_dpi, 300);
  EXPECT_EQ(AppSettings().export_dir, "");  // DefaultExportDir()
  const std::string home = TempDir();
  ScopedEnv home_env("HOME", home);
  ScopedEnv config_env("XDG_CONFIG_HOME", home + "/config");
  EXPECT_EQ(DefaultExportDir(), home);  // no pictures folder: $HOME
  std::filesystem::create_directories(home + "/Pictures");
  EXPECT_EQ(DefaultExportDir(), home + "/Pictures");
  std::filesystem::create_directories(home + "/config");
  ASSERT_TRUE(WriteFileAtomic(home + "/config/user-dirs.dirs",
                              "# written by xdg-user-dirs-update\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\n"
                              "XDG_PICTURES_DIR=\"$HOME/Bilder\"\n").ok());
  EXPECT_EQ(DefaultExportDir(), home + "/Pictures");  // Bilder does not exist (yet)
  std::filesystem::create_directories(home + "/Bilder");
  EXPECT_EQ(DefaultExportDir(), home + "/Bilder");
  EXPECT_EQ(PicturesDirFromUserDirs("XDG_PICTURES_DIR=\"/srv/pics\"\n", "/h"), "/srv/pics");
  EXPECT_EQ(PicturesDirFromUserDirs("XDG_PICTURES_DIR=\"$HOME/\"\n", "/h"), "");  // disabled
  EXPECT_EQ(PicturesDirFromUserDirs("# XDG_PICTURES_DIR=\"$HOME/x\"\n", "/h"), "");
  EXPECT_EQ(PicturesDirFromUserDirs("XDG_PICTURES_DIR=\"$HOME/My \\\"Pics\\\"\"\n", "/h"), "/h/My \"Pics\"");
  // Saved settings keep what the user had, even the old defaults.
  Result<AppSettings> saved = ParseSettings("export_dir = .\nexport_dpi = 96\n");
  ASSERT_TRUE(saved.ok()) << saved.message();
  EXPECT_EQ(saved->export_dir, ".");
  EXPECT_EQ(saved->export_dpi, 96);
  Result<AppSettings> round = ParseSettings(SerializeSettings(AppSettings()));
  ASSERT_TRUE(round.ok()) << round.message();
  EXPECT_EQ(round->export_dir, "");
  EXPECT_EQ(round->export_dpi, 300);
}

// With no folder set, the Export button writes into the pictures folder, not the working folder, and the folder
// field shows that folder as its hint.
TEST_F(PanelTest, ExportWithNoFolderWritesToThePicturesFolder) {
  const std::string home = TempDir();
  ScopedEnv home_env("HOME", home);
  ScopedEnv config_env("XDG_CONFIG_HOME", home + "/config");
  std::filesystem::create_directories(home + "/Pictures");
  App& app = MakeApp();
  EXPECT_EQ(app.settings.export_dir, "");
  Frames(3);
  Click("export.format_csv");
  Export();
#ifdef ATTNVIZ_HAVE_FIGURE
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_EQ(app.views.export_panel.path_written.rfind(home + "/Pictures/attnviz-", 0), 0u)
      << app.views.export_panel.path_written;
  EXPECT_TRUE(IsRegularFile(app.views.export_panel.path_written));
#endif
}

// "annotate" on a figure whose cells are too small for the numbers: next to the checkbox the panel says so, with the
// cell size they need; a size that gives cells that large prints them and the note goes.
TEST_F(PanelTest, AnnotateSaysWhenTheCellsAreTooSmallForTheNumbers) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "w" + std::to_string(i) + " ";
  App& app = MakeApp(text);
  app.settings.export_dir = TempDir();
  app.settings.export_annotate = true;
  Frames(3);
  ASSERT_NE(app.dump.Find("export.annotate_note"), nullptr);
  EXPECT_EQ(app.dump.Find("export.annotate_note")->value_json, "\"\"");  // nothing known before an export
#ifdef ATTNVIZ_HAVE_FIGURE
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  const ExportPanelView::CellNote note = app.views.export_panel.note;
  EXPECT_GT(note.cell, 0);
  EXPECT_GT(note.annotate_needs_cell, note.cell);
  EXPECT_EQ(app.dump.Find("export.annotate_note")->value_json,
            JsonString("cells too small for the numbers: " + std::to_string(note.cell) + " px, they need " +
                       std::to_string(note.annotate_needs_cell) + " px"));
  // Off: no note. Another size: the note was for the old one.
  app.settings.export_annotate = false;
  Frames(1);
  EXPECT_EQ(app.dump.Find("export.annotate_note")->value_json, "\"\"");
  app.settings.export_annotate = true;
  app.settings.export_size = "40x40in";
  Frames(1);
  EXPECT_EQ(app.dump.Find("export.annotate_note")->value_json, "\"\"");
  app.settings.export_dpi = 96;  // 40 in at 96 dpi: 3840 px for 60 tokens, cells of about 55 px
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_EQ(app.views.export_panel.note.annotate_needs_cell, 0);
  EXPECT_EQ(app.dump.Find("export.annotate_note")->value_json, "\"\"");
#endif
}

// A second export to a file that is there never replaces it silently: the panel says it exists, the button says
// "Overwrite", and "Save as name-2.csv" writes the next free name instead, leaving the first file as it was.
TEST_F(PanelTest, ExportToAnExistingFileOffersOverwriteOrTheNextFreeName) {
  App& app = MakeApp();
  const std::string dir = TempDir();
  app.settings.export_dir = dir;
  Frames(3);
  Click("export.format_csv");
  EXPECT_EQ(app.dump.Find("export.exists")->value_json, "false");
  EXPECT_EQ(app.dump.Find("export.next_name"), nullptr);
  Export();
#ifdef ATTNVIZ_HAVE_FIGURE
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  const std::string first = app.views.export_panel.path_written;
  const std::string name = app.views.export_panel.file_name;
  ASSERT_EQ(first, dir + "/" + name);
  ASSERT_TRUE(WriteFileAtomic(first, "the user's own edit\n").ok());
  Frames(1);
  EXPECT_EQ(app.dump.Find("export.exists")->value_json, "true");
  EXPECT_NE(app.dump.Find("export.button")->label.find("Overwrite"), std::string::npos)
      << app.dump.Find("export.button")->label;
  const std::string stem = name.substr(0, name.size() - 4);
  ASSERT_NE(app.dump.Find("export.next_name"), nullptr);
  EXPECT_NE(app.dump.Find("export.next_name")->label.find("Save as " + stem + "-2.csv"), std::string::npos)
      << app.dump.Find("export.next_name")->label;
  // The next free name: the first file is kept.
  Click("export.next_name");
  for (int i = 0; i < 500 && app.exporting(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  Frame();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_EQ(app.views.export_panel.path_written, dir + "/" + stem + "-2.csv");
  EXPECT_EQ(*ReadFile(first), "the user's own edit\n");
  EXPECT_NE(ReadFile(dir + "/" + stem + "-2.csv")->find("home"), std::string::npos);
  EXPECT_NE(app.dump.Find("export.next_name")->label.find(stem + "-3.csv"), std::string::npos);
  // Overwrite, asked for: the first file is replaced.
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_EQ(app.views.export_panel.path_written, first);
  EXPECT_NE(ReadFile(first)->find("home"), std::string::npos);
#endif
}

TEST_F(PanelTest, ExportButtonWritesThroughTheFigureLibrary) {
  App& app = MakeApp();
  std::string dir = TempDir();
  app.settings.export_dir = dir;
  Frames(3);
  Click("export.format_csv");
  Export();
#ifdef ATTNVIZ_HAVE_FIGURE
  EXPECT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  Result<std::string> csv = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(csv.ok()) << app.views.export_panel.path_written;
  EXPECT_NE(csv->find("home"), std::string::npos);
  Click("export.target_saturation");
  Export();
  EXPECT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_NE(app.views.export_panel.path_written.find("saturation.csv"), std::string::npos);  // CSV stays chosen
  Result<std::string> sweep_csv = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(sweep_csv.ok());
  EXPECT_EQ(sweep_csv->rfind("d_k,scaled", 0), 0u);
  Click("export.format_png");
  Export();
  EXPECT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_NE(app.views.export_panel.path_written.find("saturation.png"), std::string::npos);
#else
  EXPECT_FALSE(app.views.export_panel.ok);
#endif
  // An unwritable folder: the error is reported, not thrown.
  app.settings.export_dir = "/proc/attnviz-no-such-dir";
  Frames(1);
  Export();
  EXPECT_FALSE(app.views.export_panel.ok);
  EXPECT_FALSE(app.views.export_panel.message.empty());
}

// The Export panel's messages in Korean: a file-writing refusal from core (the folder's parent is a file) and
// the panel's own (every head hidden). A message on screen is kept as what makes it, so switching the
// language re-renders it; and the exported path's notice too.
TEST_F(PanelTest, ExportMessagesAreKoreanAndFollowALanguageSwitch) {
  App& app = MakeApp("I go home.", 4, "ko");
  const std::string dir = TempDir();
  ASSERT_TRUE(WriteFileAtomic(dir + "/file", "x").ok());
  app.settings.export_dir = dir + "/file/sub";
  Frames(3);
  Export();
  EXPECT_FALSE(app.views.export_panel.ok);
  ASSERT_NE(app.dump.Find("export.message"), nullptr);
  EXPECT_EQ(app.dump.Find("export.message")->value_json,
            JsonString("내보내기 실패: " + dir + "/file: 이미 있고 폴더가 아닙니다"));
  app.SetLanguage(Lang::kEn);
  Frames(1);
  EXPECT_EQ(app.dump.Find("export.message")->value_json,
            JsonString("Export failed: " + dir + "/file: exists and is not a folder"));
  app.SetLanguage(Lang::kKo);
  app.settings.export_dir = dir;
  for (int h = 0; h < 4; ++h) app.settings.head_hidden[h] = true;
  Click("export.target_heads");
  Export();
  EXPECT_EQ(app.dump.Find("export.message")->value_json,
            JsonString("내보내기 실패: 모든 헤드가 숨겨져 있습니다: 내보내려면 하나 이상 보이게 하십시오"));
  for (int h = 0; h < 4; ++h) app.settings.head_hidden[h] = false;
  Click("export.format_csv");
  Export();
#ifdef ATTNVIZ_HAVE_FIGURE
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  EXPECT_EQ(app.dump.Find("export.message")->value_json, JsonString("저장했습니다: " + app.views.export_panel.path_written));
  app.SetLanguage(Lang::kEn);
  Frames(1);
  EXPECT_EQ(app.dump.Find("export.message")->value_json, JsonString("Wrote " + app.views.export_panel.path_written));
  // A size the figure library refuses, under the size field, in Korean.
  app.SetLanguage(Lang::kKo);
  Click("export.format_png");
  app.settings.export_size = "3x3";
  Frames(1);
  Export();
  EXPECT_EQ(app.dump.Find("export.message")->value_json,
            JsonString("내보내기 실패: 크기 '3x3' 에 단위 in, cm, mm 가 없습니다: 단위와 함께 가로x세로로 주십시오, 예: "
                       "3.3x3in 또는 8.4x7.6cm (각각 0.5..40 in)"));
#endif
  SetLang(Lang::kEn);
}

// An engine error already on screen (the Controls panel's refusal) follows a language switch: the app keeps
// the Status, not the text it had when it arrived.
TEST_F(PanelTest, ErrorOnScreenFollowsALanguageSwitch) {
  App& app = MakeApp("I go home.", 4, "ko");
  Frames(3);
  app.settings.config.n_head = 65;
  Frames(2);
  EXPECT_EQ(app.results.config_error.Render(), "n_head = 65 은(는) 범위를 벗어났습니다: 허용 범위 1..64");
  EXPECT_EQ(app.dump.Field("config_error"), JsonString("n_head = 65 은(는) 범위를 벗어났습니다: 허용 범위 1..64"));
  app.SetLanguage(Lang::kEn);
  Frames(1);
  EXPECT_EQ(app.dump.Field("config_error"), JsonString("n_head = 65 is out of range: allowed 1..64"));
  app.settings.config.n_head = 4;
  app.settings.kv_text = "   ";
  Frames(3);
  EXPECT_EQ(app.dump.Field("compute_error"), JsonString(app.results.compute_error.Render(Lang::kEn)));
  EXPECT_NE(app.results.compute_error.Render(Lang::kEn).find("whitespace"), std::string::npos) << app.results.compute_error;
  app.SetLanguage(Lang::kKo);
  Frames(1);
  EXPECT_NE(app.dump.Field("compute_error").find("문장에 공백만 있습니다"), std::string::npos)
      << app.dump.Field("compute_error");
  SetLang(Lang::kEn);
}

// The Shapes tab names where each of q, k, v comes from: x W for a projected one, the raw feature for the others.
TEST_F(PanelTest, ShapesTabShowsEachSourceOfQKV) {
  App& app = MakeApp();
  Frames(3);
  EXPECT_EQ(app.dump.Field("shapes_step_q"), JsonString("x W \xE2\x86\x92 [:, q]"));
  EXPECT_EQ(app.dump.Field("shapes_weights"), "[\"W_qkv\"]");
  app.settings.config.query_from = FeatureSource::kLength;
  app.settings.config.key_from = FeatureSource::kPosition;
  app.settings.config.value_from = FeatureSource::kOneHot;
  Frames(3);
  ASSERT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
  EXPECT_EQ(app.dump.Field("shapes_step_q"), JsonString("word length (no W)"));
  EXPECT_EQ(app.dump.Field("shapes_step_k"), JsonString("position (no W)"));
  EXPECT_EQ(app.dump.Field("shapes_step_v"), JsonString("one-hot token (no W)"));
  EXPECT_EQ(app.dump.Field("shapes_weights"), "[]");  // no q, k or v is projected: no W row
  app.settings.config.value_from = FeatureSource::kEmbedding;
  app.settings.config.qkv = QkvLayout::kSeparate;
  app.SetLanguage(Lang::kKo);
  Frames(3);
  EXPECT_EQ(app.dump.Field("shapes_step_q"), JsonString("단어 길이 (W 없음)"));
  EXPECT_EQ(app.dump.Field("shapes_step_k"), JsonString("위치 (W 없음)"));
  EXPECT_EQ(app.dump.Field("shapes_step_v"), JsonString("x W_v"));
  EXPECT_EQ(app.dump.Field("shapes_weights"), "[\"W_v\"]");  // only the W that v uses
  SetLang(Lang::kEn);
}

// Labels name the run's own score: under -|q - k| the Shapes step is no "q k\u1D40", the logits are not divided
// by sqrt(d_k), and the Numbers tab calls a raw q what it is, not "one Linear's output".
TEST_F(PanelTest, ScoreAwareWordingUnderEveryScore) {
  App& app = MakeApp();
  Frames(3);
  EXPECT_EQ(app.dump.Field("shapes_score_step"), JsonString("q\u00B7k"));
  const std::pair<ScoreKind, const char*> expected[] = {
      {ScoreKind::kDot, "q\u00B7k"},
      {ScoreKind::kAdditive, "v\u1D40 tanh(W_q q + W_k k)"},
      {ScoreKind::kCosine, "q\u00B7k / (|q| |k|)"},
      {ScoreKind::kNegDistance, "\u2212|q \u2212 k|"}};
  for (const auto& [score, formula] : expected) {
    app.settings.config.score = score;
    Frames(3);
    ASSERT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
    EXPECT_EQ(app.dump.Field("shapes_score_step"), JsonString(formula)) << ToString(score);
    EXPECT_EQ(ScoreFormula(score), std::string(formula));
  }
  for (ScoreKind s : kScoreKinds) EXPECT_EQ(std::string(ScoreFormula(s)).find("k\u1D40"), std::string::npos);

  // Only scaled-dot divides by sqrt(d_k): the summary says "scaled", the cell tooltip "\u00F7\u221Ad_k" and the
  // checkbox is live under it alone; every other score is named by its formula, with the scale switch still on.
  ASSERT_TRUE(app.settings.config.scale);
  const std::string divide = "\u00F7\u221Ad_k";
  auto hovered_tip = [&] {
    const WidgetDump::Widget* map = app.dump.Find("heads.map.0");
    if (!map) return std::string("no map");
    ImGui::GetIO().MousePos = ImVec2((map->x0 + map->x1) * 0.5f, (map->y0 + map->y1) * 0.5f);
    Frames(2);
    const std::string tip = app.dump.Field("heads_tip_logit_after");
    ImGui::GetIO().MousePos = ImVec2(-1, -1);
    Frame();
    return tip;
  };
  for (ScoreKind score : kScoreKinds) {
    SCOPED_TRACE(ToString(score));
    app.settings.config.score = score;
    Frames(3);
    ASSERT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
    const bool divides = score == ScoreKind::kScaledDot;
    const std::string summary = app.dump.Field("heads_summary");
    EXPECT_EQ(summary.find("scaled") != std::string::npos, divides) << summary;
    EXPECT_NE(summary.find("d_k=" + std::to_string(app.results.shown->maps->q->dim(2))), std::string::npos) << summary;
    if (!divides) EXPECT_NE(summary.find(std::string("score ") + ScoreFormula(score)), std::string::npos) << summary;
    EXPECT_EQ(app.dump.Field("controls_scale_disabled"), divides ? "false" : "true");
    if (!divides) {  // nor does its key flip the setting kept for scaled-dot
      PressKey('S');
      EXPECT_TRUE(app.settings.config.scale);
    }
    const std::string tip = hovered_tip();
    EXPECT_NE(tip.find("logit after"), std::string::npos) << tip;
    EXPECT_EQ(tip.find(divide) != std::string::npos, divides) << tip;
    // The status line offers S only where it acts; scaled vs unscaled is on offer only where they differ, and a
    // side-by-side setting shows the one map enlarged under the other scores (no "\u00F7\u221Ad_k:" caption on it).
    EXPECT_EQ(app.dump.Field("heads_status_keys").find("S:") != std::string::npos, divides)
        << app.dump.Field("heads_status_keys");
    EXPECT_EQ(app.dump.Field("heads_side_by_side_disabled"), divides ? "false" : "true");
    app.settings.side_by_side = true;
    Frames(3);
    EXPECT_EQ(app.dump.Find("heads.scaled") != nullptr, divides);
    EXPECT_EQ(app.dump.Find("heads.unscaled") != nullptr, divides);
    EXPECT_EQ(app.dump.Find("heads.enlarged") != nullptr, !divides);
    app.settings.side_by_side = false;
    // The Saturation panel's legend names the sweep's score: "\u00F7\u221Ad_k" and "unscaled" under scaled-dot, else
    // the one line "<formula>, not divided by \u221Ad_k" (as the exported figure's legend).
    for (int i = 0; i < 500 && !(app.results.sweep && app.results.sweep->request.base.score == score &&
                                 !app.results.sweeping);
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      Frame();
    }
    Frames(2);
    const std::string legend = app.dump.Field("saturation_legend");
    EXPECT_EQ(legend.find(divide) != std::string::npos, divides) << legend;
    EXPECT_EQ(legend.find("unscaled") != std::string::npos, divides) << legend;
    if (!divides)
      EXPECT_NE(legend.find(std::string(ScoreFormula(score)) + ", not divided by \u221Ad_k"), std::string::npos) << legend;
    EXPECT_EQ(app.dump.Field("saturation_lines"), divides ? "2" : "1");
    EXPECT_EQ(app.dump.Field("saturation_now"), JsonString("| now: d_k " + std::to_string(app.settings.config.head_dim_k())));
  }

  // q and k from word length under -|q - k| (lesson f): 1 wide whatever d_k says; the summary, the Shapes rule and
  // the Numbers tab's heading say so, and a raw q reads as the feature it is, in the dim colour of a choice.
  app.settings.config.query_from = app.settings.config.key_from = FeatureSource::kLength;
  app.settings.config.score = ScoreKind::kNegDistance;
  Frames(3);
  ASSERT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
  ASSERT_EQ(app.results.shown->maps->q->dim(2), 1u);
  ASSERT_NE(app.settings.config.head_dim_k(), 1);
  const std::string summary = app.dump.Field("heads_summary");
  EXPECT_EQ(summary.rfind("\"d_k=1 \u00B7 T=1", 0), 0u) << summary;
  EXPECT_EQ(summary.find("scaled"), std::string::npos) << summary;
  EXPECT_NE(summary.find("score \u2212|q \u2212 k|"), std::string::npos) << summary;
  EXPECT_NE(app.dump.Field("shapes_rules").find("d_k = 1 "), std::string::npos) << app.dump.Field("shapes_rules");
  // The Saturation panel marks the width q and k have (1), not the d_k setting they ignore.
  EXPECT_EQ(app.QueryKeyWidth(), 1);
  EXPECT_EQ(app.dump.Field("saturation_now"), JsonString("| now: d_k 1"));
  app.views.learn.tab = LearnTab::kNumbers;
  app.views.learn.tab_requested = 3;
  Frames(3);
  const std::string heading = app.dump.Field("numbers_q_heading");
  EXPECT_NE(heading.find("raw feature, no Linear"), std::string::npos) << heading;
  EXPECT_EQ(heading.find("one Linear's output"), std::string::npos) << heading;
  EXPECT_NE(heading.find(", 1]"), std::string::npos) << heading;
  EXPECT_EQ(app.dump.Field("numbers_raw_note_color"),
            "[" + JsonNumber(kDimColor.x) + ", " + JsonNumber(kDimColor.y) + ", " + JsonNumber(kDimColor.z) + "]");
  EXPECT_EQ(hovered_tip().find(divide), std::string::npos);
  // The same score in both languages: its formula.
  app.SetLanguage(Lang::kKo);
  Frames(3);
  EXPECT_NE(app.dump.Field("heads_summary").find("점수 \u2212|q \u2212 k|"), std::string::npos)
      << app.dump.Field("heads_summary");
  EXPECT_EQ(app.dump.Field("heads_summary").find("neg-distance"), std::string::npos);
  SetLang(Lang::kEn);
}

// Long inputs (the trial: 2048-4096 tokens looked empty): the Heads panel says why the maps are dark and offers the
// log scale; the Shapes tab says "pooled" with the shape the maps stand for, not "logits []".
TEST_F(PanelTest, LongInputsHintAtTheLogScaleAndShapesSayPooled) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += (i ? " w" : "w") + std::to_string(i);
  AppOptions options;
  options.input.text = text;
  options.widgets_json_path = "(memory)";
  auto prepared = std::make_unique<Pipeline>();
  prepared->set_pooled_above_cells(1);  // pooled mode, as at 4096 tokens
  app_ = std::make_unique<App>(AppSettings(), options, std::move(prepared));
  App& app = *app_;
  Frames(4);
  ASSERT_TRUE(app.results.shown);
  ASSERT_TRUE(app.results.shown->maps->pooled);
  const float faint = std::stof(app.dump.Field("heads_faint_hint"));
  EXPECT_GT(faint, 0.0f);
  EXPECT_LT(faint, kFaintMapsPeak);
  ASSERT_NE(app.dump.Find("heads.use_log_scale"), nullptr);
  EXPECT_EQ(app.dump.Find("shapes.probs")->value_json, JsonString("[4, 1000, 1000] pooled (not kept: read from a pyramid)"));
  EXPECT_EQ(app.dump.Find("shapes.logits")->value_json, app.dump.Find("shapes.probs")->value_json);
  Click("heads.use_log_scale");
  Frames(2);
  EXPECT_EQ(app.settings.color_scale, ColorScale::kLog);
  EXPECT_EQ(app.dump.Find("heads.use_log_scale"), nullptr);  // read well now: no hint
  EXPECT_EQ(app.dump.Field("heads_faint_hint"), "0");
}

TEST(FaintMapsTest, OnlyTheLinearFixedScaleWithSmallPeaks) {
  std::vector<HeadMetrics> m(2);
  m[0].max_weight = 0.01f, m[1].max_weight = 0.03f;
  EXPECT_FLOAT_EQ(FaintMapsPeak(m, ColorScale::kLinear, false), 0.03f);
  EXPECT_EQ(FaintMapsPeak(m, ColorScale::kLog, false), 0.0f);
  EXPECT_EQ(FaintMapsPeak(m, ColorScale::kLinear, true), 0.0f);
  m[1].max_weight = 0.5f;  // one head reads well: the maps are not empty
  EXPECT_EQ(FaintMapsPeak(m, ColorScale::kLinear, false), 0.0f);
  EXPECT_EQ(FaintMapsPeak({}, ColorScale::kLinear, false), 0.0f);
}

// attnviz --lesson a..g: a teacher's link to one lesson. The letter is checked as typed (the allowed range named,
// in both languages); the app opens at the lesson: its knobs, its evidence tab, its words beside it.
TEST_F(PanelTest, LessonOptionOpensTheAppAtThatLesson) {
  AppOptions parsed;
  EXPECT_TRUE(ParseAppOptions({"--lesson", "c"}, &parsed).ok());
  EXPECT_EQ(parsed.lesson, "c");
  for (const char* bad : {"h", "ab", "3", ""}) {
    const Status st = ParseAppOptions({"--lesson", bad}, &parsed);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("allowed a..g"), std::string::npos) << st.message();
  }
  EXPECT_FALSE(ParseAppOptions({"--lesson"}, &parsed).ok());  // a missing value
  SetLang(Lang::kKo);
  EXPECT_NE(ParseAppOptions({"--lesson", "z"}, &parsed).message().find("a..g 중 한 글자"), std::string::npos);
  SetLang(Lang::kEn);

  AppOptions options;
  options.input.text = "I go home.";
  options.widgets_json_path = "(memory)";
  options.lesson = "c";
  app_ = std::make_unique<App>(AppSettings(), options, nullptr);
  App& app = *app_;
  Frames(5);
  EXPECT_EQ(app.lesson(), Lesson::kC);
  EXPECT_EQ(app.settings.config.qkv, QkvLayout::kFused);
  EXPECT_EQ(app.settings.config.n_head, 4);
  ASSERT_NE(app.dump.Find("learn.tab.numbers"), nullptr);
  EXPECT_EQ(app.dump.Find("learn.tab.numbers")->value_json, "true");
  ASSERT_NE(app.dump.Find("lessons.title"), nullptr);  // beside the Numbers tab
  EXPECT_EQ(app.dump.Find("lessons.title")->value_json, JsonString(Tr(Str::kLessonCTitle)));
  // Lesson (c)'s check: equal to float32 rounding, said so, in the OK colour's verdict.
  ASSERT_NE(app.dump.Find("numbers.linears_verdict"), nullptr);
  const std::string verdict = app.dump.Find("numbers.linears_verdict")->value_json;
  EXPECT_NE(verdict.find("\"same\": true"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("equal to float32 rounding"), std::string::npos) << verdict;
}

// Lesson (e) reaches a trained model: the bundled one, on a sentence said twice, at layer 1; the lesson names its
// previous-token heads (layer 0) and induction heads (layer 1) in words, from the run's own role scores.
TEST_F(PanelTest, LessonEOpensTheBundledModelAndNamesItsHeads) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_FALSE(app.bundled_model_dir.empty()) << "the source tree's assets/models/tiny";
  app.PickLesson(Lesson::kE);
  app.ShowLesson(Lesson::kE);
  for (int i = 0; i < 400 && !(app.results.model && app.results.model->has_layer(1)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Frame();
  }
  Frames(3);
  ASSERT_TRUE(app.results.model);
  EXPECT_EQ(app.settings.source, Source::kModel);
  EXPECT_EQ(app.settings.model_layer, 1);
  EXPECT_EQ(app.settings.kv_text, kRepeatedSentence);
  ASSERT_NE(app.dump.Find("lessons.named_heads"), nullptr);
  const std::string named = app.dump.Find("lessons.named_heads")->value_json;
  // The bundled model's README: layer 0 heads 2 and 3 follow the previous token; layer 1 heads 0, 2, 3 induct.
  EXPECT_NE(named.find("\"previous_token\": [[0, 2], [0, 3]]"), std::string::npos) << named;
  EXPECT_NE(named.find("\"induction\": [[1, 0], [1, 2], [1, 3]]"), std::string::npos) << named;
  // Another lesson after it goes back to the sandbox with its own picture.
  app.ShowLesson(Lesson::kA);
  Frames(3);
  EXPECT_EQ(app.settings.source, Source::kSandbox);
  EXPECT_EQ(app.settings.kv_text, "The cat sat on the mat.");  // lesson (a)'s own, not (e)'s
}

// `--model tiny` (or the File menu's bundled model) on the sandbox's short default sentence would show noise: the
// bundled model opens on a sentence said twice and the Model panel says why; a sentence of the user's own stays.
TEST_F(PanelTest, TheBundledModelOpensOnASentenceSaidTwiceAndSaysWhy) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_FALSE(app.bundled_model_dir.empty()) << "the source tree's assets/models/tiny";
  ASSERT_EQ(app.settings.kv_text, AppSettings().kv_text);
  app.OpenModel("tiny");
  for (int i = 0; i < 400 && !app.results.model; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Frame();
  }
  Frames(3);
  EXPECT_EQ(app.settings.kv_text, kRepeatedSentence);
  EXPECT_EQ(app.dump.Field("model_bundled_repeat_note"), "true");
  // The user's own sentence is theirs: opening the bundled model again keeps it, and the note goes.
  app.settings.kv_text = "My own words here.";
  app.OpenModel("tiny");
  Frames(5);
  EXPECT_EQ(app.settings.kv_text, "My own words here.");
  EXPECT_EQ(app.dump.Field("model_bundled_repeat_note"), "false");
}

// A lesson in any order gives the same picture: what an earlier visit left in the panels (an ablated head, the
// Rollout map kind that hides the role line, a zoom window, an edited Dictionary, mean pooling, the Overview by delta
// loss, an open neuron view, a moved Numbers query row) is put back by the lesson.
TEST_F(PanelTest, LessonEAfterAblationRolloutAndZoomGivesThePlainLesson) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_FALSE(app.bundled_model_dir.empty()) << "the source tree's assets/models/tiny";
  auto show_e = [&] {
    app.ShowLesson(Lesson::kE);
    for (int i = 0; i < 400 && !(app.results.model && app.results.model->has_layer(1)); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      Frame();
    }
    Frames(3);
    ASSERT_TRUE(app.results.model);
  };
  show_e();
  ASSERT_NE(app.dump.Find("lessons.named_heads"), nullptr);
  const std::string plain = app.dump.Find("lessons.named_heads")->value_json;
  // Leave the panels as a learner might: a head ablated, Rollout picked, a map zoomed, the Dictionary edited.
  app.SetHeadAblated(0, 2, true);  // a previous-token head: the induction heads above it lean on it
  app.SetHeadAblated(0, 3, true);
  Click("heads.kind_rollout");
  ASSERT_EQ(app.views.heads.kind, MapKind::kRollout);
  Frames(3);
  ASSERT_FALSE(app.views.heads.maps.empty());
  for (auto& [key, ms] : app.views.heads.maps) ms.window = MapWindow{0, std::max(1, ms.n_q / 2), 0, std::max(1, ms.n_k / 2)};
  app.views.learn.dictionary.temperature = 0.01f;
  app.views.learn.dictionary.query = "z";
  // ... mean pooling picked, the Overview coloured by a scan's delta loss, a neuron view open, the Numbers tab's
  // query row moved.
  Click("heads.pool_mean");
  ASSERT_EQ(app.views.heads.pool, PoolKind::kMean);
  app.views.model.color_by_delta = true;
  app.PanelContextFor(nullptr).verbs.OpenNeuronView(0, 1, 0);
  ASSERT_TRUE(app.views.neuron.open);
  app.views.learn.numbers.query = 2;
  Frames(2);
  EXPECT_EQ(app.dump.Field("neuron").find("\"open\": false"), std::string::npos) << app.dump.Field("neuron");

  show_e();
  EXPECT_EQ(app.views.heads.pool, PoolKind::kMax);
  EXPECT_FALSE(app.views.model.color_by_delta);
  EXPECT_FALSE(app.views.neuron.open);
  EXPECT_EQ(app.dump.Field("neuron"), "{\"open\": false}");
  EXPECT_EQ(app.views.learn.numbers.query, 0);
  EXPECT_EQ(app.views.heads.kind, MapKind::kAttention);
  EXPECT_TRUE(app.views.model.ablated.empty());
  for (const auto& [key, ms] : app.views.heads.maps) {
    if (ms.n_q == 0) continue;
    EXPECT_EQ(ms.window, (MapWindow{0, ms.n_q, 0, ms.n_k}));
  }
  const DictionaryView fresh;
  EXPECT_EQ(app.views.learn.dictionary.temperature, fresh.temperature);
  EXPECT_EQ(app.views.learn.dictionary.query, fresh.query);
  EXPECT_EQ(app.dump.Find("lessons.named_heads")->value_json, plain);
}

// The File menu holds what the app can do with files and lessons, not only Quit: a lesson taken from it sets its
// knobs, brings its evidence tab forward and keeps its words beside it until closed.
TEST_F(PanelTest, FileMenuOpensALessonWhoseWordsStayBesideItsEvidence) {
  App& app = MakeApp();
  Frames(3);
  Click("menu.file");
  for (const char* item : {"menu.file.open_model", "menu.file.open_sentences", "menu.file.sandbox", "menu.file.export",
                           "menu.file.lessons", "menu.file.quit"})
    EXPECT_NE(app.dump.Find(item), nullptr) << item;
  Click("menu.file.lessons");
  ASSERT_NE(app.dump.Find("menu.file.lesson.d"), nullptr);
  Click("menu.file.lesson.d");
  Frames(4);
  EXPECT_EQ(app.settings.config.head_dim_k(), 512);
  EXPECT_FALSE(app.settings.config.scale);
  EXPECT_EQ(app.views.learn.tab, LearnTab::kVariance);
  ASSERT_NE(app.dump.Find("learn.tab.variance"), nullptr);
  EXPECT_EQ(app.dump.Find("learn.tab.variance")->value_json, "true");
  // The lesson's words beside the Variance tab.
  ASSERT_NE(app.dump.Find("lessons.title"), nullptr);
  EXPECT_EQ(app.dump.Find("lessons.title")->value_json, JsonString(Tr(Str::kLessonDTitle)));
  Click("lessons.beside.close");
  Frames(2);
  EXPECT_FALSE(app.views.learn.lesson_beside);
  EXPECT_EQ(app.views.learn.tab, LearnTab::kVariance);
  EXPECT_EQ(app.dump.Find("lessons.title"), nullptr);
  EXPECT_EQ(app.dump.Find("learn.tab.variance")->value_json, "true");  // the evidence stays
}

// Under --lang ko no visible widget label carries an English word, apart from the math symbols and names kept on
// purpose (english_words.h, the list docs/app.md's "What stays in English under --lang ko" gives): every panel, every
// learn tab, every lesson.
TEST_F(PanelTest, KoreanLabelsCarryNoEnglishWordOutsideTheKeptNames) {
  EXPECT_EQ(EnglishWords("쿼리 min d_k"), std::vector<std::string>{"min"});  // the check itself can fail
  App& app = MakeApp("I go home.", 4, "ko");
  Frames(3);
  std::map<std::string, std::string> seen;  // name -> label, over every view visited
  auto collect = [&] {
    for (const WidgetDump::Widget& w : app.dump.widgets())
      if (!w.label.empty()) seen[w.name] = w.label;
  };
  collect();
  for (const char* tab : {"learn.tab.numbers", "learn.tab.lessons", "learn.tab.dictionary", "learn.tab.variance"}) {
    Click(tab);
    Frames(2);
    collect();
  }
  for (int i = 0; i < kLessonCount; ++i) {
    if (i != (int)Lesson::kE) app.ShowLesson((Lesson)i);  // (e) opens a model: the model panel test's part
    Frames(3);
    collect();
  }
  // Model mode: lesson (e) opens the bundled model (the Model, Overview and Heads panels in their model form).
  app.ShowLesson(Lesson::kE);
  for (int i = 0; i < 400 && !(app.results.model && app.results.model->has_layer(1)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Frame();
  }
  Frames(3);
  collect();
  Click("menu.file");
  collect();
  EXPECT_GT(seen.size(), 30u);
  EXPECT_TRUE(seen.count("model.hide_special"));  // the model panels were seen too
  for (const auto& [name, label] : seen) EXPECT_TRUE(EnglishWords(label).empty()) << name << ": " << label;
  SetLang(Lang::kEn);
}

// A zero is never printed with a sign ("-0" under -|q - k| of equal lengths); rounding shows the digits honestly.
TEST(FormatNumberTest, ZeroHasNoMinusSign) {
  EXPECT_EQ(FormatNumber(-0.0), "0");
  EXPECT_EQ(FormatNumber(-0.0f, "%.3f"), "0.000");
  EXPECT_EQ(FormatNumber(-0.0001, "%+.2f"), "+0.00");
  EXPECT_EQ(FormatNumber(-0.0001, "%.2e"), "-1.00e-04");  // not a zero
  EXPECT_EQ(FormatNumber(-1.5), "-1.5");
  EXPECT_EQ(FormatNumber(0.25, "%+.2f"), "+0.25");
  EXPECT_EQ(ShortExponent(5.96e-07), "6e-7");
  EXPECT_EQ(ShortExponent(0.0), "0");
  EXPECT_EQ(ShortExponent(2.3e-05), "2e-5");
  EXPECT_EQ(ShortExponent(120.0), "1e2");
}

// attnviz --help in Korean lists every option the English one lists; an unknown option is refused in Korean.
TEST(AppHelpTest, HelpAndUnknownOptionInKorean) {
  SetLang(Lang::kEn);
  const std::string english = AppOptionsHelp();
  SetLang(Lang::kKo);
  const std::string korean = AppOptionsHelp();
  EXPECT_EQ(korean.rfind("사용법: attnviz [옵션] [FILE] [MODEL_DIR]\n", 0), 0u) << korean;
  EXPECT_NE(korean.find("앱 옵션:"), std::string::npos);
  auto options = [](const std::string& text) {
    std::set<std::string> out;
    for (size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at + 2)) {
      size_t end = at + 2;
      while (end < text.size() && (std::isalnum((unsigned char)text[end]) || text[end] == '-')) ++end;
      out.insert(text.substr(at, end - at));
    }
    return out;
  };
  EXPECT_EQ(options(korean), options(english));
  EXPECT_GT(options(english).size(), 20u);
  AppOptions parsed;
  Status st = ParseAppOptions({"--frobnicate"}, &parsed);
  EXPECT_EQ(st.message(), "모르는 옵션 '--frobnicate' (attnviz --help를 보십시오)");
  SetLang(Lang::kEn);
  EXPECT_EQ(ParseAppOptions({"--frobnicate"}, &parsed).message(), "unknown option '--frobnicate' (see attnviz --help)");
}

TEST(SettingsTest, RoundTripAndCorruptFileIsSetAside) {
  AppSettings s;
  s.kv_text = "line one\nline two \\ back";
  s.config.d_k = 1024;
  s.config.scale = false;
  s.config.temperature = 0.25f;
  s.config.mask = MaskKind::kCausal;
  s.head_hidden[2] = true;
  s.colormap = Colormap::kMagma;
  s.AddRecentFile("/a.txt");
  s.AddRecentFile("/b.txt");
  Result<AppSettings> back = ParseSettings(SerializeSettings(s));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->kv_text, s.kv_text);
  EXPECT_EQ(back->config.d_k, 1024);
  EXPECT_FALSE(back->config.scale);
  EXPECT_FLOAT_EQ(back->config.temperature, 0.25f);
  EXPECT_EQ(back->config.mask, MaskKind::kCausal);
  EXPECT_TRUE(back->head_hidden[2]);
  EXPECT_EQ(back->colormap, Colormap::kMagma);
  ASSERT_EQ(back->recent_files.size(), 2u);
  EXPECT_EQ(back->recent_files[0], "/b.txt");

  std::string dir = TempDir();
  std::string path = dir + "/settings.txt";
  ASSERT_TRUE(WriteFileAtomic(path, "d_k = 8\nthis is not a setting\n").ok());
  LoadedSettings loaded = LoadSettings(path);
  EXPECT_FALSE(loaded.restored);
  EXPECT_FALSE(loaded.keep_file);
  EXPECT_NE(loaded.message.Render().find("corrupt (line 2: expected 'key = value')"), std::string::npos) << loaded.message;
  EXPECT_EQ(*ReadFile(path + ".corrupt.1"), "d_k = 8\nthis is not a setting\n");
  EXPECT_FALSE(ReadFile(path).ok());
  EXPECT_EQ(loaded.settings.config.d_k, 0);  // defaults
  // A second corrupt file gets the next number: the first copy is never overwritten.
  ASSERT_TRUE(WriteFileAtomic(path, "\xff\n").ok());
  loaded = LoadSettings(path);
  EXPECT_NE(loaded.message.Render().find(path + ".corrupt.2"), std::string::npos) << loaded.message;
  EXPECT_EQ(*ReadFile(path + ".corrupt.1"), "d_k = 8\nthis is not a setting\n");
  EXPECT_EQ(*ReadFile(path + ".corrupt.2"), "\xff\n");
  ASSERT_TRUE(SaveSettings(dir + "/sub/settings.txt", s).ok());
  EXPECT_TRUE(LoadSettings(dir + "/sub/settings.txt").restored);
}

// A bad value is named and replaced by its default; the rest of the file is kept. window_w = 100000
// passed and every start then died with an X error.
TEST(SettingsTest, BadValuesAreReportedAndTheDefaultUsed) {
  std::string path = TempDir() + "/settings.txt";
  ASSERT_TRUE(WriteFileAtomic(path, "d_k = 8\nwindow_w = 100000\nwindow_h = 50\ntemperature = 0x10\n").ok());
  LoadedSettings loaded = LoadSettings(path);
  EXPECT_TRUE(loaded.restored);
  EXPECT_FALSE(loaded.keep_file);
  EXPECT_EQ(loaded.settings.config.d_k, 8);
  EXPECT_EQ(loaded.settings.window_w, AppSettings().window_w);
  EXPECT_EQ(loaded.settings.window_h, AppSettings().window_h);
  EXPECT_FLOAT_EQ(loaded.settings.config.temperature, 1.0f);
  EXPECT_NE(loaded.message.Render().find("line 2 (window_w): 100000 is out of range: allowed 200..8192; the default is used"),
            std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.Render().find("line 3 (window_h)"), std::string::npos) << loaded.message;
  EXPECT_NE(loaded.message.Render().find("line 4 (temperature): '0x10' is not a number"), std::string::npos) << loaded.message;
  // Without a list for the problems, ParseSettings stays strict.
  EXPECT_FALSE(ParseSettings("window_w = 100000\n").ok());
}

// The settings file's notices in Korean: values out of range replaced by defaults, a corrupt file set aside, an
// unreadable one left alone; the same message renders in English after a switch.
TEST(SettingsTest, SettingsNoticesInKorean) {
  const std::string dir = TempDir();
  const std::string path = dir + "/settings.txt";
  ASSERT_TRUE(WriteFileAtomic(path, "d_k = 8\nwindow_w = 100000\nn_head = 65\n").ok());
  SetLang(Lang::kKo);
  LoadedSettings loaded = LoadSettings(path);
  EXPECT_TRUE(loaded.restored);
  EXPECT_EQ(loaded.message.Render(),
            "설정 파일 " + path + ": 2번째 줄 (window_w): 100000 은(는) 범위를 벗어났습니다: 허용 범위 200..8192; "
            "기본값을 씁니다; 3번째 줄 (n_head): 65 은(는) 범위를 벗어났습니다: 허용 범위 1..64; 기본값을 씁니다.");
  EXPECT_EQ(loaded.message.Render(Lang::kEn),
            "Settings file " + path + ": line 2 (window_w): 100000 is out of range: allowed 200..8192; the default is "
            "used; line 3 (n_head): 65 is out of range: allowed 1..64; the default is used.");
  ASSERT_TRUE(WriteFileAtomic(path, "enlarged = maybe\nlang = fr\n").ok());
  loaded = LoadSettings(path);
  EXPECT_EQ(loaded.message.Render(), "설정 파일 " + path + ": 1번째 줄 (enlarged): 'maybe': true/false 중 하나가 "
                                     "아닙니다; 기본값을 씁니다; 2번째 줄 (lang): 'fr': en/ko 중 하나가 아닙니다; "
                                     "기본값을 씁니다.");
  ASSERT_TRUE(WriteFileAtomic(path, "this is not a setting\n").ok());
  loaded = LoadSettings(path);
  EXPECT_EQ(loaded.message.Render(), "설정 파일 " + path + ": 손상되어 있었습니다 (1번째 줄: '키 = 값' 꼴이 "
                                     "아닙니다). " + path + ".corrupt.1(으)로 옮겨 두고 기본값으로 시작했습니다.");
  EXPECT_EQ(loaded.message.Render(Lang::kEn), "Settings file " + path + " was corrupt (line 1: expected 'key = value'); "
                                              "moved it to " + path + ".corrupt.1 and started on defaults.");
  ASSERT_EQ(mkdir((dir + "/folder.txt").c_str(), 0755), 0);
  LoadedSettings folder = LoadSettings(dir + "/folder.txt");
  EXPECT_EQ(folder.message.Render(), "설정 파일 " + dir + "/folder.txt: 파일이 아니라 폴더입니다. 파일은 그대로 두고 "
                                     "덮어쓰지 않습니다; 기본값으로 시작했습니다.");
  SetLang(Lang::kEn);
}

// A settings file that cannot be read is reported and left alone: keep_file tells main.cpp not to save over it.
TEST(SettingsTest, UnreadableSettingsAreLeftAlone) {
  const std::string dir = TempDir();
  ASSERT_EQ(mkdir((dir + "/settings.txt").c_str(), 0755), 0);  // a folder named settings.txt
  LoadedSettings folder = LoadSettings(dir + "/settings.txt");
  EXPECT_TRUE(folder.keep_file);
  EXPECT_FALSE(folder.restored);
  EXPECT_NE(folder.message.Render().find("is a folder, not a file. It is left as it is and will not be overwritten"),
            std::string::npos) << folder.message;
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/settings.txt"));  // was renamed
  ASSERT_EQ(symlink("/dev/zero", (dir + "/zero.txt").c_str()), 0);
  LoadedSettings zero = LoadSettings(dir + "/zero.txt");
  EXPECT_TRUE(zero.keep_file);
  EXPECT_NE(zero.message.Render().find("is not a regular file"), std::string::npos) << zero.message;
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/zero.txt"));
  ASSERT_TRUE(WriteFileAtomic(dir + "/big.txt", "x").ok());
  ASSERT_EQ(truncate((dir + "/big.txt").c_str(), (off_t)kMaxSettingsFileBytes + 1), 0);
  LoadedSettings big = LoadSettings(dir + "/big.txt");
  EXPECT_TRUE(big.keep_file);
  EXPECT_NE(big.message.Render().find("too large for a settings file (at most 1 MiB)"), std::string::npos) << big.message;
  LoadedSettings missing = LoadSettings(dir + "/none.txt");  // first launch: nothing to say
  EXPECT_FALSE(missing.keep_file);
  EXPECT_TRUE(missing.message.empty());
}

// The sandbox's q/k norm and soft cap (lesson (d), today's part) reach the maps, the summary, the cell tooltip and the
// Saturation panel's legend; the toggles come from the Controls panel.
TEST_F(PanelTest, TheQkNormAndTheSoftCapReachTheMapsTooltipAndSaturation) {
  App& app = MakeApp("the cat sat on the mat");
  Frames(3);
  ASSERT_FALSE(app.settings.config.qk_norm);
  Click("controls.qk_norm");
  EXPECT_TRUE(app.settings.config.qk_norm);
  EXPECT_EQ(app.dump.Find("controls.softcap"), nullptr);  // the value only while the cap is on
  Click("controls.softcap_on");
  EXPECT_EQ(app.settings.config.softcap, kDefaultSoftcap);
  app.settings.config.d_k = 1024;
  app.settings.config.scale = false;
  Frames(3);
  ASSERT_NE(app.dump.Find("controls.softcap"), nullptr);
  ASSERT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  EXPECT_EQ(app.results.shown->maps->softcap, kDefaultSoftcap);
  const std::string summary = app.dump.Field("heads_summary");
  EXPECT_NE(summary.find("q/k norm"), std::string::npos) << summary;
  EXPECT_NE(summary.find("cap 5"), std::string::npos) << summary;
  const WidgetDump::Widget* map = app.dump.Find("heads.map.0");
  ASSERT_NE(map, nullptr);
  ImGui::GetIO().MousePos = ImVec2((map->x0 + map->x1) * 0.5f, (map->y0 + map->y1) * 0.5f);
  Frames(2);
  const std::string capped = app.dump.Field("heads_tip_logit_capped");
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  Frame();
  EXPECT_NE(capped.find("capped: 5 \u00B7 tanh("), std::string::npos) << capped;
  for (int i = 0; i < 500 && !(app.results.sweep && app.results.sweep->request.base.softcap > 0 &&
                               app.results.sweep->request.base.qk_norm && !app.results.sweeping);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Frame();
  }
  Frames(2);
  const std::string legend = app.dump.Field("saturation_legend");
  EXPECT_NE(legend.find("q/k norm \u00B7 cap 5"), std::string::npos) << legend;
  Click("controls.softcap_on");
  EXPECT_EQ(app.settings.config.softcap, 0.0f);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// --lang ko: the dump's labels are the Korean table's, the widgets keep their names and ImGui ids (a click
// found by name still toggles), and switching back to English relabels the same widgets.
TEST_F(PanelTest, KoreanLabelsKeepStableWidgets) {
  AppOptions options;
  options.input.text = "I go home.";
  options.widgets_json_path = "(memory)";
  options.lang = "ko";
  app_ = std::make_unique<App>(AppSettings(), options, nullptr);
  App& app = *app_;
  Frames(3);
  EXPECT_EQ(app.settings.lang, "ko");  // saved with the settings
  const WidgetDump::Widget* scale = app.dump.Find("controls.scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->label, Tr(Str::kScaleCheckbox, Lang::kKo));
  EXPECT_EQ(app.dump.Find("export.button")->label, "내보내기");
  EXPECT_NE(app.dump.ToJson().find("\"label\": \"격자\""), std::string::npos);
  ASSERT_TRUE(app.settings.config.scale);
  Click("controls.scale");
  EXPECT_FALSE(app.settings.config.scale);
  app.SetLanguage(Lang::kEn);
  Frames(2);
  EXPECT_EQ(app.dump.Find("controls.scale")->label, Tr(Str::kScaleCheckbox, Lang::kEn));
  Click("controls.scale");  // the same ImGui id in English
  EXPECT_TRUE(app.settings.config.scale);
  EXPECT_EQ(app.settings.lang, "en");
  // The choice survives a save and a restore.
  Result<AppSettings> restored = ParseSettings(SerializeSettings(app.settings));
  ASSERT_TRUE(restored.ok()) << restored.message();
  EXPECT_EQ(restored->lang, "en");
  EXPECT_FALSE(ParseSettings("lang = fr\n").ok());
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
TEST_F(PanelTest, SourceAndScoreCombosRefuseAWidthMismatchWithTheReason) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_TRUE(app.dump.Find("controls.query_from"));
  EXPECT_EQ(app.dump.Find("controls.query_from")->value_json, "\"embedding\"");
  EXPECT_EQ(app.dump.Find("controls.score")->value_json, "\"scaled-dot\"");
  EXPECT_EQ(app.dump.Find("controls.width_error")->value_json, "\"\"");
  app.settings.config.query_from = FeatureSource::kLength;  // width 1
  app.settings.config.key_from = FeatureSource::kOneHot;    // width n_vocab
  Frames(3);
  const std::string error = app.dump.Find("controls.width_error")->value_json;
  EXPECT_NE(error.find("a score needs d_q = d_k: the query from length has width 1"), std::string::npos) << error;
  EXPECT_NE(error.find("(n_vocab)"), std::string::npos) << error;
  // Shown once: the Heads and Saturation panels point to Controls instead of repeating it (the trial counted four
  // copies; Saturation's sweep said "sweep: d_k=2: a score needs d_q = d_k ..." again).
  EXPECT_EQ(app.dump.Find("heads.error")->value_json, JsonString(Tr(Str::kWidthRefusalSeeControls)));
  ASSERT_TRUE(IsWidthRefusal(app.results.sweep_error.Render())) << app.results.sweep_error.Render();
  ASSERT_NE(app.dump.Find("saturation.error"), nullptr);
  EXPECT_EQ(app.dump.Find("saturation.error")->value_json, JsonString(Tr(Str::kWidthRefusalSeeControls)));
  ASSERT_TRUE(app.results.shown);  // the last good maps stay
  app.settings.config.key_from = FeatureSource::kLength;
  app.settings.config.score = ScoreKind::kNegDistance;
  Frames(3);
  EXPECT_EQ(app.dump.Find("controls.width_error")->value_json, "\"\"");
  EXPECT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
  EXPECT_EQ(app.results.shown->sandbox->config.score, ScoreKind::kNegDistance);
  EXPECT_EQ(app.results.shown->maps->q->dim(2), 1u);  // the raw length feature, not a projection
  EXPECT_EQ(app.dump.Find("controls.score")->value_json, "\"neg-distance\"");
  EXPECT_EQ(app.dump.Find("heads.error")->value_json, "\"\"");
  // A refusal the settings check makes (embedding-wide q against a 1-wide k): still once, in Controls.
  app.settings.config.query_from = FeatureSource::kEmbedding;
  Frames(3);
  EXPECT_TRUE(IsWidthRefusal(app.dump.Find("controls.width_error")->value_json))
      << app.results.config_error.Render() << app.results.compute_error.Render();
  EXPECT_EQ(app.dump.Find("heads.error")->value_json, JsonString(Tr(Str::kWidthRefusalSeeControls)));
  // A refusal only the sweep meets (its d_k=2 against a 1-wide q, while the settings' d_k=1 fits) is not in
  // Controls: Saturation says it in full there.
  app.settings.config.query_from = FeatureSource::kLength;
  app.settings.config.key_from = FeatureSource::kEmbedding;
  app.settings.config.score = ScoreKind::kScaledDot;
  app.settings.config.d_k = 1;
  Frames(4);
  EXPECT_EQ(app.dump.Find("controls.width_error")->value_json, "\"\"");
  EXPECT_TRUE(IsWidthRefusal(app.results.sweep_error.Render())) << app.results.sweep_error.Render();
  EXPECT_EQ(app.dump.Find("saturation.error")->value_json, JsonString(app.results.sweep_error.Render()));
}
// The same refusal in Korean: the message the window shows is the engine's, rendered through the Korean table
// (Hangul, with the sources and widths it names).
TEST_F(PanelTest, WidthRefusalIsShownInKorean) {
  App& app = MakeApp("I go home.", 4, "ko");
  Frames(3);
  app.settings.config.query_from = FeatureSource::kLength;
  app.settings.config.key_from = FeatureSource::kOneHot;
  Frames(3);
  const WidgetDump::Widget* shown = app.dump.Find("controls.width_error");
  ASSERT_NE(shown, nullptr);
  EXPECT_NE(shown->value_json.find("점수를 내려면 d_q = d_k여야 합니다"), std::string::npos) << shown->value_json;
  EXPECT_NE(shown->value_json.find("단어 길이에서 온 쿼리의 차원은 1"), std::string::npos) << shown->value_json;
  EXPECT_NE(shown->value_json.find("(n_vocab)"), std::string::npos) << shown->value_json;
  // An out-of-range knob is refused in Korean too.
  app.settings.config.query_from = app.settings.config.key_from = FeatureSource::kEmbedding;
  app.settings.config.n_head = 65;
  Frames(2);
  EXPECT_EQ(app.results.config_error.Render(), "n_head = 65 은(는) 범위를 벗어났습니다: 허용 범위 1..64");
  SetLang(Lang::kEn);
}
namespace {

// The Lessons tab as a person uses it: open the tab, pick (d), press its button: the knobs it names are
// set, the computed result follows them, and the tab that shows the answer comes to the front.
TEST_F(PanelTest, LessonButtonSetsItsKnobsAndOpensItsTab) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_NE(app.dump.Find("learn.tab.lessons"), nullptr);
  EXPECT_EQ(app.dump.Find("lessons.show.a"), nullptr);  // the Shapes tab is open first
  Click("learn.tab.lessons");
  ASSERT_NE(app.dump.Find("lessons.show.a"), nullptr);
  Click("lessons.pick.b");
  ASSERT_NE(app.dump.Find("lessons.show.b"), nullptr);
  Click("lessons.show.b");
  Frames(3);
  EXPECT_EQ(app.settings.config.mode, AttentionMode::kCross);
  EXPECT_EQ(app.views.learn.tab, LearnTab::kShapes);
  EXPECT_EQ(app.dump.Find("learn.tab.shapes")->value_json, "true");
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.shown->maps->n_q(), 6);
  EXPECT_EQ(app.results.shown->maps->n_k(), 4);
  EXPECT_EQ(app.dump.Find("shapes.probs")->value_json, "\"[4, 6, 4]\"");
  // (a): d_v 48 beside d_k 16, the Shapes tab shows v, z and concat at d_v.
  Click("learn.tab.lessons");
  Click("lessons.pick.a");
  Click("lessons.show.a");
  Frames(3);
  EXPECT_EQ(app.dump.Find("controls.d_k")->value_json, "16");
  EXPECT_EQ(app.dump.Find("controls.d_v")->value_json, "48");
  EXPECT_EQ(app.dump.Find("shapes.v")->value_json, "\"[2, 7, 48]\"");
  EXPECT_EQ(app.dump.Find("shapes.q")->value_json, "\"[2, 7, 16]\"");
}

// Lesson (d) asks at which d_k the Saturation panel's unscaled mean max weight first passes 0.9: that curve has one
// answer, the same each time the lesson is shown (fixed draws, unlike one map's max weight), and the scaled curve
// never gets there.
TEST_F(PanelTest, LessonDsQuestionHasOneAnswerOnTheCurveItNames) {
  App& app = MakeApp();
  Frames(3);
  auto first_past = [&] {
    app.ShowLesson(Lesson::kD);
    auto current = [&] {  // the sweep of the lesson's settings, not one still shown from before
      return app.results.sweep && !app.worker->sweeping() && app.results.sweep->request.base.seed == app.settings.config.seed &&
             app.results.sweep->request.kv_text == app.settings.kv_text;
    };
    for (int i = 0; i < 400 && !current(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      Frame();
    }
    EXPECT_TRUE(app.results.sweep);
    int first = -1;
    for (const SweepPoint& p : app.results.sweep ? app.results.sweep->points : std::vector<SweepPoint>{}) {
      if (p.scaled) EXPECT_LT(p.max_weight, 0.9f) << "scaled, d_k " << p.d_k;
      else if (first < 0 && p.max_weight >= 0.9f) first = p.d_k;
    }
    return first;
  };
  const int once = first_past();
  EXPECT_GT(once, 1) << "the unscaled curve never passes 0.9";
  app.settings.config.seed = 7;  // another draw of the maps, its sweep shown ...
  for (int i = 0; i < 400 && !(app.results.sweep && app.results.sweep->request.base.seed == 7); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Frame();
  }
  EXPECT_EQ(first_past(), once);  // ... and the lesson's curve gives the same answer
}

// Lesson (f): a key from word length. Hovering a cell names the two numbers the score compared, the query's and the
// key's length (in characters), besides the score.
TEST_F(PanelTest, LessonFsHoverShowsTheTwoLengths) {
  App& app = MakeApp();
  Frames(3);
  app.ShowLesson(Lesson::kF);
  Frames(4);
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  const LayerMaps& t = *app.results.shown->maps;
  app.settings.enlarged = true;
  app.settings.selected_head = 0;
  Frames(2);
  const WidgetDump::Widget* map = app.dump.Find("heads.enlarged");
  ASSERT_NE(map, nullptr);
  const int n_q = (int)t.n_q(), n_k = (int)t.n_k(), i = n_q - 1, j = 1;
  ImGui::GetIO().MousePos = ImVec2(map->x0 + (j + 0.5f) * (map->x1 - map->x0) / n_k,
                                   map->y0 + (i + 0.5f) * (map->y1 - map->y0) / n_q);
  Frames(2);
  const WidgetDump::Widget* hover = app.dump.Find("heads.enlarged.hover");
  ASSERT_NE(hover, nullptr);
  auto length = [](const std::string& s) { return std::to_string(DecodeUtf8(s).size()); };
  EXPECT_NE(hover->value_json.find("\"q\": [" + length(t.query_tokens[(size_t)i].display) + "], \"k\": [" +
                                   length(t.kv_tokens[(size_t)j].display) + "]"),
            std::string::npos)
      << hover->value_json;
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
}

// A lesson shown after another starts at its top: the words beside the tab are not left scrolled where the last
// lesson's were.
TEST_F(PanelTest, AShownLessonStartsAtTheTopNotWhereTheLastOneWasScrolled) {
  App& app = MakeApp();
  Frames(3);
  app.ShowLesson(Lesson::kD);
  Frames(4);
  ASSERT_TRUE(app.views.learn.lesson_beside);
  const WidgetDump::Widget* close = app.dump.Find("lessons.beside.close");
  ASSERT_NE(close, nullptr);
  ASSERT_TRUE(close->visible);
  // The wheel over the words beside the tab, as a reader scrolls down them.
  const ImVec2 over(close->x0 + 10, close->y1 + 40);
  for (int i = 0; i < 30 && app.dump.Find("lessons.beside.close")->visible; ++i) {
    ImGui::GetIO().MousePos = over;
    ImGui::GetIO().MouseWheel = -1.0f;
    Frames(2);
  }
  ASSERT_FALSE(app.dump.Find("lessons.beside.close")->visible) << "the words did not scroll";
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  app.ShowLesson(Lesson::kA);
  Frames(4);
  ASSERT_NE(app.dump.Find("lessons.beside.close"), nullptr);
  EXPECT_TRUE(app.dump.Find("lessons.beside.close")->visible);
}

// The first screen says where to start: "Start here" on the menu bar brings the Lessons tab to the front.
TEST_F(PanelTest, StartHereOnTheMenuBarOpensTheLessons) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_NE(app.dump.Find("menu.start_here"), nullptr);
  EXPECT_EQ(app.dump.Find("lessons.show.a"), nullptr);  // the Shapes tab is open first
  Click("menu.start_here");
  Frames(2);
  EXPECT_EQ(app.views.learn.tab, LearnTab::kLessons);
  EXPECT_NE(app.dump.Find("lessons.show.a"), nullptr);
}

// At 1280x800 every lesson's "Show me" is in sight when the lesson is picked, in both languages, the longest
// (lesson (e)) included: no scrolling to find the button.
TEST_F(PanelTest, EveryLessonsShowMeIsInSightWithoutScrolling) {
  for (const char* lang : {"en", "ko"}) {
    App& app = MakeApp("I go home.", 4, lang);
    Frames(3);
    Click("learn.tab.lessons");
    for (int i = 0; i < kLessonCount; ++i) {
      const std::string letter(1, LessonLetter((Lesson)i));
      Click("lessons.pick." + letter);
      Frames(1);
      const WidgetDump::Widget* show = app.dump.Find("lessons.show." + letter);
      ASSERT_NE(show, nullptr) << lang << " " << letter;
      EXPECT_TRUE(show->visible) << lang << " " << letter;
      EXPECT_LE(show->y1, 800.0f) << lang << " " << letter;
    }
    SetLang(Lang::kEn);
  }
}

// Lesson (g)'s Dictionary tab: {'a': 1, 'b': 2, 'c': 3}; at a low temperature 'b' takes all the weight and
// the answer is 2 (an exact lookup); a key that is not there gets the even blend 2 at any temperature, and
// 'b' at a high temperature a soft blend.
TEST_F(PanelTest, DictionaryTabIsExactWhenColdAndBlendsWhenNothingMatches) {
  App& app = MakeApp();
  Frames(3);
  app.ShowLesson(Lesson::kG);
  Frames(4);
  ASSERT_NE(app.dump.Find("dictionary.weight.1"), nullptr);
  app.views.learn.dictionary.temperature = 0.01f;
  Frames(2);
  EXPECT_GT(std::stod(app.dump.Find("dictionary.weight.1")->value_json), 0.999);
  EXPECT_NE(app.dump.Field("dictionary").find("\"blended\": [2]"), std::string::npos) << app.dump.Field("dictionary");
  EXPECT_EQ(app.dump.Field("dictionary_tie"), "[]");
  app.views.learn.dictionary.query = "z";
  Frames(2);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(std::stod(app.dump.Find("dictionary.weight." + std::to_string(i))->value_json), 1.0 / 3, 1e-4) << i;
  EXPECT_EQ(app.dump.Field("dictionary_tie"), "[0, 1, 2]");  // a three-way tie names no best key
  app.views.learn.dictionary.query = "b";
  app.views.learn.dictionary.temperature = 100.0f;
  Frames(2);
  EXPECT_LT(std::stod(app.dump.Find("dictionary.weight.1")->value_json), 0.5);
}

// The Dictionary tab's refusals in the UI's language: a value that is not a number, a query of the wrong width.
TEST_F(PanelTest, DictionaryRefusalsInKorean) {
  App& app = MakeApp();
  Frames(3);
  app.ShowLesson(Lesson::kG);
  Frames(2);
  app.views.learn.dictionary.rows[1].second = "two";
  Frames(2);
  EXPECT_EQ(app.dump.Field("dictionary"),
            "{\"error\": " + JsonString("b: 'two' is not a number or a list of numbers") + "}");
  app.SetLanguage(Lang::kKo);
  Frames(2);
  EXPECT_EQ(app.dump.Field("dictionary"), "{\"error\": " + JsonString("b: 'two' 은(는) 수나 수의 목록이 아닙니다") + "}");
  app.views.learn.dictionary.rows = {{"1", "1"}, {"2 3", "2"}};
  app.views.learn.dictionary.query = "1";
  Frames(2);
  EXPECT_NE(app.dump.Field("dictionary").find("사전: 점수를 내려면 d_q = d_k여야 합니다: 쿼리 '1'의 차원은 1, 키 '2 3'의 차원은 2"),
            std::string::npos) << app.dump.Field("dictionary");
  SetLang(Lang::kEn);
}

// Fused and separate layouts no longer look the same in the Shapes tab: the weights are listed as laid out.
TEST_F(PanelTest, ShapesShowTheWeightLayout) {
  App& app = MakeApp();
  Frames(3);
  ASSERT_NE(app.dump.Find("shapes.W_qkv"), nullptr);
  EXPECT_EQ(app.dump.Find("shapes.W_qkv")->value_json, "\"[64, 192]\"");
  EXPECT_EQ(app.dump.Find("shapes.W_q"), nullptr);
  Click("controls.qkv_separate");
  Frames(2);
  EXPECT_EQ(app.dump.Find("shapes.W_qkv"), nullptr);
  EXPECT_EQ(app.dump.Find("shapes.W_v")->value_json, "\"[64, 64]\"");
}

// The Numbers tab shows the weights the run used: with --weights files, their rows (not a fresh random init);
// with raw feature sources, the q and k rows as used (word lengths) and the W step marked as not applying.
TEST_F(PanelTest, NumbersTabShowsTheRunsOwnWeightsAndRawRows) {
  AttentionConfig c;
  c.d_model = 8;
  c.n_head = 2;
  c.qkv = QkvLayout::kSeparate;
  ProjectionWeights w;
  w.d_model = 8, w.n_head = 2, w.d_k = 4, w.d_v = 4;
  w.layout = QkvLayout::kSeparate;
  for (Tensor* m : {&w.w_q, &w.w_k, &w.w_v, &w.w_o}) {
    m->Resize({8, 8});
    for (size_t i = 0; i < m->size(); ++i) m->data[i] = 0.125f * (float)(i % 5) - 0.25f;
  }
  w.w_q.data[0] = 0.5f, w.w_q.data[1] = -0.375f;  // row 0 of W_q: 0.5, -0.375, 0, 0.125, 0.25, -0.25, ...
  auto prepared = std::make_unique<Pipeline>();
  ASSERT_TRUE(prepared->SetText("I go home.").ok());
  ASSERT_TRUE(prepared->SetConfig(c).ok());
  prepared->SetLoadedWeights(w);
  AppOptions options;
  options.input.text = "I go home.";
  options.input.config = c;
  options.input.weights_dir = "(test)";
  options.widgets_json_path = "(memory)";
  app_ = std::make_unique<App>(AppSettings(), options, std::move(prepared));
  App& app = *app_;
  Frames(3);
  Click("learn.tab.numbers");
  Frames(2);
  ASSERT_NE(app.dump.Find("numbers.weights"), nullptr);
  EXPECT_EQ(app.dump.Find("numbers.weights")->value_json, "\"loaded\"");
  EXPECT_EQ(app.dump.Find("numbers.w_row0")->value_json, "[0.5, -0.375, 0, 0.125, 0.25, -0.25, -0.125, 0]");
  EXPECT_LT(std::stod(app.dump.Find("numbers.max_abs_diff")->value_json), 1e-5);
  EXPECT_EQ(app.dump.Find("numbers.raw_rows")->value_json, "{}");
  // Queries and keys from word length: "I" has length 1, "go" 2 (rows as used; W_q and W_k do not apply).
  app.settings.config.query_from = FeatureSource::kLength;
  app.settings.config.key_from = FeatureSource::kLength;
  Frames(4);
  ASSERT_TRUE(app.results.compute_error.empty()) << app.results.compute_error;
  EXPECT_EQ(app.results.shown->sandbox->config.query_from, FeatureSource::kLength);
  EXPECT_EQ(app.dump.Find("numbers.raw_rows")->value_json, "{\"q\": [1], \"k\": [1]}");
  EXPECT_EQ(app.dump.Find("numbers.weights")->value_json, "\"loaded\"");
}

// The Variance tab samples off the UI thread: the frame that sees a new d_k starts the sampling and shows the
// last picture (not reported as current); the new picture arrives on a later frame.
TEST_F(PanelTest, VarianceSamplesOffTheUiThread) {
  App& app = MakeApp();
  Frames(3);
  Click("learn.tab.variance");
  for (int i = 0; i < 200 && !app.dump.Find("variance.histogram"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Frame();
  }
  ASSERT_NE(app.dump.Find("variance.histogram"), nullptr);
  EXPECT_NE(app.dump.Find("variance.histogram")->value_json.find("\"d_k\": 16,"), std::string::npos);
  app.settings.config.d_k = 4096;
  Frame();  // starts the sampling, draws the d_k 16 picture dimmed
  EXPECT_TRUE(app.views.learn.variance_job.valid());
  EXPECT_EQ(app.views.learn.variance->d_k, 16);
  EXPECT_EQ(app.dump.Find("variance.histogram"), nullptr);
  EXPECT_TRUE(app.Busy());  // frames keep coming until the samples arrive
  for (int i = 0; i < 2000 && (!app.views.learn.variance || app.views.learn.variance->d_k != 4096); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Frame();
  }
  Frame();
  ASSERT_NE(app.dump.Find("variance.histogram"), nullptr);
  const std::string v = app.dump.Find("variance.histogram")->value_json;
  EXPECT_NE(v.find("\"d_k\": 4096,"), std::string::npos) << v;
  EXPECT_NE(v.find("\"sqrt_d_k\": 64}"), std::string::npos) << v;
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// A panel squeezed to any size draws without tripping an ImGui assertion. The per-head table of the Saturation panel
// had its own scrolling child window (ImGuiTableFlags_ScrollY); squeezed until that child was clipped while the table
// was not, imgui 1.86 aborted in TableUpdateLayout (`!is_visible`: the monkey test found it under ASan).
TEST_F(PanelTest, EveryPanelSqueezedToAnySizeDraws) {
  App& app = MakeApp("The cat sat on the mat and the dog sat on the log.", 8);
  Frames(3);
  ASSERT_TRUE(app.results.shown);
  for (float w : {1.0f, 8.0f, 24.0f, 60.0f, 120.0f, 400.0f})
    for (float h : {1.0f, 8.0f, 24.0f, 60.0f, 120.0f, 400.0f}) {
      for (ImGuiWindow* window : ImGui::GetCurrentContext()->Windows) {
        if (window->Flags & ImGuiWindowFlags_ChildWindow) continue;
        ImGui::SetWindowSize(window->Name, ImVec2(w, h));
      }
      Frames(2);
    }
  // Heights a fraction of a pixel apart: the table's top lands on every side of the panel's bottom edge.
  for (float h = 100.0f; h < 360.0f; h += 0.37f) {
    for (ImGuiWindow* window : ImGui::GetCurrentContext()->Windows)
      if (!(window->Flags & ImGuiWindowFlags_ChildWindow)) ImGui::SetWindowSize(window->Name, ImVec2(300.0f, h));
    Frame();
  }
  EXPECT_TRUE(app.results.shown);
}

}  // namespace
}  // namespace attnviz
