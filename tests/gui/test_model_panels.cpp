// The trained-model side of the app without GL: open a model folder, the overview of every layer x
// head, a click that opens a head of a layer in the Heads panel, the layer selector, the what-ifs,
// hiding special tokens, the way back to the sandbox, and the overview export. The model is a tiny
// random GPT-2 written here (the numbers are checked against torch in tests/model; this is about the UI)
// with the byte-level BPE tokenizer fixture.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>  // the Heads window's rectangle

#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "app.h"
#include "io/json.h"
#include "app_driver.h"
#include "cli_runner.h"
#include "figure/export.h"
#include "figure/heatmap_figure.h"
#include "io/file_io.h"
#include "io/npy.h"
#include "maps/view.h"
#include "model_session_test_util.h"
#include "panel_util.h"

namespace attnviz {
namespace {

class CountingRenderer : public HeatmapRenderer {
 public:
  ImTextureID Render(const HeatmapKey& key, const HeatmapImage& image, int width_px, int height_px) override {
    ++calls[key];
    last[key] = image;
    return (ImTextureID)(intptr_t)1;
  }
  std::string error() const override { return ""; }
  std::map<HeatmapKey, int> calls;
  std::map<HeatmapKey, HeatmapImage> last;
};

// A GPT-2 folder: config.json, model.safetensors (F32, deterministic values), tokenizer.json.
std::string WriteTinyGpt2(const std::string& dir, int n_layer, int n_head, int d_model, int vocab) {
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::vector<size_t>>> names;
  const size_t d = (size_t)d_model;
  names.push_back({"wte.weight", {(size_t)vocab, d}});
  names.push_back({"wpe.weight", {64, d}});
  for (int l = 0; l < n_layer; ++l) {
    const std::string p = "h." + std::to_string(l) + ".";
    names.push_back({p + "ln_1.weight", {d}});
    names.push_back({p + "ln_1.bias", {d}});
    names.push_back({p + "attn.c_attn.weight", {d, 3 * d}});
    names.push_back({p + "attn.c_attn.bias", {3 * d}});
    names.push_back({p + "attn.c_proj.weight", {d, d}});
    names.push_back({p + "attn.c_proj.bias", {d}});
    names.push_back({p + "ln_2.weight", {d}});
    names.push_back({p + "ln_2.bias", {d}});
    names.push_back({p + "mlp.c_fc.weight", {d, 4 * d}});
    names.push_back({p + "mlp.c_fc.bias", {4 * d}});
    names.push_back({p + "mlp.c_proj.weight", {4 * d, d}});
    names.push_back({p + "mlp.c_proj.bias", {d}});
  }
  names.push_back({"ln_f.weight", {d}});
  names.push_back({"ln_f.bias", {d}});
  std::string header = "{", data;
  uint32_t state = 12345;
  for (const auto& [name, shape] : names) {
    size_t count = 1;
    for (size_t s : shape) count *= s;
    const bool is_norm_weight = name.find("ln_") != std::string::npos && name.find(".weight") != std::string::npos;
    std::vector<float> v(count);
    for (float& x : v) {
      state = state * 1664525u + 1013904223u;
      x = is_norm_weight ? 1.0f : ((float)(state >> 8) / 16777216.0f - 0.5f) * 0.8f;
    }
    const size_t begin = data.size();
    data.append(reinterpret_cast<const char*>(v.data()), count * 4);
    std::string dims;
    for (size_t i = 0; i < shape.size(); ++i) dims += (i ? "," : "") + std::to_string(shape[i]);
    header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"F32\",\"shape\":[" + dims +
              "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  std::string file(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(file.data(), &n, 8);
  EXPECT_TRUE(WriteFileAtomic(dir + "/model.safetensors", file + header + data).ok());
  EXPECT_TRUE(WriteFileAtomic(dir + "/config.json",
                              "{\"model_type\": \"gpt2\", \"n_layer\": " + std::to_string(n_layer) + ", \"n_head\": " +
                                  std::to_string(n_head) + ", \"n_embd\": " + std::to_string(d_model) +
                                  ", \"n_positions\": 64, \"vocab_size\": " + std::to_string(vocab) + "}")
                  .ok());
  std::filesystem::copy_file(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/tokenize/bytelevel_bpe/tokenizer.json",
                             dir + "/tokenizer.json", std::filesystem::copy_options::overwrite_existing);
  return dir;
}

class ModelPanelTest : public AppDriver<CountingRenderer> {
 protected:
  void SetUp() override {
    AppDriver::SetUp();
    char pattern[] = "/tmp/attnviz-model-panel-XXXXXX";
    dir_ = mkdtemp(pattern);
    model_dir_ = WriteTinyGpt2(dir_ + "/tiny-gpt2", 3, 4, 16, 2300);
  }
  void TearDown() override {
    AppDriver::TearDown();
    std::filesystem::remove_all(dir_);
  }
  App& MakeApp(const std::string& text) {
    AppOptions options;
    options.input.text = text;
    options.input.model_dir = model_dir_;
    options.widgets_json_path = "(memory)";
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    return *app_;
  }
  // A short text whose run streams anyway (as a long input's does), a few frames after its start.
  App& MakeStreamedApp() {
    App& app = MakeApp("The cat sat on the mat. The cat sat on the mat again, and then the dog sat too.");
    app.models->set_stream_above_cells(0);
    Frames(4);
    return app;
  }
  std::string dir_, model_dir_;
};

// A long text's token chips: laid out once (every group in model_tokens, lines that fit the panel), and each frame
// submits only the lines in sight, so a frame's work does not grow with the text.
TEST_F(ModelPanelTest, ALongTextsTokenChipsAreSubmittedOnlyWhereTheyCanBeSeen) {
  // The e2e llama fixture (RoPE) with room for the text.
  model_dir_ = testing::PatchedE2eFixture("llama", dir_ + "/long-llama", "\"max_position_embeddings\": 128",
                                          "\"max_position_embeddings\": 4096");
  std::string text;
  for (int i = 0; i < 400; ++i) text += "the cat sat ";
  App& app = MakeApp(text);
  for (int i = 0; i < 500 && !(app.results.model && app.results.model->complete()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  Frames(3);
  ASSERT_TRUE(app.results.model && app.results.model->status.ok()) << app.results.model_error;
  const TokenChips& c = app.views.model.chips;
  ASSERT_GT(c.chips.size(), 1000u);
  ASSERT_GT(c.line_start.size(), 20u);
  EXPECT_EQ(c.line_start[0], 0u);
  for (size_t l = 1; l < c.line_start.size(); ++l) ASSERT_LT(c.line_start[l - 1], c.line_start[l]) << l;
  // Every group is in the dump's model_tokens ("a | b | ..."), in order.
  const std::string joined = app.dump.Field("model_tokens");
  size_t bars = 0;
  for (size_t at = joined.find(" | "); at != std::string::npos; at = joined.find(" | ", at + 3)) ++bars;
  EXPECT_EQ(bars + 1, c.chips.size());
  // The first chips are drawn (and clickable); the last ones, far below, are not submitted.
  EXPECT_NE(app.dump.Find("model.token.0"), nullptr);
  EXPECT_EQ(app.dump.Find("model.token." + std::to_string(c.chips.size() - 1)), nullptr);
  size_t submitted = 0;
  for (size_t g = 0; g < c.chips.size(); ++g) submitted += app.dump.Find("model.token." + std::to_string(g)) != nullptr;
  EXPECT_LT(submitted, c.chips.size() / 4);
  // Scrolled into view (the wheel over the panel's top, as a person would), a chip is clicked and pins its guesses.
  for (int i = 0; i < 50 && !(app.dump.Find("model.token.1") && app.dump.Find("model.token.1")->visible); ++i) {
    const WidgetDump::Widget* panel = app.dump.Find("panel.Model");
    ASSERT_NE(panel, nullptr);
    ImGui::GetIO().MousePos = ImVec2((panel->x0 + panel->x1) * 0.5f, panel->y0 + 30);
    ImGui::GetIO().MouseWheel = -1.0f;
    Frames(2);
  }
  ASSERT_TRUE(app.dump.Find("model.token.1") && app.dump.Find("model.token.1")->visible);
  Click("model.token.1");
  EXPECT_EQ(app.views.model.pinned_position, (int)(c.chips[1].first + c.chips[1].count - 1));
}

TEST_F(ModelPanelTest, OverviewShowsEveryLayerAndHeadAndAClickOpensIt) {
  App& app = MakeApp("The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model) << app.results.model_error << OpenErrorText(*app.models);
  EXPECT_EQ(app.settings.source, Source::kModel);
  EXPECT_EQ(app.results.model->n_layer(), 3);
  // Every layer arrived (--frames and --screenshot count from here), and the overview says so.
  EXPECT_TRUE(app.results.model->complete());
  EXPECT_TRUE(app.Ready());
  EXPECT_NE(app.dump.Field("overview").find("\"layers_shown\": 3"), std::string::npos) << app.dump.Field("overview");
  // The frame that drew them is stamped when it is written (main.cpp's FrameOutputs), later frames are not.
  app.views.overview.Stamp(2.5);
  Frame();
  app.views.overview.Stamp(3.5);
  EXPECT_EQ(app.views.overview.first_layer_t_s, 2.5);
  EXPECT_EQ(app.views.overview.all_layers_t_s, 2.5);
  // Every layer x head is drawn in the overview, and the Heads panel shows layer 0's heads.
  for (int l = 0; l < 3; ++l)
    for (int h = 0; h < 4; ++h) {
      EXPECT_GT(renderer_.calls[(HeatmapKey{MapView::kOverview, l, h, 0})], 0) << l << "," << h;
      EXPECT_NE(app.dump.Find("overview.map." + std::to_string(l) + "." + std::to_string(h)), nullptr);
    }
  EXPECT_GT(renderer_.calls[(HeatmapKey{MapView::kGrid, 0, 0, 0})], 0);
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.shown->maps->probs.get(), app.results.model->layers[0]->probs.get()) << "the layer was copied, not shared";
  // The sandbox panels gave their places to the model's.
  EXPECT_EQ(app.dump.Find("controls.d_model"), nullptr);
  EXPECT_NE(app.dump.Find("model.layer"), nullptr);
  // A click on layer 2, head 3 opens it enlarged in the Heads panel.
  Click("overview.map.2.3");
  Frames(2);
  EXPECT_EQ(app.settings.model_layer, 2);
  EXPECT_EQ(app.settings.selected_head, 3);
  EXPECT_TRUE(app.settings.enlarged);
  EXPECT_EQ(app.results.shown->maps->probs.get(), app.results.model->layers[2]->probs.get());
  EXPECT_GT(renderer_.calls[(HeatmapKey{MapView::kEnlarged, 0, 3, 0})], 0);
  // The image drawn for it is layer 2's head 3.
  const HeatmapImage& img = renderer_.last[(HeatmapKey{MapView::kEnlarged, 0, 3, 0})];
  const Tensor& layer2 = *app.results.model->layers[2]->probs;
  const size_t n = layer2.dim(1);
  ASSERT_EQ((size_t)img.n_q, n);  // a short text: the map is drawn cell for cell
  ASSERT_EQ((size_t)img.n_k, n);
  size_t differ = 0;  // the visible cells (j <= i); what the renderer puts in masked cells is its own business
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) differ += img.probs[i * n + j] != layer2.data[(3 * n + i) * n + j];
  EXPECT_EQ(differ, 0u) << "not layer 2's head 3";
  EXPECT_TRUE(img.masked);
}

// The frames a run's layers may put off (FramePacer::Busy): only its middle layers, nothing else that changed.
// A deep model (30 layers x 9 heads, SmolLM2's shape) at 1280x800: the thumbnails take the panel's width and the
// grid scrolls, rather than ~10 px cells beside an empty panel; the head labels never run together.
TEST_F(ModelPanelTest, ADeepModelsOverviewKeepsReadableCellsAndApartHeadLabels) {
  model_dir_ = WriteTinyGpt2(dir_ + "/deep-gpt2", 30, 9, 18, 2300);
  App& app = MakeApp("The cat sat on the mat.");
  Frames(6);
  ASSERT_TRUE(app.results.model && app.results.model->complete());
  const WidgetDump::Widget* cell = app.dump.Find("overview.map.0.0");
  ASSERT_NE(cell, nullptr);
  EXPECT_GE(cell->x1 - cell->x0, 24.0f);
  const WidgetDump::Widget* panel = app.dump.Find("panel.Overview");
  ASSERT_NE(panel, nullptr);
  EXPECT_LE(app.dump.Find("overview.map.0.8")->x1, panel->x1);  // every head across, none cut off
  float last_right = -1;
  int labels = 0;
  for (int h = 0; h < 9; ++h)
    if (const WidgetDump::Widget* label = app.dump.Find("overview.head_label." + std::to_string(h))) {
      EXPECT_GT(label->x0, last_right) << "H" << h << " runs into the label before it";
      last_right = label->x1;
      ++labels;
    }
  EXPECT_GE(labels, 3);
  // The grid runs past the panel's foot: the last layer's cells are there, out of sight until scrolled.
  const WidgetDump::Widget* last = app.dump.Find("overview.map.29.0");
  ASSERT_NE(last, nullptr);
  EXPECT_GT(last->y1, panel->y1);
}

TEST(ShownState, OnlyARunsMiddleLayersMayWaitTheirTurn) {
  int runs[2];
  App::ShownState one{&runs[0], nullptr, nullptr, nullptr, true};
  one.model_layers = 1;
  App::ShownState two = one;
  two.model = &runs[1], two.model_layers = 2;  // the next step: one layer more
  EXPECT_TRUE(two.MoreLayersOnly(one));
  App::ShownState none{nullptr, nullptr, nullptr, nullptr, true};
  EXPECT_FALSE(one.MoreLayersOnly(none)) << "the first layer is drawn at once";
  App::ShownState last = two;
  last.model_complete = true;
  EXPECT_FALSE(last.MoreLayersOnly(one)) << "the last layer is drawn at once";
  App::ShownState sweep = two;
  sweep.sweep = &runs[0];
  EXPECT_FALSE(sweep.MoreLayersOnly(one)) << "anything else that changed is drawn at once";
  App::ShownState done = two;
  done.busy = false;
  EXPECT_FALSE(done.MoreLayersOnly(one));
  EXPECT_FALSE(one.MoreLayersOnly(one)) << "nothing changed";
}

// The loop may send the request in the same pass in which the open finishes, after UpdateModel has looked at the
// open count: the next pass then sees the open as new. The same request must not be sent again (that cancelled the
// run a moment after it began and started it over).
// The Overview's first-layer and all-layers moments (the dump's overview_t_s): the t_s of the frame that first drew
// them, kept through later frames, started again by a new result.
TEST(OverviewPanelView, StampsTheFramesThatFirstDrewTheFirstLayerAndEveryLayer) {
  OverviewPanelView v;
  v.Drew(7, 0, 3);
  v.Stamp(1.0);
  EXPECT_EQ(v.first_layer_t_s, -1);
  EXPECT_EQ(v.all_layers_t_s, -1);
  v.Drew(7, 1, 3);
  v.Stamp(2.0);
  v.Drew(7, 2, 3);
  v.Stamp(3.0);
  EXPECT_EQ(v.first_layer_t_s, 2.0);
  EXPECT_EQ(v.all_layers_t_s, -1);
  v.Stamp(3.5);  // a frame that did not draw the Overview (a collapsed panel) stamps nothing
  v.Drew(7, 3, 3);
  v.Stamp(4.0);
  v.Drew(7, 3, 3);
  v.Stamp(5.0);
  EXPECT_EQ(v.first_layer_t_s, 2.0);
  EXPECT_EQ(v.all_layers_t_s, 4.0);
  v.Drew(8, 3, 3);  // a new run, done in one go
  v.Stamp(6.0);
  EXPECT_EQ(v.generation, 8u);
  EXPECT_EQ(v.first_layer_t_s, 6.0);
  EXPECT_EQ(v.all_layers_t_s, 6.0);
}

TEST_F(ModelPanelTest, ARequestSentAsTheOpenFinishesIsNotSentAgain) {
  App& app = MakeApp("The cat sat on the mat.");
  ASSERT_TRUE(app.models->WaitIdle(30));  // open finished; the app has not looked yet
  ASSERT_TRUE(app.models->folder()) << OpenErrorText(*app.models);
  app.SubmitIfChanged();  // the run's request, before the open is seen
  ASSERT_TRUE(app.models->latest() == nullptr || app.models->latest()->generation == 1);
  Frames(3);  // UpdateModel sees the finished open of the same folder
  ASSERT_TRUE(app.results.model) << app.results.model_error;
  EXPECT_TRUE(app.results.model->complete());
  EXPECT_EQ(app.results.model->generation, 1u) << "the request was sent twice";
}

// A model map's caption names its layer beside its head; a rollout map, one per layer with the heads mixed, is named
// by its kind, never "head 0".
TEST_F(ModelPanelTest, MapCaptionsNameTheLayerAndARolloutIsNoHead) {
  App& app = MakeApp("The cat sat on the mat. The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  app.settings.model_layer = 1;
  Frames(3);
  const WidgetDump::Widget* caption = app.dump.Find("heads.map.2.caption");
  ASSERT_NE(caption, nullptr);
  EXPECT_NE(caption->value_json.find("layer 1 \xC2\xB7 head 2"), std::string::npos) << caption->value_json;
  Click("heads.kind_rollout");
  Frames(3);
  caption = app.dump.Find("heads.map.0.caption");
  ASSERT_NE(caption, nullptr);
  EXPECT_NE(caption->value_json.find("layer 1 \xC2\xB7 "), std::string::npos) << caption->value_json;
  EXPECT_EQ(caption->value_json.find("head"), std::string::npos) << caption->value_json;
}

// The run makes its rollout after the last layer (the overview first): while a result says it is pending, the Rollout
// kind draws nothing in the Overview or the Heads panel (not the attention maps in its place) and says it is being
// made; once the result with it arrives, both show it.
TEST_F(ModelPanelTest, ARolloutStillBeingMadeIsShownAsPendingThenDrawn) {
  App& app = MakeApp("The cat sat on the mat. The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  const std::shared_ptr<const ModelResult> made = app.results.model;
  ASSERT_FALSE(made->rollout_pending);
  for (int l = 0; l < made->n_layer(); ++l) ASSERT_FALSE(made->analysis[(size_t)l]->rollout->empty()) << l;
  app.views.heads.kind = MapKind::kRollout;  // what the radio button sets
  // As the run publishes it after its last layer: every layer there, no rollout yet (a newer step of the run).
  auto pending = std::make_shared<ModelResult>(*made);
  pending->generation = made->generation + 1;
  pending->rollout_pending = true;
  for (auto& a : pending->analysis) {
    auto without = std::make_shared<LayerAnalysis>(*a);
    without->rollout = EmptyTensor();
    a = without;
  }
  app.results.model = pending;
  const HeatmapKey overview{MapView::kOverview, 1, 0, 0};
  Frames(2);
  const int drawn_before = renderer_.calls[overview];
  Frames(2);
  EXPECT_EQ(renderer_.calls[overview], drawn_before) << "a pending rollout drew something in the Overview";
  EXPECT_FALSE(app.results.shown) << "the Heads panel showed a map for a rollout not made yet";
  EXPECT_NE(app.dump.Field("map_kind").find("\"making\": true"), std::string::npos) << app.dump.Field("map_kind");
  // The kinds stay in reach meanwhile: back to Attention shows the layer's maps at once.
  Click("heads.kind_attention");
  Frames(2);
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.views.heads.kind, MapKind::kAttention);
  Click("heads.kind_rollout");
  Frames(2);
  EXPECT_FALSE(app.results.shown);
  // The result with the rollout: both panels draw it, the Heads panel R_l itself.
  auto done = std::make_shared<ModelResult>(*made);
  done->generation = made->generation + 2;
  app.results.model = done;
  Frames(3);
  EXPECT_GT(renderer_.calls[overview], drawn_before);
  ASSERT_TRUE(app.results.shown);
  const int layer = std::clamp(app.settings.model_layer, 0, made->n_layer() - 1);
  EXPECT_EQ(app.results.shown->maps->probs->data, made->analysis[(size_t)layer]->rollout->data);
  EXPECT_NE(app.dump.Field("map_kind").find("\"making\": false"), std::string::npos) << app.dump.Field("map_kind");
}

// A streamed (long) input: the shown layer has no q and k at first (its view reads the finest kept level), then
// gets them from the background, made from the layer's input; a click on another layer does the same for it.
TEST_F(ModelPanelTest, AStreamedLayerOnScreenGetsItsQAndKInTheBackground) {
  App& app = MakeStreamedApp();
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  ASSERT_TRUE(app.results.model->streamed);
  for (int layer : {0, 2}) {
    SCOPED_TRACE("layer " + std::to_string(layer));
    if (layer) Click("overview.map." + std::to_string(layer) + ".1");
    Frames(2);
    ASSERT_TRUE(app.results.shown);
    EXPECT_EQ(app.settings.model_layer, layer);
    EXPECT_TRUE(app.Ready());
    const LayerMaps& t = *app.results.shown->maps;
    ASSERT_TRUE(t.pooled);
    ASSERT_FALSE(t.q->empty()) << "no exact rows for the layer on screen";
    const LayerMaps want = testing::ExactLayer(*app.results.model, layer);
    EXPECT_EQ(t.q->data, want.q->data);
    EXPECT_EQ(t.k->data, want.k->data);
    // Hover is exact: a cell of the shown layer has a probability, not NaN.
    EXPECT_FALSE(std::isnan(ExactAt(t.Source(1), nullptr, 1, 5, 2).prob));
  }
  // The layers not on screen keep no q and k.
  EXPECT_TRUE(app.results.model->layers[1]->q->empty());
}

// While a streamed run's layers still come in, the shown layer's q and k wait (their job would take the run's cores
// for cells nobody looked at): they are made once the pointer is over a map, or once the last layer is in.
TEST_F(ModelPanelTest, AStreamedLayersQAndKWaitForALookOrTheLastLayer) {
  App& app = MakeStreamedApp();
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  const std::shared_ptr<const ModelResult> done = app.results.model;
  ImGuiIO& io = ImGui::GetIO();
  const ImVec2 away(-FLT_MAX, -FLT_MAX);  // no pointer over the window
  // The run as it was after its first layer (a later request's step: layer 0 done, the others to come).
  auto first_layer_only = [&](uint64_t generation) {
    auto r = std::make_shared<ModelResult>(*done);
    r->generation = generation;
    r->layers_done = 1;
    return r;
  };
  auto shown_q_empty = [&] { return !app.results.shown || app.results.shown->maps->q->empty(); };
  const LayerMaps want = testing::ExactLayer(*done, 0);

  // 1. Layers still coming, nobody looking: the layer is shown pooled, its q and k are not asked for.
  io.MousePos = away;
  app.settings.model_layer = 0;
  app.results.model = first_layer_only(done->generation + 10);
  Frames(3);
  ASSERT_TRUE(app.results.shown);
  ASSERT_TRUE(app.results.shown->maps->pooled);
  EXPECT_TRUE(shown_q_empty()) << "q and k made while the run's layers still stream in";
  EXPECT_FALSE(app.Ready());  // the run is not complete
  // 2. The pointer over a map of it: made now, the same as LayerWithExactRows'.
  const WidgetDump::Widget* map = app.dump.Find("heads.map.1");
  ASSERT_NE(map, nullptr);
  io.MousePos = ImVec2((map->x0 + map->x1) * 0.5f, (map->y0 + map->y1) * 0.5f);
  Frames(3);
  ASSERT_FALSE(shown_q_empty()) << "the hovered layer got no q and k";
  EXPECT_EQ(app.results.shown->maps->q->data, want.q->data);
  EXPECT_EQ(app.results.shown->maps->k->data, want.k->data);
  // 3. Another run's first layer, nobody looking; then its last layer comes in: made then.
  io.MousePos = away;
  app.results.model = first_layer_only(done->generation + 20);
  Frames(3);
  EXPECT_TRUE(shown_q_empty());
  auto complete = std::make_shared<ModelResult>(*done);
  complete->generation = done->generation + 20;
  app.results.model = complete;
  Frames(3);
  ASSERT_FALSE(shown_q_empty()) << "no q and k once the run was complete";
  EXPECT_EQ(app.results.shown->maps->q->data, want.q->data);
  EXPECT_TRUE(app.Ready());
}

// The same in the value-weighted kind: the shown layer gets its value-weighted pyramid (and q, k) in the background,
// its exact cells weighted by the value norms; the overview keeps attention thumbnails and says so.
TEST_F(ModelPanelTest, AStreamedLayerOnScreenGetsItsValueWeightedMapInTheBackground) {
  App& app = MakeStreamedApp();
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  ASSERT_TRUE(app.results.model->streamed);
  app.views.heads.kind = MapKind::kValueWeighted;  // what the radio button sets
  for (int layer : {0, 2}) {
    SCOPED_TRACE("layer " + std::to_string(layer));
    if (layer) Click("overview.map." + std::to_string(layer) + ".1");
    Frames(3);
    ASSERT_TRUE(app.results.shown);
    EXPECT_EQ(app.settings.model_layer, layer);
    EXPECT_TRUE(app.Ready());
    const ModelResult& model = *app.results.model;
    const LayerMaps& t = *app.results.shown->maps;
    ASSERT_TRUE(t.pooled);
    ASSERT_FALSE(t.col_scale->empty()) << "no value-weighted map for the layer on screen";
    EXPECT_EQ(t.col_scale, model.analysis[(size_t)layer]->value_norms);
    ASSERT_FALSE(t.q->empty());
    const LayerMaps attention = testing::ExactLayer(model, layer);
    EXPECT_EQ(t.q->data, attention.q->data);
    Result<std::shared_ptr<const MapPyramid>> want = ValueWeightedLayerPyramid(model, layer, *attention.q, *attention.k);
    ASSERT_TRUE(want) << want.message();
    ASSERT_TRUE(t.pyramid);
    ASSERT_EQ(t.pyramid->levels().size(), (*want)->levels().size());
    for (size_t v = 0; v < t.pyramid->levels().size(); ++v) {
      EXPECT_EQ(t.pyramid->levels()[v].max, (*want)->levels()[v].max);
      EXPECT_EQ(t.pyramid->levels()[v].mean, (*want)->levels()[v].mean);
    }
    // Hover is exact and weighted: the attention cell times key 2's value norm.
    const float norm = model.analysis[(size_t)layer]->value_norms->data[(size_t)1 * model.tokens.size() + 2];
    EXPECT_FLOAT_EQ(ExactAt(t.Source(1), nullptr, 1, 5, 2).prob, ExactAt(attention.Source(1), nullptr, 1, 5, 2).prob * norm);
    EXPECT_NE(app.dump.Field("map_kind").find("\"making\": false"), std::string::npos) << app.dump.Field("map_kind");
  }
  // Back to attention: the layer's own maps again.
  app.views.heads.kind = MapKind::kAttention;
  Frames(3);
  ASSERT_TRUE(app.results.shown);
  EXPECT_TRUE(app.results.shown->maps->col_scale->empty());
  EXPECT_EQ(app.results.shown->maps->pyramid, app.results.model->layers[2]->pyramid);
}

// The Overview of a streamed run in the value-weighted kind: every layer's value-weighted pyramid, made in the
// background from each layer's kept input, at the thumbnails' level, and drawn in place of attention's.
TEST_F(ModelPanelTest, AStreamedRunsOverviewGetsValueWeightedThumbnailsInTheBackground) {
  App& app = MakeStreamedApp();
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  ASSERT_TRUE(app.results.model->streamed);
  EXPECT_EQ(app.models->weighted_overview(), nullptr) << "made only when the kind asks for it";
  app.views.heads.kind = MapKind::kValueWeighted;
  Frames(4);
  const ModelResult& model = *app.results.model;
  const std::shared_ptr<const WeightedOverview> w = app.models->weighted_overview();
  ASSERT_TRUE(w);
  ASSERT_TRUE(w->status.ok()) << w->status.message();
  EXPECT_TRUE(w->request.Of(app.results.model));
  ASSERT_TRUE(w->complete());
  const std::string overview = app.dump.Field("overview");
  EXPECT_NE(overview.find("\"kind\": \"value_weighted\""), std::string::npos) << overview;
  EXPECT_NE(overview.find("\"weighted_layers\": " + std::to_string(model.n_layer())), std::string::npos) << overview;
  for (int layer = 0; layer < model.n_layer(); ++layer) {
    SCOPED_TRACE("layer " + std::to_string(layer));
    // What the Overview draws for the layer: the job's pyramid, which is the layer's value-weighted pyramid (as the
    // Heads panel makes it) from the thumbnails' level on.
    const std::shared_ptr<const LayerMaps> drawn_layer = app.OverviewLayer(layer, false);
    ASSERT_TRUE(drawn_layer);
    const LayerMaps& drawn = *drawn_layer;
    ASSERT_EQ(drawn.pyramid, w->layers[(size_t)layer]);
    EXPECT_TRUE(drawn.probs->empty());
    const LayerMaps attention = testing::ExactLayer(model, layer);
    Result<std::shared_ptr<const MapPyramid>> want =
        ValueWeightedLayerPyramid(model, layer, *attention.q, *attention.k, nullptr,
                                  ThumbnailFactor((int)model.tokens.size()));
    ASSERT_TRUE(want) << want.message();
    ASSERT_EQ(drawn.pyramid->levels().size(), (*want)->levels().size());
    for (size_t v = 0; v < drawn.pyramid->levels().size(); ++v) {
      EXPECT_EQ(drawn.pyramid->levels()[v].max, (*want)->levels()[v].max);
      EXPECT_EQ(drawn.pyramid->levels()[v].mean, (*want)->levels()[v].mean);
    }
    // Not attention's: each cell weighed by its key's value norm.
    EXPECT_NE(drawn.pyramid->levels()[0].mean, model.layers[(size_t)layer]->pyramid->levels()[0].mean);
  }
  // A new run (another what-if) asks again: the thumbnails follow the result on screen.
  app.settings.model_temperature = 2.0f;
  Frames(6);
  ASSERT_TRUE(app.results.model && app.results.model->complete());
  ASSERT_TRUE(app.models->weighted_overview());
  EXPECT_TRUE(app.models->weighted_overview()->request.Of(app.results.model));
}

TEST_F(ModelPanelTest, WhatIfsRecomputeAndSpecialTokensHide) {
  App& app = MakeApp("The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model);
  const std::vector<float> before = app.results.model->layers[1]->probs->data;
  const uint64_t generation = app.results.model->generation;
  app.settings.model_no_scale = true;  // what the checkbox sets
  app.settings.model_whatif_layers = "1";
  Frames(4);
  ASSERT_GT(app.results.model->generation, generation);
  EXPECT_TRUE(app.results.model->request.no_scale);
  EXPECT_EQ(app.results.model->layers[0]->probs->data, app.results.model->layers[0]->probs->data);
  EXPECT_NE(app.results.model->layers[1]->probs->data, before) << "no_scale on layer 1 changed nothing";
  // Each layer's maps say how they were made (no sandbox config is made up for a model layer): layer 1 unscaled,
  // layers 0 and 2 scaled by 1/sqrt(d_head = 4), and the Heads panel's status line says so for the layer shown.
  for (int l = 0; l < 3; ++l) {
    const LayerMaps& maps = *app.results.model->layers[(size_t)l];
    EXPECT_EQ(maps.scaled, l != 1) << l;
    EXPECT_EQ(maps.d_qk, 4);
    EXPECT_FLOAT_EQ(maps.multiplier, l == 1 ? 1.0f : 0.5f) << l;
    EXPECT_EQ(maps.mask, Mask::Causal());
  }
  app.settings.model_layer = 1;
  Frames(2);
  EXPECT_FALSE(app.results.shown->maps->scaled);
  EXPECT_FALSE(app.results.shown->sandbox) << "a model layer is shown with a sandbox run beside it";
  EXPECT_EQ(app.results.shown->model, app.results.model);
  const std::string result = app.dump.Field("result");
  EXPECT_NE(result.find("\"d_k\": 4, \"scale\": false"), std::string::npos) << result;
  // A bad layer list is refused with the range, and nothing is submitted.
  app.settings.model_whatif_layers = "7";
  Frames(2);
  EXPECT_NE(app.results.config_error.Render().find("0..2"), std::string::npos) << app.results.config_error;
  app.settings.model_whatif_layers = "";
  Frames(3);
  EXPECT_TRUE(app.results.config_error.empty());
}

// A token chip's tooltip and the predictions write a token as ShownText does: "id 274  ·cat", never the vocabulary's
// "Ġcat" (a glyph the font lacks: U+FFFD on screen).
TEST_F(ModelPanelTest, TokenTooltipsAndPredictionsShowALeadingSpaceNotItsPiece) {
  App& app = MakeApp("The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->complete());
  const std::vector<tokenize::Token>& tokens = app.results.model->tokens;
  ASSERT_GT(tokens.size(), 2u);
  ASSERT_EQ(tokens[1].display[0], ' ');
  const std::string tip = TokenTipLines(tokens, 1, 1);
  EXPECT_EQ(tip, "id " + std::to_string(tokens[1].id) + "  \xC2\xB7" + tokens[1].display.substr(1)) << tip;
  std::string guesses;
  for (int p = 0; p < (int)tokens.size(); ++p) guesses += PredictionLines(app.results, p);
  ASSERT_FALSE(guesses.empty());
  for (const char* raw : {"\xC4\xA0", "\xEF\xBF\xBD"}) EXPECT_EQ(guesses.find(raw), std::string::npos) << guesses;
}

// BERT: "hide special tokens" hides [CLS] and [SEP] but keeps [MASK] (where the masked LM predicts), the status line
// says the layer's d_k (never d_k=0), and a WordPiece "##" piece's chip shows its text (ImGui took "##" for an id).
TEST_F(ModelPanelTest, BertHidesClsAndSepKeepsMaskAndShowsWordPieceChips) {
  model_dir_ = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/bert";
  App& app = MakeApp("the cat [MASK] on the mat");
  for (int i = 0; i < 300 && !(app.results.model && app.results.model->complete()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  Frames(2);
  ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
  bool some_word_piece = false;
  for (size_t g = 0; g < app.views.model.chips.chips.size(); ++g) {
    const TokenChips::Chip& chip = app.views.model.chips.chips[g];
    const WidgetDump::Widget* w = app.dump.Find("model.token." + std::to_string(g));
    EXPECT_FALSE(chip.label.empty());
    if (!w) continue;  // a line out of sight is not submitted
    if (app.results.model->tokens[chip.first].piece.rfind("##", 0) == 0) {
      some_word_piece = true;
      EXPECT_EQ(chip.label.rfind("##", 0), 0u) << chip.label;
      EXPECT_GT(w->x1 - w->x0, ImGui::CalcTextSize(chip.label.c_str(), nullptr, false).x) << "the chip fits its text";
    }
  }
  EXPECT_TRUE(some_word_piece) << "\"cat\" is c ##a ##t in the fixture's vocabulary";
  app.settings.model_hide_special = true;
  Frames(3);
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  const LayerMaps& maps = *app.results.shown->maps;
  bool mask = false, cls_or_sep = false;
  for (size_t i = 0; i < maps.kv_tokens.size(); ++i) {
    mask |= maps.kv_tokens[i].piece == "[MASK]";
    cls_or_sep |= maps.kv_tokens[i].piece == "[CLS]" || maps.kv_tokens[i].piece == "[SEP]";
  }
  EXPECT_TRUE(mask) << "[MASK] is hidden with the special tokens";
  EXPECT_FALSE(cls_or_sep);
  const std::string summary = app.dump.Field("heads_summary");
  EXPECT_NE(summary.find("d_k="), std::string::npos) << summary;
  EXPECT_EQ(summary.find("d_k=0"), std::string::npos) << summary;
}

// A text over the model's positions: the Model panel's refusal, the Overview shows it (not "computing the first
// maps" with nothing running), Shapes writes n (not 0), and "use the first 64 tokens" cuts the text and runs it.
TEST_F(ModelPanelTest, ATextOverThePositionsIsRefusedEverywhereAndItsFirstTokensRun) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "the cat ";
  App& app = MakeApp(text);
  Frames(4);
  ASSERT_FALSE(app.results.model_error.empty());
  EXPECT_TRUE(app.results.model_error.Says(MsgId::kTextTooLongForModel)) << app.results.model_error;
  EXPECT_EQ(app.dump.Field("overview_refusal"), JsonString(app.results.model_error.Render()));
  const WidgetDump::Widget* x = app.dump.Find("shapes.model.x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->value_json.find("[0,"), std::string::npos) << x->value_json;
  EXPECT_NE(x->value_json.find("[n,"), std::string::npos) << x->value_json;
  ASSERT_NE(app.dump.Find("model.use_first_tokens"), nullptr);
  EXPECT_NE(app.dump.Find("model.use_first_tokens")->label.find("64"), std::string::npos);
  // What the button sets (the headless click does not reach it below the panel's fold).
  const auto cut = TextOfFirstTokens(*app.models->folder(), text);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  app.settings.kv_text = *cut;
  for (int i = 0; i < 300 && !(app.results.model && app.results.model->complete()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  Frames(2);
  EXPECT_TRUE(app.results.model_error.empty()) << app.results.model_error;
  ASSERT_TRUE(app.results.model && app.results.model->complete());
  EXPECT_EQ(app.results.model->tokens.size(), 64u);
  EXPECT_EQ(text.rfind(app.settings.kv_text, 0), 0u) << "the text's start";
  EXPECT_EQ(app.dump.Field("overview_refusal"), "");
  EXPECT_EQ(app.dump.Find("model.use_first_tokens"), nullptr);
}

TEST_F(ModelPanelTest, EveryHeadHasARoleAndTheFilterDimsTheOthers) {
  App& app = MakeApp("a b c d e f a b c d e f");
  Frames(4);
  ASSERT_TRUE(app.results.model);
  const model::HeadRoles& roles = app.results.model->roles;
  ASSERT_EQ(roles.n_layer, 3);
  ASSERT_EQ(roles.n_head, 4);
  EXPECT_GT(roles.induction_rows, 0);  // the repeated half
  // The badge the overview shows is the head's strongest role.
  const WidgetDump::Widget* w = app.dump.Find("overview.map.1.2");
  ASSERT_NE(w, nullptr);
  const std::string best = model::RoleName(model::StrongestRole(roles.at(1, 2)).role);
  EXPECT_NE(w->value_json.find("\"role\": \"" + best + "\""), std::string::npos) << w->value_json;
  // A filter every head passes, one no head passes, and one that is not a filter.
  app.settings.model_role_filter = "broad >= 0";
  Frames(2);
  EXPECT_NE(app.dump.Field("overview").find("\"matching\": 12"), std::string::npos) << app.dump.Field("overview");
  app.settings.model_role_filter = "induction > 1";
  Frames(2);
  EXPECT_NE(app.dump.Field("overview").find("\"matching\": 0"), std::string::npos) << app.dump.Field("overview");
  EXPECT_NE(app.dump.Find("overview.map.0.0")->value_json.find("\"match\": false"), std::string::npos);
  // The Model panel says what the selected head does, in one sentence, and what uniform attention would score.
  EXPECT_NE(app.dump.Field("model_head_role").find(model::RoleSentence(model::StrongestRole(roles.at(0, 0)).role)),
            std::string::npos);
  ASSERT_EQ(roles.chance.size(), 3u);
  const model::HeadRole role00 = model::StrongestRole(roles.at(0, 0)).role;
  if (role00 != model::HeadRole::kBroad)
    EXPECT_NE(app.dump.Field("model_head_role").find("(uniform attention would score " +
                                                     FormatNumber(roles.chance[0][role00], "%.2f") + ")"),
              std::string::npos) << app.dump.Field("model_head_role");
  // So does the Heads panel, above the enlarged head of the layer it shows.
  EXPECT_TRUE(app.dump.Field("heads_role").empty());  // the grid: no one head to describe
  app.settings.model_layer = 1;
  app.settings.selected_head = 2;
  app.settings.enlarged = true;
  Frames(3);
  const std::string line = app.dump.Field("heads_role");
  EXPECT_NE(line.find(model::RoleSentence(model::StrongestRole(roles.at(1, 2)).role)), std::string::npos) << line;
  EXPECT_NE(line.find(best), std::string::npos) << line;
}

// The learner trial, at 1280x800 in model mode: the enlarged map under its role line ran past the Heads panel (its
// last rows and caption unreachable). The map is sized below the line: its caption ends inside the panel.
TEST_F(ModelPanelTest, EnlargedMapAndItsCaptionFitTheHeadsPanelUnderTheRoleLine) {
  std::string text;
  for (int i = 0; i < 3; ++i) text += "the cat sat on the mat and the dog ran to the park ";
  App& app = MakeApp(text);
  Frames(4);
  ASSERT_TRUE(app.results.model);
  app.settings.model_layer = 1;
  app.settings.selected_head = 2;
  app.settings.enlarged = true;
  Frames(3);
  ASSERT_FALSE(app.dump.Field("heads_role").empty());  // the line above the map
  const ImGuiWindow* heads = ImGui::FindWindowByName(WindowTitle(Str::kWinHeads, "Heads").c_str());
  ASSERT_NE(heads, nullptr);
  const float bottom = heads->Pos.y + heads->Size.y;
  const WidgetDump::Widget* map = app.dump.Find("heads.enlarged");
  const WidgetDump::Widget* caption = app.dump.Find("heads.enlarged.caption");
  ASSERT_NE(map, nullptr);
  ASSERT_NE(caption, nullptr);
  EXPECT_LE(map->y1, bottom) << "map " << map->y0 << ".." << map->y1 << ", panel ends at " << bottom;
  EXPECT_LE(caption->y1, bottom) << "caption " << caption->y0 << ".." << caption->y1 << ", panel ends at " << bottom;
  EXPECT_TRUE(caption->visible);
}

// The Model panel's one-line description of the model in the UI's language; in English, the model's own
// Describe() (the two are kept in step).
TEST_F(ModelPanelTest, ModelDescriptionInKorean) {
  App& app = MakeApp("The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model) << app.results.model_error << OpenErrorText(*app.models);
  std::shared_ptr<const ModelFolder> folder = app.models->folder();
  ASSERT_TRUE(folder);
  EXPECT_EQ(app.dump.Field("model_description"), JsonString(folder->Describe()));
  app.SetLanguage(Lang::kKo);
  Frames(1);
  const std::string korean = app.dump.Field("model_description");
  EXPECT_NE(korean.find(": gpt2: 층 3개, 헤드 4개 x 4, d_model 16, d_ff "), std::string::npos) << korean;
  EXPECT_NE(korean.find(", 어휘 2300, 위치 "), std::string::npos) << korean;
  EXPECT_EQ(korean.find("layers"), std::string::npos) << korean;
  SetLang(Lang::kEn);
}

TEST_F(ModelPanelTest, BackToTheSandboxInOneClick) {
  App& app = MakeApp("I go home.");
  Frames(4);
  ASSERT_TRUE(app.results.model);
  Click("model.source_sandbox");
  Frames(3);
  EXPECT_EQ(app.settings.source, Source::kSandbox);
  ASSERT_TRUE(app.results.shown);
  EXPECT_EQ(app.results.shown->maps->n_head(), app.settings.config.n_head);  // the sandbox's result again
  EXPECT_NE(app.dump.Find("controls.d_model"), nullptr);
  Click("controls.trained_model");
  Frames(3);
  EXPECT_EQ(app.settings.source, Source::kModel);
  EXPECT_EQ(app.results.shown->maps->probs.get(), app.results.model->layers[(size_t)app.settings.model_layer]->probs.get());
}

TEST_F(ModelPanelTest, ABadFolderSaysWhyAndKeepsTheWindowWorking) {
  std::filesystem::remove(model_dir_ + "/model.safetensors");
  App& app = MakeApp("I go home.");
  Frames(4);
  EXPECT_NE(OpenErrorText(*app.models).find("model.safetensors"), std::string::npos) << OpenErrorText(*app.models);
  EXPECT_FALSE(app.results.model);
}

// Issue 12: the open error and the role filter's refusal in the UI's language, the facts (folder, role) kept;
// the open error follows a change of language (the app keeps the error, not its text).
TEST_F(ModelPanelTest, ModelErrorsInKorean) {
  struct EnglishAtTheEnd {
    ~EnglishAtTheEnd() { SetLang(Lang::kEn); }
  } english_at_the_end;
  std::filesystem::remove(model_dir_ + "/model.safetensors");
  App& app = MakeApp("I go home.");
  Frames(4);
  SetLang(Lang::kKo);
  Frames(2);
  const std::string ko = app.dump.Field("model_open_error");
  EXPECT_NE(ko.find(model_dir_ + ": model.safetensors도 model.safetensors.index.json도 없습니다"), std::string::npos) << ko;
  SetLang(Lang::kEn);
  EXPECT_NE(OpenErrorText(*app.models).find(model_dir_ + ": no model.safetensors or model.safetensors.index.json"),
            std::string::npos)
      << OpenErrorText(*app.models);

  WriteTinyGpt2(model_dir_, 3, 4, 16, 2300);
  App& good = MakeApp("a b c a b c");
  Frames(4);
  ASSERT_TRUE(good.results.model) << OpenErrorText(*good.models);
  good.settings.model_role_filter = "copying >= 0.4";
  SetLang(Lang::kKo);
  Frames(2);
  const std::string overview = good.dump.Field("overview");
  EXPECT_NE(overview.find("알 수 없는 헤드 역할 'copying'"), std::string::npos) << overview;
  EXPECT_NE(overview.find("역할 연산자 수의 꼴로 쓰십시오"), std::string::npos) << overview;
}

// Issue 26: a .gguf file opens as a model from --model, the positional argument and a drop, and the Model panel says
// what was read (the architecture, the tensor types, the file's size) in both languages; a path that is neither a
// model folder nor a .gguf file is refused as such.
TEST_F(ModelPanelTest, AGgufFileOpensAsAModelAndSaysWhatWasRead) {
  struct EnglishAtTheEnd {
    ~EnglishAtTheEnd() { SetLang(Lang::kEn); }
  } english_at_the_end;
  // a 1-layer llama (one head of width 2, d_ff 2, 8 tokens) whose token embedding alone is q4_K, with a byte-level
  // tokenizer (tests/fixtures/gguf/README.md, probe/)
  const std::string gguf = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/gguf/probe/q4_K.gguf";
  model_dir_ = gguf;
  App& app = MakeApp("The cat sat on the mat.");
  Frames(6);
  ASSERT_TRUE(app.results.model) << app.results.model_error << OpenErrorText(*app.models);
  EXPECT_EQ(app.settings.source, Source::kModel);
  EXPECT_EQ(app.results.model->n_layer(), app.models->folder()->model->config().n_layer);
  EXPECT_TRUE(app.results.model->complete());
  EXPECT_TRUE(app.models->folder()->model->per_layer());  // quantized: dequantized per layer
  const std::string read = app.dump.Field("model_gguf");
  EXPECT_NE(read.find("GGUF file: architecture llama, tensor types F32, Q4_K, "), std::string::npos) << read;
  const std::string bytes = std::to_string(std::filesystem::file_size(gguf)) + " bytes on disk";
  EXPECT_NE(read.find(bytes), std::string::npos) << read;
  const model::ModelConfig& c = app.models->folder()->model->config();
  for (int h = 0; h < c.n_head; ++h)
    EXPECT_GT(renderer_.calls[(HeatmapKey{MapView::kOverview, c.n_layer - 1, h, 0})], 0) << h;
  SetLang(Lang::kKo);
  Frames(1);
  const std::string ko = app.dump.Field("model_gguf");
  EXPECT_NE(ko.find("GGUF 파일: 아키텍처 llama, 텐서 형식 F32, Q4_K, "), std::string::npos) << ko;
  SetLang(Lang::kEn);

  // Every matrix deferred (llama_e2e in f16/bf16: attn_output and the tied LM head among them), as in any real
  // quantized file: each layer's value norms and the predictions read the per-layer weights (the open crashed on
  // params().blocks[l].o, null there, and the LM head was missing).
  const std::string half = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/gguf/models/llama_e2e_half.gguf";
  model_dir_ = half;
  App& deferred = MakeApp("The cat sat on the mat.");
  Frames(6);
  ASSERT_TRUE(deferred.results.model) << deferred.results.model_error << OpenErrorText(*deferred.models);
  EXPECT_TRUE(deferred.results.model->complete());
  ASSERT_TRUE(deferred.models->folder()->model->per_layer());
  EXPECT_EQ(deferred.models->folder()->model->params().blocks[0].o.w, nullptr);
  EXPECT_TRUE(deferred.results.model->has_lm_head);
  EXPECT_TRUE(deferred.results.model->predictions);
  const model::ModelConfig& hc = deferred.models->folder()->model->config();
  ASSERT_EQ(deferred.results.model->analysis.size(), (size_t)hc.n_layer);
  for (int l = 0; l < hc.n_layer; ++l) {
    ASSERT_TRUE(deferred.results.model->analysis[(size_t)l]) << l;
    EXPECT_EQ(deferred.results.model->analysis[(size_t)l]->value_norms->data.size(),
              (size_t)hc.n_head * deferred.results.model->tokens.size())
        << l;
  }
  EXPECT_NE(deferred.dump.Field("model_gguf").find("tensor types "), std::string::npos);

  // A folder model is not described as a GGUF file.
  model_dir_ = WriteTinyGpt2(dir_ + "/folder", 1, 2, 8, 2300);
  App& folder = MakeApp("I go home.");
  Frames(4);
  ASSERT_TRUE(folder.results.model) << OpenErrorText(*folder.models);
  EXPECT_TRUE(folder.dump.Field("model_gguf").empty());
  // Dropped on the window: the .gguf opens as a model (not as a sentence file).
  folder.pending_drops.push_back(gguf);
  Frames(6);
  ASSERT_TRUE(folder.models->folder());
  EXPECT_EQ(folder.models->folder()->dir, gguf);
  EXPECT_EQ(folder.settings.recent_models.front(), gguf);
  EXPECT_NE(folder.dump.Field("model_gguf").find("architecture llama"), std::string::npos);
  // Typed into the path field: a file that is neither, and a path that does not exist.
  const std::string text_file = dir_ + "/notes.txt";
  ASSERT_TRUE(WriteFileAtomic(text_file, "just text\n").ok());
  folder.OpenModel(text_file);
  Frames(4);
  EXPECT_NE(OpenErrorText(*folder.models).find(text_file + ": neither a model folder (with config.json) nor a .gguf file"),
            std::string::npos)
      << OpenErrorText(*folder.models);
  folder.OpenModel(dir_ + "/missing.gguf");
  Frames(4);
  EXPECT_NE(OpenErrorText(*folder.models).find("missing.gguf: no such folder or file"), std::string::npos)
      << OpenErrorText(*folder.models);
  SetLang(Lang::kKo);
  Frames(1);
  EXPECT_NE(folder.dump.Field("model_open_error").find("그런 폴더나 파일이 없습니다"), std::string::npos)
      << folder.dump.Field("model_open_error");
}

TEST(AppOptionsGguf, APositionalGgufIsTheModelAndATextFileIsText) {
  const std::string gguf = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/gguf/models/qwen2.gguf";
  AppOptions o;
  ASSERT_TRUE(ParseAppOptions({gguf}, &o).ok());
  EXPECT_EQ(o.input.model_dir, gguf);
  EXPECT_TRUE(o.input.text_file.empty());
  AppOptions m;
  ASSERT_TRUE(ParseAppOptions({"--model", gguf}, &m).ok());
  EXPECT_EQ(m.input.model_dir, gguf);
  AppOptions t;
  const std::string sentences = std::string(ATTNVIZ_SOURCE_DIR) + "/assets/sentences.txt";
  ASSERT_TRUE(ParseAppOptions({sentences}, &t).ok());
  EXPECT_TRUE(t.input.model_dir.empty());
  EXPECT_EQ(t.input.text_file, sentences);
}

// Issue 44: `--model ''` opened the sandbox as if no --model were given.
TEST(AppOptionsGguf, AnEmptyModelOptionIsRefused) {
  AppOptions o;
  const Status st = ParseAppOptions({"--model", ""}, &o);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--model: empty; give a model folder or 'tiny'"), std::string::npos) << st.message();
}

#ifdef ATTNVIZ_HAVE_FIGURE
TEST_F(ModelPanelTest, OverviewExportsEveryLayerAndHead) {
  App& app = MakeApp("The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model);
  app.settings.export_target = ExportTarget::kOverview;
  app.settings.export_format = ExportFormat::kNpy;
  app.settings.export_dir = dir_;
  Frames(2);
  EXPECT_EQ(app.views.export_panel.file_name, "attnviz-tiny-gpt2-overview.npy");
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  Result<Tensor> all = ReadNpy(dir_ + "/attnviz-tiny-gpt2-overview.npy");
  ASSERT_TRUE(all.ok()) << all.message();
  const size_t n = app.results.model->tokens.size();
  ASSERT_EQ(all->shape, (std::vector<size_t>{12, n, n}));
  // Map 4*2 + 1 is layer 2, head 1.
  const Tensor& layer2 = *app.results.model->layers[2]->probs;
  EXPECT_TRUE(std::equal(layer2.data.begin() + n * n, layer2.data.begin() + 2 * n * n, all->data.begin() + 9 * n * n));
  // As a figure, each map is named by its layer and head (not "head 9" for layer 2 head 1) and the title names the
  // model's folder beside its family.
  app.settings.export_format = ExportFormat::kSvg;
  Frames(2);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  Result<std::string> svg = ReadFile(dir_ + "/attnviz-tiny-gpt2-overview.svg");
  ASSERT_TRUE(svg.ok()) << svg.message();
  EXPECT_NE(svg->find(">layer 2 head 1<"), std::string::npos);
  EXPECT_NE(svg->find(">layer 0 head 0<"), std::string::npos);
  EXPECT_EQ(svg->find(">head 9<"), std::string::npos) << "a stacked map named by its flat index";
  EXPECT_NE(svg->find("tiny-gpt2 (gpt2)"), std::string::npos);
}

// The Export panel's current head of a model is `attnviz-cli model --figure --layer L --head H` with the same
// what-ifs, byte for byte (MakeModelHeadFigure makes both); its title names the model, the layer, the head, the mask
// and the what-ifs, and so does the visible heads' title.
TEST_F(ModelPanelTest, HeadExportIsTheCliModelFigure) {
  const std::string text = "The cat sat on the mat.";
  App& app = MakeApp(text);
  Frames(4);
  ASSERT_TRUE(app.results.model);
  app.settings.model_no_scale = true;
  app.settings.model_whatif_layers = "0";
  app.settings.model_layer = 1;
  app.settings.selected_head = 2;
  for (int i = 0; i < 500 && !app.results.model->request.no_scale; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Frame();
  }
  ASSERT_TRUE(app.results.model->request.no_scale);
  app.settings.export_target = ExportTarget::kCurrentHead;
  app.settings.export_format = ExportFormat::kSvg;
  app.settings.export_dir = dir_;
  Frames(2);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  Result<std::string> from_app = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(from_app.ok()) << app.views.export_panel.path_written;
  const std::string title = "gpt2 \u00B7 layer 1 \u00B7 head 2 \u00B7 causal \u00B7 no 1/\u221Ad_head on layer 0";
  EXPECT_NE(from_app->find(">" + title + "</text>"), std::string::npos) << title;
  const std::string cli_svg = dir_ + "/cli-head.svg";
  cli_test::CliResult r = cli_test::Cli({"--lang", "en", "model", "--model", model_dir_, "--text", text, "--figure",
                                         cli_svg, "--layer", "1", "--head", "2", "--no-scale", "--layers", "0",
                                         "--dpi", "300"});  // the panel's default dpi
  ASSERT_EQ(r.code, 0) << r.err;
  Result<std::string> from_cli = ReadFile(cli_svg);
  ASSERT_TRUE(from_cli.ok()) << cli_svg;
  EXPECT_TRUE(*from_app == *from_cli) << "the app's figure is not attnviz-cli model --figure's";
  // As PDF too.
  app.settings.export_format = ExportFormat::kPdf;
  Frames(2);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  from_app = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(from_app.ok()) << app.views.export_panel.path_written;
  const std::string cli_pdf = dir_ + "/cli-head.pdf";
  r = cli_test::Cli({"--lang", "en", "model", "--model", model_dir_, "--text", text, "--figure", cli_pdf, "--layer", "1",
                     "--head", "2", "--no-scale", "--layers", "0", "--dpi", "300"});
  ASSERT_EQ(r.code, 0) << r.err;
  from_cli = ReadFile(cli_pdf);
  ASSERT_TRUE(from_cli.ok()) << cli_pdf;
  EXPECT_EQ(from_app->rfind("%PDF-1.4\n", 0), 0u);
  EXPECT_TRUE(*from_app == *from_cli) << "the app's PDF is not attnviz-cli model --figure's";
  app.settings.export_format = ExportFormat::kSvg;

  // The visible heads (head 1 hidden): the same words, "3 heads".
  app.settings.export_target = ExportTarget::kVisibleHeads;
  app.settings.head_hidden[1] = true;
  Frames(2);
  Export();
  ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
  from_app = ReadFile(app.views.export_panel.path_written);
  ASSERT_TRUE(from_app.ok()) << app.views.export_panel.path_written;
  EXPECT_NE(from_app->find(">gpt2 \u00B7 layer 1 \u00B7 3 heads \u00B7 causal \u00B7 no 1/\u221Ad_head on layer 0</text>"),
            std::string::npos);
}


// The current head exported as .npy in each map kind is the map the Heads panel shows: attention, the value-weighted
// map (probs times the value norms) and the rollout (one map), for a whole run and for a streamed one, whose layers
// keep no map and whose cells the export recomputes from q and k. The titles name the kind; a streamed layer's
// figure is of the window on screen.
TEST_F(ModelPanelTest, EveryMapKindExportsWhatTheHeadsPanelShowsWholeOrStreamed) {
  const std::string text = "The cat sat on the mat. The cat sat on the mat again.";
  for (const bool streamed : {false, true}) {
    SCOPED_TRACE(streamed ? "streamed" : "whole");
    App& app = MakeApp(text);
    if (streamed) app.models->set_stream_above_cells(0);
    Frames(4);
    ASSERT_TRUE(app.results.model && app.results.model->complete()) << app.results.model_error;
    ASSERT_EQ(app.results.model->streamed, streamed);
    const ModelResult& model = *app.results.model;
    const int layer = 1, head = 2, n = (int)model.tokens.size();
    app.settings.model_layer = layer;
    app.settings.selected_head = head;
    app.settings.export_target = ExportTarget::kCurrentHead;
    app.settings.export_dir = dir_;
    // The whole run's maps, from the core.
    const model::Model& m = *model.request.folder->model;
    testing::LayerProbsSink core;
    ASSERT_TRUE(model::RunModel(m, TokenIds(model.tokens), WhatIfRunOptions(model.request.what_ifs(), m.config().n_layer), &core).ok());
    const float* probs = core.probs[(size_t)layer].data() + (size_t)head * n * n;
    const float* norms = model.analysis[(size_t)layer]->value_norms->data.data() + (size_t)head * n;
    for (MapKind kind : {MapKind::kAttention, MapKind::kValueWeighted, MapKind::kRollout}) {
      SCOPED_TRACE(MapKindName(kind));
      app.views.heads.kind = kind;
      app.settings.export_format = ExportFormat::kNpy;
      for (int i = 0; i < 300 && !(app.Ready() && !app.results.shown->maps->pooled == !streamed); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        Frame();
      }
      Frames(3);
      Export();
      ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
      Result<Tensor> got = ReadNpy(app.views.export_panel.path_written);
      ASSERT_TRUE(got.ok()) << got.message();
      ASSERT_EQ(got->shape, (std::vector<size_t>{(size_t)n, (size_t)n}));
      double worst = 0;
      for (size_t c = 0; c < (size_t)n * n; ++c) {
        const float want = kind == MapKind::kAttention     ? probs[c]
                           : kind == MapKind::kValueWeighted ? probs[c] * norms[c % n]
                                                            : model.analysis[(size_t)layer]->rollout->data[c];
        worst = std::max(worst, (double)std::fabs(got->data[c] - want));
      }
      EXPECT_LE(worst, 1e-6);
      // The figure's title names the kind (and, streamed, the window it shows).
      app.settings.export_format = ExportFormat::kSvg;
      Frames(2);
      Export();
      ASSERT_TRUE(app.views.export_panel.ok) << app.views.export_panel.message;
      Result<std::string> svg = ReadFile(app.views.export_panel.path_written);
      ASSERT_TRUE(svg.ok());
      const std::string heads = kind == MapKind::kRollout         ? "rollout"
                                : kind == MapKind::kValueWeighted ? "head 2 \u00B7 value-weighted"
                                                                  : "head 2";
      // (A rollout of at most kRolloutMaxTokens is a whole map even when streamed: no window.)
      const std::string window = streamed && kind != MapKind::kRollout ? " \u00B7 queries 0-" + std::to_string(n - 1) + ", keys 0-" + std::to_string(n - 1) : "";
      const std::string title = "gpt2 \u00B7 layer 1 \u00B7 " + heads + " \u00B7 causal" + window + "</text>";
      EXPECT_NE(svg->find(title), std::string::npos) << title;
      // Its colorbar: value-weighted maps on their own range (min..max of the head's visible cells, as the Heads
      // panel draws them), attention and rollout on the fixed 0..1 the settings hold.
      ColorRange range{0.0f, 1.0f};
      if (kind == MapKind::kValueWeighted) {
        range = ColorRange{1e30f, -1e30f};
        for (int i = 0; i < n; ++i)
          for (int j = 0; j <= i; ++j) {  // causal: the cells a row may see
            range.lo = std::min(range.lo, got->data[(size_t)i * n + j]);
            range.hi = std::max(range.hi, got->data[(size_t)i * n + j]);
          }
        ASSERT_GT(range.hi, 1.0f) << "value norms here exceed 1: the fixed range would clip them";
      }
      for (const std::string& tick : FormatTicks(ColorbarTicks(ColorScale::kLinear, range), ColorScale::kLinear, range))
        EXPECT_NE(svg->find(">" + tick + "</text>"), std::string::npos) << "colorbar tick " << tick;
    }
  }
}
#endif

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// A Mistral with a sliding window shorter than its text: the e2e llama fixture (GQA, RoPE, its own tokenizer)
// with model_type mistral and sliding_window 3. In the app, the cells outside each row's window are masked:
// the view writes NaN there (drawn grey), the colorbar shows the masked swatch, the hover says so, the row
// figures count only the keys a row may see, and the export figure masks the same cells.
TEST_F(ModelPanelTest, MistralWindowIsDrawnMaskedInTheAppAndItsFigure) {
  model_dir_ = testing::PatchedE2eFixture("llama", dir_ + "/mistral-window", "\"model_type\": \"llama\"",
                                          "\"model_type\": \"mistral\", \"sliding_window\": 3");
  App& app = MakeApp("the cat sat on the mat and the dog sat on the log");
  Frames(4);
  ASSERT_TRUE(app.results.model) << app.results.model_error << OpenErrorText(*app.models);
  ASSERT_TRUE(app.results.shown);
  const LayerMaps& t = *app.results.shown->maps;
  EXPECT_EQ(t.mask, Mask::Causal(3));
  const int n = t.n_q();
  ASSERT_GT(n, 6);
  // The layer's maps: zero outside the window, and the row figures normalized over min(i + 1, 3) keys.
  const Tensor& probs = *t.probs;
  for (int i = 0; i < n; ++i) {
    double entropy = 0;
    for (int j = 0; j < n; ++j) {
      const float p = probs.data[(size_t)i * n + j];  // head 0
      if (j > i || i - j >= 3) {
        ASSERT_EQ(p, 0.0f) << i << "," << j;
      }
      if (p > 0) entropy -= p * std::log((double)p);
    }
    const int visible = std::min(i + 1, 3);
    EXPECT_NEAR(t.metrics[0].rows[(size_t)i].norm_entropy, visible > 1 ? entropy / std::log((double)visible) : 0.0,
                1e-4) << "row " << i;
  }
  // The enlarged map as drawn: NaN (masked, drawn grey) before the window as after the diagonal.
  Click("overview.map.1.2");
  Frames(2);
  const HeatmapImage& img = renderer_.last[(HeatmapKey{MapView::kEnlarged, 0, 2, 0})];
  ASSERT_EQ(img.n_q, n);
  ASSERT_EQ(img.n_k, n);
  EXPECT_TRUE(img.masked);
  const Tensor& layer1 = *app.results.model->layers[1]->probs;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const float drawn = img.probs[(size_t)i * n + j];
      if (j > i || i - j >= 3) EXPECT_TRUE(std::isnan(drawn)) << "masked cell " << i << "," << j << " drawn as " << drawn;
      else EXPECT_EQ(drawn, layer1.data[((size_t)2 * n + i) * n + j]) << i << "," << j;
    }
  // The overview's thumbnails mask the same cells.
  const HeatmapImage& thumb = renderer_.last[(HeatmapKey{MapView::kOverview, 1, 2, 0})];
  ASSERT_EQ(thumb.n_q, n);
  EXPECT_TRUE(std::isnan(thumb.probs[(size_t)(n - 1) * n + 0])) << "the first key is outside the last row's window";
  EXPECT_FALSE(std::isnan(thumb.probs[(size_t)(n - 1) * n + n - 1]));
  // The figure the Export panel writes for this head masks them too.
  HeatmapExportOptions o;
  o.head = 2;
  o.out_path = dir_ + "/window.svg";
  Result<HeatmapSpec> spec = MakeHeatmapSpec(*app.results.shown->maps, nullptr, o);
  ASSERT_TRUE(spec.ok()) << spec.message();
  EXPECT_TRUE(spec->any_masked());
  EXPECT_TRUE(spec->masked(n - 1, n - 4));
  EXPECT_FALSE(spec->masked(n - 1, n - 3));
  EXPECT_TRUE(spec->masked(2, 3));
}

}  // namespace
}  // namespace attnviz

// ---- Head ablation and the loss in the app (gui-predict): the right-click menu of an Overview cell ablates the
// head, the rerun resumes at its layer, the Model panel shows the loss beside the plain run's; the scan ranks the
// heads for the shown text only.
namespace attnviz {
namespace {

TEST_F(ModelPanelTest, AblatingAHeadFromItsMenuShowsTheLossChange) {
  App& app = MakeApp("The cat sat on the mat.");
  Frames(4);
  ASSERT_TRUE(app.results.model && app.results.model->predictions);
  const double plain = app.results.model->predictions->loss;
  EXPECT_NE(app.dump.Field("loss").find("\"value\": " + JsonNumber(plain)), std::string::npos) << app.dump.Field("loss");
  // Right-click layer 2, head 1 in the Overview, then its menu item.
  Click("overview.map.2.1", kRightButton);
  ASSERT_NE(app.dump.Find("menu.ablate_head"), nullptr) << "no context menu";
  EXPECT_NE(app.dump.Find("menu.ablate_head")->value_json.find("L2 H1"), std::string::npos);
  Click("menu.ablate_head");
  Frames(4);
  ASSERT_TRUE(app.results.model->complete());
  ASSERT_EQ(app.results.model->request.ablated, (std::vector<model::AblatedHead>{{2, 1}}));
  EXPECT_EQ(app.results.model->resumed_from, 2);  // layers 0 and 1 are the plain run's
  ASSERT_TRUE(app.results.model->predictions && app.results.model->baseline_loss);
  EXPECT_EQ(*app.results.model->baseline_loss, plain);
  EXPECT_NE(app.results.model->predictions->loss, plain);
  EXPECT_NE(app.dump.Field("loss").find("\"baseline\": " + JsonNumber(plain)), std::string::npos) << app.dump.Field("loss");
  EXPECT_EQ(app.dump.Field("ablated"), "[[2, 1]]");
  EXPECT_NE(app.dump.Find("overview.map.2.1")->value_json.find("\"ablated\": true"), std::string::npos);
  EXPECT_NE(app.dump.Find("overview.map.2.0")->value_json.find("\"ablated\": false"), std::string::npos);
  // The Heads panel's maps have the same menu, for the layer shown: head 1 of layer 2 is now "Restore".
  app.settings.model_layer = 2;
  app.settings.enlarged = false;
  Frames(2);
  Click("heads.map.1", kRightButton);
  ASSERT_NE(app.dump.Find("menu.ablate_head"), nullptr) << "no context menu on the Heads panel's map";
  EXPECT_NE(app.dump.Find("menu.ablate_head")->value_json.find("Restore head L2 H1"), std::string::npos)
      << app.dump.Find("menu.ablate_head")->value_json;
  ImGui::ClosePopupsExceptModals();
  Frames(1);
  // The scan ranks the heads of this text; a new text leaves it unshown (and cancels it when it still runs).
  app.StartAblationScan();
  ASSERT_TRUE(app.scans->WaitIdle(60));
  Frames(2);
  ASSERT_TRUE(app.ShownScan());
  EXPECT_EQ(app.ShownScan()->ranked.size(), 12u);
  EXPECT_NE(app.dump.Field("ablation_scan").find("\"top\": [["), std::string::npos) << app.dump.Field("ablation_scan");
  // Coloured by the scan, the Overview has a legend: the bar's ends are the signed loss changes the tint stands for.
  EXPECT_EQ(app.dump.Find("overview.delta_legend"), nullptr);  // not coloured yet
  app.views.model.color_by_delta = true;
  Frames(2);
  ASSERT_NE(app.dump.Find("overview.delta_legend"), nullptr);
  const double m = app.ShownScan()->max_abs_delta;
  EXPECT_GT(m, 0);
  EXPECT_EQ(app.dump.Find("overview.delta_legend")->value_json,
            "{\"lo\": " + JsonNumber(-m) + ", \"hi\": " + JsonNumber(m) + "}");
  app.views.model.color_by_delta = false;
  Frames(1);
  EXPECT_EQ(app.dump.Find("overview.delta_legend"), nullptr);
  app.settings.kv_text = "A dog ran.";
  Frames(4);
  EXPECT_FALSE(app.ShownScan());
  // Restore all: the plain run again, with its own loss.
  app.RestoreAllHeads();
  app.settings.kv_text = "The cat sat on the mat.";
  Frames(4);
  ASSERT_TRUE(app.results.model->predictions);
  EXPECT_EQ(app.results.model->predictions->loss, plain);
  EXPECT_EQ(app.dump.Field("ablated"), "[]");
}

}  // namespace
}  // namespace attnviz
