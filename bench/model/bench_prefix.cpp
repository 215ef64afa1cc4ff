// Causal prefix reuse timed (core/model/prefix_cache.h): "append one word to 2000 tokens" as a run that keeps the
// prefix and recomputes only the new rows in every layer, against the full run over the same new ids, in the same
// process. Alternated pairs (the kept state made from the old text untimed, then the reused run and the full run),
// the first pair a warm-up; prints the median ratio reused / full of the pairs (and their range). No timed
// assertion: docs/speed.md keeps the numbers.
//
//   attnviz_prefix_bench [--dir DIR] [--n 2000] [--append 2] [--pairs 7] [--session]
// DIR defaults to /tmp/attnviz_bench_smollm2, the random SmolLM2-135M-shaped checkpoint that
// `attnviz_model_bench --arch smollm2` writes. Both runs stream their maps block by block into a sink that keeps
// nothing (RunOptions::stream_maps, the app's path for long inputs: 30 layers of [9, 2000, 2000] maps are 4.3 GB),
// so both sides time the forward alone. --session: both runs as the app's session makes the text (the one
// collector with the session's plan, row figures, the rollout): maps kept whole under kKeptMapsCells (the reused
// run's maps start with the last run's rows, LayerCollector::KeepRows; e.g. --dir /tmp/attnviz_bench_gpt2_small
// --n 512), else streamed into each layer's pyramid (the pooled sums of the kept rows taken from the last run up to
// a stride, the blocks of the few rows after it made again: RunOptions::prefix_blocks_from; the 2000-token default).
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
#include "session/layer_collector.h"

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

// The same through the session's collector (its plan: whole maps, or streamed as o says; row figures): the run's
// collected layers in *out; rows kept from `earlier` when the state gives some (*pooled_rows: of those, the rows
// whose pooled sums came from `earlier`).
double TimedCollectedRun(const Model& model, const std::vector<int>& ids, RunOptions o, const CollectedLayers* earlier,
                         CollectedLayers* out, int* pooled_rows) {
  std::vector<tokenize::Token> tokens(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) tokens[i].id = ids[i];
  o.row_figures = true;
  o.prefix_blocks = o.stream_maps;
  const auto start = std::chrono::steady_clock::now();
  LayerCollector collector(model, o, TokenList(std::move(tokens)), CollectPlan::ForSession(o.stream_maps));
  if (earlier && o.prefix) {
    const PrefixPlan plan = PlanPrefixReuse(model.config(), *o.prefix, ids, o);
    const int from = plan.rows > 0 ? collector.KeepRows(*earlier, plan.rows) : 0;
    if (o.stream_maps) o.prefix_blocks_from = (size_t)from, *pooled_rows = from;
  }
  const Status s = RunModel(model, ids, o, &collector);
  if (!s) return std::fprintf(stderr, "%s\n", s.message().c_str()), -1.0;
  if (collector.rollout_pending())
    if (Status r = collector.MakeRollout({}); !r) return std::fprintf(stderr, "%s\n", r.message().c_str()), -1.0;
  const double ms = MsSince(start);
  collector.CopyInto(out);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/tmp/attnviz_bench_smollm2";
  int n = 2000, append = 2, pairs = 7;
  bool session = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--session") session = true;
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--n" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--append" && i + 1 < argc) append = std::atoi(argv[++i]);
    else if (a == "--pairs" && i + 1 < argc) pairs = std::atoi(argv[++i]);
    else return std::fprintf(stderr, "usage: %s [--dir DIR] [--n 2000] [--append 2] [--pairs 7] [--session]\n", argv[0]), 2;
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
  const bool whole_maps = !StreamsMaps(c, n + append);
  full.stream_maps = !session || !whole_maps;
  keep = full;
  keep.prefix = &state;
  CollectedLayers old_layers, new_layers, full_layers;
  int pooled_rows = 0;
  auto timed = [&](const std::vector<int>& ids, const RunOptions& o, bool reuse) {
    if (!session) return TimedRun(**model, ids, o);
    return TimedCollectedRun(**model, ids, o, reuse ? &old_layers : nullptr,
                             !o.prefix ? &full_layers : reuse ? &new_layers : &old_layers, &pooled_rows);
  };
  std::vector<double> reused_ms, full_ms, ratios;
  int kept_rows = 0;
  for (int r = 0; r < pairs + 1; ++r) {
    if (session) state.Clear();  // the old text's maps made whole: the rows the reused run keeps
    if (timed(old_ids, keep, false) < 0) return 2;
    const double reused = timed(new_ids, keep, true);
    kept_rows = state.reused_rows;
    if (kept_rows == 0) return std::fprintf(stderr, "no rows reused: %s\n", state.refused.c_str()), 2;
    const double whole = timed(new_ids, full, false);
    if (session)  // the reused run shows what the full run shows
      for (size_t l = 0; l < full_layers.layers.size(); ++l) {
        const LayerMaps &got = *new_layers.layers[l], &want = *full_layers.layers[l];
        const bool same = got.probs->data == want.probs->data && (!got.pyramid) == (!want.pyramid) &&
                          (!got.pyramid || SameBits(*got.pyramid, *want.pyramid));
        if (!same) return std::fprintf(stderr, "layer %zu: the reused run's maps differ from the full run's\n", l), 2;
      }
    if (reused < 0 || whole < 0) return 2;
    if (r == 0) continue;  // warm-up
    reused_ms.push_back(reused), full_ms.push_back(whole), ratios.push_back(reused / whole);
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  std::printf("%s\n%d OpenMP threads; %d tokens + %d appended; rows kept %d, computed %d%s\n"
              "reused run: median %.1f ms; full run: median %.1f ms; reused / full, median of %d pairs: %.3f "
              "(%.3f..%.3f)\n",
              (*model)->Describe().c_str(), omp_get_max_threads(), n, append, kept_rows,
              (int)new_ids.size() - kept_rows,
              !session     ? ""
              : whole_maps ? "; as the session (whole maps, row figures, the collector)"
                           : ("; as the session (streamed maps, row figures, the collector; pooled sums of " +
                              std::to_string(pooled_rows) + " rows kept)").c_str(),
              Median(reused_ms), Median(full_ms), pairs, Median(ratios), sorted.front(), sorted.back());
  return 0;
}
