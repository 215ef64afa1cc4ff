// core/maps/layer_stack.*: a stack made of the sandbox pipeline's layer keeps the invariants every stack keeps (rows
// sum to 1 over the keys they see, masked cells exactly 0, tokens as many as the maps' rows and columns), shares the
// layer it is made of, and a cross stack's rows are the queries, its columns the keys (n_q != n_k).
#include "maps/layer_stack.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <memory>

#include "layer_stack_checks.h"
#include "sandbox/pipeline.h"

namespace attnviz {
namespace {

std::shared_ptr<const AttentionTensors> RunPipeline(const AttentionConfig& config, const std::string& kv,
                                                    const std::string& query = "") {
  Pipeline p;
  EXPECT_TRUE(p.SetText(kv, query).ok());
  EXPECT_TRUE(p.SetConfig(config).ok());
  const Status run = p.Run(Stage::kMetrics);
  EXPECT_TRUE(run.ok()) << run.message();
  return std::make_shared<const AttentionTensors>(p.tensors());
}

TEST(LayerStack, ACausalSelfStackKeepsItsInvariants) {
  AttentionConfig c;
  c.n_head = 3;
  c.mask = MaskKind::kCausal;
  const auto layer = RunPipeline(c, "the cat sat on the mat because it was warm");
  const LayerStack stack = OneLayerStack(layer, StackKind::kSelf);
  ASSERT_EQ(stack.n_layer(), 1);
  EXPECT_EQ(stack.layer(0), layer.get());  // shared, not copied
  EXPECT_EQ(stack.layer(1), nullptr);
  EXPECT_EQ(stack.n_q(), stack.n_k());
  EXPECT_EQ(stack.n_q(), 10);
  EXPECT_TRUE(stack.mask.causal());
  EXPECT_EQ(testing::ExpectStackInvariants(stack), 1);
  // The invariants can fail: a row that leaks onto a masked key is caught.
  auto leaked = std::make_shared<AttentionTensors>(*layer);
  auto probs = std::make_shared<Tensor>(*layer->probs);
  probs->data[1] = 0.5f, probs->data[0] = 0.5f;  // head 0, row 0: half on key 1, which it may not see
  leaked->probs = probs;
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(::testing::ScopedFakeTestPartResultReporter::
                                                             INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    testing::ExpectStackInvariants(OneLayerStack(leaked, StackKind::kSelf));
  }
  EXPECT_GE(failures.size(), 1);
}

TEST(LayerStack, ACrossStackHasTheQueriesAsRowsAndTheKeysAsColumns) {
  AttentionConfig c;
  c.n_head = 2;
  c.mode = AttentionMode::kCross;
  const auto layer = RunPipeline(c, "le chat est sur le tapis rouge", "the cat");
  const LayerStack stack = OneLayerStack(layer, StackKind::kCross);
  EXPECT_EQ(stack.kind, StackKind::kCross);
  EXPECT_EQ(stack.n_q(), 2);
  EXPECT_EQ(stack.n_k(), 7);
  EXPECT_NE(stack.n_q(), stack.n_k());
  EXPECT_EQ(stack.row_tokens[1].display, "cat");
  EXPECT_EQ(stack.column_tokens[6].display, "rouge");
  EXPECT_EQ(testing::ExpectStackInvariants(stack), 1);
}

TEST(LayerStack, LayersNotMadeYetAreNullAndTheTokensComeFromTheFirstMade) {
  AttentionConfig c;
  const auto layer = RunPipeline(c, "one two three");
  const LayerStack stack = StackOfLayers({nullptr, layer, nullptr}, StackKind::kSelf);
  EXPECT_EQ(stack.n_layer(), 3);
  EXPECT_EQ(stack.layer(0), nullptr);
  EXPECT_EQ(stack.layer(1), layer.get());
  EXPECT_EQ(stack.n_q(), 3);
  EXPECT_EQ(testing::ExpectStackInvariants(stack), 1);
  EXPECT_EQ(OneLayerStack(nullptr, StackKind::kCross).n_layer(), 0);
  EXPECT_STREQ(StackKindName(StackKind::kDecoder), "decoder");
}

}  // namespace
}  // namespace attnviz
