// Causal prefix reuse timed (core/model/prefix_cache.h): "append one word to 2000 tokens" as a run that keeps the
// prefix and recomputes only the new rows in every layer, against the full run over the same new ids, in the same
// process. Alternated pairs (the kept state made from the old text untimed, then the reused run and the full run),
// the first pair a warm-up; prints the median ratio reused / full of the pairs (and their range). No timed
// assertion: docs/speed.md keeps the numbers.
//
//   attnviz_prefix_bench [--dir DIR] [--n 2000] [--append 2] [--pairs 7]
// DIR defaults to /tmp/attnviz_bench_smollm2, the random SmolLM2-135M-shaped checkpoint that
// `attnviz_model_bench --arch smollm2` writes. Both runs stream their maps block by block into a sink that keeps
// nothing (RunOptions::stream_maps, the app's path for long inputs: 30 layers of [9, 2000, 2000] maps are 4.3 GB),
// so both sides time the forward alone.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/prefix_cache.h"
#include "model/run.h"
#include "pair_timing.h"

using namespace attnviz;
using namespace attnviz::model;

using bench::Discard;
using bench::Median;
using bench::MsSince;

namespace {

// Milliseconds of one run over ids (into a sink that keeps nothing); negative on an error (printed).
double TimedRun(const Model& model, const std::vector<int>& ids, const RunOptions& o) {
  Discard discard;
  const auto start = std::chrono::steady_clock::now();
  const Status s = RunModel(model, ids, o, &discard);
  if (!s) return std::fprintf(stderr, "%s\n", s.message().c_str()), -1.0;
  return MsSince(start);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/tmp/attnviz_bench_smollm2";
  int n = 2000, append = 2, pairs = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--n" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--append" && i + 1 < argc) append = std::atoi(argv[++i]);
    else if (a == "--pairs" && i + 1 < argc) pairs = std::atoi(argv[++i]);
    else return std::fprintf(stderr, "usage: %s [--dir DIR] [--n 2000] [--append 2] [--pairs 7]\n", argv[0]), 2;
  }
  if (n < 1 || append < 1 || pairs < 1)
    return std::fprintf(stderr, "--n, --append and --pairs take numbers >= 1 (got %d, %d, %d)\n", n, append, pairs), 2;
  auto model = LoadModel(dir);
  if (!model)
    return std::fprintf(stderr, "%s\n(make the default checkpoint with: attnviz_model_bench --arch smollm2 --n 16 "
                                "--reps 1)\n", model.message().c_str()), 2;
  const ModelConfig& c = (*model)->config();
  // 1. The old text and the new one (the old plus `append` ids: one word).
  std::vector<int> old_ids((size_t)n), new_ids;
  for (int i = 0; i < n; ++i) old_ids[(size_t)i] = (int)((i * 7919L) % c.vocab);
  new_ids = old_ids;
  for (int i = 0; i < append; ++i) new_ids.push_back((int)((n + i) * 104729L % c.vocab));
  // 2. Alternated pairs: the state from the old text (untimed), the reused run, then the full run.
  PrefixState state;
  RunOptions keep, full;
  full.stream_maps = true;
  keep = full;
  keep.prefix = &state;
  std::vector<double> reused_ms, full_ms, ratios;
  int kept_rows = 0;
  for (int r = 0; r < pairs + 1; ++r) {
    if (TimedRun(**model, old_ids, keep) < 0) return 2;
    const double reused = TimedRun(**model, new_ids, keep);
    kept_rows = state.reused_rows;
    if (kept_rows == 0) return std::fprintf(stderr, "no rows reused: %s\n", state.refused.c_str()), 2;
    const double whole = TimedRun(**model, new_ids, full);
    if (reused < 0 || whole < 0) return 2;
    if (r == 0) continue;  // warm-up
    reused_ms.push_back(reused), full_ms.push_back(whole), ratios.push_back(reused / whole);
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  std::printf("%s\n%d OpenMP threads; %d tokens + %d appended; rows kept %d, computed %d\n"
              "reused run: median %.1f ms; full run: median %.1f ms; reused / full, median of %d pairs: %.3f "
              "(%.3f..%.3f)\n",
              (*model)->Describe().c_str(), omp_get_max_threads(), n, append, kept_rows,
              (int)new_ids.size() - kept_rows, Median(reused_ms), Median(full_ms), pairs, Median(ratios),
              sorted.front(), sorted.back());
  return 0;
}
