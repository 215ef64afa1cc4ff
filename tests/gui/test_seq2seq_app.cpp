// An encoder-decoder model in the app (no GL): the Marian fixture of tests/fixtures/seq2seq/marian opens instead of
// being refused; with its reference source and target the Overview has the three grids (layers x heads, each of its
// stack's n_q x n_k); a click on a cross-attention head shows it in the Heads panel with target tokens on the rows
// and source tokens on the columns, and a hovered cell's weight is core's RunSeq2Seq cross_probs (and the float64
// reference's); the Shapes tab gives q from the decoder and k, v from the encoder; Translate makes
// reference/generate.json's ids. The session's generation steps (seq2seq_session.h) carry each new token's rows,
// the same rows as the run over the finished target. Predictions, loss and ablation: the target's chips carry
// core's Seq2SeqTokenLoss (and the reference's loss.json), the loss line its mean, a pinned chip the top tokens of
// Seq2SeqTopTokens at its decoder position; a head of each stack ablated from its Overview cell's menu gives the
// loss RunSeq2Seq gives with that ablation (and the reference's), the per-token change against the base run, and
// restoring it gives the base loss back.
#include <gtest/gtest.h>
#include <imgui.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "app.h"
#include "app_driver.h"
#include "headless_imgui.h"
#include "io/file_io.h"
#include "io/npy.h"
#include "model/seq2seq_analysis.h"
#include "model/seq2seq_run.h"
#include "tokenize/shown_text.h"
#include "unicode_slots.h"

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
std::string FixtureDir() { return CaseDir("marian"); }

json ReadJson(const std::string& path) {
  auto text = ReadFile(path);
  EXPECT_TRUE(text) << path;
  return text ? json::parse(*text) : json();
}

std::vector<int> IdsOf(const TokenList& tokens) {
  std::vector<int> ids;
  for (const tokenize::Token& t : tokens) ids.push_back(t.id);
  return ids;
}

model::Seq2SeqStack StackNamed(const std::string& name) {
  return name == "encoder" ? model::Seq2SeqStack::kEncoder
         : name == "decoder" ? model::Seq2SeqStack::kDecoder : model::Seq2SeqStack::kCross;
}

class Seq2SeqAppTest : public AppDriver<NoRenderer> {
 protected:
  std::string FixtureDir() const { return CaseDir(case_); }
  App& MakeApp(float height = 1200) {
    ImGui::GetIO().DisplaySize = ImVec2(1600, height);
    reference_ = ReadJson(FixtureDir() + "/reference/tokens.json");
    AppOptions options;
    options.input.text = reference_["source_text"].get<std::string>();
    options.input.model_dir = FixtureDir();
    options.widgets_json_path = "(memory)";
    options.no_settings = true;
    app_ = std::make_unique<App>(AppSettings(), options, nullptr);
    WaitForRun();
    return *app_;
  }
  // Frames until the encoder-decoder session is idle and its result shown.
  void WaitForRun() {
    for (int i = 0; i < 3000 && (app_->seq2seqs->busy() || i < 2); ++i) {
      app_->seq2seqs->WaitIdle(0.05);
      Frame();
    }
    Frames(3);
  }
  json Item(const std::string& name) {
    const WidgetDump::Widget* w = app_->dump.Find(name);
    EXPECT_NE(w, nullptr) << name;
    return w ? json::parse(w->value_json) : json();
  }
  // The app with the reference's target too, its forced run shown; loss_ holds the reference's losses. The window
  // is tall enough for the Model panel to show the target's chips under the ablated heads without scrolling.
  App& MakeAppWithTarget() {
    App& app = MakeApp(2400);
    loss_ = ReadJson(FixtureDir() + "/reference/loss.json");
    app.views.seq2seq.target_text = reference_["target_text"].get<std::string>();
    WaitForRun();
    EXPECT_TRUE(app.results.seq2seq && app.results.seq2seq->complete()) << app.results.seq2seq_error.Render();
    EXPECT_EQ(IdsOf(app.results.seq2seq->label_tokens), reference_["labels"].get<std::vector<int>>());
    return app;
  }
  // Core's per-position loss of the labels, run on its own with `ablate`.
  std::vector<double> CoreLoss(const std::vector<model::Seq2SeqAblatedHead>& ablate) {
    const model::Seq2SeqModel& m = *app_->results.seq2seq->folder->model;
    const std::vector<int> source = reference_["source_ids"], decoder = reference_["decoder_input_ids"],
                           labels = reference_["labels"];
    model::Seq2SeqRunOptions options;
    options.ablate = ablate;
    auto run = model::RunSeq2Seq(m, source, decoder, options);
    EXPECT_TRUE(run.ok()) << run.message();
    const int n_tgt = (int)decoder.size();
    auto loss = model::Seq2SeqTokenLoss(
        m, run->decoder_hidden.data.data() + (size_t)m.config().decoder.n_layer * n_tgt * m.config().d_model, n_tgt,
        labels);
    EXPECT_TRUE(loss.ok()) << loss.message();
    return loss.ok() ? *loss : std::vector<double>();
  }
  json Field(const std::string& name) { return json::parse(app_->dump.Field(name)); }
  // The chips' values of the token_loss field ("chips" or "deltas") against per-token values summed per chip.
  void ExpectChips(const std::string& key, const std::vector<double>& per_token, const std::string& what) {
    const json field = Field("token_loss");
    const TokenChips& chips = app_->views.seq2seq.chips;
    ASSERT_EQ(field[key].size(), chips.chips.size()) << what;
    for (size_t g = 0; g < chips.chips.size(); ++g) {
      double want = 0;
      for (size_t t = chips.chips[g].first; t < chips.chips[g].first + chips.chips[g].count; ++t) want += per_token[t];
      EXPECT_NEAR(field[key][g].get<double>(), want, 1e-6 * std::max(1.0, std::abs(want))) << what << " chip " << g;
    }
  }
  // Frames until the analyses asked of the shown run (the neuron view, a map kind, the scan) are made.
  void WaitForAnalyses() {
    for (int i = 0; i < 3000; ++i) {
      const bool busy = app_->seq2seq_jobs->neuron_busy() || app_->seq2seq_jobs->kind_busy() ||
                        app_->seq2seq_jobs->scan_busy();
      if (!busy && i >= 2) break;
      app_->seq2seq_jobs->WaitIdle(0.05);
      Frame();
    }
    Frames(3);
  }
  // Shows head `head` of layer `layer` of `stack` ("encoder", "decoder", "cross") in the Heads panel.
  // The neuron view lies over the Overview: closed first, as a person closes it to reach the grids.
  void ShowHead(const std::string& stack, int layer, int head) {
    app_->views.neuron.open = false;
    Frames(2);
    Click("overview." + stack + "." + std::to_string(layer) + "." + std::to_string(head));
    Frames(2);
  }
  std::string case_ = "marian";  // the fixture case (tests/fixtures/seq2seq/<case_>)
  json reference_, loss_;
};

