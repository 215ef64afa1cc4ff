// attnviz-cli model on encoder-decoder folders end to end: the real binary on every case of tests/fixtures/seq2seq
// (bart, marian with shared and with separate embeddings, t5 v1.0 and v1.1), from the texts through the folders'
// own tokenizers, against the float64 references of make_seq2seq_fixtures.py: the ids (--tokens), the five dumps,
// the loss of the labels and of an ablated head per stack, greedy generation, a figure of each stack; then the
// refusals, each one line naming the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "io/file_io.h"
#include "io/npy.h"

namespace {

namespace fs = std::filesystem;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using nlohmann::json;

const std::string kCases = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/seq2seq";

json ReadJson(const std::string& path) {
  auto text = attnviz::ReadFile(path);
  EXPECT_TRUE(text) << path;
  return text ? json::parse(*text) : json();
}

class Seq2SeqCli : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = kCases + "/" + GetParam();
    tokens_ = ReadJson(dir_ + "/reference/tokens.json");
    out_ = (fs::temp_directory_path() / ("attnviz-s2s-" + GetParam() + "-" + std::to_string(::getpid()))).string();
    fs::remove_all(out_);
    fs::create_directories(out_);
  }
  void TearDown() override { fs::remove_all(out_); }
  CliResult Run(std::vector<std::string> extra, bool with_target = true) const {
    std::vector<std::string> args = {"model", "--model", dir_, "--text", tokens_["source_text"].get<std::string>()};
    if (with_target) {
      args.push_back("--target-text");
      args.push_back(tokens_["target_text"].get<std::string>());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return Cli(args);
  }
  std::string dir_, out_;
  json tokens_;
};

