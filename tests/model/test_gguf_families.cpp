// GGUF files of the newer families (qwen3, gemma2, gptneox), written by tests/fixtures/gguf/make_gguf_fixtures.py as
// llama.cpp's convert_hf_to_gguf.py writes them (F32) from the torch fixtures: the file and its folder give the
// same config, maps and residual stream bit for bit; what the file lacks or holds wrong is refused by name.
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gguf_test_util.h"
#include "model/gguf_config.h"
#include "model/gguf_weights.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::GgufFixture;
using testing::TempDir;
using testing::WriteBytes;
using ::testing::HasSubstr;

std::vector<int> CaseIds(const std::string& folder) {
  std::ifstream in(folder + "/case.json");
  return nlohmann::json::parse(in)["ids"].get<std::vector<int>>();
}

struct FamilyCase {
  const char* gguf;       // under tests/fixtures/gguf/models
  const char* folder;     // under tests/fixtures/models
  // A config.json edit that makes the folder say what the file says (gemma2: llama.cpp's query scaling), or none.
  const char* from = nullptr;
  const char* to = nullptr;
};

class GgufFamily : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(GgufFamily, SameMapsAsTheFolder) {
  const FamilyCase& p = GetParam();
  TempDir dir;
  std::string folder = testing::FixtureDir(p.folder);
  if (p.from) {
    testing::CopyWithConfigEdit(p.folder, dir.File("folder"), p.from, p.to);
    folder = dir.File("folder");
  }
  auto gguf = LoadGgufModel(GgufFixture(std::string("models/") + p.gguf));
  ASSERT_TRUE(gguf.ok()) << gguf.message();
  auto hf = LoadModel(folder);
  ASSERT_TRUE(hf.ok()) << hf.message();
  const ModelConfig &a = (*gguf)->config(), &b = (*hf)->config();
  // The same but for the name: general.architecture (gptneox) is not config.json's model_type (gpt_neox).
  EXPECT_EQ(a.Describe().substr(a.Describe().find(':')), b.Describe().substr(b.Describe().find(':')));
  EXPECT_EQ(a.family, b.family);
  EXPECT_EQ(a.qkv_bias, b.qkv_bias);
  EXPECT_EQ(a.o_bias, b.o_bias);
  EXPECT_EQ(a.mlp_bias, b.mlp_bias);
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings);
  EXPECT_EQ(a.activation, b.activation);
  EXPECT_EQ(a.rope_dim(), b.rope_dim());
  EXPECT_EQ(a.recipe.parallel_residual, b.recipe.parallel_residual);
  EXPECT_EQ(a.attn_softcap, b.attn_softcap);
  EXPECT_EQ(a.final_softcap, b.final_softcap);
  EXPECT_EQ(a.query_pre_attn_scalar, b.query_pre_attn_scalar);
  EXPECT_EQ(a.scale_embeddings, b.scale_embeddings);
  for (int l = 0; l < a.n_layer; ++l) EXPECT_EQ(a.WindowOf(l), b.WindowOf(l)) << l;
  EXPECT_FLOAT_EQ((float)a.norm_eps, (float)b.norm_eps);
  const std::vector<int> ids = CaseIds(testing::FixtureDir(p.folder));
  auto x = RunModel(**gguf, ids);
  ASSERT_TRUE(x.ok()) << x.message();
  auto y = RunModel(**hf, ids);
  ASSERT_TRUE(y.ok()) << y.message();
  ASSERT_EQ(x->probs.size(), y->probs.size());
  ASSERT_EQ(x->hidden.size(), y->hidden.size());
  EXPECT_EQ(0, std::memcmp(x->probs.data.data(), y->probs.data.data(), x->probs.size() * 4)) << "probs differ";
  EXPECT_EQ(0, std::memcmp(x->hidden.data.data(), y->hidden.data.data(), x->hidden.size() * 4)) << "hidden differs";
  // Whole (every tensor dequantized at load) and per layer give the same maps.
  auto whole = LoadGgufModel(GgufFixture(std::string("models/") + p.gguf), GgufWeights::kWhole);
  ASSERT_TRUE(whole.ok()) << whole.message();
  auto z = RunModel(**whole, ids);
  ASSERT_TRUE(z.ok()) << z.message();
  EXPECT_EQ(0, std::memcmp(x->probs.data.data(), z->probs.data.data(), x->probs.size() * 4));
}

INSTANTIATE_TEST_SUITE_P(
    Families, GgufFamily,
    ::testing::Values(FamilyCase{"qwen3.gguf", "qwen3"},
                      // the file has no query_pre_attn_scalar: llama.cpp scales by 1/sqrt(head_dim) = 1/sqrt(16)
                      FamilyCase{"gemma2.gguf", "gemma2", "\"query_pre_attn_scalar\": 24", "\"query_pre_attn_scalar\": 16"},
                      FamilyCase{"gptneox.gguf", "gpt_neox"}),
    [](const auto& info) { return std::string(info.param.folder); });

TEST(GgufFamily, Gemma2FileScalesAsLlamaCppDoesNotAsTheFoldersScalar) {
  // The fixture's query_pre_attn_scalar (24) is not its head width (16): convert_hf_to_gguf.py drops it, so the
  // file's maps differ from the folder's own (the released Gemma 2 models have scalar = head width, or 27B's rule).
  auto gguf = LoadGgufModel(GgufFixture("models/gemma2.gguf"));
  ASSERT_TRUE(gguf.ok()) << gguf.message();
  EXPECT_EQ((*gguf)->config().query_pre_attn_scalar, 16.0);
  auto hf = LoadModel(testing::FixtureDir("gemma2"));
  ASSERT_TRUE(hf.ok()) << hf.message();
  EXPECT_EQ((*hf)->config().query_pre_attn_scalar, 24.0);
}

