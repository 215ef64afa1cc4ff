#include "model/analysis.h"

#include <Eigen/Core>
#include <omp.h>
#include <algorithm>
#include <numeric>
#include <limits>
#include <cmath>
#include <string>

#include "base/matmul.h"
#include "base/memory_budget.h"
#include "base/tensor.h"
#include "base/check.h"
#include "model/predict.h"
#include "model/rope.h"

namespace attnviz::model {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMat = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;

Status Range(const char* what, int value, int count, int tokens) {
  return Status::Error(MsgId::kPositionRange,
                       {what, std::to_string(value), std::to_string(count - 1), std::to_string(tokens)});
}

// Row i of head h of a HeadsView.
const float* RowOf(const HeadsView& v, size_t h, size_t i) { return v.data + h * v.head_stride + i * v.row_stride; }

}  // namespace

Status CheckNeuron(const ModelConfig& c, int n, int layer, int head, int i, int j) {
  if (layer < 0 || layer >= c.n_layer)
    return Status::Error(MsgId::kLayerRange,
                         {std::to_string(layer), std::to_string(c.n_layer - 1), std::to_string(c.n_layer)});
  if (head < 0 || head >= c.n_head)
    return Status::Error(MsgId::kHeadRange, {std::to_string(head), std::to_string(layer),
                                             std::to_string(c.n_head - 1), std::to_string(c.n_head)});
  if (i < 0 || i >= n) return Range("query i", i, n, n);
  if (j < 0 || j >= n) return Range("key j", j, n, n);
  return Status::Ok();
}

void SetNeuronProduct(const float* q, const float* k, int d_head, NeuronView* v) {
  v->q.assign(q, q + d_head);
  v->k.assign(k, k + d_head);
  v->product.resize((size_t)d_head);
  double score = 0;
  for (int t = 0; t < d_head; ++t) {
    v->product[(size_t)t] = q[t] * k[t];
    score += (double)q[t] * k[t];
  }
  v->score = score;
}

NeuronView Neuron(const ModelConfig& c, const LayerOutput& out, int head, int i, int j) {
  const int n = out.n, dh = c.d_head, group = c.n_head / c.n_kv_head;
  ATTNVIZ_CHECK_SHAPE(head >= 0 && head < c.n_head && i >= 0 && i < n && j >= 0 && j < n, "head ", head, " of ",
                      c.n_head, ", query ", i, " and key ", j, " of ", n, " tokens");
  ATTNVIZ_CHECK_SHAPE(out.q.data && out.k.data && (int)out.q.d == dh && (int)out.k.n_head == c.n_kv_head, "q [",
                      out.q.n_head, ", ", out.q.n, ", ", out.q.d, "] vs k [", out.k.n_head, ", ", out.k.n, ", ", out.k.d,
                      "], d_head ", dh, ", n_kv_head ", c.n_kv_head);
  NeuronView v;
  v.layer = out.layer, v.head = head, v.i = i, v.j = j;
  // 1. q_i, k_j (after RoPE) and their product, summed in double.
  const float* q = RowOf(out.q, (size_t)head, (size_t)i);
  const float* k = RowOf(out.k, (size_t)(head / group), (size_t)j);
  SetNeuronProduct(q, k, dh, &v);
  const double score = v.score;
  v.scale = out.multiplier;
  v.scale_source = !c.scale_attn ? "none" : c.query_pre_attn_scalar > 0 ? "query_pre_attn_scalar" : "head_dim";
  v.softcap = out.softcap;
  // The logit as the pass makes it (double): soft-capped when the layer has a cap.
  auto capped = [&](double l) { return out.softcap > 0 ? out.softcap * std::tanh(l / out.softcap) : l; };
  v.uncapped_logit = score * out.multiplier;
  v.logit = capped(v.uncapped_logit);
  // 2. The probability: the pass's own when kept, else the softmax of row i recomputed (double) from q and k.
  const Mask mask = AttentionMask(c, out.layer);
  const int begin = std::max(0, mask.Begin(i)), end = mask.End(i, n);
  v.masked = j < begin || j >= end;
  if (v.masked) {
    v.prob = 0;
  } else if (out.probs) {
    v.prob = out.probs[((size_t)head * n + i) * n + j];
  } else {
    double mx = -INFINITY;
    std::vector<double> logits((size_t)(end - begin));
    for (int jj = begin; jj < end; ++jj) {
      const float* kk = RowOf(out.k, (size_t)(head / group), (size_t)jj);
      double s = 0;
      for (int t = 0; t < dh; ++t) s += (double)q[t] * kk[t];
      logits[(size_t)(jj - begin)] = capped(s * out.multiplier);
      mx = std::max(mx, logits[(size_t)(jj - begin)]);
    }
    double sum = 0;
    for (double& l : logits) sum += (l = std::exp(l - mx));
    v.prob = logits[(size_t)(j - begin)] / sum;
  }
  // 3. RoPE families: rotate back by the angles of positions i and j (rope.h: pairs (t, t + half) of the first
  //    rope_dim dims; the rest were passed through). The tables are the run's (longrope picks its factors by n and
  //    scales cos and sin by its attention factor: the inverse divides by cos^2 + sin^2).
  if (c.recipe.rope) {
    v.rope = true;
    std::vector<float> cos, sin;
    RopeTablesOfLayer(c, out.layer, n, &cos, &sin);
    const int half = c.rope_dim() / 2;
    auto unrotate = [&](const std::vector<float>& x, int pos) {
      std::vector<float> y = x;
      for (int t = 0; t < half; ++t) {
        const double co = cos[(size_t)pos * half + t], si = sin[(size_t)pos * half + t], det = co * co + si * si;
        y[(size_t)t] = (float)((x[(size_t)t] * co + x[(size_t)t + half] * si) / det);
        y[(size_t)t + half] = (float)((x[(size_t)t + half] * co - x[(size_t)t] * si) / det);
      }
      return y;
    };
    v.q_before_rope = unrotate(v.q, i);
    v.k_before_rope = unrotate(v.k, j);
  }
  // 4. q/k-norm families: the projections' rows before the norms, as the run kept them.
  if (out.q_before_norm.data && out.k_before_norm.data) {
    v.qk_norm = true;
    const float* qn = RowOf(out.q_before_norm, (size_t)head, (size_t)i);
    const float* kn = RowOf(out.k_before_norm, (size_t)(head / group), (size_t)j);
    v.q_before_norm.assign(qn, qn + dh);
    v.k_before_norm.assign(kn, kn + dh);
  }
  return v;
}

