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

// The most opaque the delta-loss colour gets (the cell with the largest |delta|), so the map stays readable.
constexpr float kDeltaAlpha = 130.0f;

void DrawOverviewPanel(App& app, HeatmapRenderer& renderer) {
  app.layout.PlacePanel(0.719f, 0.0f, 0.281f, 0.65f);  // where the sandbox's Saturation panel sits
  if (!ImGui::Begin(WindowTitle(Str::kWinOverview, "Overview").c_str())) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = app.dump;
  std::shared_ptr<const ModelFolder> folder = app.models->folder();
  const std::shared_ptr<const ModelResult>& result = app.results.model;
  if (!folder || !result || !result->status.ok() || result->n_layer() == 0) {
    DimText(Tr(folder ? Str::kComputingFirstMaps : Str::kOpenModelForOverview));
    ImGui::End();
    return;
  }
  // The result's own model: right after another folder opens, the last result (drawn until the new one arrives)
  // is still the previous model's, with its own number of heads.
  const model::ModelConfig& c = result->request.folder ? result->request.folder->model->config() : folder->model->config();
  const int n_layer = result->n_layer(), n_head = c.n_head;
  const bool grouped = c.n_kv_head > 0 && c.n_kv_head < c.n_head;
  if (grouped) {
    DimText(Trf(Str::kGroupedQueryOverview,
                {std::to_string(c.n_head), std::to_string(c.n_kv_head), std::to_string(c.n_head / c.n_kv_head)}));
  }
  // A streamed run's value-weighted thumbnails are made one layer after the other in the background (App::UpdateModel,
  // ModelSession::MakeWeightedOverview): say how far, the cells empty until their layer is made.
  int weighted_done = -1;
  if (app.views.heads.kind == MapKind::kValueWeighted && result->streamed && result->complete()) {
    const std::shared_ptr<const WeightedOverview> w = app.models->weighted_overview();
    weighted_done = w && w->request.result == result ? w->layers_done : 0;
    if (weighted_done < n_layer)
      DimText(Trf(Str::kValueWeightedOverviewStreamed, {std::to_string(weighted_done), std::to_string(n_layer)}));
  }
  // The role filter: heads that do not match are dimmed; each map carries its strongest role.
  ImGui::SetNextItemWidth(std::min(260.0f, ImGui::GetContentRegionAvail().x * 0.6f));
  widget::InputTextWithHint(dump, Str::kRoleFilter, "overview.filter", Tr(Str::kRoleFilterHint),
                            &app.settings.model_role_filter);
  std::optional<model::RoleFilter> filter;
  std::string filter_error;  // in the UI's language
  if (!app.settings.model_role_filter.empty()) {
    auto parsed = ParseLocalizedRoleFilter(app.settings.model_role_filter);
    if (parsed) filter = *parsed;
    else ErrorText(filter_error = Localized(parsed));
  }
  const model::HeadRoles& roles = result->roles;
  const bool roles_fit = roles.n_layer == n_layer && roles.n_head == n_head;
  int matching = 0;
  // Layout: labels left and on top, a gap between groups of heads that share a kv head.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = ImGui::CalcTextSize("L00 ").x, label_h = ImGui::GetTextLineHeightWithSpacing() * (grouped ? 2 : 1);
  const float gap = 3.0f, group_gap = grouped ? 6.0f : 0.0f;
  const int groups = grouped ? c.n_kv_head : 1;
  const float cell = std::max(4.0f, std::min((avail.x - label_w - gap * n_head - group_gap * groups) / (float)n_head,
                                             (avail.y - label_h - gap * n_layer) / (float)n_layer));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor), gold = ImGui::GetColorU32(ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  auto head_x = [&](int h) {
    const int g = grouped ? KvGroupOf(c, h) : 0;
    return origin.x + label_w + (float)h * (cell + gap) + (float)g * group_gap;
  };
  for (int h = 0; h < n_head; ++h) {
    dl->AddText(ImVec2(head_x(h), origin.y), dim, ("H" + std::to_string(h)).c_str());
    if (grouped && h % (c.n_head / c.n_kv_head) == 0) {
      const int g = KvGroupOf(c, h);
      const float x1 = head_x(h + c.n_head / c.n_kv_head - 1) + cell;
      const float y = origin.y + ImGui::GetTextLineHeightWithSpacing();
      dl->AddLine(ImVec2(head_x(h), y + 2), ImVec2(x1, y + 2), dim);
      dl->AddText(ImVec2(head_x(h), y + 3), dim, ("kv " + std::to_string(g)).c_str());
    }
  }
  const bool hide_special = app.settings.model_hide_special;
  // The ablation scan's delta loss per cell, when asked for and the scan is of this text.
  std::shared_ptr<const AblationScanResult> scan = app.views.model.color_by_delta ? app.ShownScan() : nullptr;
  if (scan && (!scan->status.ok() || scan->n_head != n_head || scan->n_layer != n_layer)) scan = nullptr;
  // The Heads panel's map kind (attention when this run cannot make it: the Heads panel says why).
  MapKind kind = MapKindRefusal(*result, app.views.heads.kind).empty() ? app.views.heads.kind : MapKind::kAttention;
  // Rollout has one map per layer (all heads mixed): one cell per layer row, in the first head's column, so the
  // rows stay aligned with the layers of the grid and no head seems to own it.
  const int heads_drawn = kind == MapKind::kRollout ? 1 : n_head;
  for (int l = 0; l < n_layer; ++l) {
    const float y = origin.y + label_h + (float)l * (cell + gap);
    dl->AddText(ImVec2(origin.x, y), dim, ("L" + std::to_string(l)).c_str());
    if (!result->has_layer(l)) {  // still running: an empty cell per head until the layer is done
      for (int h = 0; h < n_head; ++h)
        dl->AddRect(ImVec2(head_x(h), y), ImVec2(head_x(h) + cell, y + cell), dim);
      continue;
    }
    const bool have_roles = roles_fit && kind == MapKind::kAttention;  // roles read the attention maps
    // The layer as the run made it (its mask and head figures; nothing copied).
    const LayerMaps& t = *result->layers[(size_t)l];
    // Hiding special tokens needs the layer's maps (a copy without them), another kind its own maps; otherwise the
    // pooled thumbnails. A streamed (long) run keeps no whole map to cut the special tokens out of: its thumbnails
    // show every token.
    const bool whole = kind != MapKind::kAttention || (hide_special && !t.pooled) || l >= (int)result->thumbnails.size();
    const AttentionTensors* layer_made = whole ? &app.OverviewLayer(l, hide_special) : nullptr;
    const Tensor* made = whole ? layer_made->probs.get() : nullptr;
    // A pooled rollout (a long input) keeps no whole map: the finest pyramid level within the thumbnail's cells.
    const PyramidLevel* pooled_level = nullptr;
    if (whole && made->empty() && layer_made->pyramid && !layer_made->pyramid->levels().empty()) {
      for (const PyramidLevel& level : layer_made->pyramid->levels()) {
        pooled_level = &level;
        if (std::max(level.rows, level.cols) <= kThumbnailCells) break;
      }
    }
    if (kind != MapKind::kAttention && made->empty() && !pooled_level) {  // made on a later frame (App::OverviewLayer's budget)
      for (int h = 0; h < heads_drawn; ++h) dl->AddRect(ImVec2(head_x(h), y), ImVec2(head_x(h) + cell, y + cell), dim);
      continue;
    }
    const Tensor& maps = whole ? *made : *result->thumbnails[(size_t)l];
    const int n_q = pooled_level ? pooled_level->rows : (int)maps.dim(1), n_k = pooled_level ? pooled_level->cols : (int)maps.dim(2);
    const size_t plane = (size_t)n_q * n_k;
    for (int h = 0; h < heads_drawn; ++h) {
      HeatmapImage image;
      // Max-pooled like attention's thumbnails (a pooled rollout keeps the block mean in both planes).
      image.probs = pooled_level ? pooled_level->Plane(PoolKind::kMax, h) : maps.data.data() + (size_t)h * plane;
      image.n_q = n_q;
      image.n_k = n_k;
      image.data_version = result->generation * 8 + (uint64_t)kind * 2 + (hide_special ? 1 : 0);
      image.colormap = app.settings.colormap;
      image.color_scale = app.settings.color_scale;
      image.masked = t.mask.HidesAny(n_q, n_k);
      // Value-weighted cells are a weight (<= 1) times the key's value norm: up to the head's largest norm, a bound
      // read from [n] numbers (the maps' own maximum would scan every cell each frame).
      if (kind == MapKind::kValueWeighted && l < (int)result->analysis.size() && result->analysis[(size_t)l]) {
        const Tensor& norms = *result->analysis[(size_t)l]->value_norms;  // [n_head, n]
        const float* row = norms.data.data() + (size_t)h * norms.dim(1);
        image.range = ColorRange{0.0f, std::max(1e-12f, *std::max_element(row, row + norms.dim(1)))};
      }
      const ImVec2 p0(head_x(h), y), p1(head_x(h) + cell, y + cell);
      const HeatmapKey key{MapView::kOverview, l, h, 0};
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(key.imgui_id());
      ImTextureID texture = renderer.Render(key, image, std::max(1, (int)cell), std::max(1, (int)cell));
      if (texture) ImGui::Image(texture, ImVec2(cell, cell));
      else ImGui::Dummy(ImVec2(cell, cell));
      const bool clicked = ImGui::IsItemClicked();
      const bool hovered = ImGui::IsItemHovered();
      DrawHeadAblateMenu(app, l, h);
      ImGui::PopID();
      model::RoleScore best;
      if (have_roles) best = model::StrongestRole(roles.at(l, h));
      const bool match = !filter || (have_roles && filter->Matches(roles.at(l, h)));
      matching += match;
      if (!match) dl->AddRectFilled(p0, p1, IM_COL32(20, 20, 24, 190));
      if (scan && scan->max_abs_delta > 0) {  // red: the loss rises without this head; blue: it falls
        const double d = scan->Delta(l, h) / scan->max_abs_delta;
        const int alpha = (int)(kDeltaAlpha * std::min(1.0, std::abs(d)));
        dl->AddRectFilled(p0, p1, d >= 0 ? IM_COL32(230, 40, 30, alpha) : IM_COL32(40, 90, 230, alpha));
      }
      const bool ablated = app.HeadAblated(l, h);
      if (ablated) {  // dimmed and crossed out: this head outputs zero in the run shown
        dl->AddRectFilled(p0, p1, IM_COL32(0, 0, 0, 150));
        dl->AddLine(p0, p1, IM_COL32(255, 80, 60, 255), 2.0f);
        dl->AddLine(ImVec2(p0.x, p1.y), ImVec2(p1.x, p0.y), IM_COL32(255, 80, 60, 255), 2.0f);
      }
      if (have_roles && cell >= 26.0f) {  // the badge: strongest role and its score
        const Str short_name = (Str)((int)Str::kRoleShortPrev + (int)best.role);  // in HeadRole order
        const std::string badge = std::string(Tr(short_name)) + " " + FormatNumber(best.score, "%.2f");
        const ImVec2 size = ImGui::CalcTextSize(badge.c_str());
        const float scale = std::min(1.0f, (cell - 2) / size.x);
        const float fs = ImGui::GetFontSize() * scale;
        dl->AddRectFilled(ImVec2(p0.x, p1.y - fs - 2), ImVec2(p0.x + size.x * scale + 4, p1.y), IM_COL32(0, 0, 0, 170));
        dl->AddText(ImGui::GetFont(), fs, ImVec2(p0.x + 2, p1.y - fs - 1), IM_COL32(255, 255, 255, 255), badge.c_str());
      }
      if (hovered && h < (int)t.metrics.size()) {
        std::string tip = Trf(Str::kOverviewTip,
                              {std::to_string(l), std::to_string(h),
                               grouped ? ", kv " + std::to_string(KvGroupOf(c, h)) : std::string(),
                               FormatNumber(t.metrics[(size_t)h].max_weight, "%.2f"),
                               FormatNumber(t.metrics[(size_t)h].entropy, "%.2f")});
        if (have_roles) {
          for (model::HeadRole role : model::AllHeadRoles())
            tip += "\n  " + LocalizedRoleName(role) + " " + FormatNumber(roles.at(l, h)[role], "%.2f");
          tip += "\n" + LocalizedRoleSentence(best.role);
        }
        if (scan) tip += "\n" + Trf(Str::kOverviewDeltaTip, {FormatNumber(scan->Delta(l, h), "%+.4f")});
        if (ablated) tip += "\n" + std::string(Tr(Str::kOverviewAblatedTip));
        ImGui::SetTooltip("%s", tip.c_str());
      }
      const bool selected = l == app.settings.model_layer && h == app.settings.selected_head;
      if (selected) dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1), gold, 0, 0, 2.0f);
      dump.RecordRect("overview.map." + std::to_string(l) + "." + std::to_string(h), p0.x, p0.y, p1.x, p1.y, false,
                      hovered,
                      "{\"selected\": " + std::string(selected ? "true" : "false") + ", \"match\": " +
                          (match ? "true" : "false") + ", \"role\": " +
                          JsonString(have_roles ? model::RoleName(best.role) : "") + ", \"score\": " +
                          JsonNumber(have_roles ? best.score : 0) + ", \"ablated\": " + BoolJson(ablated) +
                          ", \"delta\": " + (scan ? JsonNumber(scan->Delta(l, h)) : std::string("null")) + "}");
      if (clicked) {
        app.settings.model_layer = l;
        app.settings.selected_head = h;
        app.settings.enlarged = true;
      }
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + label_h + (float)n_layer * (cell + gap)));
  ImGui::Dummy(ImVec2(1, 1));
  app.views.overview.Drew(result->generation, result->layers_done, n_layer);
  dump.SetField("overview", "{\"n_layer\": " + std::to_string(n_layer) +
                                ", \"layers_shown\": " + std::to_string(result->layers_done) +
                                ", \"n_head\": " + std::to_string(n_head) +
                                ", \"n_kv_head\": " + std::to_string(c.n_kv_head) +
                                ", \"kind\": " + JsonString(MapKindName(kind)) +
                                ", \"maps_per_layer\": " + std::to_string(heads_drawn) +
                                ", \"weighted_layers\": " + std::to_string(weighted_done) +
                                ", \"matching\": " + std::to_string(matching) +
                                ", \"filter_error\": " + JsonString(filter_error) + "}");
  ImGui::End();
}

}  // namespace attnviz
