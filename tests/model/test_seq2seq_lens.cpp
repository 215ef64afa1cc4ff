// core/model/seq2seq_lens.*: the decoder's logit lens against make_seq2seq_fixtures.py's float64 reference
// (reference/lens_logits.npy: the LM head on every decoder layer's stream), and its last layer against the
// model's own predictions.
#include "model/seq2seq_lens.h"

#include <cmath>

#include "seq2seq_test_util.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using namespace seq2seq_cases;

class Seq2SeqLensFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqLensFixture, EveryLayerMatchesTheReference) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  const int n_tgt = (int)c.tgt.size(), L = c.model->config().decoder.n_layer, k = 3;
  auto lens = Seq2SeqLogitLens(*c.model, run->decoder_hidden.data.data(), n_tgt, c.labels, k);
  ASSERT_TRUE(lens.ok()) << lens.message();
  ASSERT_EQ((int)lens->size(), L + 1);
  const Tensor want = Reference(name, "lens_logits.npy");  // [L + 1, n_tgt, decoder_vocab]
  ASSERT_EQ(want.shape, (std::vector<size_t>{(size_t)L + 1, (size_t)n_tgt, (size_t)c.model->config().decoder_vocab}));
  const int V = (int)want.dim(2);
  for (int l = 0; l <= L; ++l)
    for (int i = 0; i < n_tgt; ++i) {
      const float* row = want.data.data() + ((size_t)l * n_tgt + i) * V;
      double mx = row[0], sum = 0;
      for (int j = 0; j < V; ++j) mx = std::max(mx, (double)row[j]);
      for (int j = 0; j < V; ++j) sum += std::exp((double)row[j] - mx);
      auto prob = [&](int id) { return std::exp((double)row[id] - mx) / sum; };
      const LensPosition& p = (*lens)[(size_t)l].positions[(size_t)i];
      const std::string what = name + " layer " + std::to_string(l) + " position " + std::to_string(i);
      ASSERT_EQ((int)p.top.size(), k) << what;
      EXPECT_NEAR(p.top[0].prob, prob(p.top[0].id), 2e-5) << what;
      for (int j = 0; j < V; ++j) EXPECT_LE(prob(j), p.top[0].prob + 2e-5) << what << ": id " << j << " beats the top";
      ASSERT_TRUE(p.has_next) << what;
      EXPECT_NEAR(p.next_prob, prob(c.labels[(size_t)i]), 2e-5) << what;
    }
}

TEST_P(Seq2SeqLensFixture, TheLastLayerIsTheModelsPrediction) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  const int n_tgt = (int)c.tgt.size(), L = c.model->config().decoder.n_layer;
  const float* last = run->decoder_hidden.data.data() + (size_t)L * n_tgt * c.model->config().d_model;
  auto lens = Seq2SeqLogitLens(*c.model, run->decoder_hidden.data.data(), n_tgt, c.labels, 2);
  ASSERT_TRUE(lens.ok()) << lens.message();
  auto top = Seq2SeqTopTokens(*c.model, last, n_tgt, 2);
  ASSERT_TRUE(top.ok());
  const std::vector<double> tl = c.loss["token_loss"].get<std::vector<double>>();
  for (int i = 0; i < n_tgt; ++i) {
    const LensPosition& p = lens->back().positions[(size_t)i];
    EXPECT_EQ(p.top[0].id, (*top)[(size_t)i].top[0].id);
    EXPECT_EQ(p.top[0].prob, (*top)[(size_t)i].top[0].prob);
    EXPECT_NEAR(-std::log(p.next_prob), tl[(size_t)i], 1e-4 * std::max(1.0, tl[(size_t)i])) << name << " " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqLensFixture, ::testing::Values("bart", "mbart", "t5", "t5_v11"));

TEST(Seq2SeqLens, RefusesBadKAndLabels) {
  Case c = Load("t5_v11");
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok());
  const int n_tgt = (int)c.tgt.size(), V = c.model->config().decoder_vocab;
  auto zero = Seq2SeqLogitLens(*c.model, run->decoder_hidden.data.data(), n_tgt, c.labels, 0);
  EXPECT_FALSE(zero.ok());
  EXPECT_FALSE(Seq2SeqLogitLens(*c.model, run->decoder_hidden.data.data(), n_tgt, c.labels, V + 1).ok());
  std::vector<int> short_labels(c.labels.begin(), c.labels.end() - 1);
  auto s = Seq2SeqLogitLens(*c.model, run->decoder_hidden.data.data(), n_tgt, short_labels, 1);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), ::testing::HasSubstr("labels"));
}

}  // namespace
}  // namespace attnviz::model
