#include "model/seq2seq_patching.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>

namespace attnviz::model {
namespace {

using Floats = std::vector<float>;

// A whole run kept as patching reads it: each stack's stream [n_layer + 1, n, d_model] and each sublayer's z
// [n_layer, n, inner] (cross: [n_dec_layer, n_tgt, inner]).
class CacheSink : public Seq2SeqSink {
 public:
  CacheSink(const Seq2SeqConfig& c, size_t n_src, size_t n_tgt) : c_(c), n_src_(n_src), n_tgt_(n_tgt) {
    const size_t d = (size_t)c.d_model;
    hidden[0].resize(((size_t)c.encoder.n_layer + 1) * n_src * d);
    hidden[1].resize(((size_t)c.decoder.n_layer + 1) * n_tgt * d);
    z[0].resize((size_t)c.encoder.n_layer * n_src * c.encoder.inner());
    z[1].resize((size_t)c.decoder.n_layer * n_tgt * c.decoder.inner());
    z[2].resize(z[1].size());
    encoder_output.resize(n_src * d);
  }
  Floats hidden[2];  // encoder, decoder
  Floats z[3];       // encoder, decoder, cross
  Floats encoder_output;  // [n_src, d_model]
  size_t N(Seq2SeqStack s) const { return s == Seq2SeqStack::kEncoder ? n_src_ : n_tgt_; }
  size_t Inner(Seq2SeqStack s) const { return (size_t)c_.Stack(s).inner(); }
  const float* Hidden(Seq2SeqStack s, int layer) const { return HiddenOf(s).data() + HiddenAt(s, layer); }
  const float* Z(Seq2SeqStack s, int layer) const { return z[(int)s].data() + ZAt(s, layer); }

  Status OnEmbeddings(Seq2SeqStack s, const float* h, int n, int d) override {
    std::copy(h, h + (size_t)n * d, HiddenOf(s).begin());
    return Status::Ok();
  }
  Status OnEncoderOutput(const float* h, int n, int d) override {
    std::copy_n(h, (size_t)n * d, encoder_output.begin());
    return Status::Ok();
  }
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    const size_t n = (size_t)out.n_q, d = (size_t)out.d_model, inner = Inner(out.stack);
    if (out.stack != Seq2SeqStack::kCross)
      std::copy(out.hidden, out.hidden + n * d, HiddenOf(out.stack).begin() + (ptrdiff_t)HiddenAt(out.stack, out.layer + 1));
    float* zl = z[(int)out.stack].data() + ZAt(out.stack, out.layer);  // [n, inner] from the view's columns
    for (size_t i = 0; i < n; ++i) std::copy_n(out.z.data + i * out.z.row_stride, inner, zl + i * inner);
    return Status::Ok();
  }

 private:
  Floats& HiddenOf(Seq2SeqStack s) { return hidden[s == Seq2SeqStack::kEncoder ? 0 : 1]; }
  const Floats& HiddenOf(Seq2SeqStack s) const { return hidden[s == Seq2SeqStack::kEncoder ? 0 : 1]; }
  size_t HiddenAt(Seq2SeqStack s, int layer) const { return (size_t)layer * N(s) * c_.d_model; }
  size_t ZAt(Seq2SeqStack s, int layer) const { return (size_t)layer * N(s) * Inner(s); }
  const Seq2SeqConfig& c_;
  size_t n_src_, n_tgt_;
};

// A rerun keeps only the last decoder position's stream after the last layer.
class LastRowSink : public Seq2SeqSink {
 public:
  explicit LastRowSink(const Seq2SeqConfig& c) : n_layer_(c.decoder.n_layer), row((size_t)c.d_model) {}
  Status OnLayer(const Seq2SeqLayerOutput& out) override {
    if (out.stack == Seq2SeqStack::kDecoder && out.layer == n_layer_ - 1)
      std::copy_n(out.hidden + (size_t)(out.n_q - 1) * out.d_model, out.d_model, row.begin());
    return Status::Ok();
  }
  int n_layer_;
  Floats row;  // [d_model]
};

bool SameBits(const float* a, const float* b, size_t count) { return std::memcmp(a, b, count * sizeof(float)) == 0; }

}  // namespace

