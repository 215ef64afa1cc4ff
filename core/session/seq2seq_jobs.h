// The analyses of a finished encoder-decoder run (seq2seq_session.h) the app shows, from
// core/model/seq2seq_analysis.h, each on its own "latest request wins" queue (latest_wins.h) so the UI thread
// never waits and a newer request cancels the running one:
//   neuron view  one (stack, layer, head, i, j): one more run under the run's ablations, its q and k not kept (the
//                memory stays the maps')
//   map kinds    rollout of the encoder's and the decoder's self-attention (from the run's maps; cross-attention
//                has none: Seq2SeqKindRefusal), value-weighted maps of the three stacks (one more run)
//   scan         "ablate each head once" over every head of every stack, progress in heads; Stop() keeps the heads
//                done (Seq2SeqAblationScan::complete false)
//
// Dimension glossary (seq2seq_session.h): n_src source tokens, n_tgt decoder tokens.
#pragma once
#include <atomic>
#include <memory>
#include <vector>

#include "model/seq2seq_analysis.h"
#include "session/map_kind.h"
#include "session/ranked_head.h"
#include "session/seq2seq_session.h"

namespace attnviz {

// Why `kind` has no maps of stack `stack` (Seq2SeqStackIndex): rollout of cross-attention, whose rows and columns
// are different tokens. Ok when it has.
Status Seq2SeqKindRefusal(MapKind kind, int stack);

// The kind's three stacks for `run` (complete), shaped as run.stacks: value-weighted [n_head, n_q, n_k] per layer;
// rollout [1, n, n] per layer (R_l) of the encoder and decoder, the cross stack without layers. Attention: run.stacks.
Result<std::shared_ptr<const std::vector<LayerStack>>> Seq2SeqKindStacks(const Seq2SeqResult& run, MapKind kind,
                                                                         const RunControl& control = {});
// The neuron view of (stack, layer, head, i, j) of `run` (complete), under its ablations.
Result<model::Seq2SeqNeuronView> Seq2SeqNeuronOf(const Seq2SeqResult& run, int stack, int layer, int head, int i,
                                                 int j, const RunControl& control = {});
// The scan of `run` (complete): its labels' loss (the mean over loss_at's decoder positions; empty: all),
// run.request.ablate as the base, zero ablation.
Result<model::Seq2SeqAblationScan> Seq2SeqScanOf(const Seq2SeqResult& run, const std::vector<int>& loss_at = {},
                                                 const RunControl& control = {});

struct Seq2SeqNeuronRequest {
  std::shared_ptr<const Seq2SeqResult> run;
  int stack = 0, layer = 0, head = 0, i = 0, j = 0;
  bool Same(const Seq2SeqNeuronRequest& o) const {
    return run == o.run && stack == o.stack && layer == o.layer && head == o.head && i == o.i && j == o.j;
  }
};
struct Seq2SeqNeuronResult {
  uint64_t generation = 0;
  Seq2SeqNeuronRequest request;
  Status status;
  model::Seq2SeqNeuronView view;
};

struct Seq2SeqKindRequest {
  std::shared_ptr<const Seq2SeqResult> run;
  MapKind kind = MapKind::kAttention;
};
struct Seq2SeqKindResult {
  uint64_t generation = 0;
  Seq2SeqKindRequest request;
  Status status;
  std::shared_ptr<const std::vector<LayerStack>> stacks;  // [3] as Seq2SeqResult::stacks
};

struct Seq2SeqScanRequest {
  std::shared_ptr<const Seq2SeqResult> run;
  std::vector<int> loss_at;  // decoder positions whose loss is averaged (empty: every position)
};
struct Seq2SeqScanResult {
  uint64_t generation = 0;
  Seq2SeqScanRequest request;
  Status status;
  model::Seq2SeqAblationScan scan;
  double max_abs_delta = 0;  // for colouring the Overview
  std::vector<RankedHead> ranked;  // the heads scanned, largest loss change first (ties: scan order)
  // The loss change of (stack, layer, head) against the base loss; NaN when not scanned.
  double Delta(int stack, int layer, int head) const;
};

class Seq2SeqAnalysisJobs {
 public:
  // on_change: called after every submission and finished job (outside their locks); on_head (tests): on the
  // scan's thread after each head, with the number done.
  explicit Seq2SeqAnalysisJobs(std::function<void()> on_change = {}, std::function<void(size_t)> on_head = {});
  void Neuron(const Seq2SeqNeuronRequest& r) { neurons_.Submit(r); }
  void Kind(const Seq2SeqKindRequest& r) { kinds_.Submit(r); }
  void Scan(const Seq2SeqScanRequest& r) { scans_.Submit(r); }
  // The user's Stop: the running scan ends, the heads it finished published.
  void StopScan();
  // Every job stopped, nothing kept (another folder or run).
  void CancelAll();
  std::shared_ptr<const Seq2SeqNeuronResult> neuron() const { return neurons_.latest(); }
  std::shared_ptr<const Seq2SeqKindResult> kind() const { return kinds_.latest(); }
  std::shared_ptr<const Seq2SeqScanResult> scan() const { return scans_.latest(); }
  bool neuron_busy() const { return neurons_.busy(); }
  bool kind_busy() const { return kinds_.busy(); }
  bool scan_busy() const { return scans_.busy(); }
  JobProgress scan_progress() const { return scans_.progress(); }  // done, total: heads
  bool WaitIdle(double seconds) const {
    return neurons_.WaitIdle(seconds) && kinds_.WaitIdle(seconds) && scans_.WaitIdle(seconds);
  }

 private:
  std::atomic<uint64_t> stopped_upto_{0}, cancelled_upto_{0};  // scans of these generations or older
  std::function<void(size_t)> on_head_;
  LatestWins<Seq2SeqNeuronRequest, Seq2SeqNeuronResult> neurons_;
  LatestWins<Seq2SeqKindRequest, Seq2SeqKindResult> kinds_;
  LatestWins<Seq2SeqScanRequest, Seq2SeqScanResult> scans_;  // last: the threads start once the rest exists
};

}  // namespace attnviz
