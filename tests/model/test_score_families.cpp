// The score twists of qwen3, olmo2 (core/model/arch/qwen3.cpp, olmo2.cpp), gemma2 and gemma3_text (arch/gemma.cpp):
// how their configs read (layer types and their derivations, soft caps, query_pre_attn_scalar, the two RoPE bases,
// the refusals naming key and value), Gemma's (1 + w) norms as bound, and the twist what-ifs (no q/k norms, no soft
// cap) against torch (twist_probs.npy, twist_hidden.npy of make_score_fixtures.py). The plain runs, the what-ifs,
// ablation and the analyses against torch are test_run.cpp's and test_analysis.cpp's Models/* on the same folders.
#include <cmath>

#include "io/npy.h"
#include "model/config.h"
#include "model/model.h"
#include "model/run.h"
#include "model/tensor_store.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::FixtureDir;

Result<ModelConfig> Config(const std::string& name) { return ReadModelConfig(FixtureDir(name) + "/config.json"); }
Result<ModelConfig> Parse(const std::string& text) { return ParseModelConfig(text, "config.json"); }

std::string Gemma2(const std::string& extra) {
  return R"({"model_type": "gemma2", "num_hidden_layers": 3, "num_attention_heads": 2, "hidden_size": 16,
             "head_dim": 8, "intermediate_size": 16, "vocab_size": 10)" + extra + "}";
}

TEST(ScoreFamilies, Qwen3ReadsPerHeadNormsAndSlidesOnlyWhenAsked) {
  auto plain = Config("qwen3");
  ASSERT_TRUE(plain.ok()) << plain.message();
  EXPECT_EQ(plain->family, "qwen3");
  EXPECT_EQ(plain->recipe.qk_norm, BlockRecipe::QkNorm::kPerHead);
  EXPECT_EQ(plain->d_head, 16);  // != hidden_size / heads
  EXPECT_EQ(plain->n_kv_head, 2);
  EXPECT_FALSE(plain->qkv_bias);
  // sliding_window 8 is written, use_sliding_window false: no layer slides.
  for (int l = 0; l < plain->n_layer; ++l) EXPECT_EQ(plain->WindowOf(l), 0) << l;
  auto sliding = Config("qwen3_sliding");
  ASSERT_TRUE(sliding.ok()) << sliding.message();
  EXPECT_EQ(sliding->layer_window, (std::vector<int>{0, 5}));  // from max_window_layers 1
  EXPECT_THAT(sliding->Describe(), HasSubstr("sliding window 5 on layers 1"));
  EXPECT_THAT(sliding->Describe(), HasSubstr("q/k norms per head"));
  // Qwen3Config's head_dim default is its own (128), not hidden_size / heads.
  auto bare = Parse(R"({"model_type": "qwen3", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 16,
                        "intermediate_size": 16, "vocab_size": 10})");
  ASSERT_TRUE(bare.ok()) << bare.message();
  EXPECT_EQ(bare->d_head, 128);
}

// The Shapes tab's formula is the family's own score: its scale's source, the cap around it, q and k after the norms.
TEST(ScoreFamilies, TheFormulaNamesEachFamilysScaleCapAndNorms) {
  auto gemma2 = Config("gemma2");  // query_pre_attn_scalar 24, attn_logit_softcapping 2
  ASSERT_TRUE(gemma2.ok()) << gemma2.message();
  EXPECT_EQ(AttentionFormula(*gemma2), "softmax(2 \u00B7 tanh(q k\u1D40 / \u221A24 / 2))");
  EXPECT_EQ(QkFormula(*gemma2, 'q'), "q = x W_q");
  auto qwen3 = Config("qwen3");
  ASSERT_TRUE(qwen3.ok()) << qwen3.message();
  EXPECT_EQ(AttentionFormula(*qwen3), "softmax(q k\u1D40 / \u221Ad_head)");
  EXPECT_EQ(QkFormula(*qwen3, 'q'), "q = q_norm(x W_q)");
  EXPECT_EQ(QkFormula(*qwen3, 'k'), "k = k_norm(x W_k)");
  auto olmo2 = Config("olmo2");
  ASSERT_TRUE(olmo2.ok()) << olmo2.message();
  EXPECT_EQ(QkFormula(*olmo2, 'k'), "k = k_norm(x W_k)");
  ModelConfig plain = *qwen3;
  plain.recipe.qk_norm = BlockRecipe::QkNorm::kNone;
  plain.scale_attn = false;
  EXPECT_EQ(AttentionFormula(plain), "softmax(q k\u1D40)");
  EXPECT_EQ(QkFormula(plain, 'q'), "q = x W_q");
  plain.scale_attn = true;
  plain.scale_by_inverse_layer_idx = true;  // gpt2's scale_attn_by_inverse_layer_idx
  EXPECT_EQ(AttentionFormula(plain), "softmax(q k\u1D40 / \u221Ad_head / (l + 1))");
}

