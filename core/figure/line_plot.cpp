#include "figure/line_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "figure/canvas.h"
#include "figure/font.h"
#include "figure/pdf.h"
#include "figure/svg.h"

namespace attnviz {

namespace {
constexpr Rgb kInk{38, 38, 38};
constexpr Rgb kGridColor{229, 229, 229};
constexpr Rgb kMarkerLine{150, 150, 150};
constexpr float kAxesW = 250, kAxesH = 200;
constexpr float kLeft = 62;     // y tick labels + y label, left of each axes
constexpr float kGapX = 22;     // between panels (after the previous axes)
constexpr float kMarginX = 14, kTop = 14;
constexpr float kTitleFont = 15, kFont = 12, kTickFont = 11;
constexpr float kLegendSample = 38;  // a legend entry's line sample and the space before its words
constexpr float kLegendGap = 24;     // between the two entries

float NiceStep(float span, int target) {
  float raw = span / target;
  float mag = std::pow(10.0f, std::floor(std::log10(raw)));
  for (float m : {1.0f, 2.0f, 2.5f, 5.0f, 10.0f})
    if (m * mag >= raw * 0.999f) return m * mag;
  return 10 * mag;
}

std::string TickText(float v, float step) {
  char buf[32];
  int decimals = step >= 1 ? 0 : step >= 0.1f ? 1 : step >= 0.01f ? 2 : 3;
  if (std::fabs(v * std::pow(10.0f, (float)decimals) - std::round(v * std::pow(10.0f, (float)decimals))) > 1e-3f)
    ++decimals;
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
}  // namespace

PointF SaturationPanel::ToPixel(double d_k, double value, double x_lo, double x_hi) const {
  double lx = std::log2(std::max(d_k, 1e-9));
  float tx = (float)((lx - x_lo) / (x_hi - x_lo));
  float ty = (float)((value - y_lo) / (y_hi - y_lo));
  return {axes.x + tx * axes.w, axes.bottom() - ty * axes.h};
}

Result<SaturationLayout> LayoutSaturation(const std::vector<SweepPoint>& points, const SaturationWords& words) {
  if (points.empty()) return Status::Error("saturation plot: no sweep points");
  SaturationLayout L;
  L.words = words;
  int d_min = 1 << 30, d_max = 0;
  for (const SweepPoint& p : points) {
    if (p.d_k <= 0) return Status::Error("saturation plot: d_k = " + std::to_string(p.d_k) + " is not positive");
    d_min = std::min(d_min, p.d_k);
    d_max = std::max(d_max, p.d_k);
  }
  L.x_lo_log2 = std::log2((double)d_min);
  L.x_hi_log2 = std::log2((double)d_max);
  if (L.x_hi_log2 - L.x_lo_log2 < 1) {
    L.x_lo_log2 -= 0.5;
    L.x_hi_log2 += 0.5;
  }
  // A little air on both sides so the end markers are not cut by the frame.
  double pad = 0.04 * (L.x_hi_log2 - L.x_lo_log2);
  L.x_lo_log2 -= pad;
  L.x_hi_log2 += pad;
  int e0 = (int)std::ceil(L.x_lo_log2), e1 = (int)std::floor(L.x_hi_log2);
  int step = std::max(1, (int)std::ceil((e1 - e0 + 1) / 7.0));
  for (int e = e0; e <= e1; ++e)
    if ((e - e0) % step == 0 && e >= 0 && e < 31) L.x_ticks.push_back(1 << e);

  struct Metric {
    const std::string& title;
    const std::string& y_label;
    float SweepPoint::*field;
  };
  const Metric metrics[3] = {{words.max_weight, words.max_weight_axis, &SweepPoint::max_weight},
                             {words.entropy, words.entropy_axis, &SweepPoint::norm_entropy},
                             {words.gradient, words.gradient_axis, &SweepPoint::grad_norm}};
  float y0 = kTop + 22 + 8 + 22 + 20;  // title, legend, panel title
  for (int m = 0; m < 3; ++m) {
    SaturationPanel panel;
    panel.title = metrics[m].title;
    panel.y_label = metrics[m].y_label;
    panel.axes = {kMarginX + kLeft + m * (kLeft + kAxesW + kGapX), y0, kAxesW, kAxesH};
    std::map<int, float> scaled, unscaled;
    float vmax = 0;
    for (const SweepPoint& p : points) {
      float v = p.*(metrics[m].field);
      (p.scaled ? scaled : unscaled)[p.d_k] = v;
      if (std::isfinite(v)) vmax = std::max(vmax, v);
    }
    // A score never divided by sqrt(d_k): its scaled points are its unscaled ones, drawn once.
    if (words.undivided.empty()) panel.scaled.assign(scaled.begin(), scaled.end());
    panel.unscaled.assign(unscaled.begin(), unscaled.end());
    panel.y_lo = 0;
    panel.y_hi = m < 2 ? 1.0f : 0;
    if (m == 2) {
      float s = NiceStep(vmax > 0 ? vmax : 1.0f, 4);
      panel.y_hi = std::max(s, std::ceil(vmax * 1.05f / s) * s);
    }
    float ystep = m < 2 ? 0.2f : NiceStep(panel.y_hi, 4);
    for (float t = 0; t <= panel.y_hi + ystep * 1e-3f; t += ystep) panel.y_ticks.push_back(t);
    // Leave headroom so markers at 1.0 are not cut.
    panel.y_hi += (panel.y_hi - panel.y_lo) * 0.04f;
    panel.y_lo -= (panel.y_hi - panel.y_lo) * 0.04f;
    L.panels.push_back(panel);
  }
  L.width = (int)std::ceil(2 * kMarginX + 3 * (kLeft + kAxesW) + 2 * kGapX);
  L.height = (int)std::ceil(y0 + kAxesH + 6 + 16 + 22 + kTop);
  L.title_y = kTop + 11;
  // The legend's entries: a line sample and its words, each as wide as its text in the figure's font.
  Result<std::shared_ptr<const FontSet>> fonts = FontSet::Default();
  auto text_w = [&](const std::string& text) {
    return fonts.ok() ? (*fonts)->TextWidth(text, kFont) : 7.0f * (float)text.size();
  };
  const bool two = words.undivided.empty();
  const float first_w = two ? kLegendSample + text_w(words.scaled) + kLegendGap : 0;
  const float legend_w = first_w + kLegendSample + text_w(two ? words.unscaled : words.undivided);
  L.legend = {std::round(L.width / 2.0f - legend_w / 2), kTop + 30, std::ceil(legend_w), 20};
  L.legend_second_x = L.legend.x + first_w;
  return L;
}

void DrawSaturation(const SaturationLayout& L, const std::string& title, int current_d_k, Painter* painter) {
  if (!title.empty())
    painter->Text(L.width / 2.0f, L.title_y, title, TextStyle{kTitleFont, kInk, HAlign::kCenter, VAlign::kMiddle, 0});
  // Legend: one row, centred (LayoutSaturation sized it); one entry naming the score when it is never divided by
  // sqrt(d_k).
  {
    const SaturationWords& w = L.words;
    const TextStyle style{kFont, kInk, HAlign::kLeft, VAlign::kMiddle, 0};
    const float cy = L.legend.y + L.legend.h / 2;
    float x = L.legend.x;
    if (w.undivided.empty()) {
      painter->Line({x, cy}, {x + 30, cy}, kScaledColor, 2);
      painter->FillCircle({x + 15, cy}, 3, kScaledColor);
      painter->Text(x + kLegendSample, cy, w.scaled, style);
      x = L.legend_second_x;
    }
    painter->Line({x, cy}, {x + 30, cy}, kUnscaledColor, 2, 5);
    painter->FillCircle({x + 15, cy}, 3, kUnscaledColor);
    painter->Text(x + kLegendSample, cy, w.undivided.empty() ? w.unscaled : w.undivided, style);
  }
  for (int m = 0; m < (int)L.panels.size(); ++m) {
    const SaturationPanel& p = L.panels[m];
    const RectF& a = p.axes;
    // Grid lines and ticks.
    for (float t : p.y_ticks) {
      float y = L.ToPixel(m, 1, t).y;
      painter->Line({a.x, y}, {a.right(), y}, kGridColor, 1);
      painter->Line({a.x - 4, y}, {a.x, y}, kInk, 1);
      float step = p.y_ticks.size() > 1 ? p.y_ticks[1] - p.y_ticks[0] : 1;
      painter->Text(a.x - 7, y, TickText(t, step), TextStyle{kTickFont, kInk, HAlign::kRight, VAlign::kMiddle, 0});
    }
    for (int d : L.x_ticks) {
      float x = L.ToPixel(m, d, 0).x;
      painter->Line({x, a.y}, {x, a.bottom()}, kGridColor, 1);
      painter->Line({x, a.bottom()}, {x, a.bottom() + 4}, kInk, 1);
      painter->Text(x, a.bottom() + 6, std::to_string(d), TextStyle{kTickFont, kInk, HAlign::kCenter, VAlign::kTop, 0});
    }
    if (current_d_k > 0) {
      float x = L.ToPixel(m, current_d_k, 0).x;
      if (x >= a.x && x <= a.right()) {
        painter->Line({x, a.y}, {x, a.bottom()}, kMarkerLine, 1.5f, 4);
        painter->Text(x + 3, a.y + 3, "d_k=" + std::to_string(current_d_k),
                      TextStyle{kTickFont - 1, kMarkerLine, HAlign::kLeft, VAlign::kTop, 0});
      }
    }
    // Lines: scaled under unscaled, markers on top.
    const std::pair<const std::vector<std::pair<int, float>>*, Rgb> series[2] = {{&p.scaled, kScaledColor},
                                                                                  {&p.unscaled, kUnscaledColor}};
    for (int s = 0; s < 2; ++s) {
      std::vector<PointF> pts;
      for (const auto& [d, v] : *series[s].first)
        if (std::isfinite(v)) pts.push_back(L.ToPixel(m, d, v));
      painter->Polyline(pts, series[s].second, 2, s == 1 ? 5 : 0);
      for (const PointF& pt : pts) painter->FillCircle(pt, 3, series[s].second);
    }
    painter->StrokeRect({a.x - 0.5f, a.y - 0.5f, a.w + 1, a.h + 1}, kInk, 1);
    painter->Text(a.x + a.w / 2, a.y - 6, p.title, TextStyle{kFont + 1, kInk, HAlign::kCenter, VAlign::kBottom, 0});
    painter->Text(a.x - kLeft + 4, a.y + a.h / 2, p.y_label, TextStyle{kFont, kInk, HAlign::kCenter, VAlign::kTop, 90});
    painter->Text(a.x + a.w / 2, a.bottom() + 24, L.words.d_k_axis,
                  TextStyle{kFont, kInk, HAlign::kCenter, VAlign::kTop, 0});
  }
}

Result<std::string> RenderSaturation(const std::vector<SweepPoint>& points, const std::string& title,
                                     int current_d_k, const std::string& format, const SaturationWords& words) {
  Result<std::shared_ptr<const FontSet>> fonts = FontSet::Default();
  if (!fonts.ok()) return fonts.status();
  Result<SaturationLayout> layout = LayoutSaturation(points, words);
  if (!layout.ok()) return layout.status();
  if (format == "svg") {
    SvgPainter svg(layout->width, layout->height, *fonts);
    DrawSaturation(*layout, title, current_d_k, &svg);
    return svg.Finish();
  }
  if (format == "pdf") {
    PdfPainter pdf(layout->width, layout->height, 96, *fonts);  // pixels at 96 dpi, as the PNG's pHYs
    pdf.SetTitle(title);
    DrawSaturation(*layout, title, current_d_k, &pdf);
    return pdf.Finish();
  }
  if (format == "png") {
    Canvas canvas(layout->width, layout->height, *fonts);
    DrawSaturation(*layout, title, current_d_k, &canvas);
    return canvas.EncodePng(96);  // its sizes are pixels at 96 dpi, as the heatmap's default (pHYs)
  }
  return Status::Error("saturation plot format '" + format + "' is not supported: allowed png|svg|pdf");
}

}  // namespace attnviz
