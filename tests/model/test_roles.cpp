// Head roles on synthetic maps whose answers are known (core/model/roles.*).
#include "model/roles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace attnviz::model {
namespace {

using Map = std::vector<float>;  // [n, n]

// A map whose row i is `row(i)` (a list of (key, weight)), the rest 0.
Map MakeMap(int n, const std::function<std::vector<std::pair<int, float>>(int)>& row) {
  Map m((size_t)n * n, 0.0f);
  for (int i = 0; i < n; ++i)
    for (auto [j, w] : row(i)) m[(size_t)i * n + j] += w;
  return m;
}
std::vector<std::pair<int, float>> OneHot(int j) { return {{j, 1.0f}}; }
std::vector<std::pair<int, float>> Uniform(int from, int to) {  // keys from..to inclusive
  std::vector<std::pair<int, float>> r;
  for (int j = from; j <= to; ++j) r.push_back({j, 1.0f / (to - from + 1)});
  return r;
}
std::vector<int> DistinctIds(int n) {
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back(100 + 7 * i);
  return ids;
}

constexpr int kN = 64;
constexpr float kTiny = 1.0f / (kN - 1) + 1e-6f;  // the most a pure pattern leaks into another role (row 1)

void ExpectOnly(const RoleScores& s, HeadRole role, float expected, float others_at_most) {
  for (HeadRole r : AllHeadRoles()) {
    if (r == role) EXPECT_NEAR(s[r], expected, 1e-5) << RoleName(r);
    else EXPECT_LE(s[r], others_at_most) << RoleName(r) << " while testing " << RoleName(role);
  }
  EXPECT_EQ(StrongestRole(s).role, role);
}

TEST(Roles, PreviousTokenMapScoresOneThereAndAboutZeroElsewhere) {
  Map m = MakeMap(kN, [](int i) { return OneHot(i == 0 ? 0 : i - 1); });
  ExpectOnly(ScoreHead(m.data(), kN, DistinctIds(kN)), HeadRole::kPreviousToken, 1.0f, kTiny);
}

TEST(Roles, FirstTokenMapIsASink) {
  Map m = MakeMap(kN, [](int) { return OneHot(0); });
  ExpectOnly(ScoreHead(m.data(), kN, DistinctIds(kN)), HeadRole::kFirstToken, 1.0f, kTiny);
}

TEST(Roles, DiagonalMapIsSameToken) {
  Map m = MakeMap(kN, [](int i) { return OneHot(i); });
  ExpectOnly(ScoreHead(m.data(), kN, DistinctIds(kN)), HeadRole::kSameToken, 1.0f, 0.0f);
}

TEST(Roles, InductionMapOnARepeatedSequence) {
  // ids: 32 distinct tokens, then the same 32 again. Second copy (i >= 32): the token after the earlier
  // occurrence is i - 32 + 1. First copy: broad (uniform), so nothing else is pure.
  const int half = kN / 2;
  std::vector<int> ids = DistinctIds(half);
  ids.insert(ids.end(), ids.begin(), ids.end());
  Map m = MakeMap(kN, [&](int i) { return i < half ? Uniform(0, i) : OneHot(i - half + 1); });
  RoleScores s = ScoreHead(m.data(), kN, ids);
  EXPECT_NEAR(s[HeadRole::kInduction], 1.0f, 1e-6);
  EXPECT_EQ(StrongestRole(s).role, HeadRole::kInduction);
  EXPECT_LT(s[HeadRole::kPreviousToken], 0.1f);
  EXPECT_LT(s[HeadRole::kSameToken], 0.1f);

  // A previous-token map on the same ids is no induction head; nor is a map that looks at the earlier
  // occurrence itself (a duplicate-token head).
  Map prev = MakeMap(kN, [](int i) { return OneHot(i == 0 ? 0 : i - 1); });
  EXPECT_NEAR(ScoreHead(prev.data(), kN, ids)[HeadRole::kInduction], 0.0f, 1e-6);
  Map dup = MakeMap(kN, [&](int i) { return OneHot(i < half ? i : i - half); });
  EXPECT_NEAR(ScoreHead(dup.data(), kN, ids)[HeadRole::kInduction], 0.0f, 1e-6);

  // Half the mass on the right key: 0.5.
  Map halfway = MakeMap(kN, [&](int i) {
    return i < half ? OneHot(0) : std::vector<std::pair<int, float>>{{i - half + 1, 0.5f}, {0, 0.5f}};
  });
  EXPECT_NEAR(ScoreHead(halfway.data(), kN, ids)[HeadRole::kInduction], 0.5f, 1e-6);
}

TEST(Roles, InductionCountsEveryEarlierOccurrenceOnceAndOnlyRowsWithOne) {
  // ids a b a b a: rows 2 (a: earlier 0 -> key 1), 3 (b: earlier 1 -> key 2), 4 (a: earlier 0, 2 -> keys 1, 3).
  const std::vector<int> ids = {5, 6, 5, 6, 5};
  Map m = MakeMap(5, [](int i) {
    switch (i) {
      case 2: return std::vector<std::pair<int, float>>{{1, 1.0f}};
      case 3: return std::vector<std::pair<int, float>>{{2, 0.5f}, {0, 0.5f}};
      case 4: return std::vector<std::pair<int, float>>{{1, 0.25f}, {3, 0.25f}, {4, 0.5f}};
      default: return OneHot(0);
    }
  });
  // (1 + 0.5 + 0.5) / 3 rows; rows 0 and 1 (no earlier occurrence) do not count.
  EXPECT_NEAR(ScoreHead(m.data(), 5, ids)[HeadRole::kInduction], 2.0f / 3.0f, 1e-6);
  // A token repeated right away ("x x"): the token after its earlier occurrence is itself.
  const std::vector<int> twice = {9, 9};
  Map self = MakeMap(2, [](int i) { return OneHot(i); });
  EXPECT_NEAR(ScoreHead(self.data(), 2, twice)[HeadRole::kInduction], 1.0f, 1e-6);
  // No repeats: 0, and the table says no row counted.
  Map any = MakeMap(5, [](int i) { return Uniform(0, i); });
  EXPECT_EQ(ScoreHead(any.data(), 5, DistinctIds(5))[HeadRole::kInduction], 0.0f);
  EXPECT_EQ(MakeHeadRoles(1, 1, DistinctIds(5)).induction_rows, 0);
  EXPECT_EQ(MakeHeadRoles(1, 1, ids).induction_rows, 3);
}

TEST(Roles, LocalWindowIsTheNearContextBeyondTheNeighbour) {
  // Row i: uniform over keys i-5..i-2 (clipped at key 1: key 0 is the sink's); rows 0..2: on key 0.
  Map m = MakeMap(kN, [](int i) { return i < 3 ? OneHot(0) : Uniform(std::max(1, i - kLocalWindow), i - 2); });
  RoleScores s = ScoreHead(m.data(), kN, DistinctIds(kN));
  EXPECT_NEAR(s[HeadRole::kLocal], 1.0f, 1e-5);
  EXPECT_EQ(StrongestRole(s).role, HeadRole::kLocal);
  EXPECT_LE(s[HeadRole::kPreviousToken], kTiny);
  EXPECT_EQ(s[HeadRole::kSameToken], 0.0f);
  // Keys 6 or more away are not local.
  Map far = MakeMap(kN, [](int i) { return OneHot(i < 6 ? i : i - 6); });
  EXPECT_EQ(ScoreHead(far.data(), kN, DistinctIds(kN))[HeadRole::kLocal], 0.0f);
  // Previous-token and diagonal maps are not local either.
  Map prev = MakeMap(kN, [](int i) { return OneHot(i == 0 ? 0 : i - 1); });
  EXPECT_EQ(ScoreHead(prev.data(), kN, DistinctIds(kN))[HeadRole::kLocal], 0.0f);
}

TEST(Roles, UniformMapsAreBroadCausalOrNot) {
  Map causal = MakeMap(kN, [](int i) { return Uniform(0, i); });
  RoleScores s = ScoreHead(causal.data(), kN, DistinctIds(kN));
  EXPECT_NEAR(s[HeadRole::kBroad], 1.0f, 1e-5);
  EXPECT_EQ(StrongestRole(s).role, HeadRole::kBroad);
  EXPECT_LT(s[HeadRole::kPreviousToken], 0.1f);  // mean of 1/(i+1)
  Map full = MakeMap(kN, [](int) { return Uniform(0, kN - 1); });  // BERT-like: every key visible
  RoleScores f = ScoreHead(full.data(), kN, DistinctIds(kN));
  EXPECT_NEAR(f[HeadRole::kBroad], 1.0f, 1e-5);
  EXPECT_NEAR(f[HeadRole::kSameToken], 1.0f / kN, 1e-5);
  // One-hot rows have no entropy.
  Map sink = MakeMap(kN, [](int) { return OneHot(0); });
  EXPECT_EQ(ScoreHead(sink.data(), kN, DistinctIds(kN))[HeadRole::kBroad], 0.0f);
}

TEST(Roles, ScoresStayInZeroOneAndTinyInputsAreDefined) {
  Map one = {1.0f};
  RoleScores s = ScoreHead(one.data(), 1, {3});
  for (HeadRole r : AllHeadRoles()) EXPECT_EQ(s[r], 0.0f) << RoleName(r);
  EXPECT_EQ(StrongestRole(s).role, HeadRole::kPreviousToken);  // ties go to the first role
  Map over = MakeMap(3, [](int i) { return std::vector<std::pair<int, float>>{{0, 1.0000002f}}; });
  for (float v : ScoreHead(over.data(), 3, {1, 2, 3}).value) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
}

TEST(Roles, TableAcrossLayersAndHeads) {
  // Layer 0: head 0 previous-token, head 1 first-token; layer 1: head 0 diagonal, head 1 broad.
  const int n = 16;
  std::vector<Map> maps = {MakeMap(n, [](int i) { return OneHot(i == 0 ? 0 : i - 1); }),
                           MakeMap(n, [](int) { return OneHot(0); }), MakeMap(n, [](int i) { return OneHot(i); }),
                           MakeMap(n, [](int i) { return Uniform(0, i); })};
  std::vector<float> probs;  // [2, 2, n, n]
  for (const Map& m : maps) probs.insert(probs.end(), m.begin(), m.end());
  auto roles = ScoreHeadRoles(probs.data(), 2, 2, n, DistinctIds(n));
  ASSERT_TRUE(roles.ok()) << roles.message();
  EXPECT_EQ(StrongestRole(roles->at(0, 0)).role, HeadRole::kPreviousToken);
  EXPECT_EQ(StrongestRole(roles->at(0, 1)).role, HeadRole::kFirstToken);
  EXPECT_EQ(StrongestRole(roles->at(1, 0)).role, HeadRole::kSameToken);
  EXPECT_EQ(StrongestRole(roles->at(1, 1)).role, HeadRole::kBroad);

  // Layer by layer gives the same table.
  HeadRoles streamed = MakeHeadRoles(2, 2, DistinctIds(n));
  for (int l = 0; l < 2; ++l) ASSERT_TRUE(ScoreLayer(probs.data() + (size_t)l * 2 * n * n, l, 2, n, DistinctIds(n), &streamed));
  for (size_t k = 0; k < streamed.scores.size(); ++k) EXPECT_EQ(streamed.scores[k].value, roles->scores[k].value);

  // Shape errors.
  EXPECT_FALSE(ScoreHeadRoles(probs.data(), 2, 2, n, DistinctIds(n - 1)).ok());
  Status bad_layer = ScoreLayer(probs.data(), 2, 2, n, DistinctIds(n), &streamed);
  EXPECT_FALSE(bad_layer.ok());
  EXPECT_NE(bad_layer.message().find("layer 2"), std::string::npos) << bad_layer.message();
  EXPECT_FALSE(ScoreLayer(probs.data(), 0, 3, n, DistinctIds(n), &streamed).ok());

  // CSV: header + one line per head.
  const std::string csv = HeadRolesCsv(*roles);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "layer,head,previous_token,induction,first_token,same_token,local,broad,strongest,strongest_score");
  EXPECT_NE(csv.find("\n0,0,1.0000,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",previous-token,1.0000\n"), std::string::npos) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);

  // JSON parses and carries names, sentences and scores.
  auto j = nlohmann::json::parse(HeadRolesJson(*roles));
  EXPECT_EQ(j["n_layer"], 2);
  EXPECT_EQ(j["heads"].size(), 4u);
  EXPECT_EQ(j["heads"][0]["strongest"], "previous-token");
  EXPECT_DOUBLE_EQ(j["heads"][0]["scores"]["previous-token"].get<double>(), 1.0);
  EXPECT_EQ(j["heads"][3]["strongest"], "broad");
  EXPECT_EQ(j["roles"].size(), (size_t)kHeadRoleCount);
  EXPECT_EQ(j["sentences"]["induction"], RoleSentence(HeadRole::kInduction));
}

// Sinks: the first-token score summarized per layer and over the run; a sink head counts from kSinkMass on.
TEST(Roles, SinksSummarizeTheFirstTokenScorePerLayerAndOverTheRun) {
  const int n = 16;
  // Layer 0: head 0 a pure sink, head 1 previous-token; layer 1: head 0 half on key 0 and half on itself, head 1
  // uniform over the visible keys.
  std::vector<Map> maps = {MakeMap(n, [](int) { return OneHot(0); }),
                           MakeMap(n, [](int i) { return OneHot(i == 0 ? 0 : i - 1); }),
                           MakeMap(n, [](int i) { return std::vector<std::pair<int, float>>{{0, 0.5f}, {i, 0.5f}}; }),
                           MakeMap(n, [](int i) { return Uniform(0, i); })};
  std::vector<float> probs;  // [2, 2, n, n]
  for (const Map& m : maps) probs.insert(probs.end(), m.begin(), m.end());
  auto roles = ScoreHeadRoles(probs.data(), 2, 2, n, DistinctIds(n));
  ASSERT_TRUE(roles.ok()) << roles.message();
  const SinkSummary layer0 = SummarizeSinks(*roles, 0);
  EXPECT_EQ(layer0.heads, 2);
  EXPECT_EQ(layer0.sinks, 1);
  EXPECT_NEAR(layer0.max_mass, 1.0, 1e-6);
  // previous-token puts row 1 on key 0: 1 of 15 rows.
  EXPECT_NEAR(layer0.mean_mass, (1.0 + 1.0 / 15) / 2, 1e-6);
  const SinkSummary layer1 = SummarizeSinks(*roles, 1);
  EXPECT_EQ(layer1.sinks, 1);  // 0.5 on key 0 is a sink (row 0's self is key 0, but row 0 is not counted)
  const SinkSummary all = SummarizeSinks(*roles);
  EXPECT_EQ(all.heads, 4);
  EXPECT_EQ(all.sinks, 2);
  EXPECT_NEAR(all.mean_mass, (roles->at(0, 0)[HeadRole::kFirstToken] + roles->at(0, 1)[HeadRole::kFirstToken] +
                              roles->at(1, 0)[HeadRole::kFirstToken] + roles->at(1, 1)[HeadRole::kFirstToken]) / 4,
              1e-6);
  EXPECT_EQ(SummarizeSinks(*roles, 2).heads, 0);  // out of range: nothing
  EXPECT_EQ(SummarizeSinks(HeadRoles()).heads, 0);
}

TEST(Roles, NamesAndSentences) {
  std::set<std::string> names;
  for (HeadRole r : AllHeadRoles()) {
    names.insert(RoleName(r));
    const std::string sentence = RoleSentence(r);
    EXPECT_GT(sentence.size(), 30u) << RoleName(r);
    EXPECT_EQ(sentence.back(), '.') << RoleName(r);
    EXPECT_EQ(std::count(sentence.begin(), sentence.end(), '.'), 1 + (r == HeadRole::kInduction ? 3 : 0))
        << "one sentence: " << sentence;  // induction's "A B ... A -> B" has three dots
    auto back = ParseRoleName(RoleName(r));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, r);
  }
  EXPECT_EQ(names.size(), (size_t)kHeadRoleCount);
  EXPECT_EQ(*ParseRoleName("Previous_Token"), HeadRole::kPreviousToken);
  EXPECT_EQ(*ParseRoleName("sink"), HeadRole::kFirstToken);
  EXPECT_EQ(*ParseRoleName(" diag "), HeadRole::kSameToken);
  auto bad = ParseRoleName("copying");
  ASSERT_FALSE(bad.ok());
  for (HeadRole r : AllHeadRoles()) EXPECT_NE(bad.message().find(RoleName(r)), std::string::npos) << bad.message();
}

TEST(Roles, FilterParsesTheOverviewSyntax) {
  auto f = ParseRoleFilter("induction >= 0.4");
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->role, HeadRole::kInduction);
  EXPECT_EQ(f->op, RoleFilter::Op::kGreaterEqual);
  EXPECT_FLOAT_EQ(f->threshold, 0.4f);
  EXPECT_EQ(f->ToString(), "induction >= 0.4");

