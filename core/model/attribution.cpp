#include "model/attribution.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "base/finite.h"
#include "model/layers.h"
#include "model/predict.h"

namespace attnviz::model {
namespace {

using Doubles = std::vector<double>;

// Vocabulary rows of the head read at once when every logit of a row is needed (the top prediction).
constexpr int kHeadChunk = 1024;

bool IsRms(const ModelConfig& c) { return c.recipe.norm == BlockRecipe::Norm::kRms; }

// One row through a norm of the family's kind. row, out: [d_model] (out may be row).
bool NormRow(const ModelConfig& c, const float* row, const Norm& norm, float* out) {
  const float eps = (float)c.norm_eps;
  return IsRms(c) ? RmsNormForward(row, 1, c.d_model, norm, eps, out)
                  : LayerNormForward(row, 1, c.d_model, norm, eps, out);
}

// Predict's step 1 on one row: the final norm, or a masked LM's transform. row, out: [d_model].
bool FinalNormRow(const Model& model, const float* row, float* out) {
  const ModelConfig& c = model.config();
  const LmHead& head = model.params().lm_head;
  if (!c.recipe.masked_lm) return NormRow(c, row, model.params().final_norm, out);
  LinearForward(row, c.d_model, 1, head.transform, out, c.d_model);
  ActivateInPlace(c.activation, out, (size_t)c.d_model);
  return LayerNormForward(out, 1, c.d_model, head.transform_norm, (float)c.norm_eps, out);
}

// Rows [first, first + count) of the LM head into rows [count, d_model].
void HeadRows(const Model& model, int first, int count, std::vector<float>* rows) {
  const size_t d = (size_t)model.config().d_model;
  rows->resize((size_t)count * d);
  const float* w = model.params().lm_head.w;
  if (w) std::copy(w + (size_t)first * d, w + (size_t)(first + count) * d, rows->begin());
  else model.LmHeadRows(first, count, rows->data());
}

double HeadBias(const Model& model, int token) {
  const float* b = model.params().lm_head.b;
  return b ? (double)b[token] : 0.0;
}

double Capped(const ModelConfig& c, double logit) {
  return c.final_softcap > 0 ? c.final_softcap * std::tanh(logit / c.final_softcap) : logit;
}

double Dot(const float* a, const float* b, size_t d) {
  double s = 0;
  for (size_t j = 0; j < d; ++j) s += (double)a[j] * b[j];
  return s;
}

// Each part of the stream at one position, collected layer by layer as the run passes (a per-layer model's weights
// are bound only during OnLayer).
class PartsSink : public LayerSink {
 public:
  PartsSink(const Model& model, int position) : model_(model), c_(model.config()), pos_((size_t)position) {
    rows_.resize(((size_t)c_.n_layer + 1) * c_.d_model);
  }
  const float* Row(int layer) const { return rows_.data() + (size_t)layer * c_.d_model; }
  struct Part {
    ComponentKind kind;
    int layer, head;
    Doubles v;  // [d_model]
  };
  std::vector<Part> parts;

  Status OnEmbeddings(const float* hidden, int n, int d) override {
    std::copy(hidden + pos_ * d, hidden + (pos_ + 1) * d, rows_.begin());
    parts.push_back({ComponentKind::kEmbed, -1, -1, Doubles(hidden + pos_ * d, hidden + (pos_ + 1) * d)});
    return Status::Ok();
  }

