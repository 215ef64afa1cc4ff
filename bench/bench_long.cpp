// Long inputs (`make bench`, a table, not a timed test): for one n (argv[1]) at 16 heads, d_model 1024
// (d_k = 64), self-attention, on this machine's cores, beside the floor measured in the same run:
//   first maps   embed + project + the attention pass with its pyramid and figures (what the app shows
//                first: Pipeline::Run(kMetrics)); floor: the same GEMMs alone (x W_qkv, then q k^T for every
//                head, block by block into a scratch, no softmax, no pyramid)
//   twin         the same pass with scaling flipped (the app computes it next, so the S key is a swap)
//   toggle       a temperature change: the pass again, from the kept score codes in pooled mode (from the
//                kept scores in full mode); floor: q k^T (what a pass without kept scores would start with)
//   sweep        the app's d_k sweep (1..4096, scaled and unscaled; sampled rows above 1024); floor: its GEMMs
//                alone (sampled: SampledScores, the sampled rows against every key in the cheaper order)
//   peak RSS     of this process after the above (maps of the pass, its twin and the sweep); floor: what must
//                be kept: x, q, k, v, both pyramids (main + twin) and the score codes
// Each time is given as wall s (process CPU s), the ratio is of the CPU times: on a shared machine the wall
// times grow with the load, the CPU times hardly. Prints one markdown row: n | mode | first maps | floor |
// ratio | toggle | floor | ratio | sweep | floor | ratio | peak RSS MiB | floor MiB | ratio.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attention/attention.h"
#include "sandbox/projection.h"
#include "sandbox/embedding.h"
#include "attention/metrics.h"
#include "sandbox/pipeline.h"
#include "maps/score_codes.h"
#include "sandbox/sweep.h"
#include "sandbox/weights.h"

using namespace attnviz;

namespace {
// Wall and process CPU seconds since construction. On a shared machine the wall time grows with the load;
// the CPU time (all threads) does not, and on an idle 2-core machine the wall time of a parallel part is
// about its CPU time / 2.
struct Clock {
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu0 = CpuNow();
  static double CpuNow() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
  }
  double Wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); }
  double Cpu() const { return CpuNow() - cpu0; }
};

struct Timing {
  double wall = 0, cpu = 0;
  void Add(const Clock& c) { wall += c.Wall(), cpu += c.Cpu(); }
};

