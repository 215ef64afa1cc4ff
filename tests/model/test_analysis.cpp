// core/model/predict.* and analysis.*, and RunOptions::ablate: every fixture against PyTorch's float64 reference
// (tests/fixtures/models/make_analysis_fixtures.py -> analysis.json, ablate_*.npy, rollout.npy, value_norm.npy):
// next-token top-k and loss, a head ablated, the neuron view (with and without RoPE), rollout, value norms.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <tuple>
#include <cstdlib>
#include <cstring>
#include <omp.h>

#include "io/npy.h"
#include "model/analysis.h"
#include "model/lens.h"
#include "model/predict.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using testing::FixtureDir;
using nlohmann::json;

constexpr double kTol = 1e-4;

json ReadAnalysis(const std::string& name) { return json::parse(testing::ReadBytes(FixtureDir(name) + "/analysis.json")); }

Tensor Npy(const std::string& name, const std::string& file) {
  auto t = ReadNpy(FixtureDir(name) + "/" + file);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : Tensor{};
}

// The largest |got - want| over `count` floats.
double MaxDiff(const float* got, const float* want, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) worst = std::max(worst, (double)std::fabs(got[i] - want[i]));
  return worst;
}

// Loss in nats: relative to its size (the random fixtures' losses are 5..30 nats from logits of tens).
void ExpectLoss(double got, const json& want, const std::string& what) {
  const double w = want.get<double>();
  EXPECT_NEAR(got, w, kTol * std::max(1.0, std::fabs(w))) << what;
}

// Top-k against torch's: the same ids in the same order (a swap is allowed only between two probabilities
// torch itself puts within the tolerance) and probabilities within 1e-4.
void ExpectTop(const PositionTop& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.top.size(), want["top"].size()) << what;
  EXPECT_EQ(got.index, want["index"].get<int>()) << what;
  for (size_t t = 0; t < got.top.size(); ++t) {
    const json& w = want["top"][t];
    EXPECT_NEAR(got.top[t].prob, w["prob"].get<double>(), kTol) << what << " rank " << t;
    if (got.top[t].id != w["id"].get<int>()) {
      const bool tie = (t + 1 < got.top.size() &&
                        std::fabs(want["top"][t + 1]["prob"].get<double>() - w["prob"].get<double>()) < kTol) ||
                       (t > 0 && std::fabs(want["top"][t - 1]["prob"].get<double>() - w["prob"].get<double>()) < kTol);
      EXPECT_TRUE(tie) << what << " rank " << t << ": id " << got.top[t].id << ", torch " << w["id"];
    }
  }
}

class Analysis : public ::testing::TestWithParam<std::string> {};

TEST_P(Analysis, PredictionsAndLossMatchTorch) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const json a = ReadAnalysis(name);
  const std::vector<int> ids = a["ids"].get<std::vector<int>>();
  auto run = RunModel(**model, ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const ModelConfig& c = (*model)->config();
  const float* last = run->hidden.data.data() + (size_t)c.n_layer * ids.size() * c.d_model;
  auto pred = Predict(**model, last, ids, a["k"].get<int>());
  if (a.contains("no_lm_head")) {  // bert_legacy: a bare BertModel
    EXPECT_FALSE(HasLmHead(**model));
    ASSERT_FALSE(pred.ok());
    EXPECT_THAT(pred.message(), HasSubstr("has no LM head"));
    return;
  }
  ASSERT_TRUE(pred.ok()) << pred.message();
  ASSERT_EQ(pred->positions.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    ExpectTop(pred->positions[i], a["predict"]["positions"][i], name + " position " + std::to_string(i));
  if (a["predict"]["loss"].is_null()) {
    EXPECT_FALSE(pred->has_loss);  // bert: a masked LM has no next-token loss
  } else {
    ASSERT_TRUE(pred->has_loss);
    ExpectLoss(pred->loss, a["predict"]["loss"], name + " loss");
    EXPECT_NEAR(pred->perplexity, std::exp(pred->loss), 1e-9 * pred->perplexity);
  }
  // Chosen positions, in the order asked.
  auto some = Predict(**model, last, ids, 2, {3, 1});
  ASSERT_TRUE(some.ok()) << some.message();
  ASSERT_EQ(some->positions.size(), 2u);
  EXPECT_EQ(some->positions[0].index, 3);
  EXPECT_EQ(some->positions[1].index, 1);
  EXPECT_EQ(some->positions[0].top[0].id, pred->positions[3].top[0].id);
  // Cancelled before the first block of positions: says so, nothing returned.
  std::atomic<bool> cancel{true};
  RunControl control;
  control.cancel = &cancel;
  auto cancelled = Predict(**model, last, ids, 2, {}, control);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_TRUE(cancelled.status().cancelled()) << cancelled.message();
}

TEST_P(Analysis, AblatedHeadMatchesTorch) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const json a = ReadAnalysis(name);
  const std::vector<int> ids = a["ids"].get<std::vector<int>>();
  RunOptions o;
  o.ablate = {{0, 1}};
  ASSERT_EQ(a["ablate"]["spec"], "0:1");
  auto run = RunModel(**model, ids, o);
  ASSERT_TRUE(run.ok()) << run.message();
  const Tensor want_p = Npy(name, "ablate_probs.npy"), want_h = Npy(name, "ablate_hidden.npy");
  ASSERT_EQ(run->probs.shape, want_p.shape);
  ASSERT_EQ(run->hidden.shape, want_h.shape);
  EXPECT_LE(MaxDiff(run->probs.data.data(), want_p.data.data(), want_p.size()), kTol) << name;
  EXPECT_LE(MaxDiff(run->hidden.data.data(), want_h.data.data(), want_h.size()), kTol) << name;
  // The ablation matters: layer 1's maps differ from the plain run's (guards against an ignored option).
  const Tensor plain = Npy(name, "probs.npy");
  const size_t per = plain.size() / plain.shape[0];
  EXPECT_GT(MaxDiff(run->probs.data.data() + per, plain.data.data() + per, per), 1e-3);
  auto plain_run = RunModel(**model, ids);  // layer 0's maps come before the ablation: bit-equal to a plain run's
  ASSERT_TRUE(plain_run.ok());
  EXPECT_EQ(MaxDiff(run->probs.data.data(), plain_run->probs.data.data(), per), 0.0);
  if (!a["ablate"]["loss"].is_null()) {
    const ModelConfig& c = (*model)->config();
    auto pred = Predict(**model, run->hidden.data.data() + (size_t)c.n_layer * ids.size() * c.d_model, ids, 1);
    ASSERT_TRUE(pred.ok()) << pred.message();
    ExpectLoss(pred->loss, a["ablate"]["loss"], name + " ablated loss");
  }
}

