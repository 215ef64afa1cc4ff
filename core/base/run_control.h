// How a long computation is stopped and followed: one type for the sandbox pipeline, the d_k sweep and model
// runs (the kernel's AttendSink takes its cancel flag from here). Cancellation is a status code:
// Status::Cancelled(), never a message to compare.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>

namespace attnviz {

struct RunControl {
  // Set by whoever supersedes the run: it stops within one block of work and returns Status::Cancelled().
  const std::atomic<bool>* cancel = nullptr;
  // (stage, done, total): called at each stage's start and as its units finish, from any thread of the run.
  // stage: a static string ("attention maps", "d_k sweep", "layers").
  std::function<void(const char* stage, size_t done, size_t total)> progress;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void Report(const char* stage, size_t done, size_t total) const {
    if (progress) progress(stage, done, total);
  }
};

}  // namespace attnviz
