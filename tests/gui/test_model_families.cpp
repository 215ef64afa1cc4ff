// Each newer family opens in the app from text: the weight fixture of tests/fixtures/models with a tokenizer of the
// family's layout (tests/fixtures/tokenize, make_family_fixtures.js; gemma3_text with a tokenizer.model alone), in
// a temp folder. The run shows every layer x head in the Overview; the neuron view of one cell lists the family's
// score steps (RoPE and how many dims it turns, the q/k norms, the soft cap, the scale's divisor); the neuron view's
// and the hover's weight are the core run's. The numbers themselves are checked against torch in tests/model.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>

#include "app.h"
#include "app_driver.h"
#include "model/analysis.h"
#include "model/run.h"
#include "model_analysis.h"
#include "model_session_test_util.h"

namespace attnviz {
namespace {

class CountingRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey& key, const HeatmapImage&, int, int) override {
    ++calls[key];
    return (ImTextureID)(intptr_t)1;
  }
  std::string error() const override { return ""; }
  std::map<HeatmapKey, int> calls;
};

// make_family_fixtures.js's APP_TEXT: every tokenizer below cuts it into ids the checkpoint has.
const char* kText = "the model reads the first word and the next token";

struct Family {
  const char* fixture;         // tests/fixtures/models/<fixture>
  const char* tokenizer;       // tests/fixtures/tokenize/<tokenizer>
  const char* tokenizer_file;  // the one file copied from there
  int n_layer, n_head;
  bool rope;
  int rotated_dims;  // of d_head, by RoPE (partial rotary: fewer)
  bool qk_norm;
  double softcap;
  const char* scale_source;
  double scale_divisor;  // 1/sqrt(this) is the scale
};

void PrintTo(const Family& f, std::ostream* os) { *os << f.fixture; }

std::string FamilyName(const ::testing::TestParamInfo<Family>& info) { return info.param.fixture; }

class FamilyInApp : public AppDriver<CountingRenderer>, public ::testing::WithParamInterface<Family> {
 protected:
  void SetUp() override {
    AppDriver::SetUp();
    char pattern[] = "/tmp/attnviz-families-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    AppDriver::TearDown();
    std::filesystem::remove_all(dir_);
  }
  std::string dir_;
};