// Keeps the LayerOutput-made figures of a run: the neuron views asked for, the rollout, the value norms.
class AnalysisSink : public LayerSink {
 public:
  AnalysisSink(const Model& model, const json& neurons, int n)
      : model_(model), neurons_(neurons), rollout_(n) {}
  Status OnLayer(const LayerOutput& out) override {
    for (const json& w : neurons_)
      if (w["layer"].get<int>() == out.layer)
        views.push_back(Neuron(model_.config(), out, w["head"], w["i"], w["j"]));
    const size_t nn = (size_t)out.n * out.n;
    rollout.resize(rollout.size() + nn);
    rollout_.AddLayer(out.probs, out.n_head, rollout.data() + rollout.size() - nn);
    value_norm.resize(value_norm.size() + out.n_head * nn);
    ValueNorms(model_, out, value_norm.data() + value_norm.size() - out.n_head * nn);
    return Status::Ok();
  }
  std::vector<NeuronView> views;
  std::vector<float> rollout, value_norm;

 private:
  const Model& model_;
  const json& neurons_;
  Rollout rollout_;
};

void ExpectVector(const std::vector<float>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t t = 0; t < got.size(); ++t) EXPECT_NEAR(got[t], want[t].get<double>(), kTol) << what << "[" << t << "]";
}

TEST_P(Analysis, NeuronRolloutAndValueNormsMatchTorch) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const json a = ReadAnalysis(name);
  const std::vector<int> ids = a["ids"].get<std::vector<int>>();
  const int n = (int)ids.size();
  AnalysisSink sink(**model, a["neuron"], n);
  ASSERT_TRUE(RunModel(**model, ids, {}, &sink).ok());
  // Neuron views, in layer order (the run's), matched to torch's by (layer, head, i, j).
  ASSERT_EQ(sink.views.size(), a["neuron"].size());
  for (const NeuronView& v : sink.views) {
    const json* w = nullptr;
    for (const json& e : a["neuron"])
      if (e["layer"] == v.layer && e["head"] == v.head && e["i"] == v.i && e["j"] == v.j) w = &e;
    ASSERT_NE(w, nullptr);
    const std::string what = name + " neuron " + std::to_string(v.layer) + ":" + std::to_string(v.head) + ":" +
                             std::to_string(v.i) + ":" + std::to_string(v.j);
    ExpectVector(v.q, (*w)["q"], what + " q");
    ExpectVector(v.k, (*w)["k"], what + " k");
    ExpectVector(v.product, (*w)["product"], what + " product");
    EXPECT_NEAR(v.score, (*w)["score"].get<double>(), kTol * std::max(1.0, std::fabs(v.score))) << what;
    EXPECT_NEAR(v.scale, (*w)["scale"].get<double>(), 1e-7) << what;
    EXPECT_NEAR(v.logit, (*w)["logit"].get<double>(), kTol * std::max(1.0, std::fabs(v.logit))) << what;
    EXPECT_NEAR(v.prob, (*w)["prob"].get<double>(), kTol) << what;
    EXPECT_EQ(v.masked, (*w)["masked"].get<bool>()) << what;
    if (v.masked) EXPECT_EQ(v.prob, 0.0) << what;
    EXPECT_EQ(v.rope, w->contains("q_before_rope")) << what;
    if (v.rope) {
      ExpectVector(v.q_before_rope, (*w)["q_before_rope"], what + " q_before_rope");
      ExpectVector(v.k_before_rope, (*w)["k_before_rope"], what + " k_before_rope");
    }
    // The score twists (make_score_fixtures.py): q and k before the q/k norms, the scale's source, the soft cap.
    EXPECT_EQ(v.qk_norm, (*model)->config().recipe.qk_norm != BlockRecipe::QkNorm::kNone) << what;
    if (v.qk_norm) {
      ASSERT_TRUE(w->contains("q_before_norm")) << what;
      ExpectVector(v.q_before_norm, (*w)["q_before_norm"], what + " q_before_norm");
      ExpectVector(v.k_before_norm, (*w)["k_before_norm"], what + " k_before_norm");
    }
    if (w->contains("scale_source")) EXPECT_EQ(v.scale_source, (*w)["scale_source"].get<std::string>()) << what;
    EXPECT_EQ(v.softcap > 0, w->contains("softcap")) << what;
    if (w->contains("softcap")) {
      EXPECT_DOUBLE_EQ(v.softcap, (*w)["softcap"].get<double>()) << what;
      EXPECT_NEAR(v.uncapped_logit, (*w)["uncapped_logit"].get<double>(),
                  kTol * std::max(1.0, std::fabs(v.uncapped_logit))) << what;
    }
  }
  // Rollout and value norms, layer by layer.
  const Tensor roll = Npy(name, "rollout.npy"), vn = Npy(name, "value_norm.npy");
  ASSERT_EQ(sink.rollout.size(), roll.size());
  ASSERT_EQ(sink.value_norm.size(), vn.size());
  const size_t per_r = roll.size() / roll.shape[0], per_v = vn.size() / vn.shape[0];
  for (size_t l = 0; l < roll.shape[0]; ++l) {
    EXPECT_LE(MaxDiff(sink.rollout.data() + l * per_r, roll.data.data() + l * per_r, per_r), kTol) << name << " rollout " << l;
    EXPECT_LE(MaxDiff(sink.value_norm.data() + l * per_v, vn.data.data() + l * per_v, per_v), kTol) << name << " value norm " << l;
  }
}

// Long inputs stream their maps (RunOptions::stream_maps): rollout from the head-mean map built from the blocks
// (AddMeanLayer), value norms from ValueNormScales times each block's rows, the neuron view with no probs kept.
class StreamedAnalysisSink : public LayerSink {
 public:
  StreamedAnalysisSink(const Model& model, int n) : model_(model), n_(n), rollout_(n) {}
  void OnBlock(int, const RowBlock& b) override {  // blocks cover disjoint rows: no two write one cell
    const size_t n = (size_t)n_;
    for (int r = 0; r < b.rows; ++r)
      std::copy(b.probs + (size_t)r * b.n_k, b.probs + (size_t)(r + 1) * b.n_k,
                layer_.begin() + ((size_t)b.head * n + b.r0 + r) * n);
  }
  Status OnLayer(const LayerOutput& out) override {
    EXPECT_EQ(out.probs, nullptr);
    const size_t n = (size_t)n_, nn = n * n, H = (size_t)out.n_head;
    std::vector<float> mean(nn, 0.0f);
    for (size_t c = 0; c < nn; ++c) {
      double m = 0;
      for (size_t h = 0; h < H; ++h) m += layer_[h * nn + c];
      mean[c] = (float)(m / H);
    }
    rollout.resize(rollout.size() + nn);
    rollout_.AddMeanLayer(mean.data(), rollout.data() + rollout.size() - nn);
    std::vector<float> norms(H * n);
    ValueNormScales(model_, out, norms.data());
    for (size_t h = 0; h < H; ++h)
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) value_norm.push_back(layer_[h * nn + i * n + j] * norms[h * n + j]);
    views.push_back(Neuron(model_.config(), out, 1, std::min(n_ - 1, 10), std::min(n_ - 1, 10) - 3));
    std::fill(layer_.begin(), layer_.end(), 0.0f);  // the next layer's blocks start from zero
    return Status::Ok();
  }
  void Reset(int n_head) { layer_.assign((size_t)n_head * n_ * n_, 0.0f); }
  std::vector<float> rollout, value_norm;
  std::vector<NeuronView> views;
  std::vector<float> layer_;  // [n_head, n, n] of the layer running

 private:
  const Model& model_;
  int n_;
  Rollout rollout_;
};

