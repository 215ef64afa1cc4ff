// The tokens of a text as chips, in the Model panel of a decoder-only and of an encoder-decoder model alike: byte
// pieces that make one character joined (JoinBytePieces), special tokens dimmed, "colour the tokens by" nothing,
// their loss or its change (token_loss.h), a tooltip with each token's id, loss and the model's top tokens at the
// chip's position, and a click that pins those below the chips. What the chips are of comes in as a ChipText.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "i18n/ui_strings.h"
#include "panel_context.h"
#include "token_loss.h"

namespace attnviz {

struct ChipText {
  const void* owner = nullptr;  // with `text`: what the chips are of (laid out again when either changes)
  std::string text;
  const std::vector<tokenize::Token>* tokens = nullptr;
  bool can_color = false;  // the colour choice is offered (the losses may still be to come)
  TokenLosses losses;      // per token of `tokens`
  std::string no_loss;     // why no colour choice is offered ("": nothing said)
  bool base_unknown = false;  // the run has what-ifs or ablations but the loss without them is not known
  // The words: what the colours mean, and a chip's loss change in its tooltip.
  Str explain = Str::kTokenLossExplain, delta_explain = Str::kTokenLossDeltaExplain;
  Str tip_delta = Str::kTokenLossTipDelta;
  // Whose predictions a chip shows: at its last token (decoder-only: what follows it), or at its first (an
  // encoder-decoder target: what the decoder expected in its place).
  bool predictions_after = true;
  std::function<std::string(int position)> predictions;  // the top tokens at a position ("": none there)
  bool has_predictions = false;  // the run has them (else nothing is pinned or offered)
  size_t prediction_positions = 0;
  std::string no_predictions;  // said instead of the how-to when the run has none ("": nothing said)
};

// What the chips keep between frames: the layout, the colour choice and the pinned position.
struct ChipState {
  TokenChips* chips = nullptr;
  ChipColor* color = nullptr;
  int* pinned = nullptr;
};

// The chips and what is below them. Widgets: model.chip_color_none/_loss/_delta, model.token.<chip> (value: its
// prediction position); fields token_loss, model_tokens, predictions.
void DrawTokenChips(PanelContext& ctx, const ChipText& text, ChipState state);

}  // namespace attnviz
