// GGUF files of the newer families (qwen3, gemma2, gptneox, phi3, olmo2, gemma3), written by tests/fixtures/gguf/make_gguf_fixtures.py as
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
  for (int l = 0; l < a.n_layer; ++l) {
    EXPECT_EQ(a.WindowOf(l), b.WindowOf(l)) << l;
    EXPECT_EQ(a.LocalRope(l), b.LocalRope(l)) << l;
  }
  EXPECT_EQ(a.sliding_window, b.sliding_window);
  EXPECT_EQ(a.rope_theta, b.rope_theta);
  if (!b.layer_local_rope.empty()) {
    EXPECT_EQ(a.rope_local_theta, b.rope_local_theta);
  }
  // The rope scaling: longrope's factors (float32 in the file, float32 where the tables use them) and positions.
  EXPECT_EQ(a.rope_scaling.kind, b.rope_scaling.kind);
  EXPECT_EQ(a.rope_scaling.factor, b.rope_scaling.factor);
  EXPECT_EQ(a.rope_scaling.long_factor, b.rope_scaling.long_factor);
  EXPECT_EQ(a.rope_scaling.short_factor, b.rope_scaling.short_factor);
  EXPECT_EQ((float)a.rope_scaling.attention_factor, (float)b.rope_scaling.attention_factor);
  if (b.rope_scaling.kind == RopeScaling::Kind::kLongRope) {
    EXPECT_EQ(a.rope_scaling.original_max_position_embeddings, b.rope_scaling.original_max_position_embeddings);
  }
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
                      FamilyCase{"gptneox.gguf", "gpt_neox"},
                      // longrope as rope_factors_long/short.weight; the 24 ids (more than the original 16
                      // positions) turn by the long factors
                      FamilyCase{"phi3.gguf", "phi3"},
                      FamilyCase{"olmo2.gguf", "olmo2"},
                      // as gemma2: 1/sqrt(head_dim 16), not the folder's query_pre_attn_scalar 32
                      FamilyCase{"gemma3.gguf", "gemma3_text", "\"query_pre_attn_scalar\": 32",
                                 "\"query_pre_attn_scalar\": 16"}),
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

TEST(GgufFamily, Phi3ShortTextTurnsByTheShortFactors) {
  // 12 ids, within the original 16 positions: rope_factors_short.weight, as the folder's short_factor.
  auto gguf = LoadGgufModel(GgufFixture("models/phi3.gguf"));
  ASSERT_TRUE(gguf.ok()) << gguf.message();
  auto hf = LoadModel(testing::FixtureDir("phi3"));
  ASSERT_TRUE(hf.ok()) << hf.message();
  std::vector<int> ids = CaseIds(testing::FixtureDir("phi3"));
  ids.resize(12);
  auto x = RunModel(**gguf, ids);
  ASSERT_TRUE(x.ok()) << x.message();
  auto y = RunModel(**hf, ids);
  ASSERT_TRUE(y.ok()) << y.message();
  ASSERT_EQ(x->hidden.size(), y->hidden.size());
  EXPECT_EQ(0, std::memcmp(x->probs.data.data(), y->probs.data.data(), x->probs.size() * 4)) << "probs differ";
  EXPECT_EQ(0, std::memcmp(x->hidden.data.data(), y->hidden.data.data(), x->hidden.size() * 4)) << "hidden differs";
  EXPECT_EQ((*gguf)->config().rope_scaling.short_factor, (std::vector<double>{1.0, 1.25, 1.5, 2.0}));
}

TEST(GgufFamily, Gemma3FileWithoutAPatternMakesEverySixthLayerGlobal) {
  // gemma3.gguf holds its folder's layer_types as gemma3.attention.sliding_window_pattern; without the key (as
  // Gemma3Model writes files) llama.cpp's default 6 applies: all three layers slide, by the local base.
  TempDir dir;
  std::string bytes = testing::ReadBytes(GgufFixture("models/gemma3.gguf"));
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"gemma3.attention.sliding_window_pattern",
                                                                     "gemma3.attention.sliding_window_patterX"}}) {
    const size_t at = bytes.find(from);
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, from.size(), to);
  }
  WriteBytes(dir.File("m.gguf"), bytes);
  auto m = LoadGgufModel(dir.File("m.gguf"));
  ASSERT_TRUE(m.ok()) << m.message();
  for (int l = 0; l < 3; ++l) {
    EXPECT_EQ(m->get()->config().WindowOf(l), 5) << l;
    EXPECT_TRUE(m->get()->config().LocalRope(l)) << l;
  }
  auto fixture = LoadGgufModel(GgufFixture("models/gemma3.gguf"));
  ASSERT_TRUE(fixture.ok()) << fixture.message();
  EXPECT_EQ((*fixture)->config().WindowOf(2), 0);
  EXPECT_FALSE((*fixture)->config().LocalRope(2));
  EXPECT_EQ((*fixture)->config().rope_local_theta, 10000.0);
  EXPECT_EQ((*fixture)->config().rope_scaling.kind, RopeScaling::Kind::kLinear);
}

