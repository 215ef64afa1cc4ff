// core/model/seq2seq_analysis.*: the neuron view, value norms, rollout and ablation scan of the encoder-decoder
// stacks against make_seq2seq_fixtures.py's float64 references (reference/neuron.json, *_value_norm.npy,
// *_rollout.npy, scan.json), and their invariants.
#include "model/seq2seq_analysis.h"

#include <atomic>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/npy.h"
#include "seq2seq_test_util.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;
using namespace seq2seq_cases;

Seq2SeqStack StackOf(const std::string& name) {
  return name == "encoder" ? Seq2SeqStack::kEncoder : name == "decoder" ? Seq2SeqStack::kDecoder : Seq2SeqStack::kCross;
}

// |got - want| <= tol * max(1, max |want|) everywhere.
void ExpectNearScaled(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ExpectNear(got, want, tol * Scale(want), what);
}

class Seq2SeqAnalysisFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqAnalysisFixture, NeuronViewsMatchTheReference) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  const json views = ReadJson(CaseDir(name) + "/reference/neuron.json");
  ASSERT_GE(views.size(), 4u);
  bool saw_masked = false;
  for (const json& w : views) {
    const Seq2SeqStack stack = StackOf(w["stack"]);
    const int layer = w["layer"], head = w["head"], i = w["i"], j = w["j"];
    const std::string what = name + " " + w["stack"].get<std::string>() + " " + std::to_string(layer) + ":" +
                             std::to_string(head) + ":" + std::to_string(i) + ":" + std::to_string(j);
    ASSERT_TRUE(CheckSeq2SeqNeuron(c.model->config(), stack, (int)c.src.size(), (int)c.tgt.size(), layer, head, i, j))
        << what;
    auto got = RunSeq2SeqNeuron(*c.model, c.src, c.tgt, {}, stack, layer, head, i, j);
    ASSERT_TRUE(got.ok()) << what << ": " << got.message();
    const Seq2SeqNeuronView& v = *got;
    EXPECT_EQ(v.stack, stack);
    EXPECT_EQ(v.view.masked, w["masked"].get<bool>()) << what;
    const auto q = w["q"].get<std::vector<double>>(), k = w["k"].get<std::vector<double>>();
    ASSERT_EQ(v.view.q.size(), q.size()) << what;
    for (size_t t = 0; t < q.size(); ++t) {
      EXPECT_NEAR(v.view.q[t], q[t], 1e-5 * std::max(1.0, std::abs(q[t]))) << what << " q " << t;
      EXPECT_NEAR(v.view.k[t], k[t], 1e-5 * std::max(1.0, std::abs(k[t]))) << what << " k " << t;
      EXPECT_NEAR(v.view.product[t], q[t] * k[t], 1e-4 * std::max(1.0, std::abs(q[t] * k[t]))) << what;
    }
    const double score = w["score"];
    EXPECT_NEAR(v.view.score, score, 1e-4 * std::max(1.0, std::abs(score))) << what;
    EXPECT_NEAR(v.view.scale, w["scale"].get<double>(), 1e-7) << what;
    EXPECT_EQ(v.has_position_bias, !w["position_bias"].is_null()) << what;
    if (v.has_position_bias) EXPECT_NEAR(v.position_bias, w["position_bias"].get<double>(), 1e-6) << what;
    const double logit = w["logit"];
    EXPECT_NEAR(v.view.logit, logit, 1e-4 * std::max(1.0, std::abs(logit))) << what;
    EXPECT_NEAR(v.view.prob, w["prob"].get<double>(), 2e-5) << what;
    if (v.view.masked) {
      saw_masked = true;
      EXPECT_EQ(v.view.prob, 0.0) << what << ": a masked key's probability is exactly 0";
    }
  }
  EXPECT_TRUE(saw_masked) << name << ": the reference has a masked decoder cell";
}

