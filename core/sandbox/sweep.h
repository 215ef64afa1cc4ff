// The d_k sweep of the sandbox: the saturation figures of a random attention layer at every d_k,
// scaled and unscaled, averaged over seeds ("watch softmax saturate").
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "attention/metrics.h"
#include "base/run_control.h"
#include "sandbox/config.h"
#include "base/status.h"
#include "sandbox/text.h"

namespace attnviz {

// One point of the "watch softmax saturate" table: one d_k, scaled or not, averaged over seeds.
struct SweepPoint {
  int d_k = 0;
  bool scaled = false;
  int seeds = 0;
  float max_weight = 0, entropy = 0, norm_entropy = 0, effective_keys = 0, grad_norm = 0, logit_std = 0;
  // Sampled points (long inputs): query rows used per (seed, head) of the n_q, and the sampling error of
  // each mean: 3 standard errors of the sampled rows' figures (with the finite-population correction).
  // rows == 0: every row was used, the errors are 0.
  int rows = 0, n_q = 0;
  float max_weight_err = 0, entropy_err = 0, norm_entropy_err = 0, grad_norm_err = 0;
};

struct SweepOptions {
  std::vector<int> d_ks;  // empty = 1, 2, 4, ... 4096
  int n_seeds = 2;        // seeds base.seed, base.seed+1, ...; each point averages all heads over all seeds
  int n_head = 2;         // heads per run (the sweep measures softmax, not head diversity)
  // Long inputs: with more query rows than this, each (seed, head) uses a random sample of
  // sample_rows query rows (the same rows at every d_k), and each point states its sampling error.
  // 0: never sample.
  int sample_above_rows = 1024;
  int sample_rows = 256;
  // Optional: the cancel flag is checked before each (d_k, seed) and each attention block (SweepDk then returns
  // Status::Cancelled()); progress is reported as ("d_k sweep", units done, units) after each (d_k, seed).
  RunControl control;
  // Optional: counts the attention blocks finished (the unit the cancel flag is checked at, finer than progress).
  std::atomic<size_t>* blocks_done = nullptr;
  std::function<void()> before_unit;  // called before each (d_k, seed): the app waits there while maps compute
};
// The one sweep definition of the app and attnviz-cli (so their numbers agree): the defaults above,
// and one seed when the query rows are sampled (long inputs), so 4096 tokens stay within seconds.
SweepOptions StandardSweepOptions(size_t n_query_rows);

// Runs the engine on the given tokens for each d_k, scaled and unscaled, keeping every other setting of `base`
// (temperature, mask, d_model, positional, the q/k/v sources, the score, the q/k norm and the soft cap: a raw query
// or key feature keeps its own width at every d_k, and a d_k that makes d_q != d_k is refused). kv_tokens: keys/values (and queries
// in self mode); query_tokens: queries in cross mode (base.mode == kCross).
Result<std::vector<SweepPoint>> SweepDk(const std::vector<Token>& query_tokens, const std::vector<Token>& kv_tokens,
                                        const AttentionConfig& base, const SweepOptions& options);
std::vector<int> DefaultSweepDks();
// The GEMMs of a sampled sweep point: the scores of sampled query rows xs [m, d_model] against every key
// x [n_k, d_model], head by head: scores [n_head, m, n_k] = (xs W_q,h) (x W_k,h)^T. Projecting every key costs
// n_k d_model d_k a head, so for wide heads the same product reassociated, ((xs W_q,h) W_k,h^T) x^T, costs
// m d_model (2 d_k + n_k) instead; the cheaper order is taken (equal up to rounding: the figures are means
// over rows). One thread per head (inside the team Eigen does not thread a product).
struct ProjectionWeights;
void SampledScores(const Tensor& xs, const Tensor& x, const ProjectionWeights& w, Tensor* scores);
// CSV with a header row: d_k,scaled,seeds,max_weight,entropy,norm_entropy,effective_keys,grad_norm,logit_std
// (sampled points add: rows,n_q,max_weight_err,entropy_err,norm_entropy_err,grad_norm_err)
std::string SweepToCsv(const std::vector<SweepPoint>& points);

}  // namespace attnviz
