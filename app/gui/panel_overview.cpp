// Overview: every layer x head of a trained model as small maps (BertViz's model view, without its
// size limit). A click opens that head of that layer in the Heads panel. Under grouped-query
// attention, the query heads that share one key/value head are marked as a group. A right-click ablates or restores
// a head (crossed out while ablated); after an ablation scan the cells can be tinted by its delta loss.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include <imgui_stdlib.h>

#include "app.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {

namespace {

// The smallest thumbnail the grid shrinks to for the layers to fit the panel's height; many layers get cells as wide
// as the panel allows (at least this) and the grid scrolls, instead of ~10 px cells beside an empty panel.
constexpr float kReadableCell = 36.0f;

// What every cell of this frame reads: the run, its model's shape, the grid's geometry and the role filter.
struct OverviewFrame {
  const ModelResult* result = nullptr;
  const model::ModelConfig* c = nullptr;
  int n_layer = 0, n_head = 0;
  bool grouped = false;
  std::optional<model::RoleFilter> filter;
  std::string filter_error;  // in the UI's language
  bool roles_fit = false;
  std::shared_ptr<const AblationScanResult> scan;  // the delta-loss tint, when asked for and of this run
  MapKind kind = MapKind::kAttention;
  int heads_drawn = 0;
  bool hide_special = false;
  ImVec2 origin;
  float label_w = 0, label_h = 0, gap = 3.0f, group_gap = 0, cell = 4.0f;
  int matching = 0;
  int badges_near_chance = 0;  // badges drawn grey this frame (their legend line shows only then)
  float HeadX(int h) const {
    const int g = grouped ? KvGroupOf(*c, h) : 0;
    return origin.x + label_w + (float)h * (cell + gap) + (float)g * group_gap;
  }
};

// Under grouped-query attention, the grouping; for a streamed run's value-weighted thumbnails, how many layers are
// made (App::UpdateModel, ModelSession::MakeWeightedOverview; the cells stay empty until their layer is). Returns
// that count (-1: not that case).
int DrawOverviewNotes(PanelContext& ctx, const OverviewFrame& f) {
  const model::ModelConfig& c = *f.c;
  if (f.grouped) {
    DimText(Trf(Str::kGroupedQueryOverview,
                {std::to_string(c.n_head), std::to_string(c.n_kv_head), std::to_string(c.n_head / c.n_kv_head)}));
  }
  int weighted_done = -1;
  if (KindInfo(ctx.views.heads.kind).shows.needs_pyramid && f.result->streamed && f.result->complete()) {
    const std::shared_ptr<const WeightedOverview> w = ctx.verbs.WeightedOverviewMade();
    weighted_done = w && w->request.result.lock().get() == f.result ? w->layers_done : 0;
    if (weighted_done < f.n_layer)
      DimText(Trf(Str::kValueWeightedOverviewStreamed, {std::to_string(weighted_done), std::to_string(f.n_layer)}));
  }
  return weighted_done;
}

// The role filter: heads that do not match are dimmed; each map carries its strongest role.
void DrawRoleFilter(PanelContext& ctx, OverviewFrame* f) {
  ImGui::SetNextItemWidth(std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.6f));
  widget::InputTextWithHint(ctx.dump, Str::kRoleFilter, "overview.filter", Tr(Str::kRoleFilterHint),
                            &ctx.settings.model_role_filter);
  if (!ctx.settings.model_role_filter.empty()) {
    auto parsed = ParseLocalizedRoleFilter(ctx.settings.model_role_filter);
    if (parsed) f->filter = *parsed;
    else ErrorText(f->filter_error = Localized(parsed));
  }
}

// Layout: labels left and on top, a gap between groups of heads that share a kv head.
void PlaceGrid(OverviewFrame* f) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  f->label_w = ImGui::CalcTextSize("L00 ").x;
  f->label_h = ImGui::GetTextLineHeightWithSpacing() * (f->grouped ? 2 : 1);
  f->group_gap = f->grouped ? 6.0f : 0.0f;
  const int groups = f->grouped ? f->c->n_kv_head : 1;
  const int n_head = f->n_head, n_layer = f->n_layer;
  const float by_width = (avail.x - f->label_w - f->gap * n_head - f->group_gap * groups) / (float)n_head;
  const float by_height = (avail.y - f->label_h - f->gap * n_layer) / (float)n_layer;
  f->cell = std::max(4.0f, std::min(by_width, std::max(by_height, kReadableCell)));
  f->origin = ImGui::GetCursorScreenPos();
}

