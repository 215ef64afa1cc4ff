// What attnviz_bench (bench_forward.cpp) and attnviz_bench_sgemm (bench_sgemm.cpp) share: the sandbox config's
// sizes, the GEMM FLOPs counted, the "FLOPS" counter, the n of every row and main(). Eigen and Google Benchmark only
// (no engine header): the SGEMM program is built without the engine, whose Eigen threads nothing.
#pragma once
#include <benchmark/benchmark.h>
#include <omp.h>

#include <Eigen/Core>
#include <string>

namespace attnviz::bench {

// Config everywhere: d_model 512, n_head 8 (d_k = d_v = 64), self-attention, no mask, n tokens.
constexpr int kDModel = 512, kHeads = 8, kHeadDim = kDModel / kHeads;

// GEMM FLOPs of one forward at n tokens: QKV projection and output projection; per head scores and weights . v.
inline double ProjectionFlops(double n) { return 2.0 * n * kDModel * (3.0 * kDModel) + 2.0 * n * kDModel * kDModel; }
inline double HeadFlops(double n) { return 2.0 * kHeads * (2.0 * n * n * kHeadDim); }
inline double ForwardFlops(double n) { return ProjectionFlops(n) + HeadFlops(n); }

inline void SetFlops(benchmark::State& state, double flops) {
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["flop_per_iter"] = flops;
  state.counters["threads"] = omp_get_max_threads();
}

// The n of every row (compare.py matches the two programs' rows by it).
inline void Sizes(benchmark::internal::Benchmark* b) {
  for (int n : {64, 256, 1024, 4096}) b->Arg(n);
  b->MeasureProcessCPUTime()->UseRealTime()->Unit(benchmark::kMillisecond);
}

// main() of both programs: the threads OpenMP and Eigen would use, and Eigen's SIMD, in the JSON's context.
inline int RunBenchmarks(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext("eigen_threads", std::to_string(Eigen::nbThreads()));
  benchmark::AddCustomContext("eigen_simd", Eigen::SimdInstructionSetsInUse());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace attnviz::bench
