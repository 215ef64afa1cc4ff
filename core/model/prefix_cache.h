// Causal prefix reuse: what a run keeps so that a later run over ids sharing the first p ids computes only the
// rows after them in every layer (typing, pasting, appending, another file with the same start), with the same
// bits as a full run over the new ids.
//
// Dimension glossary
//   n        tokens of the run that filled the state      n_layer  blocks      d_model  residual width
//   ld_qkv   q | k | v columns (q_dim + 2 kv_dim)          s        rows kept (PrefixPlan::rows)
//
// Why rows are kept only up to an aligned s <= p (tests/test_matmul.cpp and test_prefix_reuse.cpp check it):
//   - products (core/base/matmul.h): a row's bits follow its tile's packet structure, not where the tile starts,
//     so s is a multiple of kMatMulRowGroup, below the last rows % 16 of the run that made the kept rows, and rows
//     [s, n) run with their tiles cut where the full run cuts them (MatMulTiled's first_row);
//   - attention (core/attention/attention.h): the block of query rows holding s runs from its row group holding s
//     (its earlier q rows are kept too: a group's rows keep their place in the block's packets), over key tiles whose
//     products never depend on n; the block size (AttendBlockRows(n)) is the same in both runs.
#pragma once
#include <string>
#include <vector>

#include "attention/metrics.h"
#include "model/config.h"
#include "model/run.h"

namespace attnviz::model {

// What the what-ifs of RunOptions change in a layer's rows; two runs whose signatures agree make the same rows.
struct WhatIfSignature {
  std::vector<bool> no_scale, no_softcap, no_qk_norm;
  std::vector<float> temperature;
  std::vector<AblatedHead> ablate;
  bool operator==(const WhatIfSignature& o) const;
};
WhatIfSignature SignatureOf(const RunOptions& o);

// Kept by a causal run (RunOptions::prefix): per layer, every position's residual stream and q | k | v (after the
// q/k norms and RoPE). Rows [0, ids.size()) are valid; a cancelled run leaves only the rows it shared with the
// run before (its ids cut to them), so the state stays usable.
struct PrefixState {
  std::vector<int> ids;      // [rows valid]
  int made_n = 0;            // n of the run whose key tiles made the valid rows (PrefixPlan's tile condition)
  WhatIfSignature what_ifs;  // the what-ifs the rows were made under
  std::vector<std::vector<float>> hidden;  // [n_layer + 1][n, d_model]: the embeddings, then after each block
  std::vector<std::vector<float>> qkv;     // [n_layer][n, ld_qkv]
  // With RunOptions::row_figures: each layer's row figures ([n_head] heads of [n] rows) and each row's logit sums
  // ([n_head, n, 2]: AttendSink::row_logit_sums), so a reused run's head figures are a full run's; empty without.
  bool row_figures = false;
  std::vector<std::vector<HeadMetrics>> metrics;       // [n_layer][n_head]
  std::vector<std::vector<double>> row_logit_sums;     // [n_layer][n_head * n * 2]
  // The last run's use of the state: rows it took from it, and why it took none ("" when it took some).
  int reused_rows = 0;
  std::string refused;
  void Clear();
  size_t Bytes() const;
};

// Rows a state has room for past its text (a run reserves them): appending that many moves no kept row.
constexpr size_t kPrefixSpareRows = 64;
// The bytes a state holds for n tokens, its spare rows too (counted in RunMemoryBytes when a run keeps one), with
// the row figures when row_figures.
double PrefixStateBytes(const ModelConfig& c, size_t n, bool row_figures = false);

// How many leading ids two sequences share.
size_t CommonPrefix(const std::vector<int>& a, const std::vector<int>& b);

// The rows a run over `ids` with options `o` may take from `state` (0: none, `refused` says why: a bidirectional
// model, mean ablation, patching, resuming at a layer, other what-ifs, row figures asked of rows kept without them,
// nothing shared).
struct PrefixPlan {
  int rows = 0;
  std::string refused;
};
PrefixPlan PlanPrefixReuse(const ModelConfig& c, const PrefixState& state, const std::vector<int>& ids,
                           const RunOptions& o);

// The first row a run over n tokens computes when the rows before `shared` are kept, made by a run over made_n
// tokens: shared rounded down to the products' packets (see above); 0 when nothing can be kept.
int PrefixRowStart(int shared, int made_n, int n);

// A caller's maps for the new run: rows [0, rows) of each head's [n_old, n_old] map moved into a [n_new, n_new] map
// (in place when old == new_probs; causal rows hold 0 past their own key, so nothing of them is lost).
//   old: [n_head, n_old, n_old]    new_probs: [n_head, n_new, n_new]
void MovePrefixRows(const float* old, size_t n_head, size_t n_old, size_t n_new, size_t rows, float* new_probs);

}  // namespace attnviz::model
