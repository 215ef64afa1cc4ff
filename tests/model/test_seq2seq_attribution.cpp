// core/model/seq2seq_attribution.*: direct logit attribution at a decoder position against
// make_seq2seq_fixtures.py's float64 components (reference/attribution.json), the sum rule, the logit against the
// LM head's, and the post-norm refusal.
#include "model/seq2seq_attribution.h"

#include <cmath>

#include "seq2seq_test_util.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using namespace seq2seq_cases;

class Seq2SeqAttributionFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqAttributionFixture, ComponentsMatchTheReferenceAndAddUpToTheLogit) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  const nlohmann::json ref = ReadJson(CaseDir(name) + "/reference/attribution.json");
  const int position = ref["position"], target = ref["target"];
  auto a = Seq2SeqAttributeLogit(*c.model, c.src, c.tgt, position, target);
  ASSERT_TRUE(a.ok()) << a.message();
  const double logit = ref["logit"];
  const double tol = 1e-4 * std::max(1.0, std::abs(logit));
  EXPECT_NEAR(a->logit, logit, tol);
  const nlohmann::json& comps = ref["components"];
  ASSERT_EQ(a->components.size(), comps.size());
  double sum = 0;
  for (size_t i = 0; i < comps.size(); ++i) {
    const Seq2SeqLogitComponent& got = a->components[i];
    const std::string what = name + " component " + std::to_string(i);
    EXPECT_EQ(ComponentKindName(got.kind), comps[i]["kind"].get<std::string>()) << what;
    EXPECT_EQ(got.layer, comps[i]["layer"].get<int>()) << what;
    EXPECT_EQ(got.head, comps[i]["head"].get<int>()) << what;
    if (comps[i].contains("stack")) {
      EXPECT_EQ(Seq2SeqStackName(got.stack), comps[i]["stack"].get<std::string>()) << what;
    }
    EXPECT_NEAR(got.value, comps[i]["value"].get<double>(), tol) << what;
    sum += got.value;
  }
  // The sum rule, and the logit the LM head gives at the position.
  EXPECT_NEAR(sum, a->logit, 1e-3 * std::max(1.0, std::abs(a->logit)));
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok());
  const int n_tgt = (int)c.tgt.size();
  const float* last = run->decoder_hidden.data.data() +
                      (size_t)c.model->config().decoder.n_layer * n_tgt * c.model->config().d_model;
  auto logits = Seq2SeqLogits(*c.model, last, n_tgt, {position});
  ASSERT_TRUE(logits.ok());
  EXPECT_NEAR(a->logit, logits->data[(size_t)target], 1e-4 * std::max(1.0, std::abs(a->logit)));
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqAttributionFixture, ::testing::Values("mbart", "t5", "t5_v11"));

TEST(Seq2SeqAttribution, EveryHeadOfBothAttentionsIsAComponent) {
  Case c = Load("mbart");
  ASSERT_TRUE(c.model);
  const Seq2SeqConfig& cfg = c.model->config();
  auto a = Seq2SeqAttributeLogit(*c.model, c.src, c.tgt, 1, c.labels[1]);
  ASSERT_TRUE(a.ok()) << a.message();
  int self = 0, cross = 0, biases = 0, mlps = 0;
  for (const Seq2SeqLogitComponent& k : a->components) {
    if (k.kind == ComponentKind::kHead) (k.stack == Seq2SeqStack::kCross ? cross : self)++;
    if (k.kind == ComponentKind::kAttnBias) ++biases;
    if (k.kind == ComponentKind::kMlp) ++mlps;
  }
  EXPECT_EQ(self, cfg.decoder.n_layer * cfg.decoder.n_head);
  EXPECT_EQ(cross, cfg.decoder.n_layer * cfg.decoder.n_head);
  EXPECT_EQ(biases, 2 * cfg.decoder.n_layer);
  EXPECT_EQ(mlps, cfg.decoder.n_layer);
  EXPECT_EQ(a->components.front().kind, ComponentKind::kEmbed);
  EXPECT_EQ(a->components.back().kind, ComponentKind::kNormBias);
}

TEST(Seq2SeqAttribution, AnAblatedHeadAddsNothing) {
  Case c = Load("t5_v11");
  ASSERT_TRUE(c.model);
  Seq2SeqRunOptions o;
  o.ablate = {{Seq2SeqStack::kCross, 0, 1}};
  auto a = Seq2SeqAttributeLogit(*c.model, c.src, c.tgt, 2, c.labels[2], o);
  ASSERT_TRUE(a.ok()) << a.message();
  bool seen = false;
  for (const Seq2SeqLogitComponent& k : a->components)
    if (k.kind == ComponentKind::kHead && k.stack == Seq2SeqStack::kCross && k.layer == 0 && k.head == 1) {
      seen = true;
      EXPECT_EQ(k.value, 0.0);
    }
  EXPECT_TRUE(seen);
}

TEST(Seq2SeqAttribution, RefusesPostNormAndOutOfRange) {
  Case bart = Load("bart");
  ASSERT_TRUE(bart.model);
  auto post = Seq2SeqAttributeLogit(*bart.model, bart.src, bart.tgt, 0, 0);
  ASSERT_FALSE(post.ok());
  EXPECT_THAT(post.message(), HasSubstr("post-norm"));
  Case c = Load("t5_v11");
  ASSERT_TRUE(c.model);
  auto pos = Seq2SeqAttributeLogit(*c.model, c.src, c.tgt, (int)c.tgt.size(), 0);
  ASSERT_FALSE(pos.ok());
  EXPECT_THAT(pos.message(), HasSubstr(std::to_string(c.tgt.size())));
  auto tok = Seq2SeqAttributeLogit(*c.model, c.src, c.tgt, 0, c.model->config().decoder_vocab);
  ASSERT_FALSE(tok.ok());
  EXPECT_THAT(tok.message(), HasSubstr("target token id"));
}

}  // namespace
}  // namespace attnviz::model
