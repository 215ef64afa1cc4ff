// core/model/lens.* and RunOptions' mean ablation (issue 41) against PyTorch's float64 reference
// (tests/fixtures/models/make_lens_fixtures.py -> lens.json, mean_ablate_hidden.npy) on gpt2, llama, qwen3, gemma2
// (final soft cap), gpt_neox, bert and roberta (the lens through the MLM head); then the invariants the three keep
// with what was there before (Predict's top-k and loss, zero ablation) and their refusals.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "io/npy.h"
#include "model/lens.h"
#include "model/predict.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;
using testing::FixtureDir;

constexpr double kTol = 1e-4;
const std::vector<std::string> kLensFixtures = {"gpt2", "llama", "qwen3", "gemma2", "gpt_neox", "bert", "roberta"};

json ReadLens(const std::string& name) { return json::parse(testing::ReadBytes(FixtureDir(name) + "/lens.json")); }

double MaxDiff(const float* a, const float* b, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) worst = std::max(worst, (double)std::fabs(a[i] - b[i]));
  return worst;
}

// A loss in nats, relative to its size (the random fixtures' losses reach tens of nats).
void ExpectLoss(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, kTol * std::max(1.0, std::fabs(want))) << what;
}

// Top-k against torch's: probabilities within 1e-4, the same ids in order (a swap only between two probabilities
// torch puts within the tolerance).
void ExpectTop(const std::vector<TokenProb>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t t = 0; t < got.size(); ++t) {
    const double p = want[t]["prob"].get<double>();
    EXPECT_NEAR(got[t].prob, p, kTol) << what << " rank " << t;
    if (got[t].id != want[t]["id"].get<int>()) {
      const bool tie = (t + 1 < want.size() && std::fabs(want[t + 1]["prob"].get<double>() - p) < kTol) ||
                       (t > 0 && std::fabs(want[t - 1]["prob"].get<double>() - p) < kTol);
      EXPECT_TRUE(tie) << what << " rank " << t << ": id " << got[t].id << ", torch " << want[t]["id"];
    }
  }
}

void ExpectTokenLosses(const std::vector<TokenLoss>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string at = what + " position " + std::to_string(i);
    EXPECT_EQ(got[i].index, want[i]["index"].get<int>()) << at;
    EXPECT_EQ(got[i].next_id, want[i]["next_id"].get<int>()) << at;
    ExpectLoss(got[i].loss, want[i]["loss"].get<double>(), at + " loss");
    EXPECT_NEAR(got[i].prob, want[i]["prob"].get<double>(), kTol) << at;
    EXPECT_NEAR(got[i].prob, std::exp(-got[i].loss), 1e-12) << at;
  }
}

struct Loaded {
  std::shared_ptr<const Model> model;
  json want;
  std::vector<int> ids;
  ModelRun run;
  const float* Hidden(int layer) const {
    return run.hidden.data.data() + (size_t)layer * ids.size() * model->config().d_model;
  }
};

Loaded Load(const std::string& name, const RunOptions& options = {}) {
  Loaded l;
  auto model = LoadModel(FixtureDir(name));
  EXPECT_TRUE(model.ok()) << model.message();
  if (!model.ok()) return l;
  l.model = std::move(*model);
  l.want = ReadLens(name);
  l.ids = l.want["ids"].get<std::vector<int>>();
  auto run = RunModel(*l.model, l.ids, options);
  EXPECT_TRUE(run.ok()) << run.message();
  if (run.ok()) l.run = std::move(*run);
  return l;
}

class Lens : public ::testing::TestWithParam<std::string> {};

TEST_P(Lens, TokenLossMatchesTorch) {
  const std::string name = GetParam();
  Loaded l = Load(name);
  ASSERT_TRUE(l.model);
  const int L = l.model->config().n_layer;
  auto losses = TokenLosses(*l.model, l.Hidden(L), l.ids);
  if (!l.want["next_token"].get<bool>()) {  // bert, roberta: a masked LM has no next token
    ASSERT_FALSE(losses.ok());
    EXPECT_THAT(losses.message(), HasSubstr("masked language model"));
    EXPECT_THAT(losses.message(), HasSubstr(l.model->config().model_type));
    return;
  }
  ASSERT_TRUE(losses.ok()) << losses.message();
  ExpectTokenLosses(*losses, l.want["token_loss"], name);
  // Their mean is Predict's loss.
  auto pred = Predict(*l.model, l.Hidden(L), l.ids, 1);
  ASSERT_TRUE(pred.ok()) << pred.message();
  double sum = 0;
  for (const TokenLoss& t : *losses) sum += t.loss;
  EXPECT_NEAR(sum / (double)losses->size(), pred->loss, 1e-9 * pred->loss) << name;
  ExpectLoss(pred->loss, l.want["loss"].get<double>(), name + " mean");
}

