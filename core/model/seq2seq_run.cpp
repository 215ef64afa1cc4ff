#include "model/seq2seq_run.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

#include "base/finite.h"
#include "base/memory_budget.h"
#include "model/layers.h"
#include "model/safetensors.h"

// Returns the Status of `expr` when it failed (a Result<T> function returns it as its error).
#define ATTNVIZ_RETURN_IF_ERROR(expr)                \
  do {                                              \
    if (Status status_ = (expr); !status_) return status_; \
  } while (0)

namespace attnviz::model {
namespace {

using Floats = std::vector<float>;
using StridedMap = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
using StridedOut = Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>>;

// A stack's keys and values [rows, inner]: the self-attention's (written as the rows are made; generation appends
// one row per step) or the cross-attention's (the encoder output projected once per decoder layer).
struct KeysValues {
  Floats k, v;
};

// One stack's buffers over n rows (queries).
//   x [n, d_model] the residual stream, in [n, d_model] a sublayer's normed input, y [n, d_model] its output,
//   q, z [n, inner] self-attention, cq, cz [n, inner] cross-attention, ff, ff2 [n, d_ff] the MLP,
//   probs [n_head, n, n_k] / cross_probs [n_head, n, n_src] when the sink gives no buffer,
//   bias [n_head, n, n] t5's position bias (made once, every layer adds it)
struct StackWork {
  Floats x, in, y, q, z, cq, cz, ff, ff2, probs, cross_probs, bias;
};

Status NotFinite(Seq2SeqStack stack, int layer, const char* stage) {
  const std::string where = std::string(stack == Seq2SeqStack::kEncoder ? "of the encoder" : "of the decoder");
  return Status::Error(MsgId::kActivationNotFinite,
                       {layer < 0 ? std::string("embeddings ") + where : std::to_string(layer) + " " + where, stage});
}

float Multiplier(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s) {
  return c.scale_q ? (float)(1.0 / std::sqrt((double)s.d_head)) : 1.0f;  // bart: head_dim**-0.5; t5: none
}

// y: [n, d_model] = the config's norm (LayerNorm, or t5's RMSNorm) of x. False when an output is not finite.
bool NormRows(const Seq2SeqConfig& c, const float* x, int n, const Norm& norm, float* y) {
  const float eps = (float)c.norm_eps;
  return c.norm == BlockRecipe::Norm::kRms ? RmsNormForward(x, n, c.d_model, norm, eps, y)
                                           : LayerNormForward(x, n, c.d_model, norm, eps, y);
}

// (1) x: [n, d_model] = tok_emb[ids] [* sqrt(d_model)] [+ pos_emb[pos0 + i + offset]] [-> layernorm_embedding].
void Embed(const Seq2SeqConfig& c, const Seq2SeqStackParams& p, const int* ids, int n, int pos0, float* x) {
  const size_t d = (size_t)c.d_model;
  const float scale = c.scale_embedding ? (float)std::sqrt((double)c.d_model) : 1.0f;
  for (int i = 0; i < n; ++i) {
    float* row = x + (size_t)i * d;
    const float* tok = p.tok_emb + (size_t)ids[i] * d;
    for (size_t j = 0; j < d; ++j) row[j] = tok[j] * scale;
    if (p.pos_emb) {  // !! bart: row position + 2
      const float* pos = p.pos_emb + (size_t)(pos0 + i + c.position_offset) * d;
      for (size_t j = 0; j < d; ++j) row[j] += pos[j];
    }
  }
  if (c.embed_norm) LayerNormForward(x, n, c.d_model, p.emb_norm, (float)c.norm_eps, x);
}

// t5's bias: [n_head, n_q, n_k] = relative_bias[bucket(key - query), head] for queries at positions pos0..pos0+n_q-1,
// written into `bias`; returns it (null, nothing written, when the stack's positions are not relative ones).
const float* PositionBias(const Seq2SeqConfig& c, const float* relative_bias, int n_head, bool bidirectional, int n_q,
                          int n_k, int pos0, float* bias) {
  if (c.positions != PositionKind::kRelative) return nullptr;
  for (int i = 0; i < n_q; ++i)
    for (int j = 0; j < n_k; ++j) {
      const int b = RelativePositionBucket(j - (pos0 + i), bidirectional, c.num_buckets, c.max_distance);
      for (int h = 0; h < n_head; ++h) bias[((size_t)h * n_q + i) * n_k + j] = relative_bias[(size_t)b * n_head + h];
    }
  return bias;
}

// (2) attention of every head:
//   q: [n_q, inner] (head h: columns h*d_head..), k, v: [n_k, inner], bias: [n_head, n_q, n_k] or null
//   probs: [n_head, n_q, n_k] = softmax(q.k * multiplier + bias) over the keys query i may see (causal: keys
//          0..pos0+i; else all), the row max subtracted, masked entries exactly 0
//   z: [n_q, inner] = probs v per head
// !! Not core/attention's AttendHeads: t5 adds a bias to the scores, which that kernel has no place for; one kernel
// here for every family keeps bart's and t5's maps on one path.
void AttendAll(const float* q, const float* k, const float* v, int n_q, int n_k, int n_head, int dh, float multiplier,
               const float* bias, bool causal, int pos0, float* probs, float* z) {
  const Eigen::Index inner = (Eigen::Index)n_head * dh;
  const bool threads = n_head > 1 && (double)n_q * n_k * dh > 2e4;
#pragma omp parallel for schedule(static) if (threads)
  for (int h = 0; h < n_head; ++h) {
    const StridedMap qh(q + (size_t)h * dh, n_q, dh, Eigen::OuterStride<>(inner));
    const StridedMap kh(k + (size_t)h * dh, n_k, dh, Eigen::OuterStride<>(inner));
    const StridedMap vh(v + (size_t)h * dh, n_k, dh, Eigen::OuterStride<>(inner));
    float* ph = probs + (size_t)h * n_q * n_k;
    Eigen::Map<RowMatrix> p(ph, n_q, n_k);
    p.noalias() = qh * kh.transpose();
    for (int i = 0; i < n_q; ++i) {
      float* row = ph + (size_t)i * n_k;
      const float* brow = bias ? bias + ((size_t)h * n_q + i) * n_k : nullptr;
      const int visible = causal ? std::min(n_k, pos0 + i + 1) : n_k;
      float mx = -std::numeric_limits<float>::infinity();
      for (int j = 0; j < visible; ++j) {
        row[j] = row[j] * multiplier + (brow ? brow[j] : 0.0f);
        mx = std::max(mx, row[j]);
      }
      double sum = 0;
      for (int j = 0; j < visible; ++j) {
        row[j] = std::exp(row[j] - mx);
        sum += row[j];
      }
      const float inv = (float)(1.0 / sum);
      for (int j = 0; j < visible; ++j) row[j] *= inv;
      std::fill(row + visible, row + n_k, 0.0f);  // masked: exactly 0
    }
    StridedOut zh(z + (size_t)h * dh, n_q, dh, Eigen::OuterStride<>(inner));
    zh.noalias() = p * vh;
  }
}

// Ablated heads of (stack, layer): their columns of z [n, inner] zeroed, or set to their mean over the n rows.
void Ablate(const Seq2SeqRunOptions& o, Seq2SeqStack stack, int layer, float* z, int n, int dh, int inner) {
  for (const Seq2SeqAblatedHead& a : o.ablate) {
    if (a.stack != stack || a.layer != layer) continue;
    float* zh = z + (size_t)a.head * dh;
    std::vector<double> mean((size_t)dh, 0.0);  // [d_head]
    if (a.mode == AblateMode::kMean)
      for (int i = 0; i < n; ++i)
        for (int t = 0; t < dh; ++t) mean[(size_t)t] += zh[(size_t)i * inner + t] / n;
    for (int i = 0; i < n; ++i)
      for (int t = 0; t < dh; ++t) zh[(size_t)i * inner + t] = a.mode == AblateMode::kMean ? (float)mean[(size_t)t] : 0.0f;
  }
}

// Patched heads of (stack, layer): their columns of z [n, inner] from the other run's; patched rows of the stream
// x [n, d_model] entering `layer`.
void Patch(const Seq2SeqRunOptions& o, Seq2SeqStack stack, int layer, float* z, int n, int dh, int inner) {
  for (const Seq2SeqPatchedHead& p : o.patch)
    if (p.stack == stack && p.layer == layer)
      for (int i = 0; i < n; ++i) std::copy_n(p.z + (size_t)i * inner + (size_t)p.head * dh, dh, z + (size_t)i * inner + (size_t)p.head * dh);
}
void PatchRows(const Seq2SeqRunOptions& o, Seq2SeqStack stack, int layer, float* x, int d) {
  for (const Seq2SeqPatchedRow& p : o.patch_rows)
    if (p.stack == stack && p.layer == layer) std::copy_n(p.row, d, x + (size_t)p.position * d);
}

// The end of a sublayer: y = its output [n, d_model]; pre-norm x += y, post-norm x = norm(x + y).
Status Residual(const Seq2SeqConfig& c, const Norm& norm, float* x, float* y, int n, Seq2SeqStack stack, int layer,
                const char* stage) {
  const size_t count = (size_t)n * c.d_model;
  if (FirstNotFinite(y, count) != count) return NotFinite(stack, layer, stage);
  if (c.pre_norm) {
    for (size_t t = 0; t < count; ++t) x[t] += y[t];
  } else {
    for (size_t t = 0; t < count; ++t) y[t] += x[t];
    if (!NormRows(c, y, n, norm, x)) return NotFinite(stack, layer, "the norm after the residual add");
  }
  return FirstNotFinite(x, count) == count ? Status::Ok() : NotFinite(stack, layer, "the residual stream");
}

// A sublayer's input: norm(x) into `in` (pre-norm), else x itself.
const float* SublayerInput(const Seq2SeqConfig& c, const Norm& norm, const float* x, int n, float* in, bool* ok) {
  if (!c.pre_norm) return x;
  *ok = NormRows(c, x, n, norm, in);
  return in;
}

// (3) an attention sublayer of rows x [n_q, d_model] at positions pos0..pos0+n_q-1: self-attention (stack kEncoder,
// kDecoder) or the decoder's cross-attention over the encoder output (kCross).
//   kv: k, v [n_k, inner]; self-attention writes its rows' k, v at rows pos0.. (generation: the cache) and reads
//       rows 0..pos0+n_q-1 (n_k = pos0 + n_q); cross-attention reads the encoder output's (n_k = n_src)
//   bias: [n_head, n_q, n_k] or null; probs: [n_head, n_q, n_k]
//   1. in = norm(x) (pre-norm), else x
//   2. q [n_q, inner] = in W_q (self: k, v = in W_k, in W_v into kv)
//   3. probs, z [n_q, inner] = AttendAll (causal in the decoder's self-attention)
//   4. the ablated heads' columns of z replaced, then the patched heads' (from another run's z)
//   5. x = the residual of x and z W_o
Status Attention(const Seq2SeqConfig& c, const AttentionParams& a, Seq2SeqStack stack, int layer, int n_q, int pos0,
                 int n_k, const float* bias, KeysValues* kv, float* probs, const Seq2SeqRunOptions& o, StackWork& w) {
  const Seq2SeqStackConfig& s = c.Stack(stack);
  const bool cross = stack == Seq2SeqStack::kCross;
  const int d = c.d_model, inner = s.inner();
  float* q = cross ? w.cq.data() : w.q.data();
  float* z = cross ? w.cz.data() : w.z.data();
  // 1.
  bool ok = true;
  const float* in = SublayerInput(c, a.norm, w.x.data(), n_q, w.in.data(), &ok);
  if (!ok) return NotFinite(stack, layer, cross ? "the cross-attention's input norm" : "the attention's input norm");
  // 2.
  LinearForward(in, d, n_q, a.q, q, inner);
  if (!cross) {
    LinearForward(in, d, n_q, a.k, kv->k.data() + (size_t)pos0 * inner, inner);
    LinearForward(in, d, n_q, a.v, kv->v.data() + (size_t)pos0 * inner, inner);
  }
  // 3.
  AttendAll(q, kv->k.data(), kv->v.data(), n_q, n_k, s.n_head, s.d_head, Multiplier(c, s), bias,
            stack == Seq2SeqStack::kDecoder, pos0, probs, z);
  // 4.
  Ablate(o, stack, layer, z, n_q, s.d_head, inner);
  Patch(o, stack, layer, z, n_q, s.d_head, inner);
  // 5.
  LinearForward(z, inner, n_q, a.o, w.y.data(), d);
  return Residual(c, a.norm, w.x.data(), w.y.data(), n_q, stack, layer,
                  cross ? "the cross-attention output" : "the attention output");
}

// (4) the MLP of rows x [n, d_model]: down(act(up in)), or t5's gated down(act(wi_0 in) * wi_1 in).
Status Mlp(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s, const MlpParams& m, Seq2SeqStack stack, int layer,
           int n, StackWork& w) {
  const int d = c.d_model;
  bool ok = true;
  const float* in = SublayerInput(c, m.norm, w.x.data(), n, w.in.data(), &ok);
  if (!ok) return NotFinite(stack, layer, "the MLP's input norm");
  LinearForward(in, d, n, m.up, w.ff.data(), s.d_ff);
  const float* hidden = w.ff.data();
  if (m.gate.w) {
    LinearForward(in, d, n, m.gate, w.ff2.data(), s.d_ff);
    GatedTile(c.activation, w.ff2.data(), w.ff.data(), (size_t)n, (size_t)s.d_ff, (size_t)s.d_ff);
    hidden = w.ff2.data();
  } else {
    ActivateInPlace(c.activation, w.ff.data(), (size_t)n * s.d_ff);
  }
  LinearForward(hidden, s.d_ff, n, m.down, w.y.data(), d);
  return Residual(c, m.norm, w.x.data(), w.y.data(), n, stack, layer, "the MLP output");
}

// Sizes a stack's buffers for n query rows over at most n_k self keys and n_src cross keys.
void SizeWork(const Seq2SeqConfig& c, const Seq2SeqStackConfig& s, int n, int n_k, int n_src, bool cross,
              StackWork& w) {
  const size_t d = (size_t)c.d_model, inner = (size_t)s.inner(), rows = (size_t)n;
  w.x.resize(rows * d), w.in.resize(rows * d), w.y.resize(rows * d);
  w.q.resize(rows * inner), w.z.resize(rows * inner);
  w.ff.resize(rows * s.d_ff);
  if (c.gated_mlp) w.ff2.resize(rows * s.d_ff);
  w.probs.resize((size_t)s.n_head * rows * n_k);
  if (cross) w.cq.resize(rows * inner), w.cz.resize(rows * inner), w.cross_probs.resize((size_t)s.n_head * rows * n_src);
  if (c.positions == PositionKind::kRelative) w.bias.resize((size_t)s.n_head * rows * n_k);
}

// (5) one layer of rows x [n_q, d_model] at positions pos0..: self-attention, the decoder's cross-attention (cross
// non-null), MLP.
//   kv: the layer's self keys and values (as Attention); cross: the encoder output's [n_src, inner] (decoder)
//   probs: [n_head, n_q, pos0 + n_q]; cross_probs: [n_head, n_q, n_src] (decoder)
Status Layer(const Seq2SeqConfig& c, const Seq2SeqLayerParams& lp, Seq2SeqStack stack, int layer, int n_q, int pos0,
             const float* bias, KeysValues* kv, KeysValues* cross, int n_src, float* probs, float* cross_probs,
             const Seq2SeqRunOptions& o, StackWork& w) {
  ATTNVIZ_RETURN_IF_ERROR(Attention(c, lp.self_attn, stack, layer, n_q, pos0, pos0 + n_q, bias, kv, probs, o, w));
  if (cross)
    ATTNVIZ_RETURN_IF_ERROR(
        Attention(c, lp.cross_attn, Seq2SeqStack::kCross, layer, n_q, pos0, n_src, nullptr, cross, cross_probs, o, w));
  return Mlp(c, c.Stack(stack), lp.mlp, stack, layer, n_q, w);
}

HeadsView Columns(const float* base, int n, const Seq2SeqStackConfig& s) {
  return HeadsView::Columns(base, (size_t)n, (size_t)s.n_head, (size_t)s.d_head, (size_t)s.inner());
}

// What the sink sees of one attention sublayer after its layer: q, z [n_q, inner] (self: w.q, w.z; cross: w.cq,
// w.cz), kv [n_k, inner], probs [n_head, n_q, n_k], bias as Attention read it, the layer's output x [n_q, d_model].
Seq2SeqLayerOutput SublayerOutput(const Seq2SeqConfig& c, const Seq2SeqLayerParams& lp, Seq2SeqStack stack, int layer,
                                  int n_q, int n_k, const float* probs, const KeysValues& kv, const float* bias,
                                  const StackWork& w) {
  const Seq2SeqStackConfig& s = c.Stack(stack);
  const bool cross = stack == Seq2SeqStack::kCross;
  Seq2SeqLayerOutput out;
  out.stack = stack, out.layer = layer, out.n_layer = s.n_layer, out.n_head = s.n_head;
  out.d_head = s.d_head, out.d_model = c.d_model, out.n_q = n_q, out.n_k = n_k;
  out.probs = probs, out.hidden = w.x.data(), out.weights = &lp;
  out.q = Columns(cross ? w.cq.data() : w.q.data(), n_q, s), out.z = Columns(cross ? w.cz.data() : w.z.data(), n_q, s);
  out.k = Columns(kv.k.data(), n_k, s), out.v = Columns(kv.v.data(), n_k, s);
  out.multiplier = Multiplier(c, s);
  out.position_bias = bias;
  return out;
}

// Where sublayer (stack, layer) writes its probs: the sink's buffer, else the run's scratch.
float* ProbsTarget(Seq2SeqSink* sink, Seq2SeqStack stack, int layer, Floats& scratch) {
  float* probs = sink ? sink->ProbsBuffer(stack, layer) : nullptr;
  return probs ? probs : scratch.data();
}

// Steps 1-2 (kEncoder) or 4-5 (kDecoder): one stack over ids [n] -> its residual stream w.x [n, d_model]; each layer
// handed to the sink (the decoder's kDecoder then kCross).
//   cross: [n_dec_layer] the encoder output's keys and values [n_src, inner] (decoder); null in the encoder
Status RunStack(const Seq2SeqModel& model, Seq2SeqStack stack, const std::vector<int>& ids,
                std::vector<KeysValues>* cross, int n_src, const Seq2SeqRunOptions& o, Seq2SeqSink* sink,
                StackWork& w) {
  const Seq2SeqConfig& c = model.config();
  const bool decoder = stack == Seq2SeqStack::kDecoder;
  const Seq2SeqStackConfig& s = c.Stack(stack);
  const Seq2SeqStackParams& p = decoder ? model.params().decoder : model.params().encoder;
  const int n = (int)ids.size(), d = c.d_model;
  SizeWork(c, s, n, n, n_src, decoder, w);
  KeysValues kv;
  kv.k.resize((size_t)n * s.inner()), kv.v.resize((size_t)n * s.inner());
  // 1. / 4. Embeddings, or the resumed stream (and t5's position bias, which every layer adds)
  const bool resumed = o.resume.hidden && o.resume.stack == stack;
  if (resumed) {
    std::copy_n(o.resume.hidden, (size_t)n * d, w.x.begin());
  } else {
    Embed(c, p, ids.data(), n, 0, w.x.data());
    if (FirstNotFinite(w.x.data(), w.x.size()) != w.x.size()) return NotFinite(stack, -1, "the embeddings");
    if (sink) ATTNVIZ_RETURN_IF_ERROR(sink->OnEmbeddings(stack, w.x.data(), n, d));
  }
  const float* bias = PositionBias(c, p.relative_bias, s.n_head, /*bidirectional=*/!decoder, n, n, 0, w.bias.data());
  // 2. / 5. Layers: self-attention (causal in the decoder), the decoder's cross-attention, MLP
  for (int l = resumed ? o.resume.layer : 0; l < s.n_layer; ++l) {
    if (o.control.cancelled()) return Status::Cancelled();
    const Seq2SeqLayerParams& lp = p.layers[(size_t)l];
    PatchRows(o, stack, l, w.x.data(), d);
    float* probs = ProbsTarget(sink, stack, l, w.probs);
    float* cross_probs = decoder ? ProbsTarget(sink, Seq2SeqStack::kCross, l, w.cross_probs) : nullptr;
    KeysValues* layer_cross = decoder ? &(*cross)[(size_t)l] : nullptr;
    ATTNVIZ_RETURN_IF_ERROR(Layer(c, lp, stack, l, n, 0, bias, &kv, layer_cross, n_src, probs, cross_probs, o, w));
    if (sink) {
      ATTNVIZ_RETURN_IF_ERROR(sink->OnLayer(SublayerOutput(c, lp, stack, l, n, n, probs, kv, bias, w)));
      if (decoder)
        ATTNVIZ_RETURN_IF_ERROR(
            sink->OnLayer(SublayerOutput(c, lp, Seq2SeqStack::kCross, l, n, n_src, cross_probs, *layer_cross, nullptr, w)));
    }
    o.control.Report(decoder ? "decoder layers" : "encoder layers", (size_t)l + 1, (size_t)s.n_layer);
  }
  return Status::Ok();
}

// Steps 1-3: the encoder over src -> enc_out [n_src, d_model] (after its final norm where it has one).
Status RunEncoder(const Seq2SeqModel& model, const std::vector<int>& src, const Seq2SeqRunOptions& o,
                  Seq2SeqSink* sink, Floats* enc_out) {
  const Seq2SeqConfig& c = model.config();
  const int n = (int)src.size();
  StackWork w;
  ATTNVIZ_RETURN_IF_ERROR(RunStack(model, Seq2SeqStack::kEncoder, src, nullptr, 0, o, sink, w));
  // 3. The encoder output
  PatchRows(o, Seq2SeqStack::kEncoder, c.encoder.n_layer, w.x.data(), c.d_model);
  enc_out->assign(w.x.begin(), w.x.end());
  if (c.final_norms && !NormRows(c, w.x.data(), n, model.params().encoder.final_norm, enc_out->data()))
    return NotFinite(Seq2SeqStack::kEncoder, c.encoder.n_layer - 1, "the encoder's final norm");
  if (sink) ATTNVIZ_RETURN_IF_ERROR(sink->OnEncoderOutput(enc_out->data(), n, c.d_model));
  return Status::Ok();
}

// The cross-attention keys and values of every decoder layer: enc_out [n_src, d_model] . W_k, W_v -> [n_src, inner].
std::vector<KeysValues> CrossKeysValues(const Seq2SeqModel& model, const Floats& enc_out, int n_src) {
  const Seq2SeqConfig& c = model.config();
  const int inner = c.decoder.inner();
  std::vector<KeysValues> cross((size_t)c.decoder.n_layer);
  for (int l = 0; l < c.decoder.n_layer; ++l) {
    const AttentionParams& a = model.params().decoder.layers[(size_t)l].cross_attn;
    cross[(size_t)l].k.resize((size_t)n_src * inner), cross[(size_t)l].v.resize((size_t)n_src * inner);
    LinearForward(enc_out.data(), c.d_model, n_src, a.k, cross[(size_t)l].k.data(), inner);
    LinearForward(enc_out.data(), c.d_model, n_src, a.v, cross[(size_t)l].v.data(), inner);
  }
  return cross;
}

// Steps 4-5: the decoder over tgt, reading enc_out [n_src, d_model].
Status RunDecoder(const Seq2SeqModel& model, const Floats& enc_out, int n_src, const std::vector<int>& tgt,
                  const Seq2SeqRunOptions& o, Seq2SeqSink* sink) {
  std::vector<KeysValues> cross = CrossKeysValues(model, enc_out, n_src);
  StackWork w;
  ATTNVIZ_RETURN_IF_ERROR(RunStack(model, Seq2SeqStack::kDecoder, tgt, &cross, n_src, o, sink, w));
  PatchRows(o, Seq2SeqStack::kDecoder, model.config().decoder.n_layer, w.x.data(), model.config().d_model);
  return Status::Ok();
}

Status CheckIds(const char* what, const std::vector<int>& ids, int vocab, const char* vocab_key, int max_positions) {
  if (ids.empty()) return Status::Error(std::string("no ") + what + " to run");
  if (max_positions > 0 && (int64_t)ids.size() > max_positions)
    return Status::Error(std::to_string(ids.size()) + " " + what + " exceed the model's " + std::to_string(max_positions) +
                         " positions (max_position_embeddings)");
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      return Status::Error(std::string(what) + ": token " + std::to_string(i) + " has id " + std::to_string(ids[i]) +
                           "; allowed: 0.." + std::to_string(vocab - 1) + " (" + vocab_key + " " +
                           std::to_string(vocab) + ")");
  return Status::Ok();
}

Status CheckAblations(const Seq2SeqConfig& c, const Seq2SeqRunOptions& o) {
  for (const Seq2SeqAblatedHead& a : o.ablate) {
    const Seq2SeqStackConfig& s = c.Stack(a.stack);
    const std::string stack = Seq2SeqStackName(a.stack);
    if (a.layer < 0 || a.layer >= s.n_layer)
      return Status::Error("ablated " + stack + " layer " + std::to_string(a.layer) + " is out of range: allowed 0.." +
                           std::to_string(s.n_layer - 1));
    if (a.head < 0 || a.head >= s.n_head)
      return Status::Error("ablated " + stack + " head " + std::to_string(a.head) + " of layer " +
                           std::to_string(a.layer) + " is out of range: allowed 0.." + std::to_string(s.n_head - 1));
  }
  for (const Seq2SeqPatchedHead& p : o.patch)
    if (p.layer < 0 || p.layer >= c.Stack(p.stack).n_layer || p.head < 0 || p.head >= c.Stack(p.stack).n_head || !p.z)
      return Status::Error(std::string("patched ") + Seq2SeqStackName(p.stack) + " head " + std::to_string(p.layer) + ":" +
                           std::to_string(p.head) + " is out of range or has no z");
  const Seq2SeqResume& r = o.resume;
  if (r.hidden && (r.stack == Seq2SeqStack::kCross || r.layer < 0 || r.layer > c.Stack(r.stack).n_layer ||
                   (r.stack == Seq2SeqStack::kDecoder && !r.encoder_output)))
    return Status::Error(std::string("resuming the ") + Seq2SeqStackName(r.stack) + " at layer " +
                         std::to_string(r.layer) + ": allowed the encoder or decoder, layers 0.." +
                         std::to_string(c.Stack(r.stack).n_layer) + ", a decoder resume with the encoder output");
  for (const Seq2SeqPatchedRow& p : o.patch_rows)
    if (p.stack == Seq2SeqStack::kCross || p.layer < 0 || p.layer > c.Stack(p.stack).n_layer || p.position < 0 || !p.row)
      return Status::Error(std::string("patched ") + Seq2SeqStackName(p.stack) + " row of layer " +
                           std::to_string(p.layer) + " is out of range or has no values");
  return Status::Ok();
}

Status CheckMemory(const Seq2SeqConfig& c, size_t n_src, size_t n_tgt, bool collect, const Seq2SeqRunOptions& o) {
  const double need = Seq2SeqRunMemoryBytes(c, n_src, n_tgt, collect, o);
  const size_t limit = MemoryLimitBytes();
  if (need <= (double)limit) return Status::Ok();
  return Status::Error(MsgId::kRunMemory, {MemoryText(need), MemoryText((double)limit), std::to_string(n_src + n_tgt)});
}

Status CheckRun(const Seq2SeqConfig& c, const std::vector<int>& src, const std::vector<int>& tgt,
                const Seq2SeqRunOptions& o) {
  ATTNVIZ_RETURN_IF_ERROR(CheckIds("source tokens", src, c.vocab, "vocab_size", c.max_positions));
  ATTNVIZ_RETURN_IF_ERROR(CheckIds("decoder tokens", tgt, c.decoder_vocab,
                                   c.decoder_vocab != c.vocab ? "decoder_vocab_size" : "vocab_size", c.max_positions));
  for (const Seq2SeqPatchedRow& p : o.patch_rows)
    if ((size_t)p.position >= (p.stack == Seq2SeqStack::kEncoder ? src : tgt).size())
      return Status::Error("patched row " + std::to_string(p.position) + " is past the stack's tokens");
  return CheckAblations(c, o);
}

class CollectSink : public Seq2SeqSink {
 public:
  explicit CollectSink(Seq2SeqRun* run) : run_(run) {}
  Status OnEmbeddings(Seq2SeqStack stack, const float* hidden, int n, int d) override {
    Tensor& t = stack == Seq2SeqStack::kEncoder ? run_->encoder_hidden : run_->decoder_hidden;
    std::copy(hidden, hidden + (size_t)n * d, t.data.begin());
    return Status::Ok();
  }
  float* ProbsBuffer(Seq2SeqStack stack, int layer) override {
    Tensor& t = stack == Seq2SeqStack::kEncoder ? run_->encoder_probs
                : stack == Seq2SeqStack::kDecoder ? run_->decoder_probs : run_->cross_probs;
    return t.data.data() + (size_t)layer * t.dim(1) * t.dim(2) * t.dim(3);
  }
  Status OnEncoderOutput(const float* out, int n, int d) override {
    std::copy(out, out + (size_t)n * d, run_->encoder_output.data.begin());
    return Status::Ok();
  }
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    if (out.stack == Seq2SeqStack::kCross) return Status::Ok();
    Tensor& t = out.stack == Seq2SeqStack::kEncoder ? run_->encoder_hidden : run_->decoder_hidden;
    const size_t nd = (size_t)out.n_q * out.d_model;
    std::copy(out.hidden, out.hidden + nd, t.data.begin() + (ptrdiff_t)((out.layer + 1) * nd));
    return Status::Ok();
  }

