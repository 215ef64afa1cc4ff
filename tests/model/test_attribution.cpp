// core/model/attribution.* and patching.* (issue 41) against PyTorch's float64 reference
// (tests/fixtures/models/make_attribution_fixtures.py -> attribution.json) on gpt2 (LayerNorm, biases), llama (GQA),
// qwen3 (q/k norms) and gemma2 (output norms frozen at the attention output, (1 + w), the final soft cap); then the
// invariants: the parts add up to the logit; the residual at the changed position of layer 0 carries all of the
// difference, the last layer's last position all of it and its other positions none, positions before the change
// none; a cancelled scan keeps what it finished; and the refusals.
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "model/attribution.h"
#include "model/patching.h"
#include "model/run.h"
#include "test_util.h"

namespace attnviz::model {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;
using testing::FixtureDir;

constexpr double kTol = 1e-4;

struct Case {
  std::shared_ptr<const Model> model;
  json want;
};

Case Load(const std::string& name) {
  Case k;
  auto model = LoadModel(FixtureDir(name));
  EXPECT_TRUE(model.ok()) << model.message();
  if (!model.ok()) return k;
  k.model = std::move(*model);
  k.want = json::parse(testing::ReadBytes(FixtureDir(name) + "/attribution.json"));
  return k;
}

class Attribution : public ::testing::TestWithParam<std::string> {};

TEST_P(Attribution, ComponentsMatchTorchAndAddUpToTheLogit) {
  const std::string name = GetParam();
  Case k = Load(name);
  ASSERT_TRUE(k.model);
  const std::vector<int> ids = k.want["patch"]["clean_ids"].get<std::vector<int>>();
  for (const json& want : k.want["attribute"]) {
    const int pos = want["position"].get<int>();
    const std::string what = name + " position " + std::to_string(pos);
    // The default target: the next token in the middle, the top prediction at the end (torch's argmax).
    auto got = AttributeLogit(*k.model, ids, pos);
    ASSERT_TRUE(got.ok()) << got.message();
    EXPECT_EQ(got->target, want["target"].get<int>()) << what;
    EXPECT_NEAR(got->logit, want["logit"].get<double>(), kTol * std::max(1.0, std::fabs(got->logit))) << what;
    EXPECT_NEAR(got->capped_logit, want["capped_logit"].get<double>(), kTol) << what;
    EXPECT_EQ(got->capped, k.model->config().final_softcap > 0) << what;
    ASSERT_EQ(got->components.size(), want["components"].size()) << what;
    double sum = 0, scale = 0;
    for (size_t i = 0; i < got->components.size(); ++i) {
      const LogitComponent& c = got->components[i];
      const json& w = want["components"][i];
      const std::string at = what + " component " + std::to_string(i);
      EXPECT_EQ(ComponentKindName(c.kind), w["kind"].get<std::string>()) << at;
      EXPECT_EQ(c.layer, w["layer"].get<int>()) << at;
      EXPECT_EQ(c.head, w["head"].get<int>()) << at;
      EXPECT_NEAR(c.value, w["value"].get<double>(), kTol) << at << " " << w["kind"];
      sum += c.value, scale += std::fabs(c.value);
    }
    // The sum rule: the MLPs are made again from their inputs, so this checks the split against the run.
    EXPECT_NEAR(sum, got->logit, 1e-5 * std::max(1.0, scale)) << what;
  }
}

TEST_P(Attribution, AGivenTargetIsThatTokensLogit) {
  Case k = Load(GetParam());
  ASSERT_TRUE(k.model);
  const std::vector<int> ids = k.want["patch"]["clean_ids"].get<std::vector<int>>();
  const int pos = 2, target = 5;
  auto got = AttributeLogit(*k.model, ids, pos, target);
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_EQ(got->target, target);
  auto run = RunModel(*k.model, ids);
  ASSERT_TRUE(run.ok());
  const ModelConfig& c = k.model->config();
  const float* row = run->hidden.data.data() + ((size_t)c.n_layer * ids.size() + pos) * c.d_model;
  auto logits = TokenLogitsAt(*k.model, row, {target});
  ASSERT_TRUE(logits.ok());
  EXPECT_NEAR(got->capped_logit, (*logits)[0], 1e-4);
}

TEST_P(Attribution, PatchingMatchesTorch) {
  const std::string name = GetParam();
  Case k = Load(name);
  ASSERT_TRUE(k.model);
  const json& want = k.want["patch"];
  const std::vector<int> clean = want["clean_ids"], corrupted = want["corrupted_ids"];
  auto got = PatchActivations(*k.model, clean, corrupted, want["a"].get<int>(), want["b"].get<int>());
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_TRUE(got->complete);
  EXPECT_NEAR(got->clean, want["clean"].get<double>(), kTol) << name;
  EXPECT_NEAR(got->corrupted, want["corrupted"].get<double>(), kTol) << name;
  const int L = got->n_layer, H = got->n_head, n = got->n;
  ASSERT_EQ(want["heads"].size(), (size_t)L);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h)
      EXPECT_NEAR(got->Head(l, h), want["heads"][l][h].get<double>(), kTol) << name << " head " << l << ":" << h;
  ASSERT_EQ(want["residual"].size(), (size_t)L + 1);
  for (int l = 0; l <= L; ++l)
    for (int p = 0; p < n; ++p)
      EXPECT_NEAR(got->Residual(l, p), want["residual"][l][p].get<double>(), kTol)
          << name << " residual " << l << " position " << p;
  // Invariants that hold by construction, exactly: the texts differ at `changed` only, so the embeddings differ
  // there only (patching that row is the clean run), and a causal model's positions before it are the same bits.
  const int changed = want["changed"].get<int>();
  EXPECT_DOUBLE_EQ(got->Residual(0, changed), 1.0) << name;
  EXPECT_DOUBLE_EQ(got->Residual(L, n - 1), 1.0) << name;
  for (int p = 0; p + 1 < n; ++p) EXPECT_EQ(got->Residual(L, p), 0.0) << name << " position " << p;
  for (int l = 0; l <= L; ++l)
    for (int p = 0; p < changed; ++p) EXPECT_EQ(got->Residual(l, p), 0.0) << name << " layer " << l << " " << p;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Attribution, ::testing::Values("gpt2", "llama", "qwen3", "gemma2"));

