#include "sandbox/pipeline.h"
#include "maps/score_codes.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace attnviz;

namespace {
void ExpectSameMaps(const AttentionTensors& a, const AttentionTensors& b) {
  EXPECT_EQ(a.probs->data, b.probs->data);
  EXPECT_EQ(a.scores->data, b.scores->data);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (size_t h = 0; h < a.metrics.size(); ++h) {
    EXPECT_EQ(a.metrics[h].max_weight, b.metrics[h].max_weight);
    EXPECT_EQ(a.metrics[h].entropy, b.metrics[h].entropy);
    EXPECT_EQ(a.metrics[h].logit_std, b.metrics[h].logit_std);
  }
}
// A fresh pipeline on the same inputs: the reference for the incremental one.
Pipeline Fresh(const std::string& text, const AttentionConfig& c, Stage through = Stage::kMetrics) {
  Pipeline p;
  EXPECT_TRUE(p.SetText(text).ok());
  EXPECT_TRUE(p.SetConfig(c).ok());
  EXPECT_TRUE(p.Run(through).ok());
  return p;
}
}  // namespace

TEST(Pipeline, ScalingTemperatureAndMaskReuseProjectionsAndScores) {
  const std::string text = "the cat sat on the mat because it was warm";
  AttentionConfig c;
  c.n_head = 4;
  c.d_k = 32;
  Pipeline p;
  ASSERT_TRUE(p.SetText(text).ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kProject), 1);
  EXPECT_EQ(p.run_count(Stage::kScores), 1);
  EXPECT_EQ(p.run_count(Stage::kMultiplier), 1);
  EXPECT_EQ(p.run_count(Stage::kOutput), 0);  // z and out only on demand

  c.scale = false;  // scaling: from the logits
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kMultiplier);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kProject), 1);
  EXPECT_EQ(p.run_count(Stage::kScores), 1);
  EXPECT_EQ(p.run_count(Stage::kMultiplier), 2);
  ExpectSameMaps(p.tensors(), Fresh(text, c).tensors());

  c.temperature = 0.25f;  // temperature: from the logits
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kScores), 1);
  EXPECT_EQ(p.run_count(Stage::kMultiplier), 3);
  ExpectSameMaps(p.tensors(), Fresh(text, c).tensors());

  c.mask = MaskKind::kCausal;  // mask: only the softmax
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kSoftmax);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kMultiplier), 3);
  EXPECT_EQ(p.run_count(Stage::kSoftmax), 4);
  ExpectSameMaps(p.tensors(), Fresh(text, c).tensors());

  c.d_k = 64;  // a new shape: new projections
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kProject);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kProject), 2);
  EXPECT_EQ(p.run_count(Stage::kEmbed), 1);
  ExpectSameMaps(p.tensors(), Fresh(text, c).tensors());

  c.seed = 9;  // a new seed: new embeddings and weights
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kEmbed);
  ASSERT_TRUE(p.Run(Stage::kOutput).ok());
  EXPECT_EQ(p.run_count(Stage::kEmbed), 2);
  EXPECT_EQ(p.run_count(Stage::kOutput), 1);
  Pipeline fresh = Fresh(text, c, Stage::kOutput);
  ExpectSameMaps(p.tensors(), fresh.tensors());
  EXPECT_EQ(p.tensors().out->data, fresh.tensors().out->data);

  // Nothing changed: nothing runs.
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kOutput).ok());
  EXPECT_EQ(p.run_count(Stage::kEmbed), 2);
  EXPECT_EQ(p.run_count(Stage::kOutput), 1);
}

TEST(Pipeline, TextChangeReembedsButKeepsTheWeights) {
  AttentionConfig c;
  Pipeline p = Fresh("I go home.", c);
  ASSERT_TRUE(p.SetText("나는 사과를 먹었다").ok());
  EXPECT_EQ(p.first_dirty(), Stage::kEmbed);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.tensors().n_k(), 3);
  ExpectSameMaps(p.tensors(), Fresh("나는 사과를 먹었다", c).tensors());
}