 private:
  Seq2SeqRun* run_;
};

// The LM head of rows [m, d_model] (copied into `rows`, changed): final norm, t5's rescale, lm_head, final_logits_bias
// -> logits [m, decoder_vocab].
Status HeadLogits(const Seq2SeqModel& model, Floats& rows, int m, float* logits) {
  const Seq2SeqConfig& c = model.config();
  const Seq2SeqParams& p = model.params();
  if (c.final_norms && !NormRows(c, rows.data(), m, p.decoder.final_norm, rows.data()))
    return NotFinite(Seq2SeqStack::kDecoder, c.decoder.n_layer - 1, "the decoder's final norm");
  if (c.lm_head_rescale) {  // !! t5 tied: sequence_output * d_model**-0.5
    const float scale = (float)std::pow((double)c.d_model, -0.5);
    for (float& v : rows) v *= scale;
  }
  Linear head;
  head.w = p.lm_head, head.b = p.final_logits_bias, head.in = c.d_model, head.out = c.decoder_vocab, head.ld = c.d_model;
  LinearForward(rows.data(), c.d_model, m, head, logits, c.decoder_vocab);
  const size_t count = (size_t)m * c.decoder_vocab;
  if (FirstNotFinite(logits, count) != count) return Status::Error(MsgId::kActivationNotFinite, {"LM head", "the logits"});
  return Status::Ok();
}

// log p of every id of one row of logits [vocab], in double: logits - logsumexp.
double LogSumExp(const float* row, int vocab) {
  double mx = row[0];
  for (int j = 1; j < vocab; ++j) mx = std::max(mx, (double)row[j]);
  double sum = 0;
  for (int j = 0; j < vocab; ++j) sum += std::exp((double)row[j] - mx);
  return mx + std::log(sum);
}

}  // namespace

