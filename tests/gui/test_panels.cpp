// The no-GL panel test: an ImGui context without any backend draws every panel for a few frames,
// with a fake heatmap renderer standing in for the GL one (panels never call GL themselves).
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <vector>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <chrono>

#include "app.h"
#include "app_driver.h"
#include "file_io.h"
#include "state.h"

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
  App& MakeApp(const std::string& text = "I go home.", int n_head = 4) {
    AppOptions options;
    options.input.text = text;
    options.input.config.n_head = n_head;
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(ViewState(), options, nullptr);
    return *app_;
  }
};

TEST_F(PanelTest, DrawsEveryPanelWithoutGl) {
  App& app = MakeApp();
  Frames(4);
  ASSERT_TRUE(app.shown);
  EXPECT_EQ(app.shown->tensors.n_head(), 4);
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
  EXPECT_FALSE(app.state.head_visible(1));
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
  ASSERT_TRUE(app.state.config.scale);
  PressKey('S');
  EXPECT_FALSE(app.state.config.scale);
  Frames(2);
  ASSERT_TRUE(app.shown);
  EXPECT_FALSE(app.shown->request.config.scale);
  PressKey(262);  // Right
  EXPECT_EQ(app.state.selected_head, 1);
  PressKey(263);  // Left
  PressKey(263);
  EXPECT_EQ(app.state.selected_head, 3);
  PressKey('Q', /*ctrl=*/true);
  EXPECT_TRUE(app.quit_requested);
}

TEST_F(PanelTest, ClickEnlargesAndSideBySideUsesBothScalings) {
  App& app = MakeApp();
  Frames(3);
  Click("heads.map.2");
  EXPECT_TRUE(app.state.enlarged);
  EXPECT_EQ(app.state.selected_head, 2);
  EXPECT_NE(app.dump.Find("heads.enlarged"), nullptr);
  EXPECT_GT(renderer_.calls[Enlarged(2)], 0);
  Click("heads.view_side_by_side");
  Frames(3);
  ASSERT_TRUE(app.shown && app.shown->has_twin);
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
  uint64_t generation = app.shown->generation;
  app.state.config.temperature = 0.0f;
  Frames(2);
  EXPECT_NE(app.config_error.find("temperature"), std::string::npos) << app.config_error;
  EXPECT_EQ(app.shown->generation, generation);  // nothing submitted
  app.state.config.temperature = 1.0f;
  app.state.config.n_head = 999;
  Frames(2);
  EXPECT_NE(app.config_error.find("n_head"), std::string::npos) << app.config_error;
  app.state.config.n_head = 4;
  app.state.kv_text = "   ";
  Frames(3);
  EXPECT_FALSE(app.compute_error.empty());
  ASSERT_TRUE(app.shown);  // the last good maps stay
  EXPECT_EQ(app.dump.ToJson().find("nan"), std::string::npos);
  app.state.kv_text = "back to text";
  Frames(3);
  EXPECT_TRUE(app.compute_error.empty()) << app.compute_error;
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
  ASSERT_EQ(app.sentences.size(), 2u);
  EXPECT_EQ(app.state.recent_files.front(), path);
  Click("sentences.item.1");
  EXPECT_EQ(app.state.config.mode, AttentionMode::kCross);
  Frames(3);
  ASSERT_TRUE(app.shown);
  EXPECT_EQ(app.shown->tensors.n_q(), 5);  // Ich gehe nach Hause .
  EXPECT_EQ(app.shown->tensors.n_k(), 4);
  EXPECT_NE(app.dump.Find("sentences.query_text"), nullptr);
  EXPECT_NE(app.dump.Find("shapes.xq"), nullptr);
  // A file that does not exist: a message, nothing else changes.
  app.pending_drops.push_back(dir + "/missing.txt");
  Frames(2);
  EXPECT_TRUE(app.sentences_error);
  EXPECT_EQ(app.sentences.size(), 2u);
}