// q k^T for every head, block by block into a per-thread scratch (the pass's GEMMs, nothing else).
void ScoresFloor(const Tensor& q, const Tensor& k) {
  const size_t H = q.dim(0), n_q = q.dim(1), n_k = k.dim(1), block = AttendBlockRows(n_k);
  const size_t blocks = (n_q + block - 1) / block;
#pragma omp parallel
  {
    std::vector<float> s(block * n_k);
#pragma omp for schedule(dynamic)
    for (long long item = 0; item < (long long)(H * blocks); ++item) {
      const size_t h = item / blocks, r0 = item % blocks * block;
      const Eigen::Index rows = (Eigen::Index)std::min(block, n_q - r0);
      RowMap(s.data(), rows, (Eigen::Index)n_k).noalias() = q.Slice(h).middleRows((Eigen::Index)r0, rows) * k.Slice(h).transpose();
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? " t" : "t") + std::to_string(i);
  AttentionConfig c;
  c.d_model = 1024;
  c.n_head = 16;
  Pipeline p;
  if (!p.SetText(text).ok() || !p.SetConfig(c).ok()) return 2;
  Timing first, first_floor, toggle, toggle_floor, sweep, sweep_floor;
  Clock clock;
  p.Run(Stage::kMetrics);
  first.Add(clock);
  const AttentionTensors t = p.tensors();  // held, as the app holds the shown result
  // Floor of the first maps: the projection GEMM and the scores GEMMs alone.
  ProjectionWeights w;
  InitWeights(c, &w);
  Tensor q2, k2, v2;
  clock = Clock();
  Project(*t.x, *t.x, w, &q2, &k2, &v2);
  first_floor.Add(clock);
  clock = Clock();
  ScoresFloor(*t.q, *t.k);
  toggle_floor.Add(clock);
  first_floor.wall += toggle_floor.wall, first_floor.cpu += toggle_floor.cpu;
  // The twin (scaling flipped), computed after the first maps.
  Pipeline twin;
  // As the app's worker: one set of score codes, written by the twin's pass, read by the main pipeline's toggle.
  auto codes = std::make_shared<ScoreCodes>();
  p.UseScoreCodes(codes, false);
  twin.UseScoreCodes(codes, true);
  AttentionConfig flipped = c;
  flipped.scale = false;
  twin.SetText(text);
  twin.SetConfig(flipped);
  twin.Run(Stage::kMetrics);
  const AttentionTensors tt = twin.tensors();
  // A temperature toggle: the pass again.
  c.temperature = 0.5f;
  p.SetConfig(c);
  clock = Clock();
  p.Run(Stage::kMetrics);
  toggle.Add(clock);
  const AttentionTensors t2 = p.tensors();
  // The app's sweep (core/session/sandbox_session.cpp: 2 heads; 1 seed when rows are sampled, else 2).
  SweepOptions so;
  so.n_head = 2;
  so.n_seeds = n > so.sample_above_rows ? 1 : 2;
  clock = Clock();
  auto points = SweepDk({}, p.kv_tokens(), AttentionConfig{c}, so);
  sweep.Add(clock);
  // Sweep floor: per d_k and seed, its GEMMs alone (SampledScores: the sampled rows' scores against every
  // key, in the cheaper order; unsampled: the projections and every row's q k^T).
  for (int d_k : DefaultSweepDks()) {
    AttentionConfig sc = c;
    sc.n_head = so.n_head;
    sc.d_k = d_k;
    sc.d_v = 1;
    ProjectionWeights sw;
    InitWeights(sc, &sw);
    const bool sampled = n > so.sample_above_rows;
    Tensor xs;
    xs.Resize({(size_t)(sampled ? so.sample_rows : n), (size_t)c.d_model});
    std::copy(t.x->data.begin(), t.x->data.begin() + xs.size(), xs.data.begin());
    Tensor sq, sk, sv, ss;
    for (int seed = 0; seed < so.n_seeds; ++seed) {
      clock = Clock();
      if (sampled) {
        SampledScores(xs, *t.x, sw, &ss);
      } else {
        Project(xs, *t.x, sw, &sq, &sk, &sv);
        Scores(sq, sk, &ss);
      }
      sweep_floor.Add(clock);
    }
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  const double rss_mib = ru.ru_maxrss / 1024.0;
  const double keep_mib = (t.x->size() + t.q->size() + t.k->size() + t.v->size()) * 4.0 / 1048576.0 +
                          (t.pyramid ? t.pyramid->bytes() : 0) / 1048576.0 +
                          (p.score_codes() ? p.score_codes()->bytes() : 0) / 1048576.0 + (tt.pyramid ? tt.pyramid->bytes() : 0) / 1048576.0 +
                          (t.pooled ? 0.0 : (t.probs->size() + t.scores->size() + tt.probs->size() + tt.scores->size()) * 4.0 / 1048576.0);
  // Each time: wall s (CPU s), its floor likewise, and the ratio of the CPU times (load-independent).
  auto cell = [](const Timing& a, const Timing& f) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2f (%.2f) | %.2f (%.2f) | %.2fx", a.wall, a.cpu, f.wall, f.cpu, a.cpu / f.cpu);
    return std::string(buf);
  };
  std::printf("| %d | %s | %s | %s | %s | %.0f | %.0f | %.2fx |\n", n, t.pooled ? "pooled" : "full",
              cell(first, first_floor).c_str(), cell(toggle, toggle_floor).c_str(), cell(sweep, sweep_floor).c_str(),
              rss_mib, keep_mib, rss_mib / keep_mib);
  return points.ok() ? 0 : 1;
}