TEST_P(Seq2SeqAnalysisFixture, ValueNormsMatchTheReference) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto maps = RunSeq2SeqValueNorms(*c.model, c.src, c.tgt);
  ASSERT_TRUE(maps.ok()) << maps.message();
  ExpectNearScaled(maps->encoder, Reference(name, "encoder_value_norm.npy"), 5e-5, name + " encoder value norms");
  ExpectNearScaled(maps->decoder, Reference(name, "decoder_value_norm.npy"), 5e-5, name + " decoder value norms");
  ExpectNearScaled(maps->cross, Reference(name, "cross_value_norm.npy"), 5e-5, name + " cross value norms");
}

TEST_P(Seq2SeqAnalysisFixture, RolloutsMatchTheReferenceAndRowsSumToOne) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  for (Seq2SeqStack s : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder}) {
    const std::string stack = Seq2SeqStackName(s);
    auto r = Seq2SeqRollout(s, s == Seq2SeqStack::kEncoder ? run->encoder_probs : run->decoder_probs);
    ASSERT_TRUE(r.ok()) << r.message();
    ExpectNearScaled(*r, Reference(name, stack + "_rollout.npy"), 2e-5, name + " " + stack + " rollout");
    const size_t n = r->dim(1);
    for (size_t row = 0; row < r->dim(0) * n; ++row) {
      double sum = 0;
      for (size_t j = 0; j < n; ++j) sum += r->data[row * n + j];
      ASSERT_NEAR(sum, 1.0, 1e-5) << name << " " << stack << " rollout row " << row;
    }
  }
  auto cross = Seq2SeqRollout(Seq2SeqStack::kCross, run->cross_probs);
  ASSERT_FALSE(cross.ok());
  EXPECT_THAT(cross.message(), HasSubstr("cross-attention"));
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqAnalysisFixture,
                         ::testing::Values("bart", "mbart", "marian", "marian_separate", "t5", "t5_v11"));

