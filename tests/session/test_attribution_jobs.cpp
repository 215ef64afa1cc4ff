// core/session/attribution_job.* and patching_job.*: the Overview's attribution and patching grids, computed off
// the UI thread, equal core's model::AttributeLogit and model::PatchActivations on the GPT-2 fixture
// (tests/fixtures/models_e2e/gpt2, 3 layers x 4 heads); a cancelled scan keeps the cells it finished; a post-norm
// model and texts of different lengths are refused with the core's message.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <string>

#include "model/attribution.h"
#include "model/patching.h"
#include "model_folder.h"
#include "session/attribution_job.h"
#include "session/loaded_model.h"
#include "session/patching_job.h"

namespace attnviz {
namespace {

const char* kClean = "The cat sat on the mat and the dog sat on the log.";
const char* kCorrupted = "The dog sat on the mat and the cat sat on the log.";

std::shared_ptr<const ModelFolder> Open(ModelSession& session, const std::string& fixture) {
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + fixture);
  EXPECT_TRUE(session.WaitIdle(60));
  EXPECT_TRUE(session.folder()) << session.open_status().message();
  return session.folder();
}

std::vector<int> Ids(const ModelFolder& folder, const std::string& text) {
  auto tokens = TokenizeForModel(folder, text);
  EXPECT_TRUE(tokens) << tokens.message();
  return tokens ? TokenIds(*tokens) : std::vector<int>();
}

TEST(AttributionJob, TheGridHoldsCoresComponentsAndTheyAddUpToTheLogit) {
  ModelSession session(OpenModelFolder);
  AttributionRequest request;
  request.model.folder = Open(session, "gpt2");
  ASSERT_TRUE(request.model.folder);
  request.model.text = kClean;
  AttributionJob job;
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(120));
  const auto got = job.latest();
  ASSERT_TRUE(got);
  ASSERT_TRUE(got->status.ok()) << got->status.message();
  const model::Model& m = *request.model.folder->model;
  const std::vector<int> ids = Ids(*request.model.folder, kClean);
  auto core = model::AttributeLogit(m, ids, (int)ids.size() - 1);  // the last position, the default target
  ASSERT_TRUE(core) << core.message();
  EXPECT_EQ(got->n, (int)ids.size());
  EXPECT_EQ(got->attribution.position, (int)ids.size() - 1);
  EXPECT_EQ(got->attribution.target, core->target);
  EXPECT_DOUBLE_EQ(got->attribution.logit, core->logit);
  const AttributionGrid& g = got->grid;
  ASSERT_EQ(g.n_layer, 3);
  ASSERT_EQ(g.n_head, 4);
  for (const model::LogitComponent& c : core->components) {
    switch (c.kind) {
      case model::ComponentKind::kHead: EXPECT_DOUBLE_EQ(g.Head(c.layer, c.head), c.value); break;
      case model::ComponentKind::kMlp: EXPECT_DOUBLE_EQ(g.mlp[c.layer], c.value); break;
      case model::ComponentKind::kAttnBias: EXPECT_DOUBLE_EQ(g.attn_bias[c.layer], c.value); break;
      case model::ComponentKind::kEmbed: EXPECT_DOUBLE_EQ(g.embed, c.value); break;
      case model::ComponentKind::kNormBias: EXPECT_DOUBLE_EQ(g.norm_bias, c.value); break;
    }
  }
  EXPECT_TRUE(g.has_attn_bias);  // GPT-2's c_proj has a bias
  EXPECT_NEAR(g.sum, got->attribution.logit, 1e-3 * std::max(1.0, std::fabs(got->attribution.logit)));
  EXPECT_GT(g.MaxAbs(), 0.0);
  // Another position and target: the request's own.
  request.position = 2, request.target = 17;
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(120));
  auto other = model::AttributeLogit(m, ids, 2, 17);
  ASSERT_TRUE(other);
  ASSERT_TRUE(job.latest()->status.ok());
  EXPECT_EQ(job.latest()->attribution.target, 17);
  EXPECT_DOUBLE_EQ(job.latest()->attribution.logit, other->logit);
}

TEST(AttributionJob, APostNormModelIsRefusedWithTheCoresMessage) {
  ModelSession session(OpenModelFolder);
  AttributionRequest request;
  request.model.folder = Open(session, "bert");
  ASSERT_TRUE(request.model.folder);
  request.model.text = "The cat sat on the [MASK].";
  auto got = ComputeAttribution(request);
  ASSERT_FALSE(got);
  EXPECT_FALSE(got.status().cancelled());
  EXPECT_NE(got.message().find("bert"), std::string::npos) << got.message();
  EXPECT_NE(got.message().find("direct logit attribution"), std::string::npos) << got.message();
}