double RolloutMemoryBytes(size_t n) { return 3.0 * (double)n * (double)n * sizeof(float); }

Status CheckRolloutMemory(size_t n) {
  const int f = RolloutFactor((int)n);
  const double need = f > 1 ? PooledRolloutMemoryBytes(n, f) : RolloutMemoryBytes(n);
  const size_t limit = MemoryLimitBytes();
  if (need <= (double)limit) return Status::Ok();
  return Status::Error(MsgId::kAnalysisMemory,
                       {"attention rollout", MemoryText(need), MemoryText((double)limit), std::to_string(n)});
}

// The matrices come with the first layer added: a run makes its rollout after every map is on screen, and zeroing
// them at its start would hold up the app's first layer.
Rollout::Rollout(int n) : n_(n) {}

void Rollout::Allocate() {
  const size_t nn = (size_t)n_ * n_;
  if (a_.size() == nn) return;
  a_.resize(nn);
  r_.resize(nn);
  next_.resize(nn);
}

void Rollout::AddLayer(const float* probs, int n_head, float* out) {
  ATTNVIZ_CHECK_SHAPE(probs && n_head > 0, "probs [", n_head, ", n, n]");
  Allocate();
  HeadMean(probs, n_head, 0);
  Advance(out);
}

void Rollout::AddLayerKeeping(const float* probs, int n_head, const float* kept_r, int kept_n, int kept_rows,
                              float* out) {
  ATTNVIZ_CHECK_SHAPE(probs && n_head > 0 && kept_r && kept_rows > 0 && kept_rows <= std::min(kept_n, n_) &&
                          (layers_ == 0 || lower_),
                      "probs [", n_head, ", n, n], kept rollout rows ", kept_rows, " of [", kept_n, ", ", kept_n,
                      "] for [", n_, ", ", n_, "]", layers_ > 0 && !lower_ ? " (!! the rollout so far is not lower triangular)" : "");
  Allocate();
  HeadMean(probs, n_head, (size_t)kept_rows);
  Advance(out, kept_r, kept_n, kept_rows);
}

