// LayerStack: what a run publishes for the screen: the layers of one kind of attention, each its own LayerMaps
// (shared, never copied), with the tokens of their rows and columns and the mask they share. A trained model's run
// is one `self` stack (decoder-only and bert alike: every layer attends over the same tokens); the sandbox is one
// stack of one layer (`self`, or in its cross mode `cross`: rows are the queries, columns the keys, n_q != n_k in
// general). An encoder-decoder model would publish an `encoder`, a `decoder` and a `cross` stack.
#pragma once
#include <memory>
#include <vector>

#include "attention/mask.h"
#include "maps/layer_maps.h"
#include "maps/token_list.h"
#include "tokenize/token.h"

namespace attnviz {

enum class StackKind { kSelf, kEncoder, kDecoder, kCross };

struct LayerStack {
  StackKind kind = StackKind::kSelf;
  // [n_layer]: each layer's maps, probs [n_head, n_q, n_k] (or its pyramid); null while a run has not made it yet.
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  TokenList row_tokens;              // n_q: the queries (the layers' own list, shared)
  TokenList column_tokens;           // n_k: the keys
  Mask mask;                         // the first layer's (each layer's own: LayerMaps::mask; gemma's differ)

  int n_layer() const { return (int)layers.size(); }
  int n_q() const { return (int)row_tokens.size(); }
  int n_k() const { return (int)column_tokens.size(); }
  // Layer `layer`'s maps, or null (out of range, or not there yet).
  const LayerMaps* layer(int layer) const {
    return layer >= 0 && layer < n_layer() ? layers[(size_t)layer].get() : nullptr;
  }
};

// A stack of the one layer `maps` (the sandbox's): its tokens and mask are the layer's.
LayerStack OneLayerStack(std::shared_ptr<const LayerMaps> maps, StackKind kind);
// A stack of `layers` (null entries: not made yet) whose tokens and mask are those of the first layer there (no
// tokens while none is).
LayerStack StackOfLayers(std::vector<std::shared_ptr<const LayerMaps>> layers, StackKind kind);

// Every layer's heads as one set of maps, probs [n_layer * n_head, n_q, n_k] (map k is layer k / n_head, head
// k % n_head), their row figures in the same order: a copy, for a figure of the whole stack. Empty probs when a
// layer is missing, keeps no whole map (pooled) or differs in shape from the first.
LayerMaps StackedHeads(const LayerStack& stack);

// "self", "encoder", "decoder", "cross" (dumps and tests).
const char* StackKindName(StackKind kind);

}  // namespace attnviz