  RoleScores s;
  s[HeadRole::kInduction] = 0.4f;
  EXPECT_TRUE(f->Matches(s));
  s[HeadRole::kInduction] = 0.39f;
  EXPECT_FALSE(f->Matches(s));

  struct Case {
    const char* text;
    HeadRole role;
    RoleFilter::Op op;
    float threshold;
  } cases[] = {{"prev>0.5", HeadRole::kPreviousToken, RoleFilter::Op::kGreater, 0.5f},
               {"  broad <  .2 ", HeadRole::kBroad, RoleFilter::Op::kLess, 0.2f},
               {"same_token<=1", HeadRole::kSameToken, RoleFilter::Op::kLessEqual, 1.0f},
               {"first-token = 0", HeadRole::kFirstToken, RoleFilter::Op::kEqual, 0.0f},
               {"local==0.25", HeadRole::kLocal, RoleFilter::Op::kEqual, 0.25f},
               {"Previous Token >= 0.6", HeadRole::kPreviousToken, RoleFilter::Op::kGreaterEqual, 0.6f}};
  for (const Case& c : cases) {
    auto p = ParseRoleFilter(c.text);
    ASSERT_TRUE(p.ok()) << c.text << ": " << p.message();
    EXPECT_EQ(p->role, c.role) << c.text;
    EXPECT_EQ(p->op, c.op) << c.text;
    EXPECT_FLOAT_EQ(p->threshold, c.threshold) << c.text;
  }
}