void Rollout::HeadMean(const float* probs, int n_head, size_t first_row) {
  // 1. The head mean, summed in double (rows from first_row).
  const size_t n = (size_t)n_, nn = n * n;
  for (size_t c = first_row * n; c < nn; ++c) {
    double m = 0;
    for (int h = 0; h < n_head; ++h) m += probs[(size_t)h * nn + c];
    a_[c] = (float)(m / n_head);
  }
}

void Rollout::AddMeanLayer(const float* head_mean, float* out) {
  ATTNVIZ_CHECK_SHAPE(head_mean, "no head mean [n, n]");
  Allocate();
  std::copy(head_mean, head_mean + (size_t)n_ * n_, a_.begin());
  Advance(out);
}

void Rollout::AddMeanLayerKeeping(const float* head_mean, const float* kept_r, int kept_n, int kept_rows, float* out) {
  ATTNVIZ_CHECK_SHAPE(head_mean && kept_r && kept_rows > 0 && kept_rows <= std::min(kept_n, n_) &&
                          (layers_ == 0 || lower_),
                      "kept rollout rows ", kept_rows, " of [", kept_n, ", ", kept_n, "] for [", n_, ", ", n_, "]",
                      layers_ > 0 && !lower_ ? " (!! the rollout so far is not lower triangular)" : "");
  Allocate();
  const size_t from = (size_t)kept_rows * n_;
  std::copy(head_mean + from, head_mean + (size_t)n_ * n_, a_.begin() + (ptrdiff_t)from);
  Advance(out, kept_r, kept_n, kept_rows);
}

void Rollout::Advance(float* out, const float* kept_r, int kept_n, int kept_rows) {
  const size_t n = (size_t)n_, first = (size_t)kept_rows;
  // 1. A^ = 0.5 mean_h(A_h) + 0.5 I (a_ holds the mean), rows divided by their sums.
  for (size_t i = first; i < n; ++i) {
    double row_sum = 0;
    for (size_t j = 0; j < n; ++j) {
      const double a = 0.5 * a_[i * n + j] + (i == j ? 0.5 : 0.0);
      a_[i * n + j] = (float)a;
      row_sum += a;
    }
    for (size_t j = 0; j < n; ++j) a_[i * n + j] = (float)(a_[i * n + j] / row_sum);
  }
  // A kept prefix: its rows of R as they were (a causal rollout's rows before a row never see it), the rest below.
  auto keep_rows = [&](std::vector<float>& r) {
    for (size_t i = 0; i < first; ++i) {
      const size_t cols = std::min(n, (size_t)kept_n);
      std::copy_n(kept_r + i * (size_t)kept_n, cols, r.begin() + (ptrdiff_t)(i * n));
      std::fill(r.begin() + (ptrdiff_t)(i * n + cols), r.begin() + (ptrdiff_t)((i + 1) * n), 0.0f);
    }
  };
  // 2. R_0 = A^_0; R_l = A^_l R_(l-1). A causal model's A^ is lower triangular (every cell above the diagonal an
  //    exact 0), and so is every R: a band of rows I then needs only A^[I, :e] R[:e, :e] (e = the band's end), a
  //    third of the full product's FLOPs; the terms left out are exact zeros. A kept prefix's rows are not made: a
  //    band's rows from `first` on are, tiled as the whole band (MatMulTiled's first_row), so with its bits.
  bool lower = true;  // over the rows made (the kept ones were, by the caller's word)
  for (size_t i = first; i + 1 < n && lower; ++i)
    for (size_t j = i + 1; j < n; ++j)
      if (a_[i * n + j] != 0.0f) {
        lower = false;
        break;
      }
  if (layers_ == 0) {
    std::copy(a_.begin() + (ptrdiff_t)(first * n), a_.end(), r_.begin() + (ptrdiff_t)(first * n));
    keep_rows(r_);
    lower_ = lower;
  } else if (lower && lower_) {
    // The bands over the team, the widest first (each band's product runs on its thread: MatMulTiled nested).
    const int bands = (n_ + kTriangularBand - 1) / kTriangularBand;
#pragma omp parallel for schedule(dynamic) if ((double)(n - first) * n * n > 3e6)
    for (int band = bands - 1; band >= 0; --band) {
      const size_t i0 = (size_t)band * kTriangularBand;
      const size_t e = std::min(n, i0 + kTriangularBand), start = std::max(i0, first);
      if (start >= e) continue;
      const size_t rows = e - start;
      float* next_rows = next_.data() + start * n;  // [rows, n]
      MatMulTiled(a_.data() + start * n, n, rows, e, r_.data(), n, WeightLayout::kInOut, e, next_rows, n, nullptr,
                  nullptr, start - i0);
      for (size_t i = 0; i < rows; ++i) std::fill(next_rows + i * n + e, next_rows + (i + 1) * n, 0.0f);
    }
    keep_rows(next_);
    std::swap(r_, next_);
  } else {
    ATTNVIZ_CHECK_SHAPE(first == 0, "a kept rollout prefix of ", first, " rows !! under a map that is not lower triangular");
    MatMulTiled(a_.data(), n, n, n, r_.data(), n, WeightLayout::kInOut, n, next_.data(), n);
    std::swap(r_, next_);
    lower_ = false;
  }
  ++layers_;
  if (out) std::copy(r_.begin(), r_.end(), out);
}

