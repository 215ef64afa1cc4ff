// The engine's words in the current language: messages part by part, titles segment by segment.
#include "i18n/localized.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "sandbox/score.h"  // ScoreFormula: the saturation legend names a score by it

namespace attnviz {

namespace {

const char* kDot = " \u00B7 ";

// The UI's name of a feature source given as its option value ("length" -> "word length" / "단어 길이").
std::string FeatureLabel(const std::string& option_value) {
  for (FeatureSource s : kFeatureSources)
    if (option_value == ToString(s)) return FeatureSourceLabel(s);
  return option_value;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A model figure's what-ifs, "no 1/√d_head, T=0.5": each in the current language, T=0.5 as it is.
std::string LocalizedWhatIfs(const std::string& list) {
  const std::string no_scale = "no 1/\u221Ad_head";
  std::string out;
  size_t begin = 0;
  while (true) {
    const size_t end = list.find(", ", begin);
    const std::string item = list.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    out += item == no_scale ? Tr(Str::kTitleNoSqrtScale) : item == "no soft cap" ? Tr(Str::kTitleNoSoftcap) : item;
    if (end == std::string::npos) return out;
    out += ", ";
    begin = end + 2;
  }
}

// One " · "-separated segment of a title or of Describe(): the words in the current language, numbers and
// names (d_k=16, T=1, seed=3) as they are.
std::string LocalizedSegment(const std::string& seg) {
  if (seg == "scaled") return Tr(Str::kTitleScaled);
  if (seg == "unscaled") return Tr(Str::kTitleUnscaled);
  if (seg == "causal") return Tr(Str::kMaskCausal);
  if (seg == "cross") return Tr(Str::kModeCross);
  if (seg == "no positions") return Tr(Str::kTitleNoPositions);
  if (seg == "softmax saturation") return Tr(Str::kTitleSaturation);
  if (seg.rfind("head ", 0) == 0) return Trf(Str::kTitleHead, {seg.substr(5)});
  if (EndsWith(seg, " heads")) return Trf(Str::kTitleHeads, {seg.substr(0, seg.size() - 6)});
  if (EndsWith(seg, " head")) return Trf(Str::kTitleHeads, {seg.substr(0, seg.size() - 5)});
  if (seg.size() > 7 && seg[1] == ' ' && seg.compare(2, 5, "from ") == 0)
    return Trf(Str::kTitleFrom, {seg.substr(0, 1), FeatureLabel(seg.substr(7))});
  if (seg.rfind("score ", 0) == 0)  // the score's formula, as in English ("score −|q − k|" -> "점수 −|q − k|")
    return Trf(Str::kTitleScore, {seg.substr(6)});
  // A model figure (ModelFigureTitle): the layer, the mask, the what-ifs and the layers they act on.
  if (seg.rfind("layer ", 0) == 0) return Trf(Str::kTitleLayer, {seg.substr(6)});
  if (seg == "bidirectional") return Tr(Str::kTitleBidirectional);
  if (seg.rfind("cap ", 0) == 0) return Trf(Str::kTitleSoftcap, {seg.substr(4)});  // Describe(LayerMaps), the sandbox's
  if (seg == "q/k norm") return Tr(Str::kTitleQkNorm);
  if (seg.rfind("causal, window ", 0) == 0) return Trf(Str::kTitleCausalWindow, {seg.substr(15)});
  if (seg == "special tokens hidden") return Tr(Str::kTitleSpecialHidden);
  if (seg == "rollout") return Tr(Str::kTitleRollout);
  if (seg == "value-weighted") return Tr(Str::kTitleValueWeighted);
  if (EndsWith(seg, " tokens per cell")) return Trf(Str::kTitleTokensPerCell, {seg.substr(0, seg.size() - 16)});
  for (const auto& [prefix, str] : {std::pair<std::string, Str>{"max-pooled ", Str::kTitleMaxPooled},
                                    {"mean-pooled ", Str::kTitleMeanPooled}})  // PooledTitle: "max-pooled 8x8"
    if (seg.rfind(prefix, 0) == 0) {
      const std::string sides = seg.substr(prefix.size());
      return Trf(str, {sides.substr(0, sides.find('x'))});
    }
  if (EndsWith(seg, " on every layer"))
    return Trf(Str::kTitleOnEveryLayer, {LocalizedWhatIfs(seg.substr(0, seg.size() - 15))});
  if (const size_t on = seg.find(" on layers "); on != std::string::npos)
    return Trf(Str::kTitleOnLayers, {LocalizedWhatIfs(seg.substr(0, on)), seg.substr(on + 11)});
  if (const size_t on = seg.find(" on layer "); on != std::string::npos)
    return Trf(Str::kTitleOnLayer, {LocalizedWhatIfs(seg.substr(0, on)), seg.substr(on + 10)});
  if (seg.rfind("queries ", 0) == 0) {
    const size_t keys = seg.find(", keys ");
    if (keys != std::string::npos) return Trf(Str::kTitleQueriesKeys, {seg.substr(8, keys - 8), seg.substr(keys + 7)});
  }
  return seg;
}

}  // namespace

const char* FeatureSourceLabel(FeatureSource source) {
  static const Str kLabels[] = {Str::kFeatureEmbedding, Str::kFeatureLength, Str::kFeaturePosition,
                                Str::kFeatureOneHot};
  return Tr(kLabels[(int)source]);
}

std::string Localized(const Status& status) { return Localized(status, CurrentLang()); }

std::string Localized(const Status& status, Lang lang) {
  if (status.ok()) return "";
  if (lang == Lang::kEn || status.parts().empty()) return status.message();
  std::string out;
  for (const MessagePart& part : status.parts()) {
    const char* pattern = MessageTemplate(part.id, lang);
    if (!pattern) return status.message();  // the fallback rule: all English rather than half
    out += FillTemplate(pattern, MessageArgs(part, lang));
  }
  return out;
}

std::string LocalizedTitle(const std::string& title) {
  if (CurrentLang() == Lang::kEn) return title;
  const std::string dot = kDot;
  std::string out;
  size_t begin = 0;
  while (true) {
    const size_t end = title.find(dot, begin);
    out += LocalizedSegment(title.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) return out;
    out += dot;
    begin = end + dot.size();
  }
}

std::string LocalizedDescribe(const AttentionConfig& config) { return LocalizedTitle(Describe(config)); }

namespace {
std::string Shortest(double v) {  // "%g", as ModelConfig::Describe prints its numbers
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}
}  // namespace

std::string LocalizedModelDescribe(const model::ModelConfig& c) {
  using std::to_string;
  std::string s = Trf(Str::kModelDescribeLayers, {c.model_type, to_string(c.n_layer), to_string(c.n_head), to_string(c.d_head)});
  if (c.n_kv_head != c.n_head) s += Trf(Str::kModelDescribeKvHeads, {to_string(c.n_kv_head)});
  s += Trf(Str::kModelDescribeSizes, {to_string(c.d_model), to_string(c.d_ff), to_string(c.vocab),
                                      to_string(c.max_positions),
                                      c.activation == model::Activation::kGeluTanh ? Tr(Str::kActivationTanhApprox)
                                                                                   : model::ActivationName(c.activation)});
  if (c.recipe.rope) {
    char theta[64];
    std::snprintf(theta, sizeof theta, ", rope theta %g", c.rope_theta);
    s += theta;
    if (c.rope_scaling.kind == model::RopeScaling::Kind::kLinear) s += Tr(Str::kModelDescribeLinear);
    if (c.rope_scaling.kind == model::RopeScaling::Kind::kLlama3) s += Tr(Str::kModelDescribeLlama3);
    if (!c.rope_scaling.freq_factors.empty()) s += Tr(Str::kModelDescribeFreqFactors);  // as ModelConfig::Describe
    if (c.layer_window.empty() && c.sliding_window) s += Trf(Str::kModelDescribeWindow, {to_string(c.sliding_window)});
    if (!c.layer_local_rope.empty()) s += Trf(Str::kModelDescribeLocalRope, {Shortest(c.rope_local_theta)});
  }
  // As ModelConfig::Describe: per-layer windows, q/k norms, the scale's divisor, the soft caps.
  std::string sliding;
  int window = 0;
  for (int l = 0; l < (int)c.layer_window.size(); ++l)
    if (c.layer_window[(size_t)l] > 0)
      sliding += (sliding.empty() ? "" : ", ") + to_string(l), window = std::max(window, c.layer_window[(size_t)l]);
  if (!sliding.empty()) s += Trf(Str::kModelDescribeLayerWindow, {to_string(window), sliding});
  if (c.recipe.qk_norm == model::BlockRecipe::QkNorm::kPerHead) s += Tr(Str::kModelDescribeQkNormHead);
  if (c.recipe.qk_norm == model::BlockRecipe::QkNorm::kWhole) s += Tr(Str::kModelDescribeQkNormWhole);
  if (c.query_pre_attn_scalar > 0) s += Trf(Str::kModelDescribeScalar, {Shortest(c.query_pre_attn_scalar)});
  if (c.attn_softcap > 0 || c.final_softcap > 0)
    s += Trf(Str::kModelDescribeSoftcaps, {Shortest(c.attn_softcap), Shortest(c.final_softcap)});
  return s;
}

std::string LocalizedTokenizerDescribe(const std::string& described) {
  if (CurrentLang() == Lang::kEn) return described;
  std::string s = described;
  const std::pair<const char*, Str> kWords[] = {{"byte-level", Str::kTokByteLevel},     {"byte fallback", Str::kTokByteFallback},
                                                {"lowercase", Str::kTokLowercase},      {"cased", Str::kTokCased},
                                                {"pre ", Str::kTokPre}};
  for (const auto& [en, id] : kWords)
    for (size_t at = s.find(en); at != std::string::npos; at = s.find(en, at + 1)) s.replace(at, std::strlen(en), Tr(id));
  if (const size_t comma = s.rfind(", "); comma != std::string::npos && EndsWith(s, " tokens"))
    s = s.substr(0, comma) + ", " + Trf(Str::kTokCount, {s.substr(comma + 2, s.size() - comma - 2 - 7)});
  return s;
}

FigureWords LocalizedFigureWords() {
  FigureWords w;
  w.query = Tr(Str::kFigQuery);
  w.key = Tr(Str::kFigKey);
  w.weight = Tr(Str::kFigWeight);
  w.weight_log = Tr(Str::kFigWeightLog);
  w.masked = Tr(Str::kFigMasked);
  w.head = Trf(Str::kFigHead, {""});  // "head " / "헤드 ": the number follows
  return w;
}

SaturationWords LocalizedSaturationWords(ScoreKind score) {
  SaturationWords w;
  w.scaled = Tr(Str::kFigScaled);
  w.unscaled = Tr(Str::kFigUnscaled);
  // Only scaled-dot divides by sqrt(d_k) (AttentionConfig::logit_multiplier): any other score's two lines are one.
  if (score != ScoreKind::kScaledDot) w.undivided = Trf(Str::kFigUndivided, {ScoreFormula(score)});
  w.max_weight = Tr(Str::kFigMaxWeight);
  w.max_weight_axis = Tr(Str::kFigMaxWeightAxis);
  w.entropy = Tr(Str::kFigEntropy);
  w.entropy_axis = Tr(Str::kFigEntropyAxis);
  w.gradient = Tr(Str::kFigGradient);
  w.gradient_axis = Tr(Str::kFigGradientAxis);
  w.d_k_axis = Tr(Str::kFigDkLogAxis);
  return w;
}

}  // namespace attnviz