TEST(Roles, FilterErrorsNameTheSyntaxAndTheRoles) {
  for (const char* text : {"", "induction", "copying >= 0.4", ">= 0.4", "induction >=", "induction >= lots",
                           "induction >= 1.5", "induction >= -0.1", "induction >= 0.4x",
                           "induction >= 0x0.8", "induction >= +0.5", "induction >= nan"}) {
    auto f = ParseRoleFilter(text);
    ASSERT_FALSE(f.ok()) << "'" << text << "' parsed";
    const std::string& m = f.message();
    EXPECT_NE(m.find("ROLE OP NUMBER"), std::string::npos) << m;
    EXPECT_NE(m.find("induction >= 0.4"), std::string::npos) << m;
    for (HeadRole r : AllHeadRoles()) EXPECT_NE(m.find(RoleName(r)), std::string::npos) << m;
  }
  EXPECT_NE(ParseRoleFilter("copying >= 0.4").message().find("'copying'"), std::string::npos);
  EXPECT_NE(ParseRoleFilter("induction >= 1.5").message().find("outside 0..1"), std::string::npos);
}

// The learner trial's heads: induction 0.55-0.57 with a higher broad score were called "broad". A pointed role
// that clears kPointedRoleScore names the head; below it, the highest score still does.
TEST(Roles, StrongestRolePrefersAPointedRoleThatClearsItsThreshold) {
  RoleScores s;
  s[HeadRole::kInduction] = 0.55f;
  s[HeadRole::kBroad] = 0.83f;
  s[HeadRole::kLocal] = 0.6f;
  EXPECT_EQ(StrongestRole(s).role, HeadRole::kInduction);
  EXPECT_FLOAT_EQ(StrongestRole(s).score, 0.55f);
  s[HeadRole::kPreviousToken] = 0.7f;  // the best of the pointed roles wins
  EXPECT_EQ(StrongestRole(s).role, HeadRole::kPreviousToken);
  RoleScores spread;
  spread[HeadRole::kInduction] = kPointedRoleScore - 0.01f;
  spread[HeadRole::kBroad] = 0.9f;
  EXPECT_EQ(StrongestRole(spread).role, HeadRole::kBroad);
  spread[HeadRole::kBroad] = 0.2f;
  spread[HeadRole::kLocal] = 0.5f;
  EXPECT_EQ(StrongestRole(spread).role, HeadRole::kLocal);
}

}  // namespace
}  // namespace attnviz::model

