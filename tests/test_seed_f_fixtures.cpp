// Seed (f) against numpy: the feature sources (qkv_source.h), the score functions (score.h) and whole runs on raw
// features, from tests/fixtures/seed_f/ (made by make_seed_f_fixtures.py next to them).
#include <gtest/gtest.h>

#include <cmath>

#include "io/file_io.h"
#include "io/npy.h"
#include "sandbox/pipeline.h"
#include "sandbox/qkv_source.h"
#include "sandbox/score.h"

using namespace attnviz;

namespace {
const std::string kDir = std::string(ATTNVIZ_FIXTURE_DIR) + "/seed_f/";
// The texts the script's token lists come from (tokens.json records both).
const std::string kQueryText = "the cat 사과를 먹었다.";
const std::string kKvText = "나는 사과를 먹었다 the cat sat.";

Tensor Load(const std::string& name) {
  auto t = ReadNpy(kDir + name);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : Tensor();
}

// Every head of `per_head` [n_head, n, w] equals `expected` [n, w] (or [n_head, n, w] when it has heads).
void ExpectClose(const Tensor& actual, const Tensor& expected, float tol, const std::string& what) {
  ASSERT_FALSE(expected.empty()) << what;
  ASSERT_EQ(actual.size() % expected.size(), 0u) << what << ": " << ShapeString(actual.shape) << " vs "
                                                 << ShapeString(expected.shape);
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_TRUE(std::isfinite(actual.data[i])) << what << " at " << i;
    ASSERT_NEAR(actual.data[i], expected.data[i % expected.size()], tol) << what << " at " << i;
  }
}

struct Tokens {
  std::vector<Token> query, kv;
};
Tokens FixtureTokens() {
  Tokens t{*Tokenize(kQueryText), *Tokenize(kKvText)};
  return t;
}
}  // namespace

TEST(SeedFFixtures, TheScriptTokenizedTheSameTexts) {
  auto json = ReadFile(kDir + "tokens.json");
  ASSERT_TRUE(json.ok()) << json.message();
  EXPECT_NE(json->find("\"query_text\": \"" + kQueryText + "\""), std::string::npos);
  EXPECT_NE(json->find("\"kv_text\": \"" + kKvText + "\""), std::string::npos);
  const Tokens t = FixtureTokens();
  EXPECT_EQ(TokenTexts(t.query), (std::vector<std::string>{"the", "cat", "사과를", "먹었다", "."}));
  EXPECT_EQ(TokenTexts(t.kv), (std::vector<std::string>{"나는", "사과를", "먹었다", "the", "cat", "sat", "."}));
  EXPECT_EQ(Vocabulary(t.query, t.kv),
            (std::vector<std::string>{"나는", "사과를", "먹었다", "the", "cat", "sat", "."}));
}

TEST(SeedFFixtures, FeatureSourcesMatchNumpy) {
  const Tokens t = FixtureTokens();
  const std::vector<std::string> vocab = Vocabulary(t.query, t.kv);
  for (FeatureSource source : {FeatureSource::kLength, FeatureSource::kPosition, FeatureSource::kOneHot}) {
    const std::string name = std::string("features_") + ToString(source);
    Tensor q, kv;
    RawFeatures(source, t.query, vocab, 2, &q);
    RawFeatures(source, t.kv, vocab, 2, &kv);
    EXPECT_EQ(q.shape, (std::vector<size_t>{2, 5, (size_t)FeatureWidth(source, 0, (int)vocab.size())})) << name;
    ExpectClose(q, Load(name + "_q.npy"), 0, name + "_q");
    ExpectClose(kv, Load(name + "_kv.npy"), 0, name + "_kv");
  }
}

TEST(SeedFFixtures, ScoreFunctionsMatchNumpy) {
  const Tensor q = Load("q.npy"), k = Load("k.npy");
  AdditiveWeights additive{Load("additive_wq.npy"), Load("additive_wk.npy"), Load("additive_v.npy")};
  for (ScoreKind score : {ScoreKind::kScaledDot, ScoreKind::kDot, ScoreKind::kAdditive, ScoreKind::kCosine,
                          ScoreKind::kNegDistance}) {
    const std::string name = IsDotScore(score) ? "dot" : ToString(score);
    Tensor scores;
    ScoreMatrix(score, q, k, &additive, &scores);
    EXPECT_EQ(scores.shape, (std::vector<size_t>{2, 5, 7}));
    ExpectClose(scores, Load("scores_" + name + ".npy"), 2e-5f, ToString(score));
  }
  // Query row 1 of head 0 is the zero vector: its cosine is 0 everywhere, not NaN.
  Tensor cosine;
  ScoreMatrix(ScoreKind::kCosine, q, k, nullptr, &cosine);
  for (int j = 0; j < 7; ++j) EXPECT_EQ(cosine.data[1 * 7 + j], 0.0f);
}

