#include "maps/layer_stack.h"

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
