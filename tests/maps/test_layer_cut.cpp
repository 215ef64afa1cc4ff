// core/maps/layer_cut.* and StackedHeads (layer_stack.h): a LayerMaps with special tokens cut out keeps, for every
// kept position, the same cell of every map, the same token, the same row figures and the same q, k rows and value
// scale; nothing to cut shares the layer; every layer's heads stacked are each layer's maps in order.
#include "maps/layer_cut.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "maps/layer_stack.h"
#include "sandbox/pipeline.h"

namespace attnviz {
namespace {

// A sandbox layer over `text` with q, k kept and the first and last tokens marked special.
std::shared_ptr<const LayerMaps> LayerWithSpecialEnds(const std::string& text, int n_head, float temperature = 1.0f) {
  Pipeline p;
  EXPECT_TRUE(p.SetText(text).ok());
  AttentionConfig c;
  c.n_head = n_head;
  c.temperature = temperature;
  EXPECT_TRUE(p.SetConfig(c).ok());
  EXPECT_TRUE(p.Run(Stage::kMetrics).ok());
  auto maps = std::make_shared<LayerMaps>(p.tensors());
  std::vector<Token> tokens = maps->kv_tokens;
  tokens.front().special = tokens.back().special = true;
  maps->kv_tokens = TokenList(std::move(tokens));
  maps->query_tokens = maps->kv_tokens;
  auto scale = std::make_shared<Tensor>();  // [n_head, n]: a value scale that differs in every column
  scale->Resize({(size_t)n_head, (size_t)maps->n_k()});
  for (size_t i = 0; i < scale->size(); ++i) scale->data[i] = 1.0f + (float)i;
  maps->col_scale = scale;
  return maps;
}

TEST(LayerCut, SpecialTokensGoFromEveryPartAlike) {
  const auto full = LayerWithSpecialEnds("the cat sat on the mat", 3);
  const int n = full->n_q(), n_head = full->n_head();
  const std::vector<int> keep = NonSpecialPositions(full->kv_tokens);
  ASSERT_EQ(keep, (std::vector<int>{1, 2, 3, 4}));
  const std::shared_ptr<const LayerMaps> cut = CutLayerMaps(full, keep);
  ASSERT_NE(cut, full);
  const int m = (int)keep.size();
  // 1. The maps, q and k, the value scale.
  ASSERT_EQ(cut->probs->shape, (std::vector<size_t>{(size_t)n_head, (size_t)m, (size_t)m}));
  const size_t d = full->q->dim(2);
  ASSERT_EQ(cut->q->shape, (std::vector<size_t>{(size_t)n_head, (size_t)m, d}));
  ASSERT_EQ(cut->k->dim(1), (size_t)m);
  ASSERT_EQ(cut->col_scale->shape, (std::vector<size_t>{(size_t)n_head, (size_t)m}));
  for (int h = 0; h < n_head; ++h)
    for (int a = 0; a < m; ++a) {
      for (int b = 0; b < m; ++b)
        EXPECT_EQ(cut->probs->data[((size_t)h * m + a) * m + b],
                  full->probs->data[((size_t)h * n + keep[a]) * n + keep[b]]);
      for (size_t c = 0; c < d; ++c) {
        EXPECT_EQ(cut->q->data[((size_t)h * m + a) * d + c], full->q->data[((size_t)h * n + keep[a]) * d + c]);
        EXPECT_EQ(cut->k->data[((size_t)h * m + a) * d + c], full->k->data[((size_t)h * n + keep[a]) * d + c]);
      }
      EXPECT_EQ(cut->col_scale->data[(size_t)h * m + a], full->col_scale->data[(size_t)h * n + keep[a]]);
    }
  // 2. The tokens: one list for rows and columns, the kept ones in order.
  ASSERT_EQ(cut->kv_tokens.size(), (size_t)m);
  EXPECT_EQ(cut->query_tokens.shared(), cut->kv_tokens.shared());
  for (int a = 0; a < m; ++a) EXPECT_EQ(cut->kv_tokens[(size_t)a].display, full->kv_tokens[(size_t)keep[a]].display);
  // 3. The row figures of the kept rows (what the model computed over the full row).
  ASSERT_EQ(cut->metrics.size(), (size_t)n_head);
  for (int h = 0; h < n_head; ++h) {
    ASSERT_EQ(cut->metrics[(size_t)h].rows.size(), (size_t)m);
    for (int a = 0; a < m; ++a) {
      EXPECT_EQ(cut->metrics[(size_t)h].rows[(size_t)a].entropy, full->metrics[(size_t)h].rows[(size_t)keep[a]].entropy);
      EXPECT_EQ(cut->metrics[(size_t)h].rows[(size_t)a].max_weight,
                full->metrics[(size_t)h].rows[(size_t)keep[a]].max_weight);
    }
  }
  // 4. How the maps were made stays.
  EXPECT_EQ(cut->multiplier, full->multiplier);
  EXPECT_EQ(cut->d_qk, full->d_qk);
  EXPECT_EQ(cut->scaled, full->scaled);
  EXPECT_EQ(cut->temperature, full->temperature);
  EXPECT_EQ(cut->mask, full->mask);
}

TEST(LayerCut, NothingToCutSharesTheLayer) {
  const auto full = LayerWithSpecialEnds("the cat sat", 2);
  std::vector<int> all;
  for (int i = 0; i < full->n_q(); ++i) all.push_back(i);
  EXPECT_EQ(CutLayerMaps(full, all), full);
  // A layer with no whole map (pooled) keeps every token.
  auto pooled = std::make_shared<LayerMaps>(*full);
  pooled->probs = EmptyTensor();
  pooled->pooled = true;
  const std::shared_ptr<const LayerMaps> as_pooled = pooled;
  EXPECT_EQ(CutLayerMaps(as_pooled, {1}), as_pooled);
  // Only special tokens: all of them are kept (a map of nothing shows nothing).
  std::vector<Token> tokens = full->kv_tokens;
  for (Token& t : tokens) t.special = true;
  EXPECT_EQ(NonSpecialPositions(TokenList(tokens)), all);
}

TEST(StackedHeads, EveryLayersHeadsInOrder) {
  const std::string text = "the cat sat on the mat";
  std::vector<std::shared_ptr<const LayerMaps>> layers = {LayerWithSpecialEnds(text, 2, 1.0f),
                                                          LayerWithSpecialEnds(text, 2, 3.0f)};
  const LayerMaps stacked = StackedHeads(StackOfLayers(layers, StackKind::kSelf));
  const Tensor& a = *layers[0]->probs;
  ASSERT_EQ(stacked.probs->shape, (std::vector<size_t>{4, a.dim(1), a.dim(2)}));
  for (size_t l = 0; l < 2; ++l)
    for (size_t c = 0; c < a.size(); ++c) ASSERT_EQ(stacked.probs->data[l * a.size() + c], layers[l]->probs->data[c]);
  EXPECT_NE(layers[0]->probs->data, layers[1]->probs->data);  // the temperature made two different layers
  ASSERT_EQ(stacked.metrics.size(), 4u);
  EXPECT_EQ(stacked.metrics[3].entropy, layers[1]->metrics[1].entropy);
  EXPECT_EQ(stacked.kv_tokens.shared(), layers[0]->kv_tokens.shared());
  // A missing layer, or one of another shape: nothing to stack.
  EXPECT_TRUE(StackedHeads(StackOfLayers({layers[0], nullptr}, StackKind::kSelf)).probs->empty());
  EXPECT_TRUE(StackedHeads(StackOfLayers({layers[0], LayerWithSpecialEnds(text, 3)}, StackKind::kSelf)).probs->empty());
}

}  // namespace
}  // namespace attnviz
