#include "sandbox/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>

#include "attention/attention.h"
#include "sandbox/embedding.h"
#include "sandbox/pipeline.h"
#include "sandbox/qkv_source.h"
#include "sandbox/score.h"
#include "sandbox/weights.h"

namespace attnviz {

void SampledScores(const Tensor& xs, const Tensor& x, const ProjectionWeights& w, Tensor* scores) {
  const Eigen::Index m = (Eigen::Index)xs.dim(0), n_k = (Eigen::Index)x.dim(0), d_model = (Eigen::Index)x.dim(1);
  const Eigen::Index d_k = w.d_k, n_head = w.n_head;
  const bool fused = w.layout == QkvLayout::kFused;
  const Tensor& wq = fused ? w.w_qkv : w.w_q;
  const Tensor& wk = fused ? w.w_qkv : w.w_k;
  const Eigen::Index k_col0 = fused ? n_head * d_k : 0;  // fused columns: [ Q heads | K heads | V heads ]
  scores->Resize({(size_t)n_head, (size_t)m, (size_t)n_k});
  const double direct = (double)d_k * ((double)m * d_model + (double)n_k * d_model + (double)m * n_k);
  const double reassociated = (double)m * d_model * (2.0 * d_k + n_k);
  using Columns = Eigen::Map<const RowMatrix, 0, Eigen::OuterStride<>>;
#pragma omp parallel for schedule(static) if (n_head > 1 && direct > 1e6)
  for (Eigen::Index h = 0; h < n_head; ++h) {
    Columns wq_h(wq.data.data() + h * d_k, d_model, d_k, Eigen::OuterStride<>((Eigen::Index)wq.dim(1)));
    Columns wk_h(wk.data.data() + k_col0 + h * d_k, d_model, d_k, Eigen::OuterStride<>((Eigen::Index)wk.dim(1)));
    const RowMatrix q_h = xs.Matrix() * wq_h;  // [m, d_k]
    if (direct <= reassociated) {
      const RowMatrix k_h = x.Matrix() * wk_h;  // [n_k, d_k]
      scores->Slice((size_t)h).noalias() = q_h * k_h.transpose();
    } else {
      const RowMatrix qw_h = q_h * wk_h.transpose();  // [m, d_model]
      scores->Slice((size_t)h).noalias() = qw_h * x.Matrix().transpose();
    }
  }
}

std::vector<int> DefaultSweepDks() {
  std::vector<int> d_ks;
  for (int d = 1; d <= kMaxHeadDim; d *= 2) d_ks.push_back(d);
  return d_ks;
}

SweepOptions StandardSweepOptions(size_t n_query_rows) {
  SweepOptions options;
  if (options.sample_above_rows > 0 && n_query_rows > (size_t)options.sample_above_rows) options.n_seeds = 1;
  return options;
}

namespace {

// Sampled: per point, per (seed, head) stratum, the sums and squares of each row figure.
struct Stratum {
  double n = 0, s[4] = {0, 0, 0, 0}, sq[4] = {0, 0, 0, 0};
};

// The sampled query rows: the same for every d_k, scaled and unscaled (paired differences stay smooth).
std::vector<int> SampleRows(int n_q, int count, uint64_t seed) {
  std::vector<int> rows((size_t)n_q);
  std::iota(rows.begin(), rows.end(), 0);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 12345);
  std::shuffle(rows.begin(), rows.end(), rng);
  rows.resize((size_t)count);
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Head h's sampled rows (scores [n_head, rows, n_k]) into `point` (a mean over the heads) and one stratum.
// Each row's figures are made rows in parallel (each thread with its own scratch), then summed in row order.
void AddSampledHead(const Tensor& scores, const std::vector<int>& rows, int h, int n_k, MaskKind mask_kind,
                    float multiplier, float softcap, int n_head, SweepPoint* point, std::vector<Stratum>* strata) {
  struct RowFigures {
    RowMetrics m;
    double logit_mean = 0, logit_std = 0;
    int visible = 0;
  };
  std::vector<RowFigures> figures(rows.size());
#pragma omp parallel if (rows.size() * (size_t)n_k > (1u << 18))
  {
    Tensor row_scores, row_logits, row_probs;
    std::vector<HeadMetrics> row_heads;
#pragma omp for schedule(dynamic, 4)
    for (long long r = 0; r < (long long)rows.size(); ++r) {
      // The row as the full pass sees it: its visible keys (causal: keys up to its own index).
      RowFigures& fig = figures[(size_t)r];
      fig.visible = Mask(mask_kind).Visible(rows[(size_t)r], n_k);
      const float* srow = scores.data.data() + ((size_t)h * rows.size() + (size_t)r) * n_k;
      row_scores.Resize({1, 1, (size_t)fig.visible});
      std::copy(srow, srow + fig.visible, row_scores.data.begin());
      LogitsSoftmax(row_scores, multiplier, MaskKind::kNone, &row_logits, &row_probs, softcap);
      ComputeMetrics(row_logits, row_probs, MaskKind::kNone, &row_heads);
      fig.m = row_heads[0].rows[0];
      fig.logit_mean = row_heads[0].logit_mean;
      fig.logit_std = row_heads[0].logit_std;
    }
  }
  Stratum st;
  double l_sum = 0, l_sq = 0, l_count = 0, effective = 0;
  for (const RowFigures& fig : figures) {
    const RowMetrics& m = fig.m;
    const double f[4] = {m.max_weight, m.entropy, m.norm_entropy, m.grad_norm};
    for (int i = 0; i < 4; ++i) st.s[i] += f[i], st.sq[i] += f[i] * f[i];
    st.n += 1;
    effective += m.effective_keys;
    const double lm = fig.logit_mean, ls = fig.logit_std;
    l_sum += lm * fig.visible;
    l_sq += (ls * ls + lm * lm) * fig.visible;
    l_count += fig.visible;
  }
  const double mean = l_sum / l_count;
  const double inv = 1.0 / (n_head * st.n);
  point->max_weight += (float)(st.s[0] * inv);
  point->entropy += (float)(st.s[1] * inv);
  point->norm_entropy += (float)(st.s[2] * inv);
  point->grad_norm += (float)(st.s[3] * inv);
  point->effective_keys += (float)(effective * inv);
  point->logit_std += (float)(std::sqrt(std::max(0.0, l_sq / l_count - mean * mean)) / n_head);
  strata->push_back(st);
}

// The whole pass's figures of one seed: the heads' mean added to the point.
void AddFullPass(const HeadMetrics& mean, SweepPoint* point) {
  point->max_weight += mean.max_weight;
  point->entropy += mean.entropy;
  point->norm_entropy += mean.norm_entropy;
  point->effective_keys += mean.effective_keys;
  point->grad_norm += mean.grad_norm;
  point->logit_std += mean.logit_std;
  point->seeds += 1;
}

// The sums over seeds into means; sampled, the error bars from the strata.
void FinishPoint(const std::vector<Stratum>& ss, bool sampled, int rows, int n_q, SweepPoint* point) {
  const float inv = 1.0f / point->seeds;
  point->max_weight *= inv;
  point->entropy *= inv;
  point->norm_entropy *= inv;
  point->effective_keys *= inv;
  point->grad_norm *= inv;
  point->logit_std *= inv;
  if (!sampled) return;
  // The mean over S strata of each stratum's sampled mean: Var = sum_s var_s / m * fpc / S^2.
  const double m = (double)rows, fpc = (n_q - m) / std::max(1.0, (double)n_q - 1);
  double var[4] = {0, 0, 0, 0};
  for (const Stratum& st : ss)
    for (int i = 0; i < 4; ++i) {
      const double mu = st.s[i] / st.n;
      var[i] += std::max(0.0, (st.sq[i] - st.n * mu * mu) / (st.n - 1)) / st.n * fpc;
    }
  const double S2 = (double)ss.size() * ss.size();
  float* err[4] = {&point->max_weight_err, &point->entropy_err, &point->norm_entropy_err, &point->grad_norm_err};
  for (int i = 0; i < 4; ++i) *err[i] = (float)(3.0 * std::sqrt(var[i] / S2));
  point->rows = rows;
  point->n_q = n_q;
}

// The sampled rows of a [n, d] tensor.
void GatherRows(const Tensor& src, const std::vector<int>& rows, Tensor* out) {
  const size_t d_model = src.dim(1);
  out->Resize({rows.size(), d_model});
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy(src.data.begin() + (size_t)rows[r] * d_model, src.data.begin() + (size_t)(rows[r] + 1) * d_model,
              out->data.begin() + r * d_model);
}

// The sampled rows of each head of q_all [n_head, n_q, width].
void GatherHeadRows(const Tensor& q_all, const std::vector<int>& rows, int n_q, Tensor* q) {
  const size_t width = q_all.dim(2);
  q->Resize({q_all.dim(0), rows.size(), width});
  for (size_t h = 0; h < q_all.dim(0); ++h)
    for (size_t r = 0; r < rows.size(); ++r)
      std::copy_n(q_all.data.begin() + (h * n_q + rows[r]) * width, width, q->data.begin() + (h * rows.size() + r) * width);
}

}  // namespace

Result<std::vector<SweepPoint>> SweepDk(const std::vector<Token>& query_tokens, const std::vector<Token>& kv_tokens,
                                        const AttentionConfig& base, const SweepOptions& options) {
  const bool cross = base.mode == AttentionMode::kCross;
  if (kv_tokens.empty()) return Status::Error("sweep: no key/value tokens");
  if (cross && query_tokens.empty()) return Status::Error("sweep: cross mode needs query tokens");
  if (options.n_seeds < 1 || options.n_seeds > 64)
    return Status::Error("sweep: seeds = " + std::to_string(options.n_seeds) + " is out of range: allowed 1..64");
  std::vector<int> d_ks = options.d_ks.empty() ? DefaultSweepDks() : options.d_ks;
  const int n_q = (int)(cross ? query_tokens.size() : kv_tokens.size()), n_k = (int)kv_tokens.size();
  const bool sampled = options.sample_above_rows > 0 && n_q > options.sample_above_rows &&
                       options.sample_rows > 0 && options.sample_rows < n_q;
  const std::vector<int> rows = sampled ? SampleRows(n_q, options.sample_rows, base.seed) : std::vector<int>{};
  const size_t total = d_ks.size() * (size_t)options.n_seeds;
  size_t done = 0;
  std::vector<SweepPoint> points;
  Tensor xs, q, k, v, scores, logits, probs, q_all;
  // The embeddings depend on the seed, not on d_k: once per seed, not once per (d_k, seed).
  std::vector<Tensor> x_of_seed((size_t)options.n_seeds), xq_of_seed(cross ? (size_t)options.n_seeds : 0);
  for (int s = 0; s < options.n_seeds; ++s) {
    if (options.control.cancelled()) return Status::Cancelled();
    Embed(kv_tokens, base.d_model, base.seed + (uint64_t)s, base.positional, &x_of_seed[(size_t)s]);
    if (cross) Embed(query_tokens, base.d_model, base.seed + (uint64_t)s, base.positional, &xq_of_seed[(size_t)s]);
  }
  std::vector<HeadMetrics> heads;
  ProjectionWeights w;
  // Seed (f): the config's sources and score (qkv_source.h, score.h); the default is Project and q . k.
  const std::vector<Token>& query_side = cross ? query_tokens : kv_tokens;
  const std::vector<std::string> vocab = Vocabulary(cross ? query_tokens : std::vector<Token>{}, kv_tokens);
  AdditiveWeights additive;
  // The cancel flag is checked between the steps of a (d_k, seed) and, for the dot-product scores, before each
  // block of the pass, so a newer request (or the app closing) stops the sweep within one block of work, not one
  // d_k: at long inputs and wide heads one d_k is a whole pass over every sampled row (far longer under a sanitizer).
  AttendSink sink;
  sink.cancel = options.control.cancel;
  sink.blocks_done = options.blocks_done;
  auto cancelled = [&] { return options.control.cancelled(); };
  for (int d_k : d_ks) {
    AttentionConfig config = base;
    config.n_head = options.n_head;
    config.d_k = d_k;
    config.d_v = 1;  // values do not affect the probs; keep the sweep cheap
    if (Status s = Validate(config); !s) return Status::Prefixed(MsgId::kPrefixSweep, {}, s);
    if (Status s = CheckQueryKeyWidths(config, (int)vocab.size()); !s)
      return Status::Prefixed(MsgId::kPrefixSweepDk, {std::to_string(d_k)}, s);
    SweepPoint scaled_point, unscaled_point;
    scaled_point.d_k = unscaled_point.d_k = d_k;
    scaled_point.scaled = true;
    std::vector<Stratum> strata[2];  // sampled: per point, per (seed, head)
    for (int s = 0; s < options.n_seeds; ++s) {
      if (options.before_unit) options.before_unit();
      if (options.control.cancelled()) return Status::Cancelled();
      config.seed = base.seed + (uint64_t)s;
      const Tensor& x = x_of_seed[(size_t)s];
      const Tensor& xq = cross ? xq_of_seed[(size_t)s] : x;
      InitWeights(WeightsConfig(config, (int)vocab.size()), &w, /*fast=*/true);  // only their distribution counts
      // false: cancelled. The dot product block by block (Scores' kernel; its probs go to scratch rows, unused).
      auto score = [&] {
        if (cancelled()) return false;
        if (IsDotScore(config.score))
          return Attend(AttendFrom::kQueryKey, q, k, v, 1.0f, MaskKind::kNone, &scores, nullptr, nullptr, nullptr,
                        nullptr, &sink);
        if (config.score == ScoreKind::kAdditive) DrawAdditiveWeights(config.seed, config.n_head, (int)q.dim(2), &additive);
        ScoreMatrix(config.score, q, k, &additive, &scores);
        return true;
      };
      if (!sampled) {
        SourceQkv(config, query_side, kv_tokens, vocab, cross ? xq : x, x, w, &q, &k, &v);
        if (!score()) return Status::Cancelled();
        for (SweepPoint* point : {&scaled_point, &unscaled_point}) {
          if (cancelled()) return Status::Cancelled();
          config.scale = point->scaled;
          LogitsSoftmax(scores, config.logit_multiplier((int)q.dim(2)), config.mask, &logits, &probs, config.softcap);
          ComputeMetrics(logits, probs, config.mask, &heads);
          AddFullPass(MeanOverHeads(heads), point);
        }
      } else {
        // Only the sampled query rows are projected (a softmax row needs all its keys: see SampledScores).
        const Tensor& src = cross ? xq : x;
        GatherRows(src, rows, &xs);
        // (a q/k norm needs q and k themselves: no reassociated product)
        const bool fast = config.query_from == FeatureSource::kEmbedding &&
                          config.key_from == FeatureSource::kEmbedding && IsDotScore(config.score) && !config.qk_norm;
        if (fast) {  // projected queries and keys, dot scores: only the sampled rows' products
          SampledScores(xs, x, w, &scores);  // [n_head, sampled rows, n_k]
        } else if (config.query_from == FeatureSource::kEmbedding) {
          SourceQkv(config, query_side, kv_tokens, vocab, xs, x, w, &q, &k, &v);
        } else {  // a raw query feature of every row (its position is its index), then the sampled rows
          SourceQkv(config, query_side, kv_tokens, vocab, src, x, w, &q_all, &k, &v);
          GatherHeadRows(q_all, rows, n_q, &q);
        }
        if (!fast && !score()) return Status::Cancelled();  // [n_head, sampled rows, n_k]
        const int d_qk = fast ? w.d_k : (int)q.dim(2);  // the width q and k share (the multiplier's d_k)
        for (SweepPoint* point : {&scaled_point, &unscaled_point}) {
          config.scale = point->scaled;
          const float multiplier = config.logit_multiplier(d_qk);
          for (int h = 0; h < options.n_head; ++h) {
            if (cancelled()) return Status::Cancelled();
            AddSampledHead(scores, rows, h, n_k, config.mask, multiplier, config.softcap, options.n_head, point,
                           &strata[point->scaled ? 1 : 0]);
          }
          point->seeds += 1;
        }
      }
      options.control.Report("d_k sweep", ++done, total);
    }
    for (SweepPoint* point : {&scaled_point, &unscaled_point}) {
      FinishPoint(strata[point->scaled ? 1 : 0], sampled, (int)rows.size(), n_q, point);
      points.push_back(*point);
    }
  }
  return points;
}

std::string SweepToCsv(const std::vector<SweepPoint>& points) {
  bool sampled = false;
  for (const SweepPoint& p : points) sampled = sampled || p.rows > 0;
  std::string csv = "d_k,scaled,seeds,max_weight,entropy,norm_entropy,effective_keys,grad_norm,logit_std";
  csv += sampled ? ",rows,n_q,max_weight_err,entropy_err,norm_entropy_err,grad_norm_err\n" : "\n";
  char line[384];
  for (const SweepPoint& p : points) {
    snprintf(line, sizeof line, "%d,%d,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", p.d_k, p.scaled ? 1 : 0, p.seeds,
             p.max_weight, p.entropy, p.norm_entropy, p.effective_keys, p.grad_norm, p.logit_std);
    csv += line;
    if (sampled) {
      snprintf(line, sizeof line, ",%d,%d,%.9g,%.9g,%.9g,%.9g", p.rows, p.n_q, p.max_weight_err, p.entropy_err,
               p.norm_entropy_err, p.grad_norm_err);
      csv += line;
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace attnviz
