// The words a figure prints, English unless the caller gives its language's (app/common/i18n
// LocalizedFigureWords, LocalizedSaturationWords): core/ knows no other language.
#pragma once
#include <string>

namespace attnviz {

// A heatmap figure: the axis titles, the colorbar's, the masked legend and each grid panel's title.
struct FigureWords {
  std::string query = "query", key = "key", weight = "weight", weight_log = "weight (log)", masked = "masked";
  std::string head = "head ";  // followed by the head's number
};

// The saturation figure (line_plot.h): the legend, each panel's title and y axis, the shared x axis.
struct SaturationWords {
  // The legend of the scaled-dot score: its logits divided by sqrt(d_k), and not.
  std::string scaled = "scaled (q\u00B7k / \u221Ad_k)", unscaled = "unscaled (q\u00B7k)";
  // A score never divided by sqrt(d_k) (every score but scaled-dot; AttentionConfig::logit_multiplier): its scaled
  // and unscaled points are the same, so the figure draws one line, with this legend naming the score
  // ("q·k / (|q| |k|), not divided by √d_k"). Empty: the two lines of scaled-dot.
  std::string undivided;
  std::string max_weight = "max weight", max_weight_axis = "mean max weight";
  std::string entropy = "entropy", entropy_axis = "normalized entropy";
  std::string gradient = "gradient size", gradient_axis = "softmax gradient size";
  std::string d_k_axis = "d_k (log scale)";
};

}  // namespace attnviz
