// Issue 25, hardening round 2 (the model side): deep JSON, quoted values, the run's memory budget, non-finite
// weights and activations, the safetensors overlap check, the shard index at scale.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "model/config.h"
#include "model/model.h"
#include "model/run.h"
#include "model/safetensors.h"
#include "model/tensor_store.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::CopyDir;
using testing::FixtureDir;
using testing::ReadBytes;
using testing::TempDir;
using testing::WriteBytes;

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// A value nested 300,000 deep: quoting it with dump() recursed once per level (a crash); it is refused at parse.
TEST(HardeningJson, DeeplyNestedConfigValueIsRefusedNotACrash) {
  const std::string text = "{\"model_type\": \"gpt2\", \"n_head\": " + Nested(300000) + "}";
  auto c = ParseModelConfig(text, "deep/config.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), ::testing::HasSubstr("deep/config.json: JSON nests deeper than 64 levels"));
}

// Within the depth limit the value is still quoted, through the bounded rendering.
TEST(HardeningJson, NestedValueWithinTheLimitIsQuotedShort) {
  const std::string text = "{\"model_type\": \"gpt2\", \"n_layer\": " + Nested(60) + "}";
  auto c = ParseModelConfig(text, "config.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), ::testing::HasSubstr("\"n_layer\" is [[[["));
  EXPECT_LT(c.status().message().size(), 400u) << c.status().message();
}

TEST(HardeningJson, SafetensorsHeaderNestedDeepIsRefused) {
  TempDir dir;
  std::string header = "{\"a\": {\"dtype\": \"F32\", \"shape\": " + Nested(200000) + ", \"data_offsets\": [0, 0]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  WriteBytes(dir.File("m.safetensors"), testing::SafetensorsBytes(header, ""));
  auto f = SafetensorsFile::Open(dir.File("m.safetensors"));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), ::testing::HasSubstr("nests deeper than 64 levels"));
}

// Values from a file are quoted at most 80 characters, then "..." and the full length.
TEST(HardeningMessages, LongValuesAreCappedAndNulIsEscaped) {
  const std::string type(2000000, 'q');
  auto c = ParseModelConfig("{\"model_type\": \"" + type + "\"}", "config.json");
  ASSERT_FALSE(c.ok());
  EXPECT_LT(c.status().message().size(), 300u);
  EXPECT_THAT(c.status().message(), ::testing::HasSubstr("... (2000000 bytes in all)"));
  // A NUL inside a value is shown escaped, and what follows it is not lost.
  auto n = ParseModelConfig(std::string("{\"model_type\": \"gp\\u0000t9\"}"), "config.json");
  ASSERT_FALSE(n.ok());
  EXPECT_THAT(n.status().message(), ::testing::HasSubstr("gp\\x00t9"));
  EXPECT_EQ(CappedValue(std::string(81, 'a')), std::string(80, 'a') + "... (81 bytes in all)");
  EXPECT_EQ(CappedValue("\xea\xb0\x80"), "\xea\xb0\x80");  // one character, kept whole
}

// The run's memory is estimated from the config and the token count before anything is allocated.
TEST(HardeningRun, OverTheMemoryLimitIsRefusedWithTheEstimate) {
  auto model = LoadModel(FixtureDir("gpt2"));
  ASSERT_TRUE(model.ok()) << model.status().message();
  std::vector<int> ids(40, 1);
  ::setenv("ATTNVIZ_MEMORY_LIMIT", "20K", 1);
  auto run = RunModel(**model, ids);
  Status streamed = RunModel(**model, ids, {}, nullptr);
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), ::testing::HasSubstr("a run over 40 tokens needs about"));
  EXPECT_THAT(run.status().message(), ::testing::HasSubstr("more than the limit of 20480 bytes"));
  EXPECT_FALSE(streamed.ok());
  EXPECT_GT(RunMemoryBytes((*model)->config(), 40, true), RunMemoryBytes((*model)->config(), 40, false));
  EXPECT_TRUE(RunModel(**model, ids).ok());  // the default limit lets it run
}

