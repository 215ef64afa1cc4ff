// Runs the pipeline off the UI thread. Submissions replace any request still waiting, so the
// worker always finishes on the LATEST settings: a slider dragged through 40 values computes a few
// of them and then, for sure, the last one. Two threads: the forward pass (fast, what the maps
// show) and the d_k sweep (slower, only when its inputs change), so a sweep never delays a map.
//
// Long inputs: a newer submission cancels the running request of its lane (an atomic flag the attention
// pass checks before each block), so the lane moves on within one block of work; a cancelled result is
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

#include "sandbox/config.h"
#include "attention/metrics.h"
#include "sandbox/sweep.h"
#include "sandbox/pipeline.h"
#include "base/status.h"

namespace attnviz {

struct ComputeRequest {
  std::string kv_text, query_text;  // query_text is used in cross mode only
  // The tokens of those texts when the caller made them (App does, once per text); null: the worker
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

// What a lane is doing (for the progress indicator).
struct WorkerProgress {
  bool active = false;
  std::string stage;    // e.g. "attention maps", "other scaling: attention maps", "d_k sweep"
  double fraction = 0;  // of that stage, 0..1
};

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

// A background job's exception as a message (call inside a catch block): "export: out of memory" for
// std::bad_alloc, else "JOB failed: what()". Every background job of the app (the Worker's lanes, the
// ModelSession, the export job) turns an exception into a failed Status with it, so none ends the app.
std::string CurrentExceptionMessage(const std::string& job);
// Runs `job`; an exception becomes a failed Status (CurrentExceptionMessage).
Status RunGuarded(const std::string& what, const std::function<Status()>& job);

class Worker {
 public:
  // `prepared`: a pipeline already set up by PreparePipeline; `loaded_weights`: it holds --weights,
  // which the scale-flipped twin then uses too.
  explicit Worker(std::unique_ptr<Pipeline> prepared = nullptr, bool loaded_weights = false);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  uint64_t Submit(const ComputeRequest& request);
  uint64_t SubmitSweep(const SweepRequest& request);

  std::shared_ptr<const ComputeResult> latest() const;
  std::shared_ptr<const SweepResult> latest_sweep() const;
  // A newer request than the latest result is waiting or running.
  bool computing() const;
  bool sweeping() const;
  uint64_t submitted() const;
  uint64_t finished() const;
  WorkerProgress progress() const;
  WorkerProgress sweep_progress() const;
  // Requests stopped by a newer one (their results were never published); tests read it.
  uint64_t cancelled() const;
  // The weights loaded from files (--weights), which every run uses; null: the runs draw the random init.
  std::shared_ptr<const ProjectionWeights> loaded_weights() const { return loaded_weights_; }
  uint64_t sweeps_cancelled() const;
  // Blocks of the attention pass the last cancelled compute request finished after its cancel was set
  // (tests: a superseded request stops within one block of work per thread).
  size_t blocks_after_cancel() const;
  // Blocks until both threads are idle or `seconds` passed; true when idle (tests, benchmark).
  bool WaitIdle(double seconds) const;

 private:
  std::shared_ptr<const ProjectionWeights> loaded_weights_;  // set once, before the threads start
  // One request lane: a waiting request (a newer one replaces it), the generation counters and the
  // latest result. Each lane has its own thread running Serve().
  template <typename Request, typename ResultT>
  struct Lane {
    std::unique_ptr<Request> pending;
    uint64_t submitted = 0, finished = 0, cancelled = 0;
    bool running = false;
    std::shared_ptr<const ResultT> latest;
    std::atomic<bool> cancel{false};  // set by a newer submission while one runs
    // Progress of the running request: a stage name (static strings) and blocks done of total.
    std::atomic<const char*> phase{""};
    std::atomic<const char*> stage{""};
    std::atomic<size_t> done{0}, total{0};
    size_t done_at_cancel = 0, blocks_after_cancel = 0;  // see Worker::blocks_after_cancel()
  };
  template <typename Request, typename ResultT>
  static WorkerProgress ProgressOf(const Lane<Request, ResultT>& lane);
  // A RunControl reporting into `lane` under the label `phase`.
  template <typename Request, typename ResultT>
  static RunControl ControlFor(Lane<Request, ResultT>* lane, const char* phase);
  // Publishes a step of the running request (maps before the twin before z): shown, not finished.
  void PublishStep(std::shared_ptr<const ComputeResult> step);
  template <typename Request, typename ResultT>
  uint64_t Enqueue(Lane<Request, ResultT>* lane, const Request& request);
  // Waits for a request, runs `run(request, generation)` and publishes its result, until stopped.
  template <typename Request, typename ResultT, typename RunFn>
  void Serve(Lane<Request, ResultT>* lane, RunFn run);
  std::shared_ptr<ComputeResult> RunCompute(const ComputeRequest& request, uint64_t generation);
  std::shared_ptr<SweepResult> RunSweep(const SweepRequest& request, uint64_t generation);

  mutable std::mutex mutex_;
  mutable std::condition_variable wake_, idle_;
  bool stop_ = false;
  Lane<ComputeRequest, ComputeResult> compute_;  // the forward pass
  Lane<SweepRequest, SweepResult> sweep_;        // the d_k sweep
  // Owned by the compute thread.
  std::shared_ptr<ScoreCodes> score_codes_;  // shared by the two (see Worker())
  std::unique_ptr<Pipeline> pipeline_, twin_;
  bool twin_ready_ = false;  // twin_ holds the last request's settings with scaling flipped, through kMetrics
  std::thread compute_thread_, sweep_thread_;
};

}  // namespace attnviz
