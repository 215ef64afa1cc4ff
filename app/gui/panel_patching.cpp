// The Overview's activation patching (core/model/patching.h over core/session/patching_job.*): the shown text is the
// corrupted run, a second text the clean one; the metric is logit[A] - logit[B] at the last position. Each cell is
// the share of the difference one clean activation brings back: a grid of layers by heads (each head's output),
// and below it layers by positions (the residual stream entering each layer). Diverging colours, hover for the
// value. A scan reruns the model once per cell, so it runs on Run only, with progress and a Cancel that keeps the
// cells done.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app.h"
#include "i18n/localized.h"
#include "model_folder.h"
#include "panel_util.h"
#include "signed_grid.h"
#include "tokenize/shown_text.h"
#include "widgets.h"

namespace attnviz {
namespace {

std::string TokenText(const ModelFolder& folder, int id) {
  const std::optional<std::string> text = folder.tokenizer->IdToDisplay(id);
  return text ? ShownText(*text) : "#" + std::to_string(id);
}

// "heads: layer 2 of 12" or "residual stream: layer 3 of 13": where a scan of n_layer x n_head heads and
// (n_layer + 1) x n positions is (the heads are patched first, layer by layer).
std::string ProgressText(const JobProgress& p, int n_layer, int n_head) {
  const size_t heads = (size_t)n_layer * n_head;
  if (p.done < heads || p.total <= heads)
    return Trf(Str::kPatchProgressHeads, {std::to_string(std::min<size_t>(p.done / std::max(1, n_head) + 1, n_layer)),
                                          std::to_string(n_layer)});
  const size_t n = std::max<size_t>(1, (p.total - heads) / (size_t)(n_layer + 1));
  return Trf(Str::kPatchProgressResidual,
             {std::to_string(std::min<size_t>((p.done - heads) / n + 1, n_layer + 1)), std::to_string(n_layer + 1)});
}

// A token input of the metric: its id, or -1 with the error (empty text: -1 and no error).
int ReadToken(const ModelFolder& folder, const std::string& text, Str label, std::string* error) {
  if (text.empty()) return -1;
  Result<int> t = ResolveTokenArg(folder, text, Tr(label));
  if (t) return *t;
  *error = Localized(t.status());
  return -1;
}

}  // namespace

PatchInputs DrawPatchInputs(PanelContext& ctx, Str clean_label, const std::string& shown, bool busy,
                            const JobProgress& progress, const std::string& progress_text,
                            const std::function<int(const std::string&, Str, std::string*)>& read_token) {
  OverviewPanelView& v = ctx.views.overview;
  if (!v.patch_clean_filled) v.patch_clean = shown, v.patch_clean_filled = true;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.7f);
  widget::InputText(ctx.dump, clean_label, "patch.clean", &v.patch_clean);
  const float token_w = ImGui::GetFontSize() * 6.0f;
  ImGui::SetNextItemWidth(token_w);
  widget::InputText(ctx.dump, Str::kPatchTokenA, "patch.a", &v.patch_a);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(token_w);
  widget::InputText(ctx.dump, Str::kPatchTokenB, "patch.b", &v.patch_b);
  PatchInputs in;
  in.a = read_token(v.patch_a, Str::kPatchTokenA, &in.error);
  in.b = in.error.empty() ? read_token(v.patch_b, Str::kPatchTokenB, &in.error) : -1;
  const bool ready = in.error.empty() && in.a >= 0 && in.b >= 0 && !v.patch_clean.empty();
  if (!ready || busy) ImGui::BeginDisabled();
  in.run = widget::Button(ctx.dump, Str::kPatchRun, "patch.run") && ready && !busy;
  if (!ready || busy) ImGui::EndDisabled();
  if (busy) {
    ImGui::SameLine();
    widget::ProgressBar(ctx.dump, "patch.progress", (float)progress.fraction, ImGui::GetContentRegionAvail().x * 0.6f,
                        progress_text);
    ImGui::SameLine();
    in.cancel = widget::SmallButton(ctx.dump, Str::kScanCancel, "patch.cancel");
  }
  return in;
}

