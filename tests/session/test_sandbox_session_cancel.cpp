// The sandbox session on long inputs: a newer request cancels the running one within one block of work per
// thread of the attention pass, and nothing of the cancelled request is ever shown.
#include <gtest/gtest.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "session/sandbox_session.h"

namespace attnviz {
namespace {

std::string Words(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? " w" : "w") + std::to_string(i);
  return text;
}

TEST(SandboxSessionCancel, SupersededLongRequestStopsWithinABlockAndIsNeverShown) {
  // Mid-size inputs in pooled mode (the threshold moved down): the same code path as 4096 tokens.
  // The test must catch the long request inside its pass; a machine fast enough to finish it between two
  // polls gets a longer input.
  for (int n = 1200; n <= 4800; n *= 2) {
    auto prepared = std::make_unique<Pipeline>();
    prepared->set_pooled_above_cells(1);
    SandboxSession session(std::move(prepared));
    ComputeRequest long_request;
    long_request.kv_text = Words(n);
    long_request.config.n_head = 8;
    ASSERT_EQ(session.Submit(long_request), 1u);
    bool caught = false;
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
      const JobProgress p = session.progress();
      if (p.active && p.stage == "attention maps" && p.fraction > 0 && p.fraction < 0.5) {
        caught = true;
        break;
      }
      if (session.latest()) break;  // its maps are out already: too fast for this n
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (!caught) {
      ASSERT_TRUE(session.WaitIdle(120.0));
      continue;
    }
    ComputeRequest newer;
    newer.kv_text = "a newer and much shorter sentence";
    ASSERT_EQ(session.Submit(newer), 2u);
    std::set<uint64_t> shown;
    while (!session.WaitIdle(0.0005)) {
      if (auto latest = session.latest()) shown.insert(latest->generation);
    }
    auto latest = session.latest();
    ASSERT_TRUE(latest);
    shown.insert(latest->generation);
    EXPECT_EQ(shown, std::set<uint64_t>{2u}) << "the cancelled request's maps were shown";
    EXPECT_TRUE(latest->status.ok()) << latest->status.message();
    EXPECT_EQ(latest->request.kv_text, newer.kv_text);
    EXPECT_EQ(session.cancelled(), 1u);
    EXPECT_EQ(session.finished(), 2u);
    // Each thread of the pass finishes at most the block it is in when the flag is set.
#ifdef _OPENMP
    const size_t threads = (size_t)std::max(omp_get_max_threads(), omp_get_num_procs());
#else
    const size_t threads = 1;  // built without OpenMP (the ThreadSanitizer build)
#endif
    EXPECT_LE(session.blocks_after_cancel(), threads) << "n = " << n;
    return;
  }
  FAIL() << "never caught the long request inside its attention pass";
}

}  // namespace
}  // namespace attnviz
