#include "maps/layer_maps.h"

namespace attnviz {

MapSource LayerMaps::Source(uint64_t generation) const {
  MapSource s;
  s.probs = probs->empty() ? nullptr : probs.get();
  s.pyramid = pyramid.get();
  s.q = q->empty() ? nullptr : q.get();
  s.k = k->empty() ? nullptr : k.get();
  s.multiplier = multiplier;  // the pass's (a raw feature's width may differ from the config's d_k)
  s.mask = mask;
  s.generation = generation;
  return s;
}

std::string Describe(const LayerMaps& maps) {
  std::ostringstream t;
  t << maps.temperature;
  return "d_k=" + std::to_string(maps.d_qk) + " \u00B7 " + (maps.scaled ? "scaled" : "unscaled") + " \u00B7 T=" + t.str() +
         " \u00B7 " + Describe(maps.mask);
}

}  // namespace attnviz
