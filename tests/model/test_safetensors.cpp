// core/model/safetensors.*: the header checks (each error with its message), dtype conversions, the mmap.
#include "model/safetensors.h"

#include <sys/stat.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::FloatBytes;
using testing::MakeSafetensors;
using testing::SafetensorsBytes;
using testing::TempDir;
using testing::WriteBytes;
using ::testing::HasSubstr;

Result<std::shared_ptr<const SafetensorsFile>> OpenBytes(const TempDir& dir, const std::string& bytes,
                                                         const std::string& name = "t.safetensors") {
  WriteBytes(dir.File(name), bytes);
  return SafetensorsFile::Open(dir.File(name));
}

TEST(Safetensors, ReadsTensorsMetadataAndData) {
  TempDir dir;
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};
  auto f = OpenBytes(dir, MakeSafetensors({{"a", "F32", {2, 3}, FloatBytes(a)},
                                           {"s", "F32", {}, FloatBytes({7})},
                                           {"ids", "I64", {1, 2}, std::string(16, '\1')}}));
  ASSERT_TRUE(f.ok()) << f.message();
  const SafetensorsFile& file = **f;
  ASSERT_EQ(file.tensors().size(), 3u);
  EXPECT_EQ(file.metadata().at("format"), "pt");
  const TensorInfo* t = file.Find("a");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t->elements, 6u);
  EXPECT_EQ(t->begin % 8, 0u);  // header padded to 8 bytes
  std::vector<float> out(6);
  ASSERT_TRUE(ConvertToFloat(file, *t, out.data()).ok());
  EXPECT_EQ(out, a);
  EXPECT_EQ(file.Find("s")->elements, 1u);  // scalar
  EXPECT_EQ(file.Find("missing"), nullptr);
  // An I64 buffer is a valid entry, but not a weight.
  Status s = ConvertToFloat(file, *file.Find("ids"), out.data());
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'ids' has dtype I64"));
}

// An empty tensor (a dimension of 0) converts to nothing, even into a null buffer (an empty vector's data()):
// under UBSan, handing memcpy a null pointer fails this test.
TEST(Safetensors, AnEmptyTensorConvertsIntoANullBuffer) {
  TempDir dir;
  for (const char* dtype : {"F32", "F16", "BF16"}) {
    auto f = OpenBytes(dir, MakeSafetensors({{"empty", dtype, {0, 4}, ""}}));
    ASSERT_TRUE(f.ok()) << f.message();
    const TensorInfo* t = (*f)->Find("empty");
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->elements, 0u);
    EXPECT_TRUE(ConvertToFloat(**f, *t, nullptr).ok()) << dtype;
  }
}

TEST(Safetensors, TruncatedBelowEightBytes) {
  TempDir dir;
  auto f = OpenBytes(dir, "abc");
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("truncated"));
  EXPECT_THAT(f.message(), HasSubstr("t.safetensors"));
}

TEST(Safetensors, HeaderLongerThanFile) {
  TempDir dir;
  std::string bytes = SafetensorsBytes("{}      ", "");
  bytes[0] = char(200);  // claims a 200-byte header in a 16-byte file
  auto f = OpenBytes(dir, bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("header length 200 is longer than the file"));
}

TEST(Safetensors, HugeHeaderLengthIsRejected) {
  TempDir dir;
  std::string bytes = SafetensorsBytes("{}      ", "");
  for (int i = 0; i < 8; ++i) bytes[i] = char(0xff);
  auto f = OpenBytes(dir, bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("longer than the file"));
}

TEST(Safetensors, BadJsonNamesTheByte) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes("{\"a\": {\"dtype\": \"F32\",, }}", ""));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("not valid JSON at byte 23"));
}

TEST(Safetensors, UnknownDtypeIsNamed) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes(R"({"w": {"dtype": "F33", "shape": [1], "data_offsets": [0, 4]}})",
                                           std::string(4, '\0')));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("tensor 'w': unknown dtype \"F33\""));
}

TEST(Safetensors, OffsetsOutOfRange) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes(R"({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})",
                                           std::string(8, '\0')));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("tensor 'w': data_offsets [0,16] out of range"));
  EXPECT_THAT(f.message(), HasSubstr("only 8 bytes"));
}

TEST(Safetensors, OffsetsDisagreeWithShape) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes(R"({"w": {"dtype": "F16", "shape": [3], "data_offsets": [0, 8]}})",
                                           std::string(8, '\0')));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("span 8 bytes but shape [3] x F16 needs 6"));
}

