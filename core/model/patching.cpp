#include "model/patching.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "model/attribution.h"

namespace attnviz::model {
namespace {

// A whole run kept as patching reads it: hidden [n_layer + 1, n, d_model] and z [n_layer, n, q_dim].
class CacheSink : public LayerSink {
 public:
  CacheSink(const ModelConfig& c, size_t n) : n_(n), d_((size_t)c.d_model), q_((size_t)c.q_dim()) {
    hidden.resize(((size_t)c.n_layer + 1) * n * d_);
    z.resize((size_t)c.n_layer * n * q_);
  }
  std::vector<float> hidden, z;
  const float* Hidden(int layer) const { return hidden.data() + (size_t)layer * n_ * d_; }
  const float* Z(int layer) const { return z.data() + (size_t)layer * n_ * q_; }

  Status OnEmbeddings(const float* h, int, int) override {
    std::copy(h, h + n_ * d_, hidden.begin());
    return Status::Ok();
  }
  Status OnLayer(const LayerOutput& out) override {
    std::copy(out.hidden, out.hidden + n_ * d_, hidden.begin() + (ptrdiff_t)((out.layer + 1) * n_ * d_));
    float* zl = z.data() + (size_t)out.layer * n_ * q_;  // [n, q_dim] from the view's columns
    for (size_t i = 0; i < n_; ++i)
      std::copy(out.z.data + i * out.z.row_stride, out.z.data + i * out.z.row_stride + q_, zl + i * q_);
    return Status::Ok();
  }

