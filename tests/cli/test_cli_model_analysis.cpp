// attnviz-cli model --predict, --ablate, --neuron, --rollout, --value-norm end to end: the real binary on every
// family of tests/fixtures/models (a copy with a WordLevel tokenizer reading "t<id>" as id <id>, as
// test_cli_model_figure.cpp does) and on models_e2e/bert (its own WordPiece tokenizer, a text with [MASK]),
// against PyTorch's float64 reference (make_analysis_fixtures.py -> analysis.json, ablate_probs.npy, rollout.npy,
// value_norm.npy). Then the refusals: each exits 2 with one line naming the problem and the allowed range.
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
#include "io/npy.h"

namespace {

namespace fs = std::filesystem;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using nlohmann::json;

const std::string kE2e = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e";
constexpr double kTol = 1e-4;

using attnviz::testing::ReadJsonFile;

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, (double)std::fabs(a[i] - b[i]));
  return worst;
}

// A copy of tests/fixtures/models/<name> with a tokenizer that reads "t<id>" as id <id>, and torch's numbers for it.
class Fixture {
 public:
  explicit Fixture(const std::string& name) : copy_(name, "analysis") {
    analysis_ = copy_.Read("analysis.json");
    for (int id : analysis_["ids"]) text_ += (text_.empty() ? "t" : " t") + std::to_string(id);
  }
  const std::string& dir() const { return copy_.dir(); }
  const std::string& text() const { return text_; }
  const json& analysis() const { return analysis_; }
  std::string Out(const std::string& name) const { return copy_.dir() + "/" + name; }
  CliResult Run(std::vector<std::string> extra) const {
    std::vector<std::string> args = {"model", "--model", copy_.dir(), "--text", text_};
    args.insert(args.end(), extra.begin(), extra.end());
    return Cli(args);
  }

 private:
  attnviz::testing::WordLevelModelCopy copy_;
  std::string text_;
  json analysis_;
};

// The top-k of one position against torch's: ids in order (a swap only where torch's probabilities tie within
// the tolerance), probabilities within 1e-4, and the token named.
void ExpectTop(const json& got, const json& want, const std::string& what) {
  ASSERT_EQ(got["top"].size(), want["top"].size()) << what;
  for (size_t t = 0; t < got["top"].size(); ++t) {
    EXPECT_NEAR(got["top"][t]["prob"].get<double>(), want["top"][t]["prob"].get<double>(), kTol) << what << " rank " << t;
    if (got["top"][t]["id"] != want["top"][t]["id"]) {
      const double p = want["top"][t]["prob"];
      const bool tie = (t + 1 < want["top"].size() && std::fabs(want["top"][t + 1]["prob"].get<double>() - p) < kTol) ||
                       (t > 0 && std::fabs(want["top"][t - 1]["prob"].get<double>() - p) < kTol);
      EXPECT_TRUE(tie) << what << " rank " << t;
    }
    EXPECT_TRUE(got["top"][t]["token"].is_string()) << what;
  }
}

class CliAnalysis : public ::testing::TestWithParam<std::string> {};

