// The bundled model (assets/models/tiny, made by scripts/train_tiny_model.py): the loader and the tokenizer read
// the folder, the native forward pass matches the torch forward, and the heads it learned keep their roles on a
// held-out text it never trained on (tests/fixtures/models/tiny_heldout.*, written by the same script).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "model/model.h"
#include "model/roles.h"
#include "model/run.h"
#include "io/npy.h"
#include "tokenize/tokenizer.h"

namespace attnviz::model {
namespace {

const std::string kTinyDir = std::string(ATTNVIZ_SOURCE_DIR) + "/assets/models/tiny";
const std::string kHeldout = std::string(ATTNVIZ_MODEL_FIXTURES) + "/tiny_heldout";

// The thresholds of the issue: a learner should see these two patterns plainly.
constexpr float kPreviousTokenAtLeast = 0.6f;
constexpr float kInductionAtLeast = 0.5f;

std::string HeldoutText() {
  auto text = ReadFile(kHeldout + ".txt");
  EXPECT_TRUE(text.ok()) << text.message();
  std::string s = text.ok() ? *text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

nlohmann::json HeldoutJson() {
  auto text = ReadFile(kHeldout + ".json");
  EXPECT_TRUE(text.ok()) << text.message();
  return nlohmann::json::parse(text.ok() ? *text : "{}");
}

std::vector<int> Ids(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> ids;
  for (const auto& t : tokens) ids.push_back(t.id);
  return ids;
}

class TinyModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto m = LoadModel(kTinyDir);
    ASSERT_TRUE(m.ok()) << m.message();
    model_ = new std::shared_ptr<const Model>(*m);
    auto t = tokenize::LoadTokenizer(kTinyDir);
    ASSERT_TRUE(t.ok()) << t.message();
    tokenizer_ = t->release();
  }
  static void TearDownTestSuite() {
    delete model_;
    delete tokenizer_;
  }
  void SetUp() override {
    if (!model_ || !tokenizer_) GTEST_FAIL() << kTinyDir << " did not load (make tiny-model writes it)";
  }
  static const Model& model() { return **model_; }
  static const tokenize::Tokenizer& tokenizer() { return *tokenizer_; }

