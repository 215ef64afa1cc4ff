#include "lens_grid.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "app.h"  // FormatNumber
#include "io/json.h"
#include "panel_util.h"

namespace attnviz {
namespace {

// The value a cell is coloured by: p(actual next token) where there is one, else the top token's probability.
double CellValue(const model::LensPosition& p) {
  if (p.has_next) return p.next_prob;
  return p.top.empty() ? 0.0 : p.top[0].prob;
}

std::string CellTooltip(const LensGridInput& in, const model::LensLayer& layer, const model::LensPosition& p) {
  std::string tip = Trf(Str::kLensTip, {std::to_string(layer.layer), std::to_string(p.index), "\"" + in.at(p.index) + "\""});
  for (const model::TokenProb& t : p.top) tip += "\n  " + FormatNumber(t.prob, "%.3g") + "  \"" + in.token(t.id) + "\"";
  const std::string next = p.has_next ? in.next(p.index) : std::string();
  if (!next.empty()) tip += "\n" + Trf(Str::kLensTipNext, {"\"" + next + "\"", FormatNumber(p.next_prob, "%.3g")});
  return tip;
}

// The grid, in a child window that scrolls sideways when the window's columns do not fit.
// The words of the grid: the column heads, then each cell's top token, row-major; made when a new lens arrives.
const std::vector<std::string>& LensTexts(PanelContext& ctx, const LensGridInput& in) {
  OverviewPanelView& v = ctx.views.overview;
  if (v.lens_text_of == in.made_by && v.lens_text_generation == in.generation && !v.lens_text.empty())
    return v.lens_text;
  v.lens_text.clear();
  for (int c = 0; c < in.count; ++c) v.lens_text.push_back(in.at(in.first + c));
  for (const model::LensLayer& layer : *in.layers)
    for (int c = 0; c < in.count; ++c) {
      const bool has = c < (int)layer.positions.size() && !layer.positions[(size_t)c].top.empty();
      v.lens_text.push_back(has ? in.token(layer.positions[(size_t)c].top[0].id) : "");
    }
  for (const std::string& t : v.lens_text) ctx.NeedGlyphs(t);
  v.lens_text_of = in.made_by;
  v.lens_text_generation = in.generation;
  return v.lens_text;
}

}  // namespace

void DrawLensGrid(PanelContext& ctx, const LensGridInput& in) {
  const std::vector<std::string>& text = LensTexts(ctx, in);
  const float line = ImGui::GetTextLineHeight();
  const float label_w = ImGui::CalcTextSize("L00 ").x, cell_h = line + 4.0f;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float cell_w = std::max(44.0f, (avail_w - label_w - 8.0f) / (float)std::max(1, in.count));
  const int rows = (int)(*in.layers).size();
  const float grid_h = cell_h * (float)(rows + 1) + ImGui::GetStyle().ScrollbarSize + 4.0f;
  ImGui::BeginChild("##lens_grid", ImVec2(0, std::min(grid_h, std::max(cell_h * 4, ImGui::GetContentRegionAvail().y - line * 2))),
                    false, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  // Columns: the token at each position; rows: the layer read, the model's own output last (bottom).
  for (int c = 0; c < in.count; ++c) {
    const std::string& head = text[(size_t)c];
    dl->PushClipRect(ImVec2(o.x + label_w + c * cell_w, o.y), ImVec2(o.x + label_w + (c + 1) * cell_w - 2, o.y + cell_h), true);
    dl->AddText(ImVec2(o.x + label_w + c * cell_w + 2, o.y + 2), dim, head.c_str());
    dl->PopClipRect();
  }
  std::string dump_rows;
  for (int r = 0; r < rows; ++r) {
    const model::LensLayer& layer = (*in.layers)[(size_t)r];
    const float y = o.y + cell_h * (float)(r + 1);
    dl->AddText(ImVec2(o.x, y + 2), dim, (layer.layer == 0 ? std::string("emb") : "L" + std::to_string(layer.layer)).c_str());
    std::string dump_cells;
    for (int c = 0; c < (int)layer.positions.size() && c < in.count; ++c) {
      const model::LensPosition& p = layer.positions[(size_t)c];
      const ImVec2 p0(o.x + label_w + c * cell_w, y), p1(p0.x + cell_w - 2, y + cell_h - 2);
      const double v = CellValue(p);
      unsigned char rgb[3];
      MapColor(ctx.settings.colormap, (float)std::clamp(v, 0.0, 1.0), rgb);
      dl->AddRectFilled(p0, p1, IM_COL32(rgb[0], rgb[1], rgb[2], 255));
      const std::string& top = text[(size_t)(in.count * (r + 1) + c)];
      // Dark text on the light end of the colour map, light text on the dark end.
      const float luma = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
      dl->PushClipRect(p0, p1, true);
      dl->AddText(ImVec2(p0.x + 2, p0.y + 1), luma > 140 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255),
                  top.c_str());
      dl->PopClipRect();
      const bool hovered = ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1);
      if (hovered) {
        const std::string tip = CellTooltip(in, layer, p);
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
  ImGui::Dummy(ImVec2(label_w + cell_w * (float)in.count, cell_h * (float)(rows + 1)));
  ImGui::EndChild();
  ctx.dump.SetField("lens", "{\"first\": " + std::to_string(in.first) + ", \"count\": " + std::to_string(in.count) +
                                ", \"n\": " + std::to_string(in.n) + ", \"cells\": [" + dump_rows + "]}");
}

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


}  // namespace attnviz
