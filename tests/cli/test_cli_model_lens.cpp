// attnviz-cli model --token-loss, --logit-lens K and --ablate-mode mean (issue 41) end to end: the real binary on
// tests/fixtures/models (a copy with a WordLevel tokenizer reading "t<id>" as id <id>, as
// test_cli_model_analysis.cpp does) against PyTorch's float64 reference (make_lens_fixtures.py -> lens.json); the
// JSON shapes, the text forms, and the refusals (exit 2, one line naming the problem and the allowed range).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "word_level_tokenizer.h"

namespace {

namespace fs = std::filesystem;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using nlohmann::json;

constexpr double kTol = 1e-4;


// A copy of tests/fixtures/models/<name> with a tokenizer that reads "t<id>" as id <id>, and torch's numbers for it.
class Fixture {
 public:
  explicit Fixture(const std::string& name) : copy_(name, "lens") {
    lens_ = copy_.Read("lens.json");
    for (int id : lens_["ids"]) text_ += (text_.empty() ? "t" : " t") + std::to_string(id);
  }
  const json& lens() const { return lens_; }
  // `text`: another text than the fixture's ids; `env`: variables set for the run ("NAME=value ").
  CliResult Run(std::vector<std::string> extra, const std::string& text = "", const std::string& env = "") const {
    std::vector<std::string> args = {"model", "--model", copy_.dir(), "--text", text.empty() ? text_ : text};
    args.insert(args.end(), extra.begin(), extra.end());
    return Cli(args, env);
  }

 private:
  attnviz::testing::WordLevelModelCopy copy_;
  std::string text_;
  json lens_;
};

// Exit 2, one line on stderr with every `words` in it, nothing on stdout.
void ExpectRefused(const CliResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
  EXPECT_EQ(r.out, "");
}

// {"positions": [{"index", "next_id", "next_token", "loss", "prob"}]} against torch's per-token losses.
void ExpectTokenLoss(const json& got, const json& want, const std::string& what) {
  ASSERT_EQ(got["positions"].size(), want.size()) << what;
  double sum = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const json& p = got["positions"][i];
    const std::string at = what + " position " + std::to_string(i);
    EXPECT_EQ(p["index"], want[i]["index"]) << at;
    EXPECT_EQ(p["next_id"], want[i]["next_id"]) << at;
    EXPECT_EQ(p["next_token"], "t" + std::to_string(want[i]["next_id"].get<int>())) << at;
    const double loss = want[i]["loss"];
    EXPECT_NEAR(p["loss"].get<double>(), loss, kTol * std::max(1.0, loss)) << at;
    EXPECT_NEAR(p["prob"].get<double>(), want[i]["prob"].get<double>(), kTol) << at;
    sum += p["loss"].get<double>();
  }
  EXPECT_NEAR(got["loss"].get<double>(), sum / (double)want.size(), 1e-9 * std::max(1.0, sum)) << what;
}

class CliLens : public ::testing::TestWithParam<std::string> {};

