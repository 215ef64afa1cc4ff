#include "lessons/dictionary.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace attnviz;

namespace {
SoftDictionary Abc() {
  auto d = ParseDictionary("{'a': 1, 'b': 2, 'c': 3}");
  EXPECT_TRUE(d.ok()) << d.message();
  return *d;
}
float Sum(const std::vector<float>& v) { return std::accumulate(v.begin(), v.end(), 0.0f); }
}  // namespace

TEST(Dictionary, ParsesPythonLikeTablesAndWritesThemBack) {
  SoftDictionary d = Abc();
  ASSERT_EQ(d.keys, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(d.values[2], std::vector<float>{3});
  auto v = ParseDictionary("x: [1, 0], \"y\": 0 1,");
  ASSERT_TRUE(v.ok()) << v.message();
  EXPECT_EQ(v->values[1], (std::vector<float>{0, 1}));
  EXPECT_EQ(FormatDictionary(*v), "{'x': [1, 0], 'y': [0, 1]}");
  EXPECT_EQ(FormatDictionary(d), "{'a': 1, 'b': 2, 'c': 3}");
}

TEST(Dictionary, BadTablesNameTheEntry) {
  auto no_colon = ParseDictionary("{'a': 1, 'b' 2}");
  ASSERT_FALSE(no_colon.ok());
  EXPECT_NE(no_colon.message().find("byte 9"), std::string::npos) << no_colon.message();
  auto word_value = ParseDictionary("a: one");
  ASSERT_FALSE(word_value.ok());
  EXPECT_NE(word_value.message().find("key 'a'"), std::string::npos) << word_value.message();
  EXPECT_FALSE(ParseDictionary("a: 1, a: 2").ok());
  EXPECT_FALSE(ParseDictionary("{}").ok());
}

// Every refusal is made of message ids (so the app can show it in Korean), and its English parts rebuild the
// English text exactly.
TEST(Dictionary, EveryRefusalIsTranslatable) {
  SoftDictionary two_wide{{"a", "b"}, {{1, 2}, {3}}};
  SoftDictionary numbers{{"1", "2 3"}, {{1}, {2}}};
  SoftDictionary words{{"a", "b"}, {{1}, {2}}};
  const Status refusals[] = {
      ParseDictionary("{'a': 1").status(),         ParseDictionary("a: 1,, b: 2").status(),
      ParseDictionary("a 1").status(),             ParseDictionary(": 1").status(),
      ParseDictionary("a: 1, a: 2").status(),      ParseDictionary("a: one").status(),
      ParseDictionary("a: []").status(),           ParseDictionary("{}").status(),
      LookUpSoftly(SoftDictionary{}, "a", 1.0f).status(),
      LookUpSoftly(SoftDictionary{{"a"}, {}}, "a", 1.0f).status(),
      LookUpSoftly(words, "a", 1.0f, ScoreKind::kAdditive).status(),
      LookUpSoftly(words, "a", 1e9f).status(),     LookUpSoftly(two_wide, "a", 1.0f).status(),
      LookUpSoftly(numbers, "1", 1.0f).status(),
  };
  for (const Status& s : refusals) {
    ASSERT_FALSE(s.ok());
    ASSERT_FALSE(s.parts().empty()) << s.message();
    std::string english;
    for (const MessagePart& part : s.parts()) {
      EXPECT_NE(part.id, MsgId::kNone) << s.message();
      english += FillTemplate(EnglishTemplate(part.id), part.args);
    }
    EXPECT_EQ(english, s.message());
  }
  EXPECT_EQ(refusals[0].message(), "dictionary: '{' without a closing '}'");
  EXPECT_EQ(refusals[5].message(), "dictionary entry at byte 0 (key 'a'): the value 'one' is not a number or a list of numbers");
}

TEST(Dictionary, ExactLookupAsTemperatureGoesToZero) {
  const SoftDictionary d = Abc();
  for (ScoreKind score : {ScoreKind::kNegDistance, ScoreKind::kDot, ScoreKind::kCosine, ScoreKind::kScaledDot}) {
    auto r = LookUpSoftly(d, "b", kMinTemperature, score);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_TRUE(r->words);
    EXPECT_EQ(r->best, 1) << ToString(score);
    EXPECT_FLOAT_EQ(r->weights[1], 1.0f) << ToString(score);
    EXPECT_FLOAT_EQ(r->weights[0] + r->weights[2], 0.0f);
    EXPECT_FLOAT_EQ(r->blended[0], 2.0f) << ToString(score);
  }
  // At temperature 1 the match is soft: the matching key leads but the others keep some weight.
  auto soft = LookUpSoftly(d, "b", 1.0f);
  ASSERT_TRUE(soft.ok());
  EXPECT_GT(soft->weights[1], soft->weights[0]);
  EXPECT_GT(soft->weights[0], 0.05f);
  EXPECT_NEAR(Sum(soft->weights), 1.0f, 1e-6f);
}

TEST(Dictionary, WeightsTendToOneHotMonotonicallyAsTemperatureFalls) {
  const SoftDictionary d = Abc();
  float last = 0;
  for (float t : {10.0f, 1.0f, 0.3f, 0.1f, 0.01f}) {
    auto r = LookUpSoftly(d, "c", t);
    ASSERT_TRUE(r.ok());
    EXPECT_GT(r->weights[2], last) << "T=" << t;
    last = r->weights[2];
    EXPECT_NEAR(Sum(r->weights), 1.0f, 1e-6f);
  }
  EXPECT_GT(last, 0.999f);
}

TEST(Dictionary, AQueryMatchingNoKeyGetsTheSoftBlend) {
  const SoftDictionary d = Abc();
  // An unknown word is equally far from every key: the plain mean of the values, at any temperature.
  for (float t : {kMinTemperature, 1.0f}) {
    auto r = LookUpSoftly(d, "z", t);
    ASSERT_TRUE(r.ok());
    for (float w : r->weights) EXPECT_NEAR(w, 1.0f / 3, 1e-6f);
    EXPECT_NEAR(r->blended[0], 2.0f, 1e-5f);
    EXPECT_EQ(r->tied, (std::vector<int>{0, 1, 2}));  // a three-way tie: no best key
  }
  // Number keys match by closeness: 2.4 lies between 2 and 3, nearer 2.
  auto n = LookUpSoftly(*ParseDictionary("1: 10, 2: 20, 3: 30"), "2.4", 0.5f);
  ASSERT_TRUE(n.ok()) << n.message();
  EXPECT_FALSE(n->words);
  EXPECT_EQ(n->best, 1);
  EXPECT_EQ(n->tied, std::vector<int>{1});
  EXPECT_GT(n->weights[2], n->weights[0]);
  EXPECT_GT(n->blended[0], 20.0f);
  EXPECT_LT(n->blended[0], 30.0f);
  EXPECT_NEAR(Sum(n->weights), 1.0f, 1e-6f);
  auto exact = LookUpSoftly(*ParseDictionary("1: 10, 2: 20, 3: 30"), "2.4", kMinTemperature);
  EXPECT_FLOAT_EQ(exact->blended[0], 20.0f);
}

TEST(Dictionary, VectorValuesBlendPerComponent) {
  auto d = ParseDictionary("x: [1, 0], y: [0, 1]");
  auto r = LookUpSoftly(*d, "w", 1.0f);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->blended[0], 0.5f, 1e-6f);
  EXPECT_NEAR(r->blended[1], 0.5f, 1e-6f);
}

TEST(Dictionary, RefusesWidthMismatchesAndAdditive) {
  auto keys = ParseDictionary("'1 0': 1, '0 1': 2");
  ASSERT_TRUE(keys.ok()) << keys.message();
  auto mismatch = LookUpSoftly(*keys, "1", 1.0f);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.message().find("width 1"), std::string::npos) << mismatch.message();
  EXPECT_NE(mismatch.message().find("width 2"), std::string::npos) << mismatch.message();
  SoftDictionary ragged = Abc();
  ragged.values[1] = {1, 2};
  EXPECT_FALSE(LookUpSoftly(ragged, "a", 1.0f).ok());
  EXPECT_FALSE(LookUpSoftly(Abc(), "a", 1.0f, ScoreKind::kAdditive).ok());
  EXPECT_FALSE(LookUpSoftly(Abc(), "a", 0.0f).ok());
}