TEST_P(Lens, LogitLensMatchesTorch) {
  const std::string name = GetParam();
  Loaded l = Load(name);
  ASSERT_TRUE(l.model);
  const ModelConfig& c = l.model->config();
  const int k = l.want["k"].get<int>();
  auto lens = LogitLens(*l.model, l.run.hidden.data.data(), l.ids, k);
  ASSERT_TRUE(lens.ok()) << lens.message();
  ASSERT_EQ(lens->size(), (size_t)c.n_layer + 1);
  ASSERT_EQ(l.want["lens"].size(), lens->size());
  const bool causal = l.want["next_token"].get<bool>();
  for (size_t layer = 0; layer < lens->size(); ++layer) {
    const LensLayer& got = (*lens)[layer];
    const json& want = l.want["lens"][layer];
    EXPECT_EQ(got.layer, (int)layer);
    ASSERT_EQ(got.positions.size(), l.ids.size());
    for (size_t i = 0; i < l.ids.size(); ++i) {
      const std::string what = name + " layer " + std::to_string(layer) + " position " + std::to_string(i);
      const LensPosition& p = got.positions[i];
      const json& w = want["positions"][i];
      EXPECT_EQ(p.index, (int)i) << what;
      ExpectTop(p.top, w["top"], what);
      EXPECT_EQ(p.has_next, w.contains("next_prob")) << what;
      EXPECT_EQ(p.has_next, causal && i + 1 < l.ids.size()) << what;
      if (p.has_next) EXPECT_NEAR(p.next_prob, w["next_prob"].get<double>(), kTol) << what;
    }
  }
  // The last layer is the model's own prediction: Predict's top-k, bit for bit; the lens's next_prob there is
  // exp(-token loss).
  auto pred = Predict(*l.model, l.Hidden(c.n_layer), l.ids, k);
  ASSERT_TRUE(pred.ok()) << pred.message();
  const LensLayer& last = lens->back();
  for (size_t i = 0; i < l.ids.size(); ++i) {
    ASSERT_EQ(last.positions[i].top.size(), pred->positions[i].top.size());
    for (size_t t = 0; t < last.positions[i].top.size(); ++t) {
      EXPECT_EQ(last.positions[i].top[t].id, pred->positions[i].top[t].id) << name << " position " << i;
      EXPECT_EQ(last.positions[i].top[t].prob, pred->positions[i].top[t].prob) << name << " position " << i;
    }
  }
  if (causal) {
    auto losses = TokenLosses(*l.model, l.Hidden(c.n_layer), l.ids);
    ASSERT_TRUE(losses.ok()) << losses.message();
    for (size_t i = 0; i < losses->size(); ++i)
      EXPECT_NEAR(last.positions[i].next_prob, (*losses)[i].prob, 1e-12) << name << " position " << i;
  }
  // One layer alone reads the same as in the whole lens.
  auto one = LogitLensLayer(*l.model, l.Hidden(1), 1, l.ids, k);
  ASSERT_TRUE(one.ok()) << one.message();
  EXPECT_EQ(one->positions.back().top[0].id, (*lens)[1].positions.back().top[0].id);
  EXPECT_EQ(one->positions.back().top[0].prob, (*lens)[1].positions.back().top[0].prob);
}

TEST_P(Lens, MeanAblationMatchesTorch) {
  const std::string name = GetParam();
  RunOptions o;
  o.ablate = {{0, 1, AblateMode::kMean}};
  Loaded l = Load(name, o);
  ASSERT_TRUE(l.model);
  ASSERT_EQ(l.want["mean_ablate"]["spec"], "0:1");
  auto want = ReadNpy(FixtureDir(name) + "/mean_ablate_hidden.npy");
  ASSERT_TRUE(want.ok()) << want.message();
  ASSERT_EQ(l.run.hidden.shape, want->shape);
  EXPECT_LE(MaxDiff(l.run.hidden.data.data(), want->data.data(), want->size()), kTol) << name;
  // Not the plain run, not zero ablation (guards against an ignored mode).
  auto plain = ReadNpy(FixtureDir(name) + "/hidden.npy");
  auto zero = ReadNpy(FixtureDir(name) + "/ablate_hidden.npy");
  ASSERT_TRUE(plain.ok() && zero.ok());
  EXPECT_GT(MaxDiff(l.run.hidden.data.data(), plain->data.data(), plain->size()), 1e-3) << name;
  EXPECT_GT(MaxDiff(l.run.hidden.data.data(), zero->data.data(), zero->size()), 1e-3) << name;
  if (!l.want["next_token"].get<bool>()) return;
  // The what-if run's losses.
  auto losses = TokenLosses(*l.model, l.Hidden(l.model->config().n_layer), l.ids);
  ASSERT_TRUE(losses.ok()) << losses.message();
  ExpectTokenLosses(*losses, l.want["mean_ablate"]["token_loss"], name + " mean-ablated");
}