TEST(GgufFamily, GemmaNormsAreReadBackAsW) {
  // gemma2.gguf stores 1 + w; the store holds w again (the folder's), which the bind turns into 1 + w.
  auto file = GgufFile::Open(GgufFixture("models/gemma2.gguf"));
  ASSERT_TRUE(file.ok()) << file.message();
  auto cfg = GgufModelConfig(**file);
  ASSERT_TRUE(cfg.ok()) << cfg.message();
  auto store = GgufTensorStore(*file, *cfg);
  ASSERT_TRUE(store.ok()) << store.message();
  auto folder = LoadModel(testing::FixtureDir("gemma2"));
  ASSERT_TRUE(folder.ok());
  const GgufTensor* t = (*file)->FindTensor("blk.1.post_ffw_norm.weight");
  ASSERT_NE(t, nullptr);
  const float* stored = reinterpret_cast<const float*>((*file)->Bytes(*t));
  const float* bound = (*folder)->params().blocks[1].mlp_out_norm.w;  // the folder's 1 + w
  for (int i = 0; i < 48; ++i) EXPECT_EQ(stored[i], bound[i]) << i;
}

TEST(GgufFamily, GptNeoxQkvIsPutBackPerHead) {
  // The file's attn_qkv is q | k | v (GPTNeoXModel reorders query_key_value); bound q rows equal the folder's.
  auto gguf = LoadGgufModel(GgufFixture("models/gptneox.gguf"));
  ASSERT_TRUE(gguf.ok()) << gguf.message();
  auto hf = LoadModel(testing::FixtureDir("gpt_neox"));
  ASSERT_TRUE(hf.ok()) << hf.message();
  const ModelConfig& c = (*hf)->config();
  EXPECT_EQ((*gguf)->config().rotary_dim, 4);
  const BlockParams &a = (*gguf)->params().blocks[1], &b = (*hf)->params().blocks[1];
  for (const auto& [x, y] : {std::pair{a.q, b.q}, std::pair{a.k, b.k}, std::pair{a.v, b.v}}) {
    ASSERT_EQ(x.out, y.out);
    for (int r = 0; r < x.out; ++r)
      ASSERT_EQ(0, std::memcmp(x.w + (size_t)r * x.ld, y.w + (size_t)r * y.ld, (size_t)c.d_model * 4)) << r;
    ASSERT_EQ(0, std::memcmp(x.b, y.b, (size_t)x.out * 4));
  }
}

// A fixture with one metadata key or tensor name replaced (same length), written to a temp file.
std::string Patched(const std::string& fixture, const std::string& from, const std::string& to) {
  std::string bytes = testing::ReadBytes(GgufFixture("models/" + fixture));
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(from.size(), to.size());
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

std::string U32(const std::string& key, uint32_t v) {
  testing::GgufBytes b;
  b.KvU32(key, v);
  return b.str();
}

std::string Key(const std::string& key) {  // the length-prefixed key as the file holds it
  testing::GgufBytes b;
  b.Str(key);
  return b.str();
}

TEST(GgufFamily, RefusesWhatItDoesNotReadWithItsMessage) {
  TempDir dir;
  struct Edit {
    std::string fixture, from, to, message;
  };
  const std::vector<Edit> edits = {
      // qwen3
      {"qwen3.gguf", "blk.1.attn_k_norm.weight", "blk.1.attn_k_NORM.weight", "missing tensor 'blk.1.attn_k_norm.weight'"},
      {"qwen3.gguf", U32("qwen3.attention.key_length", 16), U32("qwen3.attention.key_length", 8),
       "qwen3.attention.value_length = 16 but qwen3.attention.key_length = 8"},
      // gemma2
      {"gemma2.gguf", "blk.2.post_ffw_norm.weight", "blk.2.post_ffw_NORM.weight",
       "missing tensor 'blk.2.post_ffw_norm.weight'"},
      {"gemma2.gguf", "blk.0.post_attention_norm.weight", "blk.0.post_attention_NORM.weight",
       "missing tensor 'blk.0.post_attention_norm.weight'"},
      {"gemma2.gguf", U32("gemma2.attention.sliding_window", 5), U32("gemma2.attention.sliding_window", 0),
       "key 'gemma2.attention.sliding_window' = 0 is out of range"},
      // gptneox
      {"gptneox.gguf", Key("gptneox.use_parallel_residual"), Key("gptneox.use_parallel_residuaX"),
       "missing key 'gptneox.use_parallel_residual'"},
      {"gptneox.gguf", Key("gptneox.attention.layer_norm_epsilon"), Key("gptneox.attention.layer_norm_epsiloX"),
       "missing key 'gptneox.attention.layer_norm_epsilon'"},
      {"gptneox.gguf", U32("gptneox.rope.dimension_count", 4), U32("gptneox.rope.dimension_count", 5),
       "gptneox.rope.dimension_count = 5 but the head width = 16"},
      {"gptneox.gguf", "blk.1.attn_qkv.bias", "blk.1.attn_QKV.bias", "missing tensor 'blk.1.attn_qkv.bias'"},
  };
  for (const Edit& e : edits) {
    SCOPED_TRACE(e.fixture + ": " + e.to);
    WriteBytes(dir.File("m.gguf"), Patched(e.fixture, e.from, e.to));
    auto m = LoadGgufModel(dir.File("m.gguf"));
    ASSERT_FALSE(m.ok());
    EXPECT_THAT(m.message(), HasSubstr(e.message));
    EXPECT_THAT(m.message(), HasSubstr("m.gguf"));
  }
}

}  // namespace
}  // namespace attnviz::model
