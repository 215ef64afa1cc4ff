// The one NaN / Inf scan of the engine: a model's weights when they are bound, its activations after every stage.
#pragma once
#include <cstddef>

namespace attnviz {

// values: [count]. The index of the first element that is NaN or Inf (exponent bits all set), or `count` when every
// element is finite. Chunks of the array go to every core; inside a chunk an integer test of the exponent bits with
// no early exit, which the compiler vectorizes (std::isfinite in a loop it does not; docs/speed.md), and only
// a chunk that has one is searched element by element.
size_t FirstNotFinite(const float* values, size_t count);

// values: [count]. Whether every element is finite, on the calling thread (the same test without the search): for
// a row or a tile a thread has just made, in its cache (the layers' checks ride on the passes that make values).
bool AllFinite(const float* values, size_t count);

}  // namespace attnviz