void DrawPatchingView(PanelContext& ctx) {
  const ModelResult* result = CompleteRunWithExplanation(ctx, Str::kPatchExplain);
  if (!result) return;
  const ModelFolder& shown_folder = *result->request.folder;
  const model::ModelConfig& c = shown_folder.model->config();
  if (!result->has_lm_head) {
    DimText(Tr(Str::kNoLmHead));
    return;
  }
  // 1. The clean text (the shown one to start from) and the metric's tokens.
  OverviewPanelView& v = ctx.views.overview;
  const bool busy = ctx.verbs.PatchingBusy();
  const JobProgress progress = busy ? ctx.verbs.PatchingProgress() : JobProgress();
  const PatchInputs in = DrawPatchInputs(
      ctx, Str::kPatchClean, result->request.text, busy, progress, ProgressText(progress, c.n_layer, c.n_head),
      [&](const std::string& text, Str label, std::string* error) { return ReadToken(shown_folder, text, label, error); });
  const int a = in.a, b = in.b;
  const std::string& error = in.error;
  if (in.run) ctx.verbs.StartPatching(v.patch_clean, a, b);
  if (in.cancel) ctx.verbs.CancelPatching();
  ImGui::PushTextWrapPos(0);
  if (!error.empty()) ErrorText(error);
  ctx.dump.SetField("patch_token_error", JsonString(error));
  // 2. The last scan of this model, or why it was refused.
  std::shared_ptr<const PatchingResult> shown = ctx.verbs.ShownPatching();
  if (!shown) {
    if (!busy) DimText(Tr(Str::kPatchNeedsRun));
    ImGui::PopTextWrapPos();
    return;
  }
  if (!shown->status.ok()) {
    // Texts of different lengths: both counts, in the app's words (the core's names the CLI's option).
    const bool counts = shown->clean_tokens > 0 && shown->corrupted_tokens > 0 &&
                        shown->clean_tokens != shown->corrupted_tokens;
    const std::string why = counts ? Trf(Str::kPatchCounts, {std::to_string(shown->clean_tokens),
                                                             std::to_string(shown->corrupted_tokens)})
                                   : Localized(shown->status);
    ErrorText(why);
    ctx.dump.SetField("patch_error", JsonString(why));
    ImGui::PopTextWrapPos();
    return;
  }
  const PatchingRequest& r = shown->request;
  if (r.clean_text != v.patch_clean || r.corrupted_text != result->request.text || r.token_a != a || r.token_b != b)
    DimText(Tr(Str::kPatchStale));
  const model::Patching& p = shown->patching;
  if (!p.complete && !busy) DimText(Trf(Str::kPatchPartial, {std::to_string(p.done), std::to_string(p.total)}));
  const std::string metric = Trf(Str::kPatchMetric, {"\"" + TokenText(shown_folder, r.token_a) + "\"",
                                                     "\"" + TokenText(shown_folder, r.token_b) + "\"",
                                                     FormatNumber(p.clean, "%.4f"), FormatNumber(p.corrupted, "%.4f")});
  ctx.NeedGlyphs(metric);
  ImGui::TextUnformatted(metric.c_str());
  ImGui::PopTextWrapPos();
  ctx.dump.SetField("patching", "{\"clean\": " + JsonNumber(p.clean) + ", \"corrupted\": " + JsonNumber(p.corrupted) +
                                    ", \"done\": " + std::to_string(p.done) + ", \"total\": " +
                                    std::to_string(p.total) + ", \"complete\": " + BoolJson(p.complete) + "}");
  // 3. The grids: the shares around 0 (1 = all of the difference), the colours' ends at least +-1.
  double range = 1;
  for (double x : p.heads) if (!std::isnan(x)) range = std::max(range, std::fabs(x));
  for (double x : p.residual) if (!std::isnan(x)) range = std::max(range, std::fabs(x));
  DrawDivergingLegend(range, Tr(Str::kPatchLegend));
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  if (!p.heads.empty()) {
    DimText(Tr(Str::kPatchHeads));
    SignedGrid heads;
    heads.rows = p.n_layer, heads.cols = p.n_head;
    heads.values = p.heads.data();
    for (int l = 0; l < p.n_layer; ++l) heads.row_labels.push_back("L" + std::to_string(l));
    for (int h = 0; h < p.n_head; ++h) heads.col_labels.push_back("H" + std::to_string(h));
    heads.range = range;
    heads.dump_name = "patch.heads";
    heads.tooltip = [&](int row, int col) {
      const double x = p.Head(row, col);
      return Trf(Str::kPatchTipHead, {std::to_string(row), std::to_string(col),
                                      std::isnan(x) ? std::string(Tr(Str::kPatchNotDone)) : SignedText(x)});
    };
    DrawSignedGrid(ctx, heads, (ImGui::GetContentRegionAvail().y - line_h * 2) * 0.5f);
  }
  if (!p.residual.empty()) {
    DimText(Tr(Str::kPatchResidual));
    // The residual grid's columns are the corrupted (shown) text's tokens.
    std::vector<int> ids;
    if (r.corrupted_text == result->request.text) {
      for (size_t i = 0; i < result->tokens.size(); ++i) ids.push_back(result->tokens[i].id);
    } else if (auto tokens = TokenizeForModel(shown_folder, r.corrupted_text)) {
      ids = TokenIds(*tokens);
    }
    SignedGrid res;
    res.rows = p.n_layer + 1, res.cols = p.n;
    res.values = p.residual.data();
    for (int l = 0; l <= p.n_layer; ++l) res.row_labels.push_back("L" + std::to_string(l));
    for (int i = 0; i < p.n; ++i) res.col_labels.push_back(i < (int)ids.size() ? TokenText(shown_folder, ids[(size_t)i]) : std::to_string(i));
    for (const std::string& l : res.col_labels) ctx.NeedGlyphs(l);
    res.range = range;
    res.min_cell_w = 44.0f;
    res.dump_name = "patch.residual";
    res.tooltip = [&](int row, int col) {
      const double x = p.Residual(row, col);
      return Trf(Str::kPatchTipResidual, {std::to_string(row), std::to_string(col), "\"" + res.col_labels[(size_t)col] + "\"",
                                          std::isnan(x) ? std::string(Tr(Str::kPatchNotDone)) : SignedText(x)});
    };
    DrawSignedGrid(ctx, res, ImGui::GetContentRegionAvail().y);
  }
}

}  // namespace attnviz