TEST(Pipeline, CrossModeShapes) {
  AttentionConfig c;
  c.mode = AttentionMode::kCross;
  c.n_head = 2;
  c.d_v = 5;
  Pipeline p;
  ASSERT_TRUE(p.SetText("I go home.", "Ich gehe nach Hause heute").ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kOutput).ok());
  const AttentionTensors& t = p.tensors();
  EXPECT_EQ(t.n_q(), 5);
  EXPECT_EQ(t.n_k(), 4);
  EXPECT_EQ(t.q->shape, (std::vector<size_t>{2, 5, 32}));  // d_k = 64 / 2
  EXPECT_EQ(t.k->shape, (std::vector<size_t>{2, 4, 32}));
  EXPECT_EQ(t.v->shape, (std::vector<size_t>{2, 4, 5}));
  EXPECT_EQ(t.z->shape, (std::vector<size_t>{2, 5, 5}));
  EXPECT_EQ(t.out->shape, (std::vector<size_t>{5, 64}));
  EXPECT_EQ(t.query_tokens.size(), 5u);
}

TEST(Pipeline, ErrorsLeaveStateUntouched) {
  AttentionConfig c;
  Pipeline p = Fresh("I go home.", c);
  const auto before = p.tensors().probs->data;
  EXPECT_FALSE(p.SetText("   ").ok());
  EXPECT_EQ(p.kv_text(), "I go home.");
  AttentionConfig bad = c;
  bad.n_head = 0;
  Status s = p.SetConfig(bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("n_head"), std::string::npos);
  EXPECT_EQ(p.config().n_head, c.n_head);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.tensors().probs->data, before);
  // Cross mode without a query sentence.
  AttentionConfig cross = c;
  cross.mode = AttentionMode::kCross;
  ASSERT_TRUE(p.SetConfig(cross).ok());
  Status r = p.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("query"), std::string::npos);
}

TEST(Pipeline, LoadedWeightsReplaceTheInitAndMustMatch) {
  AttentionConfig c;
  c.qkv = QkvLayout::kSeparate;
  Pipeline p = Fresh("a b c", c);
  ProjectionWeights w = p.params();
  for (float& v : w.w_q.data) v *= 2;  // logits double
  p.SetLoadedWeights(w);
  ASSERT_TRUE(p.Run().ok());
  Pipeline ref = Fresh("a b c", c);
  ASSERT_FALSE(ref.tensors().scores->empty());
  for (size_t i = 0; i < ref.tensors().scores->size(); ++i)
    EXPECT_NEAR(p.tensors().scores->data[i], 2 * ref.tensors().scores->data[i], 1e-5);
  AttentionConfig other = c;
  other.d_k = 8;
  ASSERT_TRUE(p.SetConfig(other).ok());
  Status s = p.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("loaded weights"), std::string::npos);
  p.ClearLoadedWeights();
  EXPECT_TRUE(p.Run().ok());
}

TEST(Pipeline, LogitsZAndOutOnDemandAndNeverStale) {
  AttentionConfig c;
  c.n_head = 2;
  c.mask = MaskKind::kCausal;
  Pipeline p = Fresh("the cat sat on the mat", c, Stage::kOutput);
  const AttentionTensors& t = p.tensors();
  // The logits map equals scores * multiplier, and is what the softmax saw.
  Tensor logits, probs;
  Logits(*t.scores, c.logit_multiplier(), &logits);
  EXPECT_EQ(t.logits->shape, t.probs->shape);
  EXPECT_EQ(t.logits->data, logits.data);
  Softmax(*t.logits, c.mask, &probs);
  EXPECT_EQ(t.probs->data, probs.data);
  EXPECT_EQ(t.out->shape, (std::vector<size_t>{6, 64}));
  // A toggle recomputes the maps but not logits, z, out: they are emptied, never left stale.
  c.scale = false;
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kMetrics).ok());
  EXPECT_TRUE(t.logits->empty());
  EXPECT_TRUE(t.z->empty());
  EXPECT_TRUE(t.out->empty());
  ASSERT_TRUE(p.Run(Stage::kOutput).ok());
  Pipeline fresh = Fresh("the cat sat on the mat", c, Stage::kOutput);
  EXPECT_EQ(t.logits->data, fresh.tensors().logits->data);
  EXPECT_EQ(t.z->data, fresh.tensors().z->data);
  EXPECT_EQ(t.out->data, fresh.tensors().out->data);
  EXPECT_EQ(LogitFromScore(t.scores->data[7], c.logit_multiplier()), t.logits->data[7]);
}

