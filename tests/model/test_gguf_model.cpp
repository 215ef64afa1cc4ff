// core/model/gguf_config.*, gguf_weights.*: a GGUF file (F32, made by tests/fixtures/gguf/make_gguf_fixtures.py
// from the torch fixtures) and the Hugging Face folder it came from give the same config and the same maps and
// residual stream, bit for bit (q/k row permutation undone for llama/mistral, not applied for qwen2); and the
// metadata and tensor checks refuse with their messages.
#include "model/gguf_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include "gguf_test_util.h"
#include "model/gguf_config.h"
#include "model/gguf_quant.h"
#include "model/analysis.h"
#include "model/predict.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::GgufFixture;
using testing::TempDir;
using testing::WriteBytes;
using ::testing::HasSubstr;

struct Pair {
  const char* gguf;
  std::string folder;
  double tol = 0;  // 0: bit-equal
};

double MaxDiff(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (double)std::fabs(a.data[i] - b.data[i]));
  return worst;
}

std::vector<int> CaseIds(const std::string& folder) {
  std::ifstream in(folder + "/case.json");
  auto j = nlohmann::json::parse(in);
  if (j.is_array()) return j[0]["ids"].get<std::vector<int>>();  // models_e2e: a list of text cases
  return j["ids"].get<std::vector<int>>();
}

class GgufModel : public ::testing::TestWithParam<Pair> {};

