#include "maps/layer_stack.h"

#include <algorithm>
#include <utility>

namespace attnviz {

LayerStack OneLayerStack(std::shared_ptr<const LayerMaps> maps, StackKind kind) {
  std::vector<std::shared_ptr<const LayerMaps>> layers;
  if (maps) layers.push_back(std::move(maps));
  return StackOfLayers(std::move(layers), kind);
}

LayerStack StackOfLayers(std::vector<std::shared_ptr<const LayerMaps>> layers, StackKind kind) {
  LayerStack stack;
  stack.kind = kind;
  stack.layers = std::move(layers);
  for (const std::shared_ptr<const LayerMaps>& maps : stack.layers) {
    if (!maps) continue;
    stack.row_tokens = maps->query_tokens;
    stack.column_tokens = maps->kv_tokens;
    stack.mask = maps->mask;
    break;
  }
  return stack;
}

LayerMaps StackedHeads(const LayerStack& stack) {
  LayerMaps stacked;
  const LayerMaps* first = stack.layer(0);
  if (!first || first->probs->empty()) return stacked;
  const Tensor& shape = *first->probs;  // [n_head, n_q, n_k]
  for (int l = 0; l < stack.n_layer(); ++l) {
    const LayerMaps* maps = stack.layer(l);
    if (!maps || maps->probs->empty() || maps->probs->shape != shape.shape) return stacked;
  }
  auto probs = std::make_shared<Tensor>();
  probs->Resize({shape.dim(0) * (size_t)stack.n_layer(), shape.dim(1), shape.dim(2)});
  for (int l = 0; l < stack.n_layer(); ++l) {
    const LayerMaps& maps = *stack.layer(l);
    std::copy(maps.probs->data.begin(), maps.probs->data.end(), probs->data.begin() + (size_t)l * shape.size());
    stacked.metrics.insert(stacked.metrics.end(), maps.metrics.begin(), maps.metrics.end());
  }
  stacked.probs = probs;
  stacked.query_tokens = first->query_tokens;
  stacked.kv_tokens = first->kv_tokens;
  stacked.mask = first->mask;
  return stacked;
}

const char* StackKindName(StackKind kind) {
  switch (kind) {
    case StackKind::kSelf: return "self";
    case StackKind::kEncoder: return "encoder";
    case StackKind::kDecoder: return "decoder";
    case StackKind::kCross: return "cross";
  }
  return "self";
}

}  // namespace attnviz
