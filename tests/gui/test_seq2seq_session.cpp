// core/session/seq2seq_session.* as the app runs it, on its background thread: a forced run's result carries each
// decoder position's loss and top tokens; a request with ablated heads is another request (latest wins), whose
// result has the ablated losses and, beside them, the base losses of the model as trained (the plain run's). The
// analyses of a run (seq2seq_jobs.h) on their own threads: the neuron view, the map kinds and the scan give what
// core's functions give; a stopped scan keeps the heads done, a cancelled one publishes nothing.
#include "session/seq2seq_session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>

#include "io/file_io.h"
#include "session/model_session.h"  // kPredictTopK
#include "session/seq2seq_jobs.h"

namespace attnviz {
namespace {

using nlohmann::json;

std::string FixtureDir() { return std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/seq2seq/marian"; }

std::shared_ptr<const Seq2SeqResult> RunOnce(Seq2SeqSession& session, const Seq2SeqRequest& r) {
  const uint64_t generation = session.Submit(r);
  EXPECT_TRUE(session.WaitIdle(120));
  std::shared_ptr<const Seq2SeqResult> result = session.latest();
  EXPECT_TRUE(result && result->generation == generation);
  return result;
}

TEST(Seq2SeqSessionAnalysis, LossesTopTokensAndTheBaseOfAnAblatedRun) {
  auto text = ReadFile(FixtureDir() + "/reference/tokens.json");
  ASSERT_TRUE(text);
  const json tokens = json::parse(*text);
  Seq2SeqSession session;
  Seq2SeqRequest plain;
  plain.dir = FixtureDir();
  plain.source_text = tokens["source_text"].get<std::string>();
  plain.target_text = tokens["target_text"].get<std::string>();
  const auto a = RunOnce(session, plain);
  ASSERT_TRUE(a && a->complete()) << (a ? a->status.message() : "");
  const size_t n_tgt = tokens["labels"].size();
  ASSERT_EQ(a->token_loss.size(), n_tgt);
  ASSERT_EQ(a->top.size(), n_tgt);
  for (size_t i = 0; i < n_tgt; ++i) {
    ASSERT_EQ(a->top[i].top.size(), (size_t)kPredictTopK);
    for (size_t k = 1; k < a->top[i].top.size(); ++k) EXPECT_GE(a->top[i].top[k - 1].prob, a->top[i].top[k].prob);
    // The label's probability, exp(-loss), is at most the most probable token's.
    EXPECT_LE(std::exp(-a->token_loss[i]), a->top[i].top[0].prob + 1e-12) << i;
  }
  EXPECT_DOUBLE_EQ(a->loss, model::MeanLoss(a->token_loss));
  EXPECT_TRUE(a->base_token_loss.empty());

  Seq2SeqRequest ablated = plain;
  ablated.ablate.push_back({model::Seq2SeqStack::kCross, 1, 1, model::AblateMode::kZero});
  EXPECT_NE(ablated, plain);  // the ablations are part of what is asked
  const auto b = RunOnce(session, ablated);
  ASSERT_TRUE(b && b->complete()) << (b ? b->status.message() : "");
  EXPECT_EQ(b->request, ablated);
  ASSERT_EQ(b->base_token_loss.size(), n_tgt);
  for (size_t i = 0; i < n_tgt; ++i) EXPECT_EQ(b->base_token_loss[i], a->token_loss[i]) << i;
  EXPECT_EQ(b->base_loss, a->loss);
  EXPECT_NE(b->loss, a->loss);
  EXPECT_DOUBLE_EQ(b->loss, model::MeanLoss(b->token_loss));
}

// The marian fixture's reference source and target, run once.
std::shared_ptr<const Seq2SeqResult> ReferenceRun(Seq2SeqSession& session) {
  auto text = ReadFile(FixtureDir() + "/reference/tokens.json");
  EXPECT_TRUE(text);
  const json tokens = json::parse(text ? *text : std::string("{}"));
  Seq2SeqRequest r;
  r.dir = FixtureDir();
  r.source_text = tokens["source_text"].get<std::string>();
  r.target_text = tokens["target_text"].get<std::string>();
  return RunOnce(session, r);
}

TEST(Seq2SeqAnalysisJobs, NeuronKindsAndScanAreCoresFunctions) {
  Seq2SeqSession session;
  const auto run = ReferenceRun(session);
  ASSERT_TRUE(run && run->complete()) << (run ? run->status.message() : "");
  Seq2SeqAnalysisJobs jobs;
  jobs.Neuron({run, kCrossStack, 1, 1, 2, 3});
  jobs.Kind({run, MapKind::kValueWeighted});
  jobs.Scan({run});
  ASSERT_TRUE(jobs.WaitIdle(300));
  const auto neuron = jobs.neuron();
  ASSERT_TRUE(neuron && neuron->status.ok()) << (neuron ? neuron->status.message() : "");
  auto want = Seq2SeqNeuronOf(*run, kCrossStack, 1, 1, 2, 3);
  ASSERT_TRUE(want) << want.message();
  EXPECT_EQ(neuron->view.view.q, want->view.q);
  EXPECT_EQ(neuron->view.view.prob, want->view.prob);
  // The run's cross probability at that cell is the view's.
  const LayerMaps& cross = *(*run->stacks)[kCrossStack].layer(1);
  EXPECT_NEAR(neuron->view.view.prob, cross.probs->data[((size_t)1 * cross.n_q() + 2) * cross.n_k() + 3], 1e-6);
  const auto kind = jobs.kind();
  ASSERT_TRUE(kind && kind->status.ok() && kind->stacks);
  auto stacks = Seq2SeqKindStacks(*run, MapKind::kValueWeighted);
  ASSERT_TRUE(stacks) << stacks.message();
  for (int s = 0; s < 3; ++s)
    for (int l = 0; l < (*stacks)->at((size_t)s).n_layer(); ++l)
      EXPECT_EQ(kind->stacks->at((size_t)s).layer(l)->probs->data, (*stacks)->at((size_t)s).layer(l)->probs->data);
  const auto scan = jobs.scan();
  ASSERT_TRUE(scan && scan->status.ok() && scan->scan.complete);
  auto core = Seq2SeqScanOf(*run);
  ASSERT_TRUE(core) << core.message();
  ASSERT_EQ(scan->scan.heads.size(), core->heads.size());
  for (size_t k = 0; k < core->heads.size(); ++k) EXPECT_EQ(scan->scan.heads[k].loss, core->heads[k].loss) << k;
  EXPECT_FALSE(Seq2SeqKindRefusal(MapKind::kRollout, kCrossStack).ok());
  EXPECT_TRUE(Seq2SeqKindRefusal(MapKind::kRollout, kDecoderStack).ok());
}

TEST(Seq2SeqAnalysisJobs, StopKeepsTheHeadsDoneAndCancelDropsThem) {
  Seq2SeqSession session;
  const auto run = ReferenceRun(session);
  ASSERT_TRUE(run && run->complete());
  Seq2SeqAnalysisJobs* jobs_ptr = nullptr;
  std::atomic<int> stop_at{2};
  Seq2SeqAnalysisJobs jobs({}, [&](size_t done) {
    if ((int)done == stop_at.load()) jobs_ptr->StopScan();
  });
  jobs_ptr = &jobs;
  jobs.Scan({run});
  ASSERT_TRUE(jobs.WaitIdle(300));
  const auto scan = jobs.scan();
  ASSERT_TRUE(scan && scan->status.ok());
  EXPECT_FALSE(scan->scan.complete);
  EXPECT_EQ(scan->scan.heads_done, 2u);
  EXPECT_FALSE(std::isnan(scan->scan.heads[1].loss));
  EXPECT_TRUE(std::isnan(scan->scan.heads[2].loss));
  EXPECT_TRUE(std::isnan(scan->Delta((int)scan->scan.heads[2].stack, scan->scan.heads[2].layer, scan->scan.heads[2].head)));
  // CancelAll mid-scan: nothing new published (the stopped scan stays the latest).
  Seq2SeqAnalysisJobs other({}, [&](size_t done) {
    if (done == 2) jobs_ptr->CancelAll();
  });
  jobs_ptr = &other;
  other.Scan({run});
  ASSERT_TRUE(other.WaitIdle(300));
  EXPECT_EQ(other.scan(), nullptr);
}

}  // namespace
}  // namespace attnviz
