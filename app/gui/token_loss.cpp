#include "token_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnviz {

TokenLosses TokenLossesOf(const ModelResult& result) {
  TokenLosses out;
  if (!result.predictions || result.predictions->next_log_prob.empty()) return out;
  const std::vector<double>& lp = result.predictions->next_log_prob;  // [n - 1]
  const std::vector<double>* base = result.baseline_next_log_prob.get();
  const double none = std::numeric_limits<double>::quiet_NaN();
  out.loss.assign(lp.size() + 1, none);
  for (size_t t = 1; t <= lp.size(); ++t) out.loss[t] = -lp[t - 1];
  if (base && base->size() == lp.size()) {
    out.base.assign(lp.size() + 1, none);
    for (size_t t = 1; t <= lp.size(); ++t) out.base[t] = -(*base)[t - 1];
  }
  return out;
}

std::vector<ChipLoss> ChipLosses(const TokenLosses& losses, const std::vector<TokenChips::Chip>& chips) {
  const std::vector<double>& loss = losses.loss;
  if (loss.empty()) return {};
  const bool has_base = losses.base.size() == loss.size();
  std::vector<ChipLoss> out(chips.size());
  for (size_t g = 0; g < chips.size(); ++g) {
    ChipLoss& c = out[g];
    c.has_base = has_base;
    for (size_t t = chips[g].first; t < chips[g].first + chips[g].count && t < loss.size(); ++t) {
      if (std::isnan(loss[t])) continue;
      c.has = true;
      c.loss += loss[t];
      if (has_base) c.base_loss += losses.base[t];
    }
    if (!c.has) c.has_base = false;
  }
  return out;
}

double ChipLossScale(const std::vector<ChipLoss>& losses, ChipColor mode) {
  double m = 0;
  for (const ChipLoss& c : losses) {
    if (!c.has) continue;
    if (mode == ChipColor::kLoss) m = std::max(m, c.loss);
    else if (mode == ChipColor::kLossChange && c.has_base) m = std::max(m, std::abs(c.delta()));
  }
  return m;
}

}  // namespace attnviz