// "H0 H1 ..." along the top (every k-th head when the cells are narrower than a label, so they never run together),
// and under grouped-query attention a line and "kv g" over each group.
void DrawHeadLabels(PanelContext& ctx, const OverviewFrame& f) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  const model::ModelConfig& c = *f.c;
  const float label_w = ImGui::CalcTextSize(("H" + std::to_string(f.n_head - 1)).c_str()).x + 4.0f;
  const int every = std::max(1, (int)std::ceil(label_w / (f.cell + f.gap)));
  for (int h = 0; h < f.n_head; ++h) {
    if (h % every == 0) {
      const std::string label = "H" + std::to_string(h);
      const ImVec2 size = ImGui::CalcTextSize(label.c_str());
      dl->AddText(ImVec2(f.HeadX(h), f.origin.y), dim, label.c_str());
      ctx.dump.RecordRect("overview.head_label." + std::to_string(h), f.HeadX(h), f.origin.y, f.HeadX(h) + size.x,
                          f.origin.y + size.y, false, false);
    }
    if (f.grouped && h % (c.n_head / c.n_kv_head) == 0) {
      const int g = KvGroupOf(c, h);
      const float x1 = f.HeadX(h + c.n_head / c.n_kv_head - 1) + f.cell;
      const float y = f.origin.y + ImGui::GetTextLineHeightWithSpacing();
      dl->AddLine(ImVec2(f.HeadX(h), y + 2), ImVec2(x1, y + 2), dim);
      dl->AddText(ImVec2(f.HeadX(h), y + 3), dim, ("kv " + std::to_string(g)).c_str());
    }
  }
}

// One layer's maps as the thumbnails read them: a whole map per head, or a pooled level.
struct LayerThumbs {
  const Tensor* maps = nullptr;
  const PyramidLevel* pooled_level = nullptr;
  int n_q = 0, n_k = 0;
};

// Hiding special tokens needs the layer's maps (a copy without them), another kind its own maps; otherwise the
// pooled thumbnails. A streamed (long) run keeps no whole map to cut the special tokens out of: its thumbnails
// show every token. Returns false while another kind's maps of the layer are still to be made.
bool PickLayerThumbs(PanelContext& ctx, const OverviewFrame& f, int l, LayerThumbs* out) {
  const ModelResult& result = *f.result;
  const LayerMaps& t = *result.layers[(size_t)l];
  const bool derived = KindInfo(f.kind).shows.derived;
  const bool whole = derived || (f.hide_special && !t.pooled) || l >= (int)result.thumbnails.size();
  const std::shared_ptr<const LayerMaps> layer_made = whole ? ctx.verbs.OverviewLayer(l, f.hide_special) : nullptr;
  if (whole && !layer_made) return false;  // App::OverviewLayer's budget, or a rollout not made yet
  const Tensor* made = whole ? layer_made->probs.get() : nullptr;
  // A pooled rollout (a long input) keeps no whole map: the finest pyramid level within the thumbnail's cells.
  const PyramidLevel* pooled_level = nullptr;
  if (whole && made->empty() && layer_made->pyramid && !layer_made->pyramid->levels().empty()) {
    for (const PyramidLevel& level : layer_made->pyramid->levels()) {
      pooled_level = &level;
      if (std::max(level.rows, level.cols) <= kThumbnailCells) break;
    }
  }
  if (derived && made->empty() && !pooled_level) return false;  // App::OverviewLayer's budget
  out->maps = whole ? made : result.thumbnails[(size_t)l].get();
  out->pooled_level = pooled_level;
  out->n_q = pooled_level ? pooled_level->rows : (int)out->maps->dim(1);
  out->n_k = pooled_level ? pooled_level->cols : (int)out->maps->dim(2);
  return true;
}

