// The Overview's logit lens (core/model/lens.h, nostalgebraist 2020): the model's final norm and LM head applied to
// the residual stream after the embeddings and after every block. A grid of layers (rows, 0 = the embeddings) by
// positions (columns, a window of kLensWindow of them): each cell names the token that layer would predict, its
// colour the probability it gives the actual next token (a masked LM: its top token's); hover for the top k.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app.h"
#include "i18n/localized.h"
#include "lens_grid.h"
#include "model/predict.h"
#include "panel_util.h"
#include "tokenize/shown_text.h"
#include "widgets.h"

namespace attnviz {
namespace {

// What a token id reads as in a cell or a tooltip ("·the"), or its id when the vocabulary has no text for it.
std::string TokenText(const ModelFolder& folder, int id) {
  const std::optional<std::string> text = folder.tokenizer->IdToDisplay(id);
  return text ? ShownText(*text) : "#" + std::to_string(id);
}

}  // namespace

const ModelResult* CompleteRunWithExplanation(PanelContext& ctx, Str explain) {
  const std::shared_ptr<const ModelResult>& result = ctx.results.model;
  std::shared_ptr<const ModelFolder> folder = ctx.verbs.ModelFolderOpen();
  if (!folder || !result || !result->complete() || !result->request.folder) {
    DimText(Tr(folder ? Str::kComputingFirstMaps : Str::kOpenModelForOverview));
    return nullptr;
  }
  ImGui::PushTextWrapPos(0);
  DimText(Tr(explain));
  ImGui::PopTextWrapPos();
  return result.get();
}

void DrawLensView(PanelContext& ctx) {
  const ModelResult* result = CompleteRunWithExplanation(ctx, Str::kLensExplain);
  if (!result) return;
  const model::ModelConfig& c = result->request.folder->model->config();
  if (!model::PredictsNextToken(c)) {
    ImGui::PushTextWrapPos(0);
    DimText(Trf(Str::kLensMaskedNote, {c.model_type}));
    ImGui::PopTextWrapPos();
  }
  if (!result->has_lm_head) {
    DimText(Tr(Str::kNoLmHead));
    return;
  }
  // The window of positions: all of a short text, kLensWindow of a long one, moved with a slider.
  const int n = (int)result->tokens.size();
  OverviewPanelView& v = ctx.views.overview;
  int first = v.lens_first, count = kLensWindow;
  ClipLensWindow(n, &first, &count);
  if (n > count) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
    widget::SliderInt(ctx.dump, Str::kLensFirst, "lens.first", &first, 0, n - count);
    DimText(Trf(Str::kLensWindow, {std::to_string(first), std::to_string(first + count - 1), std::to_string(n),
                                   std::to_string(count)}));
  }
  v.lens_first = first;
  ctx.verbs.RequestLens(first, count);
  std::shared_ptr<const LensResult> lens = ctx.verbs.ShownLens();
  const bool current = lens && lens->request.first == first && lens->request.count == count;
  if (ctx.verbs.LensBusy()) {
    const JobProgress p = ctx.verbs.LensProgress();
    const float fraction = p.total ? (float)p.done / (float)p.total : 0.0f;
    widget::ProgressBar(ctx.dump, "lens.progress", fraction, ImGui::GetContentRegionAvail().x * 0.6f,
                        Trf(Str::kLensProgress, {std::to_string(p.done), std::to_string(p.total)}));
    ImGui::SameLine();
    if (widget::SmallButton(ctx.dump, Str::kScanCancel, "lens.cancel")) ctx.verbs.CancelLens();
  } else if (!current) {
    DimText(Tr(Str::kLensCancelled));
  }
  if (lens && !lens->status.ok()) {
    ErrorText(Localized(lens->status));
    ctx.dump.SetField("lens_error", JsonString(Localized(lens->status)));
    return;
  }
  if (!lens || lens->layers.empty()) return;
  DrawLensLegend(ctx.settings.colormap, model::PredictsNextToken(c) ? Tr(Str::kLensLegend) : Tr(Str::kLensLegendTop));
  const ModelFolder& folder = *result->request.folder;
  LensGridInput in;
  in.layers = &lens->layers;
  in.first = lens->first, in.count = lens->count, in.n = lens->n;
  in.made_by = lens.get(), in.generation = lens->generation;
  in.token = [&](int id) { return TokenText(folder, id); };
  in.at = [&](int position) { return TokenText(folder, result->tokens[(size_t)position].id); };
  in.next = [&](int position) {
    return position + 1 < (int)result->tokens.size() ? TokenText(folder, result->tokens[(size_t)position + 1].id)
                                                      : std::string();
  };
  DrawLensGrid(ctx, in);
}

}  // namespace attnviz
