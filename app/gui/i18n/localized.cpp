// The engine's words in the current language: messages part by part, titles segment by segment.
#include "localized.h"

#include <vector>

namespace attnviz {

namespace {

const char* kDot = " \u00B7 ";

// The UI's name of a feature source given as its option value ("length" -> "word length" / "단어 길이").
std::string FeatureLabel(const std::string& option_value) {
  static const Str kLabels[] = {Str::kFeatureEmbedding, Str::kFeatureLength, Str::kFeaturePosition,
                                Str::kFeatureOneHot};
  for (FeatureSource s : kFeatureSources)
    if (option_value == ToString(s)) return Tr(kLabels[(int)s]);
  return option_value;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
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
  if (seg.rfind("score ", 0) == 0) return Trf(Str::kTitleScore, {seg.substr(6)});
  if (seg.rfind("queries ", 0) == 0) {
    const size_t keys = seg.find(", keys ");
    if (keys != std::string::npos) return Trf(Str::kTitleQueriesKeys, {seg.substr(8, keys - 8), seg.substr(keys + 7)});
  }
  return seg;
}

}  // namespace

std::string Localized(const Status& status) {
  if (status.ok()) return "";
  const Lang lang = CurrentLang();
  if (lang == Lang::kEn || status.parts().empty()) return status.message();
  std::string out;
  for (const MessagePart& part : status.parts()) {
    const char* pattern = MessageTemplate(part.id, lang);
    if (!pattern) return status.message();  // the fallback rule: all English rather than half
    out += FillTemplate(pattern, part.args);
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

}  // namespace attnviz
