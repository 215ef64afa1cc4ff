// "Ablate each head once" timed (model::ScanHeadAblations, core/model/analysis.h): the scan of every head of a
// GPT-2-small-shaped checkpoint against the full forward it stands for, in the same process. Each pair times one
// scan and one full run over the same ids (maps streamed into a sink that keeps nothing, as the scan's runs do),
// and that run's loss (the final norm and the LM head over every row, as each of the scan's runs reads it); the
// ratios are scan / (n_layer x n_head x full run), the blocks alone and with the loss: what the scan costs in "one
// full forward per head" units. The first pair is a warm-up; prints the median ratios of the pairs and their range.
// No timed assertion: docs/speed.md keeps the numbers.
//
//   attnviz_scan_bench [--dir DIR] [--n 512] [--pairs 5]
// DIR defaults to /tmp/attnviz_bench_gpt2_small, the random GPT-2-small-shaped checkpoint that
// `attnviz_model_bench --arch gpt2` writes.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "model/model.h"
#include "model/predict.h"
#include "model/run.h"
#include "pair_timing.h"

using namespace attnviz;
using namespace attnviz::model;

// Keeps the residual stream after the last block (what the loss reads); the maps pass by.
struct LastStream : LayerSink {
  explicit LastStream(int n_layer) : last(n_layer - 1) {}
  Status OnLayer(const LayerOutput& out) override {
    if (out.layer == last) hidden.assign(out.hidden, out.hidden + (size_t)out.n * out.d_model);
    return Status::Ok();
  }
  int last;
  std::vector<float> hidden;
};

using bench::Median;
using bench::MsSince;

int main(int argc, char** argv) {
  std::string dir = "/tmp/attnviz_bench_gpt2_small";
  int n = 512, pairs = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--n" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--pairs" && i + 1 < argc) pairs = std::atoi(argv[++i]);
    else return std::fprintf(stderr, "usage: %s [--dir DIR] [--n 512] [--pairs 5]\n", argv[0]), 2;
  }
  if (n < 2 || pairs < 1) return std::fprintf(stderr, "--n takes 2 or more, --pairs 1 or more\n"), 2;
  auto model = LoadModel(dir);
  if (!model)
    return std::fprintf(stderr, "%s\n(make the default checkpoint with: attnviz_model_bench --arch gpt2 --n 16 "
                                "--reps 1)\n", model.message().c_str()), 2;
  const ModelConfig& c = (*model)->config();
  std::vector<int> ids((size_t)n);
  for (int i = 0; i < n; ++i) ids[(size_t)i] = (int)((i * 7919L) % c.vocab);
  RunOptions full;
  full.stream_maps = true;
  const double heads = (double)c.n_layer * c.n_head;
  std::vector<double> scan_ms, full_ms, loss_ms, ratios, loss_ratios;
  for (int r = 0; r < pairs + 1; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto scan = ScanHeadAblations(**model, ids);
    const double s = MsSince(t0);
    if (!scan) return std::fprintf(stderr, "%s\n", scan.message().c_str()), 2;
    LastStream last(c.n_layer);
    t0 = std::chrono::steady_clock::now();
    if (Status st = RunModel(**model, ids, full, &last); !st) return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;
    const double f = MsSince(t0);
    t0 = std::chrono::steady_clock::now();
    auto loss = NextLogProbsAt(**model, last.hidden.data(), ids, {});
    const double l = MsSince(t0);
    if (!loss) return std::fprintf(stderr, "%s\n", loss.message().c_str()), 2;
    if (r == 0) continue;  // warm-up
    scan_ms.push_back(s), full_ms.push_back(f), loss_ms.push_back(l);
    ratios.push_back(s / (heads * f)), loss_ratios.push_back(s / (heads * (f + l)));
  }
  auto range = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::make_pair(v.front(), v.back());
  };
  const auto [lo, hi] = range(ratios);
  const auto [loss_lo, loss_hi] = range(loss_ratios);
  std::printf("%s\n%d OpenMP threads; %d tokens; %d heads\n"
              "scan: median %.1f s; full run: median %.1f ms; its loss (LM head over every row): median %.1f ms\n"
              "scan / (heads x full run), median of %d pairs: %.3f (%.3f..%.3f)\n"
              "scan / (heads x (full run + its loss)), median of %d pairs: %.3f (%.3f..%.3f)\n",
              (*model)->Describe().c_str(), omp_get_max_threads(), n, (int)heads, Median(scan_ms) / 1000.0,
              Median(full_ms), Median(loss_ms), pairs, Median(ratios), lo, hi, pairs, Median(loss_ratios), loss_lo,
              loss_hi);
  return 0;
}
