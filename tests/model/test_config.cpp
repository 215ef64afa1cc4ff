// core/model/config.*: every fixture's config.json, defaults, and the refusals (each naming the key).
#include "model/config.h"

#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::FixtureDir;

TEST(ModelConfig, ReadsEveryFixture) {
  auto g = ReadModelConfig(FixtureDir("gpt2") + "/config.json");
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ(g->family, "gpt2");
  EXPECT_FALSE(g->recipe.post_norm);
  EXPECT_EQ(g->n_layer, 2);
  EXPECT_EQ(g->n_head, 4);
  EXPECT_EQ(g->d_head, 8);
  EXPECT_EQ(g->d_ff, 128);  // n_inner null -> 4 n_embd
  EXPECT_EQ(g->max_positions, 40);
  EXPECT_EQ(g->activation, Activation::kGeluTanh);
  auto g16 = ReadModelConfig(FixtureDir("gpt2_f16") + "/config.json");
  ASSERT_TRUE(g16.ok());
  EXPECT_EQ(g16->d_ff, 40);
  auto b = ReadModelConfig(FixtureDir("bert") + "/config.json");
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->family, "bert");
  EXPECT_TRUE(b->recipe.post_norm && b->recipe.bidirectional && b->recipe.masked_lm);
  EXPECT_EQ(b->activation, Activation::kGeluErf);
  EXPECT_DOUBLE_EQ(b->norm_eps, 1e-12);
  EXPECT_EQ(b->type_vocab_size, 2);
  auto l = ReadModelConfig(FixtureDir("llama") + "/config.json");
  ASSERT_TRUE(l.ok()) << l.message();
  EXPECT_EQ(l->family, "llama");
  EXPECT_TRUE(l->recipe.rope && l->recipe.gated_mlp);
  EXPECT_EQ(l->n_head, 6);
  EXPECT_EQ(l->n_kv_head, 2);
  EXPECT_EQ(l->d_head, 16);  // head_dim given, != hidden_size / heads
  EXPECT_EQ(l->q_dim(), 96);
  EXPECT_EQ(l->rope_scaling.kind, RopeScaling::Kind::kLlama3);
  EXPECT_EQ(l->rope_scaling.original_max_position_embeddings, 32);
  auto q = ReadModelConfig(FixtureDir("qwen2") + "/config.json");
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_TRUE(q->qkv_bias);
  EXPECT_FALSE(q->o_bias);
  EXPECT_TRUE(q->tie_word_embeddings);
  EXPECT_EQ(q->rope_scaling.kind, RopeScaling::Kind::kLinear);
  EXPECT_DOUBLE_EQ(q->rope_scaling.factor, 2.0);
  auto m = ReadModelConfig(FixtureDir("mistral_sharded") + "/config.json");
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_EQ(m->sliding_window, 8);
  EXPECT_EQ(m->n_kv_head, 1);
  EXPECT_THAT(m->Describe(), HasSubstr("mistral: 2 layers, 4 heads x 8 (1 key/value heads)"));
}

Result<ModelConfig> Parse(const std::string& text) { return ParseModelConfig(text, "config.json"); }

// Found by fuzz_model_config: a number beyond double's range is nlohmann's out_of_range, not a parse_error; it
// aborted the program instead of being a message.
TEST(ModelConfig, ANumberBeyondDoubleRangeIsAnErrorNotAnAbort) {
  auto c = Parse(R"({"model_type": "gpt2", "layer_norm_epsilon": 1e55555})");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(c.message(), HasSubstr("number overflow"));
}

TEST(ModelConfig, UnknownModelTypeIsRefusedByName) {
  auto c = Parse(R"({"model_type": "xlnet", "num_layers": 2})");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.message(), HasSubstr("model_type \"xlnet\" is not supported"));
  EXPECT_THAT(c.message(), HasSubstr("gpt2, bert, llama, qwen2, mistral"));
  EXPECT_THAT(Parse(R"({"n_layer": 2})").message(), HasSubstr("missing \"model_type\""));
}