// A published result is immutable and shared: a later run never writes into it, and what a later
// run did not recompute is the very same tensor (no copy).
TEST(Pipeline, PublishedTensorsAreSharedAndNeverOverwritten) {
  AttentionConfig c;
  c.n_head = 2;
  Pipeline p = Fresh("the cat sat on the mat", c);
  const AttentionTensors before = p.tensors();  // what the app would hold
  const std::vector<float> probs_before = before.probs->data;
  c.temperature = 0.25f;  // dirties the multiplier stage only
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run().ok());
  const AttentionTensors& after = p.tensors();
  EXPECT_EQ(before.probs->data, probs_before) << "the held result was overwritten";
  EXPECT_NE(after.probs->data, probs_before);
  EXPECT_NE(after.probs.get(), before.probs.get());
  EXPECT_EQ(after.q.get(), before.q.get()) << "q was copied though it did not change";
  EXPECT_EQ(after.k.get(), before.k.get());
  EXPECT_EQ(after.scores.get(), before.scores.get());
  EXPECT_EQ(after.x.get(), after.xq.get());  // self mode: one tensor
}

// Long inputs: above the threshold no full map is kept; the pyramid, the figures and z are those of
// full mode bit for bit, exact rows come back from q and k, and toggles rerun the pass from q and k.
// 300 words from a vocabulary of `vocab` ("w0 w1 ..."), and the 3-head, d_k 16 config of the long-input tests.
static std::string Words300(int vocab) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += (i ? " w" : "w") + std::to_string(i % vocab);
  return text;
}
static AttentionConfig ThreeHeadsDk16() {
  AttentionConfig c;
  c.n_head = 3;
  c.d_k = 16;
  return c;
}

TEST(Pipeline, PooledModeKeepsNoMapAndMatchesFullMode) {
  const std::string text = Words300(41);
  AttentionConfig c = ThreeHeadsDk16();
  Pipeline full, pooled;
  pooled.set_pooled_above_cells(3 * 300 * 300 - 1);  // just above: pooled
  full.set_pooled_above_cells(3 * 300 * 300);        // exactly at the threshold: full
  for (Pipeline* p : {&full, &pooled}) {
    ASSERT_TRUE(p->SetText(text).ok());
    ASSERT_TRUE(p->SetConfig(c).ok());
  }
  for (int round = 0; round < 3; ++round) {
    if (round == 1) c.scale = false;             // a toggle
    if (round == 2) c.mask = MaskKind::kCausal;  // the mask
    for (Pipeline* p : {&full, &pooled}) {
      ASSERT_TRUE(p->SetConfig(c).ok());
      ASSERT_TRUE(p->Run(Stage::kOutput).ok());
    }
    const AttentionTensors& f = full.tensors();
    const AttentionTensors& t = pooled.tensors();
    EXPECT_FALSE(f.pooled);
    EXPECT_TRUE(t.pooled);
    EXPECT_TRUE(t.probs->empty());
    EXPECT_TRUE(t.scores->empty());
    EXPECT_TRUE(t.logits->empty());
    EXPECT_EQ(t.n_head(), 3);
    EXPECT_EQ(t.n_q(), 300);
    EXPECT_EQ(t.n_k(), 300);
    ASSERT_TRUE(t.pyramid && f.pyramid);
    ASSERT_EQ(t.pyramid->levels().size(), f.pyramid->levels().size());
    for (size_t l = 0; l < t.pyramid->levels().size(); ++l) {
      EXPECT_EQ(t.pyramid->levels()[l].max, f.pyramid->levels()[l].max);
      EXPECT_EQ(t.pyramid->levels()[l].mean, f.pyramid->levels()[l].mean);
    }
    EXPECT_EQ(t.z->data, f.z->data);
    EXPECT_EQ(t.out->data, f.out->data);
    for (int h = 0; h < 3; ++h) {
      EXPECT_EQ(t.metrics[h].max_weight, f.metrics[h].max_weight);
      EXPECT_EQ(t.metrics[h].rows[123].entropy, f.metrics[h].rows[123].entropy);
    }
    // Exact rows from q and k equal the full map.
    MapSource src = t.Source(1);
    ViewImage v = ComposeView(src, 2, MapWindow{100, 140, 200, 260}, 100, 100, PoolKind::kMax);
    ASSERT_TRUE(v.exact());
    for (int y = 0; y < v.height; ++y)
      for (int x = 0; x < v.width; ++x) {
        const int i = 100 + y, j = 200 + x;
        const float want = f.probs->data[((size_t)2 * 300 + i) * 300 + j];
        if (c.mask == MaskKind::kCausal && j > i) EXPECT_TRUE(std::isnan(v.values[(size_t)y * v.width + x]));
        else EXPECT_EQ(v.values[(size_t)y * v.width + x], want);
      }
  }
}

