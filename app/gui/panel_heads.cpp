// Heads: a grid of per-head heatmaps with token labels. A checkbox per head shows or hides it;
// a click enlarges a head; hovering a cell shows query, key, weight, the logit before and after
// scaling and the row's entropy; "scaled vs unscaled" puts the same head side by side.
// Keys: Left/Right cycle heads, S toggles scaling (handled in App::Draw).
//
// Long inputs: each map shows a window of its cells (zoom: mouse wheel or +/-; pan: drag or I/J/K/L;
// 0: whole map; the token labels follow the window). A window with more cells than its slot has pixels
// is drawn from the core's pyramid of pooled levels (max by default, so a single spike stays visible;
// "mean" is a choice), picked by the on-screen size; the texture holds only the texels drawn
// (core/maps/view.h ComposeView). Hovering shows exact values at any zoom (ExactAt: the full map when
// kept, else the row recomputed from q and k). The zoom is panel state, not saved.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app.h"
#include "heads_map.h"
#include "io/json.h"
#include "model_analysis.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "sandbox/score.h"
#include "widgets.h"

namespace attnviz {

namespace {

// The notice, the worker's progress or what the shown maps are, and the error that keeps new ones from showing.
void DrawStatusLine(PanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  if (ctx.notice && !ctx.notice->empty()) {
    bool dismiss = widget::SmallButton(dump, Str::kDismiss, "heads.dismiss_notice");
    ImGui::SameLine();
    ErrorText(ctx.notice->Render());
    if (dismiss) ctx.notice->clear();
  }
  // Progress: what the worker computes and how far along (the frame keeps running meanwhile).
  const JobProgress progress = ctx.verbs.SandboxProgress();
  const JobProgress sweep_progress = ctx.verbs.SweepProgress();
  std::string progress_json = "{\"active\": " + BoolJson(progress.active) + ", \"stage\": " +
                              JsonString(progress.stage) + ", \"fraction\": " + JsonNumber(progress.fraction) +
                              ", \"sweep_active\": " + BoolJson(sweep_progress.active) + ", \"sweep_fraction\": " +
                              JsonNumber(sweep_progress.fraction) + "}";
  if (ctx.results.computing) {
    std::string what = progress.active && !progress.stage.empty() ? Trf(Str::kComputingStage, {LocalizedStage(progress.stage)})
                                                                  : std::string(Tr(Str::kComputing));
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%%", progress.fraction * 100.0);
    ImGui::ProgressBar((float)progress.fraction, ImVec2(160.0f, 0.0f), pct);
    ImGui::SameLine();
    ImGui::TextUnformatted(what.c_str());
  } else if (ctx.shown && ctx.shown->maps) {
    const LayerMaps& t = *ctx.shown->maps;
    // A sandbox layer names its knobs; a model layer how its maps were made (it has no sandbox config).
    const std::string made = ctx.shown->sandbox ? LocalizedDescribe(ctx.shown->sandbox->config)
                                                : LocalizedTitle(Describe(t));
    // S flips the scaling of a model run, and of a sandbox run only under scaled-dot (App::ToggleScaling): the keys
    // offered are the keys that act.
    const char* keys = Tr(ctx.ScalingActs() ? Str::kHeadsStatusKeys : Str::kHeadsStatusKeysNoScale);
    DimText(made + " \xC2\xB7 " + std::to_string(t.n_q()) + "\xC3\x97" +
            std::to_string(t.n_k()) + " \xC2\xB7 " + keys);
    dump.SetField("heads_summary", JsonString(made));
    dump.SetField("heads_status_keys", JsonString(keys));
  }
  dump.RecordItem("heads.status", BoolJson(ctx.results.computing));
  dump.SetField("progress", progress_json);
  // The d_q = d_k refusal is the Controls panel's to show (beside the combos that cause it): here only a pointer.
  std::string heads_error;
  if (const std::string e = ctx.results.compute_error.Render(); !e.empty())
    heads_error = IsWidthRefusal(e) ? Tr(Str::kWidthRefusalSeeControls)
                  : ctx.shown ? Trf(Str::kShowingLastGood, {e}) : e;
  else if (const std::string c = ctx.results.config_error.Render(); !c.empty())
    heads_error = IsWidthRefusal(c) ? Tr(Str::kWidthRefusalSeeControls) : Trf(Str::kSettingsNotApplied, {c});
  if (!heads_error.empty()) ErrorText(heads_error);
  dump.RecordItem("heads.error", JsonString(heads_error));
}

// A checkbox per head: shown or hidden in the grid.
void DrawHeadToggles(PanelContext& ctx, int n_head) {
  AppSettings& s = ctx.settings;
  ImGui::TextUnformatted(Tr(Str::kShow));
  for (int h = 0; h < n_head; ++h) {
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < 40.0f) ImGui::NewLine();
    bool visible = s.head_visible(h);
    std::string label = std::to_string(h) + "##show" + std::to_string(h);
    if (ImGui::Checkbox(label.c_str(), &visible)) s.head_hidden[(size_t)h] = !visible;
    ctx.dump.RecordItem("heads.show." + std::to_string(h), BoolJson(visible));
  }
}

enum class HeadsView { kGrid = 0, kEnlarged = 1, kSideBySide = 2 };

// View mode. Scaled vs unscaled needs a score divided by sqrt(d_k): under any other the two maps are one map, so
// the choice is greyed out and says why, and a side-by-side setting shows the enlarged map until scaled-dot is
// back (the setting is kept, as the scale checkbox's; App::BuildRequest asks for no twin then).
HeadsView DrawViewChoice(PanelContext& ctx, int n_head) {
  AppSettings& s = ctx.settings;
  WidgetDump& dump = ctx.dump;
  const bool sides_differ = ctx.ScalingActs();
  int view = s.side_by_side && sides_differ ? 2 : (s.enlarged || s.side_by_side ? 1 : 0);
  if (widget::RadioButton(dump, Str::kViewGrid, "heads.view_grid", view == 0)) s.enlarged = false, s.side_by_side = false;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kViewEnlarged, "heads.view_enlarged", view == 1)) s.enlarged = true, s.side_by_side = false;
  ImGui::SameLine();
  if (!sides_differ) ImGui::BeginDisabled();
  if (widget::RadioButton(dump, Str::kViewSideBySide, "heads.view_side_by_side", view == 2)) s.side_by_side = true;
  if (!sides_differ) ImGui::EndDisabled();
  if (!sides_differ && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", Trf(Str::kSideBySideSameMapsTip, {ScoreFormula(ctx.settings.config.score)}).c_str());
  dump.SetField("heads_side_by_side_disabled", BoolJson(!sides_differ));
  if (view != 0) {
    ImGui::SameLine();
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) ctx.verbs.CycleHead(-1);
    ImGui::SameLine();
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) ctx.verbs.CycleHead(+1);
  }
  if (s.selected_head >= n_head) s.selected_head = 0;
  return (HeadsView)view;
}

