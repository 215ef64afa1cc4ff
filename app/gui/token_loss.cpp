#include "token_loss.h"

#include <algorithm>
#include <cmath>

namespace attnviz {

std::vector<ChipLoss> ChipLosses(const ModelResult& result, const std::vector<TokenChips::Chip>& chips) {
  if (!result.predictions || result.predictions->next_log_prob.empty()) return {};
  const std::vector<double>& lp = result.predictions->next_log_prob;  // [n - 1]
  const std::vector<double>* base = result.baseline_next_log_prob.get();
  const bool has_base = base && base->size() == lp.size();
  std::vector<ChipLoss> out(chips.size());
  for (size_t g = 0; g < chips.size(); ++g) {
    ChipLoss& c = out[g];
    c.has_base = has_base;
    for (size_t t = std::max<size_t>(chips[g].first, 1); t < chips[g].first + chips[g].count && t - 1 < lp.size(); ++t) {
      c.has = true;
      c.loss -= lp[t - 1];
      if (has_base) c.base_loss -= (*base)[t - 1];
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
