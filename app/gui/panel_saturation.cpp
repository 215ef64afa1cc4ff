// Saturation: mean max weight, normalized entropy and softmax-gradient size against d_k (log2 axis),
// scaled and unscaled, with the current d_k marked and the current heads' own figures.
// imgui 1.86 has no implot: the curves are drawn with ImDrawList.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"
#include "sandbox_panel_context.h"
#include "io/json.h"
#include "panel_util.h"
#include "sandbox/score.h"

namespace attnviz {

namespace {

const ImU32 kScaledColor = IM_COL32(90, 170, 255, 255);
const ImU32 kUnscaledColor = IM_COL32(255, 140, 60, 255);

struct Curve {
  Str name;
  const char* dump;
  float SweepPoint::*field;
  float HeadMetrics::*head_field;
};

// divided: the sweep's score is scaled-dot, the one divided by sqrt(d_k); under any other its scaled and unscaled
// points are the same, drawn as one (unscaled) line.
void DrawChart(SandboxPanelContext& ctx, const Curve& curve, const std::vector<SweepPoint>& points, bool divided, ImVec2 size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 p0 = ImGui::GetCursorScreenPos();
  float line = ImGui::GetTextLineHeight();
  ImGui::InvisibleButton(curve.dump, size);
  bool hovered = ImGui::IsItemHovered();
  ctx.dump.RecordItem(std::string("saturation.") + curve.dump, std::to_string(points.size()));

  float y_max = 1.0f;
  for (const SweepPoint& p : points)
    if (std::isfinite(p.*curve.field)) y_max = std::max(y_max, p.*curve.field);
  if (curve.head_field == &HeadMetrics::grad_norm) {
    y_max = 0.0f;
    for (const SweepPoint& p : points)
      if (std::isfinite(p.*curve.field)) y_max = std::max(y_max, p.*curve.field);
    y_max = y_max > 0 ? y_max * 1.1f : 1.0f;
  }
  // The y labels are centred on their grid lines, so the top one ("0.47") needs half a line above the
  // plot: the chart title sits above that, never on it.
  const std::string top_label = FormatNumber(y_max, "%.2g");
  float left = std::max(34.0f, ImGui::CalcTextSize(top_label.c_str()).x + 6.0f);
  float bottom = line + 4.0f, top = line * 1.5f + 4.0f;
  ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - 6.0f, p0.y + size.y - bottom);
  dl->AddText(ImVec2(p0.x + 2, p0.y), ImGui::GetColorU32(ImGuiCol_Text), Tr(curve.name));
  ctx.dump.RecordRect(std::string("saturation.") + curve.dump + ".title", p0.x + 2, p0.y,
                      p0.x + 2 + ImGui::CalcTextSize(Tr(curve.name)).x, p0.y + line, false, false);
  dl->AddRectFilled(a, b, IM_COL32(20, 22, 28, 255));
  dl->AddRect(a, b, IM_COL32(90, 90, 100, 255));
  const float log_lo = 0.0f, log_hi = std::log2((float)kMaxHeadDim);
  auto X = [&](float d_k) { return a.x + (std::log2(std::max(d_k, 1.0f)) - log_lo) / (log_hi - log_lo) * (b.x - a.x); };
  auto Y = [&](float v) { return b.y - std::clamp(v / y_max, 0.0f, 1.0f) * (b.y - a.y); };