TEST_P(Seq2SeqCli, TokensAreTheReferenceTokenizersIdsWithTheDecoderStartFirst) {
  const CliResult r = Run({"--tokens"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json t = json::parse(r.out);
  EXPECT_EQ(t["source"]["ids"], tokens_["source_ids"]);
  EXPECT_EQ(t["target"]["ids"], tokens_["decoder_input_ids"]);
  EXPECT_EQ(t["source"]["ids"].size(), t["source"]["tokens"].size());
  EXPECT_EQ(t["target"]["ids"].size(), t["target"]["tokens"].size());
}

TEST_P(Seq2SeqCli, TheDumpHoldsTheThreeStacksOfMapsAndBothStreamsAsTheReference) {
  const CliResult r = Run({"--dump", out_ + "/d"});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t n_src = tokens_["source_ids"].size(), n_tgt = tokens_["decoder_input_ids"].size();
  for (const char* name : {"encoder_attention", "decoder_attention", "cross_attention", "encoder_hidden",
                           "decoder_hidden"}) {
    auto ours = attnviz::ReadNpy(out_ + "/d/" + name + ".npy");
    auto ref = attnviz::ReadNpy(dir_ + "/reference/" + name + ".npy");
    ASSERT_TRUE(ours && ref) << name;
    ASSERT_EQ(ours->shape, ref->shape) << name;
    const bool maps = std::string(name).find("attention") != std::string::npos;
    double worst = 0, scale = 1;
    for (size_t i = 0; i < ref->data.size(); ++i) {
      worst = std::max(worst, (double)std::fabs(ours->data[i] - ref->data[i]));
      scale = std::max(scale, (double)std::fabs(ref->data[i]));
    }
    EXPECT_LT(worst, maps ? 2e-5 : 1e-5 * scale) << name;
  }
  // Rows: target tokens; columns: source tokens.
  auto cross = attnviz::ReadNpy(out_ + "/d/cross_attention.npy");
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->dim(2), n_tgt);
  EXPECT_EQ(cross->dim(3), n_src);
  const json dumped = ReadJson(out_ + "/d/tokens.json");
  EXPECT_EQ(dumped["target"]["ids"], tokens_["decoder_input_ids"]);
}

TEST_P(Seq2SeqCli, TheTokenLossIsTheReferencesAndAnAblatedHeadOfEachStackChangesItAsThere) {
  const json loss = ReadJson(dir_ + "/reference/loss.json");
  const CliResult r = Run({"--token-loss", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json ours = json::parse(r.out);
  ASSERT_EQ(ours["positions"].size(), loss["token_loss"].size());
  for (size_t i = 0; i < loss["token_loss"].size(); ++i) {
    EXPECT_NEAR(ours["positions"][i]["loss"].get<double>(), loss["token_loss"][i].get<double>(), 1e-4) << i;
    EXPECT_EQ(ours["positions"][i]["next_id"], tokens_["labels"][i]) << i;
  }
  EXPECT_NEAR(ours["loss"].get<double>(), loss["mean_loss"].get<double>(), 1e-4);
  for (const json& a : loss["ablations"]) {
    const std::string spec = a["stack"].get<std::string>() + ":" + std::to_string(a["layer"].get<int>()) + ":" +
                             std::to_string(a["head"].get<int>());
    const CliResult ab = Run({"--token-loss", "--json", "--ablate", spec});
    ASSERT_EQ(ab.code, 0) << ab.err;
    const json ablated = json::parse(ab.out);
    EXPECT_NEAR(ablated["loss"].get<double>(), a["mean_loss"].get<double>(), 1e-4) << spec;
    double changed = 0;
    for (size_t i = 0; i < a["token_loss"].size(); ++i) {
      const double l = ablated["positions"][i]["loss"].get<double>();
      EXPECT_NEAR(l, a["token_loss"][i].get<double>(), 1e-4) << spec << " at " << i;
      changed = std::max(changed, std::fabs(l - loss["token_loss"][i].get<double>()));
    }
    EXPECT_GT(changed, 1e-3) << spec << ": the ablation changed no position's loss";
  }
}

TEST_P(Seq2SeqCli, PredictionsRankTheLabelAsItsLossSays) {
  const CliResult r = Run({"--predict", "3", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = json::parse(r.out);
  ASSERT_EQ(p["positions"].size(), tokens_["decoder_input_ids"].size());
  for (const json& pos : p["positions"]) {
    ASSERT_EQ(pos["top"].size(), 3u);
    EXPECT_GE(pos["top"][0]["prob"].get<double>(), pos["top"][1]["prob"].get<double>());
  }
  EXPECT_NEAR(p["loss"].get<double>(), ReadJson(dir_ + "/reference/loss.json")["mean_loss"].get<double>(), 1e-4);
}

TEST_P(Seq2SeqCli, GreedyGenerationGivesTheReferencesIds) {
  const json gen = ReadJson(dir_ + "/reference/generate.json");
  const CliResult r = Run({"--generate", std::to_string(gen["max_new_tokens"].get<int>()), "--json"}, false);
  ASSERT_EQ(r.code, 0) << r.err;
  const json ours = json::parse(r.out);
  EXPECT_EQ(ours["ids"], gen["ids"]);
  EXPECT_TRUE(ours["text"].is_string());
  // The maps of the generated target: the decoder reads the start token, then every new token but the last.
  const CliResult t = Run({"--generate", std::to_string(gen["max_new_tokens"].get<int>()), "--tokens"}, false);
  ASSERT_EQ(t.code, 0) << t.err;
  const json ids = json::parse(t.out)["target"]["ids"];
  ASSERT_EQ(ids.size(), gen["ids"].size());
  EXPECT_EQ(ids[0], tokens_["decoder_input_ids"][0]);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(ids[i], gen["ids"][i - 1]);
}

TEST_P(Seq2SeqCli, AFigureOfEachStackNamesTheStackInItsTitle) {
  for (const char* stack : {"encoder", "decoder", "cross"}) {
    const std::string path = out_ + "/" + stack + ".svg";
    const CliResult r = Run({"--figure", path, "--stack", stack, "--layer", "1", "--head", "1"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto svg = attnviz::ReadFile(path);
    ASSERT_TRUE(svg);
    const std::string words = std::string(stack) == "encoder" ? "encoder self-attention"
                              : std::string(stack) == "decoder" ? "decoder self-attention (causal)" : "cross-attention";
    EXPECT_NE(svg->find(words + " \u00B7 layer 1 \u00B7 head 1"), std::string::npos) << stack;
    EXPECT_EQ(svg->find("source token") != std::string::npos, std::string(stack) != "decoder") << stack;
  }
}

// A long source on a page's column: the map pooled (maps/pooled_map.h), the title naming how, each axis in blocks.
TEST_P(Seq2SeqCli, APooledCrossFigureNamesItsPoolingAndLabelsBlocksOnBothAxes) {
  const std::string path = out_ + "/cross_pooled.svg";
  const CliResult r = Run({"--figure", path, "--stack", "cross", "--layer", "1", "--head", "1", "--pool", "2",
                           "--pool-mode", "mean"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto svg = attnviz::ReadFile(path);
  ASSERT_TRUE(svg);
  EXPECT_NE(svg->find("cross-attention \u00B7 layer 1 \u00B7 head 1 \u00B7 mean-pooled 2x2"), std::string::npos);
  // Blocks of two tokens on each side: the source's and the target's first block, and each side's last.
  const size_t n_src = tokens_["source_ids"].size(), n_tgt = tokens_["decoder_input_ids"].size();
  auto last_block = [](size_t n) {
    const size_t first = (n - 1) / 2 * 2;
    return first + 1 < n ? std::to_string(first) + "-" + std::to_string(first + 1) : std::to_string(first);
  };
  EXPECT_NE(svg->find(">0-1<"), std::string::npos);
  EXPECT_NE(svg->find(">" + last_block(n_src) + "<"), std::string::npos) << n_src;
  EXPECT_NE(svg->find(">" + last_block(n_tgt) + "<"), std::string::npos) << n_tgt;
  // A factor past the longer side is refused before the run, naming it.
  const CliResult past = Run({"--figure", path, "--stack", "cross", "--layer", "0", "--head", "0", "--pool",
                              std::to_string(std::max(n_src, n_tgt) + 1)});
  EXPECT_EQ(past.code, 2);
  EXPECT_NE(past.err.find("more than the text's " + std::to_string(std::max(n_src, n_tgt)) + " tokens"),
            std::string::npos) << past.err;
}

// The largest |ours - reference| over a .npy pair, relative to max(1, the reference's largest magnitude).
double WorstRelative(const std::string& ours_path, const std::string& ref_path) {
  auto ours = attnviz::ReadNpy(ours_path);
  auto ref = attnviz::ReadNpy(ref_path);
  EXPECT_TRUE(ours && ref) << ours_path;
  if (!ours || !ref) return INFINITY;
  EXPECT_EQ(ours->shape, ref->shape) << ours_path;
  if (ours->shape != ref->shape) return INFINITY;
  double worst = 0, scale = 1;
  for (size_t i = 0; i < ref->data.size(); ++i) {
    worst = std::max(worst, (double)std::fabs(ours->data[i] - ref->data[i]));
    scale = std::max(scale, (double)std::fabs(ref->data[i]));
  }
  return worst / scale;
}

TEST_P(Seq2SeqCli, RolloutAndValueNormDumpsAreTheReferencesPerStack) {
  const CliResult r = Run({"--dump", out_ + "/d", "--rollout", "--value-norm"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"encoder_rollout", "decoder_rollout", "encoder_value_norm", "decoder_value_norm",
                           "cross_value_norm"})
    EXPECT_LT(WorstRelative(out_ + "/d/" + name + ".npy", dir_ + "/reference/" + name + ".npy"), 5e-5) << name;
  EXPECT_FALSE(fs::exists(out_ + "/d/cross_rollout.npy")) << "cross-attention has no rollout";
  // Rows of a rollout sum to 1.
  auto ro = attnviz::ReadNpy(out_ + "/d/decoder_rollout.npy");
  ASSERT_TRUE(ro);
  const size_t n = ro->dim(2);
  for (size_t row = 0; row < ro->dim(0) * n; ++row) {
    double sum = 0;
    for (size_t j = 0; j < n; ++j) sum += ro->data[row * n + j];
    EXPECT_NEAR(sum, 1.0, 1e-5) << row;
  }
}

TEST_P(Seq2SeqCli, NeuronViewsAreTheReferencesPerStack) {
  const json views = ReadJson(dir_ + "/reference/neuron.json");
  for (const json& w : views) {
    const std::string spec = std::to_string(w["layer"].get<int>()) + ":" + std::to_string(w["head"].get<int>()) + ":" +
                             std::to_string(w["i"].get<int>()) + ":" + std::to_string(w["j"].get<int>());
    const std::string stack = w["stack"];
    const CliResult r = Run({"--neuron", spec, "--stack", stack, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json v = json::parse(r.out);
    EXPECT_EQ(v["stack"], stack);
    EXPECT_EQ(v["masked"], w["masked"]) << stack << " " << spec;
    ASSERT_EQ(v["q"].size(), w["q"].size());
    for (size_t t = 0; t < w["q"].size(); ++t) {
      EXPECT_NEAR(v["q"][t].get<double>(), w["q"][t].get<double>(), 1e-4) << stack << " " << spec << " q " << t;
      EXPECT_NEAR(v["k"][t].get<double>(), w["k"][t].get<double>(), 1e-4) << stack << " " << spec << " k " << t;
    }
    const double logit = w["logit"];
    EXPECT_NEAR(v["logit"].get<double>(), logit, 1e-4 * std::max(1.0, std::fabs(logit))) << stack << " " << spec;
    EXPECT_NEAR(v["prob"].get<double>(), w["prob"].get<double>(), 2e-5) << stack << " " << spec;
    EXPECT_EQ(v["position_bias"].is_null(), w["position_bias"].is_null()) << stack << " " << spec;
    if (w["masked"].get<bool>()) EXPECT_EQ(v["prob"].get<double>(), 0.0);
  }
  // The table names the stack and, for t5's self-attention, the bias step.
  const json& enc = views[0];
  const CliResult t = Run({"--neuron", "0:0:1:2", "--stack", enc["stack"].get<std::string>()});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(t.out.rfind("encoder layer 0 head 0: query 1", 0), 0u) << t.out;
  EXPECT_EQ(t.out.find("+ position bias") != std::string::npos, !enc["position_bias"].is_null()) << t.out;
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqCli, ::testing::Values("bart", "marian", "marian_separate", "t5", "t5_v11"));

class Seq2SeqScanCli : public Seq2SeqCli {};

TEST_P(Seq2SeqScanCli, EveryHeadsLossIsTheReferencesAsCsvAndAtPositionsAsJson) {
  const json want = ReadJson(dir_ + "/reference/scan.json");
  const json& heads = want["heads"];
  const CliResult csv = Run({"--ablate-scan"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = csv.out.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(csv.out.substr(start, end - start));
  ASSERT_EQ(lines.size(), heads.size() + 1);
  EXPECT_EQ(lines[0], "stack,layer,head,loss,delta");
  for (size_t i = 0; i < heads.size(); ++i) {
    const std::string prefix = heads[i]["stack"].get<std::string>() + "," + std::to_string(heads[i]["layer"].get<int>()) +
                               "," + std::to_string(heads[i]["head"].get<int>()) + ",";
    ASSERT_EQ(lines[i + 1].rfind(prefix, 0), 0u) << lines[i + 1];
    const std::string rest = lines[i + 1].substr(prefix.size());
    EXPECT_NEAR(std::stod(rest.substr(0, rest.find(','))), heads[i]["loss"].get<double>(), 1e-4) << prefix;
    EXPECT_NEAR(std::stod(rest.substr(rest.find(',') + 1)),
                heads[i]["loss"].get<double>() - want["base_loss"].get<double>(), 1e-4) << prefix;
  }
  std::string at;
  for (const json& p : want["loss_at"]) at += (at.empty() ? "" : ",") + std::to_string(p.get<int>());
  const CliResult js = Run({"--ablate-scan", "--scan-at", at, "--json"});
  ASSERT_EQ(js.code, 0) << js.err;
  const json ours = json::parse(js.out);
  EXPECT_EQ(ours["loss_at"], want["loss_at"]);
  EXPECT_NEAR(ours["base_loss"].get<double>(), want["base_loss_at"].get<double>(), 1e-4);
  ASSERT_EQ(ours["heads"].size(), heads.size());
  for (size_t i = 0; i < heads.size(); ++i) {
    EXPECT_EQ(ours["heads"][i]["stack"], heads[i]["stack"]);
    EXPECT_NEAR(ours["heads"][i]["loss"].get<double>(), heads[i]["loss_at"].get<double>(), 1e-4) << i;
  }
  // Mean ablation: the same base, other losses (a head's mean over the positions is not zero).
  const CliResult mean = Run({"--ablate-scan", "--ablate-mode", "mean", "--json"});
  ASSERT_EQ(mean.code, 0) << mean.err;
  const json m = json::parse(mean.out);
  EXPECT_NEAR(m["base_loss"].get<double>(), want["base_loss"].get<double>(), 1e-4);
  ASSERT_EQ(m["heads"].size(), heads.size());
  double moved = 0;
  for (size_t i = 0; i < heads.size(); ++i)
    moved = std::max(moved, std::fabs(m["heads"][i]["loss"].get<double>() - heads[i]["loss"].get<double>()));
  EXPECT_GT(moved, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqScanCli, ::testing::Values("bart", "t5"));

// The decoder's logit lens: each layer's top token and the label's probability as the reference's LM head on that
// layer's stream gives them (reference/lens_logits.npy); the last layer is the model's own prediction.
class Seq2SeqLensCli : public Seq2SeqCli {};

TEST_P(Seq2SeqLensCli, EveryLayersTopAndLabelProbabilityAreTheReferences) {
  auto want = attnviz::ReadNpy(dir_ + "/reference/lens_logits.npy");  // [n_dec_layer + 1, n_tgt, vocab]
  ASSERT_TRUE(want) << want.message();
  const CliResult r = Run({"--logit-lens", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json lens = json::parse(r.out);
  const size_t layers = want->dim(0), n_tgt = want->dim(1), vocab = want->dim(2);
  ASSERT_EQ(lens["layers"].size(), layers);
  const std::vector<int> labels = tokens_["labels"].get<std::vector<int>>();
  for (size_t l = 0; l < layers; ++l) {
    EXPECT_EQ(lens["layers"][l]["layer"].get<size_t>(), l);
    ASSERT_EQ(lens["layers"][l]["positions"].size(), n_tgt);
    for (size_t i = 0; i < n_tgt; ++i) {
      const float* row = want->data.data() + (l * n_tgt + i) * vocab;
      double mx = row[0], sum = 0;
      for (size_t j = 0; j < vocab; ++j) mx = std::max(mx, (double)row[j]);
      for (size_t j = 0; j < vocab; ++j) sum += std::exp(row[j] - mx);
      const json& p = lens["layers"][l]["positions"][i];
      const int top = p["top"][0]["id"];
      EXPECT_NEAR(p["top"][0]["prob"].get<double>(), std::exp(row[top] - mx) / sum, 2e-5) << l << " " << i;
      EXPECT_GE(row[top], mx - 1e-4) << l << " " << i;
      EXPECT_NEAR(p["next_prob"].get<double>(), std::exp(row[labels[i]] - mx) / sum, 2e-5) << l << " " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqLensCli, ::testing::Values("bart", "t5", "t5_v11"));

// Direct logit attribution at a decoder position: the reference's components (reference/attribution.json), the
// heads naming their stack, adding up to the logit.
class Seq2SeqAttributionCli : public Seq2SeqCli {};

TEST_P(Seq2SeqAttributionCli, ComponentsAreTheReferencesAndAddUpToTheLogit) {
  const json want = ReadJson(dir_ + "/reference/attribution.json");
  const std::string spec = std::to_string(want["position"].get<int>()) + ":" + std::to_string(want["target"].get<int>());
  const CliResult r = Run({"--attribute", spec, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json a = json::parse(r.out);
  EXPECT_EQ(a["target"]["id"], want["target"]);
  const double logit = want["logit"];
  EXPECT_NEAR(a["logit"].get<double>(), logit, 1e-4 * std::max(1.0, std::fabs(logit)));
  ASSERT_EQ(a["components"].size(), want["components"].size());
  double sum = 0;
  for (size_t i = 0; i < want["components"].size(); ++i) {
    const json &got = a["components"][i], &w = want["components"][i];
    EXPECT_EQ(got["kind"], w["kind"]) << i;
    EXPECT_EQ(got["layer"], w["layer"]) << i;
    EXPECT_EQ(got["head"], w["head"]) << i;
    EXPECT_EQ(got.contains("stack"), w.contains("stack")) << i;
    if (w.contains("stack")) {
      EXPECT_EQ(got["stack"], w["stack"]) << i;
    }
    EXPECT_NEAR(got["value"].get<double>(), w["value"].get<double>(), 1e-4 * std::max(1.0, std::fabs(logit))) << i;
    sum += got["value"].get<double>();
  }
  EXPECT_NEAR(sum, a["logit"].get<double>(), 1e-3 * std::max(1.0, std::fabs(logit)));
  // Without a token: the label at the position.
  const CliResult d = Run({"--attribute", std::to_string(want["position"].get<int>()), "--json"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_EQ(json::parse(d.out)["target"]["id"], tokens_["labels"][want["position"].get<size_t>()]);
}

INSTANTIATE_TEST_SUITE_P(Cases, Seq2SeqAttributionCli, ::testing::Values("t5", "t5_v11"));

// Activation patching from the command line: the clean source swaps two words of the corrupted one (as many
// tokens). The decoder's last stream at the last position is the clean metric (1); what never sees the source
// (the decoder's embeddings, its first self-attention) is 0; every grid has its stack's shape.
TEST(Seq2SeqPatchingCli, GridsHaveTheStacksShapesAndTheFixedPoints) {
  const std::string dir = kCases + "/t5_v11";
  const CliResult r = Cli({"model", "--model", dir, "--text",
                           "summarize: The train leaves the station at noon, and the meeting starts at nine.",
                           "--target-text", "The meeting starts at noon.", "--patch-from",
                           "summarize: The train leaves the station at nine, and the meeting starts at noon.",
                           "--metric", "7,5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json p = json::parse(r.out);
  EXPECT_NE(p["clean"].get<double>(), p["corrupted"].get<double>());
  const json cfg = ReadJson(dir + "/config.json");
  const size_t n_enc = cfg["num_layers"], n_dec = cfg["num_decoder_layers"], heads = cfg["num_heads"];
  ASSERT_EQ(p["encoder_heads"].size(), n_enc);
  ASSERT_EQ(p["decoder_heads"].size(), n_dec);
  ASSERT_EQ(p["cross_heads"].size(), n_dec);
  EXPECT_EQ(p["cross_heads"][0].size(), heads);
  ASSERT_EQ(p["encoder_residual"].size(), n_enc + 1);
  ASSERT_EQ(p["decoder_residual"].size(), n_dec + 1);
  const json& last = p["decoder_residual"][n_dec];
  EXPECT_DOUBLE_EQ(last[last.size() - 1].get<double>(), 1.0);
  for (const json& v : p["decoder_residual"][0]) EXPECT_EQ(v.get<double>(), 0.0);
  for (const json& v : p["decoder_heads"][0]) EXPECT_EQ(v.get<double>(), 0.0);
}

CliResult RunMarian(std::vector<std::string> extra) {
  std::vector<std::string> args = {"model", "--model", kCases + "/marian", "--text", "June 7"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Cli(args);
}

void ExpectRefusal(const CliResult& r, const std::string& says) {
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Seq2SeqCliRefusals, EachNamesTheProblem) {
  ExpectRefusal(RunMarian({}), "--target-text TEXT, or make it with --generate N");
  ExpectRefusal(RunMarian({"--target-text", "x", "--generate", "3"}), "--target-text and --generate exclude each other");
  ExpectRefusal(RunMarian({"--generate", "3", "--ablate", "middle:0:1"}), "'middle:0:1' is not S:L:H");
  ExpectRefusal(RunMarian({"--generate", "3", "--ablate", "cross:7:0"}), "--ablate layer");
  ExpectRefusal(RunMarian({"--generate", "3", "--figure", "/tmp/x.png", "--layer", "0", "--head", "0"}),
                "--stack encoder|decoder|cross");
  ExpectRefusal(RunMarian({"--generate", "3", "--figure", "/tmp/x.png", "--stack", "cross", "--layer", "0", "--head", "9"}),
                "--head");
  ExpectRefusal(RunMarian({"--generate", "3", "--roles"}), "--roles is not built for encoder-decoder");
  // Issue 41's views: attribution needs a pre-norm model; patching needs --metric, equal source lengths, no what-if.
  ExpectRefusal(RunMarian({"--generate", "3", "--attribute", "0"}), "post-norm");
  ExpectRefusal(RunMarian({"--generate", "3", "--attribute", "x"}), "--attribute");
  ExpectRefusal(RunMarian({"--generate", "3", "--patch-from", "June 8"}), "--metric");
  ExpectRefusal(RunMarian({"--generate", "3", "--patch-from", "the 8th of June", "--metric", "0,1"}),
                "as many tokens");
  ExpectRefusal(RunMarian({"--generate", "3", "--patch-from", "June 7", "--metric", "0,1"}), "same metric");
  ExpectRefusal(RunMarian({"--generate", "3", "--patch-from", "June 8", "--metric", "0,1", "--ablate", "cross:0:0"}),
                "--patch-from");
  ExpectRefusal(RunMarian({"--generate", "3", "--logit-lens", "2", "--attribute", "0"}), "--logit-lens");
  ExpectRefusal(RunMarian({"--generate", "3", "--logit-lens", "0"}), "--logit-lens");
  ExpectRefusal(RunMarian({"--generate", "3", "--stack", "sideways"}), "sideways");
  ExpectRefusal(RunMarian({"--generate", "3", "--neuron", "0:0:0:0"}), "--neuron of an encoder-decoder model needs --stack");
  ExpectRefusal(RunMarian({"--generate", "3", "--neuron", "0:0:0:99", "--stack", "cross"}),
                "--neuron: cross key j 99 is out of range: allowed 0..");
  ExpectRefusal(RunMarian({"--generate", "3", "--neuron", "5:0:0:0", "--stack", "decoder"}),
                "--neuron: decoder layer 5 is out of range");
  ExpectRefusal(RunMarian({"--generate", "3", "--rollout"}), "--rollout writes OUT/encoder_rollout.npy: give --dump OUT");
  ExpectRefusal(RunMarian({"--generate", "3", "--scan-at", "1"}), "--scan-at");
  ExpectRefusal(RunMarian({"--generate", "3", "--ablate-scan", "--scan-at", "99"}), "--scan-at");
  ExpectRefusal(RunMarian({"--generate", "3", "--ablate-scan", "--neuron", "0:0:0:0", "--stack", "cross"}),
                "--neuron and --ablate-scan both print to stdout");
  ExpectRefusal(RunMarian({"--generate", "3", "--stack", "cross"}), "--stack goes with --figure");
  ExpectRefusal(RunMarian({"--generate", "3", "--figure", "/tmp/x.png", "--stack", "cross", "--layer", "0", "--head",
                           "0", "--pool-mode", "mean"}), "--pool-mode goes with --pool");
  // The encoder-decoder options on a decoder-only model.
  ExpectRefusal(Cli({"model", "--model", "tiny", "--text", "a b", "--target-text", "c"}),
                "--target-text is for encoder-decoder models");
}

}  // namespace
