// attnviz-cli model --attribute POS[:TOKEN] and --patch-from CLEAN --metric A,B (issue 41) end to end: the real
// binary on tests/fixtures/models (a copy with a WordLevel tokenizer reading "t<id>" as id <id>) against PyTorch's
// float64 reference (make_attribution_fixtures.py -> attribution.json); the JSON shapes, the sum rule, the text
// tables, and the refusals (exit 2, one line naming the problem and both counts or the allowed range).
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


std::string TextOf(const json& ids) {
  std::string text;
  for (int id : ids) text += (text.empty() ? "t" : " t") + std::to_string(id);
  return text;
}

// A copy of tests/fixtures/models/<name> with a tokenizer that reads "t<id>" as id <id>, and torch's numbers for it.
class Fixture {
 public:
  explicit Fixture(const std::string& name) : copy_(name, "attr") {
    if (copy_.Has("attribution.json")) want_ = copy_.Read("attribution.json");  // bert: none
  }
  const json& want() const { return want_; }
  CliResult Run(const std::string& text, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"model", "--model", copy_.dir(), "--text", text};
    args.insert(args.end(), extra.begin(), extra.end());
    return Cli(args, "");
  }

 private:
  attnviz::testing::WordLevelModelCopy copy_;
  json want_;
};

void ExpectRefused(const CliResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
  EXPECT_EQ(r.out, "");
}

class CliAttribution : public ::testing::TestWithParam<std::string> {};

TEST_P(CliAttribution, AttributeJsonMatchesTorchAndAddsUp) {
  Fixture f(GetParam());
  const std::string text = TextOf(f.want()["patch"]["clean_ids"]);
  for (const json& want : f.want()["attribute"]) {
    const std::string pos = std::to_string(want["position"].get<int>());
    // The target given as the token's text: the same as the default (torch's).
    for (const std::string& spec : {pos, pos + ":t" + std::to_string(want["target"].get<int>())}) {
      CliResult r = f.Run(text, {"--attribute", spec, "--json"});
      ASSERT_EQ(r.code, 0) << r.err;
      const json got = json::parse(r.out);
      EXPECT_EQ(got["position"], want["position"]) << spec;
      EXPECT_EQ(got["target"]["id"], want["target"]) << spec;
      EXPECT_EQ(got["target"]["token"], "t" + std::to_string(want["target"].get<int>())) << spec;
      const double logit = got["logit"].get<double>();
      EXPECT_NEAR(logit, want["logit"].get<double>(), kTol * std::max(1.0, std::fabs(logit))) << spec;
      EXPECT_EQ(got.contains("capped_logit"), GetParam() == "gemma2") << spec;
      ASSERT_EQ(got["components"].size(), want["components"].size()) << spec;
      double sum = 0;
      for (size_t i = 0; i < want["components"].size(); ++i) {
        const json& c = got["components"][i];
        const json& w = want["components"][i];
        EXPECT_EQ(c["kind"], w["kind"]) << spec << " " << i;
        EXPECT_EQ(c["layer"], w["layer"]) << spec << " " << i;
        EXPECT_EQ(c["head"], w["head"]) << spec << " " << i;
        EXPECT_NEAR(c["value"].get<double>(), w["value"].get<double>(), kTol) << spec << " " << i;
        sum += c["value"].get<double>();
      }
      EXPECT_NEAR(sum, logit, 1e-3 * std::max(1.0, std::fabs(logit))) << spec;
    }
  }
  // The target as an id; the text table: the totals, a header, one line per component.
  CliResult text_table = f.Run(text, {"--attribute", "1:3"});
  ASSERT_EQ(text_table.code, 0) << text_table.err;
  EXPECT_NE(text_table.out.find("(id 3)"), std::string::npos) << text_table.out;
  EXPECT_EQ((size_t)std::count(text_table.out.begin(), text_table.out.end(), '\n'),
            3 + f.want()["attribute"][0]["components"].size())
      << text_table.out;
}

TEST_P(CliAttribution, PatchJsonMatchesTorch) {
  Fixture f(GetParam());
  const json& want = f.want()["patch"];
  const std::string metric = "t" + std::to_string(want["a"].get<int>()) + "," + std::to_string(want["b"].get<int>());
  CliResult r = f.Run(TextOf(want["corrupted_ids"]),
                      {"--patch-from", TextOf(want["clean_ids"]), "--metric", metric, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  EXPECT_NEAR(got["clean"].get<double>(), want["clean"].get<double>(), kTol);
  EXPECT_NEAR(got["corrupted"].get<double>(), want["corrupted"].get<double>(), kTol);
  ASSERT_EQ(got["heads"].size(), want["heads"].size());
  for (size_t l = 0; l < want["heads"].size(); ++l) {
    ASSERT_EQ(got["heads"][l].size(), want["heads"][l].size());
    for (size_t h = 0; h < want["heads"][l].size(); ++h)
      EXPECT_NEAR(got["heads"][l][h].get<double>(), want["heads"][l][h].get<double>(), kTol) << l << ":" << h;
  }
  ASSERT_EQ(got["residual"].size(), want["residual"].size());
  for (size_t l = 0; l < want["residual"].size(); ++l) {
    ASSERT_EQ(got["residual"][l].size(), want["clean_ids"].size());
    for (size_t p = 0; p < want["residual"][l].size(); ++p)
      EXPECT_NEAR(got["residual"][l][p].get<double>(), want["residual"][l][p].get<double>(), kTol) << l << " " << p;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliAttribution, ::testing::Values("gpt2", "llama", "gemma2"));

TEST(CliAttributionRefusals, NameTheProblem) {
  Fixture f("gpt2");
  const std::string text = "t1 t2 t3";
  ExpectRefused(f.Run(text, {"--attribute", "3"}), {"--attribute", "position 3", "allowed 0..2"});
  ExpectRefused(f.Run(text, {"--attribute", "x"}), {"--attribute", "'x'", "POS:TOKEN"});
  ExpectRefused(f.Run(text, {"--attribute", "1:t1 t2"}), {"--attribute", "'t1 t2'", "2 tokens", "0..99"});
  ExpectRefused(f.Run(text, {"--attribute", "1:100"}), {"--attribute", "100", "0..99"});
  ExpectRefused(f.Run(text, {"--patch-from", "t1 t2", "--metric", "t1,t2"}), {"--patch-from", "has 2", "has 3"});
  ExpectRefused(f.Run(text, {"--patch-from", text, "--metric", "t1,t2"}), {"--patch-from", "divide by zero"});
  ExpectRefused(f.Run(text, {"--patch-from", "t1 t2 t4"}), {"--patch-from", "--metric"});
  ExpectRefused(f.Run(text, {"--patch-from", "t1 t2 t4", "--metric", "t1"}), {"--metric", "'t1'", "A,B"});
  ExpectRefused(f.Run(text, {"--attribute", "1", "--ablate", "0:1"}), {"--attribute", "what-ifs"});
  ExpectRefused(f.Run(text, {"--attribute", "1", "--logit-lens", "3"}), {"--attribute", "--logit-lens"});
  Fixture bert("bert");
  ExpectRefused(bert.Run("t5 t6 t7", {"--attribute", "1"}), {"--attribute", "post-norm", "bert"});
}

}  // namespace