// The heatmap image of head h's thumbnail.
HeatmapImage ThumbImage(PanelContext& ctx, const OverviewFrame& f, const LayerThumbs& th, const LayerMaps& t, int l, int h) {
  const ModelResult& result = *f.result;
  const size_t plane = (size_t)th.n_q * th.n_k;
  HeatmapImage image;
  // Max-pooled like attention's thumbnails (a pooled rollout keeps the block mean in both planes).
  image.probs = th.pooled_level ? th.pooled_level->Plane(PoolKind::kMax, h) : th.maps->data.data() + (size_t)h * plane;
  image.n_q = th.n_q;
  image.n_k = th.n_k;
  image.data_version = result.generation * 8 + (uint64_t)f.kind * 2 + (f.hide_special ? 1 : 0);
  image.colormap = ctx.settings.colormap;
  image.color_scale = ctx.settings.color_scale;
  image.masked = t.mask.HidesAny(th.n_q, th.n_k);
  // Value-weighted cells are a weight (<= 1) times the key's value norm: up to the head's largest norm, a bound
  // read from [n] numbers (the maps' own maximum would scan every cell each frame).
  if (KindInfo(f.kind).shows.own_range && l < (int)result.analysis.size() && result.analysis[(size_t)l]) {
    const Tensor& norms = *result.analysis[(size_t)l]->value_norms;  // [n_head, n]
    const float* row = norms.data.data() + (size_t)h * norms.dim(1);
    image.range = ColorRange{0.0f, std::max(1e-12f, *std::max_element(row, row + norms.dim(1)))};
  }
  return image;
}

// What one cell shows beside its map.
struct CellMarks {
  model::RoleScore best;
  float chance = -1;  // what uniform attention scores in best's role on this text (-1: none, as for broad)
  bool have_roles = false, match = true, ablated = false;
  // A role hardly stronger than chance says little about the head: its badge is drawn grey.
  bool near_chance() const { return have_roles && chance >= 0 && model::NearChance(best.score, chance); }
};

// Over the map: dimmed when the filter does not match, tinted by the scan's delta loss (red: the loss rises without
// this head; blue: it falls), crossed out while ablated, the role badge when the cell has room.
void DrawCellMarks(OverviewFrame& f, const CellMarks& marks, int l, int h, ImVec2 p0, ImVec2 p1) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (!marks.match) dl->AddRectFilled(p0, p1, IM_COL32(20, 20, 24, 190));
  if (f.scan && f.scan->max_abs_delta > 0) DrawDeltaTint(f.scan->Delta(l, h) / f.scan->max_abs_delta, p0, p1);
  if (marks.ablated) {  // dimmed and crossed out: this head outputs zero in the run shown
    dl->AddRectFilled(p0, p1, IM_COL32(0, 0, 0, 150));
    dl->AddLine(p0, p1, IM_COL32(255, 80, 60, 255), 2.0f);
    dl->AddLine(ImVec2(p0.x, p1.y), ImVec2(p1.x, p0.y), IM_COL32(255, 80, 60, 255), 2.0f);
  }
  if (marks.have_roles && f.cell >= 26.0f) {  // the badge: strongest role and its score
    const Str short_name = (Str)((int)Str::kRoleShortPrev + (int)marks.best.role);  // in HeadRole order
    const std::string badge = std::string(Tr(short_name)) + " " + FormatNumber(marks.best.score, "%.2f");
    const ImVec2 size = ImGui::CalcTextSize(badge.c_str());
    const float scale = std::min(1.0f, (f.cell - 2) / size.x);
    const float fs = ImGui::GetFontSize() * scale;
    const bool grey = marks.near_chance();
    f.badges_near_chance += grey;
    dl->AddRectFilled(ImVec2(p0.x, p1.y - fs - 2), ImVec2(p0.x + size.x * scale + 4, p1.y), IM_COL32(0, 0, 0, 170));
    dl->AddText(ImGui::GetFont(), fs, ImVec2(p0.x + 2, p1.y - fs - 1),
                grey ? IM_COL32(140, 140, 140, 255) : IM_COL32(255, 255, 255, 255), badge.c_str());
  }
}

