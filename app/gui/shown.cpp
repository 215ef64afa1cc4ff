#include "shown.h"

#include <utility>

namespace attnviz {

std::shared_ptr<const Shown> ShownSandbox(const SandboxRun& run, uint64_t generation) {
  auto s = std::make_shared<Shown>();
  s->generation = generation;
  s->stacks = std::make_shared<const std::vector<LayerStack>>(std::vector<LayerStack>{run.stack});
  s->maps = run.stack.n_layer() > 0 ? run.stack.layers[0] : nullptr;
  s->sandbox = run.extras;
  s->seconds = run.extras ? run.extras->seconds : 0;
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