 private:
  size_t n_, d_, q_;
};

// A rerun keeps only the last position's stream after the last block.
class LastRowSink : public LayerSink {
 public:
  explicit LastRowSink(const ModelConfig& c) : n_layer_(c.n_layer), row((size_t)c.d_model) {}
  Status OnLayer(const LayerOutput& out) override {
    if (out.layer == n_layer_ - 1) {
      const float* r = out.hidden + (size_t)(out.n - 1) * out.d_model;
      std::copy(r, r + out.d_model, row.begin());
    }
    return Status::Ok();
  }
  int n_layer_;
  std::vector<float> row;  // [d_model]
};

}  // namespace

Result<Patching> PatchActivations(const Model& model, const std::vector<int>& clean_ids,
                                  const std::vector<int>& corrupted_ids, int token_a, int token_b,
                                  const PatchingOptions& options) {
  const ModelConfig& c = model.config();
  const RunControl& control = options.control;
  // 0. Checks.
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (clean_ids.size() != corrupted_ids.size())
    return Status::Error(MsgId::kPatchTokenCounts,
                         {std::to_string(clean_ids.size()), std::to_string(corrupted_ids.size())});
  for (int t : {token_a, token_b})
    if (t < 0 || t >= c.vocab)
      return Status::Error(MsgId::kOutOfRange, {"metric token id", std::to_string(t), "0", std::to_string(c.vocab - 1)});
  const size_t n = corrupted_ids.size(), d = (size_t)c.d_model, q = (size_t)c.q_dim(), nd = n * d;
  const int L = c.n_layer, H = c.n_head;
  RunOptions base;
  base.stream_maps = true;  // no maps are read: none are made
  base.control.cancel = control.cancel;
  base.caller_bytes = (size_t)(2.0 * (((double)L + 1) * nd + (double)L * n * q) * sizeof(float) + nd * sizeof(float));
  auto metric = [&](const float* last_row) -> Result<double> {
    auto logits = TokenLogitsAt(model, last_row, {token_a, token_b});
    if (!logits) return logits.status();
    return (*logits)[0] - (*logits)[1];
  };
  Patching out;
  out.n_layer = L, out.n_head = H, out.n = (int)n;
  try {
    // 1. Both runs, cached whole; their metrics.
    CacheSink clean(c, n), corrupted(c, n);
    if (Status s = RunModel(model, clean_ids, base, &clean); !s) return s;
    if (Status s = RunModel(model, corrupted_ids, base, &corrupted); !s) return s;
    auto m_clean = metric(clean.Hidden(L) + (n - 1) * d);
    if (!m_clean) return m_clean.status();
    auto m_corrupted = metric(corrupted.Hidden(L) + (n - 1) * d);
    if (!m_corrupted) return m_corrupted.status();
    out.clean = *m_clean, out.corrupted = *m_corrupted;
    const double span = out.clean - out.corrupted;
    if (!(std::fabs(span) > 1e-6 * std::max({1.0, std::fabs(out.clean), std::fabs(out.corrupted)})))
      return Status::Error(MsgId::kPatchNoDifference, {std::to_string(out.clean)});
    const double nan = std::numeric_limits<double>::quiet_NaN();
    out.heads.assign(options.heads ? (size_t)L * H : 0, nan);
    out.residual.assign(options.residual ? ((size_t)L + 1) * n : 0, nan);
    out.total = out.heads.size() + out.residual.size();
    control.Report("patching", 0, out.total);
    LastRowSink rerun(c);
    std::vector<float> stream(nd);  // [n, d_model]: a patched residual stream
    // One rerun from `layer`: its share of the way from corrupted to clean. Cancelled: false.
    auto rerun_from = [&](int layer, const float* resume, const std::vector<PatchedHead>& patch,
                          double* cell) -> Result<bool> {
      RunOptions o = base;
      o.first_layer = layer, o.resume_hidden = resume, o.patch = patch;
      const Status s = RunModel(model, corrupted_ids, o, &rerun);
      if (s.cancelled()) return false;
      if (!s) return s;
      auto m = metric(rerun.row.data());
      if (!m) return m.status();
      *cell = (*m - out.corrupted) / span;
      return true;
    };
    auto finished = [&]() { control.Report("patching", ++out.done, out.total); };
    // 2. Heads, layer by layer: z_h at every position from the clean run, the rest of the run again.
    for (int l = 0; l < L && options.heads; ++l)
      for (int h = 0; h < H; ++h) {
        if (control.cancelled()) return out;
        double& cell = out.heads[(size_t)l * H + h];
        bool same = true;  // the head's z the same bits in both runs: nothing changes
        for (size_t i = 0; i < n && same; ++i)
          same = std::memcmp(clean.Z(l) + i * q + (size_t)h * c.d_head, corrupted.Z(l) + i * q + (size_t)h * c.d_head,
                             (size_t)c.d_head * sizeof(float)) == 0;
        if (same) {
          cell = 0;
        } else {
          auto ran = rerun_from(l, corrupted.Hidden(l), {{l, h, clean.Z(l)}}, &cell);
          if (!ran) return ran.status();
          if (!*ran) return out;
        }
        finished();
      }
    // 3. The residual stream entering each block (and after the last) at each position.
    for (int l = 0; l <= L && options.residual; ++l)
      for (size_t p = 0; p < n; ++p) {
        if (control.cancelled()) return out;
        double& cell = out.residual[(size_t)l * n + p];
        const float* from = clean.Hidden(l) + p * d;
        if (std::memcmp(from, corrupted.Hidden(l) + p * d, d * sizeof(float)) == 0) {
          cell = 0;
        } else if (l == L) {  // nothing runs after the last block: the metric reads the last row only
          auto m = p + 1 == n ? metric(from) : Result<double>(out.corrupted);
          if (!m) return m.status();
          cell = (*m - out.corrupted) / span;
        } else {
          std::copy(corrupted.Hidden(l), corrupted.Hidden(l) + nd, stream.begin());
          std::copy(from, from + d, stream.begin() + (ptrdiff_t)(p * d));
          auto ran = rerun_from(l, stream.data(), {}, &cell);
          if (!ran) return ran.status();
          if (!*ran) return out;
        }
        finished();
      }
    out.complete = true;
  } catch (const std::bad_alloc&) {
    return Status::Error(MsgId::kOutOfMemory, {"activation patching over " + std::to_string(n) + " tokens"});
  }
  return out;
}

}  // namespace attnviz::model