namespace attnviz::model {
namespace {

// A text of one repeated token gave every row all the earlier positions of its token (n^2/2 ints, counted by no
// memory estimate); the plan holds a few ints per token, and a row's induction is still the mass on the target of
// every earlier occurrence, once each, summed in position order.
TEST(Roles, PlanIsLinearInTheTokensAndInductionIsEveryEarlierOccurrence) {
  const int n = 4000;
  EXPECT_LE(RolePlan(std::vector<int>((size_t)n, 7)).bytes(), 4 * sizeof(int) * (size_t)n);
  const int m = 300;
  std::vector<int> ids((size_t)m);
  std::vector<float> row((size_t)m);
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int& id : ids) id = (int)(next() >> 29);  // 8 distinct tokens
  const RolePlan plan(ids);
  for (int i = 0; i < m; ++i) {
    double total = 0;
    for (float& p : row) total += p = (float)((next() >> 8) + 1);
    for (float& p : row) p = (float)(p / total);
    double want = 0;
    bool any = false;
    for (int j = 0; j < i; ++j)
      if (ids[(size_t)j] == ids[(size_t)i]) want += row[(size_t)j + 1], any = true;
    const RowRoleParts got = ScoreRow(row.data(), i, m, /*causal=*/false, plan);
    EXPECT_EQ(got.has_induction, any) << i;
    EXPECT_EQ(got.induction, want) << i;
  }
}

}  // namespace
}  // namespace attnviz::model

