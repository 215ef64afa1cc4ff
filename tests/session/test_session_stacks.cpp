// What the sessions publish for the screen: the sandbox session one stack of its one layer (self, or cross with the
// query text's tokens as rows and the key/value text's as columns), a model run one self stack of every layer
// (gpt2 causal, bert bidirectional), each keeping the stacks' invariants (tests/maps/layer_stack_checks.h) and
// sharing the result's layers.
#include <gtest/gtest.h>

#include <string>

#include "layer_stack_checks.h"
#include "model_folder.h"
#include "session/layer_collector.h"
#include "session/model_session.h"
#include "session/sandbox_session.h"

namespace attnviz {
namespace {

std::shared_ptr<const SandboxRun> RunSandbox(const ComputeRequest& request) {
  SandboxSession session;
  session.Submit(request);
  EXPECT_TRUE(session.WaitIdle(60));
  std::shared_ptr<const SandboxRun> r = session.latest();
  EXPECT_TRUE(r && r->status.ok()) << (r ? r->status.message() : "no result");
  return r;
}

TEST(SandboxSessionStack, OneSelfStackOfTheResultsLayer) {
  ComputeRequest request;
  request.kv_text = "the cat sat on the mat";
  request.config.n_head = 2;
  request.config.mask = MaskKind::kCausal;
  const auto result = RunSandbox(request);
  ASSERT_TRUE(result);
  const LayerStack& stack = result->stack;
  EXPECT_EQ(stack.kind, StackKind::kSelf);
  ASSERT_EQ(stack.n_layer(), 1);
  ASSERT_TRUE(result->extras);
  EXPECT_EQ(stack.layer(0), result->extras->numbers.get());  // the pipeline numbers' own object
  EXPECT_EQ(stack.n_q(), 6);
  EXPECT_EQ(stack.n_k(), 6);
  EXPECT_TRUE(stack.mask.causal());
  EXPECT_EQ(testing::ExpectStackInvariants(stack), 1);
}

TEST(SandboxSessionStack, CrossModeIsACrossStackOfQueriesOverKeys) {
  ComputeRequest request;
  request.kv_text = "le chat est sur le tapis";
  request.query_text = "the cat";
  request.config.mode = AttentionMode::kCross;
  const auto result = RunSandbox(request);
  ASSERT_TRUE(result);
  const LayerStack& stack = result->stack;
  EXPECT_EQ(stack.kind, StackKind::kCross);
  EXPECT_EQ(stack.n_q(), 2);
  EXPECT_EQ(stack.n_k(), 6);
  EXPECT_EQ(stack.row_tokens[0].display, "the");
  EXPECT_EQ(stack.column_tokens[0].display, "le");
  EXPECT_EQ(testing::ExpectStackInvariants(stack), 1);
  // A failed run shows no layer.
  request.kv_text = "";
  SandboxSession session;
  session.Submit(request);
  ASSERT_TRUE(session.WaitIdle(60));
  ASSERT_TRUE(session.latest());
  EXPECT_FALSE(session.latest()->status.ok());
  EXPECT_EQ(session.latest()->stack.n_layer(), 0);
  EXPECT_EQ(session.latest()->stack.kind, StackKind::kCross);
  EXPECT_FALSE(session.latest()->extras);
}

class ModelStack : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelStack, OneSelfStackOfEveryLayer) {
  ModelSession session(OpenModelFolder);
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + GetParam());
  ASSERT_TRUE(session.WaitIdle(60));
  ModelRequest request;
  request.folder = session.folder();
  ASSERT_TRUE(request.folder) << session.open_status().message();
  request.text = GetParam() == "bert" ? "the cat sat on the mat." : "The cat sat on the mat and the dog sat on the log.";
  session.Submit(request);
  ASSERT_TRUE(session.WaitIdle(120));
  const std::shared_ptr<const ModelResult> r = session.latest();
  ASSERT_TRUE(r && r->complete()) << (r ? r->status.message() : "no result");
  const std::vector<LayerStack> stacks = StacksOf(*r);
  ASSERT_EQ(stacks.size(), 1u);
  const LayerStack& stack = stacks[0];
  EXPECT_EQ(stack.kind, StackKind::kSelf);
  ASSERT_EQ(stack.n_layer(), r->n_layer());
  for (int l = 0; l < r->n_layer(); ++l) EXPECT_EQ(stack.layer(l), r->layers[(size_t)l].get()) << l;  // shared
  EXPECT_EQ(stack.n_q(), (int)r->tokens.size());
  EXPECT_EQ(stack.n_k(), (int)r->tokens.size());
  EXPECT_EQ(stack.mask.causal(), GetParam() != "bert");
  EXPECT_EQ(testing::ExpectStackInvariants(stack), r->n_layer());
  // A run with no layer made yet: the tokens and mask its layers will have.
  ModelResult none = *r;
  none.layers.assign(none.layers.size(), nullptr);
  none.layers_done = 0;
  const LayerStack empty = StacksOf(none)[0];
  EXPECT_EQ(empty.layer(0), nullptr);
  EXPECT_EQ(empty.n_q(), stack.n_q());
  EXPECT_EQ(empty.mask.causal(), stack.mask.causal());
}

