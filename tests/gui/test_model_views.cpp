// What the model computes, as the app shows it (no GL): the tokens coloured by their loss and by its change under an
// ablation (app/gui/token_loss.*, the Model panel), zero or mean ablation chosen in the panel, and the Overview's
// logit lens (app/gui/panel_lens.cpp over core/session/lens_job.*). The model is the torch-checked GPT-2 fixture of
// tests/fixtures/models_e2e/gpt2 (3 layers x 4 heads).
#include <gtest/gtest.h>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "app.h"
#include "app_driver.h"
#include "token_loss.h"

namespace attnviz {
namespace {

using nlohmann::json;

class NoRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey&, const HeatmapImage&, int, int) override { return (ImTextureID)(intptr_t)1; }
  std::string error() const override { return ""; }
};

const char* kTwice = "The cat sat on the mat and the dog sat on the log. The cat sat on the mat and the dog sat on the log.";

class ModelViewsTest : public AppDriver<NoRenderer> {
 protected:
  App& MakeApp(const std::string& text) {
    AppOptions options;
    options.input.text = text;
    options.input.model_dir = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/gpt2";
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    return *app_;
  }
  json Field(const std::string& name) {
    const std::string text = app_->dump.Field(name);
    EXPECT_FALSE(text.empty()) << "no dump field " << name;
    return text.empty() ? json() : json::parse(text);
  }
  // Frames until the lens job is idle, then two more to show its result.
  void WaitForLens() {
    for (int i = 0; i < 400 && app_->lenses->busy(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Frame();
    }
    Frames(2);
  }
};

// The chips' losses add up to the text's loss (its mean over the n - 1 predicted tokens); the first token has none;
// after an ablation, the chips' changes add up to the loss's change.
TEST_F(ModelViewsTest, ChipsColouredByLossSumToTheTextsLossAndTheirChangesToTheAblations) {
  App& app = MakeApp(kTwice);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 2400);  // a tall screen: the Model panel's chips in sight, no scrolling
  Frames(4);
  // The panel is narrow: a row of choices wraps inside it, never past its right edge.
  ASSERT_NE(app.dump.Find("panel.Model"), nullptr);
  const float right = app.dump.Find("panel.Model")->x1;
  for (const char* name : {"model.chip_color_none", "model.chip_color_loss", "model.chip_color_delta"}) {
    ASSERT_NE(app.dump.Find(name), nullptr) << name;
    EXPECT_LT(app.dump.Find(name)->x1, right) << name;
  }
  ASSERT_TRUE(app.results.model && app.results.model->predictions && app.results.model->predictions->has_loss);
  const size_t n = app.results.model->tokens.size();
  const double plain = app.results.model->predictions->loss;
  EXPECT_EQ(app.dump.Find("model.chip_color_none")->value_json, "true");  // plain chips until asked
  Click("model.chip_color_loss");
  Frames(1);
  json loss = Field("token_loss");
  ASSERT_EQ(loss["mode"], "loss");
  ASSERT_EQ(loss["chips"].size(), app.views.model.chips.chips.size());
  EXPECT_TRUE(loss["chips"][0].is_null());  // the first token is predicted from nothing
  double sum = 0, largest = 0;
  for (size_t g = 1; g < loss["chips"].size(); ++g) {
    ASSERT_TRUE(loss["chips"][g].is_number()) << g;
    sum += loss["chips"][g].get<double>();
    largest = std::max(largest, loss["chips"][g].get<double>());
  }
  EXPECT_NEAR(sum, plain * (double)(n - 1), 1e-6 * (double)n);
  EXPECT_DOUBLE_EQ(loss["scale"].get<double>(), largest);
  // Zero ablation of a head: its loss changes; the chips' changes sum to it.
  app.SetHeadAblated(2, 1, true);
  Frames(4);
  Click("model.chip_color_delta");
  Frames(1);
  ASSERT_TRUE(app.results.model->predictions && app.results.model->baseline_loss);
  const double zeroed = app.results.model->predictions->loss;
  ASSERT_NE(zeroed, plain);
  json delta = Field("token_loss");
  ASSERT_EQ(delta["mode"], "change");
  double change = 0;
  for (size_t g = 1; g < delta["deltas"].size(); ++g) change += delta["deltas"][g].get<double>();
  EXPECT_NEAR(change, (zeroed - plain) * (double)(n - 1), 1e-6 * (double)n);
  EXPECT_GT(delta["scale"].get<double>(), 0.0);
  // Mean ablation, chosen in the panel: the ablated heads' request says so and the loss is another one.
  EXPECT_EQ(app.dump.Find("model.ablate_zero")->value_json, "true");  // zero unless asked
  Click("model.ablate_mean");
  Frames(4);
  ASSERT_EQ(app.results.model->request.ablated.size(), 1u);
  EXPECT_EQ(app.results.model->request.ablated[0].mode, model::AblateMode::kMean);
  ASSERT_TRUE(app.results.model->predictions);
  EXPECT_NE(app.results.model->predictions->loss, zeroed);
  EXPECT_NE(app.results.model->predictions->loss, plain);
}