// Core's inputs of the shown run: its source and decoder ids.
struct RunIds {
  std::vector<int> source, decoder;
};
RunIds IdsOfRun(const Seq2SeqResult& r) { return {IdsOf(TokenList(r.source_tokens)), IdsOf(TokenList(r.decoder_tokens))}; }

// A number as the widgets dump writes it (JsonNumber: 9 significant digits) against the value it was made of.
void ExpectDumped(const json& dumped, double value, const std::string& what) {
  ASSERT_TRUE(dumped.is_number()) << what << ": " << dumped.dump();
  EXPECT_NEAR(dumped.get<double>(), value, 1e-8 * std::max(1.0, std::abs(value))) << what;
}

// A reference array's values as doubles, checked against `want` (core's floats) and the app's.
void ExpectClose(const std::vector<float>& app, const std::vector<double>& reference, double tolerance,
                 const std::string& what) {
  ASSERT_EQ(app.size(), reference.size()) << what;
  for (size_t t = 0; t < app.size(); ++t)
    EXPECT_NEAR(app[t], reference[t], tolerance * std::max(1.0, std::abs(reference[t]))) << what << " [" << t << "]";
}

// The folder opens (no refusal), the target typed runs it, and the Overview has the three grids of the right sizes.
TEST_F(Seq2SeqAppTest, OverviewShowsTheThreeStacks) {
  App& app = MakeApp();
  ASSERT_TRUE(app.Seq2SeqShown()) << app.results.seq2seq_error.Render();
  app.views.seq2seq.target_text = reference_["target_text"].get<std::string>();  // typed into the Target field
  WaitForRun();
  ASSERT_TRUE(app.results.seq2seq && app.results.seq2seq->complete()) << app.results.seq2seq_error.Render();
  const model::Seq2SeqConfig& c = app.results.seq2seq->folder->model->config();
  const int n_src = (int)reference_["source_ids"].size(), n_tgt = (int)reference_["decoder_input_ids"].size();
  EXPECT_EQ(IdsOf(app.results.seq2seq->source_tokens), reference_["source_ids"].get<std::vector<int>>());
  const struct {
    const char* name;
    int n_layer, n_head, n_q, n_k;
  } grids[] = {{"overview.encoder", c.encoder.n_layer, c.encoder.n_head, n_src, n_src},
               {"overview.decoder", c.decoder.n_layer, c.decoder.n_head, n_tgt, n_tgt},
               {"overview.cross", c.decoder.n_layer, c.decoder.n_head, n_tgt, n_src}};
  for (const auto& g : grids) {
    const json item = Item(g.name);
    EXPECT_EQ(item["n_layer"], g.n_layer) << g.name;
    EXPECT_EQ(item["n_head"], g.n_head) << g.name;
    EXPECT_EQ(item["n_q"], g.n_q) << g.name;
    EXPECT_EQ(item["n_k"], g.n_k) << g.name;
    for (int l = 0; l < g.n_layer; ++l)
      for (int h = 0; h < g.n_head; ++h)
        EXPECT_NE(app.dump.Find(std::string(g.name) + "." + std::to_string(l) + "." + std::to_string(h)), nullptr);
    EXPECT_EQ(app.dump.Find(std::string(g.name) + "." + std::to_string(g.n_layer) + ".0"), nullptr);
  }
  EXPECT_EQ(app.dump.Field("seq2seq_error"), "\"\"");
}

