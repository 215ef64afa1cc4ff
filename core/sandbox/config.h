// AttentionConfig: every knob of one attention layer, and its validation.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>

#include "attention/mask.h"
#include "base/status.h"
#include "base/title_words.h"  // ShortNumber, kTitleDot

namespace attnviz {

enum class AttentionMode { kSelf, kCross };
enum class QkvLayout { kFused, kSeparate };
// Seed (f): where queries, keys and values come from (core/sandbox/qkv_source.h), and the score function
// (core/sandbox/score.h). kEmbedding is the projected embeddings; the others are raw token features.
enum class FeatureSource { kEmbedding, kLength, kPosition, kOneHot };
enum class ScoreKind { kScaledDot, kDot, kAdditive, kCosine, kNegDistance };

struct AttentionConfig {
  int d_model = 64;           // embedding width, 1..4096
  int n_head = 4;             // heads, 1..64
  int d_k = 0;                // query/key width per head, 1..4096; 0 = d_model / n_head
  int d_v = 0;                // value width per head, 1..4096; 0 = d_k
  bool scale = true;          // divide logits by sqrt(d_k)
  float temperature = 1.0f;   // logits divided by it; kMinTemperature..kMaxTemperature
  MaskKind mask = MaskKind::kNone;
  AttentionMode mode = AttentionMode::kSelf;
  uint64_t seed = 0;          // embeddings and weight init
  bool positional = true;     // add sinusoidal positions to the embeddings
  QkvLayout qkv = QkvLayout::kFused;
  // Seed (f): where q, k and v come from, and the score (qkv_source.h, score.h).
  FeatureSource query_from = FeatureSource::kEmbedding;
  FeatureSource key_from = FeatureSource::kEmbedding;
  FeatureSource value_from = FeatureSource::kEmbedding;
  ScoreKind score = ScoreKind::kScaledDot;
  // Seed (d), as today's models answer it: keep the logits in range without (or beside) 1/sqrt(d_k).
  bool qk_norm = false;       // RMS-norm every head's q and k rows over d_k before the score (Qwen3, OLMo 2, Gemma 3)
  float softcap = 0.0f;       // logits soft-capped to softcap * tanh(l / softcap) (Gemma 2); 0 = off, else 0..kMaxSoftcap