// ChipLosses over chips of several tokens: each chip sums its tokens' losses; token 0 alone has none.
TEST(TokenLoss, AChipSumsItsTokensLossesAndTheFirstHasNone) {
  ModelResult result;
  auto p = std::make_shared<model::Predictions>();
  p->next_log_prob = {-1.0, -2.0, -0.5, -0.25};  // tokens 1..4
  result.predictions = p;
  result.baseline_next_log_prob = std::make_shared<const std::vector<double>>(std::vector<double>{-1.0, -1.0, -1.0, -1.0});
  std::vector<TokenChips::Chip> chips(3);
  chips[0].first = 0, chips[0].count = 1;
  chips[1].first = 1, chips[1].count = 2;
  chips[2].first = 3, chips[2].count = 2;
  const std::vector<ChipLoss> got = ChipLosses(result, chips);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FALSE(got[0].has);
  EXPECT_TRUE(got[1].has && got[2].has);
  EXPECT_DOUBLE_EQ(got[1].loss, 3.0);
  EXPECT_DOUBLE_EQ(got[2].loss, 0.75);
  EXPECT_DOUBLE_EQ(got[1].delta(), 1.0);
  EXPECT_DOUBLE_EQ(got[2].delta(), -1.25);
  EXPECT_DOUBLE_EQ(ChipLossScale(got, ChipColor::kLoss), 3.0);
  EXPECT_DOUBLE_EQ(ChipLossScale(got, ChipColor::kLossChange), 1.25);
  result.predictions = nullptr;  // predictions still to come: nothing to colour by
  EXPECT_TRUE(ChipLosses(result, chips).empty());
}

// The Overview's lens: a row per layer read (the embeddings first, the model's own output last), a column per
// position; the last row is the run's own prediction (its p(next token) = exp(next_log_prob)); the hover names the
// layer, the position and its top tokens. A long text is read a window at a time, moved by its slider.
TEST_F(ModelViewsTest, TheLensGridsLastRowIsTheModelsOwnPredictionAndItsWindowMoves) {
  App& app = MakeApp(kTwice);
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->predictions);
  const int n = (int)app.results.model->tokens.size();
  ASSERT_LE(n, kLensWindow);
  Click("overview.show_lens");
  WaitForLens();
  ASSERT_EQ(app.dump.Find("overview.map.0.0"), nullptr) << "the maps make way for the lens";
  json lens = Field("lens");
  EXPECT_EQ(lens["first"], 0);
  EXPECT_EQ(lens["count"], n);
  ASSERT_EQ(lens["cells"].size(), 4u);  // embeddings + 3 blocks
  const std::vector<double>& lp = app.results.model->predictions->next_log_prob;
  const json& last = lens["cells"][3];
  ASSERT_EQ(last.size(), (size_t)n);
  for (int i = 0; i + 1 < n; ++i) EXPECT_NEAR(last[i][1].get<double>(), std::exp(lp[i]), 1e-5) << i;
  // The top token of the last row is the run's own top prediction where the panel shows one.
  const auto& tops = app.results.model->predictions->positions;
  for (const auto& t : tops)
    if (!t.top.empty() && t.index < n) {
      EXPECT_EQ(last[t.index][0].get<int>(), t.top[0].id) << t.index;
    }
  // Hover the cell of layer 1 at position 3: its tooltip is recorded as hovered.
  const WidgetDump::Widget* cell = app.dump.Find("lens.cell.1.3");
  ASSERT_NE(cell, nullptr);
  ImGui::GetIO().MousePos = ImVec2((cell->x0 + cell->x1) * 0.5f, (cell->y0 + cell->y1) * 0.5f);
  Frames(2);
  EXPECT_TRUE(app.dump.Find("lens.cell.1.3")->hovered);
  EXPECT_FALSE(app.dump.Find("lens.cell.1.4")->hovered);
  ImGui::GetIO().MousePos = ImVec2(-1, -1);
  // An ablation changes the lens's last row, never the rows before the ablated layer.
  app.SetHeadAblated(2, 1, true);
  Frames(4);
  WaitForLens();
  json ablated = Field("lens");
  EXPECT_EQ(ablated["cells"][1], lens["cells"][1]);
  EXPECT_EQ(ablated["cells"][2], lens["cells"][2]);
  EXPECT_NE(ablated["cells"][3], lens["cells"][3]);
  // Back to the maps.
  Click("overview.show_maps");
  Frames(1);
  EXPECT_NE(app.dump.Find("overview.map.0.0"), nullptr);
}

