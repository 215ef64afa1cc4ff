// core/model/seq2seq_run.*: every fixture case (tests/fixtures/seq2seq, float64 references written from
// transformers' modeling_bart/mbart/marian/t5.py) run natively: the three kinds of maps, both residual streams, the
// logits, the per-position loss, one ablated head per stack, and greedy generation.
#include "model/seq2seq_run.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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

class Seq2SeqFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqFixture, MapsHiddenStatesAndLogitsMatchTheReference) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  ExpectNear(run->encoder_probs, Reference(name, "encoder_attention.npy"), 2e-5, name + " encoder probs");
  ExpectNear(run->decoder_probs, Reference(name, "decoder_attention.npy"), 2e-5, name + " decoder probs");
  ExpectNear(run->cross_probs, Reference(name, "cross_attention.npy"), 2e-5, name + " cross probs");
  const Tensor eh = Reference(name, "encoder_hidden.npy"), dh = Reference(name, "decoder_hidden.npy");
  ExpectNear(run->encoder_hidden, eh, 1e-5 * Scale(eh), name + " encoder hidden");
  ExpectNear(run->decoder_hidden, dh, 1e-5 * Scale(dh), name + " decoder hidden");
  const int n_tgt = (int)c.tgt.size(), n_dec = c.model->config().decoder.n_layer;
  const float* last = run->decoder_hidden.data.data() + (size_t)n_dec * n_tgt * c.model->config().d_model;
  auto logits = Seq2SeqLogits(*c.model, last, n_tgt);
  ASSERT_TRUE(logits.ok()) << logits.message();
  const Tensor want = Reference(name, "logits.npy");
  ExpectNear(*logits, want, 2e-5 * Scale(want), name + " logits");
  // Some positions only: the same rows (to rounding: the product is tiled by its row count).
  auto two = Seq2SeqLogits(*c.model, last, n_tgt, {n_tgt - 1, 0});
  ASSERT_TRUE(two.ok());
  const size_t v = (size_t)c.model->config().decoder_vocab;
  for (size_t j = 0; j < v; ++j) {
    EXPECT_NEAR(two->data[j], logits->data[(size_t)(n_tgt - 1) * v + j], 1e-5);
    EXPECT_NEAR(two->data[v + j], logits->data[j], 1e-5);
  }
}

TEST_P(Seq2SeqFixture, RowsSumToOneAndMaskedEntriesAreExactlyZero) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  for (const Tensor* t : {&run->encoder_probs, &run->decoder_probs, &run->cross_probs}) {
    const size_t rows = t->dim(0) * t->dim(1) * t->dim(2), cols = t->dim(3);
    for (size_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (size_t j = 0; j < cols; ++j) sum += t->data[r * cols + j];
      ASSERT_NEAR(sum, 1.0, 1e-5) << name << " row " << r;
    }
  }
  const size_t t = c.tgt.size();
  const Tensor& d = run->decoder_probs;
  for (size_t m = 0; m < d.dim(0) * d.dim(1); ++m) {
    ASSERT_TRUE(IsLowerTriangular(d.data.data() + m * t * t, (int)t)) << name << " decoder map " << m;
    for (size_t i = 0; i < t; ++i) ASSERT_GT(d.data[m * t * t + i * t + i], 0.0f);  // the diagonal is seen
  }
}

TEST_P(Seq2SeqFixture, TokenLossAndOneAblatedHeadPerStackMatchTheReference) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  auto loss_of = [&](const Seq2SeqRunOptions& o) { return TokenLossOf(c, o); };
  auto expect_loss = [&](const std::vector<double>& got, const json& want, const std::string& what) {
    const auto w = want["token_loss"].get<std::vector<double>>();
    ASSERT_EQ(got.size(), w.size()) << what;
    for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(got[i], w[i], 1e-4) << what << " position " << i;
    EXPECT_NEAR(MeanLoss(got), want["mean_loss"].get<double>(), 1e-4) << what;
  };
  const std::vector<double> clean = loss_of({});
  expect_loss(clean, c.loss, name + " loss");
  ASSERT_EQ(c.loss["ablations"].size(), 3u);
  for (const json& a : c.loss["ablations"]) {
    Seq2SeqRunOptions o;
    const std::string stack = a["stack"];
    o.ablate.push_back({stack == "encoder" ? Seq2SeqStack::kEncoder
                        : stack == "decoder" ? Seq2SeqStack::kDecoder : Seq2SeqStack::kCross,
                        a["layer"].get<int>(), a["head"].get<int>(), AblateMode::kZero});
    const std::vector<double> ablated = loss_of(o);
    expect_loss(ablated, a, name + " ablating " + stack);
    double moved = 0;
    for (size_t i = 0; i < clean.size(); ++i) moved = std::max(moved, std::abs(ablated[i] - clean[i]));
    EXPECT_GT(moved, 1e-3) << name << " " << stack << ": the ablation changes some token's loss";
  }
}

