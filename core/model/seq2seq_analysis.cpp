#include "model/seq2seq_analysis.h"

#include <algorithm>
#include <limits>
#include <string>

#include "base/check.h"
#include "base/memory_budget.h"

namespace attnviz::model {
namespace {

Status OutOfRange(Seq2SeqStack stack, const std::string& what, int value, int count, const char* unit) {
  return Status::Error(std::string(Seq2SeqStackName(stack)) + " " + what + " " + std::to_string(value) +
                       " is out of range: allowed 0.." + std::to_string(count - 1) + " (" + std::to_string(count) +
                       " " + unit + ")");
}

const float* RowOf(const HeadsView& v, size_t h, size_t i) { return v.data + h * v.head_stride + i * v.row_stride; }

const Linear& OutputProjection(const Seq2SeqLayerOutput& out) {
  ATTNVIZ_CHECK_SHAPE(out.weights, Seq2SeqStackName(out.stack), " layer ", out.layer, ": no weights");
  return out.stack == Seq2SeqStack::kCross ? out.weights->cross_attn.o : out.weights->self_attn.o;
}

}  // namespace

Status CheckSeq2SeqNeuron(const Seq2SeqConfig& c, Seq2SeqStack stack, int n_src, int n_tgt, int layer, int head, int i,
                          int j) {
  const Seq2SeqStackConfig& s = c.Stack(stack);
  const int n_q = stack == Seq2SeqStack::kEncoder ? n_src : n_tgt;
  const int n_k = stack == Seq2SeqStack::kDecoder ? n_tgt : n_src;
  const char* q_unit = stack == Seq2SeqStack::kEncoder ? "source tokens" : "decoder tokens";
  const char* k_unit = stack == Seq2SeqStack::kDecoder ? "decoder tokens" : "source tokens";
  if (layer < 0 || layer >= s.n_layer) return OutOfRange(stack, "layer", layer, s.n_layer, "layers");
  if (head < 0 || head >= s.n_head) return OutOfRange(stack, "head", head, s.n_head, "heads");
  if (i < 0 || i >= n_q) return OutOfRange(stack, "query i", i, n_q, q_unit);
  if (j < 0 || j >= n_k) return OutOfRange(stack, "key j", j, n_k, k_unit);
  return Status::Ok();
}

Seq2SeqNeuronView Seq2SeqNeuron(const Seq2SeqConfig& c, const Seq2SeqLayerOutput& out, int head, int i, int j) {
  ATTNVIZ_CHECK_SHAPE(head >= 0 && head < out.n_head && i >= 0 && i < out.n_q && j >= 0 && j < out.n_k, "head ", head,
                      " of ", out.n_head, ", query ", i, " of ", out.n_q, ", key ", j, " of ", out.n_k);
  ATTNVIZ_CHECK_SHAPE(out.q.data && out.k.data && out.probs && (int)out.q.d == out.d_head && (int)out.k.d == out.d_head,
                      "q width ", out.q.d, ", k width ", out.k.d, " vs d_head ", out.d_head);
  Seq2SeqNeuronView r;
  r.stack = out.stack;
  NeuronView& v = r.view;
  v.layer = out.layer, v.head = head, v.i = i, v.j = j;
  // 1. q_i, k_j as projected and their product, summed in double.
  const int dh = out.d_head;
  const float* q = RowOf(out.q, (size_t)head, (size_t)i);
  const float* k = RowOf(out.k, (size_t)head, (size_t)j);
  SetNeuronProduct(q, k, dh, &v);
  v.scale = out.multiplier;
  v.scale_source = c.scale_q ? "head_dim" : "none";
  // 2. The logit: score * scale, plus t5's relative position bias where the stack adds one.
  if (out.position_bias) {
    r.has_position_bias = true;
    r.position_bias = out.position_bias[((size_t)head * out.n_q + i) * out.n_k + j];
  }
  v.uncapped_logit = v.logit = v.score * out.multiplier + r.position_bias;
  // 3. The run's probability; the decoder's keys past the query are masked (the run wrote them exactly 0).
  v.masked = out.stack == Seq2SeqStack::kDecoder && j > i;
  v.prob = v.masked ? 0.0 : out.probs[((size_t)head * out.n_q + i) * out.n_k + j];
  return r;
}

namespace {

// Takes the neuron view from one sublayer of a run.
class NeuronSink : public Seq2SeqSink {
 public:
  NeuronSink(const Seq2SeqConfig& c, Seq2SeqStack stack, int layer, int head, int i, int j)
      : c_(c), stack_(stack), layer_(layer), head_(head), i_(i), j_(j) {}
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    if (out.stack == stack_ && out.layer == layer_) view = Seq2SeqNeuron(c_, out, head_, i_, j_);
    return Status::Ok();
  }
  Seq2SeqNeuronView view;

 private:
  const Seq2SeqConfig& c_;
  Seq2SeqStack stack_;
  int layer_, head_, i_, j_;
};

}  // namespace

