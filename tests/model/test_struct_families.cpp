// The structural twists of gpt_neox (core/model/arch/gpt_neox.cpp) and phi3 (arch/phi3.cpp): how their configs read
// (partial rotary, the residual kind, the rotary width naming key and value), how their fused weights bind (de-interleaved
// once, or row-block views), and partial rotary on the dims it turns. The runs against torch are test_run.cpp's
// Models/* on their fixtures (tests/fixtures/models/make_struct_fixtures.py).
#include <cmath>

#include "model/arch/family.h"
#include "model/config.h"
#include "model/model.h"
#include "model/rope.h"
#include "model/tensor_store.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::FixtureDir;

Result<ModelConfig> Parse(const std::string& text) { return ParseModelConfig(text, "config.json"); }

std::string Neox(const std::string& extra) {
  return R"({"model_type": "gpt_neox", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 40,
             "intermediate_size": 16, "vocab_size": 10)" + extra + "}";
}

TEST(StructFamilies, GptNeoxConfigsReadTheirTwists) {
  auto par = ReadModelConfig(FixtureDir("gpt_neox") + "/config.json");
  ASSERT_TRUE(par.ok()) << par.message();
  EXPECT_EQ(par->family, "gpt_neox");
  EXPECT_TRUE(par->recipe.parallel_residual && par->recipe.rope && !par->recipe.gated_mlp);
  EXPECT_EQ(par->d_head, 16);
  EXPECT_EQ(par->rotary_dim, 4);  // rotary_pct 0.25
  EXPECT_EQ(par->activation, Activation::kGeluErf);
  EXPECT_TRUE(par->qkv_bias && par->o_bias && !par->tie_word_embeddings);
  EXPECT_THAT(par->Describe(), HasSubstr("rotary on 4 of 16 dims"));
  auto seq = ReadModelConfig(FixtureDir("gpt_neox_seq_bf16") + "/config.json");
  ASSERT_TRUE(seq.ok()) << seq.message();
  EXPECT_FALSE(seq->recipe.parallel_residual);
  EXPECT_EQ(seq->rotary_dim, 6);  // int(20 * 0.33)
  // Newer configs' names for the same keys.
  auto renamed = Parse(Neox(R"(, "partial_rotary_factor": 0.5, "rope_theta": 500.0)"));
  ASSERT_TRUE(renamed.ok()) << renamed.message();
  EXPECT_EQ(renamed->rotary_dim, 10);
  EXPECT_DOUBLE_EQ(renamed->rope_theta, 500.0);
}

TEST(StructFamilies, RotaryDimsMustBeEven) {
  auto odd = Parse(Neox(R"(, "rotary_pct": 0.25)"));  // int(20 * 0.25) = 5
  ASSERT_FALSE(odd.ok());
  EXPECT_THAT(odd.message(), HasSubstr("\"rotary_pct\" 0.25 of a head of 20 gives 5 rotary dims"));
  auto none = Parse(Neox(R"(, "rotary_pct": 0.0)"));
  EXPECT_THAT(none.message(), HasSubstr("gives 0 rotary dims; RoPE needs an even number, at least 2"));
  auto range = Parse(Neox(R"(, "rotary_pct": 1.5)"));
  EXPECT_THAT(range.message(), HasSubstr("rotary_pct"));
  EXPECT_THAT(range.message(), HasSubstr("1.5"));
}

TEST(StructFamilies, GptNeoxQkvIsDeinterleavedOnce) {
  auto m = LoadModel(FixtureDir("gpt_neox"));
  ASSERT_TRUE(m.ok()) << m.message();
  const ModelConfig& c = (*m)->config();
  auto store = TensorStore::OpenDir(FixtureDir("gpt_neox"));
  ASSERT_TRUE(store.ok()) << store.message();
  auto fused = (*store)->Floats("gpt_neox.layers.1.attention.query_key_value.weight");
  auto bias = (*store)->Floats("gpt_neox.layers.1.attention.query_key_value.bias");
  ASSERT_TRUE(fused.ok() && bias.ok());
  const BlockParams& b = (*m)->params().blocks[1];
  const int d = c.d_model, dh = c.d_head;
  // q, k, v: adjacent row blocks of one copy; row r of head h of part t is stored row
  // (h * 3 + t) * dh + r.
  EXPECT_EQ(b.k.w, b.q.w + (size_t)d * d);
  EXPECT_EQ(b.v.w, b.k.w + (size_t)d * d);
  EXPECT_EQ(b.v.b, b.q.b + 2 * d);
  const Linear* parts[3] = {&b.q, &b.k, &b.v};
  for (int t = 0; t < 3; ++t)
    for (int h = 0; h < c.n_head; ++h)
      for (int r = 0; r < dh; r += dh - 1) {
        const size_t from = (size_t)(h * 3 + t) * dh + r, to = (size_t)h * dh + r;
        for (int col = 0; col < d; col += 7) EXPECT_EQ(parts[t]->w[to * d + col], (*fused)[from * d + col]);
        EXPECT_EQ(parts[t]->b[to], (*bias)[from]);
      }
  // The LM head is embed_out (untied), not embed_in.
  EXPECT_NE((*m)->params().lm_head.w, nullptr);
  EXPECT_NE((*m)->params().lm_head.w, (*m)->params().tok_emb);
}

TEST(StructFamilies, PartialRopeTurnsOnlyTheFirstDims) {
  ModelConfig c;
  c.d_head = 8, c.rotary_dim = 4, c.rope_theta = 100.0;
  const std::vector<double> inv = RopeInvFreq(c);
  ASSERT_EQ(inv.size(), 2u);
  EXPECT_NEAR(inv[1], 1.0 / std::pow(100.0, 2.0 / 4), 1e-6);  // theta^(2j / rotary_dim), not / d_head
  std::vector<float> cos, sin;
  RopeTables(inv, 3, &cos, &sin);
  std::vector<float> x(3 * 2 * 8), y;
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.1f * (float)i - 1.0f;
  y = x;
  ApplyRope(y.data(), 16, 3, 2, 8, 4, cos.data(), sin.data());
  for (int p = 0; p < 3; ++p)
    for (int h = 0; h < 2; ++h) {
      const float* a = x.data() + p * 16 + h * 8;
      const float* got = y.data() + p * 16 + h * 8;
      for (int j = 4; j < 8; ++j) EXPECT_EQ(got[j], a[j]) << "passed through";
      for (int j = 0; j < 2; ++j) {  // rotate_half pairs (j, j + 2) within the 4 rotary dims
        const float co = cos[p * 2 + j], si = sin[p * 2 + j];
        EXPECT_FLOAT_EQ(got[j], a[j] * co - a[j + 2] * si);
        EXPECT_FLOAT_EQ(got[j + 2], a[j + 2] * co + a[j] * si);
      }
    }
}


}  // namespace
}  // namespace attnviz::model