int RolloutPoolFactor(int n, int max_blocks) {
  ATTNVIZ_CHECK_SHAPE(n > 0 && max_blocks > 0, n, " tokens into at most ", max_blocks, " blocks");
  int f = 1;
  while (RolloutBlocks(n, f) > max_blocks) f *= 2;
  return f;
}

double PooledRolloutMemoryBytes(size_t n, int factor) {
  const double nb = (double)RolloutBlocks((int)n, factor);
  return RolloutMemoryBytes((size_t)nb) + PooledRolloutRows::Shards() * nb * nb * sizeof(double);
}

int PooledRolloutRows::Shards() { return std::clamp(omp_get_max_threads(), 1, kShards); }

PooledRolloutRows::PooledRolloutRows(int n, int factor, bool causal)
    : n_(n), f_(factor), nb_(RolloutBlocks(n, factor)), causal_(causal) {
  ATTNVIZ_CHECK_SHAPE(n > 0 && factor > 0, n, " tokens, ", factor, " a block");
  for (int s = Shards(); s > 0; --s) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->sums.assign((size_t)nb_ * nb_, 0.0);
  }
}

void PooledRolloutRows::SkipRowsBefore(int first_row) {
  ATTNVIZ_CHECK_SHAPE(first_row >= 0 && first_row <= n_ && first_row % f_ == 0, "first row ", first_row, " of ", n_,
                      " (a multiple of ", f_, ")");
  first_row_ = first_row;
}

void PooledRolloutRows::AddRows(int r0, int rows, const float* probs) {
  ATTNVIZ_CHECK_SHAPE(probs && r0 >= 0 && rows >= 0 && r0 + rows <= n_, "rows ", r0, "..", r0 + rows, " of ", n_);
  if (r0 < first_row_) {  // rows not needed (SkipRowsBefore)
    const int skip = std::min(rows, first_row_ - r0);
    probs += (size_t)skip * n_, r0 += skip, rows -= skip;
  }
  if (rows == 0) return;
  const int I0 = r0 / f_, I1 = (r0 + rows - 1) / f_ + 1;
  Shard& shard = *shards_[(size_t)omp_get_thread_num() % shards_.size()];
  // The keys row i may see: all, or causal up to its diagonal (the rest are 0 and add nothing).
  auto seen = [&](int i) { return causal_ ? std::min(n_, i + 1) : n_; };
  if (f_ == 1) {  // exact: each probability into its own cell (a [rows, n] buffer of sums would cost more)
    std::lock_guard<std::mutex> lock(shard.mutex);
    for (int r = 0; r < rows; ++r) {
      const float* p = probs + (size_t)r * n_;
      double* out = shard.sums.data() + (size_t)(r0 + r) * n_;
      for (int j = 0, end = seen(r0 + r); j < end; ++j) out[j] += p[j];
    }
    return;
  }
  // 1. The block's column-block sums per pooled row, unlocked: [I1 - I0, nb].
  thread_local std::vector<double> part;
  part.assign((size_t)(I1 - I0) * nb_, 0.0);
  for (int r = 0; r < rows; ++r) {
    const float* p = probs + (size_t)r * n_;
    double* out = part.data() + (size_t)((r0 + r) / f_ - I0) * nb_;
    const int keys = seen(r0 + r);
    for (int J = 0, blocks = (keys + f_ - 1) / f_; J < blocks; ++J) {
      const int j1 = std::min(keys, (J + 1) * f_);
      double s = 0;
      for (int j = J * f_; j < j1; ++j) s += p[j];
      out[J] += s;
    }
  }
  // 2. Into this thread's shard of the layer's sums, one writer at a time.
  std::lock_guard<std::mutex> lock(shard.mutex);
  double* sums = shard.sums.data() + (size_t)I0 * nb_;
  for (size_t c = 0; c < part.size(); ++c) sums[c] += part[c];
}

