// core/session/ablation_scan.*: "ablate each head once" in the background ranks the heads as core's
// model::ScanHeadAblations does (the same losses, to the bit), refuses a model without an LM head with a status, and
// a Cancel drops the scan even before it starts.
#include "session/ablation_scan.h"

#include <gtest/gtest.h>

#include <string>

#include "model/analysis.h"
#include "model_folder.h"
#include "session/loaded_model.h"
#include "session/what_ifs.h"

namespace attnviz {
namespace {

const char* kText =
    "The cat sat on the mat and the dog sat on the log. The cat sat on the mat and the dog sat on the log. "
    "A bird sang in the tree and a fish swam in the sea. A bird sang in the tree and a fish swam in the sea.";
const char* kShortText = "The cat sat on the mat and the dog sat on the log.";

// tests/fixtures/models_e2e/<fixture>, opened and waited for.
std::shared_ptr<const ModelFolder> Open(ModelSession& session, const std::string& fixture) {
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture);
  EXPECT_TRUE(session.WaitIdle(60));
  EXPECT_TRUE(session.folder()) << session.open_status().message();
  return session.folder();
}

TEST(AblationScanJob, RanksTheHeadsAsCoreScans) {
  ModelSession session(OpenModelFolder);
  ModelRequest request;
  request.folder = Open(session, "gpt2");
  request.text = kShortText;
  request.temperature = 0.7f;  // on top of the what-ifs, as the shown run
  AblationScanJob job;
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(120));
  const auto got = job.latest();
  ASSERT_TRUE(got);
  ASSERT_TRUE(got->status.ok()) << got->status.message();
  const model::ModelConfig& c = request.folder->model->config();
  auto tokens = TokenizeForModel(*request.folder, request.text);
  auto want = model::ScanHeadAblations(*request.folder->model, TokenIds(*tokens), WhatIfRunOptions(request.what_ifs(), c.n_layer));
  ASSERT_TRUE(want) << want.message();
  EXPECT_EQ(got->scan.base_loss, want->base_loss);
  EXPECT_EQ(got->scan.loss, want->loss);
  ASSERT_EQ(got->ranked.size(), (size_t)c.n_layer * c.n_head);
  const std::vector<RankedHead> ranked = RankHeads(*want, c.n_head);
  for (size_t i = 0; i < ranked.size(); ++i) {
    EXPECT_EQ(got->ranked[i].layer, ranked[i].layer) << i;
    EXPECT_EQ(got->ranked[i].head, ranked[i].head) << i;
    if (i) {
      EXPECT_GE(got->ranked[i - 1].delta, got->ranked[i].delta) << i;  // largest increase first
    }
  }
  EXPECT_EQ(got->Delta(ranked[0].layer, ranked[0].head), ranked[0].delta);
  EXPECT_FALSE(job.progress().running);  // idle
  EXPECT_EQ(job.progress().fraction, 0.0f);
  // bert predicts no next token: refused with a status, never a crash.
  request.folder = Open(session, "bert");
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(60));
  ASSERT_TRUE(job.latest());
  EXPECT_FALSE(job.latest()->status.ok());
}

TEST(AblationScanJob, CancelDropsTheScanEvenBeforeItStarts) {
  ModelSession session(OpenModelFolder);
  ModelRequest request;
  request.folder = Open(session, "llama");
  request.text = kText;
  AblationScanJob job;
  for (int round = 0; round < 3; ++round) {
    job.Start(request);
    job.Cancel();
    ASSERT_TRUE(job.WaitIdle(120));
    EXPECT_FALSE(job.latest()) << round;
    EXPECT_EQ(job.cancelled(), (uint64_t)round + 1);
  }
  // A scan after the cancel runs.
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(120));
  ASSERT_TRUE(job.latest());
  EXPECT_TRUE(job.latest()->status.ok()) << job.latest()->status.message();
}

// The user's Cancel (Stop) keeps the heads finished, ranked as the whole scan ranks them; Cancel drops them.
TEST(AblationScanJob, StopKeepsTheHeadsDone) {
  ModelSession session(OpenModelFolder);
  ModelRequest request;
  request.folder = Open(session, "llama");
  request.text = kText;
  const model::ModelConfig& c = request.folder->model->config();
  auto tokens = TokenizeForModel(*request.folder, request.text);
  auto whole = model::ScanHeadAblations(*request.folder->model, TokenIds(*tokens), WhatIfRunOptions(request.what_ifs(), c.n_layer));
  ASSERT_TRUE(whole) << whole.message();
  for (bool keep : {true, false}) {
    AblationScanJob* self = nullptr;
    // The user presses Cancel while head 3 runs (called on the scan's thread after head 2, so the moment is exact).
    AblationScanJob job({}, [&](size_t done) {
      if (done != 2) return;
      if (keep) self->Stop();
      else self->Cancel();
    });
    self = &job;
    job.Start(request);
    ASSERT_TRUE(job.WaitIdle(120));
    const auto got = job.latest();
    if (!keep) {
      EXPECT_FALSE(got);
      continue;
    }
    ASSERT_TRUE(got);
    ASSERT_TRUE(got->status.ok()) << got->status.message();
    EXPECT_FALSE(got->scan.complete);
    EXPECT_EQ(got->scan.heads_done, 2u);
    ASSERT_EQ(got->ranked.size(), 2u);
    for (const RankedHead& h : got->ranked) {
      EXPECT_TRUE(got->Done(h.layer, h.head));
      EXPECT_EQ(h.loss, whole->loss[(size_t)h.layer * c.n_head + h.head]);
    }
    const size_t last = (size_t)c.n_layer * c.n_head - 1;
    EXPECT_FALSE(got->Done((int)(last / c.n_head), (int)(last % c.n_head)));
    EXPECT_EQ(got->Delta((int)(last / c.n_head), (int)(last % c.n_head)), 0.0);
  }
}

}  // namespace
}  // namespace attnviz
