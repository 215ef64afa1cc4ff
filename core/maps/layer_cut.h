// A LayerMaps with some tokens left out (the screen's "hide special tokens"): the kept positions' rows and columns of
// every map, their tokens and their row figures, cut the same way, so row a of the cut is position keep[a] in
// every part. A self-attention layer only (rows and columns are the same tokens).
#pragma once
#include <memory>
#include <vector>

#include "maps/layer_maps.h"
#include "maps/token_list.h"

namespace attnviz {

// The mask token ("[MASK]", roberta's "<mask>"): where a masked LM predicts.
bool IsMaskToken(const Token& token);
// What "hide special tokens" hides: a special token ([CLS], [SEP], <s>, ...), but never the mask token, which is what
// a masked LM's predictions are at.
bool HiddenAsSpecial(const Token& token);

// The positions of `tokens` that "hide special tokens" keeps (not HiddenAsSpecial); all of them when that leaves none
// (a map of nothing shows nothing about the model).
std::vector<int> NonSpecialPositions(const TokenList& tokens);

// `maps` at the positions `keep` (ascending, each < n): probs [n_head, n, n] -> [n_head, m, m], q [n_head, n, d] and
// k [n_kv_head, n, d] -> their kept rows, col_scale [n_head, n] -> its kept columns, the tokens and each head's row
// figures (the figures of the full rows, what the model computed, for the rows kept). How the maps were made (the
// multiplier, d_qk, scaling, temperature, mask) stays. A layer with no whole map (pooled) has nothing to cut: the
// same layer, shared. keep covering every position: the same layer, shared.
// !! The mask still speaks of positions: a causal mask reads right as long as the cut keeps the tokens' order.
std::shared_ptr<const LayerMaps> CutLayerMaps(const std::shared_ptr<const LayerMaps>& maps, const std::vector<int>& keep);

}  // namespace attnviz
