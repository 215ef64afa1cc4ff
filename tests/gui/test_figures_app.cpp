// The app's figures against attnviz-cli's (issue 13): for the same settings the Export panel writes the
// same bytes as `attnviz-cli export` / `sweep` (heads, visible heads, size/dpi/annotate, the saturation
// plot and its CSV); the default file names carry the mask; the Heads panel has a colorbar and wraps its
// captions instead of dropping figures; the saturation chart's top y label stays clear of its title.
#include <gtest/gtest.h>
#include <imgui.h>

#include <filesystem>
#include <map>
#include <string>

#include "app.h"
#include "app_driver.h"
#include "cli_runner.h"
#include "io/file_io.h"

namespace attnviz {
namespace {

class NullRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

const char* kText = "the cat saw the dog and the dog saw the cat .";

class AppFigureTest : public AppDriver<NullRenderer> {
 protected:
  void SetUp() override {
    AppDriver<NullRenderer>::SetUp();
    dir_ = (std::filesystem::temp_directory_path() / ("attnviz-fig-app-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    AppDriver<NullRenderer>::TearDown();
    std::filesystem::remove_all(dir_);
  }
  // The app on kText, causal, d_k 32, seed 3 (the CLI gets the same as options).
  App& MakeApp(ImVec2 display = ImVec2(1280, 800)) {
    ImGui::GetIO().DisplaySize = display;
    AppOptions options;
    options.input.text = kText;
    options.input.config.mask = MaskKind::kCausal;
    options.input.config.d_k = 32;
    options.input.config.seed = 3;
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    app_->settings.export_dir = dir_;
    Frames(4);
    return *app_;
  }
  std::vector<std::string> CliSettings() const {
    return {"--text", kText, "--mask", "causal", "--dk", "32", "--seed", "3"};
  }
  // The app's export (Export button) and the file it wrote.
  std::string AppExport() {
    Export();
    EXPECT_TRUE(app_->views.export_panel.ok) << app_->views.export_panel.message;
    Result<std::string> bytes = ReadFile(app_->views.export_panel.path_written);
    EXPECT_TRUE(bytes.ok()) << app_->views.export_panel.path_written;
    return bytes.ok() ? *bytes : "";
  }
  std::string CliExport(const std::string& command, std::vector<std::string> args, const std::string& out_flag,
                        const std::string& file) {
    std::vector<std::string> all = {command};
    for (const std::string& a : CliSettings()) all.push_back(a);
    all.insert(all.end(), args.begin(), args.end());
    all.push_back(out_flag);
    all.push_back(dir_ + "/" + file);
    cli_test::CliResult r = cli_test::Cli(all);
    EXPECT_EQ(r.code, 0) << r.err;
    Result<std::string> bytes = ReadFile(dir_ + "/" + file);
    return bytes.ok() ? *bytes : "";
  }
  std::string dir_;
};

#ifdef ATTNVIZ_HAVE_FIGURE
TEST_F(AppFigureTest, ExportPanelWritesTheSameBytesAsTheCli) {
  App& app = MakeApp();
  ASSERT_TRUE(app.results.shown);
  // One head: the default name carries the mask and the seed; the PNG equals attnviz-cli export's.
  app.settings.selected_head = 1;
  Frames(1);
  EXPECT_EQ(app.views.export_panel.file_name, "attnviz-head1-dk32-scaled-causal-seed3.png");
  std::string png = AppExport();
  ASSERT_FALSE(png.empty());
  // The panel's default dpi is 300 (a paper's figure); the CLI's stays 96 unless told.
  EXPECT_EQ(app.settings.export_dpi, 300);
  EXPECT_EQ(png, CliExport("export", {"--head", "1", "--dpi", "300"}, "--out", "cli-head1.png"));

  // Visible heads (head 1 hidden) = --heads 0,2,3; SVG this time.
  Click("export.target_heads");
  Click("export.format_svg");
  app.settings.head_hidden[1] = true;
  Frames(1);
  EXPECT_EQ(app.views.export_panel.file_name, "attnviz-heads-0-2-3-dk32-scaled-causal-seed3.svg");
  std::string svg = AppExport();
  EXPECT_NE(svg.find(">masked</text>"), std::string::npos);
  EXPECT_EQ(svg, CliExport("export", {"--heads", "0,2-3", "--dpi", "300"}, "--out", "cli-heads.svg"));
  // PDF: the same bytes as attnviz-cli export's .pdf.
  Click("export.format_pdf");
  EXPECT_EQ(app.views.export_panel.file_name, "attnviz-heads-0-2-3-dk32-scaled-causal-seed3.pdf");
  std::string pdf = AppExport();
  EXPECT_EQ(pdf.rfind("%PDF-1.4\n", 0), 0u);
  EXPECT_TRUE(pdf == CliExport("export", {"--heads", "0,2-3", "--dpi", "300"}, "--out", "cli-heads.pdf"))
      << "the app's PDF is not attnviz-cli export's";

  // The panel's title, size, dpi and annotate = --title --size --dpi --annotate.
  Click("export.target_head");
  Click("export.format_png");
  ASSERT_NE(app.dump.Find("export.size"), nullptr);
  ASSERT_NE(app.dump.Find("export.dpi"), nullptr);
  ASSERT_NE(app.dump.Find("export.annotate"), nullptr);
  ASSERT_NE(app.dump.Find("export.title"), nullptr);
  app.settings.selected_head = 2;
  app.settings.export_title = "Figure 3";
  app.settings.export_size = "8.382x7.62cm";
  app.settings.export_dpi = 300;
  app.settings.export_annotate = true;
  Frames(1);
  png = AppExport();
  EXPECT_EQ(png, CliExport("export", {"--head", "2", "--title", "Figure 3", "--size", "3.3x3in", "--dpi", "300",
                                      "--annotate"},
                           "--out", "cli-print.png"));
  EXPECT_NE(png.find("pHYs"), std::string::npos);
  // A bad size is reported in the panel, and the export fails with that message.
  app.settings.export_size = "3x3";
  Frames(1);
  Export();
  EXPECT_FALSE(app.views.export_panel.ok);
  EXPECT_NE(app.views.export_panel.message.Render().find("3.3x3in"), std::string::npos) << app.views.export_panel.message;
  app.settings.export_size.clear();
  app.settings.export_title.clear();

  // The saturation plot and its CSV: the one sweep definition, the same title, the d_k marked.
  Click("export.target_saturation");
  Click("export.format_csv");
  EXPECT_EQ(app.views.export_panel.file_name, "attnviz-saturation-causal-seed3.csv");
  std::string csv = AppExport();
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv, CliExport("sweep", {}, "--out", "cli-sweep.csv"));
  Click("export.format_png");
  std::string plot = AppExport();
  EXPECT_EQ(plot, CliExport("sweep", {}, "--plot", "cli-sweep.png"));
  Click("export.format_pdf");
  plot = AppExport();
  EXPECT_TRUE(plot == CliExport("sweep", {}, "--plot", "cli-sweep.pdf")) << "the app's saturation PDF is not the CLI's";
}

TEST_F(AppFigureTest, UnmaskedAndCausalDefaultNamesDiffer) {
  App& app = MakeApp();
  const std::string causal = app.views.export_panel.file_name;
  app.settings.config.mask = MaskKind::kNone;
  Frames(2);
  EXPECT_NE(app.views.export_panel.file_name, causal);
  EXPECT_EQ(app.views.export_panel.file_name, "attnviz-head0-dk32-scaled-seed3.png");
}
#endif

TEST_F(AppFigureTest, HeadsPanelHasAColorbarAndWrapsNarrowCaptions) {
  // A narrow window and 16 heads: maps too narrow for the caption on one line.
  App& app = MakeApp(ImVec2(900, 700));
  app.settings.config.n_head = 16;
  app.settings.config.d_k = 8;
  Frames(4);
  const WidgetDump::Widget* bar = app.dump.Find("heads.colorbar");
  ASSERT_NE(bar, nullptr);
  EXPECT_GT(bar->y1 - bar->y0, 20.0f);
  EXPECT_NE(bar->value_json.find("\"1.0\""), std::string::npos) << bar->value_json;
  EXPECT_NE(bar->value_json.find("\"masked\": true"), std::string::npos) << bar->value_json;
  const WidgetDump::Widget* map = app.dump.Find("heads.map.15");
  ASSERT_NE(map, nullptr);
  EXPECT_GE(bar->x0, map->x1) << "the colorbar sits right of the maps";
  const WidgetDump::Widget* caption = app.dump.Find("heads.map.15.caption");
  ASSERT_NE(caption, nullptr);
  EXPECT_NE(caption->value_json.find("H "), std::string::npos) << caption->value_json;
  EXPECT_NE(caption->value_json.find("\xE2\x88\x87 "), std::string::npos) << caption->value_json;
  EXPECT_NE(caption->value_json.find("\", \""), std::string::npos) << "wrapped onto lines: " << caption->value_json;
  EXPECT_TRUE(caption->visible) << "every caption line fits the room left for it";
  // Captions end above the next row of maps.
  const WidgetDump::Widget* first = app.dump.Find("heads.map.0.caption");
  const WidgetDump::Widget* below = nullptr;
  for (int h = 1; h < 16 && !below; ++h) {
    const WidgetDump::Widget* m = app.dump.Find("heads.map." + std::to_string(h));
    if (m && m->y0 > first->y0) below = m;
  }
  ASSERT_NE(below, nullptr);
  EXPECT_LE(first->y1, below->y0);
}

TEST_F(AppFigureTest, SaturationTopLabelClearsTheChartTitle) {
  App& app = MakeApp();
  Frames(2);
  for (const char* chart : {"max_weight", "norm_entropy", "grad_norm"}) {
    const WidgetDump::Widget* title = app.dump.Find(std::string("saturation.") + chart + ".title");
    const WidgetDump::Widget* label = app.dump.Find(std::string("saturation.") + chart + ".y_max");
    ASSERT_NE(title, nullptr) << chart;
    ASSERT_NE(label, nullptr) << chart;
    // Both start at the chart's left edge: the label's line box must start clearly below the title's
    // (a few pixels of air; glyphs reach past their line box, so touching boxes read as overlapping).
    ASSERT_LT(label->x0, title->x1) << chart;
    EXPECT_GE(label->y0 - title->y1, 3.0f) << chart << ": label " << label->value_json << " at y " << label->y0
                                           << ".." << label->y1 << ", title y " << title->y0 << ".." << title->y1;
  }
}

}  // namespace
}  // namespace attnviz
