// attnviz's reading of tests/fixtures/gguf/models/llama_e2e.gguf against llama.cpp's own (node-llama-cpp, run
// offline by tests/fixtures/gguf/llama_cpp/llama_cpp_reference.mjs; the numbers are committed): the same token ids
// from the file's tokenizer.ggml.*, and the same next-token logits from our residual stream (final RMSNorm, then the
// tied embedding). llama.cpp rotates interleaved pairs of the permuted q/k rows, attnviz rotate_half pairs of the
// unpermuted ones: equal logits say the permutation was undone right.
#include <cmath>
#include <fstream>

#include "gguf_test_util.h"
#include "io/npy.h"
#include "model/gguf_quant.h"
#include "model/gguf_vocab_reader.h"
#include "model/gguf_weights.h"
#include "model/run.h"
#include "test_util.h"
#include "tokenize/gguf_tokenizer.h"

namespace attnviz::model {
namespace {

using testing::GgufFixture;

TEST(GgufLlamaCpp, SameIdsAndLogitsAsLlamaCpp) {
  auto file = GgufFile::Open(GgufFixture("models/llama_e2e.gguf"));
  ASSERT_TRUE(file.ok()) << file.message();
  auto model = LoadGgufModel(*file);
  ASSERT_TRUE(model.ok()) << model.message();
  auto vocab = ReadGgufVocab(**file);
  ASSERT_TRUE(vocab.ok()) << vocab.message();
  auto tokenizer = tokenize::MakeGgufTokenizer(*vocab);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  std::ifstream in(GgufFixture("llama_cpp/llama_cpp_reference.json"));
  const auto ref = nlohmann::json::parse(in);
  auto logits = ReadNpy(GgufFixture("llama_cpp/llama_cpp_logits.npy"));
  ASSERT_TRUE(logits.ok()) << logits.message();
  const ModelConfig& c = (*model)->config();
  const ModelParams& p = (*model)->params();
  ASSERT_TRUE(c.tie_word_embeddings);
  ASSERT_EQ(logits->shape[1], (size_t)c.vocab);
  size_t row = 0;
  double worst = 0;
  for (const auto& k : ref["cases"]) {
    SCOPED_TRACE(k["name"].get<std::string>());
    auto tokens = (*tokenizer)->Encode(k["text"].get<std::string>());
    ASSERT_TRUE(tokens.ok()) << tokens.message();
    std::vector<int> ids;
    for (const auto& t : *tokens) ids.push_back(t.id);
    ASSERT_EQ(ids, k["ids"].get<std::vector<int>>());
    auto run = RunModel(**model, ids);
    ASSERT_TRUE(run.ok()) << run.message();
    const int n = (int)ids.size(), d = c.d_model;
    const float* last = run->hidden.data.data() + (size_t)c.n_layer * n * d;  // after the last block
    for (int pos : k["logit_positions"].get<std::vector<int>>()) {
      const float* x = last + (size_t)pos * d;
      double ss = 0;
      for (int i = 0; i < d; ++i) ss += (double)x[i] * x[i];
      const double inv = 1.0 / std::sqrt(ss / d + c.norm_eps);
      for (int v = 0; v < c.vocab; ++v) {
        double z = 0;
        for (int i = 0; i < d; ++i) z += x[i] * inv * p.final_norm.w[i] * p.tok_emb[(size_t)v * d + i];
        const double want = logits->data[row * c.vocab + v];
        worst = std::max(worst, std::fabs(z - want));
      }
      ++row;
    }
  }
  EXPECT_EQ(row, logits->shape[0]);
  // float32 on both sides (the reference keeps K and V in F32; llama.cpp's default F16 moves logits by ~2e-2).
  EXPECT_LT(worst, 1e-4) << "largest |logit difference|";
  std::printf("largest |logit - llama.cpp's| = %.3g\n", worst);
}

// Each probe holds one quantized tensor, token_embd (8 rows of 256: one k-quant super-block or eight legacy blocks
// per row), and float32 elsewhere: llama.cpp reads its rows with ggml's dequantize_row_*, so logits within float
// noise of llama.cpp's say attnviz dequantizes that type as ggml does (a wrong scale or nibble moves them by O(1)).
TEST(GgufLlamaCpp, DequantizesEveryTypeAsGgml) {
  std::ifstream in(GgufFixture("llama_cpp/llama_cpp_reference.json"));
  const auto probe = nlohmann::json::parse(in)["probe"];
  auto logits = ReadNpy(GgufFixture("llama_cpp/llama_cpp_probe_logits.npy"));
  ASSERT_TRUE(logits.ok()) << logits.message();
  const std::vector<int> ids = probe["ids"].get<std::vector<int>>();
  const int n = (int)ids.size();
  size_t row = 0;
  for (const std::string type : probe["types"].get<std::vector<std::string>>()) {
    SCOPED_TRACE(type);
    auto file = GgufFile::Open(GgufFixture("probe/" + type + ".gguf"));
    ASSERT_TRUE(file.ok()) << file.message();
    EXPECT_STREQ(GgmlTypeName((*file)->FindTensor("token_embd.weight")->type), type.c_str());
    auto model = LoadGgufModel(*file);
    ASSERT_TRUE(model.ok()) << model.message();
    const ModelConfig& c = (*model)->config();
    const GgufTensor* out = (*file)->FindTensor("output.weight");
    ASSERT_NE(out, nullptr);
    std::vector<float> w(out->elements);
    ASSERT_TRUE(DequantizeTensorRows(**file, *out, 0, out->rows(), w.data()).ok());
    auto run = RunModel(**model, ids);
    ASSERT_TRUE(run.ok()) << run.message();
    const int d = c.d_model;
    double worst = 0;
    for (int pos = 0; pos < n; ++pos, ++row) {
      const float* x = run->hidden.data.data() + ((size_t)c.n_layer * n + pos) * d;
      double ss = 0;
      for (int i = 0; i < d; ++i) ss += (double)x[i] * x[i];
      const double inv = 1.0 / std::sqrt(ss / d + c.norm_eps);
      for (int v = 0; v < c.vocab; ++v) {
        double z = 0;
        for (int i = 0; i < d; ++i) z += x[i] * inv * (*model)->params().final_norm.w[i] * w[(size_t)v * d + i];
        worst = std::max(worst, std::fabs(z - logits->data[row * c.vocab + v]));
      }
    }
    EXPECT_LT(worst, 1e-4) << "largest |logit - llama.cpp's|";
    std::printf("%-5s largest |logit - llama.cpp's| = %.3g\n", type.c_str(), worst);
  }
  EXPECT_EQ(row, logits->shape[0]);
}

}  // namespace
}  // namespace attnviz::model
