// The saturation figure: three panels (mean max weight, normalized entropy, softmax-gradient size)
// against d_k on a log2 axis, a scaled and an unscaled line in each (one line under a score never divided by
// sqrt(d_k): SaturationWords::undivided), one shared legend. Its words come from the caller (English by default).
// Layout once, drawn through a Painter (PNG or SVG), like the heatmap.
#pragma once
#include <string>
#include <vector>

#include "attention/metrics.h"
#include "sandbox/sweep.h"
#include "figure/figure_words.h"
#include "figure/painter.h"
#include "base/status.h"

namespace attnviz {

constexpr Rgb kScaledColor{31, 119, 180};   // matplotlib tab:blue
constexpr Rgb kUnscaledColor{255, 127, 14}; // matplotlib tab:orange

struct SaturationPanel {
  std::string title, y_label;
  RectF axes;           // the plot area
  float y_lo = 0, y_hi = 1;
  std::vector<float> y_ticks;
  // The lines in data units: d_k and value, sorted by d_k.
  std::vector<std::pair<int, float>> scaled, unscaled;
  PointF ToPixel(double d_k, double value, double x_lo_log2, double x_hi_log2) const;
};

struct SaturationLayout {
  int width = 0, height = 0;
  double x_lo_log2 = 0, x_hi_log2 = 1;  // the x range, log2(d_k)
  std::vector<int> x_ticks;             // labelled d_k values
  std::vector<SaturationPanel> panels;  // [3]
  float title_y = 0;
  RectF legend;                         // centred, as wide as its entries
  float legend_second_x = 0;            // where the second entry (unscaled) starts; two entries only
  SaturationWords words;  // the legend, the panels' titles and axes (their text, in the caller's language)
  PointF ToPixel(int panel, double d_k, double value) const {
    return panels[panel].ToPixel(d_k, value, x_lo_log2, x_hi_log2);
  }
};

Result<SaturationLayout> LayoutSaturation(const std::vector<SweepPoint>& points,
                                          const SaturationWords& words = SaturationWords());
void DrawSaturation(const SaturationLayout& layout, const std::string& title, int current_d_k, Painter* painter);
// PNG or SVG bytes.
Result<std::string> RenderSaturation(const std::vector<SweepPoint>& points, const std::string& title,
                                     int current_d_k, const std::string& format,
                                     const SaturationWords& words = SaturationWords());

}  // namespace attnviz