// Every layer of a run reads one token list (the result's), and the kept-bytes figure counts it once: a list copied
// per layer would count n_layer times over, tokens left out of the estimate would count 0.
TEST_P(ModelStack, OneTokenListForEveryLayerCountedOnce) {
  ModelSession session(OpenModelFolder);
  session.Open(std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/" + GetParam());
  ASSERT_TRUE(session.WaitIdle(60));
  ModelRequest request;
  request.folder = session.folder();
  ASSERT_TRUE(request.folder) << session.open_status().message();
  request.text = "The cat sat on the mat and the dog sat on the log.";
  session.Submit(request);
  ASSERT_TRUE(session.WaitIdle(120));
  const std::shared_ptr<const ModelResult> r = session.latest();
  ASSERT_TRUE(r && r->complete()) << (r ? r->status.message() : "no result");
  ASSERT_GT(r->n_layer(), 1);
  // 1. One list: the result's, in every layer and its stack.
  const std::vector<Token>* list = r->tokens.shared();
  ASSERT_NE(list, nullptr);
  for (int l = 0; l < r->n_layer(); ++l) {
    EXPECT_EQ(r->layers[(size_t)l]->query_tokens.shared(), list) << l;
    EXPECT_EQ(r->layers[(size_t)l]->kv_tokens.shared(), list) << l;
  }
  const LayerStack stack = StacksOf(*r)[0];
  EXPECT_EQ(stack.row_tokens.shared(), list);
  EXPECT_EQ(stack.column_tokens.shared(), list);
  // 2. Counted once, in what the layers keep and in the run's estimate.
  const double one_list = TokenListBytes(r->tokens);
  EXPECT_GE(one_list, (double)r->tokens.size() * sizeof(Token));
  EXPECT_DOUBLE_EQ(KeptTokenBytes(*r), one_list);
  const model::ModelConfig& c = request.folder->model->config();
  const CollectPlan plan = CollectPlan::ForSession(false);
  EXPECT_DOUBLE_EQ(CollectedBytes(c, r->tokens, plan) - CollectedBytes(c, (int)r->tokens.size(), plan), one_list);
  // 3. A what-if over the same text resumes from the shared layers: still one list.
  request.temperature = 2.0f;
  request.whatif_layers = {r->n_layer() - 1};
  session.Submit(request);
  ASSERT_TRUE(session.WaitIdle(120));
  const std::shared_ptr<const ModelResult> what_if = session.latest();
  ASSERT_TRUE(what_if && what_if->complete()) << (what_if ? what_if->status.message() : "no result");
  ASSERT_GT(what_if->resumed_from, 0);
  EXPECT_EQ(what_if->tokens.shared(), list);
  EXPECT_DOUBLE_EQ(KeptTokenBytes(*what_if), one_list);
}

INSTANTIATE_TEST_SUITE_P(Families, ModelStack, ::testing::Values("gpt2", "bert", "llama"));

}  // namespace
}  // namespace attnviz
