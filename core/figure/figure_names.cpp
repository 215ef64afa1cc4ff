#include "figure/figure_names.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "sandbox/score.h"

namespace attnviz {

namespace {

std::string Joined(std::string head, const std::vector<SettingLabel>& labels, bool title) {
  for (const SettingLabel& l : labels) head += (title ? kTitleDot : "-") + (title ? l.title : l.file);
  return head;
}

// "neg-distance" -> "negdistance": a file name's parts are separated by '-'.
std::string NoHyphens(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '-'), text.end());
  return text;
}

std::vector<SettingLabel> Concatenated(std::vector<SettingLabel> a, const std::vector<SettingLabel>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::vector<SettingLabel> NonDefaultSettings(const AttentionConfig& c, bool with_shape) {
  const AttentionConfig d;
  std::vector<SettingLabel> out;
  if (c.mask != d.mask) out.push_back({ToString(c.mask), ToString(c.mask)});
  if (c.mode != d.mode) out.push_back({ToString(c.mode), ToString(c.mode)});
  if (c.d_model != d.d_model) out.push_back({"d_model=" + std::to_string(c.d_model), "dm" + std::to_string(c.d_model)});
  if (with_shape && c.n_head != d.n_head)
    out.push_back({"n_head=" + std::to_string(c.n_head), "nh" + std::to_string(c.n_head)});
  if (with_shape && c.head_dim_v() != c.head_dim_k())
    out.push_back({"d_v=" + std::to_string(c.head_dim_v()), "dv" + std::to_string(c.head_dim_v())});
  if (c.seed != d.seed) out.push_back({"seed=" + std::to_string(c.seed), "seed" + std::to_string(c.seed)});
  if (c.positional != d.positional) out.push_back({"no positions", "nopos"});
  // The QKV layout is left out on purpose: fused and separate give the same numbers, so the same figure.
  return out;
}

std::vector<SettingLabel> SourceAndScoreSettings(const AttentionConfig& c) {
  const AttentionConfig d;
  std::vector<SettingLabel> out;
  const std::pair<const char*, FeatureSource> sources[] = {{"q", c.query_from}, {"k", c.key_from}, {"v", c.value_from}};
  for (const auto& [side, source] : sources)
    if (source != d.query_from)
      out.push_back({std::string(side) + " from " + ToString(source), std::string(side) + ToString(source)});
  // Titles name the score by its formula, as Describe does; file names keep the option name (plain ASCII).
  if (c.score != d.score)
    out.push_back({std::string("score ") + ScoreFormula(c.score), "score" + NoHyphens(ToString(c.score))});
  // Today's two guards (seed d): a capped or normed run's figure must not overwrite the plain run's.
  if (c.qk_norm) out.push_back({"q/k norm", "qknorm"});
  if (c.softcap > 0) out.push_back({"cap " + ShortNumber(c.softcap), "cap" + ShortNumber(c.softcap)});
  return out;
}

std::string FigureTitle(const std::string& heads, const AttentionConfig& c) {
  return Joined(heads + kTitleDot + Describe(c), NonDefaultSettings(c), true);
}

std::string FigureFileStem(const std::string& heads, const AttentionConfig& c) {
  // As Describe says them: the width q and k really have, and scaled/unscaled only under the score that divides.
  std::string stem = "attnviz-" + heads + "-dk" + NoHyphens(QueryKeyWidthText(c));
  if (c.score == ScoreKind::kScaledDot) stem += c.scale ? "-scaled" : "-unscaled";
  if (c.temperature != 1.0f) stem += "-T" + ShortNumber(c.temperature);
  // The title names the sources and the score through Describe(); the file name must too.
  return Joined(stem, Concatenated(SourceAndScoreSettings(c), NonDefaultSettings(c)), false);
}

std::string SweepTitle(const AttentionConfig& base, int n_k) {
  return Joined("softmax saturation" + std::string(kTitleDot) + "n_k=" + std::to_string(n_k) + kTitleDot + "T=" +
                    ShortNumber(base.temperature),
                Concatenated(SourceAndScoreSettings(base), NonDefaultSettings(base, false)), true);
}

std::string SweepFileStem(const AttentionConfig& base) {
  std::string stem = "attnviz-saturation";
  if (base.temperature != 1.0f) stem += "-T" + ShortNumber(base.temperature);
  return Joined(stem, Concatenated(SourceAndScoreSettings(base), NonDefaultSettings(base, false)), false);
}

}  // namespace attnviz
