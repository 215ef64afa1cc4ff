// "Ablate each head once": model::ScanHeadAblations (core/model/analysis.h) over the shown text and
// what-ifs, on its own "latest request wins" queue (latest_wins.h), so the UI thread never waits for it. A newer
// scan, Cancel() or a new text/model (the App cancels) stops the running one within one block of work; progress
// says which head runs. The result ranks the heads by how much their ablation raises the loss; after Stop() it
// holds the heads finished before it (AblationScan::complete false), a newer request's scan replaces it.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/analysis.h"
#include "session/latest_wins.h"
#include "session/model_session.h"
#include "session/ranked_head.h"

namespace attnviz {

// What a scan runs on: the shown run's request, and where its loss is read (model::ScanHeadAblations's loss_at:
// positions i predicting token i + 1; empty: the mean over every position). A failed scan's result keeps the
// ModelRequest part.
struct ScanRequest : ModelRequest {
  std::vector<int> loss_at;
};

struct AblationScanResult {
  uint64_t generation = 0;
  ModelRequest request;  // the folder, text and what-ifs the scan ran on (scan.loss_at: where it read the loss)
  Status status;
  model::AblationScan scan;       // loss [n_layer * n_head], layer-major (scan.complete false: cancelled part way)
  int n_layer = 0, n_head = 0;
  std::vector<RankedHead> ranked;  // [scan.heads_done]: the heads scanned, largest delta first (ties: lower layer,
                                   // then head)
  double max_abs_delta = 0;        // for colouring the overview
  // The delta of (layer, head), 0 out of range or not scanned.
  double Delta(int layer, int head) const;
  // (layer, head) was scanned.
  bool Done(int layer, int head) const;
};

// Where a running scan is, as data (the app says it in words): head `head` (1-based) of `total` runs, `done`
// finished (a Cancel keeps them).
struct AblationScanProgress {
  bool running = false;
  int head = 0, done = 0, total = 0;
  float fraction = 0;  // in [0, 1]
};

// The heads of `scan` ranked by delta (largest first, ties by layer then head).
std::vector<RankedHead> RankHeads(const model::AblationScan& scan, int n_head);

class AblationScanJob {
 public:
  // on_change (tests): called on the job's thread after every submission and finished scan; on_head (tests): after
  // each head of a running scan, with the number done.
  explicit AblationScanJob(std::function<void()> on_change = {}, std::function<void(size_t)> on_head = {});
  void Start(const ModelRequest& request, std::vector<int> loss_at = {}) {
    queue_.Submit(ScanRequest{request, std::move(loss_at)});
  }
  // Stops the running scan and drops one still waiting (its run returns at once, never published).
  void Cancel();
  // The user's Cancel: the same, but the heads the running scan finished are published (AblationScan::complete
  // false), unless a newer Start replaces them.
  void Stop();
  // The last finished scan (a failed one carries its status); null before the first.
  std::shared_ptr<const AblationScanResult> latest() const { return queue_.latest(); }
  bool busy() const { return queue_.busy(); }
  uint64_t cancelled() const { return queue_.cancelled(); }
  // Which head runs (running false when idle).
  AblationScanProgress progress() const;
  bool WaitIdle(double seconds) const { return queue_.WaitIdle(seconds); }

 private:
  using Queue = LatestWins<ScanRequest, AblationScanResult>;
  std::shared_ptr<AblationScanResult> Scan(const ScanRequest& scan_request, const Queue::Job& job);
  // A scan of `generation` cut short: shown only when Stop() ended it and no newer request or Cancel() came since.
  bool KeepsPartial(uint64_t generation) const;
  // Scans of this generation or older were cancelled: LatestWins cancels only a running request, and a Start just
  // before Cancel may not have started yet.
  std::atomic<uint64_t> cancelled_upto_{0};
  std::atomic<uint64_t> stopped_upto_{0};  // Stop()ped scans of this generation or older keep their heads done
  std::function<void(size_t)> on_head_;
  Queue queue_;  // last: its thread starts once the job exists
};

}  // namespace attnviz