TEST_P(Analysis, StreamedMapsGiveTheSameRolloutValueNormsAndNeuron) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const json a = ReadAnalysis(name);
  const std::vector<int> ids = a["ids"].get<std::vector<int>>();
  StreamedAnalysisSink sink(**model, (int)ids.size());
  sink.Reset((*model)->config().n_head);
  RunOptions o;
  o.stream_maps = true;
  ASSERT_TRUE(RunModel(**model, ids, o, &sink).ok());
  const Tensor roll = Npy(name, "rollout.npy"), vn = Npy(name, "value_norm.npy");
  ASSERT_EQ(sink.rollout.size(), roll.size());
  ASSERT_EQ(sink.value_norm.size(), vn.size());
  EXPECT_LE(MaxDiff(sink.rollout.data(), roll.data.data(), roll.size()), kTol) << name;
  EXPECT_LE(MaxDiff(sink.value_norm.data(), vn.data.data(), vn.size()), kTol) << name;
  // The neuron view of the last layer, its probability recomputed from q and k: torch's first neuron case.
  const json& w = a["neuron"][0];
  const NeuronView& v = sink.views.back();
  ASSERT_EQ(v.layer, w["layer"].get<int>());
  ASSERT_EQ(v.i, w["i"].get<int>());
  ASSERT_EQ(v.j, w["j"].get<int>());
  EXPECT_NEAR(v.prob, w["prob"].get<double>(), kTol) << name;
}

TEST_P(Analysis, AblationScanMatchesTorchAndFullRuns) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const json a = ReadAnalysis(name);
  const std::vector<int> ids = a["ids"].get<std::vector<int>>();
  std::vector<size_t> reports;
  RunOptions base;
  base.control.progress = [&](const char* stage, size_t done, size_t) {
    if (std::string(stage) == "heads") reports.push_back(done);
  };
  auto scan = ScanHeadAblations(**model, ids, base);
  if (!a.contains("predict") || a["predict"]["loss"].is_null()) {  // bert: no next-token loss
    ASSERT_FALSE(scan.ok());
    return;
  }
  ASSERT_TRUE(scan.ok()) << scan.message();
  const ModelConfig& c = (*model)->config();
  ASSERT_EQ(scan->loss.size(), (size_t)c.n_layer * c.n_head);
  ExpectLoss(scan->base_loss, a["predict"]["loss"], name + " scan base loss");
  ExpectLoss(scan->loss[1], a["ablate"]["loss"], name + " scan 0:1");  // layer 0, head 1: torch's
  // Progress counts heads from the start: 0 while the base run goes, then each head done.
  ASSERT_EQ(reports.size(), scan->loss.size() + 1);
  EXPECT_EQ(reports.front(), 0u);
  EXPECT_EQ(reports.back(), scan->loss.size());
  EXPECT_TRUE(scan->complete);
  EXPECT_EQ(scan->heads_done, scan->loss.size());
  // The last head of the last layer (a resumed run) against a full run with it ablated.
  RunOptions o;
  o.ablate = {{c.n_layer - 1, c.n_head - 1}};
  auto run = RunModel(**model, ids, o);
  ASSERT_TRUE(run.ok());
  auto pred = Predict(**model, run->hidden.data.data() + (size_t)c.n_layer * ids.size() * c.d_model, ids, 1);
  ASSERT_TRUE(pred.ok());
  EXPECT_NEAR(scan->loss.back(), pred->loss, 1e-6 * std::max(1.0, pred->loss));
  // Heads matter: not every ablation leaves the loss where it was.
  double spread = 0;
  for (double l : scan->loss) spread = std::max(spread, std::fabs(l - scan->base_loss));
  EXPECT_GT(spread, 1e-3);
}

// A scan cancelled after k heads keeps those k (the same losses as a whole scan's), the rest NaN; cancelled during
// the base run it is Status::Cancelled().
TEST(AblationScanCancel, KeepsTheHeadsDoneBeforeTheCancel) {
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok()) << model.message();
  const std::vector<int> ids = ReadAnalysis("llama")["ids"].get<std::vector<int>>();
  auto whole = ScanHeadAblations(**model, ids);
  ASSERT_TRUE(whole.ok()) << whole.message();
  const size_t keep = 4;
  std::atomic<bool> cancel{false};
  RunOptions o;
  o.control.cancel = &cancel;
  o.control.progress = [&](const char* stage, size_t done, size_t) {
    if (std::string(stage) == "heads" && done == keep) cancel = true;
  };
  auto part = ScanHeadAblations(**model, ids, o);
  ASSERT_TRUE(part.ok()) << part.message();
  EXPECT_FALSE(part->complete);
  EXPECT_EQ(part->heads_done, keep);
  EXPECT_EQ(part->base_loss, whole->base_loss);
  ASSERT_EQ(part->loss.size(), whole->loss.size());
  EXPECT_EQ(part->order, whole->order);
  std::vector<bool> first(part->loss.size(), false);  // the first `keep` heads of the order
  for (size_t k = 0; k < keep; ++k) first[(size_t)part->order[k]] = true;
  for (size_t i = 0; i < part->loss.size(); ++i) {
    EXPECT_EQ(part->Done(i), first[i]) << i;
    if (first[i]) {
      EXPECT_EQ(part->loss[i], whole->loss[i]) << i;
    } else {
      EXPECT_TRUE(std::isnan(part->loss[i])) << i;
    }
  }
  cancel = true;  // before the base run: nothing to keep
  auto none = ScanHeadAblations(**model, ids, o);
  EXPECT_TRUE(none.status().cancelled());
}

// The scan's order: every head once, by what it writes into the residual stream in the base run (sum over
// positions of ||z_h,i W_o^h||, computed here in double from a run's z and W_o), largest first.
TEST(AblationScanOrder, HeadsRunLargestWriterFirst) {
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok()) << model.message();
  const std::vector<int> ids = ReadAnalysis("llama")["ids"].get<std::vector<int>>();
  const ModelConfig& c = (*model)->config();
  auto scan = ScanHeadAblations(**model, ids);
  ASSERT_TRUE(scan.ok()) << scan.message();
  const size_t total = (size_t)c.n_layer * c.n_head;
  ASSERT_EQ(scan->order.size(), total);
  ASSERT_EQ(scan->output_norm.size(), total);
  std::vector<int> sorted = scan->order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < total; ++i) EXPECT_EQ(sorted[i], (int)i);  // each head once
  for (size_t k = 1; k < total; ++k)
    EXPECT_GE(scan->output_norm[(size_t)scan->order[k - 1]], scan->output_norm[(size_t)scan->order[k]]) << k;
  // The norms from z and W_o of a plain run, in double.
  struct ZSink : LayerSink {
    const Model* m = nullptr;
    std::vector<double> want;
    Status OnLayer(const LayerOutput& out) override {
      const Linear& o = out.weights->o;
      const int dh = (int)out.z.d;
      for (int h = 0; h < out.n_head; ++h) {
        double sum = 0;
        for (int i = 0; i < out.n; ++i) {
          const float* z = out.z.data + (size_t)i * out.z.row_stride + (size_t)h * out.z.head_stride;
          double sq = 0;
          for (int r = 0; r < o.out; ++r) {
            double y = 0;
            for (int t = 0; t < dh; ++t) {
              const size_t col = (size_t)h * dh + t;
              y += (double)z[t] * (o.in_out ? o.w[col * o.ld + r] : o.w[(size_t)r * o.ld + col]);
            }
            sq += y * y;
          }
          sum += std::sqrt(sq);
        }
        want[(size_t)out.layer * out.n_head + h] = sum;
      }
      return Status::Ok();
    }
  } sink;
  sink.want.assign(total, 0.0);
  ASSERT_TRUE(RunModel(**model, ids, {}, &sink).ok());
  for (size_t i = 0; i < total; ++i)
    EXPECT_NEAR(scan->output_norm[i], sink.want[i], 1e-4 * std::max(1.0, sink.want[i])) << i;
  // The norms tell heads apart: the order is not the layer-major one by accident of equal values.
  EXPECT_GT(*std::max_element(sink.want.begin(), sink.want.end()),
            1.01 * *std::min_element(sink.want.begin(), sink.want.end()));
}

