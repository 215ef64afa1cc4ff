// core/model/gguf_file.*: the header, metadata and tensor-info checks, each refusal with its message.
#include "model/gguf_file.h"

#include "gguf_test_util.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::GgufBytes;
using testing::GgufFixture;
using testing::TempDir;
using testing::WriteBytes;
using ::testing::HasSubstr;

Result<std::shared_ptr<const GgufFile>> OpenBytes(const TempDir& dir, const std::string& bytes) {
  WriteBytes(dir.File("t.gguf"), bytes);
  return GgufFile::Open(dir.File("t.gguf"));
}

// One F32 tensor "w" ne {4, 2} after two keys: a good file to spoil one field at a time.
GgufBytes Good(uint32_t version = 3) {
  GgufBytes b;
  b.Header(version, 1, 2).KvStr("general.architecture", "llama").KvU32("general.alignment", 32);
  b.Info("w", {4, 2}, 0, 0).Align();
  b.Floats({1, 2, 3, 4, 5, 6, 7, 8});
  return b;
}

TEST(GgufFile, ReadsHeaderMetadataAndTensors) {
  TempDir dir;
  for (uint32_t version : {2u, 3u}) {
    auto f = OpenBytes(dir, Good(version).str());
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ((*f)->version(), version);
    EXPECT_EQ((*f)->Find("general.architecture")->s, "llama");
    EXPECT_EQ((*f)->alignment(), 32u);
    ASSERT_EQ((*f)->tensors().size(), 1u);
    const GgufTensor& t = (*f)->tensors()[0];
    EXPECT_EQ(t.ne, (std::vector<int64_t>{4, 2}));
    EXPECT_EQ(t.torch_shape(), (std::vector<int64_t>{2, 4}));
    EXPECT_EQ(t.rows(), 2);
    EXPECT_EQ(t.begin % 32, 0u);
    EXPECT_EQ(t.end - t.begin, 32u);
    float v[8];
    std::memcpy(v, (*f)->Bytes(t), 32);
    EXPECT_EQ(v[5], 6.0f);
  }
}

TEST(GgufFile, DataSectionFollowsGeneralAlignment) {
  TempDir dir;
  GgufBytes b;
  b.Header(3, 2, 1).KvU32("general.alignment", 64);
  b.Info("a", {4}, 0, 0).Info("b", {2}, 0, 64).Align(64);
  b.Floats({1, 2, 3, 4}).Raw(std::string(48, '\0')).Floats({5, 6});
  auto f = OpenBytes(dir, b.str());
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ((*f)->alignment(), 64u);
  EXPECT_EQ((*f)->data_start() % 64, 0u);
  const GgufTensor* t = (*f)->FindTensor("b");
  EXPECT_EQ(t->begin, (*f)->data_start() + 64);
  float v[2];
  std::memcpy(v, (*f)->Bytes(*t), 8);
  EXPECT_EQ(v[1], 6.0f);
  // Offset 32 is aligned for the default, not for 64.
  GgufBytes c;
  c.Header(3, 1, 1).KvU32("general.alignment", 64).Info("a", {4}, 0, 32).Align(64).Raw(std::string(64, '\0'));
  auto g = OpenBytes(dir, c.str());
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.message(), HasSubstr("data offset 32 is not a multiple of the alignment 64"));
}

TEST(GgufFile, EveryValueTypeAndNestedArrays) {
  TempDir dir;
  GgufBytes b;
  b.Header(3, 0, 6);
  b.Str("u8").Put<uint32_t>(0).Put<uint8_t>(200);
  b.Str("i16").Put<uint32_t>(3).Put<int16_t>(-7);
  b.Str("f64").Put<uint32_t>(12).Put<double>(0.25);
  b.Str("b").Put<uint32_t>(7).Put<uint8_t>(1);
  b.Str("strs").Put<uint32_t>(9).Put<uint32_t>(8).Put<uint64_t>(2).Str("a").Str("bc");
  // an array of two arrays of int32
  b.Str("nested").Put<uint32_t>(9).Put<uint32_t>(9).Put<uint64_t>(2);
  b.Put<uint32_t>(5).Put<uint64_t>(1).Put<int32_t>(-1);
  b.Put<uint32_t>(5).Put<uint64_t>(2).Put<int32_t>(3).Put<int32_t>(4);
  auto f = OpenBytes(dir, b.str());
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ((*f)->Find("u8")->u, 200u);
  EXPECT_EQ((*f)->Find("i16")->i, -7);
  EXPECT_EQ((*f)->Find("f64")->number(), 0.25);
  EXPECT_EQ((*f)->Find("b")->u, 1u);
  EXPECT_EQ((*f)->Find("strs")->items[1].s, "bc");
  EXPECT_EQ((*f)->Find("nested")->items[1].items[1].i, 4);
}