Result<Seq2SeqNeuronView> RunSeq2SeqNeuron(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                           const std::vector<int>& decoder_input_ids, const Seq2SeqRunOptions& options,
                                           Seq2SeqStack stack, int layer, int head, int i, int j) {
  const Seq2SeqConfig& c = model.config();
  if (Status s = CheckSeq2SeqNeuron(c, stack, (int)source_ids.size(), (int)decoder_input_ids.size(), layer, head, i, j);
      !s)
    return s;
  NeuronSink sink(c, stack, layer, head, i, j);
  if (Status s = RunSeq2Seq(model, source_ids, decoder_input_ids, options, &sink); !s) return s;
  return sink.view;
}

void Seq2SeqValueNormScales(const Seq2SeqLayerOutput& out, float* norms) {
  ATTNVIZ_CHECK_SHAPE(out.v.data && norms && (int)out.v.n_head == out.n_head && (int)out.v.d == out.d_head, "v [",
                      out.v.n_head, ", ", out.v.n, ", ", out.v.d, "] vs ", out.n_head, " heads x ", out.d_head);
  HeadValueNorms(OutputProjection(out), out.v, out.n_k, out.n_head, norms);
}

void Seq2SeqValueNorms(const Seq2SeqLayerOutput& out, float* value_norm) {
  ATTNVIZ_CHECK_SHAPE(out.probs && value_norm, "probs [", out.n_head, ", ", out.n_q, ", ", out.n_k,
                      "] and a value-norm buffer");
  const size_t n_q = (size_t)out.n_q, n_k = (size_t)out.n_k;
  std::vector<float> norms((size_t)out.n_head * n_k);  // [n_head, n_k]
  Seq2SeqValueNormScales(out, norms.data());
  for (int h = 0; h < out.n_head; ++h)
    ScaleColumns(out.probs + (size_t)h * n_q * n_k, norms.data() + (size_t)h * n_k, out.n_q, out.n_k,
                 value_norm + (size_t)h * n_q * n_k);
}

namespace {

// Writes each sublayer's value-weighted map into the stack's tensor of maps.
class ValueNormSink : public Seq2SeqSink {
 public:
  explicit ValueNormSink(Seq2SeqValueNormMaps* maps) : maps_(maps) {}
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    Tensor& t = out.stack == Seq2SeqStack::kEncoder ? maps_->encoder
                : out.stack == Seq2SeqStack::kDecoder ? maps_->decoder : maps_->cross;
    if (t.size() < (size_t)(out.layer + 1) * out.n_head * out.n_q * out.n_k)  // sized before the run: never
      return Status::Error(std::string("value norms: no room for the ") + Seq2SeqStackName(out.stack) + " maps");
    Seq2SeqValueNorms(out, t.data.data() + (size_t)out.layer * out.n_head * out.n_q * out.n_k);
    return Status::Ok();
  }

 private:
  Seq2SeqValueNormMaps* maps_;
};

}  // namespace

Result<Seq2SeqValueNormMaps> RunSeq2SeqValueNorms(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                                  const std::vector<int>& decoder_input_ids,
                                                  const Seq2SeqRunOptions& options) {
  const Seq2SeqConfig& c = model.config();
  const size_t n_src = source_ids.size(), n_tgt = decoder_input_ids.size();
  const size_t e_l = (size_t)c.encoder.n_layer, e_h = (size_t)c.encoder.n_head;
  const size_t d_l = (size_t)c.decoder.n_layer, d_h = (size_t)c.decoder.n_head;
  Seq2SeqValueNormMaps maps;
  Seq2SeqRunOptions o = options;
  o.caller_bytes += (e_l * e_h * n_src * n_src + d_l * d_h * n_tgt * (n_tgt + n_src)) * sizeof(float);
  // RunSeq2Seq checks the budget (with the maps as caller_bytes) before anything is allocated; an empty side is
  // its error too, so the maps are sized only for a run that can start.
  if (n_src > 0 && n_tgt > 0 && Seq2SeqRunMemoryBytes(c, n_src, n_tgt, false, o) <= (double)MemoryLimitBytes()) {
    maps.encoder.Resize({e_l, e_h, n_src, n_src});
    maps.decoder.Resize({d_l, d_h, n_tgt, n_tgt});
    maps.cross.Resize({d_l, d_h, n_tgt, n_src});
  }
  ValueNormSink sink(&maps);
  if (Status s = RunSeq2Seq(model, source_ids, decoder_input_ids, o, &sink); !s) return s;
  return maps;
}