TEST_P(FamilyInApp, OpensFromTextAndShowsItsScoreSteps) {
  namespace fs = std::filesystem;
  const Family& f = GetParam();
  const fs::path source(ATTNVIZ_SOURCE_DIR);
  for (const char* file : {"model.safetensors", "config.json"})
    fs::copy_file(source / "tests/fixtures/models" / f.fixture / file, fs::path(dir_) / file);
  fs::copy_file(source / "tests/fixtures/tokenize" / f.tokenizer / f.tokenizer_file, fs::path(dir_) / f.tokenizer_file);
  AppOptions options;
  options.input.text = kText;
  options.input.model_dir = dir_;
  options.widgets_json_path = "(memory)";
  app_ = std::make_unique<App>(AppSettings(), options, nullptr);
  Frames(4);
  App& app = *app_;
  ASSERT_TRUE(app.results.model) << app.results.model_error << OpenErrorText(*app.models);
  const ModelResult& r = *app.results.model;
  ASSERT_TRUE(r.complete());
  ASSERT_EQ(r.n_layer(), f.n_layer);
  const int n = (int)r.tokens.size();
  ASSERT_GE(n, 10) << "the tokenizer cut the text into too few tokens";

  // 1. The Overview draws every layer x head.
  EXPECT_NE(app.dump.Field("overview").find("\"layers_shown\": " + std::to_string(f.n_layer)), std::string::npos)
      << app.dump.Field("overview");
  for (int l = 0; l < f.n_layer; ++l)
    for (int h = 0; h < f.n_head; ++h) {
      EXPECT_GT(renderer_.calls[(HeatmapKey{MapView::kOverview, l, h, 0})], 0) << l << "," << h;
      EXPECT_NE(app.dump.Find("overview.map." + std::to_string(l) + "." + std::to_string(h)), nullptr) << l << "," << h;
    }
  EXPECT_EQ(app.dump.Find("overview.map." + std::to_string(f.n_layer) + ".0"), nullptr);
  EXPECT_EQ(app.dump.Find("overview.map.0." + std::to_string(f.n_head)), nullptr);

  // 2. The core's run of the same ids: what the app must show.
  std::vector<int> ids;
  for (const auto& t : r.tokens) ids.push_back(t.id);
  auto core = model::RunModel(*r.request.folder->model, ids, {});
  ASSERT_TRUE(core.ok()) << core.message();
  auto core_prob = [&](int layer, int head, int i, int j) {
    return core->probs.data[(((size_t)layer * f.n_head + head) * n + i) * n + j];
  };

  // 3. Layer 1, head 1, query n-1 on key n-3 in the neuron view: the family's steps.
  Click("overview.map.1.1");
  Frames(2);
  ASSERT_EQ(app.settings.model_layer, 1);
  const int i = n - 1, j = n - 3;
  app.PanelContextFor(nullptr).verbs.OpenNeuronView(1, i, j);
  Frames(2);
  const std::string neuron = app.dump.Field("neuron");
  auto has = [&](const std::string& s) { return neuron.find(s) != std::string::npos; };
  EXPECT_TRUE(has("\"open\": true, \"layer\": 1, \"head\": 1, \"i\": " + std::to_string(i) + ", \"j\": " + std::to_string(j))) << neuron;
  EXPECT_TRUE(has(std::string("\"rope\": ") + (f.rope ? "true" : "false"))) << neuron;
  EXPECT_TRUE(has(std::string("\"qk_norm\": ") + (f.qk_norm ? "true" : "false"))) << neuron;
  EXPECT_TRUE(has(std::string("\"scale_source\": \"") + f.scale_source + "\"")) << neuron;
  EXPECT_TRUE(has("\"masked\": false")) << neuron;
  EXPECT_EQ(app.dump.Find("neuron.q_before_rope") != nullptr, f.rope);
  EXPECT_EQ(app.dump.Find("neuron.q_before_norm") != nullptr, f.qk_norm);
  Result<model::NeuronView> v = NeuronOf(r, 1, 1, i, j);
  ASSERT_TRUE(v) << v.message();
  EXPECT_NEAR(v->scale, 1.0 / std::sqrt(f.scale_divisor), 1e-7);
  EXPECT_EQ(v->softcap, f.softcap);
  if (f.softcap > 0) EXPECT_NEAR(v->logit, f.softcap * std::tanh(v->uncapped_logit / f.softcap), 1e-5);
  else EXPECT_NEAR(v->logit, v->score * v->scale, 1e-5 * (1 + std::fabs(v->logit)));
  if (f.rope) {
    // RoPE turns the first rotated_dims dims of the head and passes the rest through (partial rotary).
    ASSERT_EQ(v->q.size(), v->q_before_rope.size());
    int turned = 0, turned_past = 0;
    for (size_t d = 0; d < v->q.size(); ++d) {
      const bool moved = std::fabs(v->q[d] - v->q_before_rope[d]) > 1e-6f;
      turned += moved;
      turned_past += moved && (int)d >= f.rotated_dims;
    }
    EXPECT_EQ(turned, f.rotated_dims) << "d_head " << v->q.size();
    EXPECT_EQ(turned_past, 0);
  }
  // The neuron view's weight is the core run's.
  EXPECT_NEAR(v->prob, core_prob(1, 1, i, j), 1e-6);
  EXPECT_TRUE(has("\"prob\": ")) << neuron;

  // 4. The hover over the Heads panel's map (layer 1, head 1, enlarged by the click) at cell (i, j): the core
  // run's weight.
  ASSERT_TRUE(app.settings.enlarged);
  ASSERT_EQ(app.settings.selected_head, 1);
  const WidgetDump::Widget* map = app.dump.Find("heads.enlarged");
  ASSERT_NE(map, nullptr);
  ImGui::GetIO().MousePos = ImVec2(map->x0 + (j + 0.5f) * (map->x1 - map->x0) / n, map->y0 + (i + 0.5f) * (map->y1 - map->y0) / n);
  Frames(3);
  const WidgetDump::Widget* hover = app.dump.Find("heads.enlarged.hover");
  ASSERT_NE(hover, nullptr) << "no hover on heads.enlarged";
  const std::string at = "{\"i\": " + std::to_string(i) + ", \"j\": " + std::to_string(j) + ", \"prob\": ";
  ASSERT_EQ(hover->value_json.rfind(at, 0), 0u) << hover->value_json;
  const double hovered = std::stod(hover->value_json.substr(at.size()));
  EXPECT_NEAR(hovered, core_prob(1, 1, i, j), 1e-5) << hover->value_json;
}

INSTANTIATE_TEST_SUITE_P(
    Families, FamilyInApp,
    ::testing::Values(
        // rotary_pct 0.25 of d_head 16, parallel residual
        Family{"gpt_neox", "neox_style", "tokenizer.json", 2, 4, true, 4, false, 0, "head_dim", 16},
        Family{"qwen3", "qwen3_style", "tokenizer.json", 2, 6, true, 16, true, 0, "head_dim", 16},
        Family{"olmo2", "olmo2_style", "tokenizer.json", 2, 4, true, 16, true, 0, "head_dim", 16},
        // attention soft cap 2, scale 1/sqrt(query_pre_attn_scalar 24)
        Family{"gemma2", "gemma_style", "tokenizer.json", 3, 4, true, 16, false, 2.0, "query_pre_attn_scalar", 24},
        // q/k norms, query_pre_attn_scalar 32; a folder with tokenizer.model and no tokenizer.json
        Family{"gemma3_text", "spm_gemma_model", "tokenizer.model", 3, 4, true, 16, true, 0, "query_pre_attn_scalar", 32},
        // fused qkv, partial_rotary_factor 1.0 of d_head 8, sliding window 6
        Family{"phi3", "phi3_style", "tokenizer.json", 2, 6, true, 8, false, 0, "head_dim", 8},
        // learned positions from pad_token_id + 1, no RoPE
        Family{"roberta", "roberta_small", "tokenizer.json", 2, 4, false, 0, false, 0, "head_dim", 8}),
    FamilyName);

}  // namespace
}  // namespace attnviz