// The loss at chosen positions: the base and each head's loss are the mean of those positions' own next-token
// losses (TokenLosses of the same run), in any order; a position past n - 2 or given twice is refused by name.
TEST(AblationScanAt, LossAtChosenPositionsIsTheMeanOfTheirTokenLosses) {
  auto model = LoadModel(FixtureDir("llama"));
  ASSERT_TRUE(model.ok()) << model.message();
  const std::vector<int> ids = ReadAnalysis("llama")["ids"].get<std::vector<int>>();
  const ModelConfig& c = (*model)->config();
  const int n = (int)ids.size();
  ASSERT_GE(n, 5);
  const std::vector<int> at = {n - 2, 1};
  auto scan = ScanHeadAblations(**model, ids, {}, at);
  ASSERT_TRUE(scan.ok()) << scan.message();
  EXPECT_EQ(scan->loss_at, at);
  auto mean_at = [&](const RunOptions& o) {
    auto run = RunModel(**model, ids, o);
    EXPECT_TRUE(run.ok());
    auto losses = TokenLosses(**model, run->hidden.data.data() + (size_t)c.n_layer * n * c.d_model, ids);
    EXPECT_TRUE(losses.ok());
    return ((*losses)[(size_t)at[0]].loss + (*losses)[(size_t)at[1]].loss) / 2;
  };
  EXPECT_NEAR(scan->base_loss, mean_at({}), 1e-6);
  RunOptions last;
  last.ablate = {{c.n_layer - 1, c.n_head - 1}};
  EXPECT_NEAR(scan->loss.back(), mean_at(last), 1e-6);
  RunOptions first;
  first.ablate = {{0, 0}};
  EXPECT_NEAR(scan->loss.front(), mean_at(first), 1e-6);
  auto whole = ScanHeadAblations(**model, ids);
  ASSERT_TRUE(whole.ok());
  EXPECT_NE(whole->base_loss, scan->base_loss);  // the positions chosen are not the mean
  auto past = ScanHeadAblations(**model, ids, {}, {n - 1});
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.message().find("position " + std::to_string(n - 1)), std::string::npos) << past.message();
  EXPECT_NE(past.message().find("0.." + std::to_string(n - 2)), std::string::npos) << past.message();
  auto twice = ScanHeadAblations(**model, ids, {}, {1, 1});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("twice"), std::string::npos) << twice.message();
}

// The scan's loss rows (NextLogProbsAt: the LM head over the asked rows only) are Predict's next-token
// log-probabilities at those rows, in the order asked, for every family (soft caps, tied and separate heads);
// positions past n - 2 are refused with the range; a masked LM has none.
TEST_P(Analysis, NextLogProbsAtArePredictsAtThoseRows) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const std::vector<int> ids = ReadAnalysis(name)["ids"].get<std::vector<int>>();
  const ModelConfig& c = (*model)->config();
  const int n = (int)ids.size();
  auto run = RunModel(**model, ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const float* last = run->hidden.data.data() + (size_t)c.n_layer * n * c.d_model;
  const std::vector<int> at = {n - 2, 0, n / 2};
  auto got = NextLogProbsAt(**model, last, ids, at);
  if (!PredictsNextToken(c) || !HasLmHead(**model)) {
    EXPECT_FALSE(got.ok());
    return;
  }
  ASSERT_TRUE(got.ok()) << got.message();
  auto want = Predict(**model, last, ids, 1);
  ASSERT_TRUE(want.ok()) << want.message();
  ASSERT_EQ(got->size(), at.size());
  for (size_t k = 0; k < at.size(); ++k)
    EXPECT_NEAR((*got)[k], want->next_log_prob[(size_t)at[k]], 1e-5 * std::max(1.0, std::abs((*got)[k]))) << at[k];
  auto every = NextLogProbsAt(**model, last, ids, {});
  ASSERT_TRUE(every.ok());
  ASSERT_EQ(every->size(), (size_t)n - 1);
  double sum = 0;
  for (double lp : *every) sum -= lp;
  EXPECT_NEAR(sum / (n - 1), want->loss, 1e-5 * std::max(1.0, want->loss));
  auto past = NextLogProbsAt(**model, last, ids, {n - 1});
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.message().find(std::to_string(n - 2)), std::string::npos) << past.message();
}

// The top tokens of a few rows alone (what a hovered token shows before the whole Predict): Predict's there, every
// family (bert's masked-LM head too, at any position).
TEST_P(Analysis, TopTokensAtArePredictsAtThoseRows) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const std::vector<int> ids = ReadAnalysis(name)["ids"].get<std::vector<int>>();
  const ModelConfig& c = (*model)->config();
  const int n = (int)ids.size(), k = std::min(5, c.vocab);
  auto run = RunModel(**model, ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const float* last = run->hidden.data.data() + (size_t)c.n_layer * n * c.d_model;
  const std::vector<int> at = {n - 1, 0, n / 2};
  auto got = TopTokensAt(**model, last, n, k, at);
  if (!HasLmHead(**model)) {
    EXPECT_FALSE(got.ok());
    return;
  }
  ASSERT_TRUE(got.ok()) << got.message();
  auto want = Predict(**model, last, ids, k, at);
  ASSERT_TRUE(want.ok()) << want.message();
  ASSERT_EQ(got->size(), at.size());
  ASSERT_EQ(want->positions.size(), at.size());
  for (size_t p = 0; p < at.size(); ++p) {
    const PositionTop &g = (*got)[p], &w = want->positions[p];
    EXPECT_EQ(g.index, at[p]);
    ASSERT_EQ(g.top.size(), w.top.size()) << at[p];
    for (size_t t = 0; t < g.top.size(); ++t) {
      // Rows multiplied in other blocks: near-equal probabilities may swap; each id's probability agrees.
      EXPECT_NEAR(g.top[t].prob, w.top[t].prob, 1e-5) << name << " position " << at[p] << " rank " << t;
      if (t + 1 < g.top.size() && w.top[t].prob - w.top[t + 1].prob > 1e-5) EXPECT_EQ(g.top[t].id, w.top[t].id);
    }
  }
  auto past = TopTokensAt(**model, last, n, k, {n});
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.message().find(std::to_string(n - 1)), std::string::npos) << past.message();
  EXPECT_FALSE(TopTokensAt(**model, last, n, k, {}).ok());
}

