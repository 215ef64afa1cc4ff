#include "sandbox/config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>
#include <utility>

#include "io/json.h"
#include "base/parse_number.h"
#include "sandbox/score.h"  // ScoreFormula: Describe names the score by it

namespace attnviz {
namespace {

Status OutOfRange(const char* field, long long value, long long lo, long long hi) {
  return Status::Error(MsgId::kOutOfRange,
                       {field, std::to_string(value), std::to_string(lo), std::to_string(hi)});
}

// How many fields an aggregate has: the largest N for which T{a1, ..., aN} compiles.
struct AnyValue {
  template <typename T>
  operator T() const;  // never defined: used in unevaluated contexts only
};
template <size_t>
using AnyAt = AnyValue;
template <typename T, size_t... I>
constexpr auto BraceConstructible(std::index_sequence<I...>, int) -> decltype(T{AnyAt<I>{}...}, true) {
  return true;
}
template <typename T, size_t... I>
constexpr bool BraceConstructible(std::index_sequence<I...>, long) {
  return false;
}
template <typename T, size_t N = 0>
constexpr size_t AggregateFieldCount() {
  if constexpr (BraceConstructible<T>(std::make_index_sequence<N + 1>{}, 0)) return AggregateFieldCount<T, N + 1>();
  else return N;
}
static_assert(AggregateFieldCount<AttentionConfig>() ==
                  std::tuple_size<std::decay_t<decltype(ConfigFields())>>::value,
              "AttentionConfig has a field that ConfigFields() (config.h) does not list");

// Each field type as settings text and JSON, and back.
std::string SettingsText(int v) { return std::to_string(v); }
std::string SettingsText(uint64_t v) { return std::to_string(v); }
std::string SettingsText(bool v) { return v ? "true" : "false"; }
std::string SettingsText(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", (double)v);
  return buf;
}
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
std::string SettingsText(E v) {
  return ToString(v);
}
std::string JsonText(int v) { return std::to_string(v); }
std::string JsonText(uint64_t v) { return std::to_string(v); }
std::string JsonText(bool v) { return v ? "true" : "false"; }
std::string JsonText(float v) { return JsonNumber(v); }
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
std::string JsonText(E v) {
  return JsonString(ToString(v));
}

Status FromText(const std::string& t, const ConfigField<int>& f, int* out) {
  Result<long long> v = ParseInteger(t, (long long)f.lo, (long long)f.hi);
  if (!v) return v.status();
  *out = (int)*v;
  return Status::Ok();
}
Status FromText(const std::string& t, const ConfigField<uint64_t>&, uint64_t* out) {
  Result<uint64_t> v = ParseUnsigned64(t);
  if (!v) return v.status();
  *out = *v;
  return Status::Ok();
}
Status FromText(const std::string& t, const ConfigField<float>& f, float* out) {
  Result<double> v = ParseReal(t, f.lo, f.hi);
  if (!v) return v.status();
  *out = (float)*v;
  return Status::Ok();
}
Status FromText(const std::string& t, const ConfigField<bool>&, bool* out) {
  if (t == "true" || t == "1") *out = true;
  else if (t == "false" || t == "0") *out = false;
  else return Status::Error("'" + t + "' is not true/false");
  return Status::Ok();
}
template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
Status FromText(const std::string& t, const ConfigField<E>&, E* out) {
  Result<E> v = Status::Error("");
  if constexpr (std::is_same_v<E, MaskKind>) v = ParseMask(t);
  else if constexpr (std::is_same_v<E, AttentionMode>) v = ParseMode(t);
  else if constexpr (std::is_same_v<E, FeatureSource>) v = ParseFeatureSource(t);
  else if constexpr (std::is_same_v<E, ScoreKind>) v = ParseScoreKind(t);
  else v = ParseQkvLayout(t);
  if (!v) return v.status();
  *out = *v;
  return Status::Ok();
}

}  // namespace

AttentionConfig AttentionConfig::resolved() const {
  AttentionConfig r = *this;
  r.d_k = head_dim_k();
  r.d_v = head_dim_v();
  return r;
}

bool operator==(const AttentionConfig& a, const AttentionConfig& b) {
  bool same = true;
  ForEachConfigField([&](const auto& f) { same = same && a.*f.member == b.*f.member; });
  return same;
}

unsigned ChangedEffects(const AttentionConfig& before, const AttentionConfig& after) {
  const AttentionConfig a = before.resolved(), b = after.resolved();
  unsigned effects = 0;
  ForEachConfigField([&](const auto& f) {
    if (!(a.*f.member == b.*f.member)) effects |= f.effects;
  });
  return effects;
}

std::string ConfigJson(const AttentionConfig& config) {
  const AttentionConfig c = config.resolved();
  std::string out;
  ForEachConfigField([&](const auto& f) {
    out += (out.empty() ? "{" : ", ") + JsonString(f.name) + ": " + JsonText(c.*f.member);
  });
  return out + "}";
}

std::string ConfigSettingsLines(const AttentionConfig& c) {
  std::string out;
  ForEachConfigField([&](const auto& f) { out += std::string(f.name) + " = " + SettingsText(c.*f.member) + "\n"; });
  return out;
}

bool SetConfigField(const std::string& key, const std::string& text, AttentionConfig* config, Status* error) {
  bool found = false;
  ForEachConfigField([&](const auto& f) {
    if (found || key != f.name) return;
    found = true;
    auto value = config->*f.member;
    Status st = FromText(text, f, &value);
    if (st.ok()) config->*f.member = value;
    else *error = st;
  });
  return found;
}

float AttentionConfig::logit_multiplier(int d_qk) const {
  const double m = scale && score == ScoreKind::kScaledDot ? 1.0 / std::sqrt((double)std::max(1, d_qk)) : 1.0;
  return (float)(m / temperature);
}

Status Validate(const AttentionConfig& c) {
  if (c.d_model < 1 || c.d_model > kMaxDModel) return OutOfRange("d_model", c.d_model, 1, kMaxDModel);
  if (c.n_head < 1 || c.n_head > kMaxHeads) return OutOfRange("n_head", c.n_head, 1, kMaxHeads);
  if (c.d_k < 0 || c.d_k > kMaxHeadDim) {
    return OutOfRange("d_k", c.d_k, 1, kMaxHeadDim);
  }
  if (c.d_v < 0 || c.d_v > kMaxHeadDim) return OutOfRange("d_v", c.d_v, 1, kMaxHeadDim);
  if (!(c.temperature >= kMinTemperature && c.temperature <= kMaxTemperature)) {
    return Status::Error(MsgId::kTemperatureRange,
                         {ShortNumber(c.temperature), ShortNumber(kMinTemperature), ShortNumber(kMaxTemperature)});
  }
  if (!(c.softcap >= 0 && c.softcap <= kMaxSoftcap)) {
    return Status::Error(MsgId::kSoftcapRange, {ShortNumber(c.softcap), ShortNumber(kMaxSoftcap)});
  }
  if (c.mask == MaskKind::kCausal && c.mode == AttentionMode::kCross) {
    return Status::Error(MsgId::kCausalNeedsSelf, {});
  }
  long long per_head = 2LL * c.head_dim_k() + c.head_dim_v();
  long long floats = (long long)c.d_model * c.n_head * per_head;
  if (floats > kMaxProjectionFloats) {
    return Status::Error(MsgId::kProjectionTooLarge, {std::to_string(floats), std::to_string(kMaxProjectionFloats)});
  }
  return Status::Ok();
}

const char* ToString(MaskKind mask) { return mask == MaskKind::kCausal ? "causal" : "none"; }
const char* ToString(AttentionMode mode) { return mode == AttentionMode::kCross ? "cross" : "self"; }
const char* ToString(QkvLayout layout) { return layout == QkvLayout::kFused ? "fused" : "separate"; }

Result<MaskKind> ParseMask(const std::string& text) {
  if (text == "none") return MaskKind::kNone;
  if (text == "causal") return MaskKind::kCausal;
  return Status::Error(MsgId::kUnknownName, {"mask", CappedValue(text), "none, causal"});
}

Result<AttentionMode> ParseMode(const std::string& text) {
  if (text == "self") return AttentionMode::kSelf;
  if (text == "cross") return AttentionMode::kCross;
  return Status::Error(MsgId::kUnknownName, {"mode", CappedValue(text), "self, cross"});
}

// The names in the enums' order (the CLI's option values, the settings file and the JSON).
const char* ToString(FeatureSource source) {
  static const char* const kNames[] = {"embedding", "length", "position", "onehot"};
  return kNames[(int)source];
}
const char* ToString(ScoreKind score) {
  static const char* const kNames[] = {"scaled-dot", "dot", "additive", "cosine", "neg-distance"};
  return kNames[(int)score];
}

namespace {
// The value of `all` whose ToString is `text`, or an error listing the allowed names.
template <typename E, size_t N>
Result<E> ParseNamed(const char* what, const std::string& text, const E (&all)[N]) {
  std::string allowed;
  for (E e : all) {
    if (text == ToString(e)) return e;
    allowed += (allowed.empty() ? "" : ", ") + std::string(ToString(e));
  }
  return Status::Error(MsgId::kUnknownName, {what, CappedValue(text), allowed});
}
}  // namespace

Result<FeatureSource> ParseFeatureSource(const std::string& text) {
  return ParseNamed("feature source", text, kFeatureSources);
}
Result<ScoreKind> ParseScoreKind(const std::string& text) { return ParseNamed("score", text, kScoreKinds); }

Result<QkvLayout> ParseQkvLayout(const std::string& text) {
  if (text == "fused") return QkvLayout::kFused;
  if (text == "separate") return QkvLayout::kSeparate;
  return Status::Error(MsgId::kUnknownName, {"qkv layout", CappedValue(text), "fused, separate"});
}

// The width q and k share, as the run has it: the configured d_k when both are projected, else the raw
// feature's (length and position are one number; onehot is n_vocab wide, which the config does not know).
// A q and k of different widths are refused (qkv_source.h), so the raw side names the width.
int QueryKeyWidth(const AttentionConfig& c) {
  const FeatureSource raw = c.query_from != FeatureSource::kEmbedding ? c.query_from : c.key_from;
  if (raw == FeatureSource::kLength || raw == FeatureSource::kPosition) return 1;
  if (raw == FeatureSource::kOneHot) return 0;
  return c.head_dim_k();
}

std::string QueryKeyWidthText(const AttentionConfig& c) {
  const int width = QueryKeyWidth(c);
  return width > 0 ? std::to_string(width) : "n_vocab";
}

std::string Describe(const AttentionConfig& c) {
  // "scaled" / "unscaled" only where the switch acts: scaled-dot is the one score divided by sqrt(d_k)
  // (logit_multiplier); under the others the run has nothing to scale.
  std::string s = "d_k=" + QueryKeyWidthText(c);
  if (c.score == ScoreKind::kScaledDot) s += std::string(" · ") + (c.scale ? "scaled" : "unscaled");
  s += " · T=" + ShortNumber(c.temperature);
  const AttentionConfig defaults;
  const std::pair<const char*, FeatureSource> sources[] = {
      {"q", c.query_from}, {"k", c.key_from}, {"v", c.value_from}};
  for (const auto& [side, source] : sources)
    if (source != defaults.query_from) s += std::string(" · ") + side + " from " + ToString(source);
  // The score as the screen writes it (its formula, the same in every language), not its option name.
  if (c.score != defaults.score) s += std::string(" · score ") + ScoreFormula(c.score);
  if (c.qk_norm) s += " · q/k norm";
  if (c.softcap > 0) s += " · cap " + ShortNumber(c.softcap);
  return s;
}

}  // namespace attnviz