// Score codes shared as in the app: the twin's pass (scaling flipped, the same q and k) writes them, the main
// pipeline's temperature and mask changes read them instead of q k^T; the maps then agree with a pass from q and
// k to within what the codes' step allows, and a change that makes new q and k does not use stale codes.
TEST(Pipeline, SharedScoreCodesServeTogglesAndGoStaleWithNewQueriesAndKeys) {
  const std::string text = Words300(53);
  AttentionConfig c = ThreeHeadsDk16();
  auto codes = std::make_shared<ScoreCodes>();
  Pipeline main_p, twin, reference;
  main_p.UseScoreCodes(codes, false);
  twin.UseScoreCodes(codes, true);
  AttentionConfig flipped = c;
  flipped.scale = false;
  for (Pipeline* p : {&main_p, &twin, &reference}) {
    p->set_pooled_above_cells(1);
    ASSERT_TRUE(p->SetText(text).ok());
  }
  ASSERT_TRUE(main_p.SetConfig(c).ok());
  ASSERT_TRUE(main_p.Run().ok());  // the first maps: nothing written (the main pipeline only reads)
  EXPECT_FALSE(codes->MadeFrom(*main_p.tensors().q, *main_p.tensors().k));
  ASSERT_TRUE(twin.SetConfig(flipped).ok());
  ASSERT_TRUE(twin.Run().ok());  // writes the codes
  EXPECT_TRUE(codes->MadeFrom(*main_p.tensors().q, *main_p.tensors().k));  // equal q and k: valid for both
  EXPECT_EQ(twin.passes_from_score_codes(), 0);
  for (int round = 0; round < 3; ++round) {
    if (round == 0) c.temperature = 0.3f;
    if (round == 1) c.mask = MaskKind::kCausal;
    if (round == 2) c.scale = false, c.temperature = 2.0f;
    ASSERT_TRUE(main_p.SetConfig(c).ok());
    ASSERT_TRUE(main_p.Run(Stage::kOutput).ok());
    EXPECT_EQ(main_p.passes_from_score_codes(), round + 1);  // one pass: the maps, the figures and z
    ASSERT_TRUE(reference.SetConfig(c).ok());
    ASSERT_TRUE(reference.Run(Stage::kOutput).ok());
    const AttentionTensors& got = main_p.tensors();
    const AttentionTensors& want = reference.tensors();
    ASSERT_TRUE(got.pyramid && want.pyramid);
    const std::vector<PyramidLevel>& gl = got.pyramid->levels();
    const std::vector<PyramidLevel>& wl = want.pyramid->levels();
    ASSERT_EQ(gl.size(), wl.size());
    // A score is off by at most half a step, (row range) / 131070: a few 1e-4 of a logit here, so each prob
    // is within ~1e-3 of itself.
    for (size_t l = 0; l < gl.size(); ++l) {
      ASSERT_EQ(gl[l].max.size(), wl[l].max.size());
      for (size_t i = 0; i < gl[l].max.size(); ++i) {
        ASSERT_NEAR(gl[l].max[i], wl[l].max[i], 2e-3f * wl[l].max[i] + 1e-7f) << "level " << l << " cell " << i;
        ASSERT_NEAR(gl[l].mean[i], wl[l].mean[i], 2e-3f * wl[l].mean[i] + 1e-7f) << "level " << l << " cell " << i;
      }
    }
    for (int h = 0; h < 3; ++h) EXPECT_NEAR(got.metrics[h].max_weight, want.metrics[h].max_weight, 2e-3f);
    for (size_t i = 0; i < want.z->size(); ++i) ASSERT_NEAR(got.z->data[i], want.z->data[i], 1e-3f);
  }
  // A new seed makes new q and k: the codes are stale, the pass starts from q and k.
  c.seed += 1;
  ASSERT_TRUE(main_p.SetConfig(c).ok());
  ASSERT_TRUE(main_p.Run().ok());
  EXPECT_EQ(main_p.passes_from_score_codes(), 3);
  EXPECT_FALSE(codes->MadeFrom(*main_p.tensors().q, *main_p.tensors().k));
}