Result<Tensor> Seq2SeqRollout(Seq2SeqStack stack, const Tensor& probs) {
  if (stack == Seq2SeqStack::kCross)
    return Status::Error("attention rollout is defined for the encoder's and the decoder's self-attention, not for "
                         "cross-attention: a cross map's rows are target tokens and its columns source tokens, so "
                         "its layers do not multiply into a chain");
  ATTNVIZ_CHECK_SHAPE(probs.shape.size() == 4 && probs.dim(2) == probs.dim(3) && probs.dim(0) > 0 && probs.dim(1) > 0,
                      Seq2SeqStackName(stack), " probs of rank ", probs.shape.size(), ": [", probs.dim(0), ", ",
                      probs.dim(1), ", ", probs.dim(2), ", ", probs.dim(3), "], want [n_layer, n_head, n, n]");
  const size_t n_layer = probs.dim(0), n_head = probs.dim(1), n = probs.dim(2);
  const double need = RolloutMemoryBytes(n) + (double)n_layer * n * n * sizeof(float);
  if (need > (double)MemoryLimitBytes())
    return Status::Error(MsgId::kAnalysisMemory, {std::string(Seq2SeqStackName(stack)) + " attention rollout",
                                                  MemoryText(need), MemoryText((double)MemoryLimitBytes()),
                                                  std::to_string(n)});
  Tensor out;
  out.Resize({n_layer, n, n});
  Rollout rollout((int)n);
  for (size_t l = 0; l < n_layer; ++l)
    rollout.AddLayer(probs.data.data() + l * n_head * n * n, (int)n_head, out.data.data() + l * n * n);
  return out;
}

namespace {

// Keeps the decoder's last residual stream [n_tgt, d_model] (its last layer's kDecoder output: the whole layer).
class LastDecoderSink : public Seq2SeqSink {
 public:
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    if (out.stack == Seq2SeqStack::kDecoder && out.layer == out.n_layer - 1)
      last.assign(out.hidden, out.hidden + (size_t)out.n_q * out.d_model);
    return Status::Ok();
  }
  std::vector<float> last;
};

// The mean loss of labels over `at` (every labelled position when empty) after one run with `options`.
Result<double> RunLoss(const Seq2SeqModel& model, const std::vector<int>& src, const std::vector<int>& tgt,
                       const std::vector<int>& labels, const Seq2SeqRunOptions& options, const std::vector<int>& at) {
  LastDecoderSink sink;
  if (Status s = RunSeq2Seq(model, src, tgt, options, &sink); !s) return s;
  auto losses = Seq2SeqTokenLoss(model, sink.last.data(), (int)tgt.size(), labels);
  if (!losses) return losses.status();
  if (at.empty()) return MeanLoss(*losses);
  double sum = 0;
  for (int i : at) sum += (*losses)[(size_t)i];
  return sum / (double)at.size();
}

}  // namespace

Result<Seq2SeqAblationScan> ScanSeq2SeqHeadAblations(const Seq2SeqModel& model, const std::vector<int>& source_ids,
                                                     const std::vector<int>& decoder_input_ids,
                                                     const std::vector<int>& labels, const Seq2SeqRunOptions& base,
                                                     AblateMode mode, const std::vector<int>& loss_at) {
  const Seq2SeqConfig& c = model.config();
  const int n_tgt = (int)decoder_input_ids.size();
  if (labels.size() != decoder_input_ids.size())
    return Status::Error("the ablation scan needs one label per decoder token: " + std::to_string(labels.size()) +
                         " labels for " + std::to_string(n_tgt) + " decoder tokens");
  std::vector<bool> seen((size_t)n_tgt, false);
  for (int i : loss_at) {
    if (i < 0 || i >= n_tgt)
      return Status::Error(MsgId::kScanPositionRange, {std::to_string(i), std::to_string(n_tgt - 1)});
    if (seen[(size_t)i]) return Status::Error(MsgId::kScanPositionTwice, {std::to_string(i)});
    if (labels[(size_t)i] == -100)
      return Status::Error("the ablation scan's position " + std::to_string(i) + " has no label (-100)");
    seen[(size_t)i] = true;
  }
  // 1. Every head of every stack, in the order the scan reports them.
  Seq2SeqAblationScan scan;
  scan.loss_at = loss_at;
  for (Seq2SeqStack stack : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder, Seq2SeqStack::kCross}) {
    const Seq2SeqStackConfig& s = c.Stack(stack);
    for (int l = 0; l < s.n_layer; ++l)
      for (int h = 0; h < s.n_head; ++h) scan.heads.push_back({stack, l, h, std::numeric_limits<double>::quiet_NaN()});
  }
  const size_t total = scan.heads.size();
  // 2. The base run (its runs count no layers: the scan counts heads).
  Seq2SeqRunOptions o = base;
  o.control.progress = nullptr;
  base.control.Report("heads", 0, total);
  auto base_loss = RunLoss(model, source_ids, decoder_input_ids, labels, o, loss_at);
  if (!base_loss) return base_loss.status();
  scan.base_loss = *base_loss;
  // 3. Each head on top of the base ablations; a cancel keeps the heads done.
  for (Seq2SeqHeadLoss& head : scan.heads) {
    Seq2SeqRunOptions a = o;
    a.ablate.push_back({head.stack, head.layer, head.head, mode});
    auto loss = RunLoss(model, source_ids, decoder_input_ids, labels, a, loss_at);
    if (!loss && loss.status().cancelled()) return scan;
    if (!loss) return loss.status();
    head.loss = *loss;
    base.control.Report("heads", ++scan.heads_done, total);
  }
  scan.complete = true;
  return scan;
}

}  // namespace attnviz::model