// Predictions after a kept prefix: the earlier run's blocks before the change and the rest computed give Predict's
// result bit for bit (the last streams made up: 150 rows shared, the earlier text 180 rows, the new one 200).
TEST_P(Analysis, PredictKeepingIsPredictBitForBit) {
  const std::string name = GetParam();
  auto model = LoadModel(FixtureDir(name));
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelConfig& c = (*model)->config();
  if (!HasLmHead(**model)) return;
  const int n_old = 180, n = 200, same = 150, d = c.d_model, k = std::min(5, c.vocab);
  std::vector<float> old_hidden((size_t)n_old * d), new_hidden((size_t)n * d);
  std::vector<int> old_ids((size_t)n_old), new_ids((size_t)n);
  for (size_t i = 0; i < old_hidden.size(); ++i) old_hidden[i] = (float)std::sin(0.37 * (double)i);
  for (size_t i = 0; i < new_hidden.size(); ++i)
    new_hidden[i] = i < (size_t)same * d ? old_hidden[i] : (float)std::cos(0.11 * (double)i);
  for (int i = 0; i < n_old; ++i) old_ids[(size_t)i] = (i * 31) % c.vocab;
  for (int i = 0; i < n; ++i) new_ids[(size_t)i] = i < same ? old_ids[(size_t)i] : (i * 17 + 3) % c.vocab;
  auto earlier = Predict(**model, old_hidden.data(), old_ids, k);
  ASSERT_TRUE(earlier.ok()) << earlier.message();
  auto want = Predict(**model, new_hidden.data(), new_ids, k);
  ASSERT_TRUE(want.ok()) << want.message();
  auto got = PredictKeeping(**model, new_hidden.data(), new_ids, k, *earlier, same);
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_EQ(got->loss, want->loss);
  EXPECT_EQ(got->has_loss, want->has_loss);
  EXPECT_EQ(got->next_log_prob, want->next_log_prob);
  ASSERT_EQ(got->positions.size(), want->positions.size());
  for (size_t p = 0; p < want->positions.size(); ++p) {
    ASSERT_EQ(got->positions[p].index, want->positions[p].index);
    ASSERT_EQ(got->positions[p].top.size(), want->positions[p].top.size());
    for (size_t t = 0; t < want->positions[p].top.size(); ++t) {
      EXPECT_EQ(got->positions[p].top[t].id, want->positions[p].top[t].id) << p;
      EXPECT_EQ(got->positions[p].top[t].prob, want->positions[p].top[t].prob) << p;
    }
  }
  // The kept blocks are the earlier run's (a made-up earlier with other probabilities shows through), the rest not.
  if (PredictsNextToken(c)) {
    Predictions marked = *earlier;
    for (PositionTop& t : marked.positions) t.top[0].prob = -1;
    auto kept = PredictKeeping(**model, new_hidden.data(), new_ids, k, marked, same);
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept->positions[127].top[0].prob, -1) << "the blocks before the change are taken";
    EXPECT_NE(kept->positions[128].top[0].prob, -1) << "the block holding the change is computed";
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Analysis, ::testing::ValuesIn(testing::AllFixtures()),
                         [](const auto& info) { return info.param; });

TEST(AnalysisChecks, BadArgumentsAreRefusedWithTheRange) {
  auto model = LoadModel(FixtureDir("gpt2"));  // 2 layers, 4 heads, vocab 100
  ASSERT_TRUE(model.ok()) << model.message();
  const std::vector<int> ids = {1, 2, 3, 4};
  RunOptions o;
  o.ablate = {{2, 0}};
  auto r = RunModel(**model, ids, o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.message(), HasSubstr("layer 2 is out of range: allowed 0..1"));
  o.ablate = {{1, 4}};
  r = RunModel(**model, ids, o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.message(), HasSubstr("head 4 of layer 1 is out of range: allowed 0..3"));
  o.ablate = {{0, -1}};
  EXPECT_FALSE(RunModel(**model, ids, o).ok());
  auto run = RunModel(**model, ids);
  ASSERT_TRUE(run.ok());
  const float* last = run->hidden.data.data() + 2 * ids.size() * 32;
  auto p = Predict(**model, last, ids, 0);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.message(), HasSubstr("top-k 0 is out of range: allowed 1..100"));
  EXPECT_FALSE(Predict(**model, last, ids, 101).ok());
  p = Predict(**model, last, ids, 3, {4});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.message(), HasSubstr("position 4 is out of range: allowed 0..3"));
  const ModelConfig& c = (*model)->config();
  EXPECT_THAT(CheckNeuron(c, 4, 0, 0, 4, 0).message(), HasSubstr("query i 4 is out of range: allowed 0..3"));
  EXPECT_THAT(CheckNeuron(c, 4, 0, 0, 0, -1).message(), HasSubstr("key j -1 is out of range: allowed 0..3"));
  EXPECT_THAT(CheckNeuron(c, 4, 0, 7, 0, 0).message(), HasSubstr("head 7 of layer 0 is out of range"));
  EXPECT_TRUE(CheckNeuron(c, 4, 1, 3, 0, 3).ok());  // j > i under a causal mask: allowed (masked, prob 0)
}

TEST(AnalysisChecks, RolloutRowsSumToOneAndOversizeIsRefused) {
  Rollout r(3);
  // Two heads that attend to token 0 only, causal-like.
  std::vector<float> probs(2 * 9, 0.0f);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i) probs[(size_t)h * 9 + i * 3] = 1.0f;
  std::vector<float> out(9);
  r.AddLayer(probs.data(), 2, out.data());
  // A^ = 0.5 * [1 0 0] + 0.5 e_i -> row 0 = [1 0 0], row 1 = [.5 .5 0], row 2 = [.5 0 .5]
  EXPECT_FLOAT_EQ(out[0], 1.0f);
  EXPECT_FLOAT_EQ(out[3], 0.5f);
  EXPECT_FLOAT_EQ(out[4], 0.5f);
  EXPECT_FLOAT_EQ(out[8], 0.5f);
  r.AddLayer(probs.data(), 2, out.data());  // R_1 = A^ A^: row 1 = [.75 .25 0]
  EXPECT_FLOAT_EQ(out[3], 0.75f);
  EXPECT_FLOAT_EQ(out[4], 0.25f);
  // Above kRolloutMaxTokens the rollout is pooled to at most 1024 blocks a side: any length fits the default budget.
  EXPECT_TRUE(CheckRolloutMemory(size_t(1) << 30).ok());
  EXPECT_EQ(RolloutFactor(1 << 30), 1 << 20);
  // Under a small budget both are refused, naming the tokens asked for (not the blocks).
  ::setenv("ATTNVIZ_MEMORY_LIMIT", "40000", 1);
  Status exact = CheckRolloutMemory(66), pooled = CheckRolloutMemory(2000);
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
  ASSERT_FALSE(exact.ok());
  EXPECT_THAT(exact.message(), HasSubstr("attention rollout of 66 tokens needs about"));
  ASSERT_FALSE(pooled.ok());
  EXPECT_THAT(pooled.message(), HasSubstr("attention rollout of 2000 tokens needs about"));
}

