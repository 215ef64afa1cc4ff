// Head roles: for every (layer, head) of a run, how much its attention looks like six patterns a learner can
// recognise, each scored in [0, 1] from the probs and the token ids.
//
//   HeadRoles roles = ScoreHeadRoles(run.probs.data(), n_layer, n_head, n, ids);   // or layer by layer
//   RoleScore best = StrongestRole(roles.at(layer, head));   // {kInduction, 0.83}
//   auto filter = ParseRoleFilter("induction >= 0.4");        // the overview's filter box
//
// Dimension glossary
//   n_layer  blocks      n_head  query heads per layer      n  tokens (queries = keys: self-attention)
//   i        query row   j       key column                 P  one head's probs [n, n], rows sum to 1
//
// Scores (P is one head's map; "rows" are query rows; every score is a mean over its rows, 0 when it has none):
//   previous-token  P[i, i-1]                                           rows i >= 1
//   induction       sum of P[i, j+1] over the earlier occurrences       rows i whose token occurred before
//                   j < i of token ids[i] (each target column once)     (TransformerLens's induction pattern:
//                                                                       the duplicate-token pattern shifted one
//                                                                       key to the right, "mul" measure, per row)
//   first-token     P[i, 0] (the "attention sink")                      rows i >= 1
//   same-token      P[i, i] (the diagonal: the token itself)            rows i >= 1
//   local           mass on keys j >= 1 at distance 2..kLocalWindow     rows with such a key
//                   from i (near context beyond the neighbour and
//                   itself; key 0 belongs to first-token)
//   broad           normalized entropy H(P[i]) / log(visible keys)      rows with >= 2 visible keys
//                   (visible: j <= i when the map is causal -- nothing above the diagonal -- else all n)
// Row 0 is skipped where noted because under a causal mask it has one key and says nothing about the head.
// A pure pattern scores 1 on its own role and about 0 (at most ~1/n) on the others.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attention/metrics.h"
#include "base/status.h"

