#include "model/gguf_config.h"

#include "model/arch/family.h"
#include "model/gguf_quant.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attnviz::model {
namespace {

// The limits of config.cpp (far above any real model; every product of sizes stays far from overflow).
constexpr int kMaxLayers = 1024, kMaxHeads = 1024, kMaxWidth = 1 << 17, kMaxVocab = 1 << 24, kMaxPositions = 1 << 24;

// The shortest form that reads back as `v`, so a refused value never prints as equal to its bound (1000000.5 is
// not "1e+06").
std::string Num(double v) {
  char b[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(b, sizeof b, "%.*g", precision, v);
    if (std::strtod(b, nullptr) == v) break;
  }
  return b;
}

}  // namespace

Status GgufKeys::Int(const std::string& key, int lo, int hi, int* out, const int* fallback) const {
  const GgufValue* v = f_.Find(key);
  if (!v) {
    if (fallback) {
      *out = *fallback;
      return Status::Ok();
    }
    return Status::ErrorAt(f_.path(), MsgId::kGgufMissingKey, {key});
  }
  if (!v->is_integer())
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyType, {key, GgufValueTypeName(v->type), "an integer"});
  const bool negative = v->type == GgufValueType::kI8 || v->type == GgufValueType::kI16 ||
                        v->type == GgufValueType::kI32 || v->type == GgufValueType::kI64;
  const std::string shown = negative ? std::to_string(v->i) : std::to_string(v->u);
  if ((negative && (v->i < lo || v->i > hi)) || (!negative && v->u > (uint64_t)hi) || (!negative && (int64_t)v->u < lo))
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyRange, {key, shown, std::to_string(lo), std::to_string(hi)});
  *out = negative ? (int)v->i : (int)v->u;
  return Status::Ok();
}

Status GgufKeys::Double(const std::string& key, double lo, double hi, double fallback, double* out) const {
  const GgufValue* v = f_.Find(key);
  if (!v) {
    *out = fallback;
    return Status::Ok();
  }
  if (!v->is_number())
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyType, {key, GgufValueTypeName(v->type), "a number"});
  const double x = v->number();
  if (!std::isfinite(x) || x < lo || x > hi)
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyRange, {key, Num(x), Num(lo), Num(hi)});
  *out = x;
  return Status::Ok();
}

Status GgufKeys::String(const std::string& key, std::string* out) const {
  const GgufValue* v = f_.Find(key);
  if (!v) {
    out->clear();
    return Status::Ok();
  }
  if (v->type != GgufValueType::kString)
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyType, {key, GgufValueTypeName(v->type), "string"});
  *out = v->s;
  return Status::Ok();
}

Status GgufKeys::Bool(const std::string& key, bool fallback, bool* out) const {
  const GgufValue* v = f_.Find(key);
  if (!v) {
    *out = fallback;
    return Status::Ok();
  }
  if (v->type != GgufValueType::kBool)
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyType, {key, GgufValueTypeName(v->type), "a bool"});
  *out = v->u != 0;
  return Status::Ok();
}

Status ReadRopeFactors(const GgufFile& f, const std::string& name, int n, std::vector<double>* out) {
  out->clear();
  const GgufTensor* t = f.FindTensor(name);
  if (!t) return Status::Ok();
  const std::vector<int64_t> want = {n};
  if (t->ne != want)
    return Status::Error(MsgId::kGgufTensorShape, {t->name, f.path(), NeString(t->ne), NeString(want)});
  std::vector<float> v((size_t)n);
  if (Status s = DequantizeTensorRows(f, *t, 0, 1, v.data()); !s) return s;
  for (size_t j = 0; j < v.size(); ++j)
    if (!std::isfinite(v[j]) || v[j] <= 0)
      return Status::ErrorAt(f.path(), MsgId::kGgufRopeFreqs, {Num(v[j]), std::to_string(j), name});
  out->assign(v.begin(), v.end());
  return Status::Ok();
}