double Seq2SeqRunMemoryBytes(const Seq2SeqConfig& c, size_t n_src, size_t n_tgt, bool collect,
                             const Seq2SeqRunOptions& o) {
  const double d = c.d_model, s = (double)n_src, t = (double)n_tgt;
  const Seq2SeqStackConfig &e = c.encoder, &dec = c.decoder;
  const double bias = c.positions == PositionKind::kRelative ? 1.0 : 0.0;
  double floats = s * (3 * d + 4.0 * e.inner() + 2.0 * e.d_ff) + e.n_head * s * s * (1 + bias) + s * d;  // encoder + its output
  floats += t * (3 * d + 7.0 * dec.inner() + 2.0 * dec.d_ff) + dec.n_head * (t * t * (1 + bias) + t * s) +
            dec.n_layer * 2.0 * s * dec.inner();  // decoder + every layer's cross keys and values
  if (collect)
    floats += e.n_layer * e.n_head * s * s + dec.n_layer * dec.n_head * (t * t + t * s) + (e.n_layer + 1.0) * s * d +
              (dec.n_layer + 1.0) * t * d + s * d;
  return floats * sizeof(float) + (double)o.caller_bytes;
}

Status RunSeq2Seq(const Seq2SeqModel& model, const std::vector<int>& src, const std::vector<int>& tgt,
                  const Seq2SeqRunOptions& o, Seq2SeqSink* sink) {
  const Seq2SeqConfig& c = model.config();
  ATTNVIZ_RETURN_IF_ERROR(CheckRun(c, src, tgt, o));
  ATTNVIZ_RETURN_IF_ERROR(CheckMemory(c, src.size(), tgt.size(), /*collect=*/false, o));
  try {
    Floats enc_out;
    if (o.resume.hidden && o.resume.stack == Seq2SeqStack::kDecoder)
      enc_out.assign(o.resume.encoder_output, o.resume.encoder_output + src.size() * (size_t)c.d_model);
    else
      ATTNVIZ_RETURN_IF_ERROR(RunEncoder(model, src, o, sink, &enc_out));
    const Status s = RunDecoder(model, enc_out, (int)src.size(), tgt, o, sink);
    if (Status unchanged = MappedFilesUnchanged(); !unchanged) return unchanged;
    return s;
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"running the encoder-decoder model over " + std::to_string(src.size()) +
                                                   " + " + std::to_string(tgt.size()) + " tokens"});
  }
}