TEST(ModelConfig, BadValuesNameTheKeyAndRange) {
  auto a = Parse(R"({"model_type": "gpt2", "n_layer": 0, "n_head": 2, "n_embd": 8, "vocab_size": 10})");
  EXPECT_THAT(a.message(), HasSubstr("\"n_layer\" is 0; allowed: an integer in [1, 1024]"));
  auto b = Parse(R"({"model_type": "gpt2", "n_layer": 1, "n_head": "two", "n_embd": 8, "vocab_size": 10})");
  EXPECT_THAT(b.message(), HasSubstr("\"n_head\" is \"two\""));
  auto c = Parse(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 3, "n_embd": 8, "vocab_size": 10})");
  EXPECT_THAT(c.message(), HasSubstr("n_embd 8 is not a multiple of n_head 3"));
  auto d = Parse(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 2, "vocab_size": 10})");
  EXPECT_THAT(d.message(), HasSubstr("missing key \"n_embd\""));
  auto e = Parse(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 8, "vocab_size": 10,
                     "activation_function": "mish"})");
  EXPECT_THAT(e.message(), HasSubstr("\"activation_function\" is \"mish\"; supported:"));
  auto f = Parse(R"({"model_type": "bert", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
                     "intermediate_size": 16, "vocab_size": 10, "position_embedding_type": "relative_key"})");
  EXPECT_THAT(f.message(), HasSubstr("\"position_embedding_type\" is \"relative_key\"; supported: absolute"));
  auto g = Parse(R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 6,
                     "num_key_value_heads": 4, "hidden_size": 48, "intermediate_size": 16, "vocab_size": 10})");
  EXPECT_THAT(g.message(), HasSubstr("num_attention_heads 6 is not a multiple of num_key_value_heads 4"));
  auto h = Parse(R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2,
                     "hidden_size": 8, "intermediate_size": 16, "vocab_size": 10, "rms_norm_eps": -1})");
  EXPECT_THAT(h.message(), HasSubstr("\"rms_norm_eps\" is -1; allowed: a number in [0, 1]"));
  EXPECT_THAT(Parse("{\"model_type\": ").message(), HasSubstr("not valid JSON at byte"));
  // roberta: the position rows before pad_token_id + 1 must exist.
  auto r = Parse(R"({"model_type": "roberta", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
                     "intermediate_size": 16, "vocab_size": 10, "max_position_embeddings": 10, "pad_token_id": 9})");
  EXPECT_THAT(r.message(), HasSubstr("\"pad_token_id\" is 9; allowed: an integer in [0, 8]"));
}

TEST(ModelConfig, RobertaPositionsStartAfterThePadId) {
  auto r = ReadModelConfig(FixtureDir("roberta") + "/config.json");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->family, "roberta");
  EXPECT_EQ(r->position_offset, 2);  // pad_token_id 1
  EXPECT_EQ(r->max_positions, 32);   // max_position_embeddings 34
  EXPECT_EQ(r->type_vocab_size, 1);
  EXPECT_TRUE(r->recipe.post_norm && r->recipe.bidirectional && r->recipe.masked_lm);
  auto x = ReadModelConfig(FixtureDir("xlm_roberta") + "/config.json");
  ASSERT_TRUE(x.ok()) << x.message();
  EXPECT_EQ(x->family, "roberta");
  EXPECT_EQ(x->model_type, "xlm-roberta");
  EXPECT_EQ(x->position_offset, 4);  // pad_token_id 3
}

const char* kLlama = R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2,
                         "hidden_size": 8, "intermediate_size": 16, "vocab_size": 10, "rope_scaling": %s})";
std::string WithRope(const std::string& rope) {
  char b[1024];
  std::snprintf(b, sizeof b, kLlama, rope.c_str());
  return b;
}

TEST(ModelConfig, RopeScalingKinds) {
  auto none = Parse(WithRope("null"));
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_EQ(none->rope_scaling.kind, RopeScaling::Kind::kNone);
  EXPECT_EQ(none->n_kv_head, 2);  // default: num_attention_heads
  EXPECT_DOUBLE_EQ(none->rope_theta, 10000.0);
  auto lin = Parse(WithRope(R"({"type": "linear", "factor": 4.0})"));
  ASSERT_TRUE(lin.ok()) << lin.message();
  EXPECT_EQ(lin->rope_scaling.kind, RopeScaling::Kind::kLinear);
  auto dyn = Parse(WithRope(R"({"type": "dynamic", "factor": 2.0})"));
  ASSERT_FALSE(dyn.ok());
  EXPECT_THAT(dyn.message(), HasSubstr("rope type \"dynamic\" is not supported"));
  auto yarn = Parse(WithRope(R"({"rope_type": "yarn", "factor": 2.0})"));
  EXPECT_THAT(yarn.message(), HasSubstr("rope type \"yarn\" is not supported: its frequency rescaling is not built "
                                            "(supported: default, linear, llama3, longrope)"));
  auto partial = Parse(WithRope(R"({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0})"));
  EXPECT_THAT(partial.message(), HasSubstr("rope_scaling: missing key \"high_freq_factor\""));
  auto untyped = Parse(WithRope(R"({"factor": 8.0})"));
  EXPECT_THAT(untyped.message(), HasSubstr("missing \"rope_type\""));
}

TEST(ModelConfig, Qwen2SlidingWindowIsRefused) {
  auto q = Parse(R"({"model_type": "qwen2", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
                     "intermediate_size": 16, "vocab_size": 10, "use_sliding_window": true})");
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.message(), HasSubstr("\"use_sliding_window\" is true"));
}

TEST(ModelConfig, MissingFile) {
  auto c = ReadModelConfig("/nonexistent/config.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.message(), HasSubstr("/nonexistent/config.json: cannot open"));
}

}  // namespace
}  // namespace attnviz::model
