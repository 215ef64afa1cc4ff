#include "model/predict.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "model/check.h"
#include "model/layers.h"

namespace attnviz::model {
namespace {

// Positions per block: the logits of one block are [kRows, vocab] floats (152k vocab: 39 MB).
constexpr int kRows = 64;
// Floats of LM head rows per logits GEMM (16 MB): the vocab is taken in chunks of kHeadFloats / d_model rows, so a
// deferred (quantized) head is dequantized a chunk at a time into one buffer. !! Resident heads are chunked the
// same way (read in place), so a GGUF's per-layer and whole loads sum each logit in the same order: same bits.
constexpr size_t kHeadFloats = (size_t)1 << 22;

}  // namespace

bool HasLmHead(const Model& model) { return model.has_lm_head(); }

bool PredictsNextToken(const ModelConfig& c) { return c.arch != Arch::kBert; }

Result<Predictions> Predict(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                            const std::vector<int>& positions, const RunControl& control) {
  const ModelConfig& c = model.config();
  const ModelParams& p = model.params();
  const LmHead& head = p.lm_head;
  const int n = (int)ids.size(), d = c.d_model, vocab = c.vocab;
  // 0. Checks.
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (k < 1 || k > vocab) return Status::Error(MsgId::kTopKRange, {std::to_string(k), std::to_string(vocab)});
  if (n == 0 || !last_hidden) return Status::Error("no tokens to predict from");
  for (int i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      return Status::Error("token " + std::to_string(i) + " has id " + std::to_string(ids[i]) + "; allowed: 0.." +
                           std::to_string(vocab - 1));
  std::vector<char> wanted((size_t)n, positions.empty() ? 1 : 0);
  for (int pos : positions) {
    if (pos < 0 || pos >= n)
      return Status::Error(MsgId::kPositionRange,
                           {"position", std::to_string(pos), std::to_string(n - 1), std::to_string(n)});
    wanted[(size_t)pos] = 1;
  }
  const bool next_token = PredictsNextToken(c);
  Predictions out;
  double loss_sum = 0;
  std::vector<float> normed((size_t)kRows * d), logits((size_t)kRows * vocab);
  std::vector<int> order((size_t)vocab);
  const int chunk = (int)std::min<size_t>((size_t)vocab, std::max<size_t>(1, kHeadFloats / (size_t)d));
  std::vector<float> head_rows(head.w ? 0 : (size_t)chunk * d);  // [chunk, d_model]: a deferred head's rows
  for (int r0 = 0; r0 < n; r0 += kRows) {
    if (control.cancelled()) return Status::Cancelled();
    control.Report("predict", (size_t)r0, (size_t)n);
    const int rows = std::min(kRows, n - r0);
    // A block none of whose rows is wanted (and no loss to take) is skipped.
    bool any = next_token;
    for (int i = r0; i < r0 + rows; ++i) any |= wanted[(size_t)i] != 0;
    if (!any) continue;
    const float* x = last_hidden + (size_t)r0 * d;
    // 1. The final norm (bert: the MLM transform).
    switch (c.arch) {
      case Arch::kGpt2:
        LayerNormForward(x, rows, d, p.final_norm, (float)c.norm_eps, normed.data());
        break;
      case Arch::kLlama:
        RmsNormForward(x, rows, d, p.final_norm, (float)c.norm_eps, normed.data());
        break;
      case Arch::kBert:
        LinearForward(x, d, rows, head.transform, normed.data(), d);
        ActivateInPlace(c.activation, normed.data(), (size_t)rows * d);
        LayerNormForward(normed.data(), rows, d, head.transform_norm, (float)c.norm_eps, normed.data());
        break;
    }
    // 2. Logits [rows, vocab], a chunk of vocab rows of the head ([chunk, d_model] as nn.Linear) at a time.
    for (int v0 = 0; v0 < vocab; v0 += chunk) {
      const int cv = std::min(chunk, vocab - v0);
      Linear lm;
      lm.in = d, lm.out = cv, lm.ld = d;
      lm.b = head.b ? head.b + v0 : nullptr;
      if (head.w) {
        lm.w = head.w + (size_t)v0 * d;
      } else {
        model.LmHeadRows(v0, cv, head_rows.data());
        lm.w = head_rows.data();
      }
      LinearForward(normed.data(), d, rows, lm, logits.data() + v0, vocab);
    }
    // 3. Per row: log-softmax (double), the top k, the next token's log-probability.
    for (int r = 0; r < rows; ++r) {
      const int i = r0 + r;
      const float* row = logits.data() + (size_t)r * vocab;
      double mx = -INFINITY;
      for (int v = 0; v < vocab; ++v) {
        if (!std::isfinite(row[v]))
          return Status::Error("position " + std::to_string(i) + ": the logit of token " + std::to_string(v) +
                               " is not a finite number");
        mx = std::max(mx, (double)row[v]);
      }
      double sum = 0;
      for (int v = 0; v < vocab; ++v) sum += std::exp((double)row[v] - mx);
      const double log_z = mx + std::log(sum);
      if (next_token && i + 1 < n) loss_sum -= (double)row[ids[(size_t)i + 1]] - log_z;
      if (!wanted[(size_t)i]) continue;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return row[a] != row[b] ? row[a] > row[b] : a < b;
      });
      PositionTop top;
      top.index = i;
      for (int t = 0; t < k; ++t) top.top.push_back({order[(size_t)t], std::exp((double)row[order[(size_t)t]] - log_z)});
      out.positions.push_back(std::move(top));
    }
  }
  control.Report("predict", (size_t)n, (size_t)n);
  // Positions in the order asked for (every position: 0..n-1).
  if (!positions.empty()) {
    std::vector<PositionTop> ordered;
    for (int pos : positions)
      for (const PositionTop& t : out.positions)
        if (t.index == pos) ordered.push_back(t);
    out.positions = std::move(ordered);
  }
  if (next_token && n >= 2) {
    out.has_loss = true;
    out.loss = loss_sum / (n - 1);
    out.perplexity = std::exp(out.loss);
  }
  return out;
}

}  // namespace attnviz::model
