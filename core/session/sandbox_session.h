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

// What a sandbox run shows beside its maps, which a model run has no counterpart of: the config it ran, the
// layer's pipeline numbers, the scale-flipped twin (the side-by-side view's other map) and its time. The panels read
// it through Shown; the maps themselves are the run's stack.
struct SandboxExtras {
  uint64_t generation = 0;  // the run's (SandboxRun::generation): the panels' caches key on it
  AttentionConfig config;   // the request's
  // The stack's one layer as the pipeline made it (x, v, scores, logits; z, concat and out in the final step): the
  // same object as the layer, not a copy.
  std::shared_ptr<const AttentionTensors> numbers;
  std::shared_ptr<const AttentionTensors> twin;  // `config` with scale flipped; null: not made (yet) or not asked
  double seconds = 0;  // from the request's start to this step
};

// The session's result of a sandbox run, as it publishes it (in steps under one generation: the maps, the twin, then
// z and out): one stack of its one layer, `cross` in the cross mode (rows are the query text's tokens, columns the
// key/value text's), else `self`, and the extras beside it. A failed run has an empty stack and no extras.
struct SandboxRun {
  uint64_t generation = 0;   // the Submit() that produced it
  ComputeRequest request;
  Status status;
  LayerStack stack;
  std::shared_ptr<const SandboxExtras> extras;
};

// A run of `request` that made `numbers` (null: failed with `status`), with its twin when made.
std::shared_ptr<SandboxRun> MakeSandboxRun(uint64_t generation, const ComputeRequest& request, Status status,
                                           std::shared_ptr<const AttentionTensors> numbers,
                                           std::shared_ptr<const AttentionTensors> twin, double seconds);

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

  std::shared_ptr<const SandboxRun> latest() const;
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
  using ComputeQueue = LatestWins<ComputeRequest, SandboxRun>;
  using SweepQueue = LatestWins<SweepRequest, SweepResult>;
  std::shared_ptr<SandboxRun> RunCompute(const ComputeRequest& request, const ComputeQueue::Job& job);
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