void PooledRolloutRows::AddMap(const float* probs, int n_head) {
  ATTNVIZ_CHECK_SHAPE(probs && n_head > 0, "probs [", n_head, ", n, n]");
  const size_t nn = (size_t)n_ * n_;
  if (f_ == 1) {  // head by head into each cell of shard 0 (the others add 0): Rollout::AddLayer's order of sums
    std::vector<double>& sums = shards_[0]->sums;
    for (int h = 0; h < n_head; ++h)
      for (size_t c = 0; c < nn; ++c) sums[c] += probs[(size_t)h * nn + c];
    return;
  }
  for (int h = 0; h < n_head; ++h) AddRows(0, n_, probs + (size_t)h * nn);
}

void PooledRolloutRows::TakeMean(int n_head, float* mean) {
  ATTNVIZ_CHECK_SHAPE(mean && n_head > 0, "mean [nb, nb] of ", n_head, " heads");
  std::vector<std::unique_lock<std::mutex>> locks;
  for (auto& shard : shards_) locks.emplace_back(shard->mutex);
  const size_t nb = (size_t)nb_, shards = shards_.size();
#pragma omp parallel for schedule(static) if (nb * nb * shards > (1u << 18))
  for (int I = first_row_ / f_; I < nb_; ++I) {
    const int rows_in = std::min(n_, (I + 1) * f_) - I * f_;
    // f = 1: m / n_head exactly as Rollout::AddLayer divides.
    const double d = (double)n_head * rows_in;
    // Causal: block I's rows see no key past its last row, so the blocks J > I summed nothing.
    const size_t blocks = causal_ ? (size_t)I + 1 : nb;
    std::fill(mean + (size_t)I * nb + blocks, mean + (size_t)I * nb + nb, 0.0f);
    for (size_t J = 0; J < blocks; ++J) {
      double sum = 0;
      for (size_t s = 0; s < shards; ++s) {
        double& cell = shards_[s]->sums[(size_t)I * nb + J];
        sum += cell;
        cell = 0;
      }
      mean[(size_t)I * nb + J] = (float)(sum / d);
    }
  }
}

void ValueNorms(const Model& model, const LayerOutput& out, float* value_norm) {
  const ModelConfig& c = model.config();
  ATTNVIZ_CHECK_SHAPE(out.probs && value_norm, "probs [", out.n_head, ", ", out.n, ", ", out.n, "] and a value-norm buffer");
  const size_t n = (size_t)out.n;
  std::vector<float> norms((size_t)c.n_head * n);
  ValueNormScales(model, out, norms.data());
  for (int h = 0; h < c.n_head; ++h)
    ScaleColumns(out.probs + (size_t)h * n * n, norms.data() + (size_t)h * n, (int)n, (int)n,
                 value_norm + (size_t)h * n * n);
}

void ScaleColumns(const float* probs, const float* scale, int rows, int n, float* out) {
  for (size_t i = 0; i < (size_t)rows; ++i)
    for (size_t j = 0; j < (size_t)n; ++j) out[i * n + j] = probs[i * n + j] * scale[j];
}

void ValueNormScales(const Model& model, const LayerOutput& out, float* norms_out, int first_key) {
  const ModelConfig& c = model.config();
  ATTNVIZ_CHECK_SHAPE(out.layer >= 0 && out.layer < c.n_layer && out.v.data && norms_out, "layer ", out.layer, " of ",
                      c.n_layer, ", v [", out.v.n_head, ", ", out.v.n, ", ", out.v.d, "]");
  // !! The run's bound weights: a per-layer (quantized GGUF) model has null matrices in params().blocks. A
  // LayerOutput made without a run dequantizes the layer once more.
  WeightScratch scratch;
  const Linear& o = out.weights ? out.weights->o : model.BlockWeights(out.layer, &scratch).o;
  const int n = out.n, dh = c.d_head, d = c.d_model;
  ATTNVIZ_CHECK_SHAPE(o.w && o.in == c.q_dim() && o.out == d && (int)out.v.d == dh, "W_o [", o.out, ", ", o.in,
                      "] vs [", d, ", ", c.q_dim(), "], v width ", out.v.d, " vs d_head ", dh);
  HeadValueNorms(o, out.v, n, c.n_head, norms_out, first_key);
}