TEST_F(ModelViewsTest, ALongTextsLensReadsAWindowThatTheSliderMoves) {
  std::string text;
  for (int i = 0; i < 2; ++i) text += kTwice, text += " ";  // 80 tokens: over a window, within the 96 positions
  App& app = MakeApp(text);
  Frames(4);
  ASSERT_TRUE(app.results.model);
  const int n = (int)app.results.model->tokens.size();
  ASSERT_GT(n, kLensWindow);
  Click("overview.show_lens");
  WaitForLens();
  json lens = Field("lens");
  EXPECT_EQ(lens["count"], kLensWindow);
  EXPECT_EQ(lens["n"], n);
  ASSERT_NE(app.dump.Find("lens.first"), nullptr);
  app.views.overview.lens_first = n;  // past the end: clipped to the last window
  Frames(1);
  WaitForLens();
  lens = Field("lens");
  EXPECT_EQ(lens["first"], n - kLensWindow);
  EXPECT_NE(app.dump.Find("lens.cell.3." + std::to_string(n - 1)), nullptr);
  EXPECT_EQ(app.dump.Find("lens.cell.3.0"), nullptr);
}

// Between a run's last layer and its predictions over every position, a pinned token's top tokens come alone
// (ModelSession::MakeTopTokens: its row through the LM head): the same tokens the predictions give there.
TEST_F(ModelViewsTest, APinnedTokensTopTokensComeBeforeThePredictions) {
  App& app = MakeApp(kTwice);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 2400);  // a tall screen: the Model panel's chips in sight, no scrolling
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->predictions && app.results.model->last_hidden);
  const std::shared_ptr<const ModelResult> full = app.results.model;
  AppResults with_predictions;
  with_predictions.model = full;
  const std::string want = PredictionLines(with_predictions, 3);
  ASSERT_FALSE(want.empty());
  // The result as the session publishes it after its layers, before its predictions (a later generation, so the
  // finished run does not replace it).
  auto before = std::make_shared<ModelResult>(*full);
  before->predictions = nullptr;
  before->generation = full->generation + 1000;
  app.results.model = before;
  Frames(2);
  EXPECT_EQ(Field("predictions")["pinned_text"], "");
  Click("model.token.3");
  ASSERT_EQ(app.views.model.pinned_position, 3);
  for (int i = 0; i < 200 && Field("predictions")["pinned_text"].get<std::string>().empty(); ++i) {
    ASSERT_TRUE(app.models->WaitIdle(10));
    Frame();
  }
  ASSERT_TRUE(app.results.model_top);
  EXPECT_TRUE(app.results.model_top->request.Of(app.results.model));
  EXPECT_EQ(app.results.model_top->request.positions, std::vector<int>{3});
  // The same tokens in the same order (the probabilities to float rounding: the row multiplied alone).
  auto tokens_of = [](const std::string& lines) {
    std::vector<std::string> out;
    size_t from = 0;
    for (size_t q = lines.find('"'); q != std::string::npos; q = lines.find('"', from)) {
      const size_t end = lines.find('"', q + 1);
      if (end == std::string::npos) break;
      out.push_back(lines.substr(q + 1, end - q - 1));
      from = end + 1;
    }
    return out;
  };
  const std::string got = Field("predictions")["pinned_text"];
  EXPECT_EQ(tokens_of(got), tokens_of(want)) << got << "\n---\n" << want;
  EXPECT_EQ(got.substr(0, got.find('\n')), want.substr(0, want.find('\n')));
  // No row was asked of a result that has its predictions.
  app.results.model = full;
  const uint64_t asked = app.results.model_top->generation;
  Frames(3);
  ASSERT_TRUE(app.models->WaitIdle(10));
  EXPECT_EQ(app.models->top_tokens()->generation, asked);
  EXPECT_EQ(app.results.model_top, nullptr);
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// One click, one effect: on a trained model's map a click opens the cell's neuron view and leaves the grid or the
// enlarged head as it was (the radio buttons move between them); the enlarged caption says what a click does.
// Typing on at the end of the text: the run keeps the rows the texts share, and the Model panel says how many.
TEST_F(ModelViewsTest, TypingOnSaysHowManyTokensWereKeptFromTheLastText) {
  App& app = MakeApp(kTwice);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 2400);
  Frames(4);
  ASSERT_TRUE(app.models->WaitIdle(30));
  Frames(2);
  ASSERT_TRUE(app.results.model && app.results.model->complete());
  const std::string first = Field("model_tokens_line");
  EXPECT_NE(first.find("tokens, as the model sees them"), std::string::npos) << first;
  EXPECT_EQ(first.find("kept"), std::string::npos) << first;
  app.settings.kv_text = std::string(kTwice) + " And then the cat slept.";
  for (int i = 0; i < 300 && !(app.results.model && app.results.model->complete() &&
                               app.results.model->request.text == app.settings.kv_text);
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  Frames(2);
  const ModelResult& r = *app.results.model;
  ASSERT_EQ(r.request.text, app.settings.kv_text);
  ASSERT_GE(r.prefix_rows, 16) << r.prefix_refused;
  const std::string line = Field("model_tokens_line");
  EXPECT_NE(line.find("the first " + std::to_string(r.prefix_rows) + " kept from the last text"), std::string::npos)
      << line;
  EXPECT_EQ(line.find(std::to_string(r.tokens.size()) + " tokens"), 0u) << line;
}