  // d_k and d_v after defaults are applied.
  int head_dim_k() const { return d_k > 0 ? d_k : (d_model / n_head > 0 ? d_model / n_head : 1); }
  int head_dim_v() const { return d_v > 0 ? d_v : head_dim_k(); }
  // The multiplier applied to a score: (scale ? 1/sqrt(d_qk) : 1) / temperature for the scaled-dot
  // score, 1 / temperature for every other score. d_qk is the query/key width: head_dim_k() for the
  // projected embeddings, a raw feature's own width otherwise (the pipeline publishes the one it used).
  float logit_multiplier() const { return logit_multiplier(head_dim_k()); }
  float logit_multiplier(int d_qk) const;
  // d_k and d_v written out (0 replaced by the default they stand for).
  AttentionConfig resolved() const;
};

constexpr int kMaxDModel = 4096;
constexpr int kMaxHeads = 64;
constexpr int kMaxHeadDim = 4096;
constexpr float kMinTemperature = 1e-6f;
constexpr float kMaxTemperature = 1e6f;
constexpr float kMaxSoftcap = 1e4f;
constexpr float kDefaultSoftcap = 5.0f;  // what the soft cap's switch starts at: low enough to bite at d_k 4096
constexpr float kQkNormEps = 1e-6f;  // the RMSNorm's eps (Qwen3's rms_norm_eps)
// Largest projection matrix allowed (floats): d_model * n_head * (2*d_k + d_v).
constexpr long long kMaxProjectionFloats = 1LL << 28;

// ---- The one list of AttentionConfig's fields --------------------------------------------------
// Equality, the app's settings file, every JSON that records a config and the pipeline's dirty
// rules all read ConfigFields(); none lists the fields again. config.cpp fails to compile when a
// field is added to the struct and not here.

// What a change of a field invalidates (the sandbox pipeline maps these to its stages).
enum ConfigEffect : unsigned {
  kAffectsEmbedding = 1,   // x and xq
  kAffectsParams = 2,      // the random projection params are redrawn
  kAffectsMultiplier = 4,  // the logit multiplier (probs from the kept scores)
  kAffectsMask = 8,        // the mask (probs from the kept scores)
  kAffectsScores = 16,     // the score function (scores from q and k)
  kAffectsQk = 32,         // q and k from the kept params (the q/k norm)
};

template <typename T>
struct ConfigField {
  const char* name;             // settings key and JSON key
  T AttentionConfig::*member;
  unsigned effects;             // ConfigEffect bits
  double lo = 0, hi = 0;        // allowed range of a number (the settings file checks it on load)
};

inline const auto& ConfigFields() {
  static const auto fields = std::make_tuple(
      ConfigField<int>{"d_model", &AttentionConfig::d_model, kAffectsEmbedding | kAffectsParams, 1, kMaxDModel},
      ConfigField<int>{"n_head", &AttentionConfig::n_head, kAffectsParams, 1, kMaxHeads},
      ConfigField<int>{"d_k", &AttentionConfig::d_k, kAffectsParams, 0, kMaxHeadDim},
      ConfigField<int>{"d_v", &AttentionConfig::d_v, kAffectsParams, 0, kMaxHeadDim},
      ConfigField<bool>{"scale", &AttentionConfig::scale, kAffectsMultiplier},
      ConfigField<float>{"temperature", &AttentionConfig::temperature, kAffectsMultiplier, kMinTemperature,
                         kMaxTemperature},
      ConfigField<MaskKind>{"mask", &AttentionConfig::mask, kAffectsMask},
      ConfigField<AttentionMode>{"mode", &AttentionConfig::mode, kAffectsEmbedding},
      ConfigField<uint64_t>{"seed", &AttentionConfig::seed, kAffectsEmbedding | kAffectsParams, 0,
                            (double)std::numeric_limits<uint64_t>::max()},
      ConfigField<bool>{"positional", &AttentionConfig::positional, kAffectsEmbedding},
      ConfigField<QkvLayout>{"qkv", &AttentionConfig::qkv, kAffectsParams},
      ConfigField<FeatureSource>{"query_from", &AttentionConfig::query_from, kAffectsParams},
      ConfigField<FeatureSource>{"key_from", &AttentionConfig::key_from, kAffectsParams},
      ConfigField<FeatureSource>{"value_from", &AttentionConfig::value_from, kAffectsParams},
      ConfigField<ScoreKind>{"score", &AttentionConfig::score, kAffectsScores},
      ConfigField<bool>{"qk_norm", &AttentionConfig::qk_norm, kAffectsQk},
      ConfigField<float>{"softcap", &AttentionConfig::softcap, kAffectsMultiplier, 0, kMaxSoftcap});
  return fields;
}
// Calls f(field) for every ConfigField<T>, in the struct's order.
template <typename F>
void ForEachConfigField(F&& f) {
  std::apply([&](const auto&... field) { (f(field), ...); }, ConfigFields());
}

bool operator==(const AttentionConfig& a, const AttentionConfig& b);
inline bool operator!=(const AttentionConfig& a, const AttentionConfig& b) { return !(a == b); }
// The ConfigEffect bits of every field that differs between the two resolved configs.
unsigned ChangedEffects(const AttentionConfig& before, const AttentionConfig& after);
// {"d_model": 64, ..., "qkv": "fused"} with d_k and d_v resolved.
std::string ConfigJson(const AttentionConfig& config);
// `key = value` lines for the settings file, one per field.
std::string ConfigSettingsLines(const AttentionConfig& config);
// Sets the field named `key` from its settings text, range-checked. Returns false (and leaves
// *error alone) when no field has that name.
bool SetConfigField(const std::string& key, const std::string& text, AttentionConfig* config, Status* error);

// Names the field, the value and the allowed range, e.g.
// "n_head = 0 is out of range: allowed 1..64".
Status Validate(const AttentionConfig& config);

const char* ToString(MaskKind mask);
const char* ToString(AttentionMode mode);
const char* ToString(QkvLayout layout);
const char* ToString(FeatureSource source);  // embedding, length, position, onehot
const char* ToString(ScoreKind score);       // scaled-dot, dot, additive, cosine, neg-distance
Result<MaskKind> ParseMask(const std::string& text);
Result<QkvLayout> ParseQkvLayout(const std::string& text);
Result<AttentionMode> ParseMode(const std::string& text);
Result<FeatureSource> ParseFeatureSource(const std::string& text);
Result<ScoreKind> ParseScoreKind(const std::string& text);
// Every value, in order (combos and help texts).
constexpr FeatureSource kFeatureSources[] = {FeatureSource::kEmbedding, FeatureSource::kLength,
                                             FeatureSource::kPosition, FeatureSource::kOneHot};
constexpr ScoreKind kScoreKinds[] = {ScoreKind::kScaledDot, ScoreKind::kDot, ScoreKind::kAdditive,
                                     ScoreKind::kCosine, ScoreKind::kNegDistance};

// Short human description, e.g. "d_k=512 · unscaled · T=1"; sources, score, q/k norm and cap only when not the
// default: "d_k=1 · T=1 · q from length · k from length · score −|q − k|", "d_k=4096 · unscaled · T=1 · q/k norm · cap 5". d_k is the width q and k really have
// (1 for length and position); "scaled"/"unscaled" only under scaled-dot, the one score divided by √d_k; the
// score by its formula (ScoreFormula), as every language writes it.
// The width q and k share as the run has it: d_k when both are projected, 1 from length or position, 0 from one-hot
// (n_vocab wide, which the config does not know); as text, "n_vocab" for that 0.
int QueryKeyWidth(const AttentionConfig& config);
std::string QueryKeyWidthText(const AttentionConfig& config);
std::string Describe(const AttentionConfig& config);

}  // namespace attnviz