// Under the grid, while the cells are tinted by a scan: what the tint means. A bar from blue (the loss falls most
// without the head) through no tint (0) to red (it rises most), its ends the signed delta loss they stand for
// (the tint's scale is the largest |delta|, so the ends are -max and +max), and what is measured.
void DrawDeltaLegend(PanelContext& ctx, const OverviewFrame& f) {
  const double m = f.scan->max_abs_delta;
  if (!(m > 0)) return;
  const float h = ImGui::GetTextLineHeight();
  const float w = std::max(120.0f, std::min(ImGui::GetContentRegionAvail().x * 0.5f, 260.0f));
  const std::string lo = FormatNumber(-m, "%+.4f"), hi = FormatNumber(m, "%+.4f");
  ImGui::TextUnformatted(lo.c_str());
  ImGui::SameLine();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, h));
  const float mid = p0.x + w * 0.5f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int a = (int)kDeltaAlpha;
  // Over the panel's background as the tint is over a map: blue fading out, then red fading in.
  dl->AddRectFilledMultiColor(p0, ImVec2(mid, p0.y + h), IM_COL32(40, 90, 230, a), IM_COL32(40, 90, 230, 0),
                              IM_COL32(40, 90, 230, 0), IM_COL32(40, 90, 230, a));
  dl->AddRectFilledMultiColor(ImVec2(mid, p0.y), ImVec2(p0.x + w, p0.y + h), IM_COL32(230, 40, 30, 0),
                              IM_COL32(230, 40, 30, a), IM_COL32(230, 40, 30, a), IM_COL32(230, 40, 30, 0));
  dl->AddRect(p0, ImVec2(p0.x + w, p0.y + h), ImGui::GetColorU32(kDimColor));
  dl->AddLine(ImVec2(mid, p0.y), ImVec2(mid, p0.y + h), ImGui::GetColorU32(kDimColor));
  ctx.dump.RecordItem("overview.delta_legend",
                      "{\"lo\": " + JsonNumber(-m) + ", \"hi\": " + JsonNumber(m) + "}");
  ImGui::SameLine();
  ImGui::TextUnformatted(hi.c_str());
  DimText(Tr(Str::kOverviewDeltaLegend));
}

// The hovered cell's figures, roles, delta loss and ablation.
void CellTooltip(const OverviewFrame& f, const CellMarks& marks, const LayerMaps& t, int l, int h) {
  const model::HeadRoles& roles = f.result->roles;
  std::string tip = Trf(Str::kOverviewTip,
                        {std::to_string(l), std::to_string(h),
                         f.grouped ? ", kv " + std::to_string(KvGroupOf(*f.c, h)) : std::string(),
                         FormatNumber(t.metrics[(size_t)h].max_weight, "%.2f"),
                         FormatNumber(t.metrics[(size_t)h].entropy, "%.2f")});
  if (marks.have_roles) {
    for (model::HeadRole role : model::AllHeadRoles()) {
      tip += "\n  " + LocalizedRoleName(role) + " " + FormatNumber(roles.at(l, h)[role], "%.2f");
      if ((size_t)l < roles.chance.size() && role != model::HeadRole::kBroad)
        tip += " " + Trf(Str::kHeadRoleChance, {FormatNumber(roles.chance[(size_t)l][role], "%.2f")});
    }
    tip += "\n" + LocalizedRoleSentence(marks.best.role);
  }
  if (f.scan) tip += "\n" + Trf(Str::kOverviewDeltaTip, {FormatNumber(f.scan->Delta(l, h), "%+.4f")});
  if (marks.ablated) tip += "\n" + std::string(Tr(Str::kOverviewAblatedTip));
  ImGui::SetTooltip("%s", tip.c_str());
}

// One head's thumbnail of layer l: the map, its marks, tooltip and record; a click opens it in the Heads panel.
void DrawOverviewCell(PanelContext& ctx, HeatmapRenderer& renderer, OverviewFrame& f, const LayerThumbs& th, int l, int h,
                      float y) {
  const LayerMaps& t = *f.result->layers[(size_t)l];
  const model::HeadRoles& roles = f.result->roles;
  const HeatmapImage image = ThumbImage(ctx, f, th, t, l, h);
  const ImVec2 p0(f.HeadX(h), y), p1(f.HeadX(h) + f.cell, y + f.cell);
  const HeatmapKey key{MapView::kOverview, l, h, 0};
  ImGui::SetCursorScreenPos(p0);
  ImGui::PushID(key.imgui_id());
  ImTextureID texture = renderer.Render(key, image, std::max(1, (int)f.cell), std::max(1, (int)f.cell));
  if (texture) ImGui::Image(texture, ImVec2(f.cell, f.cell));
  else ImGui::Dummy(ImVec2(f.cell, f.cell));
  const bool clicked = ImGui::IsItemClicked();
  const bool hovered = ImGui::IsItemHovered();
  DrawHeadAblateMenu(ctx, l, h);
  ImGui::PopID();
  CellMarks marks;
  marks.have_roles = f.roles_fit && KindInfo(f.kind).shows.head_roles;
  if (marks.have_roles) {
    marks.best = model::StrongestRole(roles.at(l, h));
    if ((size_t)l < roles.chance.size() && marks.best.role != model::HeadRole::kBroad)
      marks.chance = roles.chance[(size_t)l][marks.best.role];
  }
  marks.match = !f.filter || (marks.have_roles && f.filter->Matches(roles.at(l, h)));
  f.matching += marks.match;
  marks.ablated = ctx.HeadAblated(l, h);
  DrawCellMarks(f, marks, l, h, p0, p1);
  if (hovered && h < (int)t.metrics.size()) CellTooltip(f, marks, t, l, h);
  const bool selected = l == ctx.settings.model_layer && h == ctx.settings.selected_head;
  if (selected)
    ImGui::GetWindowDrawList()->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1),
                                        ImGui::GetColorU32(ImVec4(1.0f, 0.85f, 0.3f, 1.0f)), 0, 0, 2.0f);
  ctx.dump.RecordRect("overview.map." + std::to_string(l) + "." + std::to_string(h), p0.x, p0.y, p1.x, p1.y, false,
                      hovered,
                      "{\"selected\": " + std::string(selected ? "true" : "false") + ", \"match\": " +
                          (marks.match ? "true" : "false") + ", \"role\": " +
                          JsonString(marks.have_roles ? model::RoleName(marks.best.role) : "") + ", \"score\": " +
                          JsonNumber(marks.have_roles ? marks.best.score : 0) + ", \"chance\": " +
                          (marks.chance >= 0 ? JsonNumber(marks.chance) : std::string("null")) +
                          ", \"near_chance\": " + BoolJson(marks.near_chance()) + ", \"ablated\": " +
                          BoolJson(marks.ablated) + ", \"delta\": " +
                          (f.scan ? JsonNumber(f.scan->Delta(l, h)) : std::string("null")) + "}");
  if (clicked) {
    ctx.settings.model_layer = l;
    ctx.settings.selected_head = h;
    ctx.settings.enlarged = true;
  }
}

