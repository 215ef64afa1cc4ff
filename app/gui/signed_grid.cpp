#include "signed_grid.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "color/colormap.h"
#include "io/json.h"
#include "panel_util.h"

namespace attnviz {

void DivergingColor(double v, double range, unsigned char rgb[3]) {
  if (std::isnan(v)) {
    rgb[0] = rgb[1] = rgb[2] = 110;
    return;
  }
  // The exported figures' table (core/color: blue-white-red), so the screen and a PNG agree.
  const double t = range > 0 ? std::clamp(v / range, -1.0, 1.0) : 0.0;
  MapColor(Colormap::kBlueWhiteRed, (float)(0.5 * (t + 1.0)), rgb);
}

namespace {
// What a cell prints: two decimals, none from 100 up.
std::string CellText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 100 ? "%.0f" : "%.2f", v);
  return buf;
}
}  // namespace

std::string ExactNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string SignedText(double v) {
  if (std::isnan(v)) return "NaN";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.4g", v);
  return buf;
}

void DrawSignedGrid(PanelContext& ctx, const SignedGrid& g, float max_h) {
  const float line = ImGui::GetTextLineHeight();
  float label_w = 0;
  for (const std::string& l : g.row_labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x);
  label_w += 8.0f;
  const float cell_h = line + 4.0f;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float cell_w = std::max(g.min_cell_w, (avail_w - label_w - 8.0f) / (float)std::max(1, g.cols));
  const float grid_h = cell_h * (float)(g.rows + 1) + ImGui::GetStyle().ScrollbarSize + 4.0f;
  const float h = max_h > 0 ? std::min(grid_h, std::max(cell_h * 3, max_h)) : grid_h;
  ImGui::BeginChild(("##" + g.dump_name).c_str(), ImVec2(0, h), false, ImGuiWindowFlags_HorizontalScrollbar);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  // Only the columns within the child's width are drawn: a residual grid over a long text has thousands. (The
  // widget dump, for tests, still lists every cell.)
  const float view_x0 = ImGui::GetWindowPos().x, view_x1 = view_x0 + ImGui::GetWindowWidth();
  const int first_col = std::clamp((int)std::floor((view_x0 - o.x - label_w) / cell_w), 0, std::max(0, g.cols - 1));
  const int last_col = std::clamp((int)std::ceil((view_x1 - o.x - label_w) / cell_w), 0, std::max(0, g.cols - 1));
  const int loop_begin = ctx.dump.enabled() ? 0 : first_col, loop_end = ctx.dump.enabled() ? g.cols : last_col + 1;
  for (int c = first_col; c <= last_col && c < (int)g.col_labels.size(); ++c) {
    const float x = o.x + label_w + (float)c * cell_w;
    dl->PushClipRect(ImVec2(x, o.y), ImVec2(x + cell_w - 2, o.y + cell_h), true);
    dl->AddText(ImVec2(x + 2, o.y + 2), dim, g.col_labels[(size_t)c].c_str());
    dl->PopClipRect();
  }
  std::string dump_rows;
  for (int r = 0; r < g.rows; ++r) {
    const float y = o.y + cell_h * (float)(r + 1);
    if (r < (int)g.row_labels.size()) dl->AddText(ImVec2(o.x, y + 2), dim, g.row_labels[(size_t)r].c_str());
    std::string dump_cells;
    for (int c = loop_begin; c < loop_end; ++c) {
      const double v = g.values[(size_t)r * g.cols + c];
      const ImVec2 p0(o.x + label_w + (float)c * cell_w, y), p1(p0.x + cell_w - 2, y + cell_h - 2);
      const bool in_view = c >= first_col && c <= last_col;
      if (!in_view) {  // the dump's record only
        ctx.dump.RecordRect(g.dump_name + ".cell." + std::to_string(r) + "." + std::to_string(c), p0.x, p0.y, p1.x,
                            p1.y, false, false, "{\"value\": " + ExactNumber(v) + "}", false);
        dump_cells += (c ? ", " : "") + ExactNumber(v);
        continue;
      }
      unsigned char rgb[3];
      DivergingColor(v, g.range, rgb);
      dl->AddRectFilled(p0, p1, IM_COL32(rgb[0], rgb[1], rgb[2], 255));
      // The value in the cell when it fits: dark on the pale middle, white on the strong ends.
      const std::string text = std::isnan(v) ? "" : CellText(v);
      if (!text.empty() && ImGui::CalcTextSize(text.c_str()).x + 4 <= cell_w - 2) {
        const float luma = 0.299f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2];
        dl->AddText(ImVec2(p0.x + 2, p0.y + 1), luma > 150 ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255),
                    text.c_str());
      }
      const bool hovered = ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1);
      if (hovered && g.tooltip) {
        const std::string tip = g.tooltip(r, c);
        ctx.NeedGlyphs(tip);
        ImGui::SetTooltip("%s", tip.c_str());
      }
      if (ctx.dump.enabled()) {
        const std::string name = g.dump_name + ".cell." + std::to_string(r) + "." + std::to_string(c);
        ctx.dump.RecordRect(name, p0.x, p0.y, p1.x, p1.y, false, hovered,
                            "{\"value\": " + ExactNumber(v) + (hovered && g.tooltip ? ", \"tip\": " + JsonString(g.tooltip(r, c)) : std::string()) + "}");
        dump_cells += (c ? ", " : "") + ExactNumber(v);
      }
    }
    dump_rows += (r ? ", [" : "[") + dump_cells + "]";
  }
  ImGui::Dummy(ImVec2(label_w + cell_w * (float)g.cols, cell_h * (float)(g.rows + 1)));
  ImGui::EndChild();
  ctx.dump.SetField(g.dump_name, "{\"rows\": " + std::to_string(g.rows) + ", \"cols\": " + std::to_string(g.cols) +
                                     ", \"range\": " + ExactNumber(g.range) + ", \"values\": [" + dump_rows + "]}");
}

void DrawDivergingLegend(double range, const std::string& what) {
  ImGui::TextUnformatted(SignedText(-range).c_str());
  ImGui::SameLine();
  const float h = ImGui::GetTextLineHeight(), w = 120.0f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(w, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int steps = 30;
  for (int i = 0; i < steps; ++i) {
    unsigned char rgb[3];
    DivergingColor(range * (2.0 * (i + 0.5) / steps - 1.0), range, rgb);
    dl->AddRectFilled(ImVec2(p0.x + w * i / steps, p0.y), ImVec2(p0.x + w * (i + 1) / steps, p0.y + h),
                      IM_COL32(rgb[0], rgb[1], rgb[2], 255));
  }
  ImGui::SameLine();
  ImGui::PushTextWrapPos(0);  // a narrow panel wraps the words after the bar, never cuts them off
  ImGui::TextUnformatted((SignedText(range) + "  " + what).c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace attnviz