TEST(Patching, ACancelKeepsTheCellsDoneAndReportsProgress) {
  Case k = Load("gpt2");
  ASSERT_TRUE(k.model);
  const json& want = k.want["patch"];
  std::atomic<bool> cancel{false};
  PatchingOptions o;
  o.control.cancel = &cancel;
  size_t last_done = 0, total = 0;
  o.control.progress = [&](const char* stage, size_t done, size_t all) {
    EXPECT_STREQ(stage, "patching");
    last_done = done, total = all;
    if (done == 3) cancel = true;
  };
  auto got = PatchActivations(*k.model, want["clean_ids"], want["corrupted_ids"], want["a"], want["b"], o);
  ASSERT_TRUE(got.ok()) << got.message();
  EXPECT_FALSE(got->complete);
  EXPECT_EQ(got->done, 3u);
  EXPECT_EQ(last_done, 3u);
  EXPECT_EQ(total, got->heads.size() + got->residual.size());
  EXPECT_NEAR(got->Head(0, 2), want["heads"][0][2].get<double>(), kTol);  // heads are done first, layer-major
  EXPECT_TRUE(std::isnan(got->Head(0, 3)));
  EXPECT_TRUE(std::isnan(got->Residual(0, 0)));
}

TEST(Patching, RefusesUnequalTokenCountsAndNoDifference) {
  Case k = Load("gpt2");
  ASSERT_TRUE(k.model);
  const std::vector<int> clean = k.want["patch"]["clean_ids"];
  std::vector<int> shorter(clean.begin(), clean.end() - 1);
  auto counts = PatchActivations(*k.model, clean, shorter, 1, 2);
  ASSERT_FALSE(counts.ok());
  EXPECT_THAT(counts.message(), HasSubstr(std::to_string(clean.size())));
  EXPECT_THAT(counts.message(), HasSubstr(std::to_string(shorter.size())));
  auto same = PatchActivations(*k.model, clean, clean, 1, 2);  // the same run: nothing to normalize by
  ASSERT_FALSE(same.ok());
  EXPECT_THAT(same.message(), HasSubstr("divide by zero"));
  auto range = PatchActivations(*k.model, clean, clean, 1, 100000);
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.message(), HasSubstr("100000"));
}

TEST(Attribution, RefusesPostNormModelsAndOutOfRange) {
  auto bert = LoadModel(FixtureDir("bert"));
  ASSERT_TRUE(bert.ok()) << bert.message();
  auto refused = AttributeLogit(**bert, {1, 2, 3}, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), HasSubstr("post-norm"));
  EXPECT_THAT(refused.message(), HasSubstr("bert"));
  Case k = Load("gpt2");
  ASSERT_TRUE(k.model);
  auto pos = AttributeLogit(*k.model, {1, 2, 3}, 3);
  ASSERT_FALSE(pos.ok());
  EXPECT_THAT(pos.message(), HasSubstr("allowed 0..2"));
  auto target = AttributeLogit(*k.model, {1, 2, 3}, 1, 100);
  ASSERT_FALSE(target.ok());
  EXPECT_THAT(target.message(), HasSubstr("0..99"));
}

}  // namespace
}  // namespace attnviz::model
