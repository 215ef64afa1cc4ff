// The Overview's direct logit attribution (core/model/attribution.h over core/session/attribution_job.*): how much
// each head of each layer, each layer's MLP, the embeddings and the biases add to one target token's logit at one
// position. A grid of layers (rows) by heads plus an MLP column, the parts that belong to no layer in a row below,
// diverging colours symmetric around 0; hover for the signed value. The logit and the parts' sum in one line.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app.h"
#include "i18n/localized.h"
#include "model/predict.h"
#include "model_folder.h"
#include "panel_util.h"
#include "signed_grid.h"
#include "tokenize/shown_text.h"
#include "widgets.h"

namespace attnviz {
namespace {

std::string QuotedToken(const ModelFolder& folder, int id) {
  const std::optional<std::string> text = folder.tokenizer->IdToDisplay(id);
  return text ? "\"" + ShownText(*text) + "\"" : "#" + std::to_string(id);
}

// The head grid with the MLP as its last column: [n_layer, n_head + 1].
std::vector<double> HeadsAndMlp(const AttributionGrid& g) {
  std::vector<double> out;
  out.reserve((size_t)g.n_layer * (g.n_head + 1));
  for (int l = 0; l < g.n_layer; ++l) {
    for (int h = 0; h < g.n_head; ++h) out.push_back(g.Head(l, h));
    out.push_back(g.mlp[(size_t)l]);
  }
  return out;
}

}  // namespace

void DrawAttributionParts(PanelContext& ctx, const double (&parts)[3], double range) {
  SignedGrid row;
  row.rows = 1, row.cols = 3;
  row.values = parts;
  row.row_labels = {""};
  row.col_labels = {Tr(Str::kAttribEmbed), Tr(Str::kAttribAttnBias), Tr(Str::kAttribNormBias)};
  for (const std::string& l : row.col_labels) ctx.NeedGlyphs(l);
  row.range = range;
  row.min_cell_w = 60.0f;  // each part's name fits above its cell
  for (const std::string& l : row.col_labels)
    row.min_cell_w = std::max(row.min_cell_w, ImGui::CalcTextSize(l.c_str()).x + 8.0f);
  row.dump_name = "attrib_parts";
  row.tooltip = [&](int, int c) { return Trf(Str::kAttribTipPart, {row.col_labels[(size_t)c], SignedText(parts[c])}); };
  DrawSignedGrid(ctx, row);
}

void DrawAttributionView(PanelContext& ctx) {
  const ModelResult* result = CompleteRunWithExplanation(ctx, Str::kAttribExplain);
  if (!result) return;
  const ModelFolder& shown_folder = *result->request.folder;
  if (!result->has_lm_head) {
    DimText(Tr(Str::kNoLmHead));
    return;
  }
  // 1. The position (the last unless moved) and the target (typed, or the default).
  const int n = (int)result->tokens.size();
  OverviewPanelView& v = ctx.views.overview;
  int position = v.attrib_position < 0 || v.attrib_position >= n ? n - 1 : v.attrib_position;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  if (widget::SliderInt(ctx.dump, Str::kAttribPosition, "attrib.position", &position, 0, std::max(0, n - 1)))
    v.attrib_position = position == n - 1 ? -1 : position;  // the last stays the last when the text grows
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  widget::InputTextWithHint(ctx.dump, Str::kAttribTarget, "attrib.target", Tr(Str::kAttribTargetHint),
                            &v.attrib_target);
  int target = -1;
  std::string target_error;
  if (!v.attrib_target.empty()) {
    Result<int> t = ResolveTokenArg(shown_folder, v.attrib_target, Tr(Str::kAttribTarget));
    if (t) target = *t;
    else target_error = Localized(t.status());
  }
  ctx.dump.SetField("attrib_target_error", JsonString(target_error));
  if (!target_error.empty()) {  // nothing is asked for until the target reads as one token
    ImGui::PushTextWrapPos(0);
    ErrorText(target_error);
    ImGui::PopTextWrapPos();
    return;
  }
  // 2. The job: asked every frame, started when the request, the position or the target changed.
  ctx.verbs.RequestAttribution(position, target);
  std::shared_ptr<const AttributionResult> a = ctx.verbs.ShownAttribution();
  const bool current = a && a->request.position == position && a->request.target == target;
  if (ctx.verbs.AttributionBusy() || !current) DimText(Tr(Str::kAttribBusy));
  if (a && !a->status.ok()) {  // a post-norm or masked LM: the core's words
    ImGui::PushTextWrapPos(0);
    ErrorText(Localized(a->status));
    ImGui::PopTextWrapPos();
    ctx.dump.SetField("attrib_error", JsonString(Localized(a->status)));
    return;
  }
  if (!a || a->grid.n_layer == 0) return;
  // 3. The logit and the parts' sum, then the grid.
  const model::LogitAttribution& at = a->attribution;
  const AttributionGrid& g = a->grid;
  const int pos = std::clamp(at.position, 0, n - 1);
  const std::string line = Trf(Str::kAttribSum, {QuotedToken(shown_folder, at.target), std::to_string(at.position),
                                                 QuotedToken(shown_folder, result->tokens[(size_t)pos].id),
                                                 FormatNumber(at.logit, "%.4f"), FormatNumber(g.sum, "%.4f")});
  ctx.NeedGlyphs(line);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(line.c_str());
  if (at.capped) DimText(Trf(Str::kAttribCapped, {FormatNumber(at.capped_logit, "%.4f")}));
  if (v.attrib_target.empty()) DimText(Trf(Str::kAttribDefaultTarget, {QuotedToken(shown_folder, at.target)}));
  ImGui::PopTextWrapPos();
  ctx.dump.SetField("attribution", "{\"position\": " + std::to_string(at.position) + ", \"target\": " +
                                       std::to_string(at.target) + ", \"logit\": " + ExactNumber(at.logit) +
                                       ", \"sum\": " + ExactNumber(g.sum) + ", \"line\": " + JsonString(line) + "}");
  const double range = std::max(g.MaxAbs(), 1e-12);
  DrawDivergingLegend(range, Tr(Str::kAttribLegend));
  const std::vector<double> cells = HeadsAndMlp(g);
  SignedGrid grid;
  grid.rows = g.n_layer, grid.cols = g.n_head + 1;
  grid.values = cells.data();
  for (int l = 0; l < g.n_layer; ++l) grid.row_labels.push_back("L" + std::to_string(l));
  for (int h = 0; h < g.n_head; ++h) grid.col_labels.push_back("H" + std::to_string(h));
  grid.col_labels.push_back("MLP");
  grid.range = range;
  grid.dump_name = "attrib";
  grid.tooltip = [&](int r, int c) {
    const double value = cells[(size_t)r * grid.cols + c];
    if (c == g.n_head) return Trf(Str::kAttribTipPart, {"L" + std::to_string(r) + " MLP", SignedText(value)});
    return Trf(Str::kAttribTipHead, {std::to_string(r), std::to_string(c), SignedText(value)});
  };
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  DrawSignedGrid(ctx, grid, ImGui::GetContentRegionAvail().y - line_h * 3);
  // 4. The parts of no head: the embeddings, the attention biases of every layer together, the final norm's bias.
  double attn_bias = 0;
  for (double b : g.attn_bias) attn_bias += b;
  const double parts[3] = {g.embed, attn_bias, g.norm_bias};
  DrawAttributionParts(ctx, parts, range);
}

}  // namespace attnviz
