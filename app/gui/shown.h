// Shown: what the maps on screen show, as every panel reads it: which stack of the current run, which layer and
// which map kind, the run's stacks (shared), and that layer's LayerMaps as displayed (special tokens cut out when
// asked: made once per change, never per frame), with the sandbox's pipeline numbers or the model run on the side.
// The App makes one when the choice or the result changes; a test makes one from a result, with no App.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "maps/layer_maps.h"
#include "maps/layer_stack.h"
#include "session/map_kind.h"
#include "session/model_session.h"
#include "session/sandbox_session.h"

namespace attnviz {

struct Shown {
  uint64_t generation = 0;  // a new number whenever `maps` changes (the views' caches key on it)
  std::shared_ptr<const std::vector<LayerStack>> stacks;  // the current run's (the layers shared, not copied)
  int stack = 0, layer = 0;                                // of `stacks`
  MapKind kind = MapKind::kAttention;
  bool hide_special = false;
  std::shared_ptr<const LayerMaps> maps;  // the layer as displayed: n_head, n_q, n_k of the maps drawn
  // Sandbox-only: the run's config, its pipeline numbers (x, v, scores, logits, z, out), the scale-flipped twin and
  // its time, beside the maps; null for a model layer.
  std::shared_ptr<const SandboxExtras> sandbox;
  // Model-only: the run the layer is of; null for the sandbox.
  std::shared_ptr<const ModelResult> model;
  double seconds = 0;  // the run's time to this result

  // The sandbox layer's pipeline numbers (the heads' tooltips read its scores); null for a model layer.
  const AttentionTensors* sandbox_numbers() const { return sandbox ? sandbox->numbers.get() : nullptr; }
  const LayerStack* shown_stack() const {
    return stacks && stack >= 0 && stack < (int)stacks->size() ? &(*stacks)[(size_t)stack] : nullptr;
  }
};

// A successful sandbox run as shown: its one stack, the maps its one layer, its extras (all shared: no copy).
std::shared_ptr<const Shown> ShownSandbox(const SandboxRun& run, uint64_t generation);
// Layer `layer` of a model run as shown: `maps` (that layer of `kind` as displayed), the run's stacks.
std::shared_ptr<const Shown> ShownModelLayer(std::shared_ptr<const ModelResult> result, int layer, MapKind kind,
                                             bool hide_special, std::shared_ptr<const LayerMaps> maps,
                                             uint64_t generation);
// The same choice with other maps (a streamed layer's exact rows arrived): a new generation, the rest shared.
std::shared_ptr<const Shown> ShownWithMaps(const Shown& shown, std::shared_ptr<const LayerMaps> maps,
                                           uint64_t generation);

}  // namespace attnviz
