#include "model/predict.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "base/finite.h"
#include "base/check.h"
#include "model/layers.h"

namespace attnviz::model {
namespace {

// Positions per block: the logits of one block are [kRows, vocab] floats (152k vocab: 39 MB).
constexpr int kRows = 64;
// Floats of LM head rows per logits GEMM (16 MB): the vocab is taken in chunks of kHeadFloats / d_model rows, so a
// deferred (quantized) head is dequantized a chunk at a time into one buffer. !! Resident heads are chunked the
// same way (read in place), so a GGUF's per-layer and whole loads sum each logit in the same order: same bits.
constexpr size_t kHeadFloats = (size_t)1 << 22;
// TopKIndices keeps a sorted list of the k best up to this k (the app asks for 5), and sorts the row above it.
constexpr int kScanTopK = 32;

// The logits of `rows` rows of the last block's stream: the final norm (bert: the MLM transform), the LM head a chunk
// of kHeadFloats at a time, the final soft cap.
//   x: [rows, d_model]   normed: [>= rows, d_model] scratch   head_rows: a deferred head's chunk   logits: [rows, vocab]
void LogitsOfRows(const Model& model, const float* x, int rows, float* normed, std::vector<float>* head_rows,
                  float* logits) {
  const ModelConfig& c = model.config();
  const ModelParams& p = model.params();
  const LmHead& head = p.lm_head;
  const int d = c.d_model, vocab = c.vocab;
  const int chunk = (int)std::min<size_t>((size_t)vocab, std::max<size_t>(1, kHeadFloats / (size_t)d));
  // 1. The final norm (bert: the MLM transform).
  if (c.recipe.masked_lm) {
    LinearForward(x, d, rows, head.transform, normed, d);
    ActivateInPlace(c.activation, normed, (size_t)rows * d);
    LayerNormForward(normed, rows, d, head.transform_norm, (float)c.norm_eps, normed);
  } else if (c.recipe.norm == BlockRecipe::Norm::kRms) {
    RmsNormForward(x, rows, d, p.final_norm, (float)c.norm_eps, normed);
  } else {
    LayerNormForward(x, rows, d, p.final_norm, (float)c.norm_eps, normed);
  }
  // 2. Logits [rows, vocab], a chunk of vocab rows of the head ([chunk, d_model] as nn.Linear) at a time.
  if (!head.w) head_rows->resize((size_t)chunk * d);
  for (int v0 = 0; v0 < vocab; v0 += chunk) {
    const int cv = std::min(chunk, vocab - v0);
    Linear lm;
    lm.in = d, lm.out = cv, lm.ld = d;
    lm.b = head.b ? head.b + v0 : nullptr;
    if (head.w) {
      lm.w = head.w + (size_t)v0 * d;
    } else {
      model.LmHeadRows(v0, cv, head_rows->data());
      lm.w = head_rows->data();
    }
    LinearForward(normed, d, rows, lm, logits + v0, vocab);
  }
  // 3. The final soft cap (gemma2 final_logit_softcapping): logits = cap * tanh(logits / cap), before the softmax,
  //    so the predictions and the loss both see it.
  if (c.final_softcap > 0) {
    const float cap = (float)c.final_softcap;
    for (size_t j = 0; j < (size_t)rows * vocab; ++j) logits[j] = cap * std::tanh(logits[j] / cap);
  }
}

// log softmax's normalizer of one row of logits, in double.
double LogZ(const float* row, int vocab) {
  double mx = -INFINITY;
  for (int v = 0; v < vocab; ++v) mx = std::max(mx, (double)row[v]);
  double sum = 0;
  for (int v = 0; v < vocab; ++v) sum += std::exp((double)row[v] - mx);
  return mx + std::log(sum);
}

// The logits of the rows `rows_at` of last_hidden [n, d_model], kRows gathered at a time: each block's
// logits [rows, vocab] handed to on_block(first index into rows_at, rows, logits). Errors: a logit not finite, an
// on_block error; Status::Cancelled() between blocks.
Status ForGatheredRows(const Model& model, const float* last_hidden, const std::vector<int>& rows_at,
                       const RunControl& control,
                       const std::function<Status(size_t r0, int rows, const float* logits)>& on_block) {
  const int d = model.config().d_model, vocab = model.config().vocab;
  std::vector<float> x((size_t)kRows * d), normed((size_t)kRows * d), logits((size_t)kRows * vocab), head_rows;
  for (size_t r0 = 0; r0 < rows_at.size(); r0 += kRows) {
    if (control.cancelled()) return Status::Cancelled();
    const int rows = (int)std::min<size_t>(kRows, rows_at.size() - r0);
    for (int r = 0; r < rows; ++r)
      std::copy(last_hidden + (size_t)rows_at[r0 + r] * d, last_hidden + (size_t)(rows_at[r0 + r] + 1) * d,
                x.begin() + (size_t)r * d);
    LogitsOfRows(model, x.data(), rows, normed.data(), &head_rows, logits.data());
    if (const size_t bad = FirstNotFinite(logits.data(), (size_t)rows * vocab); bad < (size_t)rows * vocab)
      return Status::Error("position " + std::to_string(rows_at[r0 + bad / vocab]) + ": the logit of token " +
                           std::to_string(bad % vocab) + " is not a finite number");
    if (Status st = on_block(r0, rows, logits.data()); !st) return st;
  }
  return Status::Ok();
}

}  // namespace

std::vector<int> TopKIndices(const float* values, int count, int k) {
  ATTNVIZ_CHECK_SHAPE(values && k >= 0 && k <= count, "top ", k, " of ", count, " values");
  auto before = [&](int a, int b) { return values[a] != values[b] ? values[a] > values[b] : a < b; };
  if (k > kScanTopK) {  // inserting into a long list costs k per value (k = vocab: quadratic): sort instead
    std::vector<int> order((size_t)count);
    for (int v = 0; v < count; ++v) order[(size_t)v] = v;
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    order.resize((size_t)k);
    return order;
  }
  if (k == 0) return {};
  std::vector<int> best;  // sorted: values[best[0]] >= values[best[1]] >= ...
  best.reserve((size_t)k + 1);
  for (int v = 0; v < count; ++v) {
    // Scanning in index order, an equal value comes after (below) those already kept.
    if ((int)best.size() == k && !(values[v] > values[best.back()])) continue;
    auto at = std::upper_bound(best.begin(), best.end(), v, [&](int a, int b) { return values[a] > values[b]; });
    best.insert(at, v);
    if ((int)best.size() > k) best.pop_back();
  }
  return best;
}

bool HasLmHead(const Model& model) { return model.has_lm_head(); }

bool PredictsNextToken(const ModelConfig& c) { return !c.recipe.masked_lm; }

namespace {

// Predict from block row `first` on (a multiple of kRows), `out` holding the positions and next_log_prob of the
// rows before it and their loss summed into *loss_sum in row order.
Result<Predictions> PredictFrom(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                                const std::vector<int>& positions, const RunControl& control, int first,
                                Predictions out, double loss_sum);

}  // namespace

Result<Predictions> PredictKeeping(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                                   const Predictions& earlier, int same_rows, const RunControl& control) {
  const int n = (int)ids.size(), n_old = (int)earlier.positions.size();
  // Blocks kept: whole in the earlier run, and every row's next id among the same rows (i + 1 < same_rows).
  int first = 0;
  const bool usable = PredictsNextToken(model.config()) && earlier.next_token && n_old >= 2 &&
                      (int)earlier.next_log_prob.size() == n_old - 1 && same_rows >= 2 && same_rows <= n &&
                      same_rows <= n_old && !earlier.positions.empty() && (int)earlier.positions[0].top.size() == k;
  if (usable) first = std::min(((same_rows - 1) / kRows) * kRows, (n_old / kRows) * kRows);
  Predictions out;
  double loss_sum = 0;
  for (int i = 0; i < first; ++i) {
    if (earlier.positions[(size_t)i].index != i) return Predict(model, last_hidden, ids, k, {}, control);
    out.positions.push_back(earlier.positions[(size_t)i]);
    loss_sum -= earlier.next_log_prob[(size_t)i];
    out.next_log_prob.push_back(earlier.next_log_prob[(size_t)i]);
  }
  return PredictFrom(model, last_hidden, ids, k, {}, control, first, std::move(out), loss_sum);
}

Result<Predictions> Predict(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                            const std::vector<int>& positions, const RunControl& control) {
  return PredictFrom(model, last_hidden, ids, k, positions, control, 0, Predictions(), 0.0);
}

namespace {

Result<Predictions> PredictFrom(const Model& model, const float* last_hidden, const std::vector<int>& ids, int k,
                                const std::vector<int>& positions, const RunControl& control, int first,
                                Predictions out, double loss_sum) {
  const ModelConfig& c = model.config();
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
  std::vector<float> normed((size_t)kRows * d), logits((size_t)kRows * vocab);
  std::vector<float> head_rows;  // [chunk, d_model]: a deferred head's rows
  for (int r0 = first; r0 < n; r0 += kRows) {
    if (control.cancelled()) return Status::Cancelled();
    control.Report("predict", (size_t)r0, (size_t)n);
    const int rows = std::min(kRows, n - r0);
    // A block none of whose rows is wanted (and no loss to take) is skipped.
    bool any = next_token;
    for (int i = r0; i < r0 + rows; ++i) any |= wanted[(size_t)i] != 0;
    if (!any) continue;
    // 1. The logits of the block's rows.
    LogitsOfRows(model, last_hidden + (size_t)r0 * d, rows, normed.data(), &head_rows, logits.data());
    // 3. Per row: log-softmax (double), the top k, the next token's log-probability. Rows in parallel; the loss is
    //    summed in row order after them (the same bits on any number of threads).
    if (const size_t bad = FirstNotFinite(logits.data(), (size_t)rows * vocab); bad < (size_t)rows * vocab)
      return Status::Error("position " + std::to_string(r0 + (int)(bad / vocab)) + ": the logit of token " +
                           std::to_string(bad % vocab) + " is not a finite number");
    std::vector<double> next_log_prob((size_t)rows, 0.0);
    std::vector<PositionTop> tops((size_t)rows);
#pragma omp parallel for schedule(dynamic) if (rows > 1)
    for (int r = 0; r < rows; ++r) {
      const int i = r0 + r;
      const float* row = logits.data() + (size_t)r * vocab;
      const double log_z = LogZ(row, vocab);
      if (next_token && i + 1 < n) next_log_prob[(size_t)r] = (double)row[ids[(size_t)i + 1]] - log_z;
      if (!wanted[(size_t)i]) continue;
      PositionTop& top = tops[(size_t)r];
      top.index = i;
      for (int t : TopKIndices(row, vocab, k)) top.top.push_back({t, std::exp((double)row[t] - log_z)});
    }
    for (int r = 0; r < rows; ++r) {
      const int i = r0 + r;
      if (next_token && i + 1 < n) {
        loss_sum -= next_log_prob[(size_t)r];
        out.next_log_prob.push_back(next_log_prob[(size_t)r]);
      }
      if (wanted[(size_t)i]) out.positions.push_back(std::move(tops[(size_t)r]));
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
  out.next_token = next_token;
  if (next_token && n >= 2) {
    out.has_loss = true;
    out.loss = loss_sum / (n - 1);
    out.perplexity = std::exp(out.loss);
  }
  return out;
}

}  // namespace

Result<std::vector<double>> NextLogProbsAt(const Model& model, const float* last_hidden, const std::vector<int>& ids,
                                           const std::vector<int>& at, const RunControl& control) {
  const ModelConfig& c = model.config();
  const int n = (int)ids.size(), vocab = c.vocab;
  // 0. Checks.
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (!PredictsNextToken(c)) return Status::Error("a masked LM predicts no next token");
  if (n < 2 || !last_hidden) return Status::Error("no next token to predict: fewer than 2 tokens");
  for (int i : at)
    if (i < 0 || i > n - 2)
      return Status::Error(MsgId::kPositionRange, {"position", std::to_string(i), std::to_string(n - 2),
                                                   std::to_string(n - 1)});
  for (int i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      return Status::Error("token " + std::to_string(i) + " has id " + std::to_string(ids[i]) + "; allowed: 0.." +
                           std::to_string(vocab - 1));
  std::vector<int> rows_at = at;
  if (rows_at.empty())
    for (int i = 0; i + 1 < n; ++i) rows_at.push_back(i);
  // 1. Blocks of kRows of the asked rows, gathered: their logits, then each row's log p(next) in parallel.
  std::vector<double> out(rows_at.size());
  const Status gathered = ForGatheredRows(model, last_hidden, rows_at, control, [&](size_t r0, int rows, const float* logits) {
#pragma omp parallel for schedule(dynamic) if (rows > 1)
    for (int r = 0; r < rows; ++r) {
      const float* row = logits + (size_t)r * vocab;
      out[r0 + r] = (double)row[ids[(size_t)rows_at[r0 + r] + 1]] - LogZ(row, vocab);
    }
    return Status::Ok();
  });
  if (!gathered) return gathered;
  return out;
}

Result<std::vector<PositionTop>> TopTokensAt(const Model& model, const float* last_hidden, int n, int k,
                                             const std::vector<int>& at, const RunControl& control) {
  const ModelConfig& c = model.config();
  const int vocab = c.vocab;
  // 0. Checks.
  if (!model.has_lm_head()) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (k < 1 || k > vocab) return Status::Error(MsgId::kTopKRange, {std::to_string(k), std::to_string(vocab)});
  if (at.empty() || !last_hidden) return Status::Error("no position to predict at");
  for (int i : at)
    if (i < 0 || i >= n)
      return Status::Error(MsgId::kPositionRange, {"position", std::to_string(i), std::to_string(n - 1),
                                                   std::to_string(n)});
  // 1. The asked rows' logits, gathered; each row's top k (as Predict: log-softmax in double, ties to the lower id).
  std::vector<PositionTop> out(at.size());
  const Status gathered = ForGatheredRows(model, last_hidden, at, control, [&](size_t r0, int rows, const float* logits) {
#pragma omp parallel for schedule(dynamic) if (rows > 1)
    for (int r = 0; r < rows; ++r) {
      const float* row = logits + (size_t)r * vocab;
      const double log_z = LogZ(row, vocab);
      PositionTop& top = out[r0 + (size_t)r];
      top.index = at[r0 + (size_t)r];
      for (int t : TopKIndices(row, vocab, k)) top.top.push_back({t, std::exp((double)row[t] - log_z)});
    }
    return Status::Ok();
  });
  if (!gathered) return gathered;
  return out;
}

}  // namespace attnviz::model
