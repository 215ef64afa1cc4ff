// Figure titles and default file names from a config: both name the mask and every setting that is
// not the default, so a causal and an unmasked export (or two seeds) never share a title or a file.
// The app's Export panel and attnviz-cli use these, so their titles and names agree.
#pragma once
#include <string>
#include <vector>

#include "sandbox/config.h"

namespace attnviz {

// One non-default setting, as a title reads it and as a file name carries it.
struct SettingLabel {
  std::string title;  // "causal", "seed=3", "d_model=128"
  std::string file;   // "causal", "seed3", "dm128"
};

// The settings that differ from AttentionConfig{} (mask, mode, d_model, n_head, d_v, seed, positions),
// in a fixed order. d_k, scaling and temperature are not listed: Describe() always names them.
// with_shape = false leaves out what the d_k sweep sets itself (n_head, d_v).
std::vector<SettingLabel> NonDefaultSettings(const AttentionConfig& config, bool with_shape = true);

// Seed (f)'s query/key/value sources and score when not the default: {"q from length", "qlength"},
// {"score neg-distance", "scorenegdistance"}. Describe() names them in a title; file names and the sweep's
// title and name carry them from here, so a length/neg-distance run never overwrites the default run's figure.
std::vector<SettingLabel> SourceAndScoreSettings(const AttentionConfig& config);

// "<heads> · d_k=16 · scaled · T=1 · causal · seed=3": heads is "head 2", "4 heads", ...
std::string FigureTitle(const std::string& heads, const AttentionConfig& config);
// "attnviz-<heads>-dk16-scaled[-T0.5][-klength-scorenegdistance]-causal-seed3": heads is "head2", "heads", ... (no extension).
std::string FigureFileStem(const std::string& heads, const AttentionConfig& config);

// The saturation plot: "softmax saturation · n_k=12 · T=1 · causal" and "attnviz-saturation-causal" (sources
// and score as above when not the default).
// Only what the sweep keeps from the config is named (it sets d_k, scaling and the heads itself).
std::string SweepTitle(const AttentionConfig& base, int n_k);
std::string SweepFileStem(const AttentionConfig& base);

}  // namespace attnviz
