// core/model/gguf_quant.*: each type's dequantization equals, bit for bit, the fixture script's own (numpy, in
// ggml's order of operations) for the tensors it quantized (tests/fixtures/gguf/quant/<type>.gguf and .npy).
#include "model/gguf_quant.h"

#include <cstring>

#include "gguf_test_util.h"
#include "io/npy.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using testing::GgufFixture;
using ::testing::HasSubstr;

class GgufQuant : public ::testing::TestWithParam<std::string> {};

TEST_P(GgufQuant, EqualsTheScriptsDequantization) {
  const std::string type = GetParam();
  auto f = GgufFile::Open(GgufFixture("quant/" + type + ".gguf"));
  ASSERT_TRUE(f.ok()) << f.message();
  const GgufTensor* t = (*f)->FindTensor("x");
  ASSERT_NE(t, nullptr);
  EXPECT_STREQ(GgmlTypeName(t->type), type.c_str());
  auto want = ReadNpy(GgufFixture("quant/" + type + ".npy"));
  ASSERT_TRUE(want.ok()) << want.message();
  ASSERT_EQ(want->data.size(), (size_t)t->elements);
  // All rows at once, then each row alone into a reused buffer (the per-layer path).
  std::vector<float> all(t->elements);
  ASSERT_TRUE(DequantizeTensorRows(**f, *t, 0, t->rows(), all.data()).ok());
  size_t differ = 0;
  for (size_t i = 0; i < all.size(); ++i) differ += std::memcmp(&all[i], &want->data[i], 4) != 0;
  EXPECT_EQ(differ, 0u) << type << ": first " << all[0] << " vs " << want->data[0];
  std::vector<float> row(t->ne[0]);
  for (int64_t r = 0; r < t->rows(); ++r) {
    ASSERT_TRUE(DequantizeTensorRows(**f, *t, r, 1, row.data()).ok());
    EXPECT_EQ(0, std::memcmp(row.data(), all.data() + r * t->ne[0], row.size() * 4)) << type << " row " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Types, GgufQuant,
                         ::testing::Values("f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q2_K",
                                           "q3_K", "q4_K", "q5_K", "q6_K"));

TEST(GgufQuant, RefusesATypeItCannotDequantizeByName) {
  auto f = GgufFile::Open(GgufFixture("quant/iq2_xxs.gguf"));
  ASSERT_TRUE(f.ok()) << f.message();
  std::vector<float> out(256);
  Status s = DequantizeTensorRows(**f, (*f)->tensors()[0], 0, 1, out.data());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("iq2_xxs.gguf: tensor 'x' is stored as iq2_xxs; supported: f32"));
}

}  // namespace
}  // namespace attnviz::model