// The top tokens at each decoder position: the reference's logits ranked, their softmax probabilities; the label's
// probability is exp(-its loss).
TEST_P(Seq2SeqFixture, TopTokensAreTheReferenceLogitsRanked) {
  Case c = Load(GetParam());
  ASSERT_TRUE(c.model);
  auto run = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  const int n_tgt = (int)c.tgt.size(), vocab = c.model->config().decoder_vocab;
  const float* last = run->decoder_hidden.data.data() + (run->decoder_hidden.dim(0) - 1) * n_tgt * run->decoder_hidden.dim(2);
  auto top = Seq2SeqTopTokens(*c.model, last, n_tgt, vocab);  // every token: the label is among them
  ASSERT_TRUE(top.ok()) << top.message();
  auto ref = ReadNpy(CaseDir(GetParam()) + "/reference/logits.npy");
  ASSERT_TRUE(ref.ok()) << ref.message();
  auto loss = Seq2SeqTokenLoss(*c.model, last, n_tgt, c.labels);
  ASSERT_TRUE(loss.ok());
  for (int i = 0; i < n_tgt; ++i) {
    const auto& t = (*top)[(size_t)i].top;
    ASSERT_EQ((int)t.size(), vocab);
    const float* want = ref->data.data() + (size_t)i * vocab;
    EXPECT_EQ(t[0].id, (int)(std::max_element(want, want + vocab) - want)) << "position " << i;
    double sum = 0;
    for (size_t r = 0; r < t.size(); ++r) {
      sum += t[r].prob;
      if (r) EXPECT_GE(t[r - 1].prob, t[r].prob);
      if (t[r].id == c.labels[(size_t)i]) EXPECT_NEAR(t[r].prob, std::exp(-(*loss)[(size_t)i]), 1e-9);
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
  }
  EXPECT_FALSE(Seq2SeqTopTokens(*c.model, last, n_tgt, 0).ok());
  EXPECT_FALSE(Seq2SeqTopTokens(*c.model, last, n_tgt, vocab + 1).ok());
}

TEST_P(Seq2SeqFixture, GreedyGenerationGivesTheReferenceIdsWithTheirMapRows) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  const json want = ReadJson(CaseDir(name) + "/reference/generate.json");
  GreedyOptions g;
  g.max_new_tokens = want["max_new_tokens"].get<int>();
  std::vector<GeneratedToken> made;
  auto r = GreedyGenerate(*c.model, c.src, g, [&](const GeneratedToken& t) {
    made.push_back(t);
    return Status::Ok();
  });
  ASSERT_TRUE(r.ok()) << r.message();
  const auto ids = want["ids"].get<std::vector<int>>();
  EXPECT_EQ(r->ids, ids) << name;
  EXPECT_EQ(r->stopped_at_eos, !ids.empty() && ids.back() == c.model->config().eos_id);
  ASSERT_EQ(made.size(), r->ids.size());
  // The rows handed over are the rows of a full run over the generated tokens (start + all but the last).
  std::vector<int> tgt = {c.model->config().decoder_start_id};
  tgt.insert(tgt.end(), r->ids.begin(), r->ids.end() - 1);
  auto run = RunSeq2Seq(*c.model, c.src, tgt);
  ASSERT_TRUE(run.ok()) << run.message();
  const Seq2SeqStackConfig& s = c.model->config().decoder;
  const size_t t = tgt.size(), n_src = c.src.size();
  for (size_t step = 0; step < made.size(); ++step) {
    EXPECT_EQ(made[step].step, (int)step);
    EXPECT_EQ(made[step].id, r->ids[step]);
    EXPECT_LE(made[step].log_prob, 0.0);
    ASSERT_EQ(made[step].self_rows.shape, (std::vector<size_t>{(size_t)s.n_layer, (size_t)s.n_head, step + 1}));
    for (int l = 0; l < s.n_layer; ++l)
      for (int h = 0; h < s.n_head; ++h) {
        for (size_t j = 0; j <= step; ++j)
          ASSERT_NEAR(made[step].self_rows.data[((size_t)l * s.n_head + h) * (step + 1) + j],
                      run->decoder_probs.data[(((size_t)l * s.n_head + h) * t + step) * t + j], 1e-5)
              << name << " step " << step;
        for (size_t j = 0; j < n_src; ++j)
          ASSERT_NEAR(made[step].cross_rows.data[((size_t)l * s.n_head + h) * n_src + j],
                      run->cross_probs.data[(((size_t)l * s.n_head + h) * t + step) * n_src + j], 1e-5)
              << name << " step " << step;
      }
  }
}

