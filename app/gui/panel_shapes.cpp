// Shapes: the pipeline with the live shapes of every tensor, and the three rules behind them.
#include <imgui.h>

#include "app.h"
#include "json.h"
#include "panel_util.h"

namespace attnviz {

namespace {

// A trained model's tensors in one block, with the pairing rule: keys and values come in pairs
// (n_kv_head each), queries may differ in number (n_head); under grouped-query attention each k/v
// head serves n_head / n_kv_head query heads.
void DrawModelShapes(App& app, const ModelFolder& folder) {
  const model::ModelConfig& c = folder.model->config();
  const int n = app.model_result ? (int)app.model_result->tokens.size() : 0;
  auto shape = [](std::initializer_list<int> dims) {
    std::string s = "[";
    for (int d : dims) s += (s.size() > 1 ? ", " : "") + std::to_string(d);
    return s + "]";
  };
  const std::string q = shape({c.n_head, n, c.d_head}), kv = shape({c.n_kv_head, n, c.d_head});
  const int group = c.n_kv_head > 0 ? c.n_head / c.n_kv_head : 1;
  ImGui::TextWrapped("%s", Trf(Str::kModelLayers, {c.model_type, std::to_string(c.n_layer)}).c_str());
  if (ImGui::BeginTable("model_shapes", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    const std::pair<std::string, std::string> rows[] = {
        {"x", shape({n, c.d_model}) + "  " + Tr(Str::kResidualStream)},
        {"q = x W_q", q + "  [n_head, n, d_head]"},
        {"k = x W_k", kv + "  [n_kv_head, n, d_head]"},
        {"v = x W_v", kv + "  [n_kv_head, n, d_head]"},
        {"probs = softmax(q k\xE1\xB5\x80 / \xE2\x88\x9A" "d_head)", shape({c.n_head, n, n}) + "  " + Tr(Str::kNoteOneMapPerHead)},
        {"z = probs v", shape({c.n_head, n, c.d_head})},
        {"out = concat(z) W_o", shape({n, c.d_model})},
    };
    for (const auto& [name, value] : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(value.c_str());
      app.dump.RecordItem(std::string("shapes.model.") + name, JsonString(value));
    }
    ImGui::EndTable();
  }
  if (group > 1) {
    DimText(Trf(Str::kGroupedQueryShapes, {std::to_string(c.n_head), std::to_string(c.n_kv_head), std::to_string(group)}));
  } else {
    DimText(Trf(Str::kEveryHeadOwnKv, {std::to_string(c.n_head)}));
  }
}

}  // namespace

void DrawShapesPanel(App& app) {
  DefaultWindowRect(0.258f, 0.70f, 0.461f, 0.30f);
  if (!ImGui::Begin(WindowTitle(Str::kWinShapes, "Shapes").c_str())) {
    ImGui::End();
    return;
  }
  if (app.state.source == Source::kModel) {
    if (std::shared_ptr<const ModelFolder> folder = app.models->folder()) DrawModelShapes(app, *folder);
    else ImGui::TextUnformatted("No model open.");
    ImGui::End();
    return;
  }
  if (!app.shown) {
    ImGui::TextUnformatted(app.computing ? "computing\xE2\x80\xA6" : "No result yet.");
    ImGui::End();
    return;
  }
  const AttentionTensors& t = app.shown->tensors;
  const AttentionConfig& c = app.shown->request.config;
  bool cross = c.mode == AttentionMode::kCross;
  struct Row {
    const char* step;
    const char* name;
    const Tensor* tensor;
    const char* note;
  };
  std::string scale = c.scale ? "\xC3\xB7\xE2\x88\x9A" "d_k" : "(unscaled)";
  const Row rows[] = {
      {"embed", cross ? "xq" : "x", cross ? t.xq.get() : t.x.get(), cross ? "the query sentence" : "tokens + positions"},
      {cross ? "embed" : "", cross ? "x" : "", cross ? t.x.get() : nullptr, "the key/value sentence"},
      {"x W_q", "q", t.q.get(), "[n_head, n_q, d_k]"},
      {"x W_k", "k", t.k.get(), "[n_head, n_k, d_k]"},
      {"x W_v", "v", t.v.get(), "[n_head, n_k, d_v]"},
      {"q k\xE1\xB5\x80", "logits", t.probs.get(), nullptr},  // same shape; the logits map is on demand
      {"softmax", "probs", t.probs.get(), "[n_head, n_q, n_k]  each row sums to 1 over the keys"},
      {"probs v", "z", t.z.get(), "[n_head, n_q, d_v]"},
      {"concat", "concat", t.concat.get(), "[n_q, n_head\xC2\xB7" "d_v]"},
      {"\xC2\xB7 W_o", "out", t.out.get(), "[n_q, d_model]"},
  };
  std::string logits_note = "[n_head, n_q, n_k]  " + scale +
                            (c.temperature != 1.0f ? " \xC3\xB7T=" + FormatNumber(c.temperature, "%.3g") : "");
  // The three rules behind the shapes, always in view.
  ImGui::TextWrapped("q and k must share d_k = %d (a logit is q\xC2\xB7k); d_v = %d is free (values are only "
                     "averaged); keys and values come in pairs (n_k = %d rows each: weight j mixes value j).",
                     c.head_dim_k(), c.head_dim_v(), t.n_k());
  ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(4.0f, 0.0f));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 1.0f));
  bool table = ImGui::BeginTable("shapes", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit);
  ImGui::PopStyleVar(2);
  if (table) {
    ImGui::TableSetupColumn("step");
    ImGui::TableSetupColumn("tensor");
    ImGui::TableSetupColumn("shape");
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    for (const Row& r : rows) {
      if (!r.tensor || r.name[0] == 0) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.step);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.name);
      ImGui::TableNextColumn();
      std::string shape = ShapeString(r.tensor->shape);
      ImGui::TextUnformatted(shape.c_str());
      app.dump.RecordItem(std::string("shapes.") + r.name, JsonString(shape));
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
      ImGui::TextUnformatted(r.note ? r.note : logits_note.c_str());
      ImGui::PopStyleColor();
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace attnviz
