#include "model/seq2seq_attribution.h"

#include <cmath>
#include <new>
#include <string>

#include "model/layers.h"

namespace attnviz::model {
namespace {

using Doubles = std::vector<double>;

struct Part {
  Seq2SeqLogitComponent id;
  Doubles v;  // [d_model]
};

// The decoder's parts at one position, collected as the run passes (a layer's weights are handed with it).
class DecoderPartsSink : public Seq2SeqSink {
 public:
  DecoderPartsSink(const Seq2SeqConfig& c, int position) : c_(c), pos_((size_t)position), row_((size_t)c.d_model) {}
  std::vector<Part> parts;
  const std::vector<float>& Row() const { return row_; }  // the stream at the position after the last layer seen

  Status OnEmbeddings(Seq2SeqStack stack, const float* hidden, int, int d) override {
    if (stack != Seq2SeqStack::kDecoder) return Status::Ok();
    std::copy(hidden + pos_ * d, hidden + (pos_ + 1) * d, row_.begin());
    parts.push_back({{ComponentKind::kEmbed}, Doubles(row_.begin(), row_.end())});
    return Status::Ok();
  }

  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    if (out.stack == Seq2SeqStack::kEncoder) return Status::Ok();
    const size_t d = (size_t)c_.d_model;
    // 1. Each head's z at the position through its rows of W_o, then the projection's bias.
    const AttentionParams& a = out.stack == Seq2SeqStack::kDecoder ? out.weights->self_attn : out.weights->cross_attn;
    if (out.stack == Seq2SeqStack::kDecoder) first_ = parts.size();
    for (int h = 0; h < out.n_head; ++h) {
      const float* z = out.z.data + (size_t)h * out.z.head_stride + pos_ * out.z.row_stride;  // [d_head]
      parts.push_back({{ComponentKind::kHead, out.stack, out.layer, h}, HeadOutputPart(a.o, z, h, out.d_head, (int)d)});
    }
    if (a.o.b) parts.push_back({{ComponentKind::kAttnBias, out.stack, out.layer}, Doubles(a.o.b, a.o.b + d)});
    if (out.stack == Seq2SeqStack::kDecoder) return Status::Ok();
    // 2. The MLP again from its input: the layer's input plus both attentions' parts, through its input norm.
    std::vector<float> in(d), ff((size_t)c_.decoder.d_ff), ff2((size_t)c_.decoder.d_ff), m(d);
    for (size_t j = 0; j < d; ++j) {
      double s = row_[j];
      for (size_t p = first_; p < parts.size(); ++p) s += parts[p].v[j];
      in[j] = (float)s;
    }
    const MlpParams& mp = out.weights->mlp;
    const float eps = (float)c_.norm_eps;
    const bool ok = c_.norm == BlockRecipe::Norm::kRms ? RmsNormForward(in.data(), 1, (int)d, mp.norm, eps, in.data())
                                                       : LayerNormForward(in.data(), 1, (int)d, mp.norm, eps, in.data());
    if (!ok) return Status::Error("attribution: the MLP input of decoder layer " + std::to_string(out.layer) +
                                  " is not finite");
    const int d_ff = c_.decoder.d_ff;
    LinearForward(in.data(), (int)d, 1, mp.up, ff.data(), d_ff);
    const float* hidden = ff.data();
    if (mp.gate.w) {
      LinearForward(in.data(), (int)d, 1, mp.gate, ff2.data(), d_ff);
      GatedTile(c_.activation, ff2.data(), ff.data(), 1, (size_t)d_ff, (size_t)d_ff);
      hidden = ff2.data();
    } else {
      ActivateInPlace(c_.activation, ff.data(), (size_t)d_ff);
    }
    LinearForward(hidden, d_ff, 1, mp.down, m.data(), (int)d);
    parts.push_back({{ComponentKind::kMlp, Seq2SeqStack::kDecoder, out.layer}, Doubles(m.begin(), m.end())});
    // 3. The layer's output at the position: the next layer's input (and, after the last, the final stream).
    std::copy(out.hidden + pos_ * d, out.hidden + (pos_ + 1) * d, row_.begin());
    return Status::Ok();
  }

 private:
  const Seq2SeqConfig& c_;
  size_t pos_;
  size_t first_ = 0;        // the first part of the current layer
  std::vector<float> row_;  // [d_model]
};

}  // namespace

Result<Seq2SeqLogitAttribution> Seq2SeqAttributeLogit(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                                      const std::vector<int>& decoder_ids, int position, int target,
                                                      Seq2SeqRunOptions options) {
  const Seq2SeqConfig& c = model.config();
  const int n = (int)decoder_ids.size();
  const size_t d = (size_t)c.d_model;
  // 0. Checks: a stream that is a sum (pre-norm), the position and the target in range.
  if (!c.pre_norm)
    return Status::Error("direct logit attribution splits the decoder's residual stream into parts that add up to a "
                         "logit, and this " + c.model_type + " model has none: it renormalizes the stream after "
                         "every sublayer (post-norm); it works on pre-norm encoder-decoder models");
  if (position < 0 || position >= n)
    return Status::Error(MsgId::kPositionRange,
                         {"position", std::to_string(position), std::to_string(n - 1), std::to_string(n)});
  if (target < 0 || target >= c.decoder_vocab)
    return Status::Error(MsgId::kOutOfRange, {"target token id", std::to_string(target), "0",
                                              std::to_string(c.decoder_vocab - 1)});
  options.caller_bytes +=
      (size_t)(((double)c.decoder.n_layer * (2.0 * c.decoder.n_head + 3) + 3) * (double)d * sizeof(double));
  Seq2SeqLogitAttribution out;
  try {
    // 1. One run; the decoder's parts at the position made layer by layer.
    DecoderPartsSink sink(c, position);
    if (Status s = RunSeq2Seq(model, source_ids, decoder_ids, options, &sink); !s) return s;
    const std::vector<float>& last = sink.Row();  // [d_model]
    // 2. The final norm frozen at the whole stream (none: the identity), t5's rescale and the head row.
    const Seq2SeqParams& p = model.params();
    const float* head = p.lm_head + (size_t)target * d;  // [d_model]
    const double rescale = c.lm_head_rescale ? std::pow((double)c.d_model, -0.5) : 1.0;
    const Doubles full(last.begin(), last.end());
    const bool normed = c.final_norms;
    const FrozenNorm frozen(c.norm == BlockRecipe::Norm::kRms, c.norm_eps, full, p.decoder.final_norm);
    auto value = [&](Doubles v) {
      if (normed) frozen.Apply(&v);
      double s = 0;
      for (size_t j = 0; j < d; ++j) s += v[j] * head[j];
      return s * rescale;
    };
    out.position = position, out.target = target;
    for (Part& part : sink.parts) {
      out.components.push_back(part.id);
      out.components.back().value = value(std::move(part.v));
    }
    const float* nb = normed ? p.decoder.final_norm.b : nullptr;
    double bias = p.final_logits_bias ? (double)p.final_logits_bias[target] : 0.0;
    if (nb)
      for (size_t j = 0; j < d; ++j) bias += rescale * (double)nb[j] * head[j];
    if (nb || p.final_logits_bias) out.components.push_back({ComponentKind::kNormBias, Seq2SeqStack::kDecoder, -1, -1, bias});
    // 3. The logit itself, from the run's stream (the sum rule's other side).
    out.logit = value(full) + bias;
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"the logit attribution of " + std::to_string(n) + " decoder tokens"});
  }
  return out;
}

}  // namespace attnviz::model