// Resumed at every layer of each stack from a whole run's stream (and, in the decoder, its encoder output): the
// layers that run are bit-equal to the whole run's (maps and streams), the ones before are not handed over.
TEST_P(Seq2SeqFixture, AResumedRunIsBitEqualToTheWholeRunFromThere) {
  const std::string name = GetParam();
  Case c = Load(name);
  ASSERT_TRUE(c.model);
  const Seq2SeqConfig& cfg = c.model->config();
  auto whole = RunSeq2Seq(*c.model, c.src, c.tgt);
  ASSERT_TRUE(whole.ok()) << whole.message();
  const size_t d = (size_t)cfg.d_model, n_src = c.src.size(), n_tgt = c.tgt.size();
  for (Seq2SeqStack stack : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder}) {
    const bool dec = stack == Seq2SeqStack::kDecoder;
    const int L = cfg.Stack(stack).n_layer;
    const size_t n = dec ? n_tgt : n_src;
    const Tensor& hidden = dec ? whole->decoder_hidden : whole->encoder_hidden;
    for (int l = 0; l <= L; ++l) {
      Seq2SeqRunOptions o;
      o.resume = {stack, l, hidden.data.data() + (size_t)l * n * d, dec ? whole->encoder_output.data.data() : nullptr};
      auto part = RunSeq2Seq(*c.model, c.src, c.tgt, o);
      ASSERT_TRUE(part.ok()) << part.message();
      const std::string at = name + " " + Seq2SeqStackName(stack) + " resumed at " + std::to_string(l);
      auto same = [&](const Tensor& got, const Tensor& want, size_t from_layer, const char* what) {
        const size_t per = want.data.size() / want.dim(0), from = from_layer * per;
        EXPECT_EQ(0, std::memcmp(got.data.data() + from, want.data.data() + from, (want.data.size() - from) * sizeof(float)))
            << at << ": " << what;
      };
      // The resumed stack from layer l on (its stream from entry l + 1: entry l was handed in, not over).
      same(dec ? part->decoder_probs : part->encoder_probs, dec ? whole->decoder_probs : whole->encoder_probs, l,
           "self-attention maps");
      same(dec ? part->decoder_hidden : part->encoder_hidden, hidden, l + 1, "stream");
      if (dec) same(part->cross_probs, whole->cross_probs, l, "cross-attention maps");
      if (!dec) {  // an encoder resume runs the whole decoder
        same(part->encoder_output, whole->encoder_output, 0, "encoder output");
        same(part->decoder_hidden, whole->decoder_hidden, 0, "decoder stream");
        same(part->cross_probs, whole->cross_probs, 0, "cross-attention maps");
      }
      // The layers before were not run: what a collecting run holds there is still zero.
      const Tensor& probs = dec ? part->decoder_probs : part->encoder_probs;
      const size_t per = probs.data.size() / probs.dim(0);
      EXPECT_TRUE(std::all_of(probs.data.begin(), probs.data.begin() + (ptrdiff_t)(l * per), [](float v) { return v == 0; }))
          << at;
    }
  }
  // Out of range, the cross stack, a decoder resume without the encoder output: refused, naming the allowed range.
  Seq2SeqRunOptions bad;
  bad.resume = {Seq2SeqStack::kDecoder, cfg.decoder.n_layer + 1, whole->decoder_hidden.data.data(),
                whole->encoder_output.data.data()};
  auto refused = RunSeq2Seq(*c.model, c.src, c.tgt, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), HasSubstr("layers 0.." + std::to_string(cfg.decoder.n_layer)));
  bad.resume = {Seq2SeqStack::kDecoder, 0, whole->decoder_hidden.data.data(), nullptr};
  EXPECT_FALSE(RunSeq2Seq(*c.model, c.src, c.tgt, bad).ok());
  bad.resume = {Seq2SeqStack::kCross, 0, whole->decoder_hidden.data.data(), whole->encoder_output.data.data()};
  EXPECT_FALSE(RunSeq2Seq(*c.model, c.src, c.tgt, bad).ok());
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqFixture,
                         ::testing::Values("bart", "mbart", "marian", "marian_separate", "t5", "t5_v11"));

}  // namespace
}  // namespace attnviz::model