// Patches float `value` into `count` elements (all when 0) from `index` of tensor `name` (F32, or F16 NaN/Inf).
void PatchElement(const std::string& path, const std::string& name, size_t index, float value, size_t count = 1) {
  auto f = SafetensorsFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  const TensorInfo* t = (*f)->Find(name);
  ASSERT_NE(t, nullptr) << name;
  if (count == 0) count = t->elements;
  std::string bytes = ReadBytes(path);
  for (size_t i = index; i < index + count; ++i) {
    if (t->dtype == DType::kF16) {
      const uint16_t h = std::isnan(value) ? 0x7e00 : 0x7c00;  // NaN or +Inf
      std::memcpy(&bytes[t->begin + 2 * i], &h, 2);
    } else {
      std::memcpy(&bytes[t->begin + 4 * i], &value, 4);
    }
  }
  f = Result<std::shared_ptr<const SafetensorsFile>>(Status::Error("closed"));  // unmapped before the write
  WriteBytes(path, bytes);
}

TEST(HardeningRun, NonFiniteWeightsAreRefusedOnLoadNamingTheTensor) {
  TempDir dir;
  CopyDir(FixtureDir("gpt2"), dir.File("m"));
  PatchElement(dir.File("m/model.safetensors"), "transformer.h.1.mlp.c_proj.weight", 5, NAN);
  auto m = LoadModel(dir.File("m"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), ::testing::HasSubstr("tensor 'transformer.h.1.mlp.c_proj.weight': element 5 is NaN"));

  CopyDir(FixtureDir("gpt2_f16"), dir.File("h"));
  const std::string name = "h.0.ln_1.weight";
  PatchElement(dir.File("h/model.safetensors"), name, 0, INFINITY);
  auto h = LoadModel(dir.File("h"));
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.status().message(), ::testing::HasSubstr("tensor '" + name + "': element 0 is Inf"));
}

// A tensor of millions of weights is checked in chunks on every core: still the first bad element is named, whichever
// chunk (and thread) finds a later one first.
TEST(HardeningRun, TheFirstNonFiniteElementOfALargeTensorIsNamed) {
  TempDir dir;
  const int vocab = 80000, d = 32;  // wte: 2.56M floats, three chunks of 2^20
  testing::CopyWithConfigEdit("gpt2", dir.File("m"), "\"vocab_size\": 100", "\"vocab_size\": " + std::to_string(vocab));
  auto f = SafetensorsFile::Open(FixtureDir("gpt2") + "/model.safetensors");
  ASSERT_TRUE(f.ok()) << f.status().message();
  for (const std::vector<size_t>& bad : {std::vector<size_t>{1500000, 2100000}, std::vector<size_t>{(size_t)vocab * d - 1}}) {
    std::vector<testing::RawTensor> tensors;
    for (const TensorInfo& t : (*f)->tensors()) {
      if (t.name != "wte.weight" && t.name != "transformer.wte.weight") {
        tensors.push_back({t.name, DTypeName(t.dtype), t.shape,
                           std::string(reinterpret_cast<const char*>((*f)->Bytes(t)), t.end - t.begin)});
        continue;
      }
      std::vector<float> wte((size_t)vocab * d, 0.01f);
      for (size_t at : bad) wte[at] = NAN;
      tensors.push_back({t.name, "F32", {vocab, d}, testing::FloatBytes(wte)});
    }
    WriteBytes(dir.File("m/model.safetensors"), testing::MakeSafetensors(tensors));
    auto m = LoadModel(dir.File("m"));
    ASSERT_FALSE(m.ok());
    EXPECT_THAT(m.status().message(), ::testing::HasSubstr("element " + std::to_string(bad.front()) + " is NaN"));
  }
}