TEST(ScoreFamilies, Olmo2HasNoInputNormsAndNormsTheWholeProjections) {
  auto c = Config("olmo2");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->recipe.qk_norm, BlockRecipe::QkNorm::kWhole);
  EXPECT_FALSE(c->recipe.input_norms);
  EXPECT_TRUE(c->recipe.output_norms);
  auto m = LoadModel(FixtureDir("olmo2"));
  ASSERT_TRUE(m.ok()) << m.message();
  const BlockParams& b = (*m)->params().blocks[0];
  EXPECT_EQ(b.attn_norm.w, nullptr);
  EXPECT_NE(b.q_norm.w, nullptr);
  EXPECT_NE(b.attn_out_norm.w, nullptr);
  EXPECT_NE(b.mlp_out_norm.w, nullptr);
}

TEST(ScoreFamilies, Gemma2ReadsCapsScalarAndAlternatingLayers) {
  auto c = Config("gemma2");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->family, "gemma2");
  EXPECT_DOUBLE_EQ(c->attn_softcap, 2.0);
  EXPECT_DOUBLE_EQ(c->final_softcap, 4.0);
  EXPECT_DOUBLE_EQ(c->query_pre_attn_scalar, 24.0);
  EXPECT_TRUE(c->scale_embeddings);
  EXPECT_EQ(c->activation, Activation::kGeluTanh);
  EXPECT_EQ(c->recipe.qk_norm, BlockRecipe::QkNorm::kNone);
  EXPECT_EQ(c->layer_window, (std::vector<int>{5, 0, 5}));  // (i + 1) % 2 != 0
  EXPECT_THAT(c->Describe(), HasSubstr("soft caps 2 (attention) and 4 (final)"));
  // null turns a cap off; an absent key takes Gemma2Config's default.
  auto none = Parse(Gemma2(R"(, "attn_logit_softcapping": null, "final_logit_softcapping": null)"));
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_EQ(none->attn_softcap, 0.0);
  EXPECT_EQ(none->final_softcap, 0.0);
  auto defaults = Parse(Gemma2(""));
  ASSERT_TRUE(defaults.ok()) << defaults.message();
  EXPECT_DOUBLE_EQ(defaults->attn_softcap, 50.0);
  EXPECT_DOUBLE_EQ(defaults->final_softcap, 30.0);
  EXPECT_DOUBLE_EQ(defaults->query_pre_attn_scalar, 256.0);
}

TEST(ScoreFamilies, Gemma3LayerTypesWinAndSlidingLayersTurnByTheLocalBase) {
  auto c = Config("gemma3_text");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->family, "gemma3");
  EXPECT_EQ(c->recipe.qk_norm, BlockRecipe::QkNorm::kPerHead);
  EXPECT_EQ(c->layer_window, (std::vector<int>{5, 5, 0}));  // layer_types, not sliding_window_pattern 6
  EXPECT_EQ(c->layer_local_rope, (std::vector<bool>{true, true, false}));
  EXPECT_DOUBLE_EQ(c->rope_local_theta, 1e4);
  EXPECT_DOUBLE_EQ(c->rope_theta, 1e6);
  EXPECT_EQ(c->rope_scaling.kind, RopeScaling::Kind::kLinear);
  EXPECT_EQ(c->attn_softcap, 0.0);
  // Without layer_types: (i + 1) % sliding_window_pattern != 0.
  auto derived = Parse(R"({"model_type": "gemma3_text", "num_hidden_layers": 4, "num_attention_heads": 2,
                           "hidden_size": 16, "head_dim": 8, "intermediate_size": 16, "vocab_size": 10,
                           "sliding_window": 3, "sliding_window_pattern": 2})");
  ASSERT_TRUE(derived.ok()) << derived.message();
  EXPECT_EQ(derived->layer_window, (std::vector<int>{3, 0, 3, 0}));
}

TEST(ScoreFamilies, LayerTypesAreCheckedByEntryAndCount) {
  auto count = Parse(Gemma2(R"(, "layer_types": ["sliding_attention", "full_attention"])"));
  ASSERT_FALSE(count.ok());
  EXPECT_THAT(count.message(), HasSubstr("layer_types has 2 entries; num_hidden_layers is 3"));
  auto value = Parse(Gemma2(R"(, "layer_types": ["sliding_attention", "chunked_attention", "full_attention"])"));
  ASSERT_FALSE(value.ok());
  EXPECT_THAT(value.message(), HasSubstr("layer_types[1] is \"chunked_attention\""));
  auto multimodal = Parse(R"({"model_type": "gemma3", "text_config": {}})");
  ASSERT_FALSE(multimodal.ok());
  EXPECT_THAT(multimodal.message(), HasSubstr("gemma3_text"));
}

