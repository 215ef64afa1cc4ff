// The per-token loss on the text (the Model panel's chips coloured by it): each token's -log p given the tokens
// before it, and its change under the what-ifs and ablations, summed over a chip's tokens (a chip joins the byte
// pieces of one character, so its loss is the joint loss of those pieces).
#pragma once
#include <cstddef>
#include <vector>

#include "panel_views.h"
#include "session/model_session.h"

namespace attnviz {

struct ChipLoss {
  bool has = false;       // some token of the chip is predicted (token 0 alone is not)
  double loss = 0;        // sum over the chip's tokens t >= 1 of -log p(ids[t] | ids[0..t-1]), nats
  bool has_base = false;  // the plain run's loss of the same tokens is known (ModelResult::baseline_next_log_prob)
  double base_loss = 0;
  double delta() const { return loss - base_loss; }
};

// [chips.size()] (empty when the result has no per-token log-probabilities: no LM head, a masked LM, one token,
// predictions still to come). next_log_prob[i] is log p(ids[i + 1]), so token t's loss is -next_log_prob[t - 1].
std::vector<ChipLoss> ChipLosses(const ModelResult& result, const std::vector<TokenChips::Chip>& chips);

// The largest loss (mode kLoss) or |delta| (kLossChange) over the chips: the colour scale's end (0 when none).
double ChipLossScale(const std::vector<ChipLoss>& losses, ChipColor mode);

}  // namespace attnviz