Result<Seq2SeqRun> RunSeq2Seq(const Seq2SeqModel& model, const std::vector<int>& src, const std::vector<int>& tgt,
                              const Seq2SeqRunOptions& o) {
  const Seq2SeqConfig& c = model.config();
  ATTNVIZ_RETURN_IF_ERROR(CheckRun(c, src, tgt, o));
  ATTNVIZ_RETURN_IF_ERROR(CheckMemory(c, src.size(), tgt.size(), /*collect=*/true, o));
  const size_t s = src.size(), t = tgt.size(), d = (size_t)c.d_model;
  Seq2SeqRun run;
  try {
    run.encoder_probs.Resize({(size_t)c.encoder.n_layer, (size_t)c.encoder.n_head, s, s});
    run.decoder_probs.Resize({(size_t)c.decoder.n_layer, (size_t)c.decoder.n_head, t, t});
    run.cross_probs.Resize({(size_t)c.decoder.n_layer, (size_t)c.decoder.n_head, t, s});
    run.encoder_hidden.Resize({(size_t)c.encoder.n_layer + 1, s, d});
    run.decoder_hidden.Resize({(size_t)c.decoder.n_layer + 1, t, d});
    run.encoder_output.Resize({s, d});
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"keeping every layer's maps of the encoder-decoder run"});
  }
  CollectSink sink(&run);
  ATTNVIZ_RETURN_IF_ERROR(RunSeq2Seq(model, src, tgt, o, &sink));
  return run;
}