TEST(ScoreFamilies, GemmaNormsAreBoundAsOnePlusTheirWeights) {
  auto m = LoadModel(FixtureDir("gemma3_text"));
  ASSERT_TRUE(m.ok()) << m.message();
  auto store = TensorStore::OpenDir(FixtureDir("gemma3_text"));
  ASSERT_TRUE(store.ok()) << store.message();
  const ModelConfig& c = (*m)->config();
  const BlockParams& b = (*m)->params().blocks[1];
  struct Bound {
    const char* name;
    const Norm* norm;
    int width;
  };
  const Bound norms[] = {{"model.layers.1.input_layernorm.weight", &b.attn_norm, c.d_model},
                         {"model.layers.1.post_attention_layernorm.weight", &b.attn_out_norm, c.d_model},
                         {"model.layers.1.pre_feedforward_layernorm.weight", &b.mlp_norm, c.d_model},
                         {"model.layers.1.post_feedforward_layernorm.weight", &b.mlp_out_norm, c.d_model},
                         {"model.layers.1.self_attn.q_norm.weight", &b.q_norm, c.d_head},
                         {"model.layers.1.self_attn.k_norm.weight", &b.k_norm, c.d_head},
                         {"model.norm.weight", &(*m)->params().final_norm, c.d_model}};
  for (const Bound& want : norms) {
    auto stored = (*store)->Floats(want.name);
    ASSERT_TRUE(stored.ok()) << want.name;
    ASSERT_NE(want.norm->w, nullptr) << want.name;
    for (int i = 0; i < want.width; ++i) ASSERT_EQ(want.norm->w[i], (*stored)[i] + 1.0f) << want.name << " " << i;
  }
}

TEST(ScoreFamilies, EachTwistIsRefusedWhereThereIsNothingToRemove) {
  auto qwen3 = LoadModel(FixtureDir("qwen3"));
  ASSERT_TRUE(qwen3.ok()) << qwen3.message();
  RunOptions no_cap;
  no_cap.no_softcap.assign((size_t)(*qwen3)->config().n_layer, true);
  EXPECT_THAT(RunModel(**qwen3, {1, 2}, no_cap).message(), HasSubstr("no attention soft cap to remove"));
  auto gemma2 = LoadModel(FixtureDir("gemma2"));
  ASSERT_TRUE(gemma2.ok()) << gemma2.message();
  RunOptions no_norm;
  no_norm.no_qk_norm.assign((size_t)(*gemma2)->config().n_layer, true);
  const std::string refused = RunModel(**gemma2, {1, 2}, no_norm).message();
  EXPECT_THAT(refused, HasSubstr("model_type gemma2 has none"));
  EXPECT_THAT(refused, HasSubstr("qwen3, olmo2, gemma3_text"));
}

// The twist runs of case.json: on the listed layers the q/k norms skipped or the attention soft cap removed,
// everything downstream recomputed.
class ScoreTwist : public ::testing::TestWithParam<std::string> {};

TEST_P(ScoreTwist, TheTwistRunMatchesTorch) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const nlohmann::json j = nlohmann::json::parse(testing::ReadBytes(FixtureDir(name) + "/case.json"));
  const std::vector<int> ids = j["ids"].get<std::vector<int>>();
  RunOptions o;
  if (j["twist"].contains("no_softcap")) o.no_softcap = j["twist"]["no_softcap"].get<std::vector<bool>>();
  if (j["twist"].contains("no_qk_norm")) o.no_qk_norm = j["twist"]["no_qk_norm"].get<std::vector<bool>>();
  auto run = RunModel(**model, ids, o);
  ASSERT_TRUE(run.ok()) << run.message();
  auto probs = ReadNpy(FixtureDir(name) + "/twist_probs.npy");
  auto hidden = ReadNpy(FixtureDir(name) + "/twist_hidden.npy");
  ASSERT_TRUE(probs.ok() && hidden.ok());
  ASSERT_EQ(run->probs.shape, probs->shape);
  ASSERT_EQ(run->hidden.shape, hidden->shape);
  float worst_p = 0, worst_h = 0;
  for (size_t i = 0; i < probs->size(); ++i)
    worst_p = std::max(worst_p, std::fabs(run->probs.data[i] - probs->data[i]));
  for (size_t i = 0; i < hidden->size(); ++i)
    worst_h = std::max(worst_h, std::fabs(run->hidden.data[i] - hidden->data[i]));
  EXPECT_LE(worst_p, 1e-4f) << name << " twist probs";
  EXPECT_LE(worst_h, 1e-4f) << name << " twist hidden";
  // The twist changes something: the plain run is not the twist's.
  auto plain = RunModel(**model, ids);
  ASSERT_TRUE(plain.ok());
  float moved = 0;
  for (size_t i = 0; i < probs->size(); ++i) moved = std::max(moved, std::fabs(plain->probs.data[i] - probs->data[i]));
  EXPECT_GT(moved, 1e-2f) << name;
}

INSTANTIATE_TEST_SUITE_P(Models, ScoreTwist,
                         ::testing::Values("qwen3", "qwen3_sliding", "olmo2", "gemma2", "gemma2_bf16", "gemma3_text"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace attnviz::model