void HeadValueNorms(const Linear& o, const HeadsView& v_heads, int n, int n_head, float* norms_out, int first_key) {
  const int dh = (int)v_heads.d, d = o.out, group = n_head / std::max<int>(1, (int)v_heads.n_head);
  ATTNVIZ_CHECK_SHAPE(o.w && o.in == n_head * dh && v_heads.data && (int)v_heads.n >= n && first_key >= 0 &&
                          first_key <= n && n_head % group == 0 &&
                          (int)v_heads.n_head * group == n_head,
                      "W_o [", o.out, ", ", o.in, "] vs ", n_head, " heads x ", dh, ", v [", v_heads.n_head, ", ",
                      v_heads.n, ", ", dh, "] for ", n, " keys");
  // Heads are independent (each writes its own row of norms_out); each head's products are too small for Eigen
  // to thread.
#pragma omp parallel for schedule(dynamic) if ((double)n_head * n * dh * dh > 1e6)
  for (int h = 0; h < n_head; ++h) {
    // 1. G = W_o^h W_o^h^T [d_head, d_head]: ||v_j W_o^h||^2 = v_j G v_j^T, so the [n, d_model] product v^h W_o^h is
    //    never made (d_head^2 a key instead of d_head * d_model: 12x less at GPT-2's 64 and 768). In float, as the
    //    forward (the tests hold the norms to torch's).
    RowMat g(dh, dh);
    if (o.in_out)  // !! Conv1D [in, out]: rows h*d_head..
      g.noalias() = ConstMat(o.w + (size_t)h * dh * o.ld, dh, d, Eigen::OuterStride<>(o.ld)) *
                    ConstMat(o.w + (size_t)h * dh * o.ld, dh, d, Eigen::OuterStride<>(o.ld)).transpose();
    else  // nn.Linear [out, in]: columns h*d_head..
      g.noalias() = ConstMat(o.w + (size_t)h * dh, d, dh, Eigen::OuterStride<>(o.ld)).transpose() *
                    ConstMat(o.w + (size_t)h * dh, d, dh, Eigen::OuterStride<>(o.ld));
    // 2. v^h G, then each key's quadratic form (clamped at 0: G is positive semidefinite, rounding is not).
    const int keys = n - first_key;
    const auto v = ConstMat(RowOf(v_heads, (size_t)(h / group), (size_t)first_key), keys, dh,
                            Eigen::OuterStride<>((Eigen::Index)v_heads.row_stride));  // [keys, d_head]
    const RowMat vg = v * g;
    for (int j = 0; j < keys; ++j)
      norms_out[(size_t)h * n + first_key + j] = std::sqrt(std::max(0.0f, vg.row(j).dot(v.row(j))));
  }
}

namespace {

// Keeps the residual stream after the embeddings (or the resumed layer) and after each block: [n_layer + 1, n, d].
class HiddenSink : public LayerSink {
 public:
  HiddenSink(size_t per, int n_layer) : per_(per), hidden((size_t)(n_layer + 1) * per) {}
  Status OnEmbeddings(const float* h, int, int) override {
    std::copy(h, h + per_, hidden.begin());
    return Status::Ok();
  }
  Status OnLayer(const LayerOutput& out) override {
    std::copy(out.hidden, out.hidden + per_, hidden.begin() + (size_t)(out.layer + 1) * per_);
    return Status::Ok();
  }
  size_t per_;
  std::vector<float> hidden;
};

// The base run of the scan: HiddenSink's streams, and what each head writes (ScanHeadAblations' order).
class ScanBaseSink : public HiddenSink {
 public:
  ScanBaseSink(const Model& model, size_t per)
      : HiddenSink(per, model.config().n_layer), model_(model),
        output_norm((size_t)model.config().n_layer * model.config().n_head, 0.0) {}
  Status OnLayer(const LayerOutput& out) override {
    if (Status s = HiddenSink::OnLayer(out); !s) return s;
    if (!out.z.data) return Status::Ok();  // no z: the order stays layer-major
    WeightScratch scratch;
    const Linear& o = out.weights ? out.weights->o : model_.BlockWeights(out.layer, &scratch).o;
    norms_.resize((size_t)out.n_head * out.n);
    HeadValueNorms(o, out.z, out.n, out.n_head, norms_.data());  // ||z_h,i W_o^h||: z as n_head "value" heads
    for (int h = 0; h < out.n_head; ++h) {
      double sum = 0;
      for (int i = 0; i < out.n; ++i) sum += norms_[(size_t)h * out.n + i];
      output_norm[(size_t)out.layer * out.n_head + h] = sum;
    }
    return Status::Ok();
  }
  const Model& model_;
  std::vector<double> output_norm;  // [n_layer, n_head]