namespace attnviz::model {

enum class HeadRole { kPreviousToken, kInduction, kFirstToken, kSameToken, kLocal, kBroad };
constexpr int kHeadRoleCount = 6;
constexpr int kLocalWindow = 5;  // the local role counts keys at distance 2..5

// The roles in enum order (for loops and tables).
const std::array<HeadRole, kHeadRoleCount>& AllHeadRoles();
// "previous-token", "induction", "first-token", "same-token", "local", "broad" (CSV columns use '_' for '-').
const char* RoleName(HeadRole role);
// One English sentence for a learner: what the pattern is and what it is for.
const char* RoleSentence(HeadRole role);
// A role from its name: RoleName, with '_' for '-', any case, or a short alias (prev, ind, sink, first, same,
// self, diag). Error: names the allowed roles.
Result<HeadRole> ParseRoleName(std::string_view text);

// One head's six scores, indexed by role.
struct RoleScores {
  std::array<float, kHeadRoleCount> value{};
  float operator[](HeadRole role) const { return value[(size_t)role]; }
  float& operator[](HeadRole role) { return value[(size_t)role]; }
};

struct RoleScore {
  HeadRole role = HeadRole::kBroad;
  float score = 0;
};
// The pointed roles (previous-token, induction, first-token, same-token) look at one key per row; their best
// names the head once it scores at least this, over local and broad (which spread by nature).
constexpr float kPointedRoleScore = 0.4f;
// The most specific role: the best pointed role when it clears kPointedRoleScore, else the highest score; ties go
// to the earlier role in enum order (the more specific pattern).
RoleScore StrongestRole(const RoleScores& scores);

// P: [n, n] one head's probs (row-major); ids: [n].
RoleScores ScoreHead(const float* probs, int n, const std::vector<int>& ids);

struct HeadRoles;

// The per-row parts of the scores, so a streamed pass (blocks of rows, any order, any thread) and a whole map give
// the same bits: each row's parts go to their own slot, summed in row order at the end.
// What every head of every layer shares: for each row, the earlier positions of its token, as a chain through the
// positions (two ints a token; a list per row held n^2/2 ints for a text of one repeated token). Row i's earlier
// positions are first[i], next[first[i]], ... while < i, in position order.
struct RolePlan {
  explicit RolePlan(const std::vector<int>& ids);
  size_t bytes() const;  // what it holds
  int n = 0;
  std::vector<int> first;  // [n] the first position holding ids[i]
  std::vector<int> next;   // [n] the next position after i holding ids[i], or n
};
struct RowRoleParts {
  double prev = 0, first = 0, same = 0, induction = 0, local = 0, broad = 0;
  bool has_induction = false, has_local = false, has_broad = false;
};
// row: [n] query i's probs; causal: the map has nothing above the diagonal. entropy = false leaves broad out
// (a log per prob: a fifth of a streamed layer's time when the pass has the row's entropy already).
RowRoleParts ScoreRow(const float* row, int i, int n, bool causal, const RolePlan& plan, bool entropy = true);

// The sums a head's rows add into, in row order (SumRows): a kept prefix's rows are these sums at its end.
struct RoleRowSums {
  double prev = 0, first = 0, same = 0, induction = 0, local = 0, broad = 0;
  int induction_rows = 0, local_rows = 0, broad_rows = 0;
  void Add(const RowRoleParts& row, int i);  // row i's parts
  RoleScores Scores(int n) const;            // the head's scores once its n rows are in
};
// A layer's sums every kRoleSumStride rows: sums [n_head, n / kRoleSumStride + 1], entry k of a head the sums of its
// rows [0, k * kRoleSumStride); what a run keeping a prefix's rows starts each head's sums from.
constexpr int kRoleSumStride = 16;
struct RoleSumCheckpoints {
  int n_head = 0, n = 0;
  std::vector<RoleRowSums> sums;
  int per_head() const { return n / kRoleSumStride + 1; }
  size_t bytes() const { return sums.size() * sizeof(RoleRowSums); }
};

// One layer's role scores from blocks of rows: AddRows may run concurrently for distinct rows.
// broad_from_row_figures: broad comes from the attention pass's own row entropy (metrics.h RowMetrics::entropy,
// computed there without a log per prob) given to ScoreInto, divided by log(visible) as ScoreHead does; equal to
// ScoreHead's to float rounding (~1e-6), the other five roles to the bit.
class RoleRows {
 public:
  RoleRows(int n_head, const std::vector<int>& ids, bool causal, bool broad_from_row_figures = false);
  void AddRows(int head, int r0, int rows, const float* probs);  // probs: [rows, n]
  RoleScores Head(int head) const;                               // once every row is in
  // Every head into roles->at(layer, h); row_figures: [n_head] with rows [n] (needed with broad_from_row_figures).
  // Also makes the layer's checkpoints().
  Status ScoreInto(int layer, HeadRoles* roles, const std::vector<HeadMetrics>* row_figures = nullptr);
  // The next ScoreInto takes every head's rows [0, from_row) from `kept` (an earlier layer's checkpoints over a text
  // sharing those rows; from_row a multiple of kRoleSumStride within both texts), so AddRows needs only the rows from
  // from_row on: the same bits as adding every row. False (nothing kept) when they do not fit.
  bool KeepSums(std::shared_ptr<const RoleSumCheckpoints> kept, int from_row);
  std::shared_ptr<const RoleSumCheckpoints> checkpoints() const { return checkpoints_; }  // the last ScoreInto's