// Finite weights that overflow in the forward pass: the run stops naming the layer and the stage.
TEST(HardeningRun, OverflowingActivationsStopTheRunNamingLayerAndStage) {
  TempDir dir;
  CopyDir(FixtureDir("gpt2"), dir.File("m"));
  PatchElement(dir.File("m/model.safetensors"), "transformer.h.1.mlp.c_fc.weight", 0, 3e38f, /*count=all*/ 0);
  auto m = LoadModel(dir.File("m"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto run = RunModel(**m, std::vector<int>{1, 2, 3, 4, 5});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), ::testing::HasSubstr("layer 1: the MLP output holds a value that is not a finite"));
}

// Each stage that can first turn non-finite is the one named: the norms, the attention output, the MLP output and
// the residual stream, in the three families' orders (the checks ride on the passes that make the values).
struct OverflowCase {
  const char* fixture;
  const char* tensor;
  size_t count;  // elements patched from 0 (0: all)
  float value;
  const char* stage;
  const char* also = nullptr;  // a second tensor patched the same way
};
class OverflowStage : public ::testing::TestWithParam<OverflowCase> {};
TEST_P(OverflowStage, TheFirstStageThatBrokeIsNamed) {
  const OverflowCase& c = GetParam();
  TempDir dir;
  CopyDir(FixtureDir(c.fixture), dir.File("m"));
  PatchElement(dir.File("m/model.safetensors"), c.tensor, 0, c.value, c.count);
  if (c.also) PatchElement(dir.File("m/model.safetensors"), c.also, 0, c.value, c.count);
  auto m = LoadModel(dir.File("m"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  auto run = RunModel(**m, std::vector<int>{1, 2, 3, 4, 5});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(),
              ::testing::HasSubstr(std::string(c.stage) + " holds a value that is not a finite"));
}
INSTANTIATE_TEST_SUITE_P(
    HardeningRun, OverflowStage,
    ::testing::Values(
        OverflowCase{"gpt2", "transformer.h.1.ln_1.weight", 0, 3e38f, "layer 1: the attention's input norm (ln_1)"},
        OverflowCase{"gpt2", "transformer.h.0.attn.c_proj.weight", 0, 3e38f, "layer 0: the attention output"},
        OverflowCase{"gpt2", "transformer.h.1.ln_2.weight", 0, 3e38f, "layer 1: the MLP's input norm (ln_2)"},
        OverflowCase{"gpt2", "transformer.h.0.mlp.c_proj.weight", 0, 3e38f, "layer 0: the MLP output"},
        // Column 0 of the attention and of the MLP each add 2e38: each output is finite, their sum is not.
        OverflowCase{"gpt2", "transformer.h.0.mlp.c_proj.bias", 1, 2e38f, "layer 0: the residual stream",
                     "transformer.h.0.attn.c_proj.bias"},
        OverflowCase{"bert", "bert.encoder.layer.0.attention.output.dense.weight", 0, 3e38f,
                     "layer 0: the attention output"},
        OverflowCase{"bert", "bert.encoder.layer.1.attention.output.LayerNorm.weight", 0, 3e38f,
                     "layer 1: the attention's output norm"},
        OverflowCase{"bert", "bert.encoder.layer.0.output.dense.weight", 0, 3e38f, "layer 0: the MLP output"},
        OverflowCase{"bert", "bert.encoder.layer.0.output.LayerNorm.weight", 0, 3e38f,
                     "layer 0: the MLP's output norm"},
        OverflowCase{"llama", "model.layers.1.input_layernorm.weight", 0, 3e38f,
                     "layer 1: the attention's input norm (input_layernorm)"},
        OverflowCase{"llama", "model.layers.0.self_attn.o_proj.weight", 0, 3e38f, "layer 0: the attention output"},
        OverflowCase{"llama", "model.layers.0.post_attention_layernorm.weight", 0, 3e38f,
                     "layer 0: the MLP's input norm (post_attention_layernorm)"},
        OverflowCase{"llama", "model.layers.0.mlp.down_proj.weight", 0, 3e38f, "layer 0: the MLP output"}),
    [](const ::testing::TestParamInfo<OverflowCase>& i) { return std::to_string(i.index); });

// Every overlapping pair is found, also across an empty tensor between them.
TEST(HardeningSafetensors, OverlapHiddenBehindAnEmptyTensorIsFound) {
  TempDir dir;
  std::string header =
      "{\"big\": {\"dtype\": \"F32\", \"shape\": [10], \"data_offsets\": [0, 40]},"
      " \"empty\": {\"dtype\": \"F32\", \"shape\": [0], \"data_offsets\": [20, 20]},"
      " \"late\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [24, 40]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  WriteBytes(dir.File("m.safetensors"), testing::SafetensorsBytes(header, std::string(40, '\0')));
  auto f = SafetensorsFile::Open(dir.File("m.safetensors"));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), ::testing::HasSubstr("'big'"));
  EXPECT_THAT(f.status().message(), ::testing::HasSubstr("'late'"));
  // Empty tensors anywhere (even at the same offset as others) are no overlap.
  std::string ok_header =
      "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
      " \"e\": {\"dtype\": \"F32\", \"shape\": [0], \"data_offsets\": [4, 4]},"
      " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 16]}}";
  ok_header.append((8 - ok_header.size() % 8) % 8, ' ');
  WriteBytes(dir.File("ok.safetensors"), testing::SafetensorsBytes(ok_header, std::string(16, '\0')));
  EXPECT_TRUE(SafetensorsFile::Open(dir.File("ok.safetensors")).ok());
}