TEST(SeedFFixtures, WholeRunsOnRawFeaturesMatchNumpy) {
  struct Case {
    const char* name;
    FeatureSource q, k, v;
    ScoreKind score;
    float temperature;
  };
  const Case cases[] = {
      {"length_negdist", FeatureSource::kLength, FeatureSource::kLength, FeatureSource::kOneHot,
       ScoreKind::kNegDistance, 1.0f},
      {"onehot_scaled", FeatureSource::kOneHot, FeatureSource::kOneHot, FeatureSource::kLength, ScoreKind::kScaledDot,
       0.5f},
      {"position_cosine", FeatureSource::kPosition, FeatureSource::kPosition, FeatureSource::kPosition,
       ScoreKind::kCosine, 1.0f},
      {"position_dot", FeatureSource::kPosition, FeatureSource::kPosition, FeatureSource::kLength, ScoreKind::kDot,
       2.0f},
  };
  for (const Case& cs : cases) {
    AttentionConfig c;
    c.d_model = 8;
    c.n_head = 2;
    c.mode = AttentionMode::kCross;
    c.query_from = cs.q, c.key_from = cs.k, c.value_from = cs.v;
    c.score = cs.score;
    c.temperature = cs.temperature;
    Pipeline p;
    ASSERT_TRUE(p.SetText(kKvText, kQueryText).ok());
    ASSERT_TRUE(p.SetConfig(c).ok()) << cs.name;
    Status s = p.Run(Stage::kOutput);
    ASSERT_TRUE(s.ok()) << cs.name << ": " << s.message();
    const AttentionTensors& t = p.tensors();
    ExpectClose(*t.probs, Load(std::string("e2e_") + cs.name + "_probs.npy"), 1e-5f, cs.name);
    ExpectClose(*t.z, Load(std::string("e2e_") + cs.name + "_z.npy"), 1e-4f, cs.name);
    // W_o was drawn for the raw value width: the output exists and is finite.
    ASSERT_EQ(t.out->shape, (std::vector<size_t>{5, 8}));
    for (float x : t.out->data) ASSERT_TRUE(std::isfinite(x)) << cs.name;
  }
}

TEST(SeedFFixtures, QueryKeyWidthMismatchIsRefusedNamingBothWidths) {
  AttentionConfig c;
  c.d_model = 16;
  c.n_head = 2;  // d_k = 8
  c.mode = AttentionMode::kCross;
  c.query_from = FeatureSource::kLength;
  c.key_from = FeatureSource::kOneHot;
  Pipeline p;
  ASSERT_TRUE(p.SetText(kKvText, kQueryText).ok());
  Status s = p.SetConfig(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("d_q = d_k"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("query from length has width 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("key from onehot has width 7 (n_vocab)"), std::string::npos) << s.message();
  // Embedding (d_k 8) against length (1): refused without any text, too.
  c.key_from = FeatureSource::kEmbedding;
  Status t = CheckQueryKeyWidths(c, -1);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("width 8 (d_k)"), std::string::npos) << t.message();
  // ... and allowed once d_k is 1: the widths are what counts.
  c.d_k = 1;
  EXPECT_TRUE(CheckQueryKeyWidths(c, -1).ok());
  // d_v is free: values from onehot next to embedding queries and keys.
  c = AttentionConfig();
  c.value_from = FeatureSource::kOneHot;
  EXPECT_TRUE(CheckQueryKeyWidths(c, 7).ok());
  // A text change can make a set config mismatch: Run refuses it too.
  c = AttentionConfig();
  c.d_model = 14;
  c.n_head = 2;  // d_k = 7 = n_vocab of the fixture texts
  c.mode = AttentionMode::kCross;
  c.query_from = FeatureSource::kOneHot;
  Pipeline q;
  ASSERT_TRUE(q.SetText(kKvText, kQueryText).ok());
  ASSERT_TRUE(q.SetConfig(c).ok());
  ASSERT_TRUE(q.Run().ok());
  ASSERT_TRUE(q.SetText(kKvText + " again", kQueryText).ok());
  Status r = q.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("width 8 (n_vocab)"), std::string::npos) << r.message();
}
