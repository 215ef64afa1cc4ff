// Worker shutdown is bounded: destroying the worker while a long d_k sweep and a long forward pass run
// returns within a block of work (the destructor cancels both lanes; the sweep checks its flag per block).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "worker.h"

namespace attnviz {
namespace {

TEST(WorkerShutdown, ReturnsPromptlyWhileALongSweepAndPassRun) {
  std::string text;
  for (int i = 0; i < 4096; ++i) text += (i ? " w" : "w") + std::to_string(i);
  auto worker = std::make_unique<Worker>();
  ComputeRequest compute;
  compute.kv_text = text;
  compute.config.n_head = 16;
  compute.config.d_k = 256;
  worker->Submit(compute);
  worker->SubmitSweep(SweepRequest::For(compute));
  // Wait (a hang guard) until the sweep is under way.
  const auto t0 = std::chrono::steady_clock::now();
  while (!worker->sweep_progress().active &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(worker->sweeping());
  ASSERT_TRUE(worker->computing());
  const auto stop = std::chrono::steady_clock::now();
  worker.reset();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - stop).count();
  // The sweep and the pass left would take many seconds (minutes under a sanitizer); a block is milliseconds.
  EXPECT_LT(seconds, 10.0) << "Worker shutdown took " << seconds << " s";
}

}  // namespace
}  // namespace attnviz
