// Shapes: the pipeline with the live shapes of every tensor, and the three rules behind them.
#include <imgui.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "app.h"  // FormatNumber, the panels of the other tabs
#include "panel_context.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "sandbox/score.h"

namespace attnviz {

namespace {

// A trained model's tensors in one block, with the pairing rule: keys and values come in pairs
// (n_kv_head each), queries may differ in number (n_head); under grouped-query attention each k/v
// head serves n_head / n_kv_head query heads.
void DrawModelShapes(PanelContext& ctx, const ModelFolder& folder) {
  const model::ModelConfig& c = folder.model->config();
  // n: the tokens of the run shown; "n" while there is none (a text refused, a run not back yet), never 0.
  const int n = ctx.results.model && ctx.results.model_error.empty() ? (int)ctx.results.model->tokens.size() : -1;
  auto shape = [](std::initializer_list<int> dims) {
    std::string s = "[";
    for (int d : dims) s += (s.size() > 1 ? ", " : "") + (d < 0 ? std::string("n") : std::to_string(d));
    return s + "]";
  };
  const std::string q = shape({c.n_head, n, c.d_head}), kv = shape({c.n_kv_head, n, c.d_head});
  const int group = c.n_kv_head > 0 ? c.n_head / c.n_kv_head : 1;
  ImGui::TextWrapped("%s", Trf(Str::kModelLayers, {c.model_type, std::to_string(c.n_layer)}).c_str());
  if (ImGui::BeginTable("model_shapes", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    const std::pair<std::string, std::string> rows[] = {
        {"x", shape({n, c.d_model}) + "  " + Tr(Str::kResidualStream)},
        {model::QkFormula(c, 'q'), q + "  [n_head, n, d_head]"},
        {model::QkFormula(c, 'k'), kv + "  [n_kv_head, n, d_head]"},
        {"v = x W_v", kv + "  [n_kv_head, n, d_head]"},
        {"probs = " + model::AttentionFormula(c), shape({c.n_head, n, n}) + "  " + Tr(Str::kNoteOneMapPerHead)},
        {"z = probs v", shape({c.n_head, n, c.d_head})},
        {"out = concat(z) W_o", shape({n, c.d_model})},
    };
    for (const auto& [name, value] : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
      ctx.dump.RecordItem(std::string("shapes.model.") + name, JsonString(value));
    }
    ImGui::EndTable();
  }
  if (group > 1) {
    DimText(Trf(Str::kGroupedQueryShapes, {std::to_string(c.n_head), std::to_string(c.n_kv_head), std::to_string(group)}));
  } else {
    DimText(Trf(Str::kEveryHeadOwnKv, {std::to_string(c.n_head)}));
  }
}

// The sandbox's tensors with their live shapes, the weights in the layout chosen (fused or separate), and
// the three rules behind the shapes.
void DrawSandboxShapes(PanelContext& ctx) {
  const SandboxExtras* run = ctx.shown ? ctx.shown->sandbox.get() : nullptr;
  if (!run) {
    ImGui::TextUnformatted(Tr(ctx.results.computing ? Str::kComputing : Str::kNoResultYet));
    return;
  }
  const AttentionTensors& t = *run->numbers;
  const AttentionConfig& c = run->config;
  const bool cross = c.mode == AttentionMode::kCross, fused = c.qkv == QkvLayout::kFused;
  const int d_model = c.d_model, d_k = c.head_dim_k(), d_v = c.head_dim_v(), n_head = c.n_head;
  struct Row {
    std::string step, name;
    const Tensor* tensor;  // nullptr: a weight, shown by `shape`
    std::string shape, note;
  };
  auto dims = [](int a, int b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; };
  const bool divided = c.scale && c.score == ScoreKind::kScaledDot;  // config.h logit_multiplier
  const std::string scale = divided ? "\xC3\xB7\xE2\x88\x9A" "d_k" : std::string("(") + Tr(Str::kUnscaled) + ")";
  const std::string logits_note =
      "[n_head, n_q, n_k]  " + scale + (c.temperature != 1.0f ? " \xC3\xB7T=" + FormatNumber(c.temperature, "%.3g") : "") +
      (c.softcap > 0 ? "  \xE2\x86\x92 " + FormatNumber(c.softcap, "%.3g") + " \xC2\xB7 tanh(\xC2\xB7 / " +
                           FormatNumber(c.softcap, "%.3g") + ")"
                     : std::string());
  std::vector<Row> rows;
  rows.push_back({Tr(Str::kStepEmbed), cross ? "xq" : "x", cross ? t.xq.get() : t.x.get(), "",
                  Tr(cross ? Str::kNoteQuerySentence : Str::kNoteTokensPositions)});
  if (cross) rows.push_back({Tr(Str::kStepEmbed), "x", t.x.get(), "", Tr(Str::kNoteKvSentence)});
  // The weights as laid out: one fused matrix split by columns, or three matrices (the same numbers). Only
  // those a projected q, k or v uses: a raw source (word length, position, one-hot) has no W.
  const bool projected_q = c.query_from == FeatureSource::kEmbedding;
  const bool projected_k = c.key_from == FeatureSource::kEmbedding;
  const bool projected_v = c.value_from == FeatureSource::kEmbedding;
  const int fused_width = n_head * (2 * d_k + d_v);
  std::string weight_names;  // for the dump: which weight rows are shown
  auto add_weight = [&](const char* name, int width, std::string note) {
    rows.push_back({"W", name, nullptr, dims(d_model, width), std::move(note)});
    weight_names += (weight_names.empty() ? "" : ",") + JsonString(name);
  };
  if (fused && projected_q && projected_k && projected_v) {
    add_weight("W_qkv", fused_width, Trf(Str::kFusedNote, {std::to_string(fused_width)}));
  } else {
    std::string note = Tr(Str::kSeparateNote);  // on the first row shown
    if (projected_q) add_weight("W_q", n_head * d_k, std::exchange(note, ""));
    if (projected_k) add_weight("W_k", n_head * d_k, std::exchange(note, ""));
    if (projected_v) add_weight("W_v", n_head * d_v, std::exchange(note, ""));
  }
  ctx.dump.SetField("shapes_weights", "[" + weight_names + "]");
  // Each of q, k, v from its source: the projection (x W, split or one matrix each), or a raw feature used as
  // it is (qkv_source.h: no W, every head the same numbers).
  struct Projected {
    const char* name;
    FeatureSource from;
    const Tensor* tensor;
    const char* shape;
  };
  const Projected projected[] = {{"q", c.query_from, t.q.get(), "[n_head, n_q, d_k]"},
                                 {"k", c.key_from, t.k.get(), "[n_head, n_k, d_k]"},
                                 {"v", c.value_from, t.v.get(), "[n_head, n_k, d_v]"}};
  for (const Projected& p : projected) {
    std::string step = fused ? "x W \xE2\x86\x92 [:, " + std::string(p.name) + "]" : "x W_" + std::string(p.name);
    std::string note = p.shape;
    if (p.from != FeatureSource::kEmbedding) {
      step = Trf(Str::kStepRawSource, {FeatureSourceLabel(p.from)});
      note += std::string("  ") + Tr(Str::kNoteRawSource);
    }
    if (c.qk_norm && std::string(p.name) != "v") note += std::string("  ") + Tr(Str::kQkNormCheckbox);
    ctx.dump.SetField(std::string("shapes_step_") + p.name, JsonString(step));
    rows.push_back({step, p.name, p.tensor, "", note});
  }
  // The step names the run's own score (-|q - k| is no q k^T); the logits map is on demand.
  rows.push_back({ScoreFormula(c.score), "logits", t.probs.get(), "", logits_note});
  ctx.dump.SetField("shapes_score_step", JsonString(ScoreFormula(c.score)));
  rows.push_back({"softmax", "probs", t.probs.get(), "", "[n_head, n_q, n_k]  " + std::string(Tr(Str::kNoteRowsSumToOne))});
  rows.push_back({"probs v", "z", t.z.get(), "", "[n_head, n_q, d_v]"});
  rows.push_back({"concat", "concat", t.concat.get(), "", "[n_q, n_head\xC2\xB7" "d_v]"});
  rows.push_back({"\xC2\xB7 W_o", "out", t.out.get(), "", "[n_q, d_model]"});
  // The three rules behind the shapes, always in view, with the widths the run has: a raw source (word length,
  // position) makes q and k 1 wide whatever d_k is set to.
  const int q_width = t.q ? (int)t.q->dim(2) : d_k, v_width = t.v ? (int)t.v->dim(2) : d_v;
  const std::string rules = Trf(Str::kShapesRules, {std::to_string(q_width), std::to_string(v_width),
                                                    std::to_string(t.n_k()), ScoreFormula(c.score)});
  ImGui::TextWrapped("%s", rules.c_str());
  ctx.dump.SetField("shapes_rules", JsonString(rules));
  ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(4.0f, 0.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 1.0f));
  bool table = ImGui::BeginTable("shapes", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit);
  ImGui::PopStyleVar(2);
  if (table) {
    for (Str column : {Str::kColStep, Str::kColTensor, Str::kColShape}) ImGui::TableSetupColumn(Tr(column));
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    for (const Row& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.step.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.name.c_str());
      ImGui::TableNextColumn();
      // Pooled (long inputs): no logits or probs are kept; say so with the shape they stand for, not "[]".
      const bool pooled_map = t.pooled && (r.name == "logits" || r.name == "probs");
      const std::string shape =
          pooled_map ? Trf(Str::kShapePooled, {ShapeString({(size_t)n_head, (size_t)t.n_q(), (size_t)t.n_k()})})
          : r.tensor ? ShapeString(r.tensor->shape)
                     : r.shape;
      ImGui::TextUnformatted(shape.c_str());
      ctx.dump.RecordItem("shapes." + r.name, JsonString(shape));
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
      ImGui::TextUnformatted(r.note.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::EndTable();
  }
}

}  // namespace

void DrawShapesPanel(PanelContext& ctx, const LearnTabDrawers& others) {
  ctx.layout.PlacePanel(0.258f, 0.70f, 0.461f, 0.30f);
  if (!ImGui::Begin(WindowTitle(Str::kWinShapes, "Shapes").c_str())) {
    ImGui::End();
    return;
  }
  auto shapes = [&ctx] {
    if (ctx.settings.source != Source::kModel) return DrawSandboxShapes(ctx);
    if (ctx.results.seq2seq_mode(ctx.settings)) return DrawSeq2SeqShapes(ctx);
    if (std::shared_ptr<const ModelFolder> folder = ctx.verbs.ModelFolderOpen()) DrawModelShapes(ctx, *folder);
    else ImGui::TextUnformatted(Tr(Str::kNoModelOpen));
  };
  struct Tab {
    LearnTab tab;
    Str label;
    const char* name;
    std::function<void()> draw;
  };
  const Tab tabs[] = {
      {LearnTab::kShapes, Str::kTabShapes, "shapes", shapes},
      {LearnTab::kNumbers, Str::kTabNumbers, "numbers", others.numbers},
      {LearnTab::kLessons, Str::kTabLessons, "lessons", others.lessons},
      {LearnTab::kDictionary, Str::kTabDictionary, "dictionary", others.dictionary},
      {LearnTab::kVariance, Str::kTabVariance, "variance", others.variance},
  };
  LearnPanelView& learn = ctx.views.learn;
  // A shown lesson keeps its words in a column beside the evidence tab (the Lessons tab itself has them).
  const bool beside = learn.lesson_beside && learn.tab != LearnTab::kLessons;
  if (beside) {
    ImGui::BeginChild("lesson_beside", ImVec2(ImGui::GetContentRegionAvail().x * 0.38f, 0), true);
    if (learn.scroll_to_top) ImGui::SetScrollY(0.0f);
    if (others.lesson_beside) others.lesson_beside();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginGroup();
  }
  if (ImGui::BeginTabBar("learn_tabs")) {
    for (const Tab& tab : tabs) {
      const bool select = learn.tab_requested > 0 && learn.tab == tab.tab;
      const bool open = ImGui::BeginTabItem(Labeled(ctx.dump, tab.label, tab.name).c_str(), nullptr,
                                            select ? ImGuiTabItemFlags_SetSelected : 0);
      ctx.dump.RecordItem(std::string("learn.tab.") + tab.name, BoolJson(open));
      if (!open) continue;
      if (learn.tab_requested > 0 && learn.tab == tab.tab) learn.tab_requested = 0;  // arrived
      if (learn.tab_requested == 0) learn.tab = tab.tab;
      ImGui::BeginChild("tab_body");
      if (learn.scroll_to_top) ImGui::SetScrollY(0.0f);
      if (tab.draw) tab.draw();
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  if (beside) ImGui::EndGroup();
  if (learn.tab_requested == 0) learn.scroll_to_top = false;  // the lesson's tab drew once from its top
  if (learn.tab_requested > 0) --learn.tab_requested;
  ImGui::End();
}

}  // namespace attnviz