// A model layer whose heads rest most of each row on the first token (attention sinks) draws one bright column
// per map on the linear scale: say so, and offer the log scale.
void DrawSinkHint(PanelContext& ctx) {
  AppSettings& s = ctx.settings;
  if (!ctx.shown->model || !KindInfo(ctx.shown->kind).shows.head_roles || s.color_scale != ColorScale::kLinear) return;
  const model::SinkSummary sinks = model::SummarizeSinks(ctx.shown->model->roles, ctx.shown->layer);
  ctx.dump.SetField("heads_sink_mass", JsonNumber(sinks.mean_mass));
  if (sinks.heads == 0 || sinks.mean_mass < model::kSinkMass) return;
  DimText(Trf(Str::kSinkHint, {FormatNumber(sinks.mean_mass, "%.2f")}));
  if (widget::SmallButton(ctx.dump, Str::kUseLogScale, "heads.sink_log_scale")) s.color_scale = ColorScale::kLog;
}

// Long inputs spread a row over thousands of keys: on the linear 0..1 scale every map is dark. Say so, and offer
// the log scale. Then the pooling of maps with more cells than pixels (max keeps a single spike visible; mean
// averages) and, in model mode, the map kind.
void DrawMapChoices(PanelContext& ctx, const LayerMaps& t) {
  AppSettings& s = ctx.settings;
  WidgetDump& dump = ctx.dump;
  const float faint = FaintMapsPeak(t.metrics, s.color_scale, s.auto_range);
  if (faint > 0) {
    DimText(Trf(Str::kFaintMapsHint, {FormatNumber(faint, "%.2g")}));
    if (widget::SmallButton(dump, Str::kUseLogScale, "heads.use_log_scale")) s.color_scale = ColorScale::kLog;
  }
  dump.SetField("heads_faint_hint", JsonNumber(faint));
  DrawSinkHint(ctx);
  PoolKind& pool = ctx.views.heads.pool;
  ImGui::SameLine(0, 16.0f);
  if (widget::RadioButton(dump, Str::kPoolMax, "heads.pool_max", pool == PoolKind::kMax)) pool = PoolKind::kMax;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kPoolMean, "heads.pool_mean", pool == PoolKind::kMean)) pool = PoolKind::kMean;
  if (ctx.shown->model || ctx.results.seq2seq_mode(ctx.settings))
    DrawMapKindChoice(ctx);  // attention, rollout or value-weighted maps
}