struct BadCase {
  const char* what;
  std::string bytes;
  std::vector<std::string> message_parts;
};

std::vector<BadCase> BadCases() {
  std::vector<BadCase> cases;
  cases.push_back({"empty", "", {"not a GGUF file", "empty"}});
  cases.push_back({"magic", "GGML" + std::string(20, '\0'), {"not a GGUF file", "47 47 4d 4c"}});
  {
    GgufBytes b;
    b.Header(1, 0, 0);
    cases.push_back({"version 1", b.str(), {"GGUF version 1 is not supported"}});
  }
  {
    GgufBytes b;
    b.Raw("GGUF").Put<uint32_t>(0x03000000u).Put<uint64_t>(0).Put<uint64_t>(0);
    cases.push_back({"big endian", b.str(), {"a big-endian GGUF file (version 3 byte-swapped)"}});
  }
  {
    GgufBytes b;
    b.Raw("GGUF").Put<uint32_t>(3).Put<uint32_t>(0);
    cases.push_back({"header cut", b.str(), {"truncated at byte 8", "tensor_count"}});
  }
  {
    GgufBytes b;
    b.Header(3, uint64_t(1) << 62, 0);
    cases.push_back({"2^62 tensors", b.str(), {"tensor_count = 4611686018427387904 at byte 8", "at most 0"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1000);
    cases.push_back({"kv count", b.str(), {"kv_count = 1000 at byte 16"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Put<uint64_t>(1000).Raw("general.name");
    cases.push_back({"key length past the end", b.str(), {"truncated at byte 32", "key 0 needs 1000 bytes"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Str("general.name").Put<uint32_t>(8).Put<uint64_t>(uint64_t(1) << 40).Raw("abc");
    cases.push_back({"string value past the end", b.str(), {"the value of 'general.name'", "1099511627776 bytes"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Str("k").Put<uint32_t>(13).Put<uint32_t>(0);
    cases.push_back({"value type", b.str(), {"key 'k' at byte 24: value type 13 is unknown"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Str("deep").Put<uint32_t>(9).Put<uint32_t>(9).Put<uint64_t>(1).Put<uint32_t>(9).Put<uint64_t>(1);
    b.Put<uint32_t>(0).Put<uint64_t>(0);
    cases.push_back({"arrays three deep", b.str(), {"key 'deep'", "nested deeper than 2 levels"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Str("a").Put<uint32_t>(9).Put<uint32_t>(4).Put<uint64_t>(uint64_t(1) << 60);
    cases.push_back({"array count", b.str(), {"array count of 'a' = 1152921504606846976 at byte 41"}});
  }
  {
    GgufBytes b;  // 2^23 + 1 one-byte items: fits the file, not the memory allowance
    b.Header(3, 0, 1).Str("a").Put<uint32_t>(9).Put<uint32_t>(0).Put<uint64_t>((uint64_t(1) << 23) + 1);
    b.Raw(std::string((size_t(1) << 23) + 1, '\0'));
    cases.push_back({"array items in all", b.str(), {"array count of 'a' = 8388609 at byte 41", "at most 8388608 more array items in all"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 2).KvU32("k", 1).KvU32("k", 2);
    cases.push_back({"key twice", b.str(), {"key 'k' at byte 41 appears twice"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).KvU32("general.alignment", 48);
    cases.push_back({"alignment", b.str(), {"general.alignment = 48 must be a power of two"}});
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).KvStr("general.alignment", "32");
    cases.push_back({"alignment type", b.str(), {"'general.alignment' has type string; expected uint32"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info(std::string(64, 'n'), {4}, 0, 0).Align().Floats({1, 2, 3, 4});
    cases.push_back({"long name", b.str(), {"tensor name at byte 24 is 64 bytes long; allowed at most 63"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {1, 1, 1, 1, 1}, 0, 0).Align().Floats({1});
    cases.push_back({"5 dims", b.str(), {"tensor 'w' at byte 24: 5 dimensions; allowed 1..4"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {4, 0}, 0, 0).Align().Floats({1, 2, 3, 4});
    cases.push_back({"zero dim", b.str(), {"tensor 'w' at byte 24: ne[1] = 0 is out of range"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {uint64_t(1) << 30, uint64_t(1) << 30}, 0, 0).Align().Floats({1, 2, 3, 4});
    cases.push_back({"dims product", b.str(), {"tensor 'w' at byte 24: ne {1073741824, 1073741824} has too many"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {4}, 4, 0).Align().Floats({1, 2, 3, 4});
    cases.push_back({"unknown type", b.str(), {"tensor 'w' at byte 24: ggml type 4 is unknown"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {48}, 8, 0).Align().Raw(std::string(64, '\0'));
    cases.push_back({"row not whole blocks", b.str(), {"ne[0] = 48 is not a multiple of q8_0's block of 32"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {4}, 0, 8).Align().Floats({1, 2, 3, 4, 5, 6});
    cases.push_back({"misaligned offset", b.str(), {"tensor 'w' at byte 24: data offset 8 is not a multiple of the alignment 32"}});
  }
  {
    GgufBytes b;
    b.Header(3, 1, 0).Info("w", {4, 2}, 0, 0).Align().Floats({1, 2, 3, 4});
    cases.push_back({"tensor past the end", b.str(), {"tensor 'w': bytes 96..128 (ne {4, 2} as f32) lie past the end of the file (112 bytes)"}});
  }
  {
    GgufBytes b;
    b.Header(3, 2, 0).Info("w", {4}, 0, 0).Info("w", {4}, 0, 32).Align().Floats({1, 2, 3, 4, 0, 0, 0, 0, 1, 2, 3, 4});
    cases.push_back({"name twice", b.str(), {"tensor 'w' at byte 57 appears twice (first at byte 24)"}});
  }
  return cases;
}

TEST(GgufFile, RefusesEachBadFieldWithItsMessage) {
  TempDir dir;
  for (const BadCase& c : BadCases()) {
    auto f = OpenBytes(dir, c.bytes);
    ASSERT_FALSE(f.ok()) << c.what;
    EXPECT_THAT(f.message(), HasSubstr("t.gguf: ")) << c.what;
    for (const std::string& part : c.message_parts) EXPECT_THAT(f.message(), HasSubstr(part)) << c.what;
    EXPECT_FALSE(f.status().parts().empty()) << c.what;  // translatable
  }
}

TEST(GgufFile, EveryTruncationOfAGoodFileIsRefused) {
  TempDir dir;
  const std::string good = Good().str();
  for (size_t n = 0; n < good.size(); ++n) {
    auto f = OpenBytes(dir, good.substr(0, n));
    EXPECT_FALSE(f.ok()) << n;
  }
}

TEST(GgufFile, FixturesParse) {
  for (const char* rel : {"models/llama_e2e.gguf", "models/qwen2.gguf", "models/mistral.gguf", "quant/q4_K.gguf",
                          "quant/iq2_xxs.gguf", "tokenizers/llama3_style.gguf"}) {
    auto f = GgufFile::Open(GgufFixture(rel));
    EXPECT_TRUE(f.ok()) << rel << ": " << f.message();
  }
  auto q = GgufFile::Open(GgufFixture("models/qwen2.gguf"));
  ASSERT_TRUE(q.ok());
  EXPECT_EQ((*q)->version(), 2u);
  const GgufTensor* t = (*q)->FindTensor("blk.0.attn_k.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->ne, (std::vector<int64_t>{32, 16}));  // HF [out 16, in 32], innermost first
}

}  // namespace
}  // namespace attnviz::model
