// core/session/lens_job.*: the logit lens of a window of the shown text, read while the run passes each layer,
// equals core's model::LogitLens over a whole run's hidden states at the same positions; the window is clipped to
// the text; the request's ablations change what the lens reads; a cancelled lens says so.
#include "session/lens_job.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "model/lens.h"
#include "model/run.h"
#include "model_folder.h"

namespace attnviz {
namespace {

const char* kText =
    "The cat sat on the mat and the dog sat on the log. The cat sat on the mat and the dog sat on the log. "
    "A bird sang in the tree and a fish swam in the sea. A bird sang in the tree and a fish swam in the sea.";

std::shared_ptr<const ModelFolder> Open(ModelSession& session, const std::string& fixture) {
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture);
  EXPECT_TRUE(session.WaitIdle(60));
  EXPECT_TRUE(session.folder()) << session.open_status().message();
  return session.folder();
}

TEST(LensJob, ClipsTheWindowToTheText) {
  int first = 100, count = 10;
  ClipLensWindow(30, &first, &count);
  EXPECT_EQ(first, 20);
  EXPECT_EQ(count, 10);
  first = -3, count = 0;  // no count: the whole window
  ClipLensWindow(200, &first, &count);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(count, kLensWindow);
  first = 5, count = 1000;  // never more than a window, never past the text
  ClipLensWindow(12, &first, &count);
  EXPECT_EQ(count, 12);
  EXPECT_EQ(first, 0);
}

TEST(LensJob, AWindowReadDuringTheRunEqualsTheWholeLensAtItsPositions) {
  ModelSession session(OpenModelFolder);
  LensRequest request;
  request.model.folder = Open(session, "gpt2");
  ASSERT_TRUE(request.model.folder);
  request.model.text = kText;
  request.first = 7;
  request.count = 9;
  auto lens = ComputeLens(request);
  ASSERT_TRUE(lens) << lens.message();
  const model::Model& m = *request.model.folder->model;
  const model::ModelConfig& c = m.config();
  // The whole run and core's lens of every position.
  auto prepared = PrepareModelRun(request.model);
  ASSERT_TRUE(prepared) << prepared.message();
  const std::vector<int>& ids = prepared->ids;
  ASSERT_GT((int)ids.size(), request.first + request.count);
  auto run = model::RunModel(m, ids);
  ASSERT_TRUE(run) << run.message();
  auto whole = model::LogitLens(m, run->hidden.data.data(), ids, kLensTopK);
  ASSERT_TRUE(whole) << whole.message();
  EXPECT_EQ(lens->n, (int)ids.size());
  EXPECT_EQ(lens->first, 7);
  EXPECT_EQ(lens->count, 9);
  ASSERT_EQ(lens->layers.size(), (size_t)c.n_layer + 1);
  for (int l = 0; l <= c.n_layer; ++l) {
    const model::LensLayer& got = lens->layers[l];
    EXPECT_EQ(got.layer, l);
    ASSERT_EQ(got.positions.size(), 9u) << l;
    for (int i = 0; i < 9; ++i) {
      const model::LensPosition& g = got.positions[i];
      const model::LensPosition& w = (*whole)[l].positions[request.first + i];
      EXPECT_EQ(g.index, request.first + i);
      // the window's last position predicts the token past the window too
      ASSERT_TRUE(g.has_next) << l << " " << i;
      EXPECT_NEAR(g.next_prob, w.next_prob, 1e-5) << l << " " << i;
      ASSERT_EQ(g.top.size(), (size_t)kLensTopK);
      EXPECT_EQ(g.top[0].id, w.top[0].id) << l << " " << i;
      for (int k = 0; k < kLensTopK; ++k) EXPECT_NEAR(g.top[k].prob, w.top[k].prob, 1e-5) << l << " " << i << " " << k;
    }
  }
}

TEST(LensJob, TheRequestsAblationChangesTheLensAndTheJobPublishesIt) {
  ModelSession session(OpenModelFolder);
  LensRequest request;
  request.model.folder = Open(session, "gpt2");
  ASSERT_TRUE(request.model.folder);
  request.model.text = kText;
  request.first = 0;
  request.count = 0;  // the whole window
  LensJob job;
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(120));
  const auto plain = job.latest();
  ASSERT_TRUE(plain);
  ASSERT_TRUE(plain->status.ok()) << plain->status.message();
  EXPECT_EQ(plain->request, request);
  EXPECT_EQ(plain->count, std::min(plain->n, kLensWindow));
  const int n_layer = request.model.folder->model->config().n_layer;
  ASSERT_EQ(plain->layers.size(), (size_t)n_layer + 1);
  EXPECT_FALSE(job.busy());
  // Every head of the last layer ablated: the layers before it read the same, the last one differently.
  for (int h = 0; h < request.model.folder->model->config().n_head; ++h)
    request.model.ablated.push_back({n_layer - 1, h, model::AblateMode::kZero});
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(120));
  const auto ablated = job.latest();
  ASSERT_TRUE(ablated && ablated->status.ok());
  EXPECT_GT(ablated->generation, plain->generation);
  double before = 0, last = 0;
  for (int i = 0; i < plain->count; ++i) {
    before += std::abs(ablated->layers[n_layer - 1].positions[i].next_prob - plain->layers[n_layer - 1].positions[i].next_prob);
    last += std::abs(ablated->layers[n_layer].positions[i].next_prob - plain->layers[n_layer].positions[i].next_prob);
  }
  EXPECT_EQ(before, 0.0);
  EXPECT_GT(last, 1e-6);  // a random fixture: small, but never none
}

TEST(LensJob, ACancelledLensSaysSoAndNoModelIsAnError) {
  ModelSession session(OpenModelFolder);
  LensRequest request;
  request.model.folder = Open(session, "gpt2");
  request.model.text = kText;
  std::atomic<bool> cancel{true};
  RunControl control;
  control.cancel = &cancel;
  auto cancelled = ComputeLens(request, control);
  ASSERT_FALSE(cancelled);
  EXPECT_TRUE(cancelled.status().cancelled());
  request.model.folder = nullptr;
  auto none = ComputeLens(request);
  ASSERT_FALSE(none);
  EXPECT_FALSE(none.status().cancelled());
}

}  // namespace
}  // namespace attnviz