// Where the maps go: the panel's free region, less the colorbar on the right.
struct MapsArea {
  ImVec2 origin, avail, maps_avail;
  MapLayout layout;
  float gap = 10.0f;
};

MapsArea AreaFor(const LayerMaps& t) {
  MapsArea a;
  a.origin = ImGui::GetCursorScreenPos();
  a.avail = ImGui::GetContentRegionAvail();
  a.layout = LayoutFor(t);
  a.maps_avail = ImVec2(std::max(a.avail.x - kColorbarSpace, 40.0f), a.avail.y);
  return a;
}

// Every visible head in a grid, labels on its outer edges, one colorbar on the right. A click enlarges a head.
void DrawGridView(PanelContext& ctx, HeatmapRenderer& renderer, const LayerMaps& t, MapsArea a) {
  AppSettings& s = ctx.settings;
  std::vector<int> heads = ctx.VisibleHeads();
  if (heads.empty()) {
    DimText(Tr(Str::kEveryHeadHidden));
    return;
  }
  MapLayout& layout = a.layout;
  int columns = 1;
  float cell = 1;
  const std::string widest_caption = MapCaption(ctx.shown.get(), t, heads[0], "");
  ChooseGridWithCaptions((int)heads.size(), t, widest_caption, a.maps_avail, &layout, a.gap, &columns, &cell);
  // Tiny cells: labels would be unreadable (hover a cell instead); keep a thin margin.
  if (cell < 3.0f) {
    layout.label_left = layout.label_top = 4.0f;
    ChooseGridWithCaptions((int)heads.size(), t, widest_caption, a.maps_avail, &layout, a.gap, &columns, &cell);
  }
  ColorRange range = ctx.verbs.RangeFor(heads, false);
  float step_x = (float)t.n_k() * cell + a.gap;
  float step_y = (float)t.n_q() * cell + layout.caption + a.gap;
  // Centre the grid (and its colorbar) in the panel.
  ImVec2 origin = a.origin;
  float total_w = layout.label_left + (float)columns * step_x - a.gap + kColorbarSpace;
  if (total_w < a.avail.x) origin.x += std::floor((a.avail.x - total_w) * 0.5f);
  const int rows = ((int)heads.size() + columns - 1) / columns;
  DrawColorbar(ctx, ImVec2(origin.x + layout.label_left + (float)columns * step_x, origin.y + layout.label_top),
               (float)rows * step_y - layout.caption - a.gap, range, t.mask.HidesAny(t.n_q(), t.n_k()));
  for (size_t idx = 0; idx < heads.size(); ++idx) {
    int h = heads[idx];
    int col = (int)idx % columns, row = (int)idx / columns;
    MapDraw m;
    m.tensors = &t;
    m.extras = ctx.shown->sandbox_numbers();
    m.head = h;
    m.key = HeatmapKey{MapView::kGrid, 0, h, 0};
    m.caption = MapCaption(ctx.shown.get(), t, h, "");
    m.dump_name = "heads.map." + std::to_string(h);
    m.selected = h == s.selected_head;
    m.range = range;
    m.key_labels = row == 0;
    m.query_labels = col == 0;
    ImVec2 map_min(origin.x + layout.label_left + (float)col * step_x,
                   origin.y + layout.label_top + (float)row * step_y);
    if (DrawMap(ctx, renderer, m, map_min, cell, layout)) {
      s.selected_head = h;
      if (!ClickOpensNeuronView(ctx)) s.enlarged = true;  // one click, one effect (grid/enlarged: the radio buttons)
    }
  }
}