  static std::shared_ptr<const Model>* model_;
  static tokenize::Tokenizer* tokenizer_;
};
std::shared_ptr<const Model>* TinyModel::model_ = nullptr;
tokenize::Tokenizer* TinyModel::tokenizer_ = nullptr;

TEST_F(TinyModel, FolderIsAHuggingFaceGpt2FolderWithinItsBudget) {
  const ModelConfig& c = model().config();
  EXPECT_EQ(c.model_type, "gpt2");
  EXPECT_GE(c.n_layer, 2);
  EXPECT_LE(c.n_layer, 4);
  EXPECT_GE(c.n_head, 4);
  EXPECT_LE(c.n_head, 8);
  EXPECT_GE(c.d_model, 128);
  EXPECT_LE(c.d_model, 256);
  EXPECT_EQ(c.max_positions, 256);
  EXPECT_EQ((size_t)c.vocab, tokenizer().vocab_size());
  struct stat st;
  ASSERT_EQ(stat((kTinyDir + "/model.safetensors").c_str(), &st), 0);
  EXPECT_LE(st.st_size, 8 * 1024 * 1024) << "the bundled weights must stay within 8 MiB";
  for (const char* f : {"config.json", "vocab.json", "merges.txt", "README.md"})
    EXPECT_EQ(stat((kTinyDir + "/" + f).c_str(), &st), 0) << f;
  EXPECT_NE(tokenizer().Describe().find("BPE"), std::string::npos) << tokenizer().Describe();
}

TEST_F(TinyModel, TokenizerMakesTheIdsTheTrainingScriptMade) {
  auto tokens = tokenizer().Encode(HeldoutText());
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  const std::vector<int> expected = HeldoutJson()["ids"].get<std::vector<int>>();
  EXPECT_EQ(Ids(*tokens), expected);
  // Korean goes through the byte-level BPE too (the corpus has the Korean Debian FAQ).
  auto ko = tokenizer().Encode("데비안 패키지를 설치하려면 어떻게 하나요?");
  ASSERT_TRUE(ko.ok()) << ko.message();
  EXPECT_LT(ko->size(), 40u) << "merges learned on Korean text should join Hangul bytes";
}

TEST_F(TinyModel, NativeForwardMatchesTorch) {
  const nlohmann::json j = HeldoutJson();
  const std::vector<int> ids = j["ids"].get<std::vector<int>>();
  const int layer = j["probs_layer"].get<int>();
  auto expected = ReadNpy(kHeldout + "_probs.npy");  // [n_head, n, n], the torch forward (float64 math)
  ASSERT_TRUE(expected.ok()) << expected.message();
  const ModelConfig& c = model().config();
  const size_t n = ids.size();
  ASSERT_EQ(expected->shape, (std::vector<size_t>{(size_t)c.n_head, n, n}));
  auto run = RunModel(model(), ids);
  ASSERT_TRUE(run.ok()) << run.message();
  const float* probs = run->probs.data.data() + (size_t)layer * c.n_head * n * n;
  double worst = 0;
  for (size_t k = 0; k < expected->data.size(); ++k) worst = std::max(worst, std::fabs((double)probs[k] - expected->data[k]));
  EXPECT_LT(worst, 1e-4) << "layer " << layer << " probs differ from torch's";
}

TEST_F(TinyModel, LearnedPreviousTokenAndInductionHeadsOnHeldOutText) {
  const std::vector<int> ids = HeldoutJson()["ids"].get<std::vector<int>>();
  const ModelConfig& c = model().config();
  const int n = (int)ids.size();
  auto run = RunModel(model(), ids);
  ASSERT_TRUE(run.ok()) << run.message();
  auto roles = ScoreHeadRoles(run->probs.data.data(), c.n_layer, c.n_head, n, ids);
  ASSERT_TRUE(roles.ok()) << roles.message();
  EXPECT_GT(roles->induction_rows, n / 4) << "the held-out text must repeat a sequence";

  float best_prev = 0, best_induction = 0;
  for (int l = 0; l < c.n_layer; ++l)
    for (int h = 0; h < c.n_head; ++h) {
      best_prev = std::max(best_prev, roles->at(l, h)[HeadRole::kPreviousToken]);
      best_induction = std::max(best_induction, roles->at(l, h)[HeadRole::kInduction]);
    }
  EXPECT_GE(best_prev, kPreviousTokenAtLeast) << HeadRolesCsv(*roles);
  EXPECT_GE(best_induction, kInductionAtLeast) << HeadRolesCsv(*roles);
}

TEST_F(TinyModel, RoleScorerAgreesWithTheTrainingScriptsReference) {
  const std::vector<int> ids = HeldoutJson()["ids"].get<std::vector<int>>();
  const ModelConfig& c = model().config();
  auto run = RunModel(model(), ids);
  ASSERT_TRUE(run.ok()) << run.message();
  auto roles = ScoreHeadRoles(run->probs.data.data(), c.n_layer, c.n_head, (int)ids.size(), ids);
  ASSERT_TRUE(roles.ok()) << roles.message();
  const auto heldout = HeldoutJson();  // kept: a range-for over a temporary's ["roles"] reads freed memory (ASan)
  for (const auto& r : heldout["roles"]) {
    const RoleScores& s = roles->at(r["layer"].get<int>(), r["head"].get<int>());
    EXPECT_NEAR(s[HeadRole::kPreviousToken], r["previous_token"].get<double>(), 2e-4) << r.dump();
    EXPECT_NEAR(s[HeadRole::kInduction], r["induction"].get<double>(), 2e-4) << r.dump();
  }
}

}  // namespace
}  // namespace attnviz::model