TEST_P(GgufModel, SameMapsAsTheFolder) {
  const Pair& p = GetParam();
  auto gguf = LoadGgufModel(GgufFixture(p.gguf));
  ASSERT_TRUE(gguf.ok()) << gguf.message();
  auto hf = LoadModel(p.folder);
  ASSERT_TRUE(hf.ok()) << hf.message();
  if (p.tol == 0) {
    EXPECT_EQ((*gguf)->config().Describe(), (*hf)->config().Describe());
  }
  EXPECT_EQ((*gguf)->config().qkv_bias, (*hf)->config().qkv_bias);
  EXPECT_EQ((*gguf)->config().tie_word_embeddings, (*hf)->config().tie_word_embeddings);
  EXPECT_FLOAT_EQ((float)(*gguf)->config().norm_eps, (float)(*hf)->config().norm_eps);
  const std::vector<int> ids = CaseIds(p.folder);
  auto a = RunModel(**gguf, ids);
  ASSERT_TRUE(a.ok()) << a.message();
  auto b = RunModel(**hf, ids);
  ASSERT_TRUE(b.ok()) << b.message();
  ASSERT_EQ(a->probs.size(), b->probs.size());
  ASSERT_EQ(a->hidden.size(), b->hidden.size());
  if (p.tol == 0) {
    EXPECT_EQ(0, std::memcmp(a->probs.data.data(), b->probs.data.data(), a->probs.size() * 4))
        << p.gguf << ": probs differ";
    EXPECT_EQ(0, std::memcmp(a->hidden.data.data(), b->hidden.data.data(), a->hidden.size() * 4))
        << p.gguf << ": hidden differs";
  } else {
    EXPECT_LT(MaxDiff(a->probs, b->probs), p.tol) << p.gguf;
    EXPECT_LT(MaxDiff(a->hidden, b->hidden), p.tol) << p.gguf;
  }
  EXPECT_THAT((*gguf)->Describe(), HasSubstr(std::string(p.gguf).substr(7) + ": "));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, GgufModel,
    ::testing::Values(Pair{"models/llama_e2e.gguf", std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/llama"},
                      Pair{"models/qwen2.gguf", testing::FixtureDir("qwen2")},
                      // llama3 scaling as rope_freqs.weight: the same frequencies up to float rounding
                      Pair{"models/llama3_rope.gguf", testing::FixtureDir("llama"), 1e-6},
                      Pair{"models/mistral.gguf", testing::FixtureDir("mistral_sharded")}),
    [](const auto& info) { return std::string(info.param.gguf).substr(7, std::string(info.param.gguf).find('.') - 7); });

TEST(GgufModel, QkPermutationIsUndone) {
  // llama/mistral q rows are stored interleaved: a model that skipped the undo would differ from the folder
  // (SameMapsAsTheFolder); here the first head's rows are checked directly.
  auto file = GgufFile::Open(GgufFixture("models/mistral.gguf"));
  ASSERT_TRUE(file.ok());
  auto hf = LoadModel(testing::FixtureDir("mistral_sharded"));
  ASSERT_TRUE(hf.ok());
  auto gguf = LoadGgufModel(*file);
  ASSERT_TRUE(gguf.ok()) << gguf.message();
  const ModelConfig& c = (*hf)->config();
  const float* want = (*hf)->params().blocks[0].q.w;
  WeightScratch scratch;
  const float* got = (*gguf)->BlockWeights(0, &scratch).q.w;
  EXPECT_EQ(0, std::memcmp(want, got, sizeof(float) * c.q_dim() * c.d_model));
  const GgufTensor* stored = (*file)->FindTensor("blk.0.attn_q.weight");
  const float* raw = reinterpret_cast<const float*>((*file)->Bytes(*stored));
  // HF row 1 (first half of head 0, i = 1) is stored as row 2.
  EXPECT_EQ(0, std::memcmp(want + 1 * c.d_model, raw + 2 * c.d_model, sizeof(float) * c.d_model));
}

// The qwen2 fixture with one metadata value or tensor changed, written with the fixture's own bytes.
std::string Patched(const std::string& from, const std::string& to) {
  std::string bytes = testing::ReadBytes(GgufFixture("models/qwen2.gguf"));
  const size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(from.size(), to.size());
  bytes.replace(at, from.size(), to);
  return bytes;
}

TEST(GgufModel, RefusesBadMetadataWithItsMessage) {
  TempDir dir;
  auto u32 = [](const std::string& key, uint32_t v) {
    testing::GgufBytes b;
    b.KvU32(key, v);
    return b.str();
  };
  struct Edit {
    std::string from, to, message;
  };
  const std::vector<Edit> edits = {
      {std::string("\x05\0\0\0\0\0\0\0qwen2", 13), std::string("\x05\0\0\0\0\0\0\0gemma", 13),
       "general.architecture is \"gemma\"; supported: llama, qwen2, mistral"},
      {u32("qwen2.block_count", 2), u32("qwen2.block_count", 5000),
       "key 'qwen2.block_count' = 5000 is out of range: allowed 1..1024"},
      {u32("qwen2.attention.head_count_kv", 2), u32("qwen2.attention.head_count_kv", 3),
       "qwen2.attention.head_count 4 is not a multiple of qwen2.attention.head_count_kv 3"},
      {u32("qwen2.rope.dimension_count", 8), u32("qwen2.rope.dimension_count", 4),
       "qwen2.rope.dimension_count = 4 but the head width = 8"},
      {u32("qwen2.embedding_length", 32), u32("qwen2.embedding_length", 40),
       "tensor 'token_embd.weight' in "},
      {"blk.1.ffn_up.weight", "blk.1.ffn_UP.weight", "missing tensor 'blk.1.ffn_up.weight' in "},
  };
  for (const Edit& e : edits) {
    WriteBytes(dir.File("m.gguf"), Patched(e.from, e.to));
    auto m = LoadGgufModel(dir.File("m.gguf"));
    ASSERT_FALSE(m.ok()) << e.message;
    EXPECT_THAT(m.message(), HasSubstr(e.message));
    EXPECT_THAT(m.message(), HasSubstr("m.gguf"));
  }
}

TEST(GgufModel, Llama3RopeFactorsAreRead) {
  auto m = LoadGgufModel(GgufFixture("models/llama3_rope.gguf"));
  ASSERT_TRUE(m.ok()) << m.message();
  const RopeScaling& r = (*m)->config().rope_scaling;
  ASSERT_EQ(r.freq_factors.size(), 8u);
  EXPECT_EQ(r.freq_factors.front(), 1.0);  // highest frequency unscaled
  EXPECT_EQ(r.freq_factors.back(), 8.0);   // lowest: / factor
  EXPECT_THAT((*m)->config().Describe(), HasSubstr("(per-frequency factors)"));
  // A factor of 0 is refused with its index.
  TempDir dir;
  std::string bytes = testing::ReadBytes(GgufFixture("models/llama3_rope.gguf"));
  auto file = GgufFile::Open(GgufFixture("models/llama3_rope.gguf"));
  const GgufTensor* t = (*file)->FindTensor("rope_freqs.weight");
  std::memset(&bytes[t->begin + 4 * 3], 0, 4);
  WriteBytes(dir.File("m.gguf"), bytes);
  auto bad = LoadGgufModel(dir.File("m.gguf"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.message(), HasSubstr("m.gguf: tensor 'rope_freqs.weight' holds 0 at index 3"));
}

TEST(GgufModel, QuantizedTensorsAreBoundAsTheirDequantization) {
  // qwen2 with its matrices in q8_0, q4_0, q4_1, q5_0, q5_1, f16, bf16 by turns (test_gguf_quant.cpp checks each
  // type's values against the script; here: every matrix reaches the weights a run reads whole, in the right place).
  auto file = GgufFile::Open(GgufFixture("models/qwen2_mixed.gguf"));
  ASSERT_TRUE(file.ok()) << file.message();
  auto m = LoadGgufModel(*file);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_THAT((*m)->Describe(), HasSubstr("q4_1"));
  EXPECT_TRUE((*m)->per_layer());
  auto same = [&](const std::string& name, const float* bound) {
    const GgufTensor* t = (*file)->FindTensor(name);
    ASSERT_NE(t, nullptr) << name;
    ASSERT_NE(bound, nullptr) << name;
    std::vector<float> want(t->elements);
    ASSERT_TRUE(DequantizeTensorRows(**file, *t, 0, t->rows(), want.data()).ok());
    EXPECT_EQ(0, std::memcmp(want.data(), bound, want.size() * 4)) << name << " (" << GgmlTypeName(t->type) << ")";
  };
  const ModelConfig& c = (*m)->config();
  std::vector<float> embedding((size_t)c.vocab * c.d_model);
  for (int id = 0; id < c.vocab; ++id) (*m)->TokenEmbedding(id, embedding.data() + (size_t)id * c.d_model);
  same("token_embd.weight", embedding.data());
  std::set<std::string> types;
  WeightScratch scratch;
  for (int l = 0; l < 2; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    const BlockParams& bp = (*m)->BlockWeights(l, &scratch);
    same(b + "attn_q.weight", bp.q.w), same(b + "attn_k.weight", bp.k.w), same(b + "attn_v.weight", bp.v.w);
    same(b + "attn_output.weight", bp.o.w), same(b + "ffn_gate.weight", bp.gate.w);
    same(b + "ffn_up.weight", bp.up.w), same(b + "ffn_down.weight", bp.down.w);
    same(b + "attn_q.bias", bp.q.b);
    for (const char* w : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"})
      types.insert(GgmlTypeName((*file)->FindTensor(b + w + ".weight")->type));
  }
  EXPECT_EQ(types.size(), 7u);
  // And it runs: every row of every map a distribution (4-bit weights move peaked maps far from the folder's).
  const std::vector<int> ids = CaseIds(testing::FixtureDir("qwen2"));
  auto a = RunModel(**m, ids);
  ASSERT_TRUE(a.ok()) << a.message();
  const size_t n = ids.size();
  for (size_t row = 0; row < a->probs.size() / n; ++row) {
    double sum = 0;
    for (size_t k = 0; k < n; ++k) sum += a->probs.data[row * n + k];
    ASSERT_NEAR(sum, 1.0, 1e-4) << row;
  }
}

// Per-layer dequantization (the default) against the whole model dequantized at load (GgufWeights::kWhole): every
// weight a run reads and every map and hidden state bit for bit, for each fixture (quantized, mixed, F32 permuted).
TEST(GgufModel, PerLayerDequantizationEqualsWholeModelBitForBit) {
  for (const char* name : {"models/qwen2_mixed.gguf", "models/llama_e2e.gguf", "models/mistral.gguf",
                           "models/qwen2.gguf"}) {
    SCOPED_TRACE(name);
    auto lazy = LoadGgufModel(GgufFixture(name));
    ASSERT_TRUE(lazy.ok()) << lazy.message();
    auto whole = LoadGgufModel(GgufFixture(name), GgufWeights::kWhole);
    ASSERT_TRUE(whole.ok()) << whole.message();
    EXPECT_FALSE((*whole)->per_layer());
    const ModelConfig& c = (*whole)->config();
    const int d = c.d_model;
    std::vector<float> row(d);
    for (int id = 0; id < c.vocab; ++id) {
      (*lazy)->TokenEmbedding(id, row.data());
      ASSERT_EQ(0, std::memcmp(row.data(), (*whole)->params().tok_emb + (size_t)id * d, d * 4)) << id;
    }
    WeightScratch scratch, unused;
    for (int l = 0; l < c.n_layer; ++l) {
      const BlockParams& a = (*lazy)->BlockWeights(l, &scratch);
      const BlockParams& b = (*whole)->BlockWeights(l, &unused);
      EXPECT_EQ(&b, &(*whole)->params().blocks[l]);  // resident: the params themselves, no copy
      auto same = [&](const Linear& x, const Linear& y, const char* what) {
        ASSERT_NE(x.w, nullptr) << what;
        EXPECT_EQ(x.in, y.in);
        EXPECT_EQ(x.out, y.out);
        EXPECT_EQ(x.ld, y.ld);
        EXPECT_EQ(0, std::memcmp(x.w, y.w, (size_t)x.in * x.out * 4)) << "layer " << l << " " << what;
        if (y.b) EXPECT_EQ(0, std::memcmp(x.b, y.b, (size_t)x.out * 4)) << "layer " << l << " " << what << " bias";
      };
      same(a.q, b.q, "q"), same(a.k, b.k, "k"), same(a.v, b.v, "v"), same(a.o, b.o, "o");
      same(a.gate, b.gate, "gate"), same(a.up, b.up, "up"), same(a.down, b.down, "down");
      EXPECT_EQ(0, std::memcmp(a.attn_norm.w, b.attn_norm.w, d * 4));
      EXPECT_EQ(0, std::memcmp(a.mlp_norm.w, b.mlp_norm.w, d * 4));
    }
    std::vector<int> ids;
    for (int i = 0; i < 40; ++i) ids.push_back((i * 37 + 11) % c.vocab);
    auto x = RunModel(**lazy, ids);
    ASSERT_TRUE(x.ok()) << x.message();
    auto y = RunModel(**whole, ids);
    ASSERT_TRUE(y.ok()) << y.message();
    EXPECT_EQ(0, std::memcmp(x->probs.data.data(), y->probs.data.data(), x->probs.size() * 4));
    EXPECT_EQ(0, std::memcmp(x->hidden.data.data(), y->hidden.data.data(), x->hidden.size() * 4));
  }
}

// Runs share one per-layer model from several threads (run.h): each thread dequantizes into its own scratch, so
// concurrent runs over different texts give the bits each gives alone.
TEST(GgufModel, ConcurrentRunsOfOnePerLayerModelGiveTheirOwnBits) {
  auto m = LoadGgufModel(GgufFixture("models/qwen2_mixed.gguf"));
  ASSERT_TRUE(m.ok()) << m.message();
  ASSERT_TRUE((*m)->per_layer());
  const int vocab = (*m)->config().vocab;
  std::vector<std::vector<int>> texts(4);
  for (size_t t = 0; t < texts.size(); ++t)
    for (int i = 0; i < 30 + 7 * (int)t; ++i) texts[t].push_back((int)((i * 31 + 17 * t + 3) % vocab));
  std::vector<ModelRun> alone;
  for (const auto& ids : texts) {
    auto r = RunModel(**m, ids);
    ASSERT_TRUE(r.ok()) << r.message();
    alone.push_back(std::move(*r));
  }
  std::vector<int> equal(texts.size() * 5, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < texts.size(); ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) {
        auto r = RunModel(**m, texts[t]);
        equal[t * 5 + rep] = r.ok() && r->probs.size() == alone[t].probs.size() &&
                             std::memcmp(r->probs.data.data(), alone[t].probs.data.data(), r->probs.size() * 4) == 0 &&
                             std::memcmp(r->hidden.data.data(), alone[t].hidden.data.data(), r->hidden.size() * 4) == 0;
      }
    });
  for (std::thread& th : threads) th.join();
  for (size_t i = 0; i < equal.size(); ++i) EXPECT_EQ(equal[i], 1) << "text " << i / 5 << ", repeat " << i % 5;
}

// A quantized model keeps no float copy of its matrices: what it holds as floats is the small norms and biases, and
// a run adds one layer's weights (config().layer_scratch_floats, counted by RunMemoryBytes), never the whole model.
TEST(GgufModel, QuantizedModelHoldsAboutOneLayerOfFloats) {
  auto m = LoadGgufModel(GgufFixture("models/qwen2_mixed.gguf"));
  ASSERT_TRUE(m.ok()) << m.message();
  auto whole = LoadGgufModel(GgufFixture("models/qwen2_mixed.gguf"), GgufWeights::kWhole);
  ASSERT_TRUE(whole.ok()) << whole.message();
  const ModelConfig& c = (*m)->config();
  const size_t f = sizeof(float);
  const size_t layer_matrices = ((size_t)c.d_model * (c.q_dim() + 2 * c.kv_dim()) + (size_t)c.q_dim() * c.d_model +
                                 3 * (size_t)c.d_model * c.d_ff) * f;
  // per layer: two norms [d_model] and the q/k/v biases; plus the final norm
  const size_t small = ((size_t)c.n_layer * (2 * c.d_model + c.q_dim() + 2 * c.kv_dim()) + c.d_model) * f;
  // the scratch: one layer's matrices, each rounded up to 16 floats
  EXPECT_GE((size_t)c.layer_scratch_floats * f, layer_matrices);
  EXPECT_LE((size_t)c.layer_scratch_floats * f, layer_matrices + 7 * 16 * f);
  EXPECT_LE((*m)->ResidentFloatBytes(false), small);
  EXPECT_LE((*m)->ResidentFloatBytes(true), small + layer_matrices + 7 * 16 * f);
  const size_t all_weights = (size_t)c.n_layer * layer_matrices + (size_t)c.vocab * c.d_model * f;
  EXPECT_GE((*whole)->ResidentFloatBytes(true), all_weights);  // the whole model as floats: what is avoided
  EXPECT_EQ((*whole)->config().layer_scratch_floats, 0);
  // RunMemoryBytes counts the scratch once.
  EXPECT_EQ(RunMemoryBytes(c, 10, false) - RunMemoryBytes((*whole)->config(), 10, false),
            (double)c.layer_scratch_floats * f);
  EXPECT_THAT((*m)->TensorTypes(), HasSubstr("Q4_1"));
  EXPECT_THAT((*m)->TensorTypes(), HasSubstr("F32"));
  EXPECT_STREQ((*m)->format(), "GGUF");
  EXPECT_EQ((*m)->FileBytes(), (uint64_t)testing::ReadBytes(GgufFixture("models/qwen2_mixed.gguf")).size());
}

TEST(GgufModel, RefusesANotFiniteWeightNamingTheFile) {
  TempDir dir;
  std::string bytes = testing::ReadBytes(GgufFixture("models/qwen2_mixed.gguf"));
  auto file = GgufFile::Open(GgufFixture("models/qwen2_mixed.gguf"));
  ASSERT_TRUE(file.ok());
  const GgufTensor* t = (*file)->FindTensor("blk.1.ffn_norm.weight");  // F32
  ASSERT_EQ(t->type, GgmlType::kF32);
  const float nan = std::nanf("");
  std::memcpy(&bytes[t->begin + 4 * 5], &nan, 4);
  WriteBytes(dir.File("m.gguf"), bytes);
  auto m = LoadGgufModel(dir.File("m.gguf"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.message(), HasSubstr("m.gguf: tensor 'model.layers.1.post_attention_layernorm.weight': element 5 is NaN"));
}

TEST(GgufModel, RefusesATensorTypeItCannotDequantize) {
  TempDir dir;
  std::string bytes = testing::ReadBytes(GgufFixture("models/qwen2.gguf"));
  auto file = GgufFile::Open(GgufFixture("models/qwen2.gguf"));
  ASSERT_TRUE(file.ok());
  const GgufTensor* t = (*file)->FindTensor("blk.0.ffn_norm.weight");
  ASSERT_NE(t, nullptr);
  // the type field sits right after ne: info_at + 8 + name + 4 + 8 * n_dims
  const size_t type_at = t->info_at + 8 + t->name.size() + 4 + 8 * t->ne.size();
  const uint32_t iq4_nl = 20;  // block 32 like the 32-wide row
  std::memcpy(&bytes[type_at], &iq4_nl, 4);
  WriteBytes(dir.File("m.gguf"), bytes);
  auto m = LoadGgufModel(dir.File("m.gguf"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.message(), HasSubstr("tensor 'blk.0.ffn_norm.weight' is stored as iq4_nl; supported: f32"));
}

// The value-weighted norms read W_o through the run's bound weights (LayerOutput::weights): a per-layer model has
// null matrices in params().blocks (reading them crashed every app open and --value-norm of a quantized file). The
// per-layer load gives the whole load's norms bit for bit, from a run and from a LayerOutput without weights.
class NormSink : public LayerSink {
 public:
  explicit NormSink(const Model& m) : m_(m) {}
  Status OnLayer(const LayerOutput& out) override {
    const ModelConfig& c = m_.config();
    std::vector<float> a((size_t)c.n_head * out.n), b(a.size());
    ValueNormScales(m_, out, a.data());
    LayerOutput bare = out;
    bare.weights = nullptr;  // made without a run: the layer is bound again
    ValueNormScales(m_, bare, b.data());
    norms.insert(norms.end(), a.begin(), a.end());
    unbound.insert(unbound.end(), b.begin(), b.end());
    return Status::Ok();
  }
  const Model& m_;
  std::vector<float> norms, unbound;  // [n_layer, n_head, n]
};

TEST(GgufModel, ValueNormsOfThePerLayerLoadEqualTheWholeLoads) {
  for (const char* name : {"models/llama_e2e_half.gguf", "models/qwen2_mixed.gguf", "models/mistral_mixed.gguf"}) {
    SCOPED_TRACE(name);
    auto lazy = LoadGgufModel(GgufFixture(name));
    ASSERT_TRUE(lazy.ok()) << lazy.message();
    auto whole = LoadGgufModel(GgufFixture(name), GgufWeights::kWhole);
    ASSERT_TRUE(whole.ok()) << whole.message();
    ASSERT_TRUE((*lazy)->per_layer());
    EXPECT_EQ((*lazy)->params().blocks[0].o.w, nullptr);  // o deferred: what the norms must not read
    const int vocab = (*lazy)->config().vocab;
    std::vector<int> ids;
    for (int i = 0; i < 24; ++i) ids.push_back((i * 29 + 5) % vocab);
    NormSink a(**lazy), b(**whole);
    ASSERT_TRUE(RunModel(**lazy, ids, {}, &a).ok());
    ASSERT_TRUE(RunModel(**whole, ids, {}, &b).ok());
    ASSERT_EQ(a.norms.size(), (size_t)(*lazy)->config().n_layer * (*lazy)->config().n_head * ids.size());
    EXPECT_EQ(0, std::memcmp(a.norms.data(), b.norms.data(), a.norms.size() * 4));
    EXPECT_EQ(0, std::memcmp(a.unbound.data(), b.norms.data(), a.norms.size() * 4));
    EXPECT_EQ(0, std::memcmp(b.unbound.data(), b.norms.data(), a.norms.size() * 4));
    double sum = 0;
    for (float v : a.norms) sum += v;
    EXPECT_GT(sum, 0);  // not vacuously equal
  }
}

// The LM head of a quantized file: tied (token_embd deferred) or untied (output.weight deferred), served in chunks
// of vocab rows, never held whole as floats; the predictions are the whole load's bit for bit.
TEST(GgufModel, PredictOfThePerLayerLoadEqualsTheWholeLoads) {
  for (const char* name : {"models/qwen2_mixed.gguf", "models/mistral_mixed.gguf", "models/llama_e2e_half.gguf"}) {
    SCOPED_TRACE(name);
    auto lazy = LoadGgufModel(GgufFixture(name));
    ASSERT_TRUE(lazy.ok()) << lazy.message();
    auto whole = LoadGgufModel(GgufFixture(name), GgufWeights::kWhole);
    ASSERT_TRUE(whole.ok()) << whole.message();
    EXPECT_EQ((*lazy)->params().lm_head.w, nullptr);  // deferred: no float copy of the head
    EXPECT_TRUE(HasLmHead(**lazy));
    const ModelConfig& c = (*lazy)->config();
    const size_t d = (size_t)c.d_model;
    std::vector<float> rows(3 * d);
    for (int first : {0, c.vocab / 2, c.vocab - 3}) {
      (*lazy)->LmHeadRows(first, 3, rows.data());
      EXPECT_EQ(0, std::memcmp(rows.data(), (*whole)->params().lm_head.w + first * d, rows.size() * 4)) << first;
    }
    std::vector<int> ids;
    for (int i = 0; i < 20; ++i) ids.push_back((i * 13 + 2) % c.vocab);
    auto x = RunModel(**lazy, ids);
    ASSERT_TRUE(x.ok()) << x.message();
    const float* last = x->hidden.data.data() + (size_t)c.n_layer * ids.size() * d;
    auto p = Predict(**lazy, last, ids, 5);
    ASSERT_TRUE(p.ok()) << p.message();
    auto q = Predict(**whole, last, ids, 5);
    ASSERT_TRUE(q.ok()) << q.message();
    ASSERT_TRUE(p->has_loss && q->has_loss);
    EXPECT_EQ(p->loss, q->loss);
    ASSERT_EQ(p->positions.size(), q->positions.size());
    for (size_t i = 0; i < p->positions.size(); ++i)
      for (int t = 0; t < 5; ++t) {
        EXPECT_EQ(p->positions[i].top[t].id, q->positions[i].top[t].id) << i << " " << t;
        EXPECT_EQ(p->positions[i].top[t].prob, q->positions[i].top[t].prob) << i << " " << t;
      }
  }
}

// An untied quantized output.weight is not dequantized at load: the model holds the norms as floats, not
// [vocab, d_model] of head.
TEST(GgufModel, UntiedQuantizedLmHeadIsNotHeldAsFloats) {
  auto m = LoadGgufModel(GgufFixture("models/mistral_mixed.gguf"));
  ASSERT_TRUE(m.ok()) << m.message();
  const ModelConfig& c = (*m)->config();
  ASSERT_FALSE(c.tie_word_embeddings);
  const size_t small = ((size_t)c.n_layer * 2 + 1) * c.d_model * sizeof(float);  // the norms
  EXPECT_LE((*m)->ResidentFloatBytes(false), small);
  EXPECT_TRUE(HasLmHead(**m));
}

// A head of more than one chunk of vocab rows (predict.cpp: 2^22 floats a chunk): a 1-layer llama written here
// with 66000 tokens x 64 in q8_0 (tied: two chunks, the second of 464 rows). The loss (every position's log-softmax
// over the whole vocabulary, at ids of both chunks) and the top-k are a double reference's from the dequantized
// rows, and the per-layer load's bits are the whole load's.
TEST(GgufModel, PredictOverSeveralChunksOfTheHeadIsTheReferences) {
  const int vocab = 66000, d = 64, ff = 4;
  uint32_t state = 26;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  auto floats = [&](size_t count, float scale) {
    std::vector<float> v(count);
    for (float& x : v) x = ((int)(next() >> 9) % 2001 - 1000) * scale / 1000.0f;
    return v;
  };
  std::string emb;  // q8_0: per 32 values an fp16 scale (1/128: 0x2000) and 32 int8
  for (int64_t b = 0; b < (int64_t)vocab * d / 32; ++b) {
    emb += std::string("\x00\x20", 2);
    for (int i = 0; i < 32; ++i) emb += (char)(int8_t)((int)(next() >> 9) % 255 - 127);
  }
  struct T {
    std::string name;
    std::vector<uint64_t> ne;
    uint32_t type;
    std::string bytes;
  };
  auto f32 = [](const std::vector<float>& v) { return std::string((const char*)v.data(), v.size() * 4); };
  const std::vector<float> ones(d, 1.0f);
  std::vector<T> ts = {{"token_embd.weight", {(uint64_t)d, (uint64_t)vocab}, 8, emb},
                       {"blk.0.attn_norm.weight", {(uint64_t)d}, 0, f32(ones)}};
  for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"})
    ts.push_back({std::string("blk.0.") + m + ".weight", {(uint64_t)d, (uint64_t)d}, 0, f32(floats(d * d, 0.2f))});
  ts.push_back({"blk.0.ffn_norm.weight", {(uint64_t)d}, 0, f32(ones)});
  ts.push_back({"blk.0.ffn_gate.weight", {(uint64_t)d, (uint64_t)ff}, 0, f32(floats(d * ff, 0.3f))});
  ts.push_back({"blk.0.ffn_up.weight", {(uint64_t)d, (uint64_t)ff}, 0, f32(floats(d * ff, 0.3f))});
  ts.push_back({"blk.0.ffn_down.weight", {(uint64_t)ff, (uint64_t)d}, 0, f32(floats(d * ff, 0.3f))});
  ts.push_back({"output_norm.weight", {(uint64_t)d}, 0, f32(ones)});
  testing::GgufBytes g;
  g.Header(3, ts.size(), 6).KvStr("general.architecture", "llama").KvU32("llama.block_count", 1);
  g.KvU32("llama.embedding_length", d).KvU32("llama.feed_forward_length", ff).KvU32("llama.context_length", 64);
  g.KvU32("llama.attention.head_count", 1);
  uint64_t offset = 0;
  for (const T& t : ts) {
    g.Info(t.name, t.ne, t.type, offset);
    offset += (t.bytes.size() + 31) / 32 * 32;
  }
  g.Align();
  for (const T& t : ts) g.Raw(t.bytes).Align();
  TempDir dir;
  WriteBytes(dir.File("big.gguf"), g.str());
  auto lazy = LoadGgufModel(dir.File("big.gguf"));
  ASSERT_TRUE(lazy.ok()) << lazy.message();
  auto whole = LoadGgufModel(dir.File("big.gguf"), GgufWeights::kWhole);
  ASSERT_TRUE(whole.ok()) << whole.message();
  ASSERT_TRUE((*lazy)->config().tie_word_embeddings);
  ASSERT_GT((size_t)vocab * d, (size_t)1 << 22);  // more than one chunk
  const std::vector<int> ids = {3, vocab - 1, 65600, 100, 65536, 42, 65535};
  auto run = RunModel(**lazy, ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const size_t n = ids.size();
  const float* last = run->hidden.data.data() + n * d;
  auto p = Predict(**lazy, last, ids, 3);
  ASSERT_TRUE(p.ok()) << p.message();
  auto q = Predict(**whole, last, ids, 3);
  ASSERT_TRUE(q.ok()) << q.message();
  EXPECT_EQ(p->loss, q->loss);
  // The reference: RMSNorm (weight 1, eps 1e-5), logits in double against every dequantized row.
  std::vector<float> row(d);
  double loss = 0;
  for (size_t i = 0; i < n; ++i) {
    const float* x = last + i * d;
    double ss = 0;
    for (int t = 0; t < d; ++t) ss += (double)x[t] * x[t];
    const double inv = 1.0 / std::sqrt(ss / d + 1e-5);
    std::vector<double> logits(vocab);
    double mx = -INFINITY;
    for (int v = 0; v < vocab; ++v) {
      (*lazy)->TokenEmbedding(v, row.data());
      double dot = 0;
      for (int t = 0; t < d; ++t) dot += x[t] * inv * row[t];
      mx = std::max(mx, logits[v] = dot);
    }
    double z = 0;
    for (double l : logits) z += std::exp(l - mx);
    const double log_z = mx + std::log(z);
    if (i + 1 < n) loss -= logits[ids[i + 1]] - log_z;
    ASSERT_EQ(p->positions[i].index, (int)i);
    EXPECT_NEAR(std::exp(mx - log_z), p->positions[i].top[0].prob, 1e-5) << i;
    for (const TokenProb& t : p->positions[i].top) {
      EXPECT_NEAR(std::exp(logits[t.id] - log_z), t.prob, 1e-5) << i << " " << t.id;
      EXPECT_EQ(t.id, q->positions[i].top[&t - p->positions[i].top.data()].id);
    }
  }
  EXPECT_NEAR(p->loss, loss / (n - 1), 1e-5 * loss / (n - 1));
}

}  // namespace
}  // namespace attnviz::model
