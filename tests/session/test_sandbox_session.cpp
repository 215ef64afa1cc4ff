// The sandbox session (no ImGui; what make test-tsan runs under ThreadSanitizer): shutdown is bounded (destroying
// the session while a long d_k sweep and a long forward pass run returns within a block of work: the destructor
// cancels both lanes, the sweep checks its flag per block), jobs' exceptions become messages, and the last request
// is always the one shown.
#include <gtest/gtest.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>

#include "session/sandbox_session.h"

namespace attnviz {
namespace {

TEST(SandboxSessionShutdown, ReturnsPromptlyWhileALongSweepAndPassRun) {
  std::string text;
  for (int i = 0; i < 4096; ++i) text += (i ? " w" : "w") + std::to_string(i);
  auto session = std::make_unique<SandboxSession>();
  ComputeRequest compute;
  compute.kv_text = text;
  compute.config.n_head = 16;
  compute.config.d_k = 256;
  session->Submit(compute);
  session->SubmitSweep(SweepRequest::For(compute));
  // Wait (a hang guard) until the sweep is under way.
  const auto t0 = std::chrono::steady_clock::now();
  while (!session->sweep_progress().active &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(session->sweeping());
  ASSERT_TRUE(session->computing());
  const auto stop = std::chrono::steady_clock::now();
  session.reset();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - stop).count();
  // The sweep and the pass left would take many seconds (minutes under a sanitizer); a block is milliseconds.
  EXPECT_LT(seconds, 10.0) << "SandboxSession shutdown took " << seconds << " s";
}

// An exception in a background job is a message, never the end of the app.
TEST(SandboxSessionTest, ExceptionsBecomeMessages) {
  Status oom = RunGuarded("export", []() -> Status { throw std::bad_alloc(); });
  ASSERT_FALSE(oom.ok());
  EXPECT_EQ(oom.message(), "export: out of memory");
  Status other = RunGuarded("export", []() -> Status { throw std::length_error("vector::reserve"); });
  EXPECT_EQ(other.message(), "export failed: vector::reserve");
  EXPECT_TRUE(RunGuarded("export", [] { return Status::Ok(); }).ok());
}

TEST(SandboxSessionTest, AlwaysFinishesOnTheLatestRequest) {
  SandboxSession session;
  ComputeRequest r;
  r.kv_text = "the quick brown fox jumps over the lazy dog";
  for (int d_k = 1; d_k <= 2048; d_k *= 2) {
    r.config.d_k = d_k;
    session.Submit(r);
  }
  ASSERT_TRUE(session.WaitIdle(60.0));
  auto latest = session.latest();
  ASSERT_TRUE(latest);
  EXPECT_TRUE(latest->status.ok()) << latest->status.message();
  EXPECT_EQ(latest->request.config.d_k, 2048);
  EXPECT_EQ(latest->generation, session.submitted());
  EXPECT_FALSE(session.computing());
}

}  // namespace
}  // namespace attnviz
