// The per-token loss on the text (the Model panel's chips coloured by it): each token's -log p, and its change under
// the what-ifs and ablations, summed over a chip's tokens (a chip joins the byte pieces of one character, so its loss
// is the joint loss of those pieces).
#pragma once
#include <cstddef>
#include <vector>

#include "panel_views.h"
#include "session/model_session.h"

namespace attnviz {

// Each token's loss, nats, and the same without the what-ifs and ablations.
struct TokenLosses {
  std::vector<double> loss;  // [n_tokens]; NaN where a token has none (a decoder-only text's first); empty: none yet
  std::vector<double> base;  // [n_tokens], or empty when not known
};

// A decoder-only run's: token t's loss is -next_log_prob[t - 1], token 0 has none (empty when the result has no
// per-token log-probabilities: no LM head, a masked LM, one token, predictions still to come).
TokenLosses TokenLossesOf(const ModelResult& result);

struct ChipLoss {
  bool has = false;       // some token of the chip has a loss (a decoder-only text's token 0 alone has not)
  double loss = 0;        // sum over the chip's tokens that have one, nats
  bool has_base = false;  // the same tokens' loss without the what-ifs is known
  double base_loss = 0;
  double delta() const { return loss - base_loss; }
};

// [chips.size()] (empty when `losses` has none).
std::vector<ChipLoss> ChipLosses(const TokenLosses& losses, const std::vector<TokenChips::Chip>& chips);
inline std::vector<ChipLoss> ChipLosses(const ModelResult& result, const std::vector<TokenChips::Chip>& chips) {
  return ChipLosses(TokenLossesOf(result), chips);
}

// The largest loss (mode kLoss) or |delta| (kLossChange) over the chips: the colour scale's end (0 when none).
double ChipLossScale(const std::vector<ChipLoss>& losses, ChipColor mode);

}  // namespace attnviz
