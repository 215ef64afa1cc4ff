// The one "latest request wins" queue (core/session/latest_wins.h) that the sandbox session and the model session share:
// only the newest request finishes, a superseded run stops at its next cancel check and is never published, steps
// are published before the end, an exception becomes a failed status; and a model run arrives layer by layer.
#include "session/latest_wins.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "model_analysis.h"
#include "model_display.h"
#include "model_folder.h"

namespace attnviz {
namespace {

struct Out {
  uint64_t generation = 0;
  int request = 0;
  Status status;
  int step = 0;  // 0: the final result; > 0: a published step
};
using Queue = LatestWins<int, Out>;

// A run that waits (checking its cancel flag like a block loop would) until `release` is set.
struct Gate {
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
};

std::shared_ptr<Out> GatedRun(Gate* gate, int request, const Queue::Job& job) {
  const RunControl control = job.Control();
  ++gate->started;
  size_t units = 0;
  while (!gate->release.load()) {
    if (control.cancelled()) return nullptr;
    control.Report("waiting", ++units, 1000000);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  auto out = std::make_shared<Out>();
  out->generation = job.generation();
  out->request = request;
  return out;
}

TEST(LatestWins, OnlyTheNewestRequestFinishesAndSupersededRunsAreNeverPublished) {
  Gate gate;
  std::vector<int> ran;
  std::mutex ran_mutex;
  Queue queue("test", [&](const int& r, const Queue::Job& job) {
    {
      std::lock_guard<std::mutex> lock(ran_mutex);
      ran.push_back(r);
    }
    return GatedRun(&gate, r, job);
  });
  queue.Submit(1);
  while (gate.started.load() < 1) std::this_thread::yield();
  // While 1 runs: 2..9 arrive; each replaces the one waiting, and the first cancels 1.
  for (int r = 2; r <= 9; ++r) queue.Submit(r);
  EXPECT_TRUE(queue.busy());
  while (gate.started.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  gate.release = true;
  ASSERT_TRUE(queue.WaitIdle(30));
  ASSERT_TRUE(queue.latest());
  EXPECT_EQ(queue.latest()->request, 9);
  EXPECT_EQ(queue.latest()->generation, 9u);
  EXPECT_EQ(queue.submitted(), 9u);
  EXPECT_EQ(queue.finished(), 9u);
  EXPECT_EQ(queue.cancelled(), 1u);  // run 1; 2..8 never started
  std::lock_guard<std::mutex> lock(ran_mutex);
  EXPECT_EQ(ran, (std::vector<int>{1, 9}));
  EXPECT_FALSE(queue.progress().active);
}

TEST(LatestWins, ACancelledRunStopsWithinAUnitAndSaysWhatItDid) {
  Gate gate;
  Queue queue("test", [&](const int& r, const Queue::Job& job) { return GatedRun(&gate, r, job); });
  queue.Submit(1);
  while (gate.started.load() < 1) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const JobProgress p = queue.progress();
  EXPECT_TRUE(p.active);
  EXPECT_EQ(p.stage, "waiting");
  EXPECT_GT(p.done, 0u);
  EXPECT_EQ(p.total, 1000000u);
  queue.CancelRunning();
  ASSERT_TRUE(queue.WaitIdle(30));
  EXPECT_EQ(queue.cancelled(), 1u);
  EXPECT_LE(queue.units_after_cancel(), 1u);
  EXPECT_FALSE(queue.latest());  // nothing was ever published
}

TEST(LatestWins, StepsArePublishedBeforeTheRunEnds) {
  std::atomic<bool> step_seen{false};
  Queue queue("test", [&](const int& r, const Queue::Job& job) {
    auto step = std::make_shared<Out>();
    step->generation = job.generation();
    step->request = r;
    step->step = 1;
    job.Publish(step);
    // The step is what latest() gives while the run goes on.
    while (!step_seen.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto out = std::make_shared<Out>(*step);
    out->step = 0;
    return out;
  });
  queue.Submit(7);
  std::shared_ptr<const Out> seen;
  for (int i = 0; i < 30000 && !seen; ++i) {
    seen = queue.latest();
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->step, 1);
  EXPECT_TRUE(queue.busy());  // a step is not the end
  step_seen = true;
  ASSERT_TRUE(queue.WaitIdle(30));
  EXPECT_EQ(queue.latest()->step, 0);
}

TEST(LatestWins, AnExceptionBecomesAFailedStatusNamingTheJob) {
  Queue queue("running the model", [](const int&, const Queue::Job&) -> std::shared_ptr<Out> {
    throw std::bad_alloc();
  });
  queue.Submit(3);
  ASSERT_TRUE(queue.WaitIdle(30));
  ASSERT_TRUE(queue.latest());
  EXPECT_FALSE(queue.latest()->status.ok());
  EXPECT_EQ(queue.latest()->status.message(), "running the model: out of memory");
  EXPECT_EQ(queue.latest()->request, 3);
  EXPECT_EQ(queue.cancelled(), 0u);
}

TEST(ModelSessionSteps, EachLayerIsPublishedAsItFinishes) {
  std::atomic<ModelSession*> session_ptr{nullptr};  // set once the session exists (its threads start first)
  std::mutex mutex;
  std::vector<std::shared_ptr<const ModelResult>> seen;  // every distinct latest(), in order
  ModelSession session(OpenModelFolder, [&] {
    ModelSession* session = session_ptr.load();
    if (!session) return;
    std::shared_ptr<const ModelResult> now = session->latest();
    std::lock_guard<std::mutex> lock(mutex);
    if (now && (seen.empty() || seen.back() != now)) seen.push_back(now);
  });
  session_ptr = &session;
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/gpt2");
  ASSERT_TRUE(session.WaitIdle(60));
  ASSERT_TRUE(session.folder()) << OpenErrorText(session);
  const int n_layer = session.folder()->model->config().n_layer;
  ASSERT_GE(n_layer, 2);
  ModelRequest request;
  request.folder = session.folder();
  request.text = "The cat sat on the mat. The cat sat on the mat.";
  session.Submit(request);
  ASSERT_TRUE(session.WaitIdle(60));
  std::lock_guard<std::mutex> lock(mutex);
  // A step per layer but the last, then every layer before the rollout, then the rollout before the predictions,
  // then the final result with them.
  ASSERT_EQ((int)seen.size(), n_layer + 2);
  for (int i = 0; i <= n_layer + 1; ++i) {
    const ModelResult& r = *seen[(size_t)i];
    const int done = std::min(i + 1, n_layer);
    EXPECT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.n_layer(), n_layer);
    EXPECT_EQ(r.layers_done, done);
    for (int l = 0; l < n_layer; ++l) EXPECT_EQ((bool)r.layers[(size_t)l], l < done) << "step " << i << " layer " << l;
    EXPECT_EQ(r.complete(), i >= n_layer - 1);
    EXPECT_EQ((bool)r.predictions, i == n_layer + 1);
    if (i > 0) EXPECT_EQ(r.layers[0], seen[0]->layers[0]);  // shared, never copied
    // The rollout comes after the overview: no layer has it until every layer is there, then every layer has.
    const bool rollout_made = i >= n_layer;
    EXPECT_EQ(r.rollout_pending, !rollout_made) << "step " << i;
    for (int l = 0; l < done; ++l) {
      EXPECT_EQ(RolloutPending(r, l), !rollout_made) << "step " << i << " layer " << l;
      EXPECT_EQ(r.analysis[(size_t)l]->rollout->empty(), !rollout_made) << "step " << i << " layer " << l;
    }
  }
  EXPECT_EQ(session.latest(), seen.back());
}

}  // namespace
}  // namespace attnviz