TEST_F(ModelViewsTest, AClickOnAModelsMapOpensTheNeuronViewAndNothingElse) {
  App& app = MakeApp(kTwice);
  Frames(4);
  Click("heads.view_grid");
  Frames(1);
  ASSERT_FALSE(app.settings.enlarged);
  ASSERT_NE(app.dump.Find("heads.map.2"), nullptr);
  Click("heads.map.2");
  Frames(1);
  EXPECT_TRUE(app.views.neuron.open);
  EXPECT_EQ(app.views.neuron.head, 2);
  EXPECT_EQ(app.settings.selected_head, 2);
  EXPECT_FALSE(app.settings.enlarged) << "the click also enlarged the head";
  app.views.neuron.open = false;
  Click("heads.view_enlarged");
  Frames(1);
  ASSERT_TRUE(app.settings.enlarged);
  ASSERT_NE(app.dump.Find("heads.enlarged"), nullptr);
  Click("heads.enlarged");
  Frames(1);
  EXPECT_TRUE(app.views.neuron.open);
  EXPECT_TRUE(app.settings.enlarged) << "the click also went back to the grid";
}

// The neuron view takes the Overview's place beside the Heads panel, never over the Export panel; a map kind of one
// map per layer (rollout) shows why there is no head's score to take apart instead of the cell shown before, and
// the cell comes back with the attention maps.
TEST_F(ModelViewsTest, TheNeuronViewLeavesTheExportPanelInSightAndFollowsTheMapKind) {
  App& app = MakeApp(kTwice);
  Frames(4);
  Click("heads.view_grid");
  Frames(1);
  ASSERT_NE(app.dump.Find("heads.map.1"), nullptr);
  Click("heads.map.1");
  Frames(2);
  ASSERT_TRUE(app.views.neuron.open);
  const WidgetDump::Widget* neuron = app.dump.Find("panel.Neuron");
  const WidgetDump::Widget* exporter = app.dump.Find("panel.Export");
  ASSERT_NE(neuron, nullptr);
  ASSERT_NE(exporter, nullptr);
  const bool overlap = neuron->x0 < exporter->x1 && exporter->x0 < neuron->x1 && neuron->y0 < exporter->y1 &&
                       exporter->y0 < neuron->y1;
  EXPECT_FALSE(overlap) << "neuron [" << neuron->x0 << ", " << neuron->y0 << ", " << neuron->x1 << ", " << neuron->y1
                        << "] export [" << exporter->x0 << ", " << exporter->y0 << ", " << exporter->x1 << ", "
                        << exporter->y1 << "]";
  EXPECT_EQ(Field("neuron")["error"], "");
  EXPECT_TRUE(Field("neuron").contains("score"));
  Click("heads.kind_rollout");
  Frames(3);
  EXPECT_EQ(Field("neuron")["error"], UiMessage(Str::kNeuronNoHead).Render());
  EXPECT_FALSE(Field("neuron").contains("score")) << "the attention cell stayed beside the rollout maps";
  Click("heads.kind_attention");
  Frames(3);
  EXPECT_EQ(Field("neuron")["error"], "");
  EXPECT_EQ(Field("neuron")["head"], 1);
  EXPECT_TRUE(Field("neuron").contains("score"));
}