// Codes written by a causal pass hold every key's score, the masked ones too (a causal block's products skip the
// key tiles after its last row; the codes' pass asks for them all): a later pass without the mask reads them and
// agrees with a pass from q and k. 300 tokens: more than one 256-key tile.
TEST(Pipeline, CodesFromACausalPassServeAPassWithoutTheMask) {
  const std::string text = Words300(71);
  AttentionConfig c = ThreeHeadsDk16();
  c.mask = MaskKind::kCausal;
  auto codes = std::make_shared<ScoreCodes>();
  Pipeline main_p, twin, reference;
  main_p.UseScoreCodes(codes, false);
  twin.UseScoreCodes(codes, true);
  for (Pipeline* p : {&main_p, &twin, &reference}) {
    p->set_pooled_above_cells(1);
    ASSERT_TRUE(p->SetText(text).ok());
  }
  AttentionConfig flipped = c;
  flipped.scale = false;
  ASSERT_TRUE(twin.SetConfig(flipped).ok());
  ASSERT_TRUE(twin.Run().ok());  // writes the codes under the causal mask
  c.mask = MaskKind::kNone;
  ASSERT_TRUE(main_p.SetConfig(c).ok());
  ASSERT_TRUE(main_p.Run().ok());
  EXPECT_EQ(main_p.passes_from_score_codes(), 1);
  ASSERT_TRUE(reference.SetConfig(c).ok());
  ASSERT_TRUE(reference.Run().ok());
  const std::vector<PyramidLevel>& gl = main_p.tensors().pyramid->levels();
  const std::vector<PyramidLevel>& wl = reference.tensors().pyramid->levels();
  ASSERT_EQ(gl.size(), wl.size());
  for (size_t i = 0; i < wl[0].max.size(); ++i)
    ASSERT_NEAR(gl[0].max[i], wl[0].max[i], 2e-3f * wl[0].max[i] + 1e-7f) << "cell " << i;
  for (int h = 0; h < 3; ++h)
    EXPECT_NEAR(main_p.tensors().metrics[h].max_weight, reference.tensors().metrics[h].max_weight, 2e-3f);
}

TEST(Pipeline, CancelledRunStopsEarlyAndTheNextRunRedoesIt) {
  std::string text;
  for (int i = 0; i < 1200; ++i) text += (i ? " w" : "w") + std::to_string(i);
  AttentionConfig c;
  c.n_head = 4;
  Pipeline p;
  p.set_pooled_above_cells(1);  // pooled
  ASSERT_TRUE(p.SetText(text).ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  std::atomic<bool> cancel{false};
  std::atomic<size_t> last_done{0}, last_total{0};
  RunControl control;
  control.cancel = &cancel;
  control.progress = [&](const char* stage, size_t done, size_t total) {
    if (std::string(stage) != "attention maps") return;
    last_done = done;
    last_total = total;
    if (done >= 2) cancel = true;  // a newer request arrives after two blocks
  };
  Status st = p.Run(Stage::kMetrics, &control);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.cancelled()) << st.message();
  EXPECT_GT(last_total.load(), 20u);
  EXPECT_LE(last_done.load(), 2u + 2u);  // within one block per thread
  EXPECT_EQ(p.first_dirty(), Stage::kScores);
  cancel = false;
  control.progress = [&](const char* stage, size_t done, size_t total) {
    if (std::string(stage) == "attention maps") last_done = done, last_total = total;
  };
  ASSERT_TRUE(p.Run(Stage::kMetrics, &control).ok());
  EXPECT_EQ(last_done.load(), last_total.load());
  Pipeline fresh;
  fresh.set_pooled_above_cells(1);
  ASSERT_TRUE(fresh.SetText(text).ok());
  ASSERT_TRUE(fresh.SetConfig(c).ok());
  ASSERT_TRUE(fresh.Run().ok());
  EXPECT_EQ(p.tensors().pyramid->levels()[0].max, fresh.tensors().pyramid->levels()[0].max);
}

