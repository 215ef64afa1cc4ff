// "A what-if on the last quarter of the layers, with predictions" timed as the app's session runs it: the layers
// through the one collector (layer_collector.h, the session's plan: streamed maps, row figures, roles, thumbnails),
// resumed at the first layer the what-if changes from the plain run's kept input there, then the top tokens of the
// hovered position alone (model::TopTokensAt, ModelSession::MakeTopTokens), against the plain run over every layer
// with its predictions over every position (model::Predict), in the same process. Alternated pairs (the plain run
// timed, then the what-if resumed from it), the first a warm-up; prints the median ratio what-if / plain of the
// pairs (and their range), and what the what-if costs when it waits for every position's predictions instead.
// No timed assertion: docs/speed.md keeps the numbers.
//
//   attnviz_whatif_bench [--dir DIR] [--n 2000] [--pairs 5]
// DIR defaults to /tmp/attnviz_bench_smollm2, the random SmolLM2-135M-shaped checkpoint that
// `attnviz_model_bench --arch smollm2` writes.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/predict.h"
#include "model/run.h"
#include "pair_timing.h"
#include "session/layer_collector.h"
#include "session/model_session.h"  // kPredictTopK
#include "session/what_ifs.h"

using namespace attnviz;
using namespace attnviz::model;

using bench::Median;
using bench::MsSince;

namespace {

struct Timed {
  double layers_ms = -1, predict_ms = -1;  // predict: every position's (plain) or the hovered row's (what-if)
  double all_predictions_ms = -1;          // the what-if's predictions over every position, for comparison
};

int Fail(const Status& s) { return std::fprintf(stderr, "%s\n", s.message().c_str()), 2; }

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "/tmp/attnviz_bench_smollm2";
  int n = 2000, pairs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--n" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--pairs" && i + 1 < argc) pairs = std::atoi(argv[++i]);
    else return std::fprintf(stderr, "usage: %s [--dir DIR] [--n 2000] [--pairs 5]\n", argv[0]), 2;
  }
  if (n < 2 || pairs < 1) return std::fprintf(stderr, "--n takes a number >= 2, --pairs >= 1 (got %d, %d)\n", n, pairs), 2;
  auto loaded = LoadModel(dir);
  if (!loaded)
    return std::fprintf(stderr, "%s\n(make the default checkpoint with: attnviz_model_bench --arch smollm2 --n 16 "
                                "--reps 1)\n", loaded.message().c_str()), 2;
  const Model& model = **loaded;
  const ModelConfig& c = model.config();
  if (!model.has_lm_head()) return std::fprintf(stderr, "%s has no LM head: no predictions to time\n", dir.c_str()), 2;
  // 1. The text (ids only: the collector's token list needs no text) and the what-if: no 1/sqrt(d_head) on the last
  //    quarter of the layers.
  std::vector<int> ids((size_t)n);
  std::vector<tokenize::Token> tokens((size_t)n);
  for (int i = 0; i < n; ++i) ids[(size_t)i] = tokens[(size_t)i].id = (int)((i * 7919L) % c.vocab);
  const TokenList token_list(std::move(tokens));
  ModelWhatIfs what_if;
  what_if.no_scale = true;
  for (int l = c.n_layer - c.n_layer / 4; l < c.n_layer; ++l) what_if.layers.push_back(l);
  const int k = std::min(kPredictTopK, c.vocab), hovered = n - 1;
  // 2. Alternated pairs: the plain run (every layer, then every position's predictions), then the what-if resumed
  //    at its first changed layer from the plain run's kept input (the hovered row's top tokens).
  std::vector<double> plain_ms, whatif_ms, ratios, waiting_ratios;
  int first = 0;
  for (int r = 0; r < pairs + 1; ++r) {
    RunOptions plain = WhatIfRunOptions(ModelWhatIfs{}, c.n_layer);
    plain.stream_maps = true, plain.row_figures = true;
    const CollectPlan plan = CollectPlan::ForSession(true);
    LayerCollector base(model, plain, token_list, plan);
    Timed p;
    auto start = std::chrono::steady_clock::now();
    if (Status s = RunModel(model, ids, plain, &base); !s) return Fail(s);
    p.layers_ms = MsSince(start);
    start = std::chrono::steady_clock::now();
    auto predicted = Predict(model, base.last_hidden().data(), ids, k);
    if (!predicted) return Fail(predicted.status());
    p.predict_ms = MsSince(start);
    CollectedLayers kept;
    base.CopyInto(&kept);

    RunOptions changed = WhatIfRunOptions(what_if, c.n_layer);
    changed.stream_maps = true, changed.row_figures = true;
    first = FirstChangedLayer(c, plain, changed);
    while (first > 0 && !kept.resume_inputs[(size_t)first]) --first;
    changed.first_layer = first;
    changed.resume_hidden = first > 0 ? kept.resume_inputs[(size_t)first]->data() : nullptr;
    LayerCollector resumed(model, changed, token_list, plan);
    if (first > 0) resumed.Reuse(kept, first);
    Timed w;
    start = std::chrono::steady_clock::now();
    if (Status s = RunModel(model, ids, changed, &resumed); !s) return Fail(s);
    w.layers_ms = MsSince(start);
    start = std::chrono::steady_clock::now();
    auto top = TopTokensAt(model, resumed.last_hidden().data(), n, k, {hovered});
    if (!top) return Fail(top.status());
    w.predict_ms = MsSince(start);
    start = std::chrono::steady_clock::now();
    auto every = Predict(model, resumed.last_hidden().data(), ids, k);
    if (!every) return Fail(every.status());
    w.all_predictions_ms = MsSince(start);
    if (r == 0) continue;  // warm-up
    const double whole = p.layers_ms + p.predict_ms, what = w.layers_ms + w.predict_ms;
    plain_ms.push_back(whole), whatif_ms.push_back(what), ratios.push_back(what / whole);
    waiting_ratios.push_back((w.layers_ms + w.all_predictions_ms) / whole);
    std::fprintf(stderr, "pair %d: plain %.0f + %.0f ms, what-if %.0f + %.1f ms (every position: %.0f ms)\n", r,
                 p.layers_ms, p.predict_ms, w.layers_ms, w.predict_ms, w.all_predictions_ms);
  }
  std::vector<double> sorted = ratios, waiting = waiting_ratios;
  std::sort(sorted.begin(), sorted.end());
  std::sort(waiting.begin(), waiting.end());
  std::printf("%s\n%d OpenMP threads; %d tokens; what-if: no scaling on layers %d..%d (resumed at %d)\n"
              "plain run with every prediction: median %.1f ms; what-if with the hovered row's: median %.1f ms\n"
              "what-if / plain, median of %d pairs: %.3f (%.3f..%.3f); waiting for every position's predictions "
              "instead: %.3f (%.3f..%.3f)\n",
              model.Describe().c_str(), omp_get_max_threads(), n, what_if.layers.front(), what_if.layers.back(), first,
              Median(plain_ms), Median(whatif_ms), pairs, Median(ratios), sorted.front(), sorted.back(),
              Median(waiting_ratios), waiting.front(), waiting.back());
  return 0;
}