// The selected head alone, as large as the panel allows; a trained model's head with one sentence on what it does
// (its strongest role) above the map. A click goes back to the grid.
void DrawEnlargedView(PanelContext& ctx, HeatmapRenderer& renderer, const LayerMaps& t, MapsArea a) {
  AppSettings& s = ctx.settings;
  WidgetDump& dump = ctx.dump;
  int h = s.selected_head;
  if (ctx.shown->model && KindInfo(ctx.shown->kind).shows.head_roles) {
    const std::string role_line = ctx.HeadRoleLine(s.model_layer, h);
    if (!role_line.empty()) {
      ImGui::TextWrapped("%s", role_line.c_str());
      dump.SetField("heads_role", JsonString(role_line));
      a.origin = ImGui::GetCursorScreenPos();
      a.avail = ImGui::GetContentRegionAvail();
      a.maps_avail.y = a.avail.y;  // the map fits below the line (sized before it, its last rows ran off the panel)
      dump.SetField("heads_enlarged_avail", JsonNumber(a.avail.y));
    }
  }
  int columns = 1;
  float cell = 1;
  const bool neuron_click = ClickOpensNeuronView(ctx);
  const std::string click_hint = Tr(neuron_click ? Str::kClickForNeuron : Str::kClickBackToGrid);
  ChooseGridWithCaptions(1, t, MapCaption(ctx.shown.get(), t, h, "") + "  " + click_hint, a.maps_avail, &a.layout,
                         a.gap, &columns, &cell);
  MapDraw m;
  m.tensors = &t;
  m.extras = ctx.shown->sandbox_numbers();
  m.head = h;
  m.key = HeatmapKey{MapView::kEnlarged, 0, h, 0};
  m.caption = MapCaption(ctx.shown.get(), t, h, "") + "  " + click_hint;
  m.dump_name = "heads.enlarged";
  m.range = ctx.verbs.RangeFor({h}, false);
  m.key_labels = m.query_labels = true;
  ImVec2 map_min(a.origin.x + a.layout.label_left, a.origin.y + a.layout.label_top);
  if (DrawMap(ctx, renderer, m, map_min, cell, a.layout) && !neuron_click) s.enlarged = false, s.side_by_side = false;
  DrawColorbar(ctx, ImVec2(map_min.x + (float)t.n_k() * cell + a.gap, map_min.y), (float)t.n_q() * cell, m.range,
               t.mask.HidesAny(t.n_q(), t.n_k()));
}

