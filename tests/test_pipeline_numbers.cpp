#include "lessons/pipeline_numbers.h"

#include <gtest/gtest.h>

#include "sandbox/pipeline.h"

using namespace attnviz;

namespace {
Pipeline Ran(const AttentionConfig& c, const std::string& text = "the cat sat on the mat") {
  Pipeline p;
  EXPECT_TRUE(p.SetText(text).ok());
  EXPECT_TRUE(p.SetConfig(c).ok());
  EXPECT_TRUE(p.Run(Stage::kOutput).ok());
  return p;
}
}  // namespace

TEST(PipelineNumbers, FusedMatrixSplitsIntoThreeAndBothLayoutsAgree) {
  AttentionConfig c;
  c.d_model = 16;
  c.n_head = 2;  // d_k = d_v = 8: the fused W is [d_model, 3*d_model]
  Pipeline fused = Ran(c);
  FusedSplit f = SplitFusedWeights(fused.params());
  EXPECT_EQ(f.w_fused.shape, (std::vector<size_t>{16, 48}));
  EXPECT_EQ(f.w_q.shape, (std::vector<size_t>{16, 16}));
  // Row 3's W_k block is columns 16..31 of the fused row 3.
  EXPECT_EQ(f.w_k.data[3 * 16 + 5], f.w_fused.data[3 * 48 + 16 + 5]);
  EXPECT_EQ(f.w_v.data[15 * 16 + 15], f.w_fused.data[15 * 48 + 47]);
  c.qkv = QkvLayout::kSeparate;
  FusedSplit s = SplitFusedWeights(Ran(c).params());
  EXPECT_EQ(s.w_fused.data, f.w_fused.data);
  EXPECT_EQ(s.w_q.data, f.w_q.data);
  LinearsCheck check = FusedVersusThreeLinears(*fused.tensors().xq, *fused.tensors().x, fused.params());
  EXPECT_EQ(check.q_fused.shape, (std::vector<size_t>{2, 6, 8}));
  EXPECT_LT(check.max_abs_diff, 1e-5f);
  // Equal by float32 rounding's tolerance, not by exact zero (the learner saw 5.96e-07 in error red): the
  // tolerance is d_model (16) ulps of the largest value, far below a real difference.
  EXPECT_TRUE(check.equal_to_rounding()) << check.max_abs_diff << " > " << check.rounding_tolerance;
  EXPECT_GT(check.rounding_tolerance, 0.0f);
  EXPECT_LT(check.rounding_tolerance, 1e-4f);
  LinearsCheck off = check;
  off.max_abs_diff = 0.01f;  // one weight off by 0.01 would show up like this
  EXPECT_FALSE(off.equal_to_rounding());
  EXPECT_GT(check.q_fused.data[7] * check.q_fused.data[7], 0.0f);  // not all zeros
  for (size_t i = 0; i < check.q_fused.size(); ++i) EXPECT_NEAR(check.q_fused.data[i], fused.tensors().q->data[i], 1e-5f);
}

TEST(PipelineNumbers, MergeHeadsIsTheLinearOutputBeforeTheSplit) {
  AttentionConfig c;
  c.d_model = 12;
  c.n_head = 3;
  Pipeline p = Ran(c);
  const Tensor& q = *p.tensors().q;  // [3, 6, 4]
  Tensor flat = MergeHeads(q);
  ASSERT_EQ(flat.shape, (std::vector<size_t>{1, 6, 12}));
  // flat = xq W_q, computed here independently.
  FusedSplit w = SplitFusedWeights(p.params());
  RowMatrix expected = p.tensors().xq->Matrix() * w.w_q.Matrix();
  for (int i = 0; i < 6; ++i)
    for (int c2 = 0; c2 < 12; ++c2) EXPECT_NEAR(flat.data[i * 12 + c2], expected(i, c2), 1e-4f);
  // Head 2, token 4, component 1 sits in column 2*4 + 1 of token 4's row.
  EXPECT_EQ(flat.data[4 * 12 + 9], q.data[(2 * 6 + 4) * 4 + 1]);
  Tensor heads = HeadsWithBatch(q);
  EXPECT_EQ(heads.shape, (std::vector<size_t>{1, 3, 6, 4}));
  EXPECT_EQ(ShapeString(heads.shape), "[1, 3, 6, 4]");
  EXPECT_EQ(heads.data, q.data);
}

TEST(PipelineNumbers, OneQueryRowReadsTheValuesIntoZ) {
  AttentionConfig c;
  c.d_model = 16;
  c.n_head = 2;
  c.d_v = 3;
  Pipeline p = Ran(c);
  const AttentionTensors& t = p.tensors();
  ValueRead r = ReadValues(*t.probs, *t.v, 1, 2);
  ASSERT_EQ(r.weights.size(), 6u);
  ASSERT_EQ(r.weighted_values.shape, (std::vector<size_t>{6, 3}));
  EXPECT_FLOAT_EQ(r.weighted_values.data[4 * 3 + 2], r.weights[4] * t.v->data[(1 * 6 + 4) * 3 + 2]);
  for (int ch = 0; ch < 3; ++ch) EXPECT_NEAR(r.z[ch], t.z->data[(1 * 6 + 2) * 3 + ch], 1e-5f);
  // The heads concatenated are the pipeline's concat: z of head 1 in columns 3..5.
  EXPECT_EQ(t.concat->shape, (std::vector<size_t>{6, 6}));
  EXPECT_EQ(t.concat->data[2 * 6 + 3 + 1], t.z->data[(1 * 6 + 2) * 3 + 1]);
  EXPECT_EQ(MergeHeads(*t.z).data, t.concat->data);
}
