#include "maps/layer_maps.h"

#include "base/title_words.h"

namespace attnviz {

MapSource LayerMaps::Source(uint64_t generation) const {
  MapSource s;
  s.probs = probs->empty() ? nullptr : probs.get();
  s.pyramid = pyramid.get();
  s.q = q->empty() ? nullptr : q.get();
  s.k = k->empty() ? nullptr : k.get();
  s.col_scale = col_scale->empty() ? nullptr : col_scale.get();
  s.multiplier = multiplier;  // the pass's (a raw feature's width may differ from the config's d_k)
  s.softcap = softcap;
  s.mask = mask;
  s.generation = generation;
  s.exact_cells_limit = exact_cells_limit;
  return s;
}

std::string Describe(const LayerMaps& maps) {
  return "d_k=" + std::to_string(maps.d_qk) + kTitleDot + (maps.scaled ? "scaled" : "unscaled") + kTitleDot + "T=" +
         ShortNumber(maps.temperature) + (maps.softcap > 0 ? std::string(kTitleDot) + "cap " + ShortNumber(maps.softcap) : "") +
         kTitleDot + Describe(maps.mask);
}

}  // namespace attnviz