  Status OnLayer(const LayerOutput& out) override {
    const size_t d = (size_t)c_.d_model, dh = (size_t)c_.d_head;
    const int l = out.layer;
    const BlockParams& b = *out.weights;
    std::copy(out.hidden + pos_ * d, out.hidden + (pos_ + 1) * d, rows_.begin() + (ptrdiff_t)((l + 1) * d));
    // 1. Each head's z at the position through its d_head rows of W_o (as stored: [q_dim, d] Conv1D or [d, q_dim]).
    const Linear& o = b.o;
    const size_t first = parts.size();
    for (int h = 0; h < c_.n_head; ++h) {
      const float* z = out.z.data + (size_t)h * out.z.head_stride + pos_ * out.z.row_stride;  // [d_head]
      parts.push_back({ComponentKind::kHead, l, h, HeadOutputPart(o, z, h, (int)dh, (int)d)});
    }
    if (o.b) parts.push_back({ComponentKind::kAttnBias, l, -1, Doubles(o.b, o.b + d)});
    // 2. Output norms: frozen at the whole attention output, each part normed linearly (a LayerNorm's bias joins
    //    the bias part).
    if (c_.recipe.output_norms) {
      Doubles y(d, 0.0);
      for (size_t p = first; p < parts.size(); ++p)
        for (size_t j = 0; j < d; ++j) y[j] += parts[p].v[j];
      const FrozenNorm frozen(IsRms(c_), c_.norm_eps, y, b.attn_out_norm);
      for (size_t p = first; p < parts.size(); ++p) frozen.Apply(&parts[p].v);
      if (b.attn_out_norm.b) {
        if (parts.back().kind != ComponentKind::kAttnBias) parts.push_back({ComponentKind::kAttnBias, l, -1, Doubles(d, 0.0)});
        for (size_t j = 0; j < d; ++j) parts.back().v[j] += b.attn_out_norm.b[j];
      }
    }
    // 3. The MLP again from its input: the block's input (parallel residual: normed), or that plus the attention's
    //    parts through the MLP's input norm (olmo2: none); its output norm whole.
    const float* x = Row(l);
    std::vector<float> in(d), ff((size_t)c_.d_ff), ff2((size_t)c_.d_ff), m(d);
    if (c_.recipe.parallel_residual) {
      if (!NormRow(c_, x, b.mlp_norm, in.data())) return Status::Error("attribution: the MLP input is not finite");
    } else {
      for (size_t j = 0; j < d; ++j) {
        double s = x[j];
        for (size_t p = first; p < parts.size(); ++p) s += parts[p].v[j];
        in[j] = (float)s;
      }
      if (!c_.recipe.output_norms || c_.recipe.input_norms)
        if (!NormRow(c_, in.data(), b.mlp_norm, in.data()))
          return Status::Error("attribution: the MLP input is not finite");
    }
    LinearForward(in.data(), (int)d, 1, b.up, ff.data(), c_.d_ff);
    if (b.gate.w) {
      LinearForward(in.data(), (int)d, 1, b.gate, ff2.data(), c_.d_ff);
      GatedTile(c_.activation, ff2.data(), ff.data(), 1, (size_t)c_.d_ff, (size_t)c_.d_ff);
      LinearForward(ff2.data(), c_.d_ff, 1, b.down, m.data(), (int)d);
    } else {
      ActivateInPlace(c_.activation, ff.data(), (size_t)c_.d_ff);
      LinearForward(ff.data(), c_.d_ff, 1, b.down, m.data(), (int)d);
    }
    if (c_.recipe.output_norms && !NormRow(c_, m.data(), b.mlp_out_norm, m.data()))
      return Status::Error("attribution: the MLP output is not finite");
    parts.push_back({ComponentKind::kMlp, l, -1, Doubles(m.begin(), m.end())});
    return Status::Ok();
  }