TEST_P(CliLens, TokenLossJsonMatchesTorch) {
  Fixture f(GetParam());
  CliResult r = f.Run({"--token-loss", "--json"});
  if (!f.lens()["next_token"].get<bool>()) {  // bert: refused, naming why
    ExpectRefused(r, {"--token-loss", "masked language model"});
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectTokenLoss(json::parse(r.out), f.lens()["token_loss"], GetParam());
  // Under a what-if, the what-if run's losses: head 1 of layer 0 mean-ablated.
  CliResult mean = f.Run({"--token-loss", "--json", "--ablate", "0:1", "--ablate-mode", "mean"});
  ASSERT_EQ(mean.code, 0) << mean.err;
  ExpectTokenLoss(json::parse(mean.out), f.lens()["mean_ablate"]["token_loss"], GetParam() + " mean-ablated");
  // --ablate-mode zero is --ablate alone.
  CliResult zero = f.Run({"--token-loss", "--json", "--ablate", "0:1", "--ablate-mode", "zero"});
  CliResult plain_ablate = f.Run({"--token-loss", "--json", "--ablate", "0:1"});
  ASSERT_EQ(zero.code, 0) << zero.err;
  EXPECT_EQ(zero.out, plain_ablate.out);
  EXPECT_NE(zero.out, mean.out);
  // The text form: the loss line, then one line per position 0..n-2.
  CliResult text = f.Run({"--token-loss"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("loss ", 0), 0u) << text.out;
  EXPECT_EQ((size_t)std::count(text.out.begin(), text.out.end(), '\n'), f.lens()["ids"].size()) << text.out;
}

TEST_P(CliLens, LogitLensJsonMatchesTorch) {
  Fixture f(GetParam());
  const json& want = f.lens();
  CliResult r = f.Run({"--logit-lens", std::to_string(want["k"].get<int>()), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  ASSERT_EQ(got["layers"].size(), want["lens"].size());
  const size_t n = want["ids"].size();
  for (size_t l = 0; l < want["lens"].size(); ++l) {
    const json& gl = got["layers"][l];
    EXPECT_EQ(gl["layer"], l);
    ASSERT_EQ(gl["positions"].size(), n);
    for (size_t i = 0; i < n; ++i) {
      const std::string what = GetParam() + " layer " + std::to_string(l) + " position " + std::to_string(i);
      const json& p = gl["positions"][i];
      const json& w = want["lens"][l]["positions"][i];
      EXPECT_EQ(p["index"], i) << what;
      ASSERT_EQ(p["top"].size(), w["top"].size()) << what;
      for (size_t t = 0; t < w["top"].size(); ++t) {
        const double prob = w["top"][t]["prob"];
        EXPECT_NEAR(p["top"][t]["prob"].get<double>(), prob, kTol) << what << " rank " << t;
        if (p["top"][t]["id"] != w["top"][t]["id"]) {  // a swap only where torch's probabilities tie
          const bool tie = (t + 1 < w["top"].size() && std::fabs(w["top"][t + 1]["prob"].get<double>() - prob) < kTol) ||
                           (t > 0 && std::fabs(w["top"][t - 1]["prob"].get<double>() - prob) < kTol);
          EXPECT_TRUE(tie) << what << " rank " << t;
        }
        EXPECT_EQ(p["top"][t]["token"], "t" + std::to_string(p["top"][t]["id"].get<int>())) << what;
      }
      // next_prob: absent at the last position and for a masked LM.
      ASSERT_EQ(p.contains("next_prob"), w.contains("next_prob")) << what;
      EXPECT_EQ(p.contains("next_prob"), want["next_token"].get<bool>() && i + 1 < n) << what;
      if (w.contains("next_prob")) {
        EXPECT_NEAR(p["next_prob"].get<double>(), w["next_prob"].get<double>(), kTol) << what;
      }
    }
  }
  // The text form: per layer its line, then one line per position.
  CliResult text = f.Run({"--logit-lens", "2"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("layer 0:\n", 0), 0u) << text.out;
  EXPECT_EQ((size_t)std::count(text.out.begin(), text.out.end(), '\n'), want["lens"].size() * (n + 1)) << text.out;
}

INSTANTIATE_TEST_SUITE_P(Families, CliLens,
                         ::testing::Values("gpt2", "llama", "qwen3", "gemma2", "gpt_neox", "bert"));

TEST(CliLensRefusals, BadArgumentsNameTheProblemAndTheRange) {
  Fixture f("gpt2");  // 2 layers, 4 heads, vocab 100, 16 tokens
  ExpectRefused(f.Run({"--logit-lens", "0"}), {"--logit-lens", "top-k 0 is out of range: allowed 1..100"});
  ExpectRefused(f.Run({"--logit-lens", "101"}), {"--logit-lens", "top-k 101 is out of range: allowed 1..100"});
  ExpectRefused(f.Run({"--logit-lens", "x"}), {"--logit-lens", "'x'"});
  ExpectRefused(f.Run({"--token-loss"}, "t5"), {"--token-loss", "at least 2 tokens", "has 1"});
  ExpectRefused(f.Run({"--ablate-mode", "mean"}), {"--ablate-mode goes with --ablate"});
  ExpectRefused(f.Run({"--ablate", "0:1", "--ablate-mode", "half"}), {"--ablate-mode", "'half'", "allowed zero, mean"});
  ExpectRefused(f.Run({"--token-loss", "--logit-lens", "3"}), {"--token-loss and --logit-lens both print to stdout"});
  ExpectRefused(f.Run({"--predict", "3", "--token-loss"}), {"--predict and --token-loss both print to stdout"});
  ExpectRefused(f.Run({"--ablate", "0:4", "--ablate-mode", "mean"}), {"head 4 of layer 0 is out of range: allowed 0..3"});
  // One token has a lens (no next token anywhere).
  CliResult one = f.Run({"--logit-lens", "1", "--json"}, "t5");
  ASSERT_EQ(one.code, 0) << one.err;
  const json got = json::parse(one.out);
  ASSERT_EQ(got["layers"].size(), 3u);
  EXPECT_FALSE(got["layers"][2]["positions"][0].contains("next_prob"));
}

TEST(CliLensRefusals, ALensOverTheMemoryLimitIsRefused) {
  Fixture f("llama");  // 66 tokens, 3 streams (embeddings, 2 blocks), vocab 80: the top 80 of each is ~1.3 MB of text
  ExpectRefused(f.Run({"--logit-lens", "80", "--json"}, "", "ATTNVIZ_MEMORY_LIMIT=400000 "),
                {"--logit-lens", "the top 80 of every layer of 66 tokens needs about", "ATTNVIZ_MEMORY_LIMIT"});
  CliResult fits = f.Run({"--logit-lens", "80", "--json"});
  ASSERT_EQ(fits.code, 0) << fits.err;
  EXPECT_EQ(json::parse(fits.out)["layers"][2]["positions"][65]["top"].size(), 80u);
}

}  // namespace