// A million index entries, each naming its own shard: the old de-duplication compared every pair (hours); the
// index now answers at once with the first missing shard.
TEST(HardeningIndex, MillionShardNamesAreDeduplicatedInLogTime) {
  TempDir dir;
  std::string index = "{\"weight_map\": {";
  for (int i = 0; i < 1000000; ++i) index += (i ? ",\"t" : "\"t") + std::to_string(i) + "\":\"s" + std::to_string(i) + "\"";
  index += "}}";
  WriteBytes(dir.File("model.safetensors.index.json"), index);
  auto store = TensorStore::OpenDir(dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("/s0"));
}

// Found by fuzz_shard_index: a 4000-byte shard name made the open error quote a 4 KB path. Names past NAME_MAX are
// refused as shard names, quoted capped.
TEST(HardeningIndex, OverlongShardNameIsRefusedWithABoundedMessage) {
  TempDir dir;
  WriteBytes(dir.File("model.safetensors.index.json"), "{\"weight_map\": {\"t\": \"" + std::string(4000, 'x') + "\"}}");
  auto store = TensorStore::OpenDir(dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("plain file names"));
  EXPECT_LT(store.status().message().size(), 1024u);
}

// Found by fuzz_shard_index (CI, 2026-11-25): an index cut off inside a 7000-byte key made the JSON parser's message
// quote the whole key ("last read: '..."). The parser's text is capped (CappedJsonError), its reason kept.
TEST(HardeningIndex, UnterminatedLongKeyGivesABoundedParseMessage) {
  TempDir dir;
  WriteBytes(dir.File("model.safetensors.index.json"), "{\"weight_" + std::string(7000, '['));
  auto store = TensorStore::OpenDir(dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("model.safetensors.index.json"));
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("last read"));
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("bytes in all)"));
  EXPECT_LT(store.status().message().size(), 1024u);
  EXPECT_EQ(CappedJsonError("no quote here"), "no quote here");
}

TEST(HardeningIndex, SymlinkLoopIsReportedAsALoop) {
  TempDir dir;
  ASSERT_EQ(::symlink("model.safetensors", dir.File("model.safetensors").c_str()), 0);
  auto store = TensorStore::OpenDir(dir.path());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("too many levels of symbolic links"));
}

}  // namespace
}  // namespace attnviz::model