 private:
  std::vector<float> norms_;
};

}  // namespace

namespace {

// The loss of a scan's run: the mean of -log p(next) over the positions ScanHeadAblations reads (NextLogProbsAt:
// the LM head over those rows only), summed in their order.
Result<double> ScanLoss(const Model& model, const float* last_hidden, const std::vector<int>& ids,
                        const std::vector<int>& at) {
  auto log_p = NextLogProbsAt(model, last_hidden, ids, at);
  if (!log_p) return log_p.status();
  double sum = 0;
  for (double lp : *log_p) sum -= lp;
  return sum / (double)log_p->size();
}

}  // namespace

Result<AblationScan> ScanHeadAblations(const Model& model, const std::vector<int>& ids, const RunOptions& base,
                                       const std::vector<int>& loss_at) {
  const ModelConfig& c = model.config();
  if (!HasLmHead(model)) return Status::Error(MsgId::kNoLmHead, {c.model_type});
  if (!PredictsNextToken(c) || ids.size() < 2)
    return Status::Error("the ablation scan ranks heads by the next-token loss: it needs a model that predicts the "
                         "next token and at least 2 tokens");
  std::vector<bool> seen(ids.size() - 1, false);
  for (int i : loss_at) {
    if (i < 0 || i > (int)ids.size() - 2)
      return Status::Error(MsgId::kScanPositionRange, {std::to_string(i), std::to_string(ids.size() - 2)});
    if (seen[(size_t)i]) return Status::Error(MsgId::kScanPositionTwice, {std::to_string(i)});
    seen[(size_t)i] = true;
  }
  const size_t per = ids.size() * (size_t)c.d_model;
  // 1. The base run: every block's residual stream, no maps.
  RunOptions o = base;
  o.stream_maps = true;
  o.first_layer = 0, o.resume_hidden = nullptr;
  o.caller_bytes += (c.n_layer + 1.0) * per * sizeof(float);
  ScanBaseSink all(model, per);
  const size_t total = (size_t)c.n_layer * c.n_head;
  o.control.progress = nullptr;  // the scan counts heads, never the layers of its runs
  base.control.Report("heads", 0, total);
  if (Status s = RunModel(model, ids, o, &all); !s) return s;
  auto base_loss = ScanLoss(model, all.hidden.data() + (size_t)c.n_layer * per, ids, loss_at);
  if (!base_loss) return base_loss.status();
  AblationScan scan;
  scan.loss_at = loss_at;
  scan.base_loss = *base_loss;
  scan.loss.assign(total, std::numeric_limits<double>::quiet_NaN());
  scan.output_norm = all.output_norm;
  scan.order.resize(total);
  std::iota(scan.order.begin(), scan.order.end(), 0);
  std::stable_sort(scan.order.begin(), scan.order.end(),
                   [&](int a, int b) { return scan.output_norm[(size_t)a] > scan.output_norm[(size_t)b]; });
  // 2. Each head, the largest writers first: resume at its layer from the base stream, with that head ablated too.
  //    A cancel keeps the heads done.
  HiddenSink one(per, c.n_layer);
  for (const int index : scan.order) {
    const int l = index / c.n_head, h = index % c.n_head;
    RunOptions a = o;
    a.ablate.push_back({l, h});
    a.first_layer = l;
    a.resume_hidden = all.hidden.data() + (size_t)l * per;
    const Status s = RunModel(model, ids, a, &one);
    if (s.cancelled()) return scan;
    if (!s) return s;
    auto loss = ScanLoss(model, one.hidden.data() + (size_t)c.n_layer * per, ids, loss_at);
    if (!loss) return loss.status();
    scan.loss[(size_t)index] = *loss;
    base.control.Report("heads", ++scan.heads_done, total);
  }
  scan.complete = true;
  return scan;
}

}  // namespace attnviz::model