TEST_P(CliAnalysis, PredictJsonMatchesTorch) {
  Fixture f(GetParam());
  const json& want = f.analysis();
  CliResult r = f.Run({"--predict", std::to_string(want["k"].get<int>()), "--json"});
  if (want.contains("no_lm_head")) {  // bert_legacy: a bare BertModel
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("has no LM head"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    return;
  }
  if (want["predict"]["loss"].is_null()) {  // bert: the text has no [MASK]
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("put [MASK] in the text"), std::string::npos) << r.err;
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  const double loss = want["predict"]["loss"];
  EXPECT_NEAR(got["loss"].get<double>(), loss, kTol * std::max(1.0, loss));
  EXPECT_NEAR(got["perplexity"].get<double>(), std::exp(got["loss"].get<double>()), 1e-6 * got["perplexity"].get<double>());
  ASSERT_EQ(got["positions"].size(), want["predict"]["positions"].size());
  for (size_t i = 0; i < got["positions"].size(); ++i) {
    EXPECT_EQ(got["positions"][i]["index"], i);
    ExpectTop(got["positions"][i], want["predict"]["positions"][i], GetParam() + " position " + std::to_string(i));
  }
  // The text form: the loss line, then one line per position.
  CliResult text = f.Run({"--predict", "2"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("loss ", 0), 0u) << text.out;
  EXPECT_EQ((size_t)std::count(text.out.begin(), text.out.end(), '\n'), want["ids"].size() + 1);
}

TEST_P(CliAnalysis, AblateDumpAndLossMatchTorch) {
  Fixture f(GetParam());
  const json& want = f.analysis();
  const std::string out = f.Out("ablated");
  CliResult r = f.Run({"--ablate", want["ablate"]["spec"], "--dump", out});
  ASSERT_EQ(r.code, 0) << r.err;
  auto got = attnviz::ReadNpy(out + "/attention.npy");
  auto ref = attnviz::ReadNpy(f.dir() + "/ablate_probs.npy");
  auto plain = attnviz::ReadNpy(f.dir() + "/probs.npy");
  ASSERT_TRUE(got.ok() && ref.ok() && plain.ok());
  ASSERT_EQ(got->shape, ref->shape);
  EXPECT_LE(MaxDiff(got->data, ref->data), kTol);
  EXPECT_GT(MaxDiff(got->data, plain->data), 1e-3);  // the ablation was applied
  if (!want["ablate"]["loss"].is_null()) {
    CliResult p = f.Run({"--ablate", want["ablate"]["spec"], "--predict", "1", "--json"});
    ASSERT_EQ(p.code, 0) << p.err;
    const double loss = want["ablate"]["loss"];
    EXPECT_NEAR(json::parse(p.out)["loss"].get<double>(), loss, kTol * std::max(1.0, loss));
  }
}

TEST_P(CliAnalysis, NeuronJsonMatchesTorch) {
  Fixture f(GetParam());
  for (const json& w : f.analysis()["neuron"]) {
    const std::string at = std::to_string(w["layer"].get<int>()) + ":" + std::to_string(w["head"].get<int>()) + ":" +
                           std::to_string(w["i"].get<int>()) + ":" + std::to_string(w["j"].get<int>());
    SCOPED_TRACE(GetParam() + " --neuron " + at);
    CliResult r = f.Run({"--neuron", at, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json got = json::parse(r.out);
    for (const char* key : {"q", "k", "product", "q_before_rope", "k_before_rope"}) {
      ASSERT_EQ(got.contains(key), w.contains(key)) << key;
      if (!w.contains(key)) continue;
      ASSERT_EQ(got[key].size(), w[key].size()) << key;
      for (size_t t = 0; t < w[key].size(); ++t)
        EXPECT_NEAR(got[key][t].get<double>(), w[key][t].get<double>(), kTol) << key << "[" << t << "]";
    }
    for (const char* key : {"score", "logit"})
      EXPECT_NEAR(got[key].get<double>(), w[key].get<double>(), kTol * std::max(1.0, std::fabs(w[key].get<double>()))) << key;
    EXPECT_NEAR(got["scale"].get<double>(), w["scale"].get<double>(), 1e-7);
    EXPECT_NEAR(got["prob"].get<double>(), w["prob"].get<double>(), kTol);
    EXPECT_EQ(got["masked"], w["masked"]);
    // The text form says when the pair is masked.
    CliResult text = f.Run({"--neuron", at});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_EQ(text.out.find("masked: query") != std::string::npos, w["masked"].get<bool>()) << text.out;
  }
}

TEST_P(CliAnalysis, RolloutAndValueNormDumpsMatchTorch) {
  Fixture f(GetParam());
  const std::string out = f.Out("dump");
  CliResult r = f.Run({"--rollout", "--value-norm", "--dump", out});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* file : {"rollout.npy", "value_norm.npy"}) {
    auto got = attnviz::ReadNpy(out + "/" + file);
    auto want = attnviz::ReadNpy(f.dir() + "/" + file);
    ASSERT_TRUE(got.ok() && want.ok()) << file;
    ASSERT_EQ(got->shape, want->shape) << file;
    EXPECT_LE(MaxDiff(got->data, want->data), kTol) << file;
  }
}

// Above kRolloutMaxTokens (1024) the dump's rollout is pooled (blocks of 2 tokens here) and the value norms are
// written head by head. The llama fixture (RoPE: room for any length once its config allows it) on its own ids
// repeated 17 times: 1122 tokens.
TEST(CliAnalysisLong, RolloutIsPooledAndValueNormsStreamAboveTheRolloutLimit) {
  Fixture f("llama");
  json config = ReadJsonFile(f.dir() + "/config.json");
  config["max_position_embeddings"] = 4096;
  std::ofstream(f.dir() + "/config.json") << config.dump();
  std::string text;
  for (int r = 0; r < 17; ++r) text += (text.empty() ? "" : " ") + f.text();
  const std::string out = f.Out("long");
  CliResult r = Cli({"model", "--model", f.dir(), "--text", text, "--rollout", "--value-norm", "--dump", out});
  ASSERT_EQ(r.code, 0) << r.err;
  auto attention = attnviz::ReadNpy(out + "/attention.npy");
  auto rollout = attnviz::ReadNpy(out + "/rollout.npy");
  auto value_norm = attnviz::ReadNpy(out + "/value_norm.npy");
  ASSERT_TRUE(attention.ok() && rollout.ok() && value_norm.ok());
  const size_t L = attention->shape[0], H = attention->shape[1], n = attention->shape[2];
  ASSERT_EQ(n, 17 * f.analysis()["ids"].size());
  const size_t fac = 2, nb = (n + fac - 1) / fac;
  const json described = ReadJsonFile(out + "/rollout.json");
  EXPECT_EQ(described["tokens"], n);
  EXPECT_EQ(described["tokens_per_cell"], fac);
  EXPECT_EQ(described["cells"], nb);
  EXPECT_EQ(described["pooled"], true);
  ASSERT_EQ(rollout->shape, (std::vector<size_t>{L, nb, nb}));
  ASSERT_EQ(value_norm->shape, attention->shape);

  // 1. The pooled rollout against a naive float64 one from attention.npy: P[I, J] = mean over rows i in I of the
  //    sum over columns j in J of the head mean; A^ = (0.5 P + 0.5 I) rows renormalized; R' = A^ R'_(l-1).
  std::vector<double> R(nb * nb, 0.0);
  for (size_t l = 0; l < L; ++l) {
    std::vector<double> A(nb * nb, 0.0);
    for (size_t h = 0; h < H; ++h)
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) A[(i / fac) * nb + j / fac] += attention->data[((l * H + h) * n + i) * n + j];
    for (size_t I = 0; I < nb; ++I) {
      const double rows = (double)(std::min(n, (I + 1) * fac) - I * fac);
      double sum = 0;
      for (size_t J = 0; J < nb; ++J) sum += A[I * nb + J] = 0.5 * A[I * nb + J] / (H * rows) + (I == J ? 0.5 : 0.0);
      for (size_t J = 0; J < nb; ++J) A[I * nb + J] /= sum;
    }
    std::vector<double> next(nb * nb, 0.0);
    if (l == 0) next = A;
    for (size_t I = 0; l > 0 && I < nb; ++I)
      for (size_t K = 0; K < nb; ++K)
        for (size_t J = 0; J < nb; ++J) next[I * nb + J] += A[I * nb + K] * R[K * nb + J];
    R.swap(next);
    double worst = 0;
    for (size_t c = 0; c < nb * nb; ++c) worst = std::max(worst, std::fabs(R[c] - rollout->data[l * nb * nb + c]));
    EXPECT_LE(worst, 1e-5) << "layer " << l;
  }

  // 2. Value norms: causal, so the first 66 tokens' block is the 66-token run's, which torch made (value_norm.npy);
  //    and every row of a head is its attention times the same column norms (the last row sees every key).
  auto want = attnviz::ReadNpy(f.dir() + "/value_norm.npy");
  ASSERT_TRUE(want.ok());
  const size_t m = want->shape[2];
  double worst_prefix = 0, worst_rows = 0;
  for (size_t lh = 0; lh < L * H; ++lh) {
    const float* vn = value_norm->data.data() + lh * n * n;
    const float* a = attention->data.data() + lh * n * n;
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < m; ++j)
        worst_prefix = std::max(worst_prefix, (double)std::fabs(vn[i * n + j] - want->data[(lh * m + i) * m + j]));
    for (size_t i = 0; i < n; i += 97)
      for (size_t j = 0; j <= i; ++j) {
        const double norm = (double)vn[(n - 1) * n + j] / a[(n - 1) * n + j];
        worst_rows = std::max(worst_rows, std::fabs(vn[i * n + j] - a[i * n + j] * norm) / (1e-12 + std::fabs(vn[i * n + j])));
      }
  }
  EXPECT_LE(worst_prefix, kTol);
  EXPECT_LE(worst_rows, 1e-5);
}

TEST_P(CliAnalysis, AblateScanMatchesTorch) {
  Fixture f(GetParam());
  const json& want = f.analysis();
  CliResult r = f.Run({"--ablate-scan", "--json"});
  if (!want.contains("predict") || want["predict"]["loss"].is_null()) {  // bert: no next-token loss to rank by
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    return;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  const double base = want["predict"]["loss"], ablated = want["ablate"]["loss"];
  EXPECT_NEAR(got["base_loss"].get<double>(), base, kTol * std::max(1.0, base));
  ASSERT_GT(got["heads"].size(), 1u);
  EXPECT_EQ(got["heads"][1]["layer"], 0);
  EXPECT_EQ(got["heads"][1]["head"], 1);
  EXPECT_NEAR(got["heads"][1]["loss"].get<double>(), ablated, kTol * std::max(1.0, ablated));
  EXPECT_NEAR(got["heads"][1]["delta"].get<double>(), ablated - base, kTol * std::max(1.0, ablated));
  CliResult csv = f.Run({"--ablate-scan"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("layer,head,loss,delta\n0,0,", 0), 0u) << csv.out;
  EXPECT_EQ((size_t)std::count(csv.out.begin(), csv.out.end(), '\n'), got["heads"].size() + 1);
}

// --scan-at: the heads ranked by the loss at those positions, each the mean of --token-loss's losses there (without
// and with that head ablated); the positions echo in the JSON; a position past n - 2 or --scan-at without
// --ablate-scan is refused before anything runs.
TEST(CliScanAt, RanksByTheLossAtTheChosenPositions) {
  Fixture f("llama");
  const int n = (int)f.analysis()["ids"].size();
  const std::string at = "1," + std::to_string(n - 2);
  CliResult r = f.Run({"--ablate-scan", "--scan-at", at, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  EXPECT_EQ(got["loss_at"], json::array({1, n - 2}));
  auto mean_at = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--token-loss", "--json"});
    CliResult t = f.Run(extra);
    EXPECT_EQ(t.code, 0) << t.err;
    const json p = json::parse(t.out)["positions"];
    return (p[1]["loss"].get<double>() + p[n - 2]["loss"].get<double>()) / 2;
  };
  EXPECT_NEAR(got["base_loss"].get<double>(), mean_at({}), 1e-5);
  ASSERT_GT(got["heads"].size(), 1u);
  EXPECT_EQ(got["heads"][1]["layer"], 0);
  EXPECT_EQ(got["heads"][1]["head"], 1);
  EXPECT_NEAR(got["heads"][1]["loss"].get<double>(), mean_at({"--ablate", "0:1"}), 1e-5);
  CliResult whole = f.Run({"--ablate-scan", "--json"});
  ASSERT_EQ(whole.code, 0) << whole.err;
  EXPECT_NE(json::parse(whole.out)["base_loss"].get<double>(), got["base_loss"].get<double>());
  CliResult past = f.Run({"--ablate-scan", "--scan-at", std::to_string(n - 1)});
  EXPECT_EQ(past.code, 2);
  EXPECT_NE(past.err.find("--scan-at"), std::string::npos) << past.err;
  EXPECT_NE(past.err.find(std::to_string(n - 2)), std::string::npos) << past.err;
  CliResult alone = f.Run({"--scan-at", "1"});
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("--scan-at goes with --ablate-scan"), std::string::npos) << alone.err;
}

INSTANTIATE_TEST_SUITE_P(Models, CliAnalysis,
                         ::testing::Values("gpt2", "gpt2_f16", "bert", "bert_legacy", "llama", "qwen2", "mistral_sharded",
                                           "gpt_neox", "gpt_neox_seq_bf16", "phi3", "phi3_partial_f16", "roberta",
                                           "xlm_roberta", "qwen3", "qwen3_sliding", "olmo2", "gemma2", "gemma2_bf16",
                                           "gemma3_text"),
                         [](const auto& info) { return info.param; });

// The --predict table writes a token as the app does (tokenize/shown_text.h): bytes read back, a leading space as
// "·" ("·cat"), never the vocabulary's "Ġcat" (raw, or as \u0120) nor U+FFFD; the JSON keeps the pieces.
TEST(CliAnalysisGpt2, PredictTableWritesTokensAsTheAppDoes) {
  const std::string dir = kE2e + "/gpt2";
  CliResult r = Cli({"model", "--model", dir, "--text", "The cat sat on the mat", "--predict", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* raw : {"\xC4\xA0", "\\u0120", "\xEF\xBF\xBD"}) EXPECT_EQ(r.out.find(raw), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"\xC2\xB7"), std::string::npos) << r.out;  // a token with its leading space
  CliResult j = Cli({"model", "--model", dir, "--text", "The cat sat on the mat", "--predict", "5", "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_NE(j.out.find("\xC4\xA0"), std::string::npos) << j.out;  // the vocabulary's pieces, as before
}

// BERT's masked-LM head on its own WordPiece tokenizer: the top-k at the [MASK] token only, no loss.
TEST(CliAnalysisBert, TopKAtTheMaskToken) {
  const json want = ReadJsonFile(kE2e + "/bert/analysis.json")["mask"];
  const std::string dir = kE2e + "/bert";
  CliResult tok = Cli({"model", "--model", dir, "--text", want["text"], "--tokens"});
  ASSERT_EQ(tok.code, 0) << tok.err;
  ASSERT_EQ(json::parse(tok.out)["ids"], want["ids"]);
  CliResult r = Cli({"model", "--model", dir, "--text", want["text"], "--predict", "5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  EXPECT_TRUE(got["loss"].is_null());
  EXPECT_TRUE(got["perplexity"].is_null());
  ASSERT_EQ(got["positions"].size(), 1u);
  EXPECT_EQ(got["positions"][0]["index"], want["index"]);
  EXPECT_EQ(got["positions"][0]["token"], "[MASK]");
  ExpectTop(got["positions"][0], want, "bert [MASK]");
}

// RoBERTa's and XLM-RoBERTa's masked-LM head (lm_head) on their own tokenizers (byte-level BPE; the
// SentencePiece .model with fairseq ids): the top-k at every <mask> token, as torch's at those positions.
class CliAnalysisRoberta : public ::testing::TestWithParam<std::string> {};

TEST_P(CliAnalysisRoberta, TopKAtEveryMaskToken) {
  const std::string dir = kE2e + "/" + GetParam();
  const json want = ReadJsonFile(dir + "/analysis.json")["predict"]["positions"];
  const json c = ReadJsonFile(dir + "/case.json")[0];
  CliResult r = Cli({"model", "--model", dir, "--text", c["text"], "--predict", "5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json got = json::parse(r.out);
  EXPECT_TRUE(got["loss"].is_null());
  const std::string text = c["text"];
  size_t masks = 0;
  for (size_t at = text.find("<mask>"); at != std::string::npos; at = text.find("<mask>", at + 1)) ++masks;
  ASSERT_GE(masks, 1u);
  ASSERT_EQ(got["positions"].size(), masks);
  for (const json& p : got["positions"]) {
    EXPECT_EQ(p["token"], "<mask>");
    const int index = p["index"].get<int>();
    ExpectTop(p, want[(size_t)index], GetParam() + " <mask> at " + std::to_string(index));
  }
}

INSTANTIATE_TEST_SUITE_P(Families, CliAnalysisRoberta, ::testing::Values("roberta", "xlm_roberta"));

// Exit 2, one line on stderr with every `words` in it, nothing on stdout.
void ExpectRefused(const CliResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliAnalysisRefusals, BadArgumentsNameTheProblemAndTheRange) {
  Fixture f("gpt2");  // 2 layers, 4 heads, 16 tokens
  ExpectRefused(f.Run({"--ablate", "2:0"}), {"layer 2 is out of range: allowed 0..1"});
  ExpectRefused(f.Run({"--ablate", "0:1,1:4"}), {"head 4 of layer 1 is out of range: allowed 0..3"});
  ExpectRefused(f.Run({"--ablate", "0-1"}), {"--ablate: '0-1' is not L:H"});
  ExpectRefused(f.Run({"--ablate", "0:1,"}), {"is not L:H"});
  ExpectRefused(f.Run({"--ablate", "0:1:2"}), {"'0:1:2' is not L:H"});
  ExpectRefused(f.Run({"--ablate", "a:b"}), {"'a:b' is not L:H"});
  ExpectRefused(f.Run({"--predict", "0"}), {"--predict", "1..1000"});
  ExpectRefused(f.Run({"--predict", "101"}), {"top-k 101 is out of range: allowed 1..100"});
  ExpectRefused(f.Run({"--neuron", "0:0:16:0"}), {"--neuron", "query i 16 is out of range: allowed 0..15"});
  ExpectRefused(f.Run({"--neuron", "0:0:1:-1"}), {"--neuron: '0:0:1:-1' is not L:H:I:J"});
  ExpectRefused(f.Run({"--neuron", "0:4:1:0"}), {"head 4 of layer 0 is out of range: allowed 0..3"});
  ExpectRefused(f.Run({"--neuron", "0:1:2"}), {"is not L:H:I:J"});
  ExpectRefused(f.Run({"--rollout"}), {"--rollout writes OUT/rollout.npy: give --dump OUT"});
  ExpectRefused(f.Run({"--value-norm"}), {"--value-norm writes OUT/value_norm.npy"});
  ExpectRefused(f.Run({"--predict", "3", "--neuron", "0:0:1:0"}), {"--predict and --neuron both print to stdout"});
  ExpectRefused(f.Run({"--roles", "--ablate-scan"}), {"--roles and --ablate-scan both print to stdout"});
  // j > i under a causal mask is allowed: the pair is shown, masked, probability 0.
  CliResult r = f.Run({"--neuron", "1:0:2:5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["masked"], true);
  EXPECT_EQ(json::parse(r.out)["prob"], 0.0);
}

TEST(CliAnalysisRefusals, RolloutTooLargeForTheMemoryLimitIsRefused) {
  Fixture f("llama");  // 66 tokens: 3 x 66 x 66 floats of rollout > 40 kB
  CliResult r = Cli({"model", "--model", f.dir(), "--text", f.text(), "--rollout", "--dump", f.Out("big")},
                    "ATTNVIZ_MEMORY_LIMIT=40000 ");
  ExpectRefused(r, {"attention rollout of 66 tokens needs about"});
  EXPECT_FALSE(fs::exists(f.Out("big")));
}

TEST(CliAnalysisRefusals, KoreanMessages) {
  Fixture f("gpt2");
  CliResult r = Cli({"--lang", "ko", "model", "--model", f.dir(), "--text", f.text(), "--ablate", "0-1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(attnviz::cli_test::HasHangul(r.err)) << r.err;
  r = Cli({"--lang", "ko", "model", "--model", f.dir(), "--text", f.text(), "--ablate", "5:0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(attnviz::cli_test::HasHangul(r.err)) << r.err;
}

}  // namespace
