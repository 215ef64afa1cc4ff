// The sandbox session: runs the pipeline off the caller's thread (the app's UI thread). Submissions replace any
// request still waiting, so the session always finishes on the LATEST settings: a slider dragged through 40 values
// computes a few of them and then, for sure, the last one. Two threads: the forward pass (fast, what the maps
// show) and the d_k sweep (slower, only when its inputs change), so a sweep never delays a map.
//
// Long inputs: a newer submission cancels the running request of its queue (latest_wins.h: an atomic flag the
// attention pass checks before each block), so the queue moves on within one block of work; a cancelled result is
// never published. progress() says what is being computed and how far along. A compute request publishes
// in steps: the maps and figures first, then the scale-flipped twin (always in pooled mode, so a scaling
// toggle is a swap: shown at once), then z and out (the final result; computing() is true until then).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <functional>
#include <thread>
#include <vector>

#include "maps/layer_stack.h"
#include "sandbox/config.h"
#include "attention/metrics.h"
#include "sandbox/sweep.h"
#include "sandbox/pipeline.h"
#include "base/status.h"
#include "session/latest_wins.h"

namespace attnviz {

struct ComputeRequest {
  std::string kv_text, query_text;  // query_text is used in cross mode only
  // The tokens of those texts when the caller made them (App does, once per text); null: the session
  // tokenizes. Derived from the texts, so not part of equality.
  std::shared_ptr<const TokenizedText> tokens;
  AttentionConfig config;
  bool want_twin = false;           // also run the same settings with scaling flipped
  bool operator==(const ComputeRequest& o) const;
  bool operator!=(const ComputeRequest& o) const { return !(*this == o); }
};

struct ComputeResult {
  uint64_t generation = 0;   // the Submit() that produced it
  ComputeRequest request;
  Status status;             // a failed run leaves the tensors empty
  AttentionTensors tensors;  // through Stage::kOutput (z, concat, out filled)
  bool has_twin = false;
  AttentionTensors twin;     // request.config with scale flipped (for the side-by-side view)
  double seconds = 0;
};

// What a result shows: one stack of its one layer (the tensors, shared with the result: no copy), `cross` in the
// cross mode (rows are the query text's tokens, columns the key/value text's), else `self`. Empty layers for a
// failed run or none.
LayerStack SandboxStack(const std::shared_ptr<const ComputeResult>& result);

struct SweepRequest {
  std::string kv_text, query_text;
  std::shared_ptr<const TokenizedText> tokens;  // as in ComputeRequest
  AttentionConfig base;  // n_head, d_k, d_v, scale and qkv normalized: the sweep sets them itself
  static SweepRequest For(const ComputeRequest& compute);
  bool operator==(const SweepRequest& o) const;
  bool operator!=(const SweepRequest& o) const { return !(*this == o); }
};

struct SweepResult {
  uint64_t generation = 0;
  SweepRequest request;
  Status status;
  std::vector<SweepPoint> points;
  double seconds = 0;
};

class SandboxSession {
 public:
  // `prepared`: a pipeline already set up by PreparePipeline; `loaded_weights`: it holds --weights,
  // which the scale-flipped twin then uses too.
  explicit SandboxSession(std::unique_ptr<Pipeline> prepared = nullptr, bool loaded_weights = false);
  ~SandboxSession();
  SandboxSession(const SandboxSession&) = delete;
  SandboxSession& operator=(const SandboxSession&) = delete;

  uint64_t Submit(const ComputeRequest& request);
  uint64_t SubmitSweep(const SweepRequest& request);

  std::shared_ptr<const ComputeResult> latest() const;
  std::shared_ptr<const SweepResult> latest_sweep() const;
  // A newer request than the latest result is waiting or running.
  bool computing() const;
  bool sweeping() const;
  uint64_t submitted() const;
  uint64_t finished() const;
  JobProgress progress() const;
  JobProgress sweep_progress() const;
  // Requests stopped by a newer one (their results were never published); tests read it.
  uint64_t cancelled() const;
  // The weights loaded from files (--weights), which every run uses; null: the runs draw the random init.
  std::shared_ptr<const ProjectionWeights> loaded_weights() const { return loaded_weights_; }
  uint64_t sweeps_cancelled() const;
  // Blocks of the attention pass the last cancelled compute request finished after its cancel was set
  // (tests: a superseded request stops within one block of work per thread).
  size_t blocks_after_cancel() const;
  // Blocks until both queues are idle or `seconds` passed; true when idle (tests, benchmark).
  bool WaitIdle(double seconds) const;

 private:
  using ComputeQueue = LatestWins<ComputeRequest, ComputeResult>;
  using SweepQueue = LatestWins<SweepRequest, SweepResult>;
  std::shared_ptr<ComputeResult> RunCompute(const ComputeRequest& request, const ComputeQueue::Job& job);
  std::shared_ptr<SweepResult> RunSweep(const SweepRequest& request, const SweepQueue::Job& job);
  // The sweep waits while the newest compute request's maps are not on screen yet (RunSweep).
  void WaitForMaps(const std::atomic<bool>* sweep_cancel);
  void QueuesChanged();

  std::shared_ptr<const ProjectionWeights> loaded_weights_;  // set once, before the queues start
  // Owned by the compute thread.
  std::shared_ptr<ScoreCodes> score_codes_;  // shared by the two (see SandboxSession())
  std::unique_ptr<Pipeline> pipeline_, twin_;
  bool twin_ready_ = false;  // twin_ holds the last request's settings with scaling flipped, through kMetrics
  // Wakes the sweep waiting for the maps when either queue changes.
  std::mutex maps_mutex_;
  std::condition_variable maps_changed_;
  bool stopping_ = false;
  // Last: their threads start once everything above exists, and stop first.
  std::unique_ptr<ComputeQueue> compute_;  // the forward pass
  std::unique_ptr<SweepQueue> sweep_;      // the d_k sweep
};

}  // namespace attnviz