 private:
  RoleRowSums HeadSums(int head, RoleRowSums* checkpoints) const;  // checkpoints: [per_head] or null
  int n_head_, n_;
  bool causal_, broad_from_row_figures_;
  RolePlan plan_;
  std::vector<RowRoleParts> rows_;  // [n_head, n]
  std::shared_ptr<const RoleSumCheckpoints> kept_, checkpoints_;
  int kept_from_row_ = 0;
};

// The table for a run: scores [n_layer, n_head].
struct HeadRoles {
  int n_layer = 0, n_head = 0, n = 0;
  int induction_rows = 0;          // queries whose token occurred earlier (0: the induction scores say nothing)
  std::vector<RoleScores> scores;  // [n_layer * n_head], layer-major
  std::vector<RoleScores> chance;  // [n_layer] UniformRoleScores under each layer's mask (empty: not made)
  const RoleScores& at(int layer, int head) const { return scores[(size_t)layer * n_head + head]; }
  RoleScores& at(int layer, int head) { return scores[(size_t)layer * n_head + head]; }
};

// What uniform attention over the keys a mask leaves visible scores on these tokens: the chance level a head's
// scores are read against (on 4 tokens a head that looks nowhere in particular still scores previous-token 0.36).
// Equal to ScoreHead of the uniform map under that mask. causal: keys j <= i, the last `window` of them when
// window > 0; else every key. O(n log n), whatever the repeats.
RoleScores UniformRoleScores(const std::vector<int>& ids, bool causal, int window);

// A role score near chance: it covers less than kNearChanceFraction of the way from the chance level to 1 (prev 0.42
// against uniform's 0.36 on 4 tokens says little about the head; 0.64 against 0.36 says something). A head's
// strongest role is never below its own chance, so "below" alone would mark nothing.
inline constexpr float kNearChanceFraction = 1.0f / 3.0f;
bool NearChance(float score, float chance);

// An empty table of the right size, filled by ScoreLayer as the layers of a run arrive.
HeadRoles MakeHeadRoles(int n_layer, int n_head, const std::vector<int>& ids);
// probs: [n_head, n, n], one layer. row_figures ([n_head] of [n] rows, RunOptions::row_figures): broad from their
// entropy as RoleRows does (equal to ScoreHead's to float rounding, no log per prob), the heads in parallel.
// Errors: layer out of range, n_head or n not the table's, row figures of another shape.
Status ScoreLayer(const float* probs, int layer, int n_head, int n, const std::vector<int>& ids, HeadRoles* roles,
                  const std::vector<HeadMetrics>* row_figures = nullptr);
// probs: [n_layer, n_head, n, n]. Error: ids.size() != n.
Result<HeadRoles> ScoreHeadRoles(const float* probs, int n_layer, int n_head, int n, const std::vector<int>& ids);

// Attention sinks: how much of the attention rests on the first token (the first-token score, rows i >= 1). A head
// over kSinkMass puts most of every row there, so on a linear colour scale its map is one bright column.
constexpr float kSinkMass = 0.5f;
struct SinkSummary {
  int heads = 0;          // heads counted
  int sinks = 0;          // of them, first-token score >= kSinkMass
  double mean_mass = 0;   // their mean first-token score
  double max_mass = 0;
};
// layer: one layer's heads, or -1 for every layer. An empty table (or a layer out of range) gives zeros.
SinkSummary SummarizeSinks(const HeadRoles& roles, int layer = -1);

// CSV: a header "layer,head,previous_token,induction,first_token,same_token,local,broad,strongest,strongest_score"
// then one line per head (scores with 4 decimals).
std::string HeadRolesCsv(const HeadRoles& roles);
// JSON: {"n_layer", "n_head", "n", "induction_rows", "roles": [names], "sentences": {name: sentence},
//        "heads": [{"layer", "head", "scores": {name: score}, "strongest", "strongest_score"}, ...]}
std::string HeadRolesJson(const HeadRoles& roles);

// The overview's filter: "ROLE OP NUMBER", OP one of >= > <= < =, NUMBER in [0, 1], e.g. "induction >= 0.4",
// "prev>0.5", "broad < 0.2". Spaces are free. Errors say what was wrong, the syntax and the allowed roles.
struct RoleFilter {
  enum class Op { kGreaterEqual, kGreater, kLessEqual, kLess, kEqual };
  HeadRole role = HeadRole::kInduction;
  Op op = Op::kGreaterEqual;
  float threshold = 0;
  bool Matches(const RoleScores& scores) const;
  std::string ToString() const;  // "induction >= 0.4"
};
// `parse_role` reads the role's name (the app passes one that knows the UI's other language too); the errors
// quote the text as typed.
Result<RoleFilter> ParseRoleFilter(std::string_view text,
                                   Result<HeadRole> (*parse_role)(std::string_view) = ParseRoleName);

}  // namespace attnviz::model