TEST_F(PanelTest, ExportButtonWritesThroughTheFigureLibrary) {
  App& app = MakeApp();
  std::string dir = TempDir();
  app.state.export_dir = dir;
  Frames(3);
  Click("export.format_csv");
  Export();
#ifdef ATTNVIZ_HAVE_FIGURE
  EXPECT_TRUE(app.export_ok) << app.export_message;
  Result<std::string> csv = ReadFile(app.export_path_written);
  ASSERT_TRUE(csv.ok()) << app.export_path_written;
  EXPECT_NE(csv->find("home"), std::string::npos);
  Click("export.target_saturation");
  Export();
  EXPECT_TRUE(app.export_ok) << app.export_message;
  EXPECT_NE(app.export_path_written.find("saturation.csv"), std::string::npos);  // CSV stays chosen
  Result<std::string> sweep_csv = ReadFile(app.export_path_written);
  ASSERT_TRUE(sweep_csv.ok());
  EXPECT_EQ(sweep_csv->rfind("d_k,scaled", 0), 0u);
  Click("export.format_png");
  Export();
  EXPECT_TRUE(app.export_ok) << app.export_message;
  EXPECT_NE(app.export_path_written.find("saturation.png"), std::string::npos);
#else
  EXPECT_FALSE(app.export_ok);
#endif
  // An unwritable folder: the error is reported, not thrown.
  app.state.export_dir = "/proc/attnviz-no-such-dir";
  Frames(1);
  Export();
  EXPECT_FALSE(app.export_ok);
  EXPECT_FALSE(app.export_message.empty());
}

TEST(ViewStateTest, RoundTripAndCorruptFileIsSetAside) {
  ViewState s;
  s.kv_text = "line one\nline two \\ back";
  s.config.d_k = 1024;
  s.config.scale = false;
  s.config.temperature = 0.25f;
  s.config.mask = MaskKind::kCausal;
  s.head_hidden[2] = true;
  s.colormap = Colormap::kMagma;
  s.AddRecentFile("/a.txt");
  s.AddRecentFile("/b.txt");
  Result<ViewState> back = ParseViewState(SerializeViewState(s));
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
  ASSERT_TRUE(WriteFileAtomic(path, "d_k = banana\n").ok());
  LoadedViewState loaded = LoadViewState(path);
  EXPECT_FALSE(loaded.restored);
  EXPECT_NE(loaded.message.find("corrupt"), std::string::npos);
  EXPECT_TRUE(ReadFile(path + ".corrupt").ok());
  EXPECT_FALSE(ReadFile(path).ok());
  EXPECT_EQ(loaded.state.config.d_k, 0);  // defaults
  ASSERT_TRUE(SaveViewState(dir + "/sub/settings.txt", s).ok());
  EXPECT_TRUE(LoadViewState(dir + "/sub/settings.txt").restored);
}

TEST(WorkerTest, AlwaysFinishesOnTheLatestRequest) {
  Worker worker;
  ComputeRequest r;
  r.kv_text = "the quick brown fox jumps over the lazy dog";
  for (int d_k = 1; d_k <= 2048; d_k *= 2) {
    r.config.d_k = d_k;
    worker.Submit(r);
  }
  ASSERT_TRUE(worker.WaitIdle(60.0));
  auto latest = worker.latest();
  ASSERT_TRUE(latest);
  EXPECT_TRUE(latest->status.ok()) << latest->status.message();
  EXPECT_EQ(latest->request.config.d_k, 2048);
  EXPECT_EQ(latest->generation, worker.submitted());
  EXPECT_FALSE(worker.computing());
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
  app_ = std::make_unique<App>(ViewState(), options, nullptr);
  App& app = *app_;
  Frames(3);
  EXPECT_EQ(app.state.lang, "ko");  // saved with the settings
  const WidgetDump::Widget* scale = app.dump.Find("controls.scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->label, Tr(Str::kScaleCheckbox, Lang::kKo));
  EXPECT_EQ(app.dump.Find("export.button")->label, "내보내기");
  EXPECT_NE(app.dump.ToJson().find("\"label\": \"격자\""), std::string::npos);
  ASSERT_TRUE(app.state.config.scale);
  Click("controls.scale");
  EXPECT_FALSE(app.state.config.scale);
  app.SetLanguage(Lang::kEn);
  Frames(2);
  EXPECT_EQ(app.dump.Find("controls.scale")->label, Tr(Str::kScaleCheckbox, Lang::kEn));
  Click("controls.scale");  // the same ImGui id in English
  EXPECT_TRUE(app.state.config.scale);
  EXPECT_EQ(app.state.lang, "en");
  // The choice survives a save and a restore.
  Result<ViewState> restored = ParseViewState(SerializeViewState(app.state));
  ASSERT_TRUE(restored.ok()) << restored.message();
  EXPECT_EQ(restored->lang, "en");
  EXPECT_FALSE(ParseViewState("lang = fr\n").ok());
}

}  // namespace
}  // namespace attnviz
