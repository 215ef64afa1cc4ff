// What the alternated-pairs benchmarks of bench/model share (attnviz_prefix_bench, attnviz_scan_bench): a sink that
// keeps nothing (both sides time the forward alone), the median of the pairs, milliseconds since a start.
#pragma once
#include <algorithm>
#include <chrono>
#include <vector>

#include "model/run.h"

namespace attnviz::bench {

struct Discard : model::LayerSink {
  Status OnLayer(const model::LayerOutput&) override { return Status::Ok(); }
};

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace attnviz::bench
