#include "shown.h"

#include <utility>

namespace attnviz {

std::shared_ptr<const Shown> ShownSandbox(std::shared_ptr<const ComputeResult> result, uint64_t generation) {
  auto s = std::make_shared<Shown>();
  s->generation = generation;
  s->stacks = std::make_shared<const std::vector<LayerStack>>(std::vector<LayerStack>{SandboxStack(result)});
  s->maps = std::shared_ptr<const LayerMaps>(result, &result->tensors);  // the result's own maps (aliased)
  s->sandbox_extras = &result->tensors;
  s->seconds = result->seconds;
  s->sandbox = std::move(result);
  return s;
}

std::shared_ptr<const Shown> ShownModelLayer(std::shared_ptr<const ModelResult> result, int layer, MapKind kind,
                                             bool hide_special, std::shared_ptr<const LayerMaps> maps,
                                             uint64_t generation) {
  auto s = std::make_shared<Shown>();
  s->generation = generation;
  s->stacks = std::make_shared<const std::vector<LayerStack>>(StacksOf(*result));
  s->layer = layer;
  s->kind = kind;
  s->hide_special = hide_special;
  s->maps = std::move(maps);
  s->seconds = result->seconds;
  s->model = std::move(result);
  return s;
}

std::shared_ptr<const Shown> ShownWithMaps(const Shown& shown, std::shared_ptr<const LayerMaps> maps,
                                           uint64_t generation) {
  auto s = std::make_shared<Shown>(shown);
  s->generation = generation;
  s->maps = std::move(maps);
  return s;
}

}  // namespace attnviz