TEST_P(Lens, StreamedRunMeanAblatesAlike) {
  // The streamed path (no [n_head, n, n] maps) goes through the same ablation: the same stream, bit for bit.
  const std::string name = GetParam();
  RunOptions o;
  o.ablate = {{0, 1, AblateMode::kMean}};
  Loaded l = Load(name, o);
  ASSERT_TRUE(l.model);
  struct LastHidden : LayerSink {
    std::vector<float> last;
    Status OnLayer(const LayerOutput& out) override {
      last.assign(out.hidden, out.hidden + (size_t)out.n * out.d_model);
      return Status::Ok();
    }
  } sink;
  o.stream_maps = true;
  ASSERT_TRUE(RunModel(*l.model, l.ids, o, &sink).ok());
  const size_t nd = l.ids.size() * (size_t)l.model->config().d_model;
  ASSERT_EQ(sink.last.size(), nd);
  EXPECT_EQ(MaxDiff(sink.last.data(), l.Hidden(l.model->config().n_layer), nd), 0.0) << name;
}

INSTANTIATE_TEST_SUITE_P(Models, Lens, ::testing::ValuesIn(kLensFixtures),
                         [](const auto& info) { return info.param; });

TEST(LensMeanAblation, AHeadWhoseOutputIsConstantIsUnchanged) {
  // One token repeated on a RoPE model (no position embeddings): every value row of layer 0 is the same, so each
  // head's output there is the same at every position (up to the softmax's rounding), and its mean is that output.
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const std::vector<int> ids(12, 7);
  auto plain = RunModel(**model, ids);
  ASSERT_TRUE(plain.ok()) << plain.message();
  RunOptions o;
  for (int h = 0; h < c.n_head; ++h) o.ablate.push_back({0, h, AblateMode::kMean});
  auto mean = RunModel(**model, ids, o);
  ASSERT_TRUE(mean.ok()) << mean.message();
  EXPECT_LE(MaxDiff(mean->hidden.data.data(), plain->hidden.data.data(), plain->hidden.size()), 1e-5);
  // Zero ablation of the same heads does change the stream (the test can tell the two apart).
  for (AblatedHead& a : o.ablate) a.mode = AblateMode::kZero;
  auto zero = RunModel(**model, ids, o);
  ASSERT_TRUE(zero.ok()) << zero.message();
  EXPECT_GT(MaxDiff(zero->hidden.data.data(), plain->hidden.data.data(), plain->hidden.size()), 1e-3);
}

TEST(LensChecks, RefusalsNameTheProblemAndTheRange) {
  auto model = LoadModel(FixtureDir("gpt2"));  // 2 layers, vocab 100
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  const std::vector<int> ids = {1, 2, 3};
  auto run = RunModel(**model, ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const float* last = run->hidden.data.data() + (size_t)c.n_layer * ids.size() * c.d_model;
  // Fewer than 2 tokens: no next token to take the loss of.
  auto one = TokenLosses(**model, last, {1});
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(one.message(), HasSubstr("at least 2 tokens"));
  EXPECT_THAT(one.message(), HasSubstr("has 1"));
  // k outside 1..vocab, a layer outside 0..n_layer.
  for (int k : {0, 101}) {
    auto bad = LogitLens(**model, run->hidden.data.data(), ids, k);
    ASSERT_FALSE(bad.ok()) << k;
    EXPECT_THAT(bad.message(), HasSubstr("allowed 1..100")) << k;
  }
  auto layer = LogitLensLayer(**model, last, 3, ids, 1);
  ASSERT_FALSE(layer.ok());
  EXPECT_THAT(layer.message(), HasSubstr("allowed 0..2"));
  // Cancelled: says so.
  std::atomic<bool> cancel{true};
  RunControl control;
  control.cancel = &cancel;
  auto cancelled = LogitLens(**model, run->hidden.data.data(), ids, 1, control);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_TRUE(cancelled.status().cancelled());
  // The whole lens's top-k over the memory limit: refused before anything is made, with the estimate and the
  // limit's variable.
  const double need = LogitLensBytes(c, ids.size(), 100);
  EXPECT_GT(need, LogitLensBytes(c, ids.size(), 1));
  ::setenv("ATTNVIZ_MEMORY_LIMIT", std::to_string((size_t)need - 1).c_str(), 1);
  auto over = LogitLens(**model, run->hidden.data.data(), ids, 100);
  auto under = LogitLens(**model, run->hidden.data.data(), ids, 50);
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.message(), HasSubstr("logit lens"));
  EXPECT_THAT(over.message(), HasSubstr("ATTNVIZ_MEMORY_LIMIT"));
  EXPECT_TRUE(under.ok()) << under.message();
}

TEST(LensChecks, AblateModeIsPartOfTheHead) {
  // Ablation modes are part of AblatedHead's identity: a zero and a mean ablation of one head are different runs.
  EXPECT_NE((AblatedHead{0, 1, AblateMode::kZero}), (AblatedHead{0, 1, AblateMode::kMean}));
  EXPECT_EQ((AblatedHead{0, 1}), (AblatedHead{0, 1, AblateMode::kZero}));
}

}  // namespace
}  // namespace attnviz::model
