// The Overview's logit lens (core/model/lens.h, nostalgebraist 2020): the model's final norm and LM head applied to
// the residual stream after the embeddings and after every block. A grid of layers (rows, 0 = the embeddings) by
// positions (columns, a window of kLensWindow of them): each cell names the token that layer would predict, its
// colour the probability it gives the actual next token (a masked LM: its top token's); hover for the top k.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app.h"
#include "color/colormap.h"
#include "i18n/localized.h"
#include "io/json.h"
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

// The value a cell is coloured by: p(actual next token) where there is one, else the top token's probability.
double CellValue(const model::LensPosition& p) {
  if (p.has_next) return p.next_prob;
  return p.top.empty() ? 0.0 : p.top[0].prob;
}

std::string CellTooltip(const ModelFolder& folder, const ModelResult& result, const model::LensLayer& layer,
                        const model::LensPosition& p) {
  const std::string at = TokenText(folder, result.tokens[(size_t)p.index].id);
  std::string tip = Trf(Str::kLensTip, {std::to_string(layer.layer), std::to_string(p.index), "\"" + at + "\""});
  for (const model::TokenProb& t : p.top)
    tip += "\n  " + FormatNumber(t.prob, "%.3g") + "  \"" + TokenText(folder, t.id) + "\"";
  if (p.has_next) {
    const int next = result.tokens[(size_t)p.index + 1].id;
    tip += "\n" + Trf(Str::kLensTipNext, {"\"" + TokenText(folder, next) + "\"", FormatNumber(p.next_prob, "%.3g")});
  }
  return tip;
}

// The grid, in a child window that scrolls sideways when the window's columns do not fit.
// The words of the grid: the column heads, then each cell's top token, row-major; made when a new lens arrives.
const std::vector<std::string>& LensTexts(PanelContext& ctx, const ModelFolder& folder, const ModelResult& result,
                                          const LensResult& lens) {
  OverviewPanelView& v = ctx.views.overview;
  if (v.lens_text_generation == lens.generation && !v.lens_text.empty()) return v.lens_text;
  v.lens_text.clear();
  for (int c = 0; c < lens.count; ++c) v.lens_text.push_back(TokenText(folder, result.tokens[(size_t)(lens.first + c)].id));
  for (const model::LensLayer& layer : lens.layers)
    for (int c = 0; c < lens.count; ++c) {
      const bool has = c < (int)layer.positions.size() && !layer.positions[(size_t)c].top.empty();
      v.lens_text.push_back(has ? TokenText(folder, layer.positions[(size_t)c].top[0].id) : "");
    }
  for (const std::string& t : v.lens_text) ctx.NeedGlyphs(t);
  v.lens_text_generation = lens.generation;
  return v.lens_text;
}

void DrawLensGrid(PanelContext& ctx, const ModelFolder& folder, const ModelResult& result, const LensResult& lens) {
  const std::vector<std::string>& text = LensTexts(ctx, folder, result, lens);
  const float line = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("L00 ").x, cell_h = line + 4.0f;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float cell_w = std::max(44.0f, (avail_w - label_w - 8.0f) / (float)std::max(1, lens.count));
  const int rows = (int)lens.layers.size();
  const float grid_h = cell_h * (float)(rows + 1) + ImGui::GetStyle().ScrollbarSize + 4.0f;
  ImGui::BeginChild("##lens_grid", ImVec2(0, std::min(grid_h, std::max(cell_h * 4, ImGui::GetContentRegionAvail().y - line * 2))),
                    false, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  // Columns: the token at each position; rows: the layer read, the model's own output last (bottom).
  for (int c = 0; c < lens.count; ++c) {
    const std::string& head = text[(size_t)c];
    dl->PushClipRect(ImVec2(o.x + label_w + c * cell_w, o.y), ImVec2(o.x + label_w + (c + 1) * cell_w - 2, o.y + cell_h), true);
    dl->AddText(ImVec2(o.x + label_w + c * cell_w + 2, o.y + 2), dim, head.c_str());
    dl->PopClipRect();
  }
  std::string dump_rows;
  for (int r = 0; r < rows; ++r) {
    const model::LensLayer& layer = lens.layers[(size_t)r];
    const float y = o.y + cell_h * (float)(r + 1);
    dl->AddText(ImVec2(o.x, y + 2), dim, (layer.layer == 0 ? std::string("emb") : "L" + std::to_string(layer.layer)).c_str());
    std::string dump_cells;
    for (int c = 0; c < (int)layer.positions.size() && c < lens.count; ++c) {
      const model::LensPosition& p = layer.positions[(size_t)c];
      const ImVec2 p0(o.x + label_w + c * cell_w, y), p1(p0.x + cell_w - 2, y + cell_h - 2);
      const double v = CellValue(p);
      unsigned char rgb[3];
      MapColor(ctx.settings.colormap, (float)std::clamp(v, 0.0, 1.0), rgb);
      dl->AddRectFilled(p0, p1, IM_COL32(rgb[0], rgb[1], rgb[2], 255));
      const std::string& top = text[(size_t)(lens.count * (r + 1) + c)];
      // Dark text on the light end of the colour map, light text on the dark end.
      const float luma = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
      dl->PushClipRect(p0, p1, true);
      dl->AddText(ImVec2(p0.x + 2, p0.y + 1), luma > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255),
                  top.c_str());
      dl->PopClipRect();
      const bool hovered = ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1);
      if (hovered) {
        const std::string tip = CellTooltip(folder, result, layer, p);
        ctx.NeedGlyphs(tip);
        ImGui::SetTooltip("%s", tip.c_str());
      }
      if (ctx.dump.enabled()) {
        const std::string name = "lens.cell." + std::to_string(layer.layer) + "." + std::to_string(p.index);
        ctx.dump.RecordRect(name, p0.x, p0.y, p1.x, p1.y, false, hovered,
                            "{\"top\": " + JsonString(top) + ", \"value\": " + JsonNumber(v) + "}");
        dump_cells += (c ? ", " : "") + std::string("[") + std::to_string(p.top.empty() ? -1 : p.top[0].id) + ", " +
                      JsonNumber(v) + "]";
      }
    }
    dump_rows += (r ? ", [" : "[") + dump_cells + "]";
  }
  ImGui::Dummy(ImVec2(label_w + cell_w * (float)lens.count, cell_h * (float)(rows + 1)));
  ImGui::EndChild();
  ctx.dump.SetField("lens", "{\"first\": " + std::to_string(lens.first) + ", \"count\": " + std::to_string(lens.count) +
                                ", \"n\": " + std::to_string(lens.n) + ", \"cells\": [" + dump_rows + "]}");
}

// "0 [colour bar] 1  p(actual next token)": what a cell's colour means, in the colour map the cells use.
void DrawLensLegend(Colormap colormap, const std::string& what) {
  ImGui::TextUnformatted("0");
  ImGui::SameLine();
  const float h = ImGui::GetTextLineHeight(), w = 100.0f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int steps = 25;
  for (int i = 0; i < steps; ++i) {
    unsigned char rgb[3];
    MapColor(colormap, (i + 0.5f) / steps, rgb);
    dl->AddRectFilled(ImVec2(p0.x + w * i / steps, p0.y), ImVec2(p0.x + w * (i + 1) / steps, p0.y + h),
                      IM_COL32(rgb[0], rgb[1], rgb[2], 255));
  }
  ImGui::SameLine();
  ImGui::TextUnformatted(("1  " + what).c_str());
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
  DrawLensGrid(ctx, *result->request.folder, *result, *lens);
}

}  // namespace attnviz