// Random attention maps [n_head, n, n]: causal rows that sum to 1 (softmax of random logits).
std::vector<float> RandomProbs(int n_head, int n, unsigned seed) {
  std::vector<float> probs((size_t)n_head * n * n, 0.0f);
  unsigned state = seed;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0; };
  for (int h = 0; h < n_head; ++h)
    for (int i = 0; i < n; ++i) {
      float* row = probs.data() + ((size_t)h * n + i) * n;
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += (row[j] = (float)std::exp(3.0 * next()));
      for (int j = 0; j <= i; ++j) row[j] = (float)(row[j] / sum);
    }
  return probs;
}

// The pooled rollout of maps `layers` (each [n_head, n, n]): R'_l per layer, [nb, nb] each.
std::vector<std::vector<float>> PooledRollout(const std::vector<std::vector<float>>& layers, int n_head, int n, int f,
                                              bool by_rows = false) {
  PooledRolloutRows rows(n, f);
  const int nb = rows.blocks();
  Rollout rollout(nb);
  std::vector<std::vector<float>> out;
  std::vector<float> mean((size_t)nb * nb);
  for (const std::vector<float>& probs : layers) {
    if (by_rows) {  // as a streamed pass: blocks of 8 rows, heads last to first
      for (int h = n_head - 1; h >= 0; --h)
        for (int r0 = 0; r0 < n; r0 += 8)
          rows.AddRows(r0, std::min(8, n - r0), probs.data() + ((size_t)h * n + r0) * n);
    } else {
      rows.AddMap(probs.data(), n_head);
    }
    rows.TakeMean(n_head, mean.data());
    out.emplace_back((size_t)nb * nb);
    rollout.AddMeanLayer(mean.data(), out.back().data());
  }
  return out;
}

TEST(PooledRollout, FactorIsTheSmallestPowerOfTwoThatFits) {
  EXPECT_EQ(RolloutPoolFactor(1, 1024), 1);
  EXPECT_EQ(RolloutPoolFactor(1024, 1024), 1);
  EXPECT_EQ(RolloutPoolFactor(1025, 1024), 2);
  EXPECT_EQ(RolloutPoolFactor(2048, 1024), 2);
  EXPECT_EQ(RolloutPoolFactor(2049, 1024), 4);
  EXPECT_EQ(RolloutPoolFactor(8192, 1024), 8);
  EXPECT_EQ(RolloutBlocks(2049, 4), 513);
  EXPECT_GT(PooledRolloutMemoryBytes(2049, 4), RolloutMemoryBytes(513));
}

TEST(PooledRollout, FactorOneIsTheExactRolloutBitForBit) {
  const int n = 13, n_head = 3;
  std::vector<std::vector<float>> layers = {RandomProbs(n_head, n, 1), RandomProbs(n_head, n, 2), RandomProbs(n_head, n, 3)};
  const auto pooled = PooledRollout(layers, n_head, n, 1);
  Rollout exact(n);
  std::vector<float> want((size_t)n * n);
  for (size_t l = 0; l < layers.size(); ++l) {
    exact.AddLayer(layers[l].data(), n_head, want.data());
    ASSERT_EQ(pooled[l].size(), want.size());
    for (size_t c = 0; c < want.size(); ++c) ASSERT_EQ(pooled[l][c], want[c]) << l << ": " << c;
  }
}

TEST(PooledRollout, RowsSumToOneAndStreamedRowsGiveTheSame) {
  for (int n : {32, 37}) {  // 37: the last block is partial
    for (int f : {1, 2, 4, 8}) {  // 1: AddRows' exact path (each row into its own cells)
      SCOPED_TRACE("n " + std::to_string(n) + " f " + std::to_string(f));
      const int n_head = 4, nb = RolloutBlocks(n, f);
      std::vector<std::vector<float>> layers = {RandomProbs(n_head, n, 7), RandomProbs(n_head, n, 8)};
      const auto whole = PooledRollout(layers, n_head, n, f), streamed = PooledRollout(layers, n_head, n, f, true);
      for (size_t l = 0; l < layers.size(); ++l) {
        ASSERT_EQ(whole[l].size(), (size_t)nb * nb);
        for (int I = 0; I < nb; ++I) {
          double sum = 0;
          for (int J = 0; J < nb; ++J) {
            sum += whole[l][(size_t)I * nb + J];
            EXPECT_GE(whole[l][(size_t)I * nb + J], 0.0f);
            EXPECT_NEAR(streamed[l][(size_t)I * nb + J], whole[l][(size_t)I * nb + J], 1e-6f);
          }
          EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << I;
        }
      }
    }
  }
}

// Rows before SkipRowsBefore's row are neither added nor written: the mean's later rows are the whole layer's, bit
// for bit (one thread, rows in order), its earlier rows the caller's.
TEST(PooledRollout, RowsBeforeTheFirstNeededAreNeitherAddedNorWritten) {
  const int n = 70, n_head = 2, f = 4, nb = RolloutBlocks(n, f), first = 40;
  const std::vector<float> probs = RandomProbs(n_head, n, 12);
  auto mean_of = [&](int skip_before) {
    PooledRolloutRows rows(n, f, /*causal=*/true);
    if (skip_before > 0) rows.SkipRowsBefore(skip_before);
    for (int h = 0; h < n_head; ++h)
      for (int r0 = 0; r0 < n; r0 += 16)  // blocks of 16 rows, one straddling `first`
        rows.AddRows(r0, std::min(16, n - r0), probs.data() + ((size_t)h * n + r0) * n);
    std::vector<float> mean((size_t)nb * nb, -3.0f);
    rows.TakeMean(n_head, mean.data());
    return mean;
  };
  const std::vector<float> whole = mean_of(0), kept = mean_of(first);
  for (int I = 0; I < nb; ++I)
    for (int J = 0; J < nb; ++J) {
      const size_t c = (size_t)I * nb + J;
      if (I < first / f) ASSERT_EQ(kept[c], -3.0f) << I << ", " << J;
      else ASSERT_EQ(kept[c], whole[c]) << I << ", " << J;
    }
  PooledRolloutRows rows(n, f);
  EXPECT_DEATH(rows.SkipRowsBefore(first + 1), "a multiple of 4");
}

// A causal model's rows: with the mask known, a row is read only up to its diagonal (NaN past it changes nothing) and
// the mean is the one summed over every key, bit for bit.
TEST(PooledRollout, CausalRowsAreReadToTheDiagonalOnlyForTheSameBits) {
  const int n = 37, n_head = 3;  // 37: partial last blocks
  const std::vector<float> probs = RandomProbs(n_head, n, 5);
  std::vector<float> poisoned = probs;
  for (int h = 0; h < n_head; ++h)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) poisoned[((size_t)h * n + i) * n + j] = std::numeric_limits<float>::quiet_NaN();
  for (int f : {1, 2, 4, 8}) {
    SCOPED_TRACE("f " + std::to_string(f));
    PooledRolloutRows plain(n, f), causal(n, f, /*causal=*/true);
    for (int h = 0; h < n_head; ++h)
      for (int r0 = 0; r0 < n; r0 += 8) {
        const size_t at = ((size_t)h * n + r0) * n;
        plain.AddRows(r0, std::min(8, n - r0), probs.data() + at);
        causal.AddRows(r0, std::min(8, n - r0), poisoned.data() + at);
      }
    const int nb = plain.blocks();
    std::vector<float> want((size_t)nb * nb), got((size_t)nb * nb, -1.0f);
    plain.TakeMean(n_head, want.data());
    causal.TakeMean(n_head, got.data());
    for (size_t c = 0; c < want.size(); ++c) ASSERT_EQ(got[c], want[c]) << c;
  }
}

