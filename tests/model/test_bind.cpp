// core/model/bind*.cpp: names per architecture, prefixes, skipped tensors, and the errors (missing tensor named,
// shape mismatch with both shapes).
#include "model/bind.h"

#include "model/model.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::CopyDir;
using testing::FixtureDir;
using testing::ReadBytes;
using testing::TempDir;
using testing::WriteBytes;

TEST(Bind, EveryFixtureBinds) {
  for (const std::string& name : testing::AllFixtures()) {
    auto m = LoadModel(FixtureDir(name));
    ASSERT_TRUE(m.ok()) << name << ": " << m.message();
    const ModelParams& p = (*m)->params();
    EXPECT_EQ((int)p.blocks.size(), (*m)->config().n_layer) << name;
    EXPECT_NE(p.tok_emb, nullptr) << name;
    for (const BlockParams& b : p.blocks) {
      EXPECT_NE(b.q.w, nullptr);
      EXPECT_NE(b.down.w, nullptr);
    }
  }
}

TEST(Bind, Gpt2FusedQkvAreColumnBlocksOfConv1D) {
  auto m = LoadModel(FixtureDir("gpt2"));
  ASSERT_TRUE(m.ok()) << m.message();
  const BlockParams& b = (*m)->params().blocks[0];
  const int d = (*m)->config().d_model;
  EXPECT_TRUE(b.q.in_out);
  EXPECT_EQ(b.q.ld, 3 * d);
  EXPECT_EQ(b.k.w, b.q.w + d);
  EXPECT_EQ(b.v.w, b.q.w + 2 * d);
  EXPECT_EQ(b.v.b, b.q.b + 2 * d);
  EXPECT_EQ(b.gate.w, nullptr);
}

TEST(Bind, Qwen2HasQkvBiasesOnly) {
  auto m = LoadModel(FixtureDir("qwen2"));
  ASSERT_TRUE(m.ok()) << m.message();
  const BlockParams& b = (*m)->params().blocks[1];
  EXPECT_NE(b.q.b, nullptr);
  EXPECT_NE(b.k.b, nullptr);
  EXPECT_NE(b.v.b, nullptr);
  EXPECT_EQ(b.o.b, nullptr);
  EXPECT_NE(b.gate.w, nullptr);
  EXPECT_EQ(b.attn_norm.b, nullptr);  // RMSNorm
}

TEST(Bind, F32WeightsStayInTheMap) {
  auto m = LoadModel(FixtureDir("gpt2"));
  ASSERT_TRUE(m.ok());
  EXPECT_THAT((*m)->Describe(), HasSubstr("0.0 MB converted"));
  auto h = LoadModel(FixtureDir("gpt2_f16"));
  ASSERT_TRUE(h.ok());
  EXPECT_THAT((*h)->Describe(), HasSubstr("F16"));
}

// Rewrites fixture `name` with tensor `drop` left out.
void WriteWithout(const std::string& name, const std::string& drop, const std::string& to) {
  CopyDir(FixtureDir(name), to);
  auto f = SafetensorsFile::Open(FixtureDir(name) + "/model.safetensors");
  ASSERT_TRUE(f.ok());
  std::vector<testing::RawTensor> kept;
  for (const TensorInfo& t : (*f)->tensors()) {
    if (t.name == drop) continue;
    kept.push_back({t.name, DTypeName(t.dtype), t.shape,
                    std::string(reinterpret_cast<const char*>((*f)->Bytes(t)), t.end - t.begin)});
  }
  WriteBytes(to + "/model.safetensors", testing::MakeSafetensors(kept));
}

TEST(Bind, MissingTensorIsNamed) {
  TempDir dir;
  WriteWithout("gpt2", "transformer.h.1.mlp.c_fc.weight", dir.path());
  auto m = LoadModel(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.message(), HasSubstr("gpt2 checkpoint: missing tensor 'transformer.h.1.mlp.c_fc.weight'"));

  TempDir dir2;
  WriteWithout("bert", "bert.encoder.layer.0.attention.self.key.bias", dir2.path());
  auto b = LoadModel(dir2.path());
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.message(), HasSubstr("missing tensor 'bert.encoder.layer.0.attention.self.key.bias'"));

  TempDir dir3;
  WriteWithout("qwen2", "model.layers.0.self_attn.v_proj.bias", dir3.path());
  auto q = LoadModel(dir3.path());
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.message(), HasSubstr("missing tensor 'model.layers.0.self_attn.v_proj.bias'"));

  TempDir dir4;
  WriteWithout("bert_legacy", "embeddings.LayerNorm.gamma", dir4.path());
  auto l = LoadModel(dir4.path());
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.message(), HasSubstr("missing tensor 'embeddings.LayerNorm.weight' (also tried 'embeddings.LayerNorm.gamma')"));
}

TEST(Bind, WrongArchitectureNamesTheFirstTensor) {
  TempDir dir;
  CopyDir(FixtureDir("bert"), dir.path());
  WriteBytes(dir.File("config.json"), ReadBytes(FixtureDir("gpt2") + "/config.json"));
  auto m = LoadModel(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.message(), HasSubstr("missing tensor 'wte.weight' (also tried 'transformer.wte.weight')"));
}

TEST(Bind, ShapeMismatchGivesBothShapes) {
  TempDir dir;
  testing::CopyWithConfigEdit("gpt2", dir.path(), "\"n_positions\": 40", "\"n_positions\": 48");
  auto m = LoadModel(dir.path());
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.message(), HasSubstr("tensor 'transformer.wpe.weight'"));
  EXPECT_THAT(m.message(), HasSubstr("has shape [40, 32] but config.json needs [48, 32]"));

  TempDir dir2;
  testing::CopyWithConfigEdit("llama", dir2.path(), "\"num_key_value_heads\": 2", "\"num_key_value_heads\": 3");
  auto l = LoadModel(dir2.path());
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.message(), HasSubstr("tensor 'model.layers.0.self_attn.k_proj.weight'"));
  EXPECT_THAT(l.message(), HasSubstr("has shape [32, 48] but config.json needs [48, 48]"));
}

}  // namespace
}  // namespace attnviz::model