namespace {

#define GGUF_TRY(expr)                      \
  do {                                      \
    if (Status s_ = (expr); !s_) return s_; \
  } while (0)

// rope_freqs.weight [d_head / 2]: llama.cpp's per-frequency divisors (how convert_hf_to_gguf.py stores llama3
// scaling).
Status ReadRopeFreqs(const GgufFile& f, int d_head, RopeScaling* r) {
  return ReadRopeFactors(f, "rope_freqs.weight", d_head / 2, &r->freq_factors);
}

Status ReadRopeScaling(const GgufFile& f, const GgufKeys& k, const std::string& a, RopeScaling* r) {
  std::string type;
  GGUF_TRY(k.String(a + ".rope.scaling.type", &type));
  if (type == "none") return Status::Ok();
  if (!type.empty() && type != "linear")
    return Status::ErrorAt(f.path(), MsgId::kGgufRopeScaling, {a + ".rope.scaling.type", CappedValue(type)});
  // As llama.cpp reads it: rope.scaling.factor when present, else the older rope.scale_linear; 0 means "not set"
  // (a factor of 1), so 0 is in range and only then compared.
  const std::string key = f.Find(a + ".rope.scaling.factor") ? a + ".rope.scaling.factor" : a + ".rope.scale_linear";
  double factor = 0;
  GGUF_TRY(k.Double(key, 0, 1e6, 0, &factor));
  if (factor != 0 && factor < 1e-6)
    return Status::ErrorAt(f.path(), MsgId::kGgufKeyRange, {key, Num(factor), "1e-06 (or 0: not set)", "1e+06"});
  if (factor != 0 && factor != 1) r->kind = RopeScaling::Kind::kLinear, r->factor = factor;
  return Status::Ok();
}

}  // namespace