// Layer l's row: its label, then a thumbnail per head (an empty cell per head while the layer runs or its maps of
// another kind are still to be made).
void DrawOverviewLayer(PanelContext& ctx, HeatmapRenderer& renderer, OverviewFrame& f, int l) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  const float y = f.origin.y + f.label_h + (float)l * (f.cell + f.gap);
  dl->AddText(ImVec2(f.origin.x, y), dim, ("L" + std::to_string(l)).c_str());
  LayerThumbs th;
  const bool running = !f.result->has_layer(l);
  if (running || !PickLayerThumbs(ctx, f, l, &th)) {
    for (int h = 0; h < (running ? f.n_head : f.heads_drawn); ++h)
      dl->AddRect(ImVec2(f.HeadX(h), y), ImVec2(f.HeadX(h) + f.cell, y + f.cell), dim);
    return;
  }
  for (int h = 0; h < f.heads_drawn; ++h) DrawOverviewCell(ctx, renderer, f, th, l, h, y);
}

// The panel's content between Begin and End.
void DrawOverviewContent(PanelContext& ctx, HeatmapRenderer& renderer) {
  std::shared_ptr<const ModelFolder> folder = ctx.verbs.ModelFolderOpen();
  const std::shared_ptr<const ModelResult>& result = ctx.results.model;
  // A refused text (too long for the model's positions, ...): the refusal, not the last text's maps nor a wait for
  // maps nothing is computing.
  if (folder && !ctx.results.model_error.empty()) {
    ErrorText(ctx.results.model_error.Render());
    ctx.dump.SetField("overview_refusal", JsonString(ctx.results.model_error.Render()));
    return;
  }
  if (!folder || !result || !result->status.ok() || result->n_layer() == 0) {
    DimText(Tr(folder ? Str::kComputingFirstMaps : Str::kOpenModelForOverview));
    return;
  }
  OverviewFrame f;
  f.result = result.get();
  // The result's own model: right after another folder opens, the last result (drawn until the new one arrives)
  // is still the previous model's, with its own number of heads.
  f.c = &(result->request.folder ? result->request.folder->model->config() : folder->model->config());
  f.n_layer = result->n_layer(), f.n_head = f.c->n_head;
  f.grouped = f.c->n_kv_head > 0 && f.c->n_kv_head < f.c->n_head;
  const int weighted_done = DrawOverviewNotes(ctx, f);
  DrawRoleFilter(ctx, &f);
  f.roles_fit = result->roles.n_layer == f.n_layer && result->roles.n_head == f.n_head;
  if (f.roles_fit && result->complete()) {  // every head's mass on the first token, over the run
    const model::SinkSummary sinks = model::SummarizeSinks(result->roles);
    const std::string line = Trf(Str::kSinkOverview, {FormatNumber(sinks.mean_mass, "%.2f"), std::to_string(sinks.sinks),
                                                      std::to_string(sinks.heads)});
    DimText(line);
    ctx.dump.SetField("overview_sinks", JsonString(line));
  }
  PlaceGrid(&f);
  DrawHeadLabels(ctx, f);
  f.hide_special = ctx.settings.model_hide_special;
  // The ablation scan's delta loss per cell, when asked for and the scan is of this text.
  f.scan = ctx.views.model.color_by_delta ? ctx.verbs.ShownScan() : nullptr;
  if (f.scan && (!f.scan->status.ok() || f.scan->n_head != f.n_head || f.scan->n_layer != f.n_layer)) f.scan = nullptr;
  // The Heads panel's map kind (attention when this run cannot make it: the Heads panel says why).
  f.kind = MapKindRefusal(*result, ctx.views.heads.kind).empty() ? ctx.views.heads.kind : MapKind::kAttention;
  // Rollout has one map per layer (all heads mixed): one cell per layer row, in the first head's column, so the
  // rows stay aligned with the layers of the grid and no head seems to own it.
  f.heads_drawn = KindInfo(f.kind).shows.one_map ? 1 : f.n_head;
  for (int l = 0; l < f.n_layer; ++l) DrawOverviewLayer(ctx, renderer, f, l);
  ImGui::SetCursorScreenPos(ImVec2(f.origin.x, f.origin.y + f.label_h + (float)f.n_layer * (f.cell + f.gap)));
  ImGui::Dummy(ImVec2(1, 1));
  if (f.scan) DrawDeltaLegend(ctx, f);
  if (f.badges_near_chance > 0) {
    DimText(Tr(Str::kOverviewBadgeChance));
    ctx.dump.RecordItem("overview.badge_chance_legend", "{\"grey\": " + std::to_string(f.badges_near_chance) + "}");
  }
  ctx.views.overview.Drew(result->generation, result->layers_done, f.n_layer);
  ctx.dump.SetField("overview", "{\"n_layer\": " + std::to_string(f.n_layer) +
                                    ", \"layers_shown\": " + std::to_string(result->layers_done) +
                                    ", \"n_head\": " + std::to_string(f.n_head) +
                                    ", \"n_kv_head\": " + std::to_string(f.c->n_kv_head) +
                                    ", \"kind\": " + JsonString(MapKindName(f.kind)) +
                                    ", \"maps_per_layer\": " + std::to_string(f.heads_drawn) +
                                    ", \"weighted_layers\": " + std::to_string(weighted_done) +
                                    ", \"matching\": " + std::to_string(f.matching) +
                                    ", \"filter_error\": " + JsonString(f.filter_error) + "}");
}

}  // namespace