// The top k of the predictions: one pass over the k best so far equals sorting the whole row (ties included).
TEST(Predict, TopKIndicesAreThePartialSortsTiesLowerIndexFirst) {
  unsigned state = 5;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 8; };
  for (int count : {1, 7, 100, 1000}) {
    std::vector<float> values((size_t)count);
    for (float& v : values) v = (float)(next() % 13) - 6.0f;  // few distinct values: many ties
    for (int k : {0, 1, 3, 5, count}) {
      if (k > count) continue;
      std::vector<int> order((size_t)count);
      for (int i = 0; i < count; ++i) order[(size_t)i] = i;
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return values[(size_t)a] != values[(size_t)b] ? values[(size_t)a] > values[(size_t)b] : a < b;
      });
      order.resize((size_t)k);
      EXPECT_EQ(TopKIndices(values.data(), count, k), order) << "count " << count << ", k " << k;
    }
  }
}

// The pass's threads add blocks of the same rows (other heads) at once, each into its own shard of the sums.
TEST(PooledRollout, RowsAddedFromSeveralThreadsAreTheWholeMapsMean) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(PooledRolloutRows::kShards);  // a team of as many threads as shards (this machine's cores or not)
  for (int f : {1, 2}) {
    SCOPED_TRACE("f " + std::to_string(f));
    const int n = 40, n_head = 6;
    const std::vector<float> probs = RandomProbs(n_head, n, 11);
    PooledRolloutRows whole(n, f), by_threads(n, f);
    ASSERT_EQ(PooledRolloutRows::Shards(), PooledRolloutRows::kShards);
    const int nb = whole.blocks();
    std::vector<float> want((size_t)nb * nb), got((size_t)nb * nb);
    whole.AddMap(probs.data(), n_head);
    whole.TakeMean(n_head, want.data());
#pragma omp parallel for schedule(dynamic)
    for (int item = 0; item < n_head * (n / 8); ++item) {  // as the pass: heads fastest, blocks of 8 rows
      const int h = item % n_head, r0 = item / n_head * 8;
      by_threads.AddRows(r0, 8, probs.data() + ((size_t)h * n + r0) * n);
    }
    by_threads.TakeMean(n_head, got.data());
    for (size_t c = 0; c < want.size(); ++c) ASSERT_NEAR(got[c], want[c], 1e-6f) << c;
    // Every shard was cleared: the next layer's mean is its own (here head 0 alone, as a fresh one makes it).
    PooledRolloutRows fresh(n, f);
    fresh.AddRows(0, n, probs.data());
    fresh.TakeMean(1, want.data());
    by_threads.AddRows(0, n, probs.data());
    by_threads.TakeMean(1, got.data());
    for (size_t c = 0; c < want.size(); ++c) ASSERT_EQ(got[c], want[c]) << c;
  }
  omp_set_num_threads(saved);
}

// Block pooling of an exact map [n, n]: row mean over I, column sum over J.
std::vector<double> BlockPool(const std::vector<double>& r, int n, int f) {
  const int nb = RolloutBlocks(n, f);
  std::vector<double> p((size_t)nb * nb, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) p[(size_t)(i / f) * nb + j / f] += r[(size_t)i * n + j] / (std::min(n, (i / f + 1) * f) - i / f * f);
  return p;
}

// The exact rollout in double, from maps [n_head, n, n] per layer: R_l [n, n] per layer.
std::vector<std::vector<double>> ExactRolloutDouble(const std::vector<std::vector<float>>& layers, int n_head, int n) {
  std::vector<std::vector<double>> out;
  std::vector<double> r;
  for (const std::vector<float>& probs : layers) {
    std::vector<double> a((size_t)n * n);
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        double m = 0;
        for (int h = 0; h < n_head; ++h) m += probs[((size_t)h * n + i) * n + j];
        sum += a[(size_t)i * n + j] = 0.5 * m / n_head + (i == j ? 0.5 : 0.0);
      }
      for (int j = 0; j < n; ++j) a[(size_t)i * n + j] /= sum;
    }
    if (r.empty()) {
      r = a;
    } else {
      std::vector<double> next((size_t)n * n, 0.0);
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < n; ++k)
          for (int j = 0; j < n; ++j) next[(size_t)i * n + j] += a[(size_t)i * n + k] * r[(size_t)k * n + j];
      r = next;
    }
    out.push_back(r);
  }
  return out;
}

TEST(PooledRollout, EqualsTheBlockPoolingOfTheExactRolloutWhenRowsAreEqualWithinBlocks) {
  // Head-mean maps whose rows are equal within each block of f (every head's row i is the block's first row): then
  // pooling commutes with each product and R' is the block pooling of the exact R.
  for (int n : {24, 27}) {  // 27: a partial last block of 3 rows
    const int n_head = 2, f = 4, nb = RolloutBlocks(n, f);
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<std::vector<float>> layers;
    for (unsigned seed : {11u, 12u, 13u}) {
      std::vector<float> probs = RandomProbs(n_head, n, seed);
      for (int h = 0; h < n_head; ++h)
        for (int i = 0; i < n; ++i) {
          // Row i: the last row of its block (it sees every key the block's rows see, and no later one).
          const int last = std::min(n, (i / f + 1) * f) - 1;
          std::copy_n(probs.data() + ((size_t)h * n + last) * n, n, probs.data() + ((size_t)h * n + i) * n);
        }
      layers.push_back(probs);
    }
    const auto pooled = PooledRollout(layers, n_head, n, f);
    const auto exact = ExactRolloutDouble(layers, n_head, n);
    for (size_t l = 0; l < layers.size(); ++l) {
      const std::vector<double> want = BlockPool(exact[l], n, f);
      for (size_t c = 0; c < want.size(); ++c) ASSERT_NEAR(pooled[l][c], want[c], 1e-5) << l << ": " << c;
      // Not trivially equal: the blocks mix.
      EXPECT_GT(want[(size_t)(nb - 1) * nb], 1e-3);
    }
  }
}