  // Axes: y 0 / top, x ticks at 1, 16, 256, 4096.
  ImU32 dim = ImGui::GetColorU32(kDimColor);
  const ImVec2 top_at(p0.x + 2, a.y - line * 0.5f);
  dl->AddText(top_at, dim, top_label.c_str());
  ctx.dump.RecordRect(std::string("saturation.") + curve.dump + ".y_max", top_at.x, top_at.y,
                      top_at.x + ImGui::CalcTextSize(top_label.c_str()).x, top_at.y + line, false, false,
                      JsonString(top_label));
  dl->AddText(ImVec2(p0.x + 2, b.y - line * 0.5f), dim, "0");
  for (int d : {1, 4, 16, 64, 256, 1024, 4096}) {
    float x = X((float)d);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), IM_COL32(50, 52, 60, 255));
    if (d == 1024 && b.x - a.x < 420.0f) continue;  // no room between 256 and 4096
    std::string label = std::to_string(d);
    float w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(std::min(x - w * 0.5f, b.x - w), b.y + 2), dim, label.c_str());
  }

  // Curves.
  for (int scaled = 0; scaled < (divided ? 2 : 1); ++scaled) {
    std::vector<ImVec2> poly;
    for (const SweepPoint& p : points)
      if (p.scaled == (scaled == 1) && std::isfinite(p.*curve.field))
        poly.push_back(ImVec2(X((float)p.d_k), Y(p.*curve.field)));
    ImU32 color = scaled ? kScaledColor : kUnscaledColor;
    if (poly.size() >= 2) dl->AddPolyline(poly.data(), (int)poly.size(), color, 0, 2.0f);
    for (const ImVec2& q : poly) dl->AddCircleFilled(q, 2.5f, color);
  }

  // The current d_k (the width q and k really have: 1 from word length or position), and where the current heads are.
  if (const int now = ctx.QueryKeyWidth(); now > 0) {
    const float x_now = X((float)now);
    dl->AddLine(ImVec2(x_now, a.y), ImVec2(x_now, b.y), IM_COL32(255, 220, 80, 200), 1.5f);
  }
  if (ctx.shown.sandbox && !ctx.shown.sandbox->numbers->metrics.empty()) {
    const AttentionConfig& rc = ctx.shown.sandbox->config;
    const AttentionTensors& rt = *ctx.shown.sandbox->numbers;
    float xr = X((float)(rt.q ? (int)rt.q->dim(2) : rc.head_dim_k()));
    ImU32 color = rc.scale && rc.score == ScoreKind::kScaledDot ? kScaledColor : kUnscaledColor;
    for (const HeadMetrics& m : rt.metrics)
      if (std::isfinite(m.*curve.head_field))
        dl->AddCircle(ImVec2(xr, Y(m.*curve.head_field)), 3.5f, IM_COL32(255, 255, 255, 160));
    HeadMetrics mean = MeanOverHeads(rt.metrics);
    if (std::isfinite(mean.*curve.head_field)) dl->AddCircleFilled(ImVec2(xr, Y(mean.*curve.head_field)), 5.0f, color);
  }

  if (hovered && !points.empty()) {
    float mx = ImGui::GetIO().MousePos.x;
    const SweepPoint* best[2] = {nullptr, nullptr};
    for (const SweepPoint& p : points) {
      const SweepPoint*& slot = best[p.scaled ? 1 : 0];
      if (!slot || std::fabs(X((float)p.d_k) - mx) < std::fabs(X((float)slot->d_k) - mx)) slot = &p;
    }
    ImGui::BeginTooltip();
    if (best[0]) ImGui::Text("d_k = %d", best[0]->d_k);
    if (best[1] && divided) ImGui::TextUnformatted(Trf(Str::kTipScaled, {FormatNumber(best[1]->*curve.field, "%.4f")}).c_str());
    if (best[0] && divided)
      ImGui::TextUnformatted(Trf(Str::kTipUnscaled, {FormatNumber(best[0]->*curve.field, "%.4f")}).c_str());
    else if (best[0])
      ImGui::TextUnformatted(FormatNumber(best[0]->*curve.field, "%.4f").c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace

void DrawSaturationPanel(SandboxPanelContext& ctx) {
  ctx.layout.PlacePanel(0.719f, 0.0f, 0.281f, 0.65f);
  if (!ImGui::Begin(WindowTitle(Str::kWinSaturation, "Saturation").c_str())) {
    ImGui::End();
    return;
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Legend: the sweep's own score. Only scaled-dot divides by sqrt(d_k): under it a "÷√d_k" line and an unscaled
  // one; under any other score both are one line, named by the score's formula (as the exported figure's legend).
  const AttentionConfig& swept = ctx.shown.sweep ? ctx.shown.sweep->request.base : ctx.settings.config;
  const ScoreKind score = swept.score;
  const bool divided = score == ScoreKind::kScaledDot;
  ImVec2 p = ImGui::GetCursorScreenPos();
  float line = ImGui::GetTextLineHeight();
  std::string legend;
  if (divided) {
    dl->AddLine(ImVec2(p.x, p.y + line * 0.5f), ImVec2(p.x + 18, p.y + line * 0.5f), kScaledColor, 2.5f);
    ImGui::SetCursorScreenPos(ImVec2(p.x + 22, p.y));
    ImGui::TextUnformatted("\xC3\xB7\xE2\x88\x9A" "d_k");
    ImGui::SameLine();
    p = ImGui::GetCursorScreenPos();
    p.x += 6;
    legend = "\xC3\xB7\xE2\x88\x9A" "d_k | ";
  }
  const std::string second = divided ? std::string(Tr(Str::kUnscaled)) : Trf(Str::kFigUndivided, {ScoreFormula(score)});
  dl->AddLine(ImVec2(p.x, p.y + line * 0.5f), ImVec2(p.x + 18, p.y + line * 0.5f), kUnscaledColor, 2.5f);
  ImGui::SetCursorScreenPos(ImVec2(p.x + 22, p.y));
  ImGui::TextUnformatted(second.c_str());
  legend += second;
  // Both lines run with the q/k norm and the soft cap when they are on (SweepDk keeps them): the legend says so.
  std::string twists;
  if (swept.qk_norm) twists += std::string(kTitleDot) + Tr(Str::kTitleQkNorm);
  if (swept.softcap > 0) twists += std::string(kTitleDot) + Trf(Str::kTitleSoftcap, {FormatNumber(swept.softcap, "%.3g")});
  if (!twists.empty()) {
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(twists.c_str());
    legend += twists;
  }
  ImGui::SameLine();
  const int now = ctx.QueryKeyWidth();  // the width q and k really have (1 from word length), as the summary's d_k
  const std::string now_text = now > 0 ? Trf(Str::kNowDk, {std::to_string(now)}) : std::string();
  DimText(now_text);
  ctx.dump.SetField("saturation_legend", JsonString(legend));
  ctx.dump.SetField("saturation_now", JsonString(now_text));
  ctx.dump.SetField("saturation_lines", divided ? "2" : "1");

  static const Curve kCurves[] = {
      {Str::kCurveMaxWeight, "max_weight", &SweepPoint::max_weight, &HeadMetrics::max_weight},
      {Str::kCurveEntropy, "norm_entropy", &SweepPoint::norm_entropy, &HeadMetrics::norm_entropy},
      {Str::kCurveGrad, "grad_norm", &SweepPoint::grad_norm, &HeadMetrics::grad_norm},
  };
  std::vector<SweepPoint> none;
  const std::vector<SweepPoint>& points = ctx.shown.sweep ? ctx.shown.sweep->points : none;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  int n_head = ctx.shown.sandbox ? (int)ctx.shown.sandbox->numbers->metrics.size() : 0;
  float table_h = line * (float)(std::min(n_head, 8) + 2) + 8.0f;
  float chart_h = std::max(70.0f, (avail.y - table_h - line * 2.0f) / 3.0f);
  for (const Curve& curve : kCurves) DrawChart(ctx, curve, points, divided, ImVec2(avail.x, chart_h));
  // The d_q = d_k refusal is the Controls panel's to show (beside the combos that cause it): here only a pointer,
  // as in the Heads and Sentences panels. A refusal only the sweep meets (its other d_k against a 1-wide q, while
  // the settings' own d_k fits) is not in Controls: that one is said here in full.
  const std::string sweep_error = ctx.shown.sweep_error.Render();
  const bool controls_refuse = IsWidthRefusal(ctx.shown.config_error.Render()) ||
                               IsWidthRefusal(ctx.shown.compute_error.Render());
  const std::string saturation_error =
      sweep_error.empty() || ctx.shown.sweeping         ? std::string()
      : IsWidthRefusal(sweep_error) && controls_refuse ? std::string(Tr(Str::kWidthRefusalSeeControls))
                                                       : sweep_error;
  ctx.dump.RecordItem("saturation.error", JsonString(saturation_error));
  if (ctx.shown.sweeping) ImGui::TextUnformatted(Tr(Str::kSweeping));
  else if (!saturation_error.empty()) ErrorText(saturation_error);
  else if (ctx.shown.sweep) DimText(Trf(Str::kSweepSummary, {std::to_string(points.size()),
                                                      FormatNumber(ctx.shown.sweep->seconds * 1000, "%.0f")}));

  // Per-head figures of the current settings, in a scrolling child of our own: a table with ImGuiTableFlags_ScrollY
  // makes its own child, and when that child was clipped while the table's rectangle was not (a fraction of a pixel
  // at the panel's edge), imgui 1.86 aborted in TableUpdateLayout. Our child, when clipped, skips the table.
  if (n_head > 0) {
    if (ImGui::BeginChild("per_head_scroll", ImVec2(0, std::max(table_h, ImGui::GetContentRegionAvail().y)))) {
      if (ImGui::BeginTable("per_head", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) {
        for (Str column : {Str::kColHead, Str::kColMaxW, Str::kColHNorm, Str::kColGrad, Str::kColLogitSd})
          ImGui::TableSetupColumn(Tr(column));
        ImGui::TableHeadersRow();
        const std::vector<HeadMetrics>& metrics = ctx.shown.sandbox->numbers->metrics;
        for (int h = 0; h < n_head; ++h) {
          const HeadMetrics& m = metrics[(size_t)h];
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::Text("%d", h);
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(FormatNumber(m.max_weight, "%.3f").c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(FormatNumber(m.norm_entropy, "%.3f").c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(FormatNumber(m.grad_norm, "%.3f").c_str());
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(FormatNumber(m.logit_std, "%.3g").c_str());
        }
        ImGui::EndTable();
      }
    }
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace attnviz