OverviewPanelView::View DrawOverviewViewChoice(PanelContext& ctx) {
  using View = OverviewPanelView::View;
  int view = (int)ctx.views.overview.view;
  // A narrow panel wraps the row of choices instead of cutting the last ones off.
  auto beside = [](Str next) {
    const float w = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(Tr(next)).x;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
  };
  widget::RadioButton(ctx.dump, Str::kOverviewShowMaps, "overview.show_maps", &view, (int)View::kMaps);
  beside(Str::kOverviewShowLens);
  widget::RadioButton(ctx.dump, Str::kOverviewShowLens, "overview.show_lens", &view, (int)View::kLens);
  beside(Str::kOverviewShowAttribution);
  widget::RadioButton(ctx.dump, Str::kOverviewShowAttribution, "overview.show_attribution", &view,
                      (int)View::kAttribution);
  beside(Str::kOverviewShowPatching);
  widget::RadioButton(ctx.dump, Str::kOverviewShowPatching, "overview.show_patching", &view, (int)View::kPatching);
  return ctx.views.overview.view = (View)view;
}

void DrawOverviewPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.719f, 0.0f, 0.281f, 0.65f);  // where the sandbox's Saturation panel sits
  if (ImGui::Begin(WindowTitle(Str::kWinOverview, "Overview").c_str())) {
    // Maps, the logit lens, the logit's attribution or activation patching: four views of the same run.
    using View = OverviewPanelView::View;
    const bool model = ctx.verbs.ModelFolderOpen() != nullptr;
    const View shown = model ? DrawOverviewViewChoice(ctx) : ctx.views.overview.view;
    if (model && shown == View::kLens) DrawLensView(ctx);
    else if (model && shown == View::kAttribution) DrawAttributionView(ctx);
    else if (model && shown == View::kPatching) DrawPatchingView(ctx);
    else DrawOverviewContent(ctx, *ctx.renderer);
  }
  ImGui::End();
}

}  // namespace attnviz