// A badge whose strongest role scores near what uniform attention scores on the same text (model::NearChance) is
// grey (the dump says so, with the chance level it was read against), and a line under the grid says what grey
// means. On 4 tokens chance is high (previous-token 0.36) and some heads' roles hardly clear it.
TEST_F(ModelViewsTest, OverviewBadgesAtOrBelowChanceAreGreyAndSaySo) {
  for (const char* text : {"I go home.", kTwice}) {
    SCOPED_TRACE(text);
    App& app = MakeApp(text);
    Frames(6);
    const model::HeadRoles& roles = app.results.model->roles;
    ASSERT_EQ((int)roles.chance.size(), roles.n_layer);
    int grey = 0, cells = 0;
    for (int l = 0; l < roles.n_layer; ++l)
      for (int h = 0; h < roles.n_head; ++h) {
        const WidgetDump::Widget* cell = app.dump.Find("overview.map." + std::to_string(l) + "." + std::to_string(h));
        ASSERT_NE(cell, nullptr);
        const json j = json::parse(cell->value_json);
        const model::RoleScore best = model::StrongestRole(roles.at(l, h));
        const bool has_chance = best.role != model::HeadRole::kBroad;
        ASSERT_EQ(j["chance"].is_null(), !has_chance);
        const bool near = has_chance && model::NearChance(best.score, roles.chance[(size_t)l][best.role]);
        EXPECT_EQ(j["near_chance"].get<bool>(), near) << l << "." << h;
        if (has_chance) {
          EXPECT_NEAR(j["chance"].get<double>(), roles.chance[(size_t)l][best.role], 1e-6);
        }
        grey += near, ++cells;
      }
    const bool legend = app.dump.Find("overview.badge_chance_legend") != nullptr;
    EXPECT_EQ(legend, grey > 0) << grey << " of " << cells << " grey";
    if (std::string(text) == "I go home.") {
      EXPECT_GT(grey, 0);
      EXPECT_LT(grey, cells);
    }
  }
}

// The scan ranks the heads by the loss at the positions typed beside its button: its base loss is the mean of those
// tokens' own losses in the shown run, the panel says where it read them; a position past n - 2 is refused in the
// panel (its range named) and starts nothing.
TEST_F(ModelViewsTest, TheScanReadsTheLossAtThePositionsTyped) {
  App& app = MakeApp(kTwice);
  ImGui::GetIO().DisplaySize = ImVec2(1280, 2400);  // a tall screen: the scan's button in sight, no scrolling
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->predictions);
  const std::vector<double>& lp = app.results.model->predictions->next_log_prob;
  const int n = (int)app.results.model->tokens.size();
  ASSERT_GT(n, 16);
  app.views.model.scan_at = "14, 3";
  Click("model.scan");
  ASSERT_TRUE(app.scans->WaitIdle(60));
  Frames(2);
  ASSERT_TRUE(app.ShownScan());
  EXPECT_EQ(app.ShownScan()->scan.loss_at, (std::vector<int>{14, 3}));
  EXPECT_NEAR(app.ShownScan()->scan.base_loss, -(lp[14] + lp[3]) / 2, 1e-6);
  EXPECT_EQ(Field("ablation_scan")["loss_at"], json::array({14, 3}));
  EXPECT_EQ(Field("ablation_scan")["at_error"], "");
  const uint64_t generation = app.ShownScan()->generation;
  app.views.model.scan_at = std::to_string(n - 1);
  Click("model.scan");
  Frames(2);
  const std::string error = Field("ablation_scan")["at_error"];
  EXPECT_NE(error.find(std::to_string(n - 2)), std::string::npos) << error;
  ASSERT_TRUE(app.scans->WaitIdle(10));
  EXPECT_EQ(app.ShownScan()->generation, generation) << "a refused list started a scan";
}

}  // namespace
}  // namespace attnviz
