// The structural twists of gpt_neox (core/model/arch/gpt_neox.cpp) and phi3 (arch/phi3.cpp): how their configs read
// (partial rotary, the residual kind, longrope, the refusals naming key and value; arch/refused.cpp), how their fused weights bind (de-interleaved
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


std::string Phi3(const std::string& extra) {
  return R"({"model_type": "phi3", "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
             "hidden_size": 32, "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 64,
             "original_max_position_embeddings": 16)" + extra + "}";
}

TEST(StructFamilies, Phi3ConfigsReadLongRope) {
  auto c = ReadModelConfig(FixtureDir("phi3") + "/config.json");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->family, "phi3");
  EXPECT_EQ(c->q_dim(), 48);
  EXPECT_EQ(c->kv_dim(), 16);
  EXPECT_EQ(c->sliding_window, 6);
  ASSERT_EQ(c->rope_scaling.kind, RopeScaling::Kind::kLongRope);
  EXPECT_EQ(c->rope_scaling.original_max_position_embeddings, 16);  // from the top level
  EXPECT_DOUBLE_EQ(c->rope_scaling.factor, 4.0);                    // max_position_embeddings / original
  EXPECT_DOUBLE_EQ(c->rope_scaling.attention_factor, std::sqrt(1 + std::log(4.0) / std::log(16.0)));
  // long_factor past original_max_position_embeddings tokens, short_factor up to it
  EXPECT_NEAR(RopeInvFreq(*c, 17)[3], 1.0 / (12.0 * std::pow(10000.0, 6.0 / 8)), 1e-9);
  EXPECT_NEAR(RopeInvFreq(*c, 16)[3], 1.0 / (2.0 * std::pow(10000.0, 6.0 / 8)), 1e-9);
  auto p = ReadModelConfig(FixtureDir("phi3_partial_f16") + "/config.json");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->d_head, 12);
  EXPECT_EQ(p->rotary_dim, 6);
  EXPECT_EQ(p->n_kv_head, 1);
  // A given attention_factor and factor win over the ratio.
  auto given = Parse(Phi3(R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1],
                             "long_factor": [2, 2, 2, 2], "attention_factor": 1.5, "factor": 2.0})"));
  ASSERT_TRUE(given.ok()) << given.message();
  EXPECT_DOUBLE_EQ(given->rope_scaling.attention_factor, 1.5);
  EXPECT_DOUBLE_EQ(given->rope_scaling.factor, 2.0);
}

TEST(StructFamilies, LongRopeFactorsAreChecked) {
  auto few = Parse(Phi3(R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1],
                           "long_factor": [2, 2, 2, 2]})"));
  ASSERT_FALSE(few.ok());
  EXPECT_THAT(few.message(), HasSubstr("rope_scaling \"short_factor\" has 3 values; 4 are needed"));
  auto missing = Parse(Phi3(R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, 1]})"));
  EXPECT_THAT(missing.message(), HasSubstr("\"long_factor\""));
  auto bad = Parse(Phi3(R"(, "rope_scaling": {"type": "longrope", "short_factor": [1, 1, 1, -1],
                           "long_factor": [2, 2, 2, 2]})"));
  EXPECT_THAT(bad.message(), HasSubstr("\"short_factor\" is -1"));
  auto partial = Parse(Phi3(R"(, "partial_rotary_factor": 0.3)"));  // int(8 * 0.3) = 2: allowed
  ASSERT_TRUE(partial.ok()) << partial.message();
  EXPECT_EQ(partial->rotary_dim, 2);
  auto odd = Parse(Phi3(R"(, "partial_rotary_factor": 0.4)"));  // int(3.2) = 3
  EXPECT_THAT(odd.message(), HasSubstr("\"partial_rotary_factor\" 0.4 of a head of 8 gives 3 rotary dims"));
}

TEST(StructFamilies, Phi3FusedWeightsAreRowBlockViews) {
  auto m = LoadModel(FixtureDir("phi3"));
  ASSERT_TRUE(m.ok()) << m.message();
  const ModelConfig& c = (*m)->config();
  const BlockParams& b = (*m)->params().blocks[0];
  const size_t d = (size_t)c.d_model;
  EXPECT_EQ(b.k.w, b.q.w + (size_t)c.q_dim() * d);
  EXPECT_EQ(b.v.w, b.k.w + (size_t)c.kv_dim() * d);
  EXPECT_EQ(b.q.out, c.q_dim());
  EXPECT_EQ(b.k.out, c.kv_dim());
  EXPECT_EQ(b.up.w, b.gate.w + (size_t)c.d_ff * d);  // gate first, as HF's chunk(2)
  EXPECT_EQ(b.gate.out, c.d_ff);
}

// What is not built is refused by name with the reason, and the supported list still comes from Families().
TEST(StructFamilies, UnbuiltKindsAreRefusedWithTheReason) {
  for (const char* moe : {"mixtral", "qwen3_moe", "gpt_oss"}) {
    auto r = Parse(std::string(R"({"model_type": ")") + moe + R"(", "num_hidden_layers": 2})");
    ASSERT_FALSE(r.ok()) << moe;
    EXPECT_THAT(r.message(), HasSubstr(std::string("model_type \"") + moe +
                                       "\" is not supported: a mixture-of-experts MLP"));
    EXPECT_THAT(r.message(), HasSubstr("(supported: " + SupportedModelTypes() + ")"));
  }
  auto next = Parse(R"({"model_type": "qwen3_next"})");
  EXPECT_THAT(next.message(), HasSubstr("model_type \"qwen3_next\" is not supported: linear-attention layers"));
  // A supported model type whose layers are built otherwise: refused by the key.
  auto linear = Parse(Phi3(R"(, "layer_types": ["full_attention", "linear_attention"])"));
  ASSERT_FALSE(linear.ok());
  EXPECT_THAT(linear.message(), HasSubstr("layer_types \"linear_attention\" is not supported: linear-attention"));
  auto experts = Parse(Phi3(R"(, "num_local_experts": 8)"));
  EXPECT_THAT(experts.message(), HasSubstr("num_local_experts \"8\" is not supported: a mixture-of-experts MLP"));
  auto one_expert = Parse(Phi3(R"(, "num_local_experts": 1)"));
  EXPECT_TRUE(one_expert.ok()) << one_expert.message();
  auto yarn = Parse(Phi3(R"(, "rope_scaling": {"type": "yarn", "factor": 4.0})"));
  EXPECT_THAT(yarn.message(), HasSubstr("rope type \"yarn\" is not supported: its frequency rescaling is not built"));
  // Still "not supported" for a name nobody refused on purpose.
  auto xlnet = Parse(R"({"model_type": "xlnet"})");
  EXPECT_THAT(xlnet.message(), HasSubstr("model_type \"xlnet\" is not supported (supported: " + SupportedModelTypes()));
}

}  // namespace
}  // namespace attnviz::model
