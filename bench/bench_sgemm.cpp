// The SGEMM baseline of `make bench` (bench/run.sh runs it beside attnviz_bench; compare.py reads both): the
// sandbox forward's GEMMs alone, d_model 512, 8 heads of 64, n tokens, on 2 threads, each shape run two ways:
//   projections [n,512]x[512,1536] and [n,512]x[512,512]: Eigen threading each product / column tiles of 256,
//                one thread each;
//   per head [n,64]x[64,n] and [n,n]x[n,64], x8: heads over the threads / head after head, Eigen threading each.
// compare.py takes the faster way of each: baseline time = best projections + best per-head products.
// !! Its own program, not linked with the engine: the engine is compiled with EIGEN_DONT_PARALLELIZE (its threads
// are its own; core/CMakeLists.txt), and Eigen's own threading is one of the two ways measured here.
#include "bench_common.h"

#include <algorithm>
#include <vector>

namespace {

using namespace attnviz::bench;
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

RowMatrix Random(Eigen::Index rows, Eigen::Index cols) { return 0.05f * RowMatrix::Random(rows, cols); }

struct GemmBuffers {
  RowMatrix x, w_qkv, qkv, concat, w_o, out;  // [n,512] [512,1536] [n,1536] [n,512] [512,512] [n,512]
  std::vector<RowMatrix> q, k, v, s, z;       // per head: [n,64] x3, [n,n], [n,64]
  explicit GemmBuffers(Eigen::Index n)
      : x(Random(n, kDModel)), w_qkv(Random(kDModel, 3 * kDModel)), qkv(n, 3 * kDModel), concat(Random(n, kDModel)),
        w_o(Random(kDModel, kDModel)), out(n, kDModel) {
    for (int h = 0; h < kHeads; ++h) {
      q.push_back(Random(n, kHeadDim)), k.push_back(Random(n, kHeadDim)), v.push_back(Random(n, kHeadDim));
      s.emplace_back(n, n), z.emplace_back(n, kHeadDim);
    }
  }
  // Eigen threading each product.
  void ProjectionsEigenThreads() {
    qkv.noalias() = x * w_qkv;
    out.noalias() = concat * w_o;
  }
  // Column tiles of 256 spread over the threads, one thread per tile.
  static void Tiled(const RowMatrix& a, const RowMatrix& b, RowMatrix* c) {
    const Eigen::Index cols = b.cols(), tiles = (cols + 255) / 256;
#pragma omp parallel for schedule(dynamic)
    for (Eigen::Index t = 0; t < tiles; ++t) {
      const Eigen::Index c0 = t * 256, w = std::min<Eigen::Index>(256, cols - c0);
      c->middleCols(c0, w).noalias() = a * b.middleCols(c0, w);
    }
  }
  void ProjectionsTiled() {
    Tiled(x, w_qkv, &qkv);
    Tiled(concat, w_o, &out);
  }
  // Heads over the threads, one thread per product.
  void HeadsParallel() {
#pragma omp parallel for schedule(static)
    for (int h = 0; h < kHeads; ++h) s[h].noalias() = q[h] * k[h].transpose();
#pragma omp parallel for schedule(static)
    for (int h = 0; h < kHeads; ++h) z[h].noalias() = s[h] * v[h];
  }
  // Head after head, Eigen threading each product.
  void HeadsEigenThreads() {
    for (int h = 0; h < kHeads; ++h) s[h].noalias() = q[h] * k[h].transpose();
    for (int h = 0; h < kHeads; ++h) z[h].noalias() = s[h] * v[h];
  }
};

template <void (GemmBuffers::*kRun)()>
void BM_Gemm(benchmark::State& state, double (*flops)(double)) {
  GemmBuffers b((Eigen::Index)state.range(0));
  for (auto _ : state) {
    (b.*kRun)();
    benchmark::ClobberMemory();
  }
  SetFlops(state, flops((double)state.range(0)));
}

void BM_SgemmProjections(benchmark::State& s) { BM_Gemm<&GemmBuffers::ProjectionsEigenThreads>(s, ProjectionFlops); }
void BM_SgemmProjectionsTiled(benchmark::State& s) { BM_Gemm<&GemmBuffers::ProjectionsTiled>(s, ProjectionFlops); }
void BM_SgemmHeads(benchmark::State& s) { BM_Gemm<&GemmBuffers::HeadsParallel>(s, HeadFlops); }
void BM_SgemmHeadsEigenThreads(benchmark::State& s) { BM_Gemm<&GemmBuffers::HeadsEigenThreads>(s, HeadFlops); }

BENCHMARK(BM_SgemmProjections)->Apply(Sizes);
BENCHMARK(BM_SgemmProjectionsTiled)->Apply(Sizes);
BENCHMARK(BM_SgemmHeads)->Apply(Sizes);
BENCHMARK(BM_SgemmHeadsEigenThreads)->Apply(Sizes);

}  // namespace

int main(int argc, char** argv) { return attnviz::bench::RunBenchmarks(argc, argv); }
