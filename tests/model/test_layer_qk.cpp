// core/model/run.h LayerQk: q and k of a layer made again from the residual stream entering it are the run's own,
// bit for bit (what a streamed layer relies on: it keeps its input, and exact rows from the remade q and k equal the
// pass's), for every family and for a GGUF file whose weights are dequantized per layer.
#include <cstring>

#include "gguf_test_util.h"
#include "model/gguf_weights.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

struct QkSink : LayerSink {
  std::vector<Tensor> q, k;
  std::vector<std::vector<float>> input;  // [n_layer + 1][n * d_model]: entering each block, then the last output
  Status OnEmbeddings(const float* hidden, int n, int d) override {
    input.emplace_back(hidden, hidden + (size_t)n * d);
    return Status::Ok();
  }
  Status OnLayer(const LayerOutput& o) override {
    for (auto [view, out] : {std::pair{&o.q, &q}, std::pair{&o.k, &k}}) {
      Tensor t;
      t.Resize({view->n_head, view->n, view->d});
      for (size_t h = 0; h < view->n_head; ++h)
        for (size_t i = 0; i < view->n; ++i)
          std::memcpy(t.data.data() + (h * view->n + i) * view->d, view->data + h * view->head_stride + i * view->row_stride,
                      view->d * sizeof(float));
      out->push_back(std::move(t));
    }
    input.emplace_back(o.hidden, o.hidden + (size_t)o.n * o.d_model);
    return Status::Ok();
  }
};

void ExpectRemadeQkEqualTheRuns(const Model& model) {
  const ModelConfig& c = model.config();
  const int n = (int)std::min<int64_t>(c.max_positions, 40);
  std::vector<int> ids((size_t)n);
  for (int i = 0; i < n; ++i) ids[(size_t)i] = (i * 31 + 3) % c.vocab;
  QkSink sink;
  RunOptions options;
  options.stream_maps = true;  // as the app's long inputs (q and k do not depend on it)
  ASSERT_TRUE(RunModel(model, ids, options, &sink).ok());
  ASSERT_EQ((int)sink.q.size(), c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    Tensor q, k;
    ASSERT_TRUE(LayerQk(model, l, sink.input[(size_t)l].data(), n, &q, &k).ok()) << "layer " << l;
    ASSERT_EQ(q.shape, sink.q[(size_t)l].shape) << "layer " << l;
    ASSERT_EQ(k.shape, sink.k[(size_t)l].shape) << "layer " << l;
    EXPECT_EQ(std::memcmp(q.data.data(), sink.q[(size_t)l].data.data(), q.data.size() * sizeof(float)), 0)
        << "q of layer " << l;
    EXPECT_EQ(std::memcmp(k.data.data(), sink.k[(size_t)l].data.data(), k.data.size() * sizeof(float)), 0)
        << "k of layer " << l;
  }
}

class LayerQkOf : public ::testing::TestWithParam<std::string> {};

TEST_P(LayerQkOf, RemadeQkAreTheRunsBitForBit) {
  auto model = LoadModel(testing::FixtureDir(GetParam()));
  ASSERT_TRUE(model.ok()) << model.message();
  ExpectRemadeQkEqualTheRuns(**model);
}

INSTANTIATE_TEST_SUITE_P(Models, LayerQkOf, ::testing::ValuesIn(testing::AllFixtures()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(LayerQk, QuantizedGgufLayersDequantizedPerLayer) {
  auto model = LoadGgufModel(testing::GgufFixture("models/qwen2_mixed.gguf"));
  ASSERT_TRUE(model.ok()) << model.message();
  ASSERT_TRUE((*model)->per_layer());
  ExpectRemadeQkEqualTheRuns(**model);
}

TEST(LayerQk, RefusesALayerOrLengthOutOfRange) {
  auto model = LoadModel(testing::FixtureDir("llama"));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  std::vector<float> input((size_t)4 * c.d_model, 0.5f);
  Tensor q, k;
  Status s = LayerQk(**model, c.n_layer, input.data(), 4, &q, &k);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), ::testing::HasSubstr("layer"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr(std::to_string(c.n_layer - 1)));
  s = LayerQk(**model, 0, input.data(), 0, &q, &k);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), ::testing::HasSubstr("tokens"));
}

}  // namespace
}  // namespace attnviz::model
