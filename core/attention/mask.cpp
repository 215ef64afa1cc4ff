#include "attention/mask.h"

namespace attnviz {

std::string Describe(const Mask& mask) {
  switch (mask.kind) {
    case Mask::Kind::kNone: return "none";
    case Mask::Kind::kBidirectional: return "bidirectional";
    case Mask::Kind::kCausal:
      return mask.windowed() ? "causal, window " + std::to_string(mask.window) : "causal";
  }
  return "none";
}

}  // namespace attnviz