class Seq2SeqScanFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqScanFixture, EveryHeadsLossMatchesTheReference) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  const json want = ReadJson(CaseDir(name) + "/reference/scan.json");
  const auto loss_at = want["loss_at"].get<std::vector<int>>();
  for (bool at : {false, true}) {
    auto scan = ScanSeq2SeqHeadAblations(*c.model, c.src, c.tgt, c.labels, {}, AblateMode::kZero,
                                         at ? loss_at : std::vector<int>{});
    ASSERT_TRUE(scan.ok()) << scan.message();
    EXPECT_TRUE(scan->complete);
    const json& heads = want["heads"];
    ASSERT_EQ(scan->heads.size(), heads.size());
    EXPECT_EQ(scan->heads_done, heads.size());
    EXPECT_NEAR(scan->base_loss, want[at ? "base_loss_at" : "base_loss"].get<double>(), 1e-4);
    for (size_t i = 0; i < heads.size(); ++i) {
      const Seq2SeqHeadLoss& h = scan->heads[i];
      EXPECT_EQ(h.stack, StackOf(heads[i]["stack"])) << i;
      EXPECT_EQ(h.layer, heads[i]["layer"].get<int>()) << i;
      EXPECT_EQ(h.head, heads[i]["head"].get<int>()) << i;
      EXPECT_NEAR(h.loss, heads[i][at ? "loss_at" : "loss"].get<double>(), 1e-4)
          << name << " " << Seq2SeqStackName(h.stack) << " " << h.layer << ":" << h.head;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqScanFixture, ::testing::Values("bart", "t5"));

// A head's line of a mean-ablation scan on top of a base ablation is the loss of RunSeq2Seq with both ablations.
TEST(Seq2SeqScan, AHeadsLossIsTheRunWithThatAblationOnTopOfTheBase) {
  Case c = Load("mbart");
  ASSERT_TRUE(c.model);
  Seq2SeqRunOptions base;
  base.ablate.push_back({Seq2SeqStack::kCross, 0, 1, AblateMode::kZero});
  auto scan = ScanSeq2SeqHeadAblations(*c.model, c.src, c.tgt, c.labels, base, AblateMode::kMean);
  ASSERT_TRUE(scan.ok()) << scan.message();
  auto loss_with = [&](const std::vector<Seq2SeqAblatedHead>& ablate) {
    Seq2SeqRunOptions o;
    o.ablate = ablate;
    return MeanLoss(TokenLossOf(c, o));
  };
  EXPECT_NEAR(scan->base_loss, loss_with(base.ablate), 1e-9);
  for (const Seq2SeqHeadLoss& h : scan->heads) {
    if (h.stack != Seq2SeqStack::kDecoder || h.layer != 1) continue;
    std::vector<Seq2SeqAblatedHead> both = base.ablate;
    both.push_back({h.stack, h.layer, h.head, AblateMode::kMean});
    EXPECT_NEAR(h.loss, loss_with(both), 1e-9) << "decoder 1:" << h.head;
    EXPECT_NE(h.loss, scan->base_loss);
  }
}

// Cancelled after the third head: those three are kept, the rest NaN, complete false.
TEST(Seq2SeqScan, CancelKeepsTheHeadsDone) {
  Case c = Load("bart");
  ASSERT_TRUE(c.model);
  std::atomic<bool> cancel{false};
  Seq2SeqRunOptions base;
  base.control.cancel = &cancel;
  size_t last_total = 0;
  base.control.progress = [&](const char* stage, size_t done, size_t total) {
    EXPECT_STREQ(stage, "heads");
    last_total = total;
    if (done == 3) cancel = true;
  };
  auto scan = ScanSeq2SeqHeadAblations(*c.model, c.src, c.tgt, c.labels, base);
  ASSERT_TRUE(scan.ok()) << scan.message();
  EXPECT_FALSE(scan->complete);
  EXPECT_EQ(scan->heads_done, 3u);
  EXPECT_EQ(last_total, scan->heads.size());
  for (size_t i = 0; i < scan->heads.size(); ++i) EXPECT_EQ(std::isnan(scan->heads[i].loss), i >= 3) << i;
}

TEST(Seq2SeqScan, RefusesPositionsOutOfRangeOrTwice) {
  Case c = Load("bart");
  ASSERT_TRUE(c.model);
  const int n_tgt = (int)c.tgt.size();
  auto out = ScanSeq2SeqHeadAblations(*c.model, c.src, c.tgt, c.labels, {}, AblateMode::kZero, {n_tgt});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.message(), HasSubstr(std::to_string(n_tgt - 1)));
  auto twice = ScanSeq2SeqHeadAblations(*c.model, c.src, c.tgt, c.labels, {}, AblateMode::kZero, {0, 0});
  EXPECT_FALSE(twice.ok());
}

TEST(Seq2SeqNeuron, RangeChecksNameTheStackArgumentAndRange) {
  Case c = Load("bart");  // encoder 2 layers x 4 heads, decoder 3 layers x 2 heads
  ASSERT_TRUE(c.model);
  const Seq2SeqConfig& cfg = c.model->config();
  auto message = [&](Seq2SeqStack s, int l, int h, int i, int j) {
    return CheckSeq2SeqNeuron(cfg, s, 7, 5, l, h, i, j).message();
  };
  EXPECT_THAT(message(Seq2SeqStack::kEncoder, 2, 0, 0, 0), HasSubstr("encoder layer 2 is out of range: allowed 0..1"));
  EXPECT_THAT(message(Seq2SeqStack::kDecoder, 0, 2, 0, 0), HasSubstr("decoder head 2 is out of range: allowed 0..1"));
  EXPECT_THAT(message(Seq2SeqStack::kCross, 0, 0, 5, 0), HasSubstr("cross query i 5 is out of range: allowed 0..4"));
  EXPECT_THAT(message(Seq2SeqStack::kCross, 0, 0, 0, 7), HasSubstr("cross key j 7 is out of range: allowed 0..6"));
  EXPECT_THAT(message(Seq2SeqStack::kDecoder, 0, 0, 0, 5), HasSubstr("allowed 0..4 (5 decoder tokens)"));
  EXPECT_TRUE(CheckSeq2SeqNeuron(cfg, Seq2SeqStack::kCross, 7, 5, 2, 1, 4, 6));
}

}  // namespace
}  // namespace attnviz::model