TEST(PooledRollout, MatchesADoubleReferenceOfTheSameDefinition) {
  // R'_l from the definition in double: P from the maps, A^' = 0.5 P + 0.5 I (rows renormalized), R' = A^' R'.
  const int n = 45, n_head = 3, f = 8, nb = RolloutBlocks(n, f);  // 6 blocks, the last of 5 rows
  std::vector<std::vector<float>> layers = {RandomProbs(n_head, n, 21), RandomProbs(n_head, n, 22), RandomProbs(n_head, n, 23)};
  const auto pooled = PooledRollout(layers, n_head, n, f);
  std::vector<double> r;
  for (size_t l = 0; l < layers.size(); ++l) {
    std::vector<double> mean((size_t)n * n, 0.0);
    for (int h = 0; h < n_head; ++h)
      for (size_t c = 0; c < mean.size(); ++c) mean[c] += layers[l][(size_t)h * n * n + c] / n_head;
    std::vector<double> a = BlockPool(mean, n, f);
    for (int I = 0; I < nb; ++I) {
      double sum = 0;
      for (int J = 0; J < nb; ++J) sum += a[(size_t)I * nb + J] = 0.5 * a[(size_t)I * nb + J] + (I == J ? 0.5 : 0.0);
      for (int J = 0; J < nb; ++J) a[(size_t)I * nb + J] /= sum;
    }
    if (r.empty()) {
      r = a;
    } else {
      std::vector<double> next((size_t)nb * nb, 0.0);
      for (int I = 0; I < nb; ++I)
        for (int K = 0; K < nb; ++K)
          for (int J = 0; J < nb; ++J) next[(size_t)I * nb + J] += a[(size_t)I * nb + K] * r[(size_t)K * nb + J];
      r = next;
    }
    for (size_t c = 0; c < r.size(); ++c) ASSERT_NEAR(pooled[l][c], r[c], 1e-6) << l << ": " << c;
  }
}

TEST(Rollout, CausalLayersTakeTheTriangularProductAndEqualTheFullOne) {
  // 300 tokens: two whole bands of Advance's triangular product and a partial third. Three causal layers (the
  // triangular path), then a bidirectional one (the full product again), then a causal one after it (still full:
  // R is no longer triangular).
  const int n = 300, n_head = 2;
  std::vector<std::vector<float>> layers = {RandomProbs(n_head, n, 31), RandomProbs(n_head, n, 32),
                                            RandomProbs(n_head, n, 33)};
  std::vector<float> dense((size_t)n_head * n * n);
  unsigned state = 34;
  auto next = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0; };
  for (int h = 0; h < n_head; ++h)
    for (int i = 0; i < n; ++i) {
      float* row = dense.data() + ((size_t)h * n + i) * n;
      double sum = 0;
      for (int j = 0; j < n; ++j) sum += (row[j] = (float)std::exp(3.0 * next()));
      for (int j = 0; j < n; ++j) row[j] = (float)(row[j] / sum);
    }
  layers.push_back(dense);
  layers.push_back(RandomProbs(n_head, n, 35));
  const auto want = ExactRolloutDouble(layers, n_head, n);
  Rollout rollout(n);
  std::vector<float> got((size_t)n * n);
  for (size_t l = 0; l < layers.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    rollout.AddLayer(layers[l].data(), n_head, got.data());
    for (size_t c = 0; c < got.size(); ++c) ASSERT_NEAR(got[c], want[l][c], 1e-6) << c;
    if (l < 3) {  // causal so far: nothing above the diagonal, exactly
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) ASSERT_EQ(got[(size_t)i * n + j], 0.0f) << i << ", " << j;
    } else {  // after the bidirectional layer every token reaches every other
      EXPECT_GT(got[1], 0.0f);
    }
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) sum += got[(size_t)i * n + j];
      ASSERT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    }
  }
}

TEST(Rollout, ProductsAcrossSeveralTilesAreTheSameOnOneThreadAndOnTwo) {
  // 600 tokens: the product's tiles (core/base/matmul.h, 512 x 512) split rows and columns, the triangular bands
  // run on the team. Two causal layers (triangular), then one from RandomProbs transposed to be dense (full).
  const int n = 600, n_head = 1;
  std::vector<std::vector<float>> layers = {RandomProbs(n_head, n, 41), RandomProbs(n_head, n, 42)};
  std::vector<float> dense((size_t)n * n);
  for (int i = 0; i < n; ++i) {  // rows of the transposed causal map, renormalized: every cell > 0 somewhere above
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += dense[(size_t)i * n + j] = layers[0][(size_t)j * n + i] + 1e-3f;
    for (int j = 0; j < n; ++j) dense[(size_t)i * n + j] = (float)(dense[(size_t)i * n + j] / sum);
  }
  layers.push_back(dense);
  auto run = [&](int threads) {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(threads);
    Rollout rollout(n);
    std::vector<std::vector<float>> out(layers.size(), std::vector<float>((size_t)n * n));
    for (size_t l = 0; l < layers.size(); ++l) rollout.AddLayer(layers[l].data(), n_head, out[l].data());
    omp_set_num_threads(saved);
    return out;
  };
  const auto one = run(1), two = run(2);
  const auto want = ExactRolloutDouble(layers, n_head, n);
  for (size_t l = 0; l < layers.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    ASSERT_EQ(0, std::memcmp(one[l].data(), two[l].data(), one[l].size() * sizeof(float)));
    for (size_t c = 0; c < two[l].size(); ++c) ASSERT_NEAR(two[l][c], want[l][c], 1e-6) << c;
  }
  EXPECT_EQ(two[1][1], 0.0f);  // still causal after two causal layers
  EXPECT_GT(two[2][1], 0.0f);  // not after the dense one
}

// A causal run continuing from a kept prefix: R_l's rows before `from` are the earlier run's, the rest made from the
// head mean's (or the probs') rows from `from` on (the rows before are never read: NaN here), bit for bit a whole run's R_l, the
// new text longer or shorter than the old, over several bands of the triangular product.
TEST(Rollout, KeptRowsOfAnEarlierRunGiveTheWholeRunBitForBit) {
  for (auto [n_old, n_new, shared] : {std::tuple{300, 310, 280}, {300, 290, 290}, {140, 141, 140}}) {
    SCOPED_TRACE(std::to_string(n_old) + " -> " + std::to_string(n_new));
    const int from = shared / 8 * 8;
    Rollout old_run(n_old), whole(n_new), keeping(n_new), keeping_probs(n_new);
    std::vector<float> old_r((size_t)n_old * n_old), want((size_t)n_new * n_new), got((size_t)n_new * n_new);
    for (unsigned l = 0; l < 3; ++l) {
      SCOPED_TRACE("layer " + std::to_string(l));
      const std::vector<float> old_mean = RandomProbs(1, n_old, 40 + l);
      std::vector<float> mean = RandomProbs(1, n_new, 50 + l);  // rows [0, shared) the old text's
      for (int i = 0; i < shared; ++i)
        for (int j = 0; j < n_new; ++j) mean[(size_t)i * n_new + j] = j < n_old ? old_mean[(size_t)i * n_old + j] : 0.0f;
      old_run.AddMeanLayer(old_mean.data(), old_r.data());
      whole.AddMeanLayer(mean.data(), want.data());
      std::fill(mean.begin(), mean.begin() + (ptrdiff_t)from * n_new, std::numeric_limits<float>::quiet_NaN());
      keeping.AddMeanLayerKeeping(mean.data(), old_r.data(), n_old, from, got.data());
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
      // From one head's probs (whole maps: AddLayer's head mean of one head is the map itself).
      keeping_probs.AddLayerKeeping(mean.data(), 1, old_r.data(), n_old, from, got.data());
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
    }
  }
}

}  // namespace
}  // namespace attnviz::model
