// The logit lens of the shown text (model::LogitLensLayer, core/model/lens.h) off the UI thread, on its own "latest
// request wins" queue (latest_wins.h): the request's run again (its what-ifs and ablations), each layer's residual
// stream read as the run passes it (none is kept), over a window of at most kLensWindow positions, so a long text
// costs a window's logits per layer, never n x vocab x layers. A newer request or Cancel() stops the running one
// within one layer; progress counts the layers read.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "model/lens.h"
#include "session/latest_wins.h"
#include "session/model_session.h"

namespace attnviz {

// The positions one lens request reads at most, and the tokens it keeps per position.
constexpr int kLensWindow = 64;
constexpr int kLensTopK = 5;

struct LensRequest {
  ModelRequest model;  // the folder, text and what-ifs (the shown run's)
  int first = 0;       // the window's first position
  int count = 0;       // positions [first, first + count), at most kLensWindow (clipped to the text)
  bool operator==(const LensRequest& o) const { return model == o.model && first == o.first && count == o.count; }
  bool operator!=(const LensRequest& o) const { return !(*this == o); }
};

struct LensResult {
  uint64_t generation = 0;
  LensRequest request;
  Status status;
  int n = 0;                             // the text's tokens
  int first = 0;                         // the window actually read: positions [first, first + count)
  int count = 0;
  std::vector<model::LensLayer> layers;  // [n_layer + 1], 0 = the embeddings; positions[i].index = first + i
};

// The window [first, first + count) clipped to a text of n tokens (count at most kLensWindow).
void ClipLensWindow(int n, int* first, int* count);

// The lens of `request` now, on the caller's thread: the run with a sink that reads every layer's window.
// Errors: PrepareModelRun's, no LM head, LogitLensBytes over the memory limit (kAnalysisMemory), RunModel's (its
// memory refusal included), LogitLensLayer's; Status::Cancelled() when control's flag stopped it.
// Progress: ("lens", layers read, n_layer + 1).
Result<LensResult> ComputeLens(const LensRequest& request, const RunControl& control = {});

class LensJob {
 public:
  explicit LensJob(std::function<void()> on_change = {});
  void Start(const LensRequest& request) { queue_.Submit(request); }
  void Cancel() { queue_.CancelRunning(); }
  std::shared_ptr<const LensResult> latest() const { return queue_.latest(); }
  bool busy() const { return queue_.busy(); }
  JobProgress progress() const { return queue_.progress(); }
  bool WaitIdle(double seconds) const { return queue_.WaitIdle(seconds); }

 private:
  using Queue = LatestWins<LensRequest, LensResult>;
  Queue queue_;
};

}  // namespace attnviz