PatchingRequest MakePatching(const std::shared_ptr<const ModelFolder>& folder) {
  PatchingRequest r;
  r.folder = folder;
  r.clean_text = kClean;
  r.corrupted_text = kCorrupted;
  r.token_a = 7, r.token_b = 11;
  return r;
}

TEST(PatchingJob, TheGridsEqualCoresScan) {
  ModelSession session(OpenModelFolder);
  const auto folder = Open(session, "gpt2");
  ASSERT_TRUE(folder);
  PatchingJob job;
  const PatchingRequest request = MakePatching(folder);
  job.Start(request);
  ASSERT_TRUE(job.WaitIdle(300));
  const auto got = job.latest();
  ASSERT_TRUE(got);
  ASSERT_TRUE(got->status.ok()) << got->status.message();
  auto core = model::PatchActivations(*folder->model, Ids(*folder, kClean), Ids(*folder, kCorrupted), 7, 11);
  ASSERT_TRUE(core) << core.message();
  const model::Patching& p = got->patching;
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(got->clean_tokens, got->corrupted_tokens);
  ASSERT_EQ(p.heads.size(), core->heads.size());
  ASSERT_EQ(p.residual.size(), core->residual.size());
  for (size_t i = 0; i < p.heads.size(); ++i) EXPECT_DOUBLE_EQ(p.heads[i], core->heads[i]) << i;
  for (size_t i = 0; i < p.residual.size(); ++i) EXPECT_DOUBLE_EQ(p.residual[i], core->residual[i]) << i;
  EXPECT_DOUBLE_EQ(p.clean, core->clean);
  EXPECT_DOUBLE_EQ(p.corrupted, core->corrupted);
  // Patching the whole stream after the last block at the last position is the clean run: share 1.
  EXPECT_NEAR(p.Residual(p.n_layer, p.n - 1), 1.0, 1e-9);
}

TEST(PatchingJob, ACancelKeepsTheCellsFinished) {
  ModelSession session(OpenModelFolder);
  const auto folder = Open(session, "gpt2");
  ASSERT_TRUE(folder);
  const PatchingRequest request = MakePatching(folder);
  auto whole = ComputePatching(request);
  ASSERT_TRUE(whole) << whole.message();
  std::atomic<bool> cancel{false};
  RunControl control;
  control.cancel = &cancel;
  control.progress = [&](const char*, size_t done, size_t) {
    if (done >= 5) cancel.store(true);
  };
  auto part = ComputePatching(request, control);
  ASSERT_TRUE(part) << part.message();
  const model::Patching& p = part->patching;
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.done, 5u);
  for (size_t i = 0; i < p.heads.size(); ++i) {
    if (i < 5) EXPECT_DOUBLE_EQ(p.heads[i], whole->patching.heads[i]) << i;
    else EXPECT_TRUE(std::isnan(p.heads[i])) << i;
  }
  // The job publishes the partial scan a Cancel leaves (it is no failure).
  PatchingJob job;
  job.Start(request);
  for (int i = 0; i < 2000 && job.progress().done < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  job.Cancel();
  ASSERT_TRUE(job.WaitIdle(300));
  const auto kept = job.latest();
  ASSERT_TRUE(kept);
  ASSERT_TRUE(kept->status.ok()) << kept->status.message();
  EXPECT_EQ(kept->request, request);
}

TEST(PatchingJob, TextsOfDifferentLengthsAreRefusedNamingBothCounts) {
  ModelSession session(OpenModelFolder);
  const auto folder = Open(session, "gpt2");
  ASSERT_TRUE(folder);
  PatchingRequest request = MakePatching(folder);
  request.clean_text = "The cat sat on the mat.";
  const int clean_n = (int)Ids(*folder, request.clean_text).size();
  const int corrupted_n = (int)Ids(*folder, request.corrupted_text).size();
  ASSERT_NE(clean_n, corrupted_n);
  PatchingResult counts;
  auto got = ComputePatching(request, {}, &counts);
  ASSERT_FALSE(got);
  EXPECT_EQ(counts.clean_tokens, clean_n);
  EXPECT_EQ(counts.corrupted_tokens, corrupted_n);
  EXPECT_NE(got.message().find(std::to_string(clean_n)), std::string::npos) << got.message();
  EXPECT_NE(got.message().find(std::to_string(corrupted_n)), std::string::npos) << got.message();
}

}  // namespace
}  // namespace attnviz