// A cross head clicked: the Heads panel's axes are target x source tokens, a hovered cell's weight is core's, and the
// Shapes tab says q [n_tgt x d_head] from the decoder, k and v [n_src x d_head] from the encoder.
TEST_F(Seq2SeqAppTest, CrossHeadInTheHeadsPanelAndShapes) {
  App& app = MakeApp();
  app.views.seq2seq.target_text = reference_["target_text"].get<std::string>();
  WaitForRun();
  ASSERT_TRUE(app.results.seq2seq && app.results.seq2seq->complete());
  const model::Seq2SeqConfig& c = app.results.seq2seq->folder->model->config();
  const int layer = c.decoder.n_layer - 1, head = c.decoder.n_head - 1;
  Click("overview.cross." + std::to_string(layer) + "." + std::to_string(head));
  Frames(2);
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  EXPECT_EQ(app.results.shown->stack, (int)kCrossStack);
  EXPECT_EQ(app.results.shown->layer, layer);
  EXPECT_EQ(app.settings.selected_head, head);
  const LayerMaps& t = *app.results.shown->maps;
  const std::vector<int> source_ids = reference_["source_ids"].get<std::vector<int>>();
  const std::vector<int> decoder_ids = reference_["decoder_input_ids"].get<std::vector<int>>();
  EXPECT_EQ(IdsOf(t.query_tokens), decoder_ids);  // rows: target tokens
  EXPECT_EQ(IdsOf(t.kv_tokens), source_ids);      // columns: source tokens
  const json result = json::parse(app.dump.Field("result"));
  EXPECT_EQ(result["n_q"], (int)decoder_ids.size());
  EXPECT_EQ(result["n_k"], (int)source_ids.size());

  // Hover the enlarged head's middle cell: its tokens and weight.
  const WidgetDump::Widget* map = app.dump.Find("heads.enlarged");
  ASSERT_NE(map, nullptr);
  ImGui::GetIO().MousePos = ImVec2((map->x0 + map->x1) * 0.5f, (map->y0 + map->y1) * 0.5f);
  Frames(2);
  const json hover = Item("heads.enlarged.hover");
  const int i = hover["i"], j = hover["j"];
  auto run = model::RunSeq2Seq(*app.results.seq2seq->folder->model, source_ids, decoder_ids);
  ASSERT_TRUE(run) << run.message();
  const size_t n_src = source_ids.size(), n_tgt = decoder_ids.size();
  const float core = run->cross_probs.data[(((size_t)layer * c.decoder.n_head + head) * n_tgt + i) * n_src + j];
  EXPECT_FLOAT_EQ(hover["prob"].get<float>(), core);
  auto reference = ReadNpy(FixtureDir() + "/reference/cross_attention.npy");
  ASSERT_TRUE(reference) << reference.message();
  EXPECT_NEAR(hover["prob"].get<double>(),
              reference->data[(((size_t)layer * c.decoder.n_head + head) * n_tgt + i) * n_src + j], 1e-5);

  // The Shapes tab.
  const json shapes = json::parse(app.dump.Field("seq2seq_shapes"));
  EXPECT_EQ(shapes["stack"], "cross");
  EXPECT_EQ(shapes["q"], json::array({(int)n_tgt, c.decoder.d_head}));
  EXPECT_EQ(shapes["k"], json::array({(int)n_src, c.decoder.d_head}));
  EXPECT_EQ(shapes["v"], json::array({(int)n_src, c.decoder.d_head}));
  EXPECT_EQ(shapes["q_from"], "decoder");
  EXPECT_EQ(shapes["kv_from"], "encoder");

  // An encoder head: source x source.
  Click("overview.encoder.0.0");
  Frames(2);
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  EXPECT_EQ(IdsOf(app.results.shown->maps->query_tokens), source_ids);
  EXPECT_EQ(IdsOf(app.results.shown->maps->kv_tokens), source_ids);
  EXPECT_EQ(json::parse(app.dump.Field("seq2seq_shapes"))["q_from"], "encoder");
  // A decoder head: target x target, causal (above the diagonal exactly 0).
  Click("overview.decoder.0.0");
  Frames(2);
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  const LayerMaps& d = *app.results.shown->maps;
  EXPECT_EQ(IdsOf(d.query_tokens), decoder_ids);
  EXPECT_EQ(IdsOf(d.kv_tokens), decoder_ids);
  EXPECT_TRUE(d.mask.causal());
  EXPECT_EQ(d.probs->data[1], 0.0f);  // head 0, row 0, column 1
}

// Translate: greedy generation makes the reference's ids, and its text becomes the target.
TEST_F(Seq2SeqAppTest, TranslateMakesTheReferenceIds) {
  App& app = MakeApp();
  const json generate = ReadJson(FixtureDir() + "/reference/generate.json");
  Click("model.translate");
  WaitForRun();
  WaitForRun();  // the forced run of the generated text that follows
  const std::vector<int> expected = generate["ids"].get<std::vector<int>>();
  ASSERT_LT(expected.size(), (size_t)generate["max_new_tokens"].get<int>());  // it stopped at eos: 64 makes the same
  EXPECT_EQ(app.views.seq2seq.generated_ids, expected);
  EXPECT_EQ(json::parse(app.dump.Field("seq2seq_generated_ids")).get<std::vector<int>>(), expected);
  ASSERT_TRUE(app.results.seq2seq && app.results.seq2seq->complete());
  EXPECT_EQ(app.results.seq2seq->request.generate, 0);  // the generated text, run as the target
  EXPECT_EQ(app.results.seq2seq->request.target_text, app.views.seq2seq.target_text);
}

// A Translate whose run ends before a frame has applied its text (the worker finished between the frame's look at the
// result and its submit) still becomes the target: the forced run of the still-empty target never replaces it.
TEST_F(Seq2SeqAppTest, TranslateEndedBeforeAFrameSawItStillBecomesTheTarget) {
  App& app = MakeApp();
  const std::vector<int> expected = ReadJson(FixtureDir() + "/reference/generate.json")["ids"];
  app.views.seq2seq.translate = true;
  app.SubmitIfChanged();  // the Translate
  ASSERT_TRUE(app.seq2seqs->WaitIdle(120));
  app.SubmitIfChanged();  // the next frame's submit, before its Update has seen the generation end
  WaitForRun();
  WaitForRun();  // the forced run of the generated text that follows
  EXPECT_EQ(app.views.seq2seq.generated_ids, expected);
  ASSERT_TRUE(app.results.seq2seq && app.results.seq2seq->complete());
  EXPECT_EQ(app.results.seq2seq->request.generate, 0);
  EXPECT_FALSE(app.views.seq2seq.target_text.empty());
  EXPECT_EQ(app.results.seq2seq->request.target_text, app.views.seq2seq.target_text);
}

