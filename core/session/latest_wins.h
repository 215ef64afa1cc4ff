// One "latest request wins" job queue, shared by every background job of the app (the sandbox's forward pass and
// d_k sweep, opening a model folder, a model run): one thread, at most one request waiting (a newer one replaces
// it), and a newer submission cancels the running one (RunControl::cancel), which then stops within one block of
// work. A cancelled run returns null and is never published; a run may publish steps before it ends (the sandbox's
// maps before its z, a model's layers as they finish). progress() says what the running request does.
//
// Result must have: uint64_t generation; Request request; Status status (a job's exception becomes that status).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/run_control.h"
#include "base/status.h"

namespace attnviz {

// A background job's exception as a message (call inside a catch block): "JOB: out of memory" for std::bad_alloc,
// else "JOB failed: what()". Every background job of the app turns an exception into a failed Status with it.
std::string CurrentExceptionMessage(const std::string& job);
// Runs `job`; an exception becomes a failed Status (CurrentExceptionMessage).
Status RunGuarded(const std::string& what, const std::function<Status()>& job);

// What a queue's running request is doing (for the progress indicator).
struct JobProgress {
  bool active = false;
  std::string stage;    // the phase label then the stage, e.g. "other scaling: attention maps", "layers"
  size_t done = 0, total = 0;
  double fraction = 0;  // done / total, 0..1
};

template <typename Request, typename Result>
class LatestWins {
 public:
  // What a run gets: its generation, RunControls that report into this queue, and Publish for early steps.
  class Job {
   public:
    uint64_t generation() const { return generation_; }
    // A RunControl with this queue's cancel flag; its progress is shown as `phase` + stage.
    RunControl Control(const char* phase = "") const {
      owner_->phase_.store(phase);  // a new phase counts from 0
      owner_->stage_.store("");
      owner_->done_.store(0);
      owner_->total_.store(0);
      RunControl control;
      control.cancel = &owner_->cancel_;
      LatestWins* owner = owner_;
      control.progress = [owner](const char* stage, size_t done, size_t total) { owner->Report(stage, done, total); };
      return control;
    }
    // Shows a step of this run now (latest() returns it); the run goes on.
    void Publish(std::shared_ptr<const Result> step) const { owner_->Publish(std::move(step)); }

   private:
    friend class LatestWins;
    Job(LatestWins* owner, uint64_t generation) : owner_(owner), generation_(generation) {}
    LatestWins* owner_;
    uint64_t generation_;
  };
  // Runs one request: a result to publish as the request's outcome, or null when cancelled.
  using RunFn = std::function<std::shared_ptr<Result>(const Request&, const Job&)>;

  // `job_name` names the job in a caught exception's message ("computing", "opening the model"). on_change, when
  // given, is called after every submission, publication and finished run (outside the lock): a caller waiting on
  // another queue's state wakes up there.
  LatestWins(std::string job_name, RunFn run, std::function<void()> on_change = {})
      : job_name_(std::move(job_name)), run_(std::move(run)), on_change_(std::move(on_change)) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~LatestWins() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      cancel_.store(true);
    }
    wake_.notify_all();
    thread_.join();
  }
  LatestWins(const LatestWins&) = delete;
  LatestWins& operator=(const LatestWins&) = delete;

  // Replaces the waiting request and cancels the running one; returns the new request's generation.
  uint64_t Submit(const Request& request) {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ = std::make_unique<Request>(request);
      generation = ++submitted_;
      CancelRunningLocked();
    }
    wake_.notify_all();
    Changed();
    return generation;
  }
  // Stops the running request (its result is dropped) without submitting another.
  void CancelRunning() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      CancelRunningLocked();
    }
    Changed();
  }

  std::shared_ptr<const Result> latest() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return latest_;
  }
  // A request newer than the latest finished one is waiting or running.
  bool busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_ != submitted_;
  }
  bool running() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
  }
  uint64_t submitted() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return submitted_;
  }
  uint64_t finished() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return finished_;
  }
  // Runs stopped by a newer request or CancelRunning (their results were never published).
  uint64_t cancelled() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cancelled_;
  }
  // Units of work (e.g. attention blocks) the last cancelled run reported after its cancel was set: tests check a
  // superseded run stops within one block per thread.
  size_t units_after_cancel() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return units_after_cancel_;
  }
  JobProgress progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    JobProgress p;
    p.active = running_;
    if (!p.active) return p;
    p.stage = std::string(phase_.load()) + stage_.load();
    p.total = total_.load();
    p.done = std::min(done_.load(), p.total);
    p.fraction = p.total ? (double)p.done / (double)p.total : 0.0;
    return p;
  }
  // Blocks until nothing is waiting or running, or `seconds` passed; true when idle.
  bool WaitIdle(double seconds) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return idle_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return finished_ == submitted_; });
  }

 private:
  void CancelRunningLocked() {
    if (running_ && !cancel_.exchange(true)) done_at_cancel_ = done_.load();
  }
  void Changed() {
    if (on_change_) on_change_();
  }
  void Report(const char* stage, size_t done, size_t total) {
    if (stage_.load() != stage) {  // a new stage starts counting from its own 0
      stage_.store(stage);
      done_.store(done);
    }
    total_.store(total);
    // Units finish out of order across threads: keep the largest count seen.
    size_t seen = done_.load();
    while (done > seen && !done_.compare_exchange_weak(seen, done)) {
    }
  }
  void Publish(std::shared_ptr<const Result> step) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      latest_ = std::move(step);
    }
    Changed();
  }
  void Serve() {
    for (;;) {
      Request request;
      uint64_t generation = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || pending_; });
        if (stop_) return;
        request = std::move(*pending_);
        pending_.reset();
        generation = submitted_;
        running_ = true;
        cancel_.store(false);
        phase_.store("");
        stage_.store("");
        done_.store(0);
        total_.store(0);
      }
      std::shared_ptr<Result> result;
      try {
        result = run_(request, Job(this, generation));
      } catch (...) {  // e.g. std::bad_alloc: a message for the user, never the end of the app
        result = std::make_shared<Result>();
        result->generation = generation;
        result->request = request;
        result->status = Status::Error(CurrentExceptionMessage(job_name_));
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        running_ = false;
        if (!result || (result->status.cancelled() && cancel_.load())) {  // superseded: never shown
          ++cancelled_;
          const size_t done = done_.load();
          units_after_cancel_ = done > done_at_cancel_ ? done - done_at_cancel_ : 0;
        } else {
          latest_ = std::move(result);
        }
      }
      Changed();  // before idle: whoever waits for idle sees what on_change did with the result
      {
        std::lock_guard<std::mutex> lock(mutex_);
        // Newer submissions keep busy() true until their own result lands.
        if (finished_ < generation) finished_ = generation;
      }
      idle_.notify_all();
      Changed();
    }
  }

  const std::string job_name_;
  const RunFn run_;
  const std::function<void()> on_change_;
  mutable std::mutex mutex_;
  mutable std::condition_variable wake_, idle_;
  bool stop_ = false, running_ = false;
  std::unique_ptr<Request> pending_;
  uint64_t submitted_ = 0, finished_ = 0, cancelled_ = 0;
  std::shared_ptr<const Result> latest_;
  std::atomic<bool> cancel_{false};
  // The running request's progress: a phase label and a stage (static strings), units done of total.
  std::atomic<const char*> phase_{""}, stage_{""};
  std::atomic<size_t> done_{0}, total_{0};
  size_t done_at_cancel_ = 0, units_after_cancel_ = 0;
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace attnviz