Result<ModelConfig> GgufModelConfig(const GgufFile& f) {
  const GgufKeys k(f);
  ModelConfig c;
  GGUF_TRY(k.String("general.architecture", &c.model_type));
  if (c.model_type.empty()) return Status::ErrorAt(f.path(), MsgId::kGgufMissingKey, {"general.architecture"});
  const Family* family = FamilyFor(c.model_type, /*gguf=*/true);
  if (!family)
    return Status::ErrorAt(f.path(), MsgId::kGgufArch, {CappedValue(c.model_type), SupportedModelTypes(/*gguf=*/true)});
  const std::string& a = c.model_type;
  c.family = family->name;
  c.recipe = family->recipe;
  c.activation = Activation::kSilu;
  GGUF_TRY(k.Int(a + ".block_count", 1, kMaxLayers, &c.n_layer));
  GGUF_TRY(k.Int(a + ".embedding_length", 1, kMaxWidth, &c.d_model));
  GGUF_TRY(k.Int(a + ".feed_forward_length", 1, 16 * kMaxWidth, &c.d_ff));
  GGUF_TRY(k.Int(a + ".context_length", 1, kMaxPositions, &c.max_positions));
  GGUF_TRY(k.Int(a + ".attention.head_count", 1, kMaxHeads, &c.n_head));
  GGUF_TRY(k.IntOr(a + ".attention.head_count_kv", 1, c.n_head, c.n_head, &c.n_kv_head));
  if (c.n_head % c.n_kv_head != 0)
    return Status::ErrorAt(f.path(), MsgId::kConfigNotMultiple,
                           {a + ".attention.head_count", std::to_string(c.n_head), a + ".attention.head_count_kv",
                            std::to_string(c.n_kv_head)});
  if (c.d_model % c.n_head != 0 && !f.Find(a + ".attention.key_length"))
    return Status::ErrorAt(f.path(), MsgId::kGgufMissingKey, {a + ".attention.key_length"});
  GGUF_TRY(k.IntOr(a + ".attention.key_length", 1, kMaxWidth, c.d_model / c.n_head, &c.d_head));
  int value_length = 0, rope_dims = 0;
  GGUF_TRY(k.IntOr(a + ".attention.value_length", 1, kMaxWidth, c.d_head, &value_length));
  if (value_length != c.d_head)
    return Status::ErrorAt(f.path(), MsgId::kGgufKeysDiffer, {a + ".attention.value_length", std::to_string(value_length),
                                                               a + ".attention.key_length", std::to_string(c.d_head)});
  const GgufArchitecture& arch = *GgufArchitectureFor(a);
  GGUF_TRY(k.IntOr(a + ".rope.dimension_count", 1, kMaxWidth, c.d_head, &rope_dims));
  // Partial rotary (gptneox, phi3): the first rope_dims of each head turn, an even count of at least 2.
  if (arch.partial_rotary && rope_dims < c.d_head && rope_dims >= 2 && rope_dims % 2 == 0) c.rotary_dim = rope_dims;
  else if (rope_dims != c.d_head)
    return Status::ErrorAt(f.path(), MsgId::kGgufKeysDiffer, {a + ".rope.dimension_count", std::to_string(rope_dims),
                                                               "the head width", std::to_string(c.d_head)});
  if (c.d_head % 2 != 0) return Status::ErrorAt(f.path(), MsgId::kConfigHeadDimOdd, {std::to_string(c.d_head)});
  if ((int64_t)c.n_head * c.d_head > kMaxWidth)
    return Status::ErrorAt(f.path(), MsgId::kConfigHeadsTooWide,
                           {std::to_string((int64_t)c.n_head * c.d_head), std::to_string(kMaxWidth)});
  GGUF_TRY(k.Double(a + ".rope.freq_base", 1e-6, 1e12, 10000.0, &c.rope_theta));
  GGUF_TRY(k.Double(a + ".attention.layer_norm_rms_epsilon", 0, 1, 1e-5, &c.norm_eps));
  GGUF_TRY(ReadRopeScaling(f, k, a, &c.rope_scaling));
  GGUF_TRY(ReadRopeFreqs(f, c.d_head, &c.rope_scaling));
  // The vocabulary: the key, else the rows of the embedding (the binder checks the tensor against it).
  const GgufTensor* emb = f.FindTensor("token_embd.weight");
  if (emb && emb->ne.size() != 2)  // there, but not [vocab, d_model]: its shape is the error, not its absence
    return Status::Error(MsgId::kGgufTensorShape,
                         {emb->name, f.path(), NeString(emb->ne), NeString({(int64_t)c.d_model, (int64_t)(emb->rows())})});
  const int emb_rows = emb && emb->ne.size() == 2 && emb->ne[1] <= kMaxVocab ? (int)emb->ne[1] : 0;
  if (emb_rows == 0 && !f.Find(a + ".vocab_size"))
    return Status::ErrorAt(f.path(), MsgId::kGgufTensorMissing, {"token_embd.weight", f.path()});
  GGUF_TRY(k.IntOr(a + ".vocab_size", 1, kMaxVocab, emb_rows, &c.vocab));
  if (arch.reads_sliding_window)
    GGUF_TRY(k.IntOr(a + ".attention.sliding_window", 0, kMaxPositions, 0, &c.sliding_window));
  // What the tensors say.
  c.qkv_bias = arch.qkv_bias || f.FindTensor("blk.0.attn_q.bias") || f.FindTensor("blk.0.attn_qkv.bias");
  c.o_bias = f.FindTensor("blk.0.attn_output.bias") != nullptr;
  c.mlp_bias = f.FindTensor("blk.0.ffn_up.bias") != nullptr;
  c.tie_word_embeddings = f.FindTensor("output.weight") == nullptr;
  // The architecture's own keys (and what it refuses), last: they may change what the common ones set.
  if (arch.read_keys) GGUF_TRY(arch.read_keys(f, k, &c));
  return c;
}

}  // namespace attnviz::model