// A decoder-only folder opened after the encoder-decoder one shows as before (its own Model panel and Overview);
// dropping the encoder-decoder folder on the window opens it again.
TEST_F(Seq2SeqAppTest, DecoderOnlyAfterwardsAndADroppedFolder) {
  App& app = MakeApp();
  ASSERT_TRUE(app.Seq2SeqShown());
  app.OpenModel(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/gpt2");
  Frames(6);
  EXPECT_FALSE(app.Seq2SeqShown());
  ASSERT_TRUE(app.results.model && app.results.model->status.ok());
  EXPECT_NE(app.dump.Find("overview.map.0.0"), nullptr);  // the decoder-only Overview
  EXPECT_EQ(app.dump.Find("overview.cross"), nullptr);
  app.pending_drops.push_back(FixtureDir());
  WaitForRun();
  EXPECT_TRUE(app.Seq2SeqShown());
  EXPECT_EQ(app.results.model, nullptr);
  EXPECT_NE(app.dump.Find("overview.cross"), nullptr);
  EXPECT_EQ(app.dump.Find("overview.map.0.0"), nullptr);
}

// The target's chips coloured by loss: core's Seq2SeqTokenLoss of the labels and the reference's; the loss line its
// mean; a clicked chip pins the top tokens at its decoder position, Seq2SeqTopTokens' there.
TEST_F(Seq2SeqAppTest, TargetTokenLossesAndPredictionsAreCores) {
  App& app = MakeAppWithTarget();
  const Seq2SeqResult& r = *app.results.seq2seq;
  const std::vector<double> core = CoreLoss({});
  const std::vector<double> reference = loss_["token_loss"];
  ASSERT_EQ(r.token_loss.size(), reference.size());
  ASSERT_EQ(core.size(), reference.size());
  for (size_t i = 0; i < core.size(); ++i) {
    EXPECT_NEAR(r.token_loss[i], core[i], 1e-9) << "position " << i;
    EXPECT_NEAR(r.token_loss[i], reference[i], 1e-4) << "position " << i;
  }
  EXPECT_TRUE(r.base_token_loss.empty());  // no ablation: the run is the model as trained
  EXPECT_EQ(r.base_loss, r.loss);

  Click("model.chip_color_loss");
  Frames(2);
  ASSERT_EQ(Field("token_loss")["mode"], "loss");
  ExpectChips("chips", core, "loss");
  const json line = Field("loss");
  EXPECT_NEAR(line["value"].get<double>(), model::MeanLoss(core), 1e-6);
  EXPECT_NEAR(line["value"].get<double>(), loss_["mean_loss"].get<double>(), 1e-4);
  EXPECT_TRUE(line["baseline"].is_null());
  EXPECT_TRUE(line["plain"].get<bool>());

  // The predictions at the third chip's decoder position: core's top tokens there, most probable first.
  const TokenChips& chips = app.views.seq2seq.chips;
  ASSERT_GT(chips.chips.size(), 3u);
  Click("model.token.2");
  Frames(2);
  const int position = (int)chips.chips[2].first;
  EXPECT_EQ(app.views.seq2seq.pinned_position, position);
  const json predictions = Field("predictions");
  EXPECT_EQ(predictions["positions"], (int)reference.size());
  const std::string pinned = predictions["pinned_text"];
  EXPECT_NE(pinned.find(Trf(Str::kSeq2SeqPredictTip, {std::to_string(position)})), std::string::npos) << pinned;
  const model::Seq2SeqModel& m = *r.folder->model;
  const std::vector<int> source = reference_["source_ids"], decoder = reference_["decoder_input_ids"];
  auto run = model::RunSeq2Seq(m, source, decoder);
  ASSERT_TRUE(run.ok());
  const int n_tgt = (int)decoder.size();
  auto top = model::Seq2SeqTopTokens(
      m, run->decoder_hidden.data.data() + (size_t)m.config().decoder.n_layer * n_tgt * m.config().d_model, n_tgt,
      kPredictTopK);
  ASSERT_TRUE(top.ok()) << top.message();
  ASSERT_EQ(r.top.size(), (size_t)n_tgt);
  for (int i = 0; i < n_tgt; ++i) {
    ASSERT_EQ(r.top[(size_t)i].top.size(), (size_t)kPredictTopK);
    for (int k = 0; k < kPredictTopK; ++k) {
      EXPECT_EQ(r.top[(size_t)i].top[(size_t)k].id, (*top)[(size_t)i].top[(size_t)k].id) << i << " " << k;
      EXPECT_NEAR(r.top[(size_t)i].top[(size_t)k].prob, (*top)[(size_t)i].top[(size_t)k].prob, 1e-12);
    }
  }
  // Each of the pinned position's top tokens is a line with its probability.
  const model::TokenProb& best = r.top[(size_t)position].top[0];
  EXPECT_NE(pinned.find(FormatNumber(best.prob, "%.3g")), std::string::npos) << pinned;
}

// One head of each stack, ablated from its Overview cell's menu: the loss is RunSeq2Seq's with that head ablated
// (and the reference's), the base the plain run's, each chip's change the difference; restoring the head gives the
// base loss back. Mean ablation, chosen in the panel, is another run again.
TEST_F(Seq2SeqAppTest, AblatingAHeadOfAnyStackFromItsMenuAndRestoringIt) {
  App& app = MakeAppWithTarget();
  const std::vector<double> plain = CoreLoss({});
  const double plain_mean = app.results.seq2seq->loss;
  ASSERT_EQ(loss_["ablations"].size(), 3u);
  for (const json& a : loss_["ablations"]) {
    const std::string stack = a["stack"].get<std::string>();
    const int layer = a["layer"].get<int>(), head = a["head"].get<int>();
    const std::string cell = "overview." + stack + "." + std::to_string(layer) + "." + std::to_string(head);
    Click(cell, kRightButton);
    ASSERT_NE(app.dump.Find("menu.ablate_head"), nullptr) << "no context menu on " << cell;
    const std::string label = json::parse(app.dump.Find("menu.ablate_head")->value_json);
    EXPECT_NE(label.find("L" + std::to_string(layer) + " H" + std::to_string(head)), std::string::npos) << label;
    Click("menu.ablate_head");
    WaitForRun();
    const Seq2SeqResult& r = *app.results.seq2seq;
    const model::Seq2SeqAblatedHead want{StackNamed(stack), layer, head, model::AblateMode::kZero};
    ASSERT_EQ(r.request.ablate, std::vector<model::Seq2SeqAblatedHead>{want}) << stack;
    const std::vector<double> core = CoreLoss({want});
    const std::vector<double> reference = a["token_loss"];
    ASSERT_EQ(r.token_loss.size(), core.size());
    for (size_t i = 0; i < core.size(); ++i) {
      EXPECT_NEAR(r.token_loss[i], core[i], 1e-9) << stack << " position " << i;
      EXPECT_NEAR(r.token_loss[i], reference[i], 1e-4) << stack << " position " << i;
      EXPECT_NEAR(r.base_token_loss[i], plain[i], 1e-9) << stack << " position " << i;
    }
    EXPECT_NEAR(r.loss, a["mean_loss"].get<double>(), 1e-4) << stack;
    EXPECT_NE(r.loss, plain_mean) << stack;
    EXPECT_EQ(r.base_loss, plain_mean) << stack;
    const json line = Field("loss");
    EXPECT_NEAR(line["value"].get<double>(), model::MeanLoss(core), 1e-6) << stack;
    EXPECT_NEAR(line["baseline"].get<double>(), plain_mean, 1e-6) << stack;
    EXPECT_FALSE(line["plain"].get<bool>());
    EXPECT_NE(app.dump.Find(cell)->value_json.find("\"ablated\": true"), std::string::npos) << stack;
    EXPECT_EQ(Field("seq2seq_ablated"), json::array({json::array({(int)StackNamed(stack), layer, head})}));
    // Each chip's change: the ablated run's loss minus the base's.
    Click("model.chip_color_delta");
    Frames(2);
    std::vector<double> delta(core.size());
    for (size_t i = 0; i < core.size(); ++i) delta[i] = core[i] - plain[i];
    ExpectChips("deltas", delta, stack + " change");
    // Restoring it through its button: the base run again.
    Click("model.restore.0");
    WaitForRun();
    EXPECT_TRUE(app.results.seq2seq->request.ablate.empty()) << stack;
    EXPECT_EQ(app.results.seq2seq->loss, plain_mean) << stack;
    EXPECT_TRUE(app.results.seq2seq->base_token_loss.empty());
    EXPECT_TRUE(Field("loss")["baseline"].is_null());
    EXPECT_EQ(app.dump.Find(cell)->value_json.find("\"ablated\": true"), std::string::npos) << stack;
  }

  // Mean ablation of the encoder's head, then "restore all".
  const json& a = loss_["ablations"][0];
  const std::string cell = "overview.encoder." + std::to_string(a["layer"].get<int>()) + "." +
                           std::to_string(a["head"].get<int>());
  Click(cell, kRightButton);
  Click("menu.ablate_head");
  WaitForRun();
  EXPECT_EQ(app.dump.Find("model.ablate_zero")->value_json, "true");  // zero unless asked
  Click("model.ablate_mean");
  WaitForRun();
  const model::Seq2SeqAblatedHead mean{model::Seq2SeqStack::kEncoder, a["layer"].get<int>(), a["head"].get<int>(),
                                       model::AblateMode::kMean};
  ASSERT_EQ(app.results.seq2seq->request.ablate, std::vector<model::Seq2SeqAblatedHead>{mean});
  const std::vector<double> core = CoreLoss({mean});
  EXPECT_NEAR(app.results.seq2seq->loss, model::MeanLoss(core), 1e-9);
  EXPECT_NE(app.results.seq2seq->loss, a["mean_loss"].get<double>());
  Click("model.restore_all");
  WaitForRun();
  EXPECT_TRUE(app.results.seq2seq->request.ablate.empty());
  EXPECT_EQ(app.results.seq2seq->loss, plain_mean);
}

// The Heads panel's map of a shown encoder-decoder head has the same menu, naming the stack.
TEST_F(Seq2SeqAppTest, TheHeadsPanelsMapOffersTheShownStacksHead) {
  App& app = MakeAppWithTarget();
  Click("overview.cross.1.1");
  Frames(2);
  app.settings.enlarged = false;
  Frames(2);
  Click("heads.map.1", kRightButton);
  ASSERT_NE(app.dump.Find("menu.ablate_head"), nullptr) << "no context menu on the Heads panel's map";
  const std::string label = json::parse(app.dump.Find("menu.ablate_head")->value_json);
  EXPECT_EQ(label, Trf(Str::kSeq2SeqAblateHead, {Tr(Str::kSeq2SeqCrossSide), "1", "1"}));
  Click("menu.ablate_head");
  WaitForRun();
  const model::Seq2SeqAblatedHead want{model::Seq2SeqStack::kCross, 1, 1, model::AblateMode::kZero};
  EXPECT_EQ(app.results.seq2seq->request.ablate, std::vector<model::Seq2SeqAblatedHead>{want});
}

// The neuron view of a cell of each stack (t5: its position bias step too): a click on the Heads panel's map opens
// it for that cell; its numbers are core's Seq2SeqNeuron (RunSeq2SeqNeuron) and the float64 reference's.
TEST_F(Seq2SeqAppTest, NeuronViewOfEachStackIsCoresAndTheReferences) {
  for (const char* name : {"t5", "bart"}) {
    SCOPED_TRACE(name);
    case_ = name;
    App& app = MakeAppWithTarget();
    const Seq2SeqResult& run = *app.results.seq2seq;
    const RunIds ids = IdsOfRun(run);
    // A click on the enlarged map's middle cell opens the view there, in the shown stack.
    ShowHead("cross", 0, 0);
    const WidgetDump::Widget* map = app.dump.Find("heads.enlarged");
    ASSERT_NE(map, nullptr);
    ImGui::GetIO().MousePos = ImVec2((map->x0 + map->x1) * 0.5f, (map->y0 + map->y1) * 0.5f);
    Frames(2);
    const json hover = Item("heads.enlarged.hover");
    Click("heads.enlarged");
    WaitForAnalyses();
    json field = Field("neuron");
    EXPECT_EQ(field["open"], true);
    EXPECT_EQ(field["stack"], (int)kCrossStack);
    EXPECT_EQ(field["i"], hover["i"]);
    EXPECT_EQ(field["j"], hover["j"]);
    EXPECT_NEAR(field["prob"].get<double>(), hover["prob"].get<double>(), 1e-6);

    for (const json& want : ReadJson(FixtureDir() + "/reference/neuron.json")) {
      const std::string stack = want["stack"];
      const int layer = want["layer"], head = want["head"], i = want["i"], j = want["j"];
      SCOPED_TRACE(stack);
      ShowHead(stack, layer, head);
      app.PanelContextFor(nullptr).verbs.OpenNeuronView(head, i, j);
      WaitForAnalyses();
      field = Field("neuron");
      ASSERT_TRUE(app.results.seq2seq_neuron) << field.dump();
      EXPECT_EQ(field["stack"], (int)StackNamed(stack));
      EXPECT_EQ(field["layer"], layer);
      EXPECT_EQ(field["i"], i);
      EXPECT_EQ(field["j"], j);
      auto core = model::RunSeq2SeqNeuron(*run.folder->model, ids.source, ids.decoder, {}, StackNamed(stack), layer,
                                          head, i, j);
      ASSERT_TRUE(core) << core.message();
      const model::Seq2SeqNeuronView& shown = app.results.seq2seq_neuron->view;
      EXPECT_EQ(shown.view.q, core->view.q);
      EXPECT_EQ(shown.view.k, core->view.k);
      EXPECT_EQ(shown.view.product, core->view.product);
      for (const char* key : {"score", "scale", "logit", "prob"}) {
        const double reference = want[key].get<double>();
        EXPECT_NEAR(field[key].get<double>(), reference, 1e-4 * std::max(1.0, std::abs(reference))) << key;
      }
      ExpectDumped(field["score"], core->view.score, "score");
      ExpectDumped(field["logit"], core->view.logit, "logit");
      ExpectDumped(field["prob"], core->view.prob, "prob");
      ExpectClose(shown.view.q, want["q"].get<std::vector<double>>(), 1e-4, "q");
      ExpectClose(shown.view.k, want["k"].get<std::vector<double>>(), 1e-4, "k");
      ExpectClose(shown.view.product, want["product"].get<std::vector<double>>(), 1e-4, "product");
      const bool has_bias = want.contains("position_bias") && !want["position_bias"].is_null();
      EXPECT_EQ(field["position_bias"].is_null(), !has_bias);
      EXPECT_EQ(core->has_position_bias, has_bias);
      if (has_bias) {
        EXPECT_TRUE(core->has_position_bias);
        ExpectDumped(field["position_bias"], core->position_bias, "position bias");
        EXPECT_NEAR(field["position_bias"].get<double>(), want["position_bias"].get<double>(), 1e-4);
      }
      // The row and column tokens are the stack's: cross rows are target tokens, columns source tokens.
      const TokenList& columns = StackNamed(stack) == model::Seq2SeqStack::kDecoder ? TokenList(run.decoder_tokens)
                                                                                     : TokenList(run.source_tokens);
      EXPECT_EQ(field["key"].get<std::string>(), ToImGui(ShownText(columns[(size_t)j].display)));
    }
  }
}

// The map kinds of each stack: value-weighted maps are core's Seq2SeqValueNorms (and the references'), rollout of
// the encoder and the decoder is core's Seq2SeqRollout (and the references'); cross-attention has no rollout: the
// choice is disabled with the reason shown, and the attention maps stay.
TEST_F(Seq2SeqAppTest, MapKindsOfEachStackAreCoresAndTheReferences) {
  case_ = "bart";
  App& app = MakeAppWithTarget();
  const Seq2SeqResult& run = *app.results.seq2seq;
  const RunIds ids = IdsOfRun(run);
  auto core = model::RunSeq2SeqValueNorms(*run.folder->model, ids.source, ids.decoder);
  ASSERT_TRUE(core) << core.message();
  const Tensor* core_maps[3] = {&core->encoder, &core->decoder, &core->cross};
  const char* stacks[3] = {"encoder", "decoder", "cross"};
  Click("heads.kind_value_weighted");
  for (int s = 0; s < 3; ++s) {
    SCOPED_TRACE(stacks[s]);
    const Tensor& want = *core_maps[s];
    const int layer = (int)want.dim(0) - 1, head = (int)want.dim(1) - 1;
    ShowHead(stacks[s], layer, head);
    WaitForAnalyses();
    ASSERT_TRUE(app.results.shown && app.results.shown->maps);
    EXPECT_EQ(app.results.shown->kind, MapKind::kValueWeighted);
    const Tensor& shown = *app.results.shown->maps->probs;
    const size_t plane = want.dim(2) * want.dim(3);
    ASSERT_EQ(shown.size(), want.dim(1) * plane);
    auto reference = ReadNpy(FixtureDir() + "/reference/" + stacks[s] + "_value_norm.npy");
    ASSERT_TRUE(reference) << reference.message();
    for (size_t t = 0; t < shown.size(); ++t) {
      const size_t at = (size_t)layer * want.dim(1) * plane + t;
      EXPECT_EQ(shown.data[t], want.data[at]) << t;
      EXPECT_NEAR(shown.data[t], reference->data[at], 1e-4 * std::max(1.0f, std::abs(reference->data[at]))) << t;
    }
    EXPECT_EQ(Field("map_kind")["refusal"], "");
  }
  for (int s : {0, 1}) {
    SCOPED_TRACE(stacks[s]);
    const LayerStack& st = (*run.stacks)[(size_t)s];
    const int layer = st.n_layer() - 1;
    ShowHead(stacks[s], layer, 0);
    Click("heads.kind_rollout");  // offered: a self-attention stack is shown
    WaitForAnalyses();
    ASSERT_TRUE(app.results.shown && app.results.shown->maps);
    EXPECT_EQ(app.results.shown->kind, MapKind::kRollout);
    Tensor probs;
    const size_t per_layer = st.layer(0)->probs->size();
    probs.Resize({(size_t)st.n_layer(), (size_t)st.layer(0)->n_head(), (size_t)st.n_q(), (size_t)st.n_k()});
    for (int l = 0; l < st.n_layer(); ++l)
      std::copy(st.layer(l)->probs->data.begin(), st.layer(l)->probs->data.end(), probs.data.begin() + l * per_layer);
    auto want = model::Seq2SeqRollout((model::Seq2SeqStack)s, probs);
    ASSERT_TRUE(want) << want.message();
    auto reference = ReadNpy(FixtureDir() + "/reference/" + stacks[s] + "_rollout.npy");
    ASSERT_TRUE(reference) << reference.message();
    const Tensor& shown = *app.results.shown->maps->probs;
    const size_t plane = (size_t)st.n_q() * st.n_k();
    ASSERT_EQ(shown.size(), plane);  // one map for the layer
    for (size_t t = 0; t < plane; ++t) {
      EXPECT_EQ(shown.data[t], want->data[(size_t)layer * plane + t]) << t;
      EXPECT_NEAR(shown.data[t], reference->data[(size_t)layer * plane + t], 1e-5) << t;
    }
  }
  // Cross-attention: rollout refused with its reason, the attention maps shown, the choice disabled.
  ShowHead("cross", 0, 0);
  WaitForAnalyses();
  Click("heads.kind_value_weighted");
  Click("heads.kind_rollout");  // disabled: the click changes nothing
  EXPECT_EQ(app.views.heads.kind, MapKind::kValueWeighted);
  app.views.heads.kind = MapKind::kRollout;  // as the kind chosen on another stack stays when a cross head is shown
  WaitForAnalyses();
  EXPECT_EQ(Field("map_kind")["refusal"], Tr(Str::kSeq2SeqRolloutNoCross));
  ASSERT_TRUE(app.results.shown && app.results.shown->maps);
  EXPECT_EQ(app.results.shown->kind, MapKind::kAttention);
  EXPECT_EQ(app.results.shown->maps->probs, (*run.stacks)[kCrossStack].layer(0)->probs);
}

// "Ablate each head once" over every head of every stack: the per-head losses are core's scan and the reference's
// scan.json; the Overview's cells carry each head's loss change.
TEST_F(Seq2SeqAppTest, ScanOfEveryHeadIsCoresAndTheReferences) {
  for (const char* name : {"t5", "bart"}) {
    SCOPED_TRACE(name);
    case_ = name;
    App& app = MakeAppWithTarget();
    Click("model.scan");
    WaitForAnalyses();
    const Seq2SeqResult& run = *app.results.seq2seq;
    const RunIds ids = IdsOfRun(run);
    ASSERT_TRUE(app.results.seq2seq_scan);
    const model::Seq2SeqAblationScan& scan = app.results.seq2seq_scan->scan;
    auto core = model::ScanSeq2SeqHeadAblations(*run.folder->model, ids.source, ids.decoder, run.labels);
    ASSERT_TRUE(core) << core.message();
    const json want = ReadJson(FixtureDir() + "/reference/scan.json");
    EXPECT_TRUE(scan.complete);
    ASSERT_EQ(scan.heads.size(), want["heads"].size());
    ASSERT_EQ(scan.heads.size(), core->heads.size());
    EXPECT_DOUBLE_EQ(scan.base_loss, core->base_loss);
    EXPECT_NEAR(scan.base_loss, want["base_loss"].get<double>(), 1e-4);
    const json field = Field("seq2seq_scan");
    EXPECT_EQ(field["heads_done"], (int)scan.heads.size());
    for (size_t k = 0; k < scan.heads.size(); ++k) {
      const model::Seq2SeqHeadLoss& h = scan.heads[k];
      const json& w = want["heads"][k];
      ASSERT_EQ((int)h.stack, (int)StackNamed(w["stack"]));
      ASSERT_EQ(h.layer, w["layer"].get<int>());
      ASSERT_EQ(h.head, w["head"].get<int>());
      EXPECT_DOUBLE_EQ(h.loss, core->heads[k].loss) << k;
      EXPECT_NEAR(h.loss, w["loss"].get<double>(), 1e-4) << k;
      ExpectDumped(field["loss"][k], h.loss, "dumped loss " + std::to_string(k));
      const std::string cell = "overview." + w["stack"].get<std::string>() + "." + std::to_string(h.layer) + "." +
                               std::to_string(h.head);
      ASSERT_NE(app.dump.Find(cell), nullptr) << cell;
      EXPECT_NEAR(Item(cell)["delta"].get<double>(), h.loss - scan.base_loss, 1e-9) << cell;
    }
  }
}

// "loss at positions" on an encoder-decoder model: the scan reads the loss at the decoder positions typed (each
// predicting the target's token there), the same as core's scan with those positions and the mean of the base run's
// per-position loss there; a position past the decoder's is refused in the panel (its range named), nothing started.
TEST_F(Seq2SeqAppTest, TheScanReadsTheLossAtTheDecoderPositionsTyped) {
  App& app = MakeAppWithTarget();
  const Seq2SeqResult& run = *app.results.seq2seq;
  const int n_tgt = (int)run.labels.size();
  ASSERT_GE(n_tgt, 3);
  app.views.seq2seq.scan_at = std::to_string(n_tgt - 1) + ", 1";
  Click("model.scan");
  WaitForAnalyses();
  ASSERT_TRUE(app.results.seq2seq_scan);
  const model::Seq2SeqAblationScan& scan = app.results.seq2seq_scan->scan;
  const std::vector<int> at = {n_tgt - 1, 1};
  EXPECT_EQ(scan.loss_at, at);
  const RunIds ids = IdsOfRun(run);
  auto core = model::ScanSeq2SeqHeadAblations(*run.folder->model, ids.source, ids.decoder, run.labels, {},
                                              model::AblateMode::kZero, at);
  ASSERT_TRUE(core) << core.message();
  ASSERT_EQ(scan.heads.size(), core->heads.size());
  EXPECT_DOUBLE_EQ(scan.base_loss, core->base_loss);
  for (size_t k = 0; k < scan.heads.size(); ++k) EXPECT_DOUBLE_EQ(scan.heads[k].loss, core->heads[k].loss) << k;
  auto mean = model::ScanSeq2SeqHeadAblations(*run.folder->model, ids.source, ids.decoder, run.labels);
  ASSERT_TRUE(mean);
  EXPECT_NE(scan.base_loss, mean->base_loss);  // not the mean over every position
  EXPECT_NEAR(scan.base_loss, (run.token_loss[(size_t)n_tgt - 1] + run.token_loss[1]) / 2, 1e-6);
  // Ranked by the loss change at those positions, largest first; the first row's click shows that head.
  const std::vector<RankedHead>& ranked = app.results.seq2seq_scan->ranked;
  ASSERT_EQ(ranked.size(), scan.heads.size());
  for (size_t k = 1; k < ranked.size(); ++k) EXPECT_GE(ranked[k - 1].delta, ranked[k].delta) << k;
  const auto top = std::max_element(scan.heads.begin(), scan.heads.end(), [](const auto& a, const auto& b) {
    return a.loss < b.loss;
  });
  EXPECT_EQ(ranked[0].stack, (int)top->stack);
  EXPECT_EQ(ranked[0].layer, top->layer);
  EXPECT_EQ(ranked[0].head, top->head);
  EXPECT_DOUBLE_EQ(ranked[0].delta, top->loss - scan.base_loss);
  EXPECT_EQ(Item("model.scan_row.0"), json::array({ranked[0].stack, ranked[0].layer, ranked[0].head}));
  Click("model.scan_row.0");
  EXPECT_EQ(app.views.seq2seq.stack, ranked[0].stack);
  EXPECT_EQ(app.settings.model_layer, ranked[0].layer);
  EXPECT_EQ(app.settings.selected_head, ranked[0].head);
  json field = Field("seq2seq_scan");
  EXPECT_EQ(field["loss_at"], json::array({n_tgt - 1, 1}));
  EXPECT_EQ(field["at_error"], "");
  const uint64_t generation = app.results.seq2seq_scan->generation;
  app.views.seq2seq.scan_at = std::to_string(n_tgt);
  Click("model.scan");
  WaitForAnalyses();
  field = Field("seq2seq_scan");
  const std::string error = field["at_error"];
  EXPECT_NE(error.find(std::to_string(n_tgt - 1)), std::string::npos) << error;
  ASSERT_TRUE(app.results.seq2seq_scan);
  EXPECT_EQ(app.results.seq2seq_scan->generation, generation) << "a refused list started a scan";
}

// Stop during the scan keeps the heads done (the others blank), each still core's; the line says how many of all.
TEST_F(Seq2SeqAppTest, StoppingTheScanKeepsTheHeadsDone) {
  App& app = MakeAppWithTarget();
  // The scan waits after its third head until the test has clicked Stop (a person's click lands mid-scan).
  std::atomic<bool> stopped{false};
  app.seq2seq_jobs = std::make_unique<Seq2SeqAnalysisJobs>(std::function<void()>(), [&stopped](size_t done) {
    for (int i = 0; done == 3 && !stopped.load() && i < 20000; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  Click("model.scan");
  for (int i = 0; i < 2000 && app.results.seq2seq_scan_progress.done < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    Frame();
  }
  EXPECT_NE(Field("seq2seq_scan")["progress"].get<std::string>().find("4"), std::string::npos)
      << Field("seq2seq_scan").dump();  // "head 4 of N": the head waiting
  Click("model.scan_stop");
  stopped.store(true);
  WaitForAnalyses();
  ASSERT_TRUE(app.results.seq2seq_scan);
  const model::Seq2SeqAblationScan& scan = app.results.seq2seq_scan->scan;
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.heads_done, 3u);
  const Seq2SeqResult& run = *app.results.seq2seq;
  const RunIds ids = IdsOfRun(run);
  auto core = model::ScanSeq2SeqHeadAblations(*run.folder->model, ids.source, ids.decoder, run.labels);
  ASSERT_TRUE(core) << core.message();
  for (size_t k = 0; k < scan.heads.size(); ++k) {
    if (k < 3) EXPECT_DOUBLE_EQ(scan.heads[k].loss, core->heads[k].loss) << k;
    else EXPECT_TRUE(std::isnan(scan.heads[k].loss)) << k;
  }
  const json field = Field("seq2seq_scan");
  EXPECT_EQ(field["heads_done"], 3);
  EXPECT_FALSE(field["complete"].get<bool>());
  EXPECT_TRUE(field["loss"][3].is_null());
  EXPECT_TRUE(Item("overview.encoder.0.0")["delta"].is_number());
  // Every head blank past the third: the encoder's fourth head onwards.
  const model::Seq2SeqHeadLoss& blank = scan.heads[3];
  const char* names[3] = {"encoder", "decoder", "cross"};
  EXPECT_TRUE(Item(std::string("overview.") + names[(int)blank.stack] + "." + std::to_string(blank.layer) + "." +
                   std::to_string(blank.head))["delta"]
                  .is_null());
}

// Generation steps: step k's decoder and cross stacks hold k + 1 rows, equal to the rows of the run over the whole
// generated target (the decoder is causal: later tokens change no earlier row).
TEST(Seq2SeqSession, GenerationStepsCarryEachNewTokensRows) {
  const json tokens = ReadJson(FixtureDir() + "/reference/tokens.json");
  Seq2SeqRequest r;
  r.dir = FixtureDir();
  r.source_text = tokens["source_text"].get<std::string>();
  r.generate = 64;
  std::vector<std::shared_ptr<Seq2SeqResult>> steps;
  std::shared_ptr<const Seq2SeqFolder> cache;
  auto done = RunSeq2SeqRequest(r, RunControl(), &cache, [&](std::shared_ptr<Seq2SeqResult> s) { steps.push_back(s); });
  ASSERT_TRUE(done->status.ok()) << done->status.message();
  ASSERT_EQ(steps.size(), done->generated_ids.size());
  const int n_src = (int)done->source_tokens.size();
  for (size_t k = 0; k < steps.size(); ++k) {
    EXPECT_TRUE(steps[k]->generating);
    EXPECT_EQ(steps[k]->generated_ids.size(), k + 1);
    for (int s : {(int)kDecoderStack, (int)kCrossStack}) {
      const LayerStack& step = (*steps[k]->stacks)[(size_t)s];
      const LayerStack& whole = (*done->stacks)[(size_t)s];
      ASSERT_EQ(step.n_layer(), whole.n_layer());
      for (int l = 0; l < step.n_layer(); ++l) {
        const Tensor& a = *step.layer(l)->probs;
        const Tensor& b = *whole.layer(l)->probs;
        ASSERT_EQ(a.dim(1), k + 1);
        const size_t n_k = s == kCrossStack ? (size_t)n_src : k + 1;
        ASSERT_EQ(a.dim(2), n_k);
        for (size_t h = 0; h < a.dim(0); ++h)
          for (size_t i = 0; i <= k; ++i)
            for (size_t j = 0; j < n_k; ++j)
              EXPECT_NEAR(a.data[(h * (k + 1) + i) * n_k + j], b.data[(h * b.dim(1) + i) * b.dim(2) + j], 1e-5)
                  << "step " << k << " stack " << s << " layer " << l << " head " << h << " cell " << i << "," << j;
      }
    }
  }
  // The final result's decoder reads the start token and the generated ids but the last.
  ASSERT_EQ(done->decoder_tokens.size(), done->generated_ids.size());
  for (size_t i = 1; i < done->decoder_tokens.size(); ++i)
    EXPECT_EQ(done->decoder_tokens[i].id, done->generated_ids[i - 1]);
}

// A folder that is not one: the session says why, naming the file.
TEST(Seq2SeqSession, MissingFolderIsRefusedByName) {
  Seq2SeqRequest r;
  r.dir = "/nonexistent/seq2seq";
  r.source_text = "x";
  std::shared_ptr<const Seq2SeqFolder> cache;
  auto done = RunSeq2SeqRequest(r, RunControl(), &cache, {});
  EXPECT_FALSE(done->status.ok());
  EXPECT_NE(done->status.message().find("/nonexistent/seq2seq"), std::string::npos) << done->status.message();
}

}  // namespace
}  // namespace attnviz