 private:
  const Model& model_;
  const ModelConfig& c_;
  size_t pos_;
  std::vector<float> rows_;  // [n_layer + 1, d_model]: hidden[l] at the position
};

}  // namespace

FrozenNorm::FrozenNorm(bool rms, double eps, const Doubles& full, const Norm& norm) : center(!rms), scale(full.size()) {
  const size_t d = full.size();
  double mean = 0, sq = 0;
  for (double v : full) mean += v;
  mean /= (double)d;
  for (double v : full) sq += center ? (v - mean) * (v - mean) : v * v;
  const double inv = 1.0 / std::sqrt(sq / (double)d + (double)(float)eps);  // eps as the float kernels add it
  for (size_t j = 0; j < d; ++j) scale[j] = (double)norm.w[j] * inv;
}

void FrozenNorm::Apply(Doubles* part) const {
  double mean = 0;
  if (center) {
    for (double v : *part) mean += v;
    mean /= (double)part->size();
  }
  for (size_t j = 0; j < part->size(); ++j) (*part)[j] = ((*part)[j] - mean) * scale[j];
}

Doubles HeadOutputPart(const Linear& o, const float* z, int head, int d_head, int d_model) {
  const size_t d = (size_t)d_model, dh = (size_t)d_head;
  Doubles v(d, 0.0);
  for (size_t t = 0; t < dh; ++t) {
    const size_t in = (size_t)head * dh + t;
    const double zt = z[t];
    if (o.in_out)
      for (size_t j = 0; j < d; ++j) v[j] += zt * o.w[in * (size_t)o.ld + j];
    else
      for (size_t j = 0; j < d; ++j) v[j] += zt * o.w[j * (size_t)o.ld + in];
  }
  return v;
}

const char* ComponentKindName(ComponentKind kind) {
  switch (kind) {
    case ComponentKind::kEmbed: return "embed";
    case ComponentKind::kHead: return "head";
    case ComponentKind::kAttnBias: return "attn_bias";
    case ComponentKind::kMlp: return "mlp";
    case ComponentKind::kNormBias: return "norm_bias";
  }
  return "";
}

Result<std::vector<double>> TokenLogitsAt(const Model& model, const float* row, const std::vector<int>& tokens) {
  const ModelConfig& c = model.config();
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  for (int t : tokens)
    if (t < 0 || t >= c.vocab)
      return Status::Error(MsgId::kOutOfRange, {"token id", std::to_string(t), "0", std::to_string(c.vocab - 1)});
  std::vector<float> normed((size_t)c.d_model), head;
  if (!FinalNormRow(model, row, normed.data())) return Status::Error("the final norm's output is not finite");
  std::vector<double> out;
  for (int t : tokens) {
    HeadRows(model, t, 1, &head);
    out.push_back(Capped(c, Dot(normed.data(), head.data(), (size_t)c.d_model) + HeadBias(model, t)));
  }
  return out;
}

Result<int> DefaultAttributionTarget(const Model& model, const float* row, const std::vector<int>& ids, int position) {
  const ModelConfig& c = model.config();
  if (position < 0 || position >= (int)ids.size())
    return Status::Error(MsgId::kPositionRange, {"position", std::to_string(position),
                                                 std::to_string((int)ids.size() - 1), std::to_string(ids.size())});
  if (PredictsNextToken(c) && position + 1 < (int)ids.size()) return ids[(size_t)position + 1];
  // The top prediction: every logit of the row (the cap is monotone: the pre-cap argmax).
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  std::vector<float> normed((size_t)c.d_model), head;
  if (!FinalNormRow(model, row, normed.data())) return Status::Error("the final norm's output is not finite");
  int best = 0;
  double best_logit = -INFINITY;
  for (int v0 = 0; v0 < c.vocab; v0 += kHeadChunk) {
    const int count = std::min(kHeadChunk, c.vocab - v0);
    HeadRows(model, v0, count, &head);
    for (int r = 0; r < count; ++r) {
      const double logit = Dot(normed.data(), head.data() + (size_t)r * c.d_model, (size_t)c.d_model) +
                           HeadBias(model, v0 + r);
      if (logit > best_logit) best_logit = logit, best = v0 + r;  // ties: the first (lower) id kept
    }
  }
  return best;
}

Result<LogitAttribution> AttributeLogit(const Model& model, const std::vector<int>& ids, int position, int target,
                                        RunOptions options) {
  const ModelConfig& c = model.config();
  const int n = (int)ids.size();
  const size_t d = (size_t)c.d_model;
  // 0. Checks: a head, a stream that is a sum (pre-norm, no MLM transform), the position and the target in range.
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (c.recipe.post_norm || c.recipe.masked_lm || c.recipe.embed_norm)
    return Status::Error(MsgId::kAttributionPostNorm, {c.model_type});
  if (position < 0 || position >= n)
    return Status::Error(MsgId::kPositionRange,
                         {"position", std::to_string(position), std::to_string(n - 1), std::to_string(n)});
  if (target < -1 || target >= c.vocab)
    return Status::Error(MsgId::kOutOfRange, {"target token id", std::to_string(target), "0",
                                              std::to_string(c.vocab - 1)});
  // 1. One run; the parts at the position made layer by layer.
  options.stream_maps = true;
  options.first_layer = 0, options.resume_hidden = nullptr;
  options.caller_bytes += (size_t)(((double)c.n_layer * (c.n_head + 2) + 3) * (double)d * sizeof(double));
  LogitAttribution out;
  try {
    PartsSink sink(model, position);
    if (Status s = RunModel(model, ids, options, &sink); !s) return s;
    const float* last = sink.Row(c.n_layer);  // [d_model]
    auto t = target >= 0 ? Result<int>(target) : DefaultAttributionTarget(model, last, ids, position);
    if (!t) return t.status();
    // 2. The final norm frozen at the whole stream, folded into the target's unembedding row: u = scale * W_U[t].
    std::vector<float> head;
    HeadRows(model, *t, 1, &head);
    const Norm& fn = model.params().final_norm;
    const FrozenNorm frozen(IsRms(c), c.norm_eps, Doubles(last, last + d), fn);
    auto value = [&](Doubles v) {
      frozen.Apply(&v);
      double s = 0;
      for (size_t j = 0; j < d; ++j) s += v[j] * head[j];
      return s;
    };
    out.position = position, out.target = *t;
    for (PartsSink::Part& p : sink.parts) out.components.push_back({p.kind, p.layer, p.head, value(std::move(p.v))});
    const double bias = (fn.b ? Dot(fn.b, head.data(), d) : 0.0) + HeadBias(model, *t);
    if (fn.b || model.params().lm_head.b) out.components.push_back({ComponentKind::kNormBias, -1, -1, bias});
    // 3. The logit itself, from the run's stream (the sum rule's other side).
    out.logit = value(Doubles(last, last + d)) + bias;
    out.capped = c.final_softcap > 0;
    out.capped_logit = Capped(c, out.logit);
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"the logit attribution of " + std::to_string(n) + " tokens"});
  }
  return out;
}

}  // namespace attnviz::model