Result<Tensor> Seq2SeqLogits(const Seq2SeqModel& model, const float* decoder_last, int n_tgt,
                             const std::vector<int>& positions) {
  const Seq2SeqConfig& c = model.config();
  std::vector<int> rows = positions;
  if (rows.empty())
    for (int i = 0; i < n_tgt; ++i) rows.push_back(i);
  for (int r : rows)
    if (r < 0 || r >= n_tgt)
      return Status::Error(MsgId::kOutOfRange, {"position", std::to_string(r), "0", std::to_string(n_tgt - 1)});
  try {
    const size_t d = (size_t)c.d_model;
    Floats in(rows.size() * d);
    for (size_t i = 0; i < rows.size(); ++i)
      std::copy(decoder_last + (size_t)rows[i] * d, decoder_last + (size_t)(rows[i] + 1) * d, in.begin() + (ptrdiff_t)(i * d));
    Tensor logits;
    logits.Resize({rows.size(), (size_t)c.decoder_vocab});
    ATTNVIZ_RETURN_IF_ERROR(HeadLogits(model, in, (int)rows.size(), logits.data.data()));
    return logits;
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"the logits of " + std::to_string(rows.size()) + " positions"});
  }
}

Result<std::vector<double>> Seq2SeqTokenLoss(const Seq2SeqModel& model, const float* decoder_last, int n_tgt,
                                             const std::vector<int>& labels) {
  const Seq2SeqConfig& c = model.config();
  if ((int)labels.size() != n_tgt)
    return Status::Error("labels has " + std::to_string(labels.size()) + " entries; the decoder ran over " +
                         std::to_string(n_tgt) + " tokens");
  for (size_t i = 0; i < labels.size(); ++i)
    if (labels[i] != -100 && (labels[i] < 0 || labels[i] >= c.decoder_vocab))
      return Status::Error("label " + std::to_string(i) + " is " + std::to_string(labels[i]) + "; allowed: 0.." +
                           std::to_string(c.decoder_vocab - 1) + " or -100 (ignored)");
  auto logits = Seq2SeqLogits(model, decoder_last, n_tgt);
  if (!logits) return logits.status();
  std::vector<double> loss((size_t)n_tgt, std::numeric_limits<double>::quiet_NaN());
  for (int i = 0; i < n_tgt; ++i) {
    if (labels[(size_t)i] == -100) continue;
    const float* row = logits->data.data() + (size_t)i * c.decoder_vocab;
    loss[(size_t)i] = LogSumExp(row, c.decoder_vocab) - (double)row[labels[(size_t)i]];
  }
  return loss;
}