// The selected head scaled and unscaled, side by side (the twin is the run with the other scaling).
// A model layer has no twin (its what-if flips the scaling): null `run`.
void DrawSideBySideView(PanelContext& ctx, HeatmapRenderer& renderer, const SandboxExtras* run, MapsArea a) {
  int h = ctx.settings.selected_head;
  if (!run || !run->twin) {
    ImGui::TextUnformatted(Tr(Str::kComputingOtherScaling));
    return;
  }
  const AttentionTensors& t = *run->numbers;
  const AttentionTensors* twin = run->twin.get();
  const AttentionTensors* scaled = t.scaled ? &t : twin;
  const AttentionTensors* unscaled = t.scaled ? twin : &t;
  MapLayout& layout = a.layout;
  int columns = 1;
  float cell = 1;
  ChooseGridWithCaptions(2, t, MapCaption(ctx.shown.get(), t, h, "unscaled: "), a.maps_avail, &layout, a.gap, &columns, &cell);
  if (columns != 2) {  // side by side, always
    float w = (a.maps_avail.x - layout.label_left - a.gap) / 2.0f / (float)t.n_k();
    float hgt = (a.avail.y - layout.label_top - layout.caption - a.gap) / (float)t.n_q();
    cell = std::max(0.5f, std::min(w, hgt));
  }
  for (int side = 0; side < 2; ++side) {
    MapDraw m;
    m.tensors = side == 0 ? scaled : unscaled;
    m.extras = side == 0 ? scaled : unscaled;
    m.head = h;
    m.twin = (m.tensors == twin);
    m.key = HeatmapKey{side == 0 ? MapView::kScaledSide : MapView::kUnscaledSide, 0, h, m.twin ? 1 : 0};
    m.caption = MapCaption(ctx.shown.get(), *m.tensors, h, side == 0 ? "\xC3\xB7\xE2\x88\x9A" "d_k: " : Tr(Str::kUnscaledPrefix));
    m.dump_name = side == 0 ? "heads.scaled" : "heads.unscaled";
    m.range = ctx.verbs.RangeFor({h}, m.twin);
    m.key_labels = true;
    m.query_labels = side == 0;
    ImVec2 map_min(a.origin.x + layout.label_left + (float)side * ((float)t.n_k() * cell + a.gap),
                   a.origin.y + layout.label_top);
    DrawMap(ctx, renderer, m, map_min, cell, layout);
    // One colorbar for both: each side's range is drawn with it when the range is fixed.
    if (side == 1)
      DrawColorbar(ctx, ImVec2(map_min.x + (float)t.n_k() * cell + a.gap, map_min.y), (float)t.n_q() * cell,
                   m.range, t.mask.HidesAny(t.n_q(), t.n_k()));
  }
}

// The panel's content between Begin and End.
void DrawHeadsContent(PanelContext& ctx, HeatmapRenderer& renderer) {
  DrawStatusLine(ctx);
  if (!ctx.shown || !ctx.shown->maps) {
    // A model's layer still running, or a kind still being made (a rollout): the kinds stay in reach.
    if (ctx.settings.source == Source::kModel && ctx.results.model) DrawMapKindChoice(ctx);
    else if (!ctx.results.computing) ImGui::TextUnformatted(Tr(Str::kNoResultYet));
    return;
  }
  const LayerMaps& t = *ctx.shown->maps;
  DrawHeadToggles(ctx, t.n_head());
  const HeadsView view = DrawViewChoice(ctx, t.n_head());
  DrawMapChoices(ctx, t);
  if (!renderer.error().empty()) {
    ErrorText(renderer.error());
    return;
  }
  const MapsArea area = AreaFor(t);
  if (view == HeadsView::kGrid) DrawGridView(ctx, renderer, t, area);
  else if (view == HeadsView::kEnlarged) DrawEnlargedView(ctx, renderer, t, area);
  else DrawSideBySideView(ctx, renderer, ctx.shown->sandbox.get(), area);
}

}  // namespace

void DrawHeadsPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.258f, 0.0f, 0.461f, 0.70f);
  if (ImGui::Begin(WindowTitle(Str::kWinHeads, "Heads").c_str(), nullptr,
                   ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse))
    DrawHeadsContent(ctx, *ctx.renderer);
  ImGui::End();
}

}  // namespace attnviz
