// Google Benchmark of the attention engine (bench/run.sh runs it; not part of CTest).
//
// Config everywhere: d_model 512, n_head 8 (d_k = d_v = 64), self-attention, no mask, n tokens.
//   (BM_Sgemm*, the baseline, is bench/bench_sgemm.cpp: it needs Eigen's own threading, which the engine compiles
//   out)
//   BM_Forward       the full forward from the embeddings x: project, scores, logits + softmax, metrics,
//                    weights . v, output projection; every head's scores, logits and weights are kept
//   BM_PipelineForward  the same through attnviz::Pipeline, alternating the seed (so it also redraws
//                    the embeddings and the 1M random weights: an upper bound of what the app pays)
//   BM_ScaleToggle   flip config.scale and Run(Stage::kMetrics): logits, softmax and metrics from the
//                    cached raw scores
// Each reports FLOP/s as the counter "FLOPS" (rate over real time). FLOPs counted: 2*m*n*k per GEMM,
// and for the element-wise passes nothing (so their GFLOP/s understates the work; only the GEMM FLOPs
// of a forward are counted, which is what makes "forward GFLOP/s / SGEMM GFLOP/s" a fair efficiency).
#include "bench_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "attention/attention.h"
#include "sandbox/projection.h"
#include "sandbox/embedding.h"
#include "attention/metrics.h"
#include "sandbox/pipeline.h"
#include "sandbox/weights.h"

namespace attnviz {
namespace {

using namespace attnviz::bench;

std::string SyntheticText(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? " t" : "t") + std::to_string(i);
  return text;
}

AttentionConfig BenchConfig(uint64_t seed = 0) {
  AttentionConfig c;
  c.d_model = kDModel;
  c.n_head = kHeads;
  c.seed = seed;
  return c;
}

// ---- the full forward ----
// A pipeline sized for n tokens, run once; the benchmarks then redo stages on its buffers.
Pipeline ReadyPipeline(int n, benchmark::State& state) {
  Pipeline p;
  p.SetText(SyntheticText(n));
  p.SetConfig(BenchConfig());
  if (Status s = p.Run(Stage::kOutput); !s) state.SkipWithError(s.message().c_str());
  return p;
}

// Working copies of a pipeline's tensors (the benchmark writes into them; the pipeline's are immutable).
struct ScratchTensors {
  explicit ScratchTensors(const AttentionTensors& t)
      : x(*t.x), q(*t.q), k(*t.k), v(*t.v), scores(*t.scores), logits(*t.logits), probs(*t.probs), z(*t.z),
        concat(*t.concat), out(*t.out), metrics(t.metrics) {}
  Tensor x, q, k, v, scores, logits, probs, z, concat, out;
  std::vector<HeadMetrics> metrics;
};

// What Pipeline::Run does from kProject through kOutput, on buffers reused between calls.
void BM_Forward(benchmark::State& state) {
  const int n = (int)state.range(0);
  Pipeline p = ReadyPipeline(n, state);
  ScratchTensors t(p.tensors());  // x and every buffer, already sized
  const ProjectionWeights& w = p.params();
  const AttentionConfig& c = p.config();
  for (auto _ : state) {
    Project(t.x, t.x, w, &t.q, &t.k, &t.v);
    Attend(AttendFrom::kQueryKey, t.q, t.k, t.v, c.logit_multiplier(), c.mask, &t.scores, &t.logits, &t.probs,
           &t.metrics, &t.z);
    OutputProjection(t.z, w.w_o, &t.concat, &t.out);
    benchmark::DoNotOptimize(t.out.data.data());
    benchmark::ClobberMemory();
  }
  // Same bits as the pipeline (guards against the bench drifting from what the app runs).
  if (t.out.data != p.tensors().out->data || t.probs.data != p.tensors().probs->data) {
    state.SkipWithError("BM_Forward disagrees with Pipeline::Run");
  }
  SetFlops(state, ForwardFlops(n));
}

// The same forward one step at a time (each step a full pass over the maps): what fusing saves.
void BM_ForwardSteps(benchmark::State& state) {
  const int n = (int)state.range(0);
  Pipeline p = ReadyPipeline(n, state);
  ScratchTensors t(p.tensors());
  const ProjectionWeights& w = p.params();
  const AttentionConfig& c = p.config();
  for (auto _ : state) {
    Project(t.x, t.x, w, &t.q, &t.k, &t.v);
    Scores(t.q, t.k, &t.scores);
    LogitsSoftmax(t.scores, c.logit_multiplier(), c.mask, &t.logits, &t.probs);
    ComputeMetrics(t.logits, t.probs, c.mask, &t.metrics);
    MixValues(t.probs, t.v, &t.z);
    OutputProjection(t.z, w.w_o, &t.concat, &t.out);
    benchmark::DoNotOptimize(t.out.data.data());
    benchmark::ClobberMemory();
  }
  if (t.out.data != p.tensors().out->data) state.SkipWithError("BM_ForwardSteps disagrees with Pipeline::Run");
  SetFlops(state, ForwardFlops(n));
}

// Through the Pipeline, alternating the seed: embeddings + weight init + forward.
void BM_PipelineForward(benchmark::State& state) {
  const int n = (int)state.range(0);
  Pipeline p;
  p.SetText(SyntheticText(n));
  uint64_t seed = 0;
  for (auto _ : state) {
    p.SetConfig(BenchConfig(seed ^= 1));
    if (Status s = p.Run(Stage::kOutput); !s) {
      state.SkipWithError(s.message().c_str());
      return;
    }
    benchmark::DoNotOptimize(p.tensors().out->data.data());
  }
  SetFlops(state, ForwardFlops(n));
}

// The scaling toggle alone: logits, softmax and metrics recomputed from the cached raw scores.
void BM_ScaleToggle(benchmark::State& state) {
  const int n = (int)state.range(0);
  Pipeline p;
  p.SetText(SyntheticText(n));
  AttentionConfig c = BenchConfig();
  p.SetConfig(c);
  p.Run(Stage::kOutput);
  const int scores_runs = p.run_count(Stage::kScores);
  for (auto _ : state) {
    c.scale = !c.scale;
    p.SetConfig(c);
    p.Run(Stage::kMetrics);
    benchmark::DoNotOptimize(p.tensors().metrics.data());
  }
  if (p.run_count(Stage::kScores) != scores_runs) state.SkipWithError("the toggle recomputed the scores");
  // No GEMM FLOPs: report the forward's count so "FLOPS" reads as forward-equivalent speed.
  SetFlops(state, ForwardFlops(n));
}

BENCHMARK(BM_Forward)->Apply(Sizes);
BENCHMARK(BM_ForwardSteps)->Apply(Sizes);
BENCHMARK(BM_PipelineForward)->Apply(Sizes);
BENCHMARK(BM_ScaleToggle)->Apply(Sizes);

}  // namespace
}  // namespace attnviz

int main(int argc, char** argv) { return attnviz::bench::RunBenchmarks(argc, argv); }
