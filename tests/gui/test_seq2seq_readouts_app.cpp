// What an encoder-decoder run computes, in the app's Overview (no GL), on the t5 fixture of
// tests/fixtures/seq2seq/t5 with its reference source and target: the logit lens grid has a row per decoder layer
// (and the embeddings) and a column per decoder position, each cell's value the float64 reference's p(label); the
// attribution grid holds core's Seq2SeqAttributeLogit values (decoder heads, cross heads, MLP) and hover shows the
// signed value; a post-norm model (marian) says why it has none; patching from a clean source shows core's grids of
// the three stacks and both streams, and a clean source of another length is refused naming both counts.
#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <unistd.h>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "app.h"
#include "app_driver.h"
#include "headless_imgui.h"
#include "io/file_io.h"
#include "io/npy.h"
#include "model/seq2seq_attribution.h"
#include "model/seq2seq_patching.h"
#include "session/loaded_model.h"  // TokenIds
#include "signed_grid.h"

namespace attnviz {
namespace {

using nlohmann::json;

class NoRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

std::string CaseDir(const std::string& name) {
  return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/seq2seq/" + name;
}

json ReadJson(const std::string& path) {
  auto text = ReadFile(path);
  EXPECT_TRUE(text) << path;
  return text ? json::parse(*text) : json();
}

// The t5 reference's source with its two times swapped: as many tokens.
constexpr const char* kCleanSource =
    "summarize: The train leaves the station at noon, and the meeting starts at nine.";

// The numbers of a CSV of grids, row by row of each block (its header line and the row labels left out).
std::vector<std::vector<std::vector<double>>> CsvBlocks(const std::string& csv) {
  std::vector<std::vector<std::vector<double>>> blocks(1);
  std::istringstream in(csv);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty()) {
      blocks.emplace_back();
      header = true;
    } else if (header) {
      header = false;
    } else {
      std::vector<double> row;
      std::istringstream fields(line);
      std::string field;
      std::getline(fields, field, ',');
      while (std::getline(fields, field, ',')) row.push_back(field.empty() ? std::nan("") : std::stod(field));
      blocks.back().push_back(row);
    }
  }
  return blocks;
}