Result<Seq2SeqPatching> Seq2SeqPatchActivations(const Seq2SeqModel& model, const std::vector<int>& clean_source,
                                                const std::vector<int>& corrupted_source,
                                                const std::vector<int>& decoder_ids, int token_a, int token_b,
                                                const Seq2SeqPatchingOptions& options) {
  const Seq2SeqConfig& c = model.config();
  const RunControl& control = options.control;
  // 0. Checks.
  if (clean_source.size() != corrupted_source.size())
    return Status::Error(MsgId::kPatchTokenCounts,
                         {std::to_string(clean_source.size()), std::to_string(corrupted_source.size())});
  for (int t : {token_a, token_b})
    if (t < 0 || t >= c.decoder_vocab)
      return Status::Error(MsgId::kOutOfRange,
                           {"metric token id", std::to_string(t), "0", std::to_string(c.decoder_vocab - 1)});
  const size_t n_src = corrupted_source.size(), n_tgt = decoder_ids.size(), d = (size_t)c.d_model;
  const Seq2SeqStack kEnc = Seq2SeqStack::kEncoder, kDec = Seq2SeqStack::kDecoder, kCross = Seq2SeqStack::kCross;
  Seq2SeqRunOptions base;
  base.control.cancel = control.cancel;
  auto metric = [&](const float* last_row) -> Result<double> {  // last_row: [d_model]
    auto logits = Seq2SeqLogits(model, last_row, 1);
    if (!logits) return logits.status();
    return (double)logits->data[(size_t)token_a] - (double)logits->data[(size_t)token_b];
  };
  Seq2SeqPatching out;
  out.n_enc_layer = c.encoder.n_layer, out.n_enc_head = c.encoder.n_head;
  out.n_dec_layer = c.decoder.n_layer, out.n_dec_head = c.decoder.n_head;
  out.n_src = (int)n_src, out.n_tgt = (int)n_tgt;
  try {
    // 1. Both runs, cached whole; their metrics.
    CacheSink clean(c, n_src, n_tgt), corrupted(c, n_src, n_tgt);
    base.caller_bytes = 2 * (clean.hidden[0].size() + clean.hidden[1].size() + clean.z[0].size() +
                             clean.z[1].size() + clean.z[2].size() + clean.encoder_output.size()) * sizeof(float);
    if (Status s = RunSeq2Seq(model, clean_source, decoder_ids, base, &clean); !s) return s;
    if (Status s = RunSeq2Seq(model, corrupted_source, decoder_ids, base, &corrupted); !s) return s;
    const int L_dec = c.decoder.n_layer;
    auto m_clean = metric(clean.Hidden(kDec, L_dec) + (n_tgt - 1) * d);
    if (!m_clean) return m_clean.status();
    auto m_corrupted = metric(corrupted.Hidden(kDec, L_dec) + (n_tgt - 1) * d);
    if (!m_corrupted) return m_corrupted.status();
    out.clean = *m_clean, out.corrupted = *m_corrupted;
    const double span = out.clean - out.corrupted;
    if (!(std::fabs(span) > 1e-6 * std::max({1.0, std::fabs(out.clean), std::fabs(out.corrupted)})))
      return Status::Error(MsgId::kPatchNoDifference, {std::to_string(out.clean)});
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const size_t enc_heads = (size_t)c.encoder.n_layer * c.encoder.n_head, dec_heads = (size_t)L_dec * c.decoder.n_head;
    out.encoder_heads.assign(options.heads ? enc_heads : 0, nan);
    out.decoder_heads.assign(options.heads ? dec_heads : 0, nan);
    out.cross_heads.assign(options.heads ? dec_heads : 0, nan);
    out.encoder_residual.assign(options.residual ? ((size_t)c.encoder.n_layer + 1) * n_src : 0, nan);
    out.decoder_residual.assign(options.residual ? ((size_t)L_dec + 1) * n_tgt : 0, nan);
    out.total = out.encoder_heads.size() + out.decoder_heads.size() + out.cross_heads.size() +
                out.encoder_residual.size() + out.decoder_residual.size();
    control.Report("patching", 0, out.total);
    LastRowSink rerun(c);
    // One rerun with `o`'s patch, resumed at (stack, layer) from the corrupted run (an encoder resume runs the rest
    // of the encoder and the whole decoder; a decoder one reads the corrupted encoder output): its share of the way
    // from corrupted to clean. Cancelled: false.
    auto rerun_with = [&](Seq2SeqRunOptions o, Seq2SeqStack stack, int layer, double* cell) -> Result<bool> {
      if (stack == kCross) stack = kDec;
      o.resume = {stack, layer, corrupted.Hidden(stack, layer),
                  stack == kDec ? corrupted.encoder_output.data() : nullptr};
      const Status s = RunSeq2Seq(model, corrupted_source, decoder_ids, o, &rerun);
      if (s.cancelled()) return false;
      if (!s) return s;
      auto m = metric(rerun.row.data());
      if (!m) return m.status();
      *cell = (*m - out.corrupted) / span;
      return true;
    };
    auto finished = [&]() { control.Report("patching", ++out.done, out.total); };
    // 2. Heads of each stack, layer by layer: z_h at every query position from the clean run.
    const std::pair<Seq2SeqStack, std::vector<double>*> head_grids[] = {
        {kEnc, &out.encoder_heads}, {kDec, &out.decoder_heads}, {kCross, &out.cross_heads}};
    for (const auto& [stack, grid] : head_grids) {
      const Seq2SeqStackConfig& s = c.Stack(stack);
      const size_t n = clean.N(stack), inner = clean.Inner(stack);
      for (int l = 0; l < s.n_layer && options.heads; ++l)
        for (int h = 0; h < s.n_head; ++h) {
          if (control.cancelled()) return out;
          double& cell = (*grid)[(size_t)l * s.n_head + h];
          bool same = true;  // the head's z the same bits in both runs: nothing changes
          for (size_t i = 0; i < n && same; ++i)
            same = SameBits(clean.Z(stack, l) + i * inner + (size_t)h * s.d_head,
                            corrupted.Z(stack, l) + i * inner + (size_t)h * s.d_head, (size_t)s.d_head);
          if (same) {
            cell = 0;
          } else {
            Seq2SeqRunOptions o = base;
            o.patch = {{stack, l, h, clean.Z(stack, l)}};
            auto ran = rerun_with(o, stack, l, &cell);
            if (!ran) return ran.status();
            if (!*ran) return out;
          }
          finished();
        }
    }
    // 3. The residual stream entering each layer (and after the last) at each position, encoder then decoder.
    const std::pair<Seq2SeqStack, std::vector<double>*> residual_grids[] = {{kEnc, &out.encoder_residual},
                                                                             {kDec, &out.decoder_residual}};
    for (const auto& [stack, grid] : residual_grids) {
      const int L = c.Stack(stack).n_layer;
      const size_t n = clean.N(stack);
      for (int l = 0; l <= L && options.residual; ++l)
        for (size_t p = 0; p < n; ++p) {
          if (control.cancelled()) return out;
          double& cell = (*grid)[(size_t)l * n + p];
          const float* from = clean.Hidden(stack, l) + p * d;
          if (SameBits(from, corrupted.Hidden(stack, l) + p * d, d)) {
            cell = 0;
          } else if (stack == kDec && l == L) {  // nothing runs after the decoder: the metric reads the last row
            auto m = p + 1 == n ? metric(from) : Result<double>(out.corrupted);
            if (!m) return m.status();
            cell = (*m - out.corrupted) / span;
          } else {
            Seq2SeqRunOptions o = base;
            o.patch_rows = {{stack, l, (int)p, from}};
            auto ran = rerun_with(o, stack, l, &cell);
            if (!ran) return ran.status();
            if (!*ran) return out;
          }
          finished();
        }
    }
    out.complete = true;
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"activation patching over " + std::to_string(n_src) + " + " +
                                                   std::to_string(n_tgt) + " tokens"});
  }
  return out;
}

}  // namespace attnviz::model