namespace attnviz::model {
namespace {

// The chance level: UniformRoleScores is ScoreHead of the uniform map under the same mask (causal, a sliding window
// shorter than the text, bidirectional), on tokens with repeats; on 4 tokens a causal head scores previous-token
// (1/2 + 1/3 + 1/4) / 3 by chance alone.
TEST(Roles, UniformScoresAreTheUniformMapsScores) {
  const std::vector<int> ids = {5, 7, 9, 5, 7, 11, 5, 3, 9, 9, 2, 5};
  const int n = (int)ids.size();
  struct Case {
    bool causal;
    int window;
  };
  for (const Case c : {Case{true, 0}, Case{true, 3}, Case{false, 0}}) {
    std::vector<float> P((size_t)n * n, 0.0f);
    for (int i = 0; i < n; ++i) {
      const int lo = c.causal && c.window > 0 ? std::max(0, i - c.window + 1) : 0, hi = c.causal ? i : n - 1;
      for (int j = lo; j <= hi; ++j) P[(size_t)i * n + j] = 1.0f / (float)(hi - lo + 1);
    }
    const RoleScores want = ScoreHead(P.data(), n, ids);
    const RoleScores got = UniformRoleScores(ids, c.causal, c.window);
    for (HeadRole role : AllHeadRoles())
      EXPECT_NEAR(got[role], want[role], 1e-6) << RoleName(role) << " causal " << c.causal << " window " << c.window;
  }
  const RoleScores four = UniformRoleScores({1, 2, 3, 4}, true, 0);
  EXPECT_NEAR(four[HeadRole::kPreviousToken], (1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3, 1e-6);
  EXPECT_NEAR(four[HeadRole::kBroad], 1.0, 1e-6);
  EXPECT_EQ(four[HeadRole::kInduction], 0.0f);  // no token repeats
}

// Near chance: less than a third of the way from the chance level to 1; the same lead counts for more where chance
// is high (the distance left to 1 is shorter).
TEST(Roles, NearChanceIsAThirdOfTheWayFromChanceToOne) {
  EXPECT_TRUE(NearChance(0.42f, 0.36f));   // 0.06 of 0.64 left
  EXPECT_FALSE(NearChance(0.64f, 0.36f));  // 0.28 of 0.64
  EXPECT_TRUE(NearChance(0.36f, 0.36f));
  EXPECT_TRUE(NearChance(0.2f, 0.36f));    // below it
  EXPECT_TRUE(NearChance(0.39f, 0.10f));   // 0.29 of 0.90
  EXPECT_FALSE(NearChance(0.41f, 0.10f));
  EXPECT_FALSE(NearChance(0.91f, 0.85f));  // 0.06 of 0.15
}

}  // namespace
}  // namespace attnviz::model

namespace attnviz::model {
namespace {

// A layer's role sums kept from a text sharing its first rows: a RoleRows given the earlier checkpoints and only the
// rows from `from` on scores every head as one given every row, bit for bit, and leaves the same checkpoints.
TEST(Roles, KeptSumsOfSharedRowsGiveTheWholeLayersScoresBitForBit) {
  const int H = 2, n_old = 90, n_new = 100, shared = 85, from = shared / kRoleSumStride * kRoleSumStride;
  std::vector<int> old_ids, ids;
  for (int i = 0; i < n_old; ++i) old_ids.push_back(i % 13);  // repeats: induction rows
  for (int i = 0; i < n_new; ++i) ids.push_back(i < shared ? old_ids[(size_t)i] : i % 7);
  auto causal_rows = [](int n, unsigned seed) {  // [H, n, n]
    std::vector<float> p((size_t)H * n * n, 0.0f);
    unsigned state = seed;
    auto next = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0; };
    for (int r = 0; r < H * n; ++r) {
      const int i = r % n;
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += p[(size_t)r * n + j] = (float)std::exp(3.0 * next());
      for (int j = 0; j <= i; ++j) p[(size_t)r * n + j] = (float)(p[(size_t)r * n + j] / sum);
    }
    return p;
  };
  const std::vector<float> old_probs = causal_rows(n_old, 1);
  std::vector<float> probs = causal_rows(n_new, 2);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < shared; ++i)
      for (int j = 0; j < n_new; ++j)
        probs[((size_t)h * n_new + i) * n_new + j] = j < n_old ? old_probs[((size_t)h * n_old + i) * n_old + j] : 0.0f;
  auto score = [&](const std::vector<int>& on, const std::vector<float>& p, RoleRows& rows, int first_row) {
    const int n = (int)on.size();
    for (int h = 0; h < H; ++h)
      rows.AddRows(h, first_row, n - first_row, p.data() + ((size_t)h * n + first_row) * n);
    HeadRoles roles = MakeHeadRoles(1, H, on);
    EXPECT_TRUE(rows.ScoreInto(0, &roles));
    return roles;
  };
  RoleRows old_rows(H, old_ids, true);
  score(old_ids, old_probs, old_rows, 0);
  RoleRows whole_rows(H, ids, true), kept_rows(H, ids, true);
  const HeadRoles want = score(ids, probs, whole_rows, 0);
  ASSERT_TRUE(kept_rows.KeepSums(old_rows.checkpoints(), from));
  const HeadRoles got = score(ids, probs, kept_rows, from);
  for (int h = 0; h < H; ++h)
    EXPECT_EQ(std::memcmp(&got.at(0, h), &want.at(0, h), sizeof(RoleScores)), 0) << "head " << h;
  const std::vector<RoleRowSums>&a = kept_rows.checkpoints()->sums, &b = whole_rows.checkpoints()->sums;
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    const double x[] = {a[k].prev, a[k].first, a[k].same, a[k].induction, a[k].local, a[k].broad};
    const double y[] = {b[k].prev, b[k].first, b[k].same, b[k].induction, b[k].local, b[k].broad};
    EXPECT_EQ(std::memcmp(x, y, sizeof(x)), 0) << "checkpoint " << k;
    EXPECT_EQ(std::tie(a[k].induction_rows, a[k].local_rows, a[k].broad_rows),
              std::tie(b[k].induction_rows, b[k].local_rows, b[k].broad_rows));
  }
  // Sums that do not fit are refused: a row off the stride, past the kept text, other heads.
  RoleRows other(H, ids, true);
  EXPECT_FALSE(other.KeepSums(old_rows.checkpoints(), from + 1));
  EXPECT_FALSE(other.KeepSums(old_rows.checkpoints(), 96));
  RoleRows three(3, ids, true);
  EXPECT_FALSE(three.KeepSums(old_rows.checkpoints(), from));
  // The sums are read: kept from a text whose rows differ, the scores differ.
  RoleRows from_other(H, ids, true);
  RoleRows unrelated(H, old_ids, true);
  score(old_ids, causal_rows(n_old, 9), unrelated, 0);
  ASSERT_TRUE(from_other.KeepSums(unrelated.checkpoints(), from));
  const HeadRoles off = score(ids, probs, from_other, from);
  EXPECT_NE(std::memcmp(&off.at(0, 0), &want.at(0, 0), sizeof(RoleScores)), 0);
}

}  // namespace
}  // namespace attnviz::model