class Seq2SeqReadoutsAppTest : public AppDriver<NoRenderer> {
 protected:
  void SetUp() override {
    AppDriver<NoRenderer>::SetUp();
    dir_ = (std::filesystem::temp_directory_path() / ("attnviz-s2s-readouts-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    AppDriver<NoRenderer>::TearDown();
    std::filesystem::remove_all(dir_);
  }
  // The Overview's grids as a CSV through the Export panel: its blocks of numbers.
  std::vector<std::vector<std::vector<double>>> ExportCsv() {
    app_->settings.export_dir = dir_;
    app_->settings.export_target = ExportTarget::kOverview;
    app_->settings.export_format = ExportFormat::kCsv;
    Frames(1);
    Export();
    EXPECT_TRUE(app_->views.export_panel.ok) << app_->views.export_panel.message.Render();
    Result<std::string> csv = ReadFile(app_->views.export_panel.path_written);
    EXPECT_TRUE(csv);
    return csv ? CsvBlocks(*csv) : std::vector<std::vector<std::vector<double>>>();
  }
  App& MakeApp(const std::string& name = "t5") {
    ImGui::GetIO().DisplaySize = ImVec2(1600, 1400);
    tokens_ = ReadJson(CaseDir(name) + "/reference/tokens.json");
    AppOptions options;
    options.input.text = tokens_["source_text"].get<std::string>();
    options.input.model_dir = CaseDir(name);
    options.widgets_json_path = "(memory)";
    options.no_settings = true;
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    WaitForRun();
    app_->views.seq2seq.target_text = tokens_["target_text"].get<std::string>();
    WaitForRun();
    EXPECT_TRUE(app_->results.seq2seq && app_->results.seq2seq->complete());
    return *app_;
  }
  void WaitForRun() {
    for (int i = 0; i < 3000 && (app_->seq2seqs->busy() || i < 2); ++i) {
      app_->seq2seqs->WaitIdle(0.05);
      Frame();
    }
    Frames(3);
  }
  // Frames until the readouts asked for are made and shown.
  void WaitForReadouts() {
    for (int i = 0; i < 3000; ++i) {
      const Seq2SeqReadoutJobs& j = *app_->seq2seq_readouts;
      if (!j.lens_busy() && !j.attribution_busy() && !j.patching_busy() && i >= 2) break;
      j.WaitIdle(0.05);
      Frame();
    }
    Frames(3);
  }
  json Field(const std::string& name) {
    const std::string text = app_->dump.Field(name);
    EXPECT_FALSE(text.empty()) << "no dump field " << name;
    return text.empty() ? json() : json::parse(text);
  }
  void Hover(const std::string& widget) {
    const WidgetDump::Widget* w = app_->dump.Find(widget);
    ASSERT_NE(w, nullptr) << widget;
    ImGui::GetIO().MousePos = ImVec2((w->x0 + w->x1) * 0.5f, (w->y0 + w->y1) * 0.5f);
    Frames(2);
  }
  // Patching from kCleanSource with A, B the labels at decoder positions 3 and 5, run from the panel; core's scan of
  // the same ids (what the panel should show).
  Result<model::Seq2SeqPatching> RunPatchingFromTheCleanSource() {
    const Seq2SeqResult& run = *app_->results.seq2seq;
    const int a = run.labels[3], b = run.labels[5];
    app_->views.overview.patch_clean = kCleanSource;
    app_->views.overview.patch_a = std::to_string(a);
    app_->views.overview.patch_b = std::to_string(b);
    Frames(1);
    Click("patch.run");
    WaitForReadouts();
    auto clean = run.folder->tokenizers.source->Encode(kCleanSource);
    if (!clean) return clean.status();
    return model::Seq2SeqPatchActivations(*run.folder->model, TokenIds(*clean), TokenIds(run.source_tokens),
                                          TokenIds(run.decoder_tokens), a, b);
  }
  json tokens_;
  std::string dir_;
};

TEST_F(Seq2SeqReadoutsAppTest, TheLensGridIsTheReferencesPerDecoderLayerAndPosition) {
  App& app = MakeApp();
  Click("overview.show_lens");
  WaitForReadouts();
  ASSERT_EQ(app.dump.Find("overview.cross.0.0"), nullptr) << "the three grids make way for the lens";
  const json lens = Field("lens");
  auto logits = ReadNpy(CaseDir("t5") + "/reference/lens_logits.npy");  // [L + 1, n_tgt, V]
  ASSERT_TRUE(logits.ok());
  const int L1 = (int)logits->dim(0), n_tgt = (int)logits->dim(1), V = (int)logits->dim(2);
  const std::vector<int> labels = tokens_["labels"];
  ASSERT_EQ(lens["count"], n_tgt);
  ASSERT_EQ((int)lens["cells"].size(), L1);
  for (int l = 0; l < L1; ++l)
    for (int i = 0; i < n_tgt; ++i) {
      const float* row = logits->data.data() + ((size_t)l * n_tgt + i) * V;
      double mx = row[0], sum = 0;
      for (int j = 0; j < V; ++j) mx = std::max(mx, (double)row[j]);
      for (int j = 0; j < V; ++j) sum += std::exp((double)row[j] - mx);
      const json& cell = lens["cells"][l][i];  // [top id, p(label)]
      EXPECT_NEAR(cell[1].get<double>(), std::exp((double)row[labels[(size_t)i]] - mx) / sum, 2e-5) << l << " " << i;
      EXPECT_NE(app.dump.Find("lens.cell." + std::to_string(l) + "." + std::to_string(i)), nullptr);
    }
  // Hover: the layer, the position's token and what it should predict.
  Hover("lens.cell.1.2");
  const WidgetDump::Widget* cell = app.dump.Find("lens.cell.1.2");
  ASSERT_TRUE(cell && cell->hovered);
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  // Export: the grid's values.
  const auto blocks = ExportCsv();
  ASSERT_EQ(blocks.size(), 1u);
  ASSERT_EQ((int)blocks[0].size(), L1);
  for (int l = 0; l < L1; ++l)
    for (int i = 0; i < n_tgt; ++i)
      EXPECT_DOUBLE_EQ(blocks[0][l][i], app.results.seq2seq_lens->layers[(size_t)l].positions[(size_t)i].next_prob);
}

TEST_F(Seq2SeqReadoutsAppTest, TheAttributionGridIsCoresDecoderAndCrossHeadsAndHoverShowsTheValue) {
  App& app = MakeApp();
  Click("overview.show_attribution");
  WaitForReadouts();
  const Seq2SeqResult& run = *app.results.seq2seq;
  const model::Seq2SeqModel& m = *run.folder->model;
  const int n = (int)run.decoder_tokens.size(), L = m.config().decoder.n_layer, H = m.config().decoder.n_head;
  auto core = model::Seq2SeqAttributeLogit(m, TokenIds(run.source_tokens), TokenIds(run.decoder_tokens), n - 1,
                                           run.labels.back());
  ASSERT_TRUE(core.ok()) << core.message();
  const json grid = Field("attrib");
  ASSERT_EQ(grid["rows"], L);
  ASSERT_EQ(grid["cols"], 2 * H + 1);  // decoder heads, cross heads, the MLP
  double sum = 0;
  int heads = 0;
  for (const model::Seq2SeqLogitComponent& c : core->components) {
    sum += c.value;
    if (c.kind == model::ComponentKind::kHead) {
      const int col = (c.stack == model::Seq2SeqStack::kCross ? H : 0) + c.head;
      EXPECT_DOUBLE_EQ(grid["values"][c.layer][col].get<double>(), c.value) << c.layer << " " << col;
      ++heads;
    }
    if (c.kind == model::ComponentKind::kMlp) {
      EXPECT_DOUBLE_EQ(grid["values"][c.layer][2 * H].get<double>(), c.value);
    }
  }
  EXPECT_EQ(heads, 2 * L * H);
  const json line = Field("attribution");
  EXPECT_EQ(line["position"], n - 1);
  EXPECT_EQ(line["target"], run.labels.back());
  EXPECT_DOUBLE_EQ(line["logit"].get<double>(), core->logit);
  EXPECT_NEAR(line["sum"].get<double>(), sum, 1e-9);
  EXPECT_NEAR(sum, core->logit, 1e-3 * std::max(1.0, std::abs(core->logit)));
  // Hover a cross head: its stack and signed value.
  const double v = grid["values"][1][H + 1].get<double>();
  const std::string name = "attrib.cell.1." + std::to_string(H + 1);
  Hover(name);
  const WidgetDump::Widget* cell = app.dump.Find(name);
  ASSERT_TRUE(cell && cell->hovered);
  const std::string tip = json::parse(cell->value_json)["tip"];
  EXPECT_NE(tip.find(SignedText(v)), std::string::npos) << tip;
  EXPECT_NE(tip.find(Tr(Str::kSeq2SeqCrossAttention)), std::string::npos) << tip;
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  // Another position and a typed target (an id).
  app.views.overview.attrib_position = 2;
  app.views.overview.attrib_target = "7";
  Frames(1);
  WaitForReadouts();
  EXPECT_EQ(Field("attribution")["position"], 2);
  EXPECT_EQ(Field("attribution")["target"], 7);
}

TEST_F(Seq2SeqReadoutsAppTest, APostNormModelSaysWhyItHasNoAttribution) {
  App& app = MakeApp("marian");
  Click("overview.show_attribution");
  WaitForReadouts();
  const std::string error = Field("attrib_error");
  EXPECT_NE(error.find("marian"), std::string::npos) << error;
  EXPECT_EQ(app.dump.Find("attrib.cell.0.0"), nullptr);
}

TEST_F(Seq2SeqReadoutsAppTest, PatchingGridsAreCoresAndOtherLengthsAreRefused) {
  App& app = MakeApp();
  Click("overview.show_patching");
  Frames(1);
  EXPECT_EQ(app.views.overview.patch_clean, tokens_["source_text"].get<std::string>());  // to edit into the clean one
  const Seq2SeqResult& run = *app.results.seq2seq;
  auto core = RunPatchingFromTheCleanSource();
  ASSERT_TRUE(core.ok()) << core.message();
  const json line = Field("patching");
  EXPECT_EQ(line["complete"], true);
  EXPECT_NEAR(line["clean"].get<double>(), core->clean, 1e-6 * std::max(1.0, std::abs(core->clean)));
  const std::pair<const char*, const std::vector<double>*> grids[] = {
      {"patch.encoder_heads", &core->encoder_heads}, {"patch.decoder_heads", &core->decoder_heads},
      {"patch.cross_heads", &core->cross_heads}, {"patch.encoder_residual", &core->encoder_residual},
      {"patch.decoder_residual", &core->decoder_residual}};
  for (const auto& [name, want] : grids) {
    const json g = Field(name);
    const int cols = g["cols"];
    ASSERT_EQ((size_t)g["rows"].get<int>() * cols, want->size()) << name;
    for (size_t k = 0; k < want->size(); ++k)
      EXPECT_DOUBLE_EQ(g["values"][k / cols][k % cols].get<double>(), (*want)[k]) << name << " " << k;
  }
  EXPECT_EQ(Field("patch.encoder_residual")["cols"], (int)run.source_tokens.size());
  EXPECT_EQ(Field("patch.decoder_residual")["cols"], (int)run.decoder_tokens.size());
  // A clean source of another length: refused, both counts named.
  app.views.overview.patch_clean = "summarize: nine.";
  Frames(1);
  Click("patch.run");
  WaitForReadouts();
  auto short_clean = run.folder->tokenizers.source->Encode("summarize: nine.");
  ASSERT_TRUE(short_clean.ok());
  const std::string error = Field("patch_error");
  EXPECT_NE(error.find(std::to_string(short_clean->size())), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(run.source_tokens.size())), std::string::npos) << error;
}

TEST_F(Seq2SeqReadoutsAppTest, PatchingExportsItsFiveGridsAsCsv) {
  App& app = MakeApp();
  Click("overview.show_patching");
  Frames(1);
  auto core = RunPatchingFromTheCleanSource();
  ASSERT_TRUE(core.ok()) << core.message();
  const auto blocks = ExportCsv();
  ASSERT_EQ(blocks.size(), 5u);
  const std::vector<double>* want[5] = {&core->encoder_heads, &core->decoder_heads, &core->cross_heads,
                                        &core->encoder_residual, &core->decoder_residual};
  for (int k = 0; k < 5; ++k) {
    std::vector<double> got;
    for (const auto& row : blocks[(size_t)k]) got.insert(got.end(), row.begin(), row.end());
    ASSERT_EQ(got.size(), want[k]->size()) << "grid " << k;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], (*want[k])[i]) << "grid " << k << " " << i;
  }
  // A figure: the cross-attention heads, or the encoder's stream as chosen; different images.
  app.settings.export_format = ExportFormat::kPng;
  Frames(1);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> heads_png = ReadFile(app.views.export_panel.path_written);
  app.views.overview.patching_figure = OverviewPanelView::PatchingFigure::kResidual;
  Frames(1);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message.Render();
  Result<std::string> stream_png = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(heads_png && stream_png);
  EXPECT_EQ(heads_png->substr(0, 4), "\x89PNG");
  EXPECT_EQ(stream_png->substr(0, 4), "\x89PNG");
  EXPECT_NE(*heads_png, *stream_png);
}

}  // namespace
}  // namespace attnviz