TEST(Safetensors, OverlappingTensors) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                               "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                                           std::string(12, '\0')));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("tensors 'a' and 'b' overlap"));
}

TEST(Safetensors, BeginAfterEnd) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes(R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 4]}})",
                                           std::string(8, '\0')));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("begin after end"));
}

TEST(Safetensors, AbsurdShapeOverflows) {
  TempDir dir;
  auto f = OpenBytes(dir, SafetensorsBytes(
                              R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 4]}})",
                              std::string(4, '\0')));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("tensor 'a': absurd shape"));
  auto g = OpenBytes(dir, SafetensorsBytes(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})",
                                           std::string(4, '\0')));
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.message(), HasSubstr("non-negative integers"));
}

TEST(Safetensors, TruncatedData) {
  TempDir dir;
  std::string bytes = MakeSafetensors({{"w", "F32", {4, 4}, FloatBytes(std::vector<float>(16, 1.0f))}});
  bytes.resize(bytes.size() - 5);
  auto f = OpenBytes(dir, bytes);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.message(), HasSubstr("tensor 'w'"));
  EXPECT_THAT(f.message(), HasSubstr("out of range"));
  EXPECT_THAT(f.message(), HasSubstr("truncated"));
}

TEST(Safetensors, BadEntriesAreNamed) {
  TempDir dir;
  auto a = OpenBytes(dir, SafetensorsBytes(R"([1, 2])", ""));
  EXPECT_THAT(a.message(), HasSubstr("must be a JSON object"));
  auto b = OpenBytes(dir, SafetensorsBytes(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", std::string(4, 0)));
  EXPECT_THAT(b.message(), HasSubstr("tensor 'w': missing or non-string \"dtype\""));
  auto c = OpenBytes(dir, SafetensorsBytes(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", ""));
  EXPECT_THAT(c.message(), HasSubstr("tensor 'w': \"data_offsets\" must be [begin, end]"));
  auto d = OpenBytes(dir, SafetensorsBytes(R"({"__metadata__": {"a": 1}})", ""));
  EXPECT_THAT(d.message(), HasSubstr("__metadata__ value of 'a' must be a string"));
}

TEST(Safetensors, RefusesNonRegularFilesAndMissingFiles) {
  TempDir dir;
  auto a = SafetensorsFile::Open(dir.path());
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.message(), HasSubstr("not a regular file"));
  auto b = SafetensorsFile::Open("/dev/zero");
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.message(), HasSubstr("not a regular file"));
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto c = SafetensorsFile::Open(fifo);  // must not block
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.message(), HasSubstr("not a regular file"));
  auto d = SafetensorsFile::Open(dir.File("nope.safetensors"));
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.message(), HasSubstr("nope.safetensors: cannot open"));
}

TEST(Safetensors, HalfAndBFloat16Conversions) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(HalfToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(BFloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(BFloat16ToFloat(0xc0a0), -5.0f);
  EXPECT_EQ(BFloat16ToFloat(0x3eab), 0.333984375f);
  // Through a file.
  TempDir dir;
  std::string f16 = {'\x00', '\x3c', '\x00', '\xc0'}, bf16 = {'\x80', '\x3f', '\xa0', '\xc0'};
  auto f = OpenBytes(dir, MakeSafetensors({{"h", "F16", {2}, f16}, {"b", "BF16", {2}, bf16}}));
  ASSERT_TRUE(f.ok()) << f.message();
  float out[2];
  ASSERT_TRUE(ConvertToFloat(**f, *(*f)->Find("h"), out).ok());
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -2.0f);
  ASSERT_TRUE(ConvertToFloat(**f, *(*f)->Find("b"), out).ok());
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -5.0f);
}

TEST(Safetensors, AllHalfValuesRoundTripThroughFloat) {
  // Every finite F16 converts to a float that converts back to the same F16 (via the bit pattern rule).
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat((uint16_t)h);
    if (std::isnan(f)) continue;
    const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    float want = exp == 0 ? sign * std::ldexp((float)mant, -24)
                          : exp == 31 ? sign * std::numeric_limits<float>::infinity()
                                      : sign * std::ldexp(1.0f + mant / 1024.0f, (int)exp - 15);
    ASSERT_EQ(f, want) << "h = " << h;
  }
}

}  // namespace
}  // namespace attnviz::model
