#include "model/roles.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "io/json.h"
#include "base/check.h"
#include "base/parse_number.h"
#include "base/tensor.h"

namespace attnviz::model {
namespace {

struct RoleInfo {
  HeadRole role;
  const char* name;
  const char* sentence;
};

// One table: names and sentences in enum order.
constexpr RoleInfo kRoles[kHeadRoleCount] = {
    {HeadRole::kPreviousToken, "previous-token",
     "Each token looks at the token just before it, so the next layer knows what came one step earlier."},
    {HeadRole::kInduction, "induction",
     "When the current token appeared before, the head looks at the token that followed it then, to predict that "
     "the same continuation comes again (A B ... A -> B)."},
    {HeadRole::kFirstToken, "first-token",
     "Most of the attention rests on the first token, a resting place (attention sink) the head uses when nothing "
     "else in the text is worth reading."},
    {HeadRole::kSameToken, "same-token",
     "Each token looks mostly at itself (the diagonal), keeping its own information rather than mixing in others."},
    {HeadRole::kLocal, "local",
     "Each token spreads its attention over the few tokens near it (2 to 5 positions away), gathering its short "
     "phrase."},
    {HeadRole::kBroad, "broad",
     "Attention is spread evenly over many tokens (high entropy), averaging the whole context rather than picking "
     "one token."},
};

std::string Lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

std::string AllowedRoles() {
  std::string s;
  for (const RoleInfo& r : kRoles) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

std::string Trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace((unsigned char)text[b])) ++b;
  while (e > b && std::isspace((unsigned char)text[e - 1])) --e;
  return std::string(text.substr(b, e - b));
}

std::string Score4(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", (double)v);
  return buf;
}

std::string CsvName(HeadRole role) {
  std::string s = RoleName(role);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// True when nothing lies above the diagonal (a causal map): P: [n, n].
// broad of each row from the attention pass's row entropy: entropy / log(visible), rows with >= 2 visible keys (as
// ScoreRow computes it from the probs). figures, rows: [n].
void BroadFromRowFigures(const std::vector<RowMetrics>& figures, int n, bool causal, RowRoleParts* rows) {
  for (int i = 0; i < n; ++i) {
    RowRoleParts& r = rows[i];
    const int visible = causal ? i + 1 : n;
    r.has_broad = visible >= 2;
    r.broad = r.has_broad ? std::min(1.0, std::max(0.0, (double)figures[(size_t)i].entropy / std::log((double)visible)))
                          : 0.0;
  }
}

// Why row figures cannot stand in for a layer's entropies ("" when they can): [n_head] heads of [n] rows each.
std::string RowFiguresMismatch(const std::vector<HeadMetrics>* row_figures, int layer, int n_head, int n) {
  if (!row_figures || (int)row_figures->size() != n_head)
    return "head roles: layer " + std::to_string(layer) + " needs the row figures of its " + std::to_string(n_head) +
           " heads";
  for (int h = 0; h < n_head; ++h)
    if ((int)(*row_figures)[(size_t)h].rows.size() != n)
      return "head roles: head " + std::to_string(h) + " has row figures for " +
             std::to_string((*row_figures)[(size_t)h].rows.size()) + " rows, not " + std::to_string(n);
  return "";
}

}  // namespace

const std::array<HeadRole, kHeadRoleCount>& AllHeadRoles() {
  static const std::array<HeadRole, kHeadRoleCount> roles = {HeadRole::kPreviousToken, HeadRole::kInduction,
                                                            HeadRole::kFirstToken,    HeadRole::kSameToken,
                                                            HeadRole::kLocal,         HeadRole::kBroad};
  return roles;
}

const char* RoleName(HeadRole role) { return kRoles[(size_t)role].name; }
const char* RoleSentence(HeadRole role) { return kRoles[(size_t)role].sentence; }

Result<HeadRole> ParseRoleName(std::string_view text) {
  std::string s = Lower(Trim(text));
  std::replace(s.begin(), s.end(), '_', '-');
  std::replace(s.begin(), s.end(), ' ', '-');
  static const std::unordered_map<std::string, HeadRole> kAliases = {
      {"prev", HeadRole::kPreviousToken},   {"previous", HeadRole::kPreviousToken},
      {"ind", HeadRole::kInduction},        {"first", HeadRole::kFirstToken},
      {"sink", HeadRole::kFirstToken},      {"bos", HeadRole::kFirstToken},
      {"same", HeadRole::kSameToken},       {"self", HeadRole::kSameToken},
      {"diag", HeadRole::kSameToken},       {"diagonal", HeadRole::kSameToken},
      {"local-window", HeadRole::kLocal},   {"entropy", HeadRole::kBroad}};
  for (const RoleInfo& r : kRoles)
    if (s == r.name) return r.role;
  if (auto it = kAliases.find(s); it != kAliases.end()) return it->second;
  return Status::Error(MsgId::kUnknownRole, {std::string(Trim(text)), AllowedRoles()});
}

RoleScore StrongestRole(const RoleScores& scores) {
  // A pointed pattern that clears kPointedRoleScore names the head even when broad (or local) scores higher:
  // a head that puts 0.55 of its mass on the induction target is an induction head, whatever it does with the rest.
  RoleScore pointed{HeadRole::kPreviousToken, scores[HeadRole::kPreviousToken]};
  for (HeadRole role : {HeadRole::kInduction, HeadRole::kFirstToken, HeadRole::kSameToken})
    if (scores[role] > pointed.score) pointed = {role, scores[role]};
  if (pointed.score >= kPointedRoleScore) return pointed;
  RoleScore best{HeadRole::kPreviousToken, scores.value[0]};
  for (HeadRole role : AllHeadRoles())
    if (scores[role] > best.score) best = {role, scores[role]};
  return best;
}

RolePlan::RolePlan(const std::vector<int>& ids) : n((int)ids.size()), first((size_t)n), next((size_t)n, n) {
  std::unordered_map<int, std::pair<int, int>> seen;  // token -> {its first position, its last so far}
  for (int i = 0; i < n; ++i) {
    auto [it, fresh] = seen.try_emplace(ids[(size_t)i], i, i);
    if (!fresh) next[(size_t)it->second.second] = i, it->second.second = i;
    first[(size_t)i] = it->second.first;
  }
}

size_t RolePlan::bytes() const { return (first.capacity() + next.capacity()) * sizeof(int); }

RowRoleParts ScoreRow(const float* row, int i, int n, bool causal, const RolePlan& plan, bool entropy) {
  // row: [n], query i's probs
  RowRoleParts r;
  auto p = [&](int j) { return (double)row[j]; };
  // previous-token, first-token, same-token: one key per row, rows 1..n-1.
  if (i >= 1) r.prev = p(i - 1), r.first = p(0), r.same = p(i);
  // induction: the mass on the tokens that followed the earlier occurrences of this row's token.
  if (i < plan.n && plan.first[(size_t)i] < i) {
    r.has_induction = true;
    for (int e = plan.first[(size_t)i]; e < i; e = plan.next[(size_t)e]) r.induction += p(e + 1);
  }
  // local: mass on keys at distance 2..kLocalWindow (causal: only before i), never key 0 (the sink's).
  for (int d = 2; d <= kLocalWindow; ++d) {
    if (i - d >= 1) r.local += p(i - d), r.has_local = true;
    if (!causal && i + d < n) r.local += p(i + d), r.has_local = true;
  }
  // broad: entropy / log(visible keys), rows with >= 2 visible keys.
  const int visible = causal ? i + 1 : n;
  if (visible >= 2 && entropy) {
    double h = 0;
    for (int j = 0; j < visible; ++j) {
      const double x = p(j);
      if (x > 0) h -= x * std::log(x);
    }
    r.broad = std::min(1.0, std::max(0.0, h / std::log((double)visible)));
    r.has_broad = true;
  }
  return r;
}

void RoleRowSums::Add(const RowRoleParts& r, int i) {
  if (i >= 1) prev += r.prev, first += r.first, same += r.same;
  if (r.has_induction) induction += r.induction, ++induction_rows;
  if (r.has_local) local += r.local, ++local_rows;
  if (r.has_broad) broad += r.broad, ++broad_rows;
}

RoleScores RoleRowSums::Scores(int n) const {
  RoleScores s;
  if (n > 1) {
    s[HeadRole::kPreviousToken] = (float)(prev / (n - 1));
    s[HeadRole::kFirstToken] = (float)(first / (n - 1));
    s[HeadRole::kSameToken] = (float)(same / (n - 1));
  }
  if (induction_rows > 0) s[HeadRole::kInduction] = (float)(induction / induction_rows);
  if (local_rows > 0) s[HeadRole::kLocal] = (float)(local / local_rows);
  if (broad_rows > 0) s[HeadRole::kBroad] = (float)(broad / broad_rows);
  for (float& v : s.value) v = std::min(1.0f, std::max(0.0f, v));  // rounding can step past 1 by an ulp
  return s;
}

RoleScores SumRows(const RowRoleParts* rows, int n) {
  // rows: [n], summed in row order (a streamed layer and a whole map give the same bits)
  RoleRowSums sums;
  for (int i = 0; i < n; ++i) sums.Add(rows[i], i);
  return sums.Scores(n);
}

bool NearChance(float score, float chance) { return score - chance < kNearChanceFraction * (1.0f - chance); }

RoleScores UniformRoleScores(const std::vector<int>& ids, bool causal, int window) {
  const int n = (int)ids.size();
  // Each token's positions in order: row i's earlier occurrences e whose target e + 1 is visible (e >= lo - 1) are
  // counted by a binary search, not walked (a text of one repeated token would cost n^2 / 2).
  std::unordered_map<int, std::vector<int>> positions;
  std::vector<int> rank((size_t)n);  // i's index among its token's positions
  for (int i = 0; i < n; ++i) {
    std::vector<int>& at = positions[ids[(size_t)i]];
    rank[(size_t)i] = (int)at.size();
    at.push_back(i);
  }
  std::vector<RowRoleParts> rows((size_t)n);
  for (int i = 0; i < n; ++i) {
    // Row i spreads 1/k over the k keys [lo, hi] its mask leaves: ScoreRow's parts of that row, key by key.
    const int lo = causal && window > 0 ? std::max(0, i - window + 1) : 0, hi = causal ? i : n - 1;
    const double u = 1.0 / (double)(hi - lo + 1);
    auto p = [&](int j) { return j >= lo && j <= hi ? u : 0.0; };
    RowRoleParts& r = rows[(size_t)i];
    if (i >= 1) r.prev = p(i - 1), r.first = p(0), r.same = p(i);
    if (rank[(size_t)i] > 0) {
      const std::vector<int>& at = positions[ids[(size_t)i]];
      const auto begin = std::lower_bound(at.begin(), at.begin() + rank[(size_t)i], lo - 1);
      r.has_induction = true;
      r.induction = (double)(at.begin() + rank[(size_t)i] - begin) * u;
    }
    for (int d = 2; d <= kLocalWindow; ++d) {
      if (i - d >= 1) r.local += p(i - d), r.has_local = true;
      if (!causal && i + d < n) r.local += p(i + d), r.has_local = true;
    }
    const int visible = causal ? i + 1 : n;  // as ScoreRow: the entropy of k equal weights over log(visible)
    if (visible >= 2) {
      r.broad = std::min(1.0, std::log((double)(hi - lo + 1)) / std::log((double)visible));
      r.has_broad = true;
    }
  }
  return SumRows(rows.data(), n);
}

namespace {
// One head's scores from its whole map P: [n, n]; broad from `figures` ([n] rows) when given, else from P.
RoleScores ScoreWholeHead(const float* P, int n, const RolePlan& plan, const std::vector<RowMetrics>* figures) {
  const bool causal = IsLowerTriangular(P, n);
  std::vector<RowRoleParts> rows((size_t)n);
  for (int i = 0; i < n; ++i) rows[(size_t)i] = ScoreRow(P + (size_t)i * n, i, n, causal, plan, !figures);
  if (figures) BroadFromRowFigures(*figures, n, causal, rows.data());
  return SumRows(rows.data(), n);
}
}  // namespace

RoleScores ScoreHead(const float* P, int n, const std::vector<int>& ids) {
  // P: [n, n]; ids: [n]
  if (n <= 0) return RoleScores{};
  return ScoreWholeHead(P, n, RolePlan(ids), nullptr);
}

RoleRows::RoleRows(int n_head, const std::vector<int>& ids, bool causal, bool broad_from_row_figures)
    : n_head_(n_head), n_((int)ids.size()), causal_(causal), broad_from_row_figures_(broad_from_row_figures),
      plan_(ids), rows_((size_t)n_head * ids.size()) {}

void RoleRows::AddRows(int head, int r0, int rows, const float* probs) {
  // probs: [rows, n]
  ATTNVIZ_CHECK_SHAPE(head >= 0 && head < n_head_ && r0 >= 0 && rows >= 0 && r0 + rows <= n_,
                      "role rows " + std::to_string(r0) + "+" + std::to_string(rows) + " of head " +
                          std::to_string(head) + " for " + std::to_string(n_head_) + " heads x " + std::to_string(n_));
  for (int r = 0; r < rows; ++r)
    rows_[(size_t)head * n_ + r0 + r] =
        ScoreRow(probs + (size_t)r * n_, r0 + r, n_, causal_, plan_, /*entropy=*/!broad_from_row_figures_);
}

RoleScores RoleRows::Head(int head) const { return HeadSums(head, nullptr).Scores(n_); }

RoleRowSums RoleRows::HeadSums(int head, RoleRowSums* checkpoints) const {
  const RowRoleParts* rows = rows_.data() + (size_t)head * n_;
  // A kept prefix: its sums at from_row (the checkpoints before it are the kept ones too).
  const int from = kept_ ? kept_from_row_ : 0, stride = kRoleSumStride;
  RoleRowSums sums = kept_ ? kept_->sums[(size_t)head * kept_->per_head() + from / stride] : RoleRowSums{};
  if (checkpoints && kept_)
    std::copy_n(kept_->sums.begin() + (ptrdiff_t)head * kept_->per_head(), from / stride, checkpoints);
  for (int i = from; i < n_; ++i) {
    if (checkpoints && i % stride == 0) checkpoints[i / stride] = sums;
    sums.Add(rows[i], i);
  }
  if (checkpoints && n_ % stride == 0) checkpoints[n_ / stride] = sums;
  return sums;
}

bool RoleRows::KeepSums(std::shared_ptr<const RoleSumCheckpoints> kept, int from_row) {
  kept_.reset(), kept_from_row_ = 0;
  if (!kept || kept->n_head != n_head_ || from_row <= 0 || from_row % kRoleSumStride != 0 || from_row > kept->n ||
      from_row > n_ || kept->sums.size() != (size_t)kept->n_head * kept->per_head())
    return false;
  kept_ = std::move(kept), kept_from_row_ = from_row;
  return true;
}

Status RoleRows::ScoreInto(int layer, HeadRoles* roles, const std::vector<HeadMetrics>* row_figures) {
  if (layer < 0 || layer >= roles->n_layer || n_head_ != roles->n_head || n_ != roles->n)
    return Status::Error("head roles: layer " + std::to_string(layer) + " of " + std::to_string(n_head_) +
                         " heads x " + std::to_string(n_) + " tokens does not fit a table of " +
                         std::to_string(roles->n_layer) + " layers x " + std::to_string(roles->n_head) + " heads x " +
                         std::to_string(roles->n) + " tokens");
  if (broad_from_row_figures_) {
    if (std::string why = RowFiguresMismatch(row_figures, layer, n_head_, n_); !why.empty()) return Status::Error(why);
    for (int h = 0; h < n_head_; ++h)
      BroadFromRowFigures((*row_figures)[(size_t)h].rows, n_, causal_, rows_.data() + (size_t)h * n_);
  }
  auto checkpoints = std::make_shared<RoleSumCheckpoints>();
  checkpoints->n_head = n_head_, checkpoints->n = n_;
  checkpoints->sums.resize((size_t)n_head_ * checkpoints->per_head());
  for (int h = 0; h < n_head_; ++h)
    roles->at(layer, h) =
        HeadSums(h, checkpoints->sums.data() + (size_t)h * checkpoints->per_head()).Scores(n_);
  checkpoints_ = std::move(checkpoints);
  kept_.reset(), kept_from_row_ = 0;  // one layer's
  return Status::Ok();
}

SinkSummary SummarizeSinks(const HeadRoles& roles, int layer) {
  SinkSummary s;
  if (layer >= roles.n_layer || roles.scores.size() != (size_t)roles.n_layer * roles.n_head) return s;
  const int l0 = layer < 0 ? 0 : layer, l1 = layer < 0 ? roles.n_layer : layer + 1;
  for (int l = l0; l < l1; ++l)
    for (int h = 0; h < roles.n_head; ++h) {
      const double mass = roles.at(l, h)[HeadRole::kFirstToken];
      ++s.heads;
      s.sinks += mass >= kSinkMass;
      s.mean_mass += mass;
      s.max_mass = std::max(s.max_mass, mass);
    }
  if (s.heads) s.mean_mass /= s.heads;
  return s;
}

HeadRoles MakeHeadRoles(int n_layer, int n_head, const std::vector<int>& ids) {
  HeadRoles roles;
  roles.n_layer = n_layer;
  roles.n_head = n_head;
  roles.n = (int)ids.size();
  std::unordered_map<int, int> count;
  for (int id : ids)
    if (count[id]++ > 0) ++roles.induction_rows;
  roles.scores.assign((size_t)std::max(0, n_layer) * std::max(0, n_head), RoleScores{});
  return roles;
}

Status ScoreLayer(const float* probs, int layer, int n_head, int n, const std::vector<int>& ids, HeadRoles* roles,
                  const std::vector<HeadMetrics>* row_figures) {
  // probs: [n_head, n, n]; row_figures: [n_head] of [n] rows, or null
  if (layer < 0 || layer >= roles->n_layer)
    return Status::Error("head roles: layer " + std::to_string(layer) + " is outside 0.." +
                         std::to_string(roles->n_layer - 1));
  if (n_head != roles->n_head || n != roles->n || (int)ids.size() != n)
    return Status::Error("head roles: a layer of " + std::to_string(n_head) + " heads x " + std::to_string(n) +
                         " tokens (" + std::to_string(ids.size()) + " ids) does not fit a table of " +
                         std::to_string(roles->n_head) + " heads x " + std::to_string(roles->n) + " tokens");
  const size_t plane = (size_t)n * n;
  if (row_figures) {
    if (std::string why = RowFiguresMismatch(row_figures, layer, n_head, n); !why.empty()) return Status::Error(why);
  }
  if (n <= 0) {
    for (int h = 0; h < n_head; ++h) roles->at(layer, h) = RoleScores{};
    return Status::Ok();
  }
  // As ScoreHead; with row figures, broad from them (a log per prob was most of the scoring's time). Heads in
  // parallel: each writes its own entry.
  const RolePlan plan(ids);
#pragma omp parallel for schedule(dynamic) if ((double)n_head * n * n > 1e6)
  for (int h = 0; h < n_head; ++h)
    roles->at(layer, h) =
        ScoreWholeHead(probs + h * plane, n, plan, row_figures ? &(*row_figures)[(size_t)h].rows : nullptr);
  return Status::Ok();
}

Result<HeadRoles> ScoreHeadRoles(const float* probs, int n_layer, int n_head, int n, const std::vector<int>& ids) {
  // probs: [n_layer, n_head, n, n]
  if ((int)ids.size() != n)
    return Status::Error("head roles: " + std::to_string(ids.size()) + " ids for " + std::to_string(n) + " tokens");
  HeadRoles roles = MakeHeadRoles(n_layer, n_head, ids);
  const size_t layer_size = (size_t)n_head * n * n;
  for (int l = 0; l < n_layer; ++l)
    if (Status st = ScoreLayer(probs + l * layer_size, l, n_head, n, ids, &roles); !st) return st;
  return roles;
}

std::string HeadRolesCsv(const HeadRoles& roles) {
  std::string out = "layer,head";
  for (HeadRole r : AllHeadRoles()) out += "," + CsvName(r);
  out += ",strongest,strongest_score\n";
  for (int l = 0; l < roles.n_layer; ++l)
    for (int h = 0; h < roles.n_head; ++h) {
      const RoleScores& s = roles.at(l, h);
      out += std::to_string(l) + "," + std::to_string(h);
      for (HeadRole r : AllHeadRoles()) out += "," + Score4(s[r]);
      const RoleScore best = StrongestRole(s);
      out += std::string(",") + RoleName(best.role) + "," + Score4(best.score) + "\n";
    }
  return out;
}

std::string HeadRolesJson(const HeadRoles& roles) {
  auto num = [](float v) { return JsonNumber(std::round((double)v * 1e4) / 1e4); };
  std::vector<std::string> names;
  std::string sentences = "{";
  for (HeadRole r : AllHeadRoles()) {
    names.push_back(RoleName(r));
    sentences += (names.size() > 1 ? ", " : "") + JsonString(RoleName(r)) + ": " + JsonString(RoleSentence(r));
  }
  sentences += "}";
  std::string out = "{\"n_layer\": " + std::to_string(roles.n_layer) + ", \"n_head\": " +
                    std::to_string(roles.n_head) + ", \"n\": " + std::to_string(roles.n) +
                    ", \"induction_rows\": " + std::to_string(roles.induction_rows) +
                    ",\n \"roles\": " + JsonStringArray(names) + ",\n \"sentences\": " + sentences +
                    ",\n \"heads\": [";
  bool first = true;
  for (int l = 0; l < roles.n_layer; ++l)
    for (int h = 0; h < roles.n_head; ++h) {
      const RoleScores& s = roles.at(l, h);
      out += std::string(first ? "\n" : ",\n") + "  {\"layer\": " + std::to_string(l) +
             ", \"head\": " + std::to_string(h) + ", \"scores\": {";
      for (HeadRole r : AllHeadRoles())
        out += std::string(r == HeadRole::kPreviousToken ? "" : ", ") + JsonString(RoleName(r)) + ": " + num(s[r]);
      const RoleScore best = StrongestRole(s);
      out += "}, \"strongest\": " + JsonString(RoleName(best.role)) + ", \"strongest_score\": " + num(best.score) +
             "}";
      first = false;
    }
  out += "\n]}\n";
  return out;
}

bool RoleFilter::Matches(const RoleScores& scores) const {
  const float v = scores[role];
  switch (op) {
    case Op::kGreaterEqual: return v >= threshold;
    case Op::kGreater: return v > threshold;
    case Op::kLessEqual: return v <= threshold;
    case Op::kLess: return v < threshold;
    case Op::kEqual: return std::fabs(v - threshold) < 5e-3f;  // equal at the 2 decimals a badge shows
  }
  return false;
}

std::string RoleFilter::ToString() const {
  static const char* kOps[] = {">=", ">", "<=", "<", "="};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", (double)threshold);
  return std::string(RoleName(role)) + " " + kOps[(int)op] + " " + buf;
}

Result<RoleFilter> ParseRoleFilter(std::string_view text, Result<HeadRole> (*parse_role)(std::string_view)) {
  // What is wrong, then how to write a filter (": write ROLE OP NUMBER, ...").
  auto refuse = [](MsgId id, std::vector<std::string> args) {
    return Status::Prefixed(id, std::move(args), Status::Error(MsgId::kRoleFilterSyntax, {AllowedRoles()}));
  };
  const std::string s = Trim(text);
  if (s.empty()) return refuse(MsgId::kRoleFilterEmpty, {});
  const size_t op_at = s.find_first_of("<>=");
  if (op_at == std::string::npos) return refuse(MsgId::kRoleFilterNoComparison, {s});
  auto role = parse_role(s.substr(0, op_at));
  if (!role) {
    const std::string name(Trim(s.substr(0, op_at)));
    if (name.empty()) return refuse(MsgId::kRoleFilterNoRole, {s.substr(op_at)});
    return Status::Prefixed(MsgId::kUnknownRole, {name, AllowedRoles()},
                            Status::Error(MsgId::kRoleFilterSyntaxParens, {AllowedRoles()}));
  }
  RoleFilter f;
  f.role = *role;
  size_t rest = op_at + 1;
  const char c = s[op_at];
  const bool eq_next = op_at + 1 < s.size() && s[op_at + 1] == '=';
  if (c == '>') f.op = eq_next ? RoleFilter::Op::kGreaterEqual : RoleFilter::Op::kGreater;
  else if (c == '<') f.op = eq_next ? RoleFilter::Op::kLessEqual : RoleFilter::Op::kLess;
  else f.op = RoleFilter::Op::kEqual;
  if (c != '=' && eq_next) ++rest;
  else if (c == '=' && eq_next) ++rest;  // "==" reads as "="
  const std::string number = Trim(s.substr(rest));
  if (number.empty()) return refuse(MsgId::kRoleFilterNoNumber, {s});
  // The one strict parser (parse_number.h): no hex, no inf/nan, no '+'.
  const Result<double> v = ParseReal(number, -1e300, 1e300);
  if (!v) return refuse(MsgId::kRoleFilterNotNumber, {number});
  if (*v < 0 || *v > 1) return refuse(MsgId::kRoleFilterOutside, {number});
  f.threshold = (float)*v;
  return f;
}

}  // namespace attnviz::model
