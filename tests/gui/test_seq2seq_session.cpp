// core/session/seq2seq_session.* as the app runs it, on its background thread: a forced run's result carries each
// decoder position's loss and top tokens; a request with ablated heads is another request (latest wins), whose
// result has the ablated losses and, beside them, the base losses of the model as trained (the plain run's).
#include "session/seq2seq_session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "io/file_io.h"
#include "session/model_session.h"  // kPredictTopK

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

}  // namespace
}  // namespace attnviz
