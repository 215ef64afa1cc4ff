// Activation patching (model::PatchActivations, core/model/patching.h) off the UI thread, on its own "latest request
// wins" queue (latest_wins.h): the shown text is the corrupted run, a second text the clean one, the metric
// logit[A] - logit[B] at the last position. A scan reruns the model once per head and once per layer and position,
// so Cancel() keeps what it finished: the cells done stay, the rest NaN (Patching::complete false). A newer request
// cancels the running one alike (its partial result is shown until the new one lands).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "model/patching.h"
#include "session/latest_wins.h"
#include "session/model_session.h"

namespace attnviz {

struct PatchingRequest {
  std::shared_ptr<const ModelFolder> folder;
  std::string clean_text, corrupted_text;  // corrupted: the shown text
  int token_a = 0, token_b = 0;            // the metric logit[A] - logit[B]
  bool operator==(const PatchingRequest& o) const {
    return folder == o.folder && clean_text == o.clean_text && corrupted_text == o.corrupted_text &&
           token_a == o.token_a && token_b == o.token_b;
  }
  bool operator!=(const PatchingRequest& o) const { return !(*this == o); }
};

struct PatchingResult {
  uint64_t generation = 0;
  PatchingRequest request;
  Status status;
  int clean_tokens = 0, corrupted_tokens = 0;  // both texts' token counts (also when they differ: the refusal)
  model::Patching patching;                    // heads [n_layer, n_head], residual [n_layer + 1, n]
};

// The scan of `request` now, on the caller's thread. Errors: no model, a text the tokenizer refuses,
// PatchActivations's (kPatchTokenCounts, kPatchNoDifference, ...): then clean_tokens and corrupted_tokens are still
// filled when both texts tokenized. A cancel after both runs returns the partial scan (complete false); before them,
// Status::Cancelled(). Progress: ("patching", reruns done, reruns in all), heads first, layer by layer.
Result<PatchingResult> ComputePatching(const PatchingRequest& request, const RunControl& control = {},
                                       PatchingResult* counts = nullptr);

class PatchingJob {
 public:
  explicit PatchingJob(std::function<void()> on_change = {});
  void Start(const PatchingRequest& request) { queue_.Submit(request); }
  void Cancel() { queue_.CancelRunning(); }
  std::shared_ptr<const PatchingResult> latest() const { return queue_.latest(); }
  bool busy() const { return queue_.busy(); }
  JobProgress progress() const { return queue_.progress(); }
  bool WaitIdle(double seconds) const { return queue_.WaitIdle(seconds); }

 private:
  using Queue = LatestWins<PatchingRequest, PatchingResult>;
  Queue queue_;
};

}  // namespace attnviz