TEST(Pipeline, ScoreChangeRerunsScoresOnlySourceChangeReprojects) {
  AttentionConfig c;
  c.d_model = 16;
  c.n_head = 2;
  Pipeline p;
  ASSERT_TRUE(p.SetText("the cat sat on the mat").ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run().ok());
  const std::vector<float> scaled = p.tensors().probs->data;
  c.score = ScoreKind::kCosine;
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kScores);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kProject), 1);
  EXPECT_EQ(p.run_count(Stage::kScores), 2);
  EXPECT_NE(p.tensors().probs->data, scaled);
  EXPECT_EQ(p.tensors().multiplier, 1.0f);  // cosine is not divided by sqrt(d_k)
  // A temperature change keeps the cosine scores (probs from the kept map).
  c.temperature = 0.5f;
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.run_count(Stage::kScores), 2);
  ExpectSameMaps(p.tensors(), Fresh("the cat sat on the mat", c).tensors());
  c.key_from = c.query_from = FeatureSource::kLength;
  ASSERT_TRUE(p.SetConfig(c).ok());
  EXPECT_EQ(p.first_dirty(), Stage::kProject);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.tensors().q->shape, (std::vector<size_t>{2, 6, 1}));
  // Back to the default: the same maps as a fresh default run.
  ASSERT_TRUE(p.SetConfig(AttentionConfig{16, 2}).ok());
  ASSERT_TRUE(p.Run().ok());
  EXPECT_EQ(p.tensors().probs->data, Fresh("the cat sat on the mat", AttentionConfig{16, 2}).tensors().probs->data);
}

TEST(Pipeline, RawFeaturesStayFiniteAndScaledDotDividesByTheirWidth) {
  // Unscaled length . length logits are large (up to 14*14): the row max is subtracted, nothing overflows.
  AttentionConfig c;
  c.query_from = c.key_from = FeatureSource::kLength;
  c.score = ScoreKind::kDot;
  Pipeline p;
  ASSERT_TRUE(p.SetText("a extraordinarily long antidisestablishment word").ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run(Stage::kOutput).ok());
  for (float x : p.tensors().probs->data) ASSERT_TRUE(std::isfinite(x));
  for (float x : p.tensors().out->data) ASSERT_TRUE(std::isfinite(x));
  c.query_from = c.key_from = FeatureSource::kOneHot;  // width n_vocab = 5
  c.score = ScoreKind::kScaledDot;
  ASSERT_TRUE(p.SetConfig(c).ok());
  ASSERT_TRUE(p.Run().ok());
  EXPECT_FLOAT_EQ(p.tensors().multiplier, 1.0f / std::sqrt(5.0f));
  EXPECT_FLOAT_EQ(p.tensors().Source(1).multiplier, 1.0f / std::sqrt(5.0f));
}

TEST(Pipeline, ScoresThatAreNotDotProductsAreNeverPooled) {
  AttentionConfig c;
  c.n_head = 2;
  c.score = ScoreKind::kNegDistance;
  Pipeline p;
  p.set_pooled_above_cells(2 * 6 * 6 - 1);
  ASSERT_TRUE(p.SetText("the cat sat on the mat").ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  Status s = p.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("neg-distance keeps the whole map"), std::string::npos) << s.message();
  p.set_pooled_above_cells(2 * 6 * 6);
  ASSERT_TRUE(p.Run().ok());
  EXPECT_FALSE(p.tensors().pooled);
}

// Issue 25: the sandbox budgets its activations, not only its weights. One-hot features are as wide as the
// vocabulary, so each q . k costs n and the layer n^3 (6000 distinct words: minutes); wider than 1024 is refused.
TEST(Pipeline, OneHotWiderThanTheLimitIsRefusedBeforeRunning) {
  std::string text;
  for (int i = 0; i < 6000; ++i) text += "w" + std::to_string(i) + " ";
  AttentionConfig c;
  c.query_from = c.key_from = c.value_from = FeatureSource::kOneHot;
  Pipeline p;
  ASSERT_TRUE(p.SetText(text).ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  Status s = p.Run(Stage::kOutput);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("onehot features would be 6000 wide"), std::string::npos) << s.message();
}

TEST(Pipeline, ActivationsOverTheMemoryLimitAreRefusedWithTheEstimate) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "w" + std::to_string(i % 50) + " ";
  AttentionConfig c;
  c.n_head = 16;
  c.d_k = c.d_v = 1024;
  Pipeline p;
  ASSERT_TRUE(p.SetText(text).ok());
  ASSERT_TRUE(p.SetConfig(c).ok());
  ::setenv("ATTNVIZ_MEMORY_LIMIT", "64M", 1);
  Status s = p.Run(Stage::kOutput);
  ::unsetenv("ATTNVIZ_MEMORY_LIMIT");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the layer over 3000 words needs about"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("more than the limit of 64.0 MiB"), std::string::npos) << s.message();
}
