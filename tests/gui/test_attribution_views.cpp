// The Overview's direct logit attribution and activation patching as the app shows them (no GL): the grids have a
// cell per layer x head (plus the MLP column), their values are core's model::AttributeLogit and
// model::PatchActivations of the shown run, the hover names the signed value, a typed target that is no token is
// refused, patching texts of different lengths are refused naming both counts, and the Export panel writes the
// grid the Overview shows (its CSV values are core's). The model is the GPT-2 fixture of
// tests/fixtures/models_e2e/gpt2 (3 layers x 4 heads).
#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "app.h"
#include "app_driver.h"
#include "io/file_io.h"
#include "model/attribution.h"
#include "model/patching.h"
#include "signed_grid.h"

namespace attnviz {
namespace {

using nlohmann::json;

class NoRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

const char* kCorrupted = "The dog sat on the mat and the cat sat on the log.";
const char* kClean = "The cat sat on the mat and the dog sat on the log.";

class AttributionViewsTest : public AppDriver<NoRenderer> {
 protected:
  void SetUp() override {
    AppDriver<NoRenderer>::SetUp();
    dir_ = (std::filesystem::temp_directory_path() / ("attnviz-attrib-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    AppDriver<NoRenderer>::TearDown();
    std::filesystem::remove_all(dir_);
  }
  App& MakeApp(const std::string& text) {
    ImGui::GetIO().DisplaySize = ImVec2(1600, 1400);  // the Overview tall enough for both patching grids
    AppOptions options;
    options.input.text = text;
    options.input.model_dir = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/gpt2";
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    app_->settings.export_dir = dir_;
    Frames(4);
    return *app_;
  }
  json Field(const std::string& name) {
    const std::string text = app_->dump.Field(name);
    EXPECT_FALSE(text.empty()) << "no dump field " << name;
    return text.empty() ? json() : json::parse(text);
  }
  // Frames until the attribution and patching jobs are idle, then two more to show their results.
  void WaitForJobs() {
    for (int i = 0; i < 3000 && (app_->attributions->busy() || app_->patchings->busy()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Frame();
    }
    Frames(2);
  }
  std::vector<int> ShownIds() {
    auto prepared = PrepareModelRun(app_->results.model->request);
    EXPECT_TRUE(prepared) << prepared.message();
    return prepared ? prepared->ids : std::vector<int>();
  }
  void Hover(const std::string& widget) {
    const WidgetDump::Widget* w = app_->dump.Find(widget);
    ASSERT_NE(w, nullptr) << widget;
    ImGui::GetIO().MousePos = ImVec2((w->x0 + w->x1) * 0.5f, (w->y0 + w->y1) * 0.5f);
    Frames(2);
  }
  std::string dir_;
};

// The CSV's numbers, row by row, of its blocks (the header and label columns left out).
std::vector<std::vector<std::vector<double>>> CsvBlocks(const std::string& csv) {
  std::vector<std::vector<std::vector<double>>> blocks(1);
  std::istringstream in(csv);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty()) {
      blocks.emplace_back();
      header = true;
      continue;
    }
    if (header) {
      header = false;
      continue;
    }
    std::vector<double> row;
    std::istringstream fields(line);
    std::string field;
    std::getline(fields, field, ',');  // the row's label
    while (std::getline(fields, field, ',')) row.push_back(field.empty() ? std::nan("") : std::stod(field));
    blocks.back().push_back(row);
  }
  return blocks;
}

TEST_F(AttributionViewsTest, TheAttributionGridHasACellPerLayerAndHeadWithCoresValues) {
  App& app = MakeApp(kClean);
  ASSERT_TRUE(app.results.model && app.results.model->complete());
  Click("overview.show_attribution");
  WaitForJobs();
  ASSERT_EQ(app.dump.Find("overview.map.0.0"), nullptr) << "the maps make way for the attribution";
  const std::vector<int> ids = ShownIds();
  auto core = model::AttributeLogit(*app.results.model->request.folder->model, ids, (int)ids.size() - 1);
  ASSERT_TRUE(core) << core.message();
  json grid = Field("attrib");
  ASSERT_EQ(grid["rows"], 3);
  ASSERT_EQ(grid["cols"], 5);  // 4 heads and the MLP
  for (int l = 0; l < 3; ++l)
    for (int h = 0; h < 5; ++h) EXPECT_NE(app.dump.Find("attrib.cell." + std::to_string(l) + "." + std::to_string(h)), nullptr);
  EXPECT_EQ(app.dump.Find("attrib.cell.3.0"), nullptr);
  EXPECT_EQ(app.dump.Find("attrib.cell.0.5"), nullptr);
  double sum = 0;
  for (const model::LogitComponent& c : core->components) {
    sum += c.value;
    if (c.kind == model::ComponentKind::kHead) {
      EXPECT_DOUBLE_EQ(grid["values"][c.layer][c.head].get<double>(), c.value);
    }
    if (c.kind == model::ComponentKind::kMlp) {
      EXPECT_DOUBLE_EQ(grid["values"][c.layer][4].get<double>(), c.value);
    }
  }
  json line = Field("attribution");
  EXPECT_EQ(line["target"], core->target);
  EXPECT_DOUBLE_EQ(line["logit"].get<double>(), core->logit);
  EXPECT_NEAR(line["sum"].get<double>(), sum, 1e-9);
  // The colours are symmetric around 0: the range is the largest |value| drawn.
  EXPECT_GT(grid["range"].get<double>(), 0.0);
  // Hover: the signed value.
  const double v = grid["values"][1][2].get<double>();
  Hover("attrib.cell.1.2");
  const WidgetDump::Widget* cell = app.dump.Find("attrib.cell.1.2");
  ASSERT_TRUE(cell->hovered);
  const json tip = json::parse(cell->value_json);
  EXPECT_NE(tip["tip"].get<std::string>().find(SignedText(v)), std::string::npos) << tip["tip"];
  EXPECT_NE(SignedText(v).find(v < 0 ? '-' : '+'), std::string::npos);
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  // A typed target: an id is taken, a text that is no one token is refused with a clear message.
  app.views.overview.attrib_target = "17";
  Frames(1);
  WaitForJobs();
  EXPECT_EQ(Field("attribution")["target"], 17);
  app.views.overview.attrib_target = "cat sat on";
  Frames(1);
  const std::string error = Field("attrib_target_error").get<std::string>();
  EXPECT_NE(error.find("cat sat on"), std::string::npos) << error;
  // The position slider: another position, core's value there.
  app.views.overview.attrib_target.clear();
  app.views.overview.attrib_position = 3;
  Frames(1);
  WaitForJobs();
  EXPECT_EQ(Field("attribution")["position"], 3);
}

TEST_F(AttributionViewsTest, AnExportOfTheAttributionWritesCoresValues) {
  App& app = MakeApp(kClean);
  Click("overview.show_attribution");
  WaitForJobs();
  app.settings.export_target = ExportTarget::kOverview;
  app.settings.export_format = ExportFormat::kCsv;
  Frames(1);
  EXPECT_NE(app.views.export_panel.file_name.find("attribution.csv"), std::string::npos) << app.views.export_panel.file_name;
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> csv = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(csv) << csv.message();
  const std::vector<int> ids = ShownIds();
  auto core = model::AttributeLogit(*app.results.model->request.folder->model, ids, (int)ids.size() - 1);
  ASSERT_TRUE(core);
  const auto blocks = CsvBlocks(*csv);
  ASSERT_EQ(blocks.size(), 2u);
  ASSERT_EQ(blocks[0].size(), 3u);
  double sum = 0;
  for (const auto& row : blocks[0]) for (double x : row) sum += x;
  for (double x : blocks[1][0]) sum += x;
  for (const model::LogitComponent& c : core->components) {
    if (c.kind == model::ComponentKind::kHead) {
      EXPECT_DOUBLE_EQ(blocks[0][c.layer][c.head], c.value);
    }
    if (c.kind == model::ComponentKind::kMlp) {
      EXPECT_DOUBLE_EQ(blocks[0][c.layer][4], c.value);
    }
    if (c.kind == model::ComponentKind::kEmbed) {
      EXPECT_DOUBLE_EQ(blocks[1][0][0], c.value);
    }
    if (c.kind == model::ComponentKind::kNormBias) {
      EXPECT_DOUBLE_EQ(blocks[1][0][2], c.value);
    }
  }
  EXPECT_NEAR(sum, core->logit, 1e-3 * std::max(1.0, std::fabs(core->logit)));  // the parts add up to the logit
  // The same grid as a PNG, twice: the same bytes.
  app.settings.export_format = ExportFormat::kPng;
  app.views.export_panel.file_name = "a.png";
  Frames(1);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> png = ReadFile(dir_ + "/a.png");
  app.views.export_panel.file_name = "b.png";
  Frames(1);
  Export();
  Result<std::string> again = ReadFile(dir_ + "/b.png");
  ASSERT_TRUE(png && again);
  EXPECT_EQ(png->substr(0, 4), "\x89PNG");
  EXPECT_EQ(*png, *again);
}

TEST_F(AttributionViewsTest, PatchingTextsOfDifferentLengthsAreRefusedNamingBothCounts) {
  App& app = MakeApp(kCorrupted);
  Click("overview.show_patching");
  Frames(1);
  const int corrupted_n = (int)app.results.model->tokens.size();
  app.views.overview.patch_clean = "The cat sat.";
  app.views.overview.patch_a = "7";
  app.views.overview.patch_b = "11";
  Frames(1);
  Click("patch.run");
  WaitForJobs();
  auto clean = TokenizeForModel(*app.results.model->request.folder, "The cat sat.");
  ASSERT_TRUE(clean);
  const std::string error = Field("patch_error").get<std::string>();
  EXPECT_NE(error.find(std::to_string(clean->size())), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(corrupted_n)), std::string::npos) << error;
}

TEST_F(AttributionViewsTest, ThePatchingGridsAreCoresScanAndExportAsCsv) {
  App& app = MakeApp(kCorrupted);
  Click("overview.show_patching");
  Frames(1);
  EXPECT_EQ(app.views.overview.patch_clean, kCorrupted);  // the shown text to edit into the clean one
  app.views.overview.patch_clean = kClean;
  app.views.overview.patch_a = "7";
  app.views.overview.patch_b = "11";
  Frames(1);
  Click("patch.run");
  WaitForJobs();
  const ModelFolder& folder = *app.results.model->request.folder;
  auto clean = TokenizeForModel(folder, kClean);
  ASSERT_TRUE(clean);
  auto core = model::PatchActivations(*folder.model, TokenIds(*clean), ShownIds(), 7, 11);
  ASSERT_TRUE(core) << core.message();
  json heads = Field("patch.heads");
  ASSERT_EQ(heads["rows"], 3);
  ASSERT_EQ(heads["cols"], 4);
  for (int l = 0; l < 3; ++l)
    for (int h = 0; h < 4; ++h) {
      EXPECT_NE(app.dump.Find("patch.heads.cell." + std::to_string(l) + "." + std::to_string(h)), nullptr);
      EXPECT_DOUBLE_EQ(heads["values"][l][h].get<double>(), core->Head(l, h)) << l << " " << h;
    }
  json res = Field("patch.residual");
  ASSERT_EQ(res["rows"], 4);
  ASSERT_EQ(res["cols"], core->n);
  EXPECT_DOUBLE_EQ(res["values"][3][core->n - 1].get<double>(), core->Residual(3, core->n - 1));
  // The residual grid is wider than the panel: the cells in sight are drawn, the rest only listed in the dump.
  const WidgetDump::Widget* first = app.dump.Find("patch.residual.cell.0.0");
  const WidgetDump::Widget* last = app.dump.Find("patch.residual.cell.0." + std::to_string(core->n - 1));
  ASSERT_NE(first, nullptr);
  ASSERT_NE(last, nullptr);
  EXPECT_TRUE(first->visible);
  EXPECT_FALSE(last->visible) << "the last position's cell lies past the panel's right edge";
  EXPECT_GT(last->x0, app.dump.Find("panel.Overview")->x1);
  Hover("patch.heads.cell.2.1");
  const json tip = json::parse(app.dump.Find("patch.heads.cell.2.1")->value_json);
  EXPECT_NE(tip["tip"].get<std::string>().find(SignedText(core->Head(2, 1))), std::string::npos) << tip["tip"];
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  // Export: both grids, core's values.
  app.settings.export_target = ExportTarget::kOverview;
  app.settings.export_format = ExportFormat::kCsv;
  Frames(1);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> csv = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(csv);
  const auto blocks = CsvBlocks(*csv);
  ASSERT_EQ(blocks.size(), 2u);
  for (int l = 0; l < 3; ++l)
    for (int h = 0; h < 4; ++h) EXPECT_DOUBLE_EQ(blocks[0][l][h], core->Head(l, h));
  for (int l = 0; l <= 3; ++l)
    for (int p = 0; p < core->n; ++p) EXPECT_DOUBLE_EQ(blocks[1][l][p], core->Residual(l, p)) << l << " " << p;
}

// A figure of patching draws the grid chosen beside the Export button (the CSV holds both), blue below 0, white at 0
// and red above as the Overview does (whatever colour map the maps use), with the axis words and title in the UI's
// language.
TEST_F(AttributionViewsTest, PatchingFiguresDrawTheChosenGridInBlueWhiteRedInTheUisLanguage) {
  App& app = MakeApp(kCorrupted);
  Click("overview.show_patching");
  Frames(1);
  app.views.overview.patch_clean = kClean;
  app.views.overview.patch_a = "7";
  app.views.overview.patch_b = "11";
  Frames(1);
  Click("patch.run");
  WaitForJobs();
  app.settings.export_target = ExportTarget::kOverview;
  app.settings.export_format = ExportFormat::kSvg;
  app.settings.colormap = Colormap::kMagma;
  Frames(1);
  EXPECT_NE(app.views.export_panel.file_name.find("-patching.svg"), std::string::npos) << app.views.export_panel.file_name;
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> heads = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(heads);
  // The strongest cell is the full colour of its sign; magma's ends are nowhere.
  EXPECT_TRUE(heads->find("#b40426") != std::string::npos || heads->find("#3b4cc0") != std::string::npos);
  EXPECT_EQ(heads->find("#fcfdbf"), std::string::npos);
  EXPECT_NE(heads->find("patching heads"), std::string::npos);
  Click("export.patching_residual");
  Frames(1);
  EXPECT_NE(app.views.export_panel.file_name.find("-patching-residual.svg"), std::string::npos)
      << app.views.export_panel.file_name;
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> residual = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(residual);
  EXPECT_NE(residual->find("patching the residual stream"), std::string::npos);
  EXPECT_NE(residual->find(">position<"), std::string::npos);
  // In Korean: the title and the axes in Korean.
  app.SetLanguage(Lang::kKo);
  app.views.export_panel.file_name = "ko.svg";
  Frames(1);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> ko = ReadFile(dir_ + "/ko.svg");
  ASSERT_TRUE(ko);
  EXPECT_NE(ko->find("잔차 스트림 패칭"), std::string::npos);
  EXPECT_NE(ko->find(">위치<"), std::string::npos);
  EXPECT_EQ(ko->find(">position<"), std::string::npos);
  app.SetLanguage(Lang::kEn);
}

}  // namespace
}  // namespace attnviz