// The keys of a tensorless file (GgufModelConfig reads keys only; vocab_size stands for token_embd's rows).
struct KeysFile {
  testing::GgufBytes kv;
  uint64_t n = 0;
  KeysFile& U32(const std::string& key, uint32_t v) { return ++n, kv.KvU32(key, v), *this; }
  KeysFile& F32(const std::string& key, float v) { return ++n, kv.Str(key).Put<uint32_t>(6).Put(v), *this; }
  KeysFile& Str(const std::string& key, const std::string& v) { return ++n, kv.KvStr(key, v), *this; }
  std::string bytes() const {
    testing::GgufBytes b;
    b.Header(3, 0, n).Raw(kv.str());
    return b.str();
  }
};

KeysFile Base(const std::string& arch) {
  KeysFile k;
  k.Str("general.architecture", arch)
      .U32(arch + ".block_count", 4)
      .U32(arch + ".embedding_length", 64)
      .U32(arch + ".feed_forward_length", 96)
      .U32(arch + ".context_length", 64)
      .U32(arch + ".attention.head_count", 4)
      .U32(arch + ".vocab_size", 100);
  return k;
}

TEST(GgufFamily, SlidingPatternsAsLlamaCppReadsThem) {
  TempDir dir;
  // gemma3, a number: layer l slides iff l % 3 < 2
  WriteBytes(dir.File("g.gguf"),
             Base("gemma3").U32("gemma3.attention.sliding_window", 7).U32("gemma3.attention.sliding_window_pattern", 3).bytes());
  auto file = GgufFile::Open(dir.File("g.gguf"));
  ASSERT_TRUE(file.ok()) << file.message();
  auto c = GgufModelConfig(**file);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->layer_window, (std::vector<int>{7, 7, 0, 7}));
  EXPECT_EQ(c->layer_local_rope, (std::vector<bool>{true, true, false, true}));
  // gemma3 without a window: no sliding layer and no second base
  WriteBytes(dir.File("g.gguf"), Base("gemma3").F32("gemma3.rope.freq_base_swa", 5000).bytes());
  file = GgufFile::Open(dir.File("g.gguf"));
  ASSERT_TRUE(file.ok()) << file.message();
  c = GgufModelConfig(**file);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_TRUE(c->layer_local_rope.empty());
  for (int l = 0; l < 4; ++l) EXPECT_EQ(c->WindowOf(l), 0);
}

TEST(GgufFamily, RefusesWhatTheNewerFamiliesDoNotBuild) {
  TempDir dir;
  const std::vector<std::pair<KeysFile, std::string>> files = {
      {Base("olmo2").U32("olmo2.attention.sliding_window", 8), "'olmo2.attention.sliding_window' is set"},
      {Base("gemma3").F32("gemma3.attn_logit_softcapping", 50), "'gemma3.attn_logit_softcapping' is set"},
  };
  for (const auto& [keys, message] : files) {
    SCOPED_TRACE(message);
    WriteBytes(dir.File("k.gguf"), keys.bytes());
    auto file = GgufFile::Open(dir.File("k.gguf"));
    ASSERT_TRUE(file.ok()) << file.message();
    auto c = GgufModelConfig(**file);
    ASSERT_FALSE(c.ok());
    EXPECT_THAT(c.message(), HasSubstr(message));
    EXPECT_THAT(c.message(), HasSubstr("k.gguf"));
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
      // phi3
      {"phi3.gguf", "rope_factors_short.weight", "rope_factors_SHORT.weight",
       "missing tensor 'rope_factors_short.weight'"},
      {"phi3.gguf", "blk.1.attn_qkv.weight", "blk.1.attn_QKV.weight", "missing tensor 'blk.1.attn_qkv.weight'"},
      {"phi3.gguf", "blk.0.ffn_up.weight", "blk.0.ffn_UP.weight", "missing tensor 'blk.0.ffn_up.weight'"},
      // rotary on 4 of the 8 dims: 2 frequencies, and the file's 4 long factors are the error
      {"phi3.gguf", U32("phi3.rope.dimension_count", 8), U32("phi3.rope.dimension_count", 4),
       "tensor 'rope_factors_long.weight'"},
      // olmo2
      {"olmo2.gguf", "blk.0.attn_q_norm.weight", "blk.0.attn_q_NORM.weight", "missing tensor 'blk.0.attn_q_norm.weight'"},
      {"olmo2.gguf", "blk.1.post_ffw_norm.weight", "blk.1.post_ffw_NORM.weight",
       "missing tensor 'blk.1.post_ffw_norm.weight'"},
      // gemma3
      {"gemma3.gguf", "blk.2.attn_k_norm.weight", "blk.2.attn_k_NORM.weight", "missing tensor 'blk.2.attn_k_norm.weight'"},
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