Result<std::vector<PositionTop>> Seq2SeqTopTokens(const Seq2SeqModel& model, const float* decoder_last, int n_tgt,
                                                  int k) {
  const int vocab = model.config().decoder_vocab;
  if (k < 1 || k > vocab) return Status::Error(MsgId::kTopKRange, {std::to_string(k), std::to_string(vocab)});
  auto logits = Seq2SeqLogits(model, decoder_last, n_tgt);
  if (!logits) return logits.status();
  std::vector<PositionTop> out((size_t)n_tgt);
  for (int i = 0; i < n_tgt; ++i) {
    const float* row = logits->data.data() + (size_t)i * vocab;
    const double log_z = LogSumExp(row, vocab);
    out[(size_t)i].index = i;
    for (int t : TopKIndices(row, vocab, k)) out[(size_t)i].top.push_back({t, std::exp((double)row[t] - log_z)});
  }
  return out;
}

double MeanLoss(const std::vector<double>& token_loss) {
  double sum = 0;
  int count = 0;
  for (double v : token_loss)
    if (!std::isnan(v)) sum += v, ++count;
  return count ? sum / count : std::numeric_limits<double>::quiet_NaN();
}

Result<GreedyResult> GreedyGenerate(const Seq2SeqModel& model, const std::vector<int>& src, const GreedyOptions& g,
                                    const std::function<Status(const GeneratedToken&)>& on_token) {
  const Seq2SeqConfig& c = model.config();
  const Seq2SeqStackConfig& s = c.decoder;
  const Seq2SeqRunOptions& o = g.run;
  // 0. Checks
  if (g.max_new_tokens < 1 || (c.max_positions > 0 && g.max_new_tokens > c.max_positions))
    return Status::Error(MsgId::kOutOfRange, {"max_new_tokens", std::to_string(g.max_new_tokens), "1",
                                              std::to_string(c.max_positions > 0 ? c.max_positions : 1 << 20)});
  ATTNVIZ_RETURN_IF_ERROR(CheckIds("source tokens", src, c.vocab, "vocab_size", c.max_positions));
  ATTNVIZ_RETURN_IF_ERROR(CheckAblations(c, o));
  if (!o.patch.empty() || !o.patch_rows.empty() || o.resume.hidden)
    return Status::Error("generation does not patch activations nor resume a run");
  for (const Seq2SeqAblatedHead& a : o.ablate)
    if (a.stack != Seq2SeqStack::kEncoder && a.mode == AblateMode::kMean)
      return Status::Error(std::string("a mean ablation of a ") + Seq2SeqStackName(a.stack) +
                           " head needs every decoder position at once; generation makes them one at a time (use "
                           "a zero ablation, or a run over the generated tokens)");
  std::vector<bool> suppressed((size_t)c.decoder_vocab, false);
  for (const std::vector<int>* list : {&c.suppressed_ids, &g.suppressed_ids})
    for (int id : *list) {
      if (id < 0 || id >= c.decoder_vocab)
        return Status::Error("suppressed id " + std::to_string(id) + " is out of range: allowed 0.." +
                             std::to_string(c.decoder_vocab - 1));
      suppressed[(size_t)id] = true;
    }
  const int n_max = g.max_new_tokens, n_src = (int)src.size();
  ATTNVIZ_RETURN_IF_ERROR(CheckMemory(c, src.size(), (size_t)n_max, /*collect=*/false, o));
  try {
    // 1. The encoder once, and every decoder layer's cross keys and values of its output.
    Floats enc_out;
    ATTNVIZ_RETURN_IF_ERROR(RunEncoder(model, src, o, nullptr, &enc_out));
    std::vector<KeysValues> cross = CrossKeysValues(model, enc_out, n_src);
    // 2. The decoder one position at a time; each layer's self keys and values kept as they are made.
    std::vector<KeysValues> cache((size_t)s.n_layer);
    for (KeysValues& kv : cache) kv.k.resize((size_t)n_max * s.inner()), kv.v.resize((size_t)n_max * s.inner());
    StackWork w;
    SizeWork(c, s, 1, n_max, n_src, true, w);
    Floats logits((size_t)c.decoder_vocab), last((size_t)c.d_model);
    GreedyResult result;
    int token = c.decoder_start_id;
    for (int t = 0; t < n_max; ++t) {
      if (o.control.cancelled()) return Status::Cancelled();
      GeneratedToken made;
      made.step = t;
      made.self_rows.Resize({(size_t)s.n_layer, (size_t)s.n_head, (size_t)t + 1});
      made.cross_rows.Resize({(size_t)s.n_layer, (size_t)s.n_head, (size_t)n_src});
      Embed(c, model.params().decoder, &token, 1, t, w.x.data());
      const float* bias =
          PositionBias(c, model.params().decoder.relative_bias, s.n_head, /*bidirectional=*/false, 1, t + 1, t,
                       w.bias.data());
      for (int l = 0; l < s.n_layer; ++l) {
        float* self_row = made.self_rows.data.data() + (size_t)l * s.n_head * (t + 1);  // [n_head, 1, t + 1]
        float* cross_row = made.cross_rows.data.data() + (size_t)l * s.n_head * n_src;  // [n_head, 1, n_src]
        ATTNVIZ_RETURN_IF_ERROR(Layer(c, model.params().decoder.layers[(size_t)l], Seq2SeqStack::kDecoder, l, 1, t,
                                      bias, &cache[(size_t)l], &cross[(size_t)l], n_src, self_row, cross_row, o, w));
      }
      // 3. The argmax of this position's logits (ties: the lower id), suppressed ids skipped.
      last.assign(w.x.begin(), w.x.begin() + c.d_model);
      ATTNVIZ_RETURN_IF_ERROR(HeadLogits(model, last, 1, logits.data()));
      int best = -1;
      for (int j = 0; j < c.decoder_vocab; ++j)
        if (!suppressed[(size_t)j] && (best < 0 || logits[(size_t)j] > logits[(size_t)best])) best = j;
      if (best < 0) return Status::Error("every token id is suppressed: generation has nothing to pick");
      made.id = best;
      made.log_prob = (double)logits[(size_t)best] - LogSumExp(logits.data(), c.decoder_vocab);
      result.ids.push_back(best);
      if (on_token) ATTNVIZ_RETURN_IF_ERROR(on_token(made));
      o.control.Report("generate", (size_t)t + 1, (size_t)n_max);
      if (best == c.eos_id) {
        result.stopped_at_eos = true;
        break;
      }
      token = best;
    }
    if (Status unchanged = MappedFilesUnchanged(); !unchanged) return unchanged;
    return result;
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"generating " + std::to_string(n_max) + " tokens"});
  }
}

}  // namespace attnviz::model
