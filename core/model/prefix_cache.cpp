#include "model/prefix_cache.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "attention/attention.h"
#include "base/matmul.h"

namespace attnviz::model {

bool WhatIfSignature::operator==(const WhatIfSignature& o) const {
  return no_scale == o.no_scale && no_softcap == o.no_softcap && no_qk_norm == o.no_qk_norm &&
         temperature == o.temperature && ablate == o.ablate;
}

WhatIfSignature SignatureOf(const RunOptions& o) {
  return WhatIfSignature{o.no_scale, o.no_softcap, o.no_qk_norm, o.temperature, o.ablate};
}

void PrefixState::Clear() {
  ids.clear();
  made_n = 0;
  hidden.clear();
  qkv.clear();
  row_figures = false;
  metrics.clear();
  row_logit_sums.clear();
}

size_t PrefixState::Bytes() const {
  size_t floats = 0;
  for (const auto& h : hidden) floats += h.capacity();
  for (const auto& q : qkv) floats += q.capacity();
  size_t figures = 0;
  for (const auto& layer : metrics)
    for (const HeadMetrics& h : layer) figures += h.rows.capacity() * sizeof(RowMetrics);
  for (const auto& sums : row_logit_sums) figures += sums.capacity() * sizeof(double);
  return floats * sizeof(float) + figures;
}

double PrefixStateBytes(const ModelConfig& c, size_t n, bool row_figures) {
  const double ld_qkv = c.q_dim() + 2.0 * c.kv_dim();
  const double rows = (double)n + kPrefixSpareRows;
  const double figures = row_figures ? (double)c.n_layer * c.n_head * rows * (sizeof(RowMetrics) + 2 * sizeof(double)) : 0;
  return ((c.n_layer + 1.0) * rows * c.d_model + (double)c.n_layer * rows * ld_qkv) * sizeof(float) + figures;
}

size_t CommonPrefix(const std::vector<int>& a, const std::vector<int>& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

int PrefixRowStart(int shared, int made_n, int n) {
  // The attention runs whole blocks of rows (the one holding s from its start, on kept q rows): the kept rows' blocks
  // were the same rows in the run that made them.
  if (AttendBlockRows((size_t)n) != AttendBlockRows((size_t)made_n)) return 0;
  // 1. A multiple of the products' packets: the kept rows were whole packets in that run too (its last rows % 16
  //    were not).
  size_t s = (size_t)std::min(shared, made_n) / kMatMulRowGroup * kMatMulRowGroup;
  // 2. No 1-row product the full run does not have (Eigen's GEMV sums in another order): the last tile of rows.
  const size_t last_tile = ((size_t)n - 1) / kMatMulTileRows * kMatMulTileRows;
  if (s > last_tile && (size_t)n - s == 1) s -= kMatMulRowGroup;
  return (int)s;
}

PrefixPlan PlanPrefixReuse(const ModelConfig& c, const PrefixState& state, const std::vector<int>& ids,
                           const RunOptions& o) {
  auto refuse = [](const std::string& why) { return PrefixPlan{0, why}; };
  if (c.recipe.bidirectional) return refuse("a bidirectional model: every row reads every later position");
  for (const AblatedHead& a : o.ablate)
    if (a.mode == AblateMode::kMean) return refuse("mean ablation: the mean reads every position, later ones too");
  if (!o.patch.empty()) return refuse("patched heads: the other run's rows change with the text");
  if (o.first_layer > 0 || o.resume_hidden) return refuse("resuming at a layer: its input comes from the caller");
  if (state.ids.empty() || state.hidden.size() != (size_t)c.n_layer + 1 || state.qkv.size() != (size_t)c.n_layer)
    return refuse("nothing kept yet");
  if (!(state.what_ifs == SignatureOf(o))) return refuse("the what-ifs differ from the kept rows'");
  if (o.row_figures && !state.row_figures) return refuse("row figures: the kept rows were made without them");
  const size_t shared = CommonPrefix(state.ids, ids);
  if (shared == 0) return refuse("the text changed at its first token");
  const int s = PrefixRowStart((int)shared, state.made_n, (int)ids.size());
  if (s == 0) return refuse("the change is within the first " + std::to_string(kMatMulRowGroup) + " tokens");
  return PrefixPlan{s, ""};
}

void MovePrefixRows(const float* old, size_t n_head, size_t n_old, size_t n_new, size_t rows, float* new_probs) {
  const size_t keep = std::min(n_old, n_new);
  auto move_row = [&](size_t h, size_t i) {
    float* to = new_probs + (h * n_new + i) * n_new;
    std::memmove(to, old + (h * n_old + i) * n_old, keep * sizeof(float));
    std::fill(to + keep, to + n_new, 0.0f);
  };
  if (n_new > n_old) {  // rows move to later places: the last first, so none is overwritten before it moves
    for (size_t h = n_head; h-- > 0;)
      for (size_t i = rows; i-- > 0;) move_row(h, i);
  } else {
    for (size_t h = 0; h < n_head; ++h)
      for (size_t i = 0; i < rows; ++i) move_row(h, i);
  }
}

}  // namespace attnviz::model
