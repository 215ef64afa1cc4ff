// attnviz-cli compute and sweep, run as a user would: files written, exit codes, one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli_runner.h"
#include "io/file_io.h"
#include "io/npy.h"

using namespace attnviz;
namespace fs = std::filesystem;

namespace {

using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;

std::string TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("attnviz_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Expects exit code 2 and a single stderr line containing `needle`.
void ExpectUsageError(const std::vector<std::string>& args, const std::string& needle) {
  CliResult r = Cli(args);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

Tensor Npy(const std::string& path) {
  auto t = ReadNpy(path);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : Tensor{};
}

}  // namespace

TEST(CliCompute, DumpWritesEveryTensorInPyTorchOrder) {
  const std::string dir = TempDir("dump");
  CliResult r = Cli({"compute", "--text", "I go home.", "--d-model", "32", "--heads", "4", "--dk", "12", "--dv", "5",
                     "--mask", "causal", "--dump", dir});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Npy(dir + "/x.npy").shape, (std::vector<size_t>{4, 32}));
  EXPECT_EQ(Npy(dir + "/xq.npy").data, Npy(dir + "/x.npy").data);  // self mode
  EXPECT_EQ(Npy(dir + "/q.npy").shape, (std::vector<size_t>{4, 4, 12}));
  EXPECT_EQ(Npy(dir + "/k.npy").shape, (std::vector<size_t>{4, 4, 12}));
  EXPECT_EQ(Npy(dir + "/v.npy").shape, (std::vector<size_t>{4, 4, 5}));
  EXPECT_EQ(Npy(dir + "/logits.npy").shape, (std::vector<size_t>{4, 4, 4}));
  EXPECT_EQ(Npy(dir + "/z.npy").shape, (std::vector<size_t>{4, 4, 5}));
  EXPECT_EQ(Npy(dir + "/out.npy").shape, (std::vector<size_t>{4, 32}));
  Tensor w = Npy(dir + "/weights.npy");
  ASSERT_EQ(w.shape, (std::vector<size_t>{4, 4, 4}));
  for (size_t h = 0; h < 4; ++h)
    for (size_t i = 0; i < 4; ++i) {
      double sum = 0;
      for (size_t j = 0; j < 4; ++j) {
        if (j > i) EXPECT_EQ(w.data[(h * 4 + i) * 4 + j], 0.0f);
        sum += w.data[(h * 4 + i) * 4 + j];
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
  const std::string tokens = *ReadFile(dir + "/tokens.json");
  EXPECT_NE(tokens.find("\"text\": \"home\""), std::string::npos) << tokens;
  EXPECT_NE(tokens.find("\"key_tokens\""), std::string::npos);
  const std::string metrics = *ReadFile(dir + "/metrics.json");
  EXPECT_NE(metrics.find("\"grad_norm\""), std::string::npos);
  EXPECT_NE(metrics.find("\"d_k\": 12"), std::string::npos);
  EXPECT_EQ(std::count(metrics.begin(), metrics.end(), '{') , std::count(metrics.begin(), metrics.end(), '}'));
  fs::remove_all(dir);
}

TEST(CliCompute, CrossModeAndHangul) {
  const std::string dir = TempDir("cross");
  CliResult r = Cli({"compute", "--text", "I go home.", "--query-text", "나는 사과를 먹었다", "--heads", "2", "--dump", dir});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mode cross"), std::string::npos);
  EXPECT_EQ(Npy(dir + "/xq.npy").shape, (std::vector<size_t>{3, 64}));
  EXPECT_EQ(Npy(dir + "/x.npy").shape, (std::vector<size_t>{4, 64}));
  EXPECT_EQ(Npy(dir + "/weights.npy").shape, (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(Npy(dir + "/out.npy").shape, (std::vector<size_t>{3, 64}));
  EXPECT_NE(ReadFile(dir + "/tokens.json")->find("사과를"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CliCompute, SentenceFileLinesAndCrossItems) {
  const std::string dir = TempDir("file");
  const std::string file = dir + "/s.txt";
  ASSERT_TRUE(WriteFileAtomic(file, "# comment\nI go home.\nIch gehe nach Hause. ||| I go home.\n").ok());
  CliResult r = Cli({"compute", "--text-file", file, "--line", "3", "--dump", dir + "/d"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Npy(dir + "/d/weights.npy").shape, (std::vector<size_t>{4, 5, 4}));  // 5 queries over 4 keys
  ExpectUsageError({"compute", "--text-file", file, "--line", "1"}, file + ":1: no sentence on this line");
  ASSERT_TRUE(WriteFileAtomic(file, "fine\nbad \xC3\x28 utf8\n").ok());
  ExpectUsageError({"compute", "--text-file", file}, file + ":2: invalid UTF-8 at byte offset 9");
  fs::remove_all(dir);
}

TEST(CliCompute, BadInputsGiveOneLineReasonsAndExitCode2) {
  ExpectUsageError({"compute"}, "no text");
  ExpectUsageError({"compute", "--text", "   "}, "whitespace");
  ExpectUsageError({"compute", "--text", "a b", "--heads", "0"}, "--heads: 0 is out of range: allowed 1..64");
  ExpectUsageError({"compute", "--text", "a b", "--dk", "5000"}, "--dk: 5000 is out of range: allowed 1..4096");
  ExpectUsageError({"compute", "--text", "a b", "--dv", "x"}, "--dv: 'x' is not a whole number");
  ExpectUsageError({"compute", "--text", "a b", "--temperature", "0"}, "--temperature: 0 is out of range");
  ExpectUsageError({"compute", "--text", "a b", "--mask", "future"}, "allowed none, causal");
  ExpectUsageError({"compute", "--text", "a b", "--qkv", "packed"}, "allowed fused, separate");
  ExpectUsageError({"compute", "--text", "a b", "--query-text", "c d", "--mask", "causal"}, "self-attention only");
  ExpectUsageError({"compute", "--text", "a b", "--bogus"}, "unknown option '--bogus'");
  ExpectUsageError({"compute", "--text"}, "--text: missing value");
  ExpectUsageError({"compute", "--text", "a", "--weights", "/nonexistent"}, "/nonexistent/wq.npy");
  ExpectUsageError({"compute", "--text", "a", "--dump", "/dev/full/x"}, "/dev/full");
  ExpectUsageError({"frobnicate"}, "unknown command");
  EXPECT_EQ(Cli({"compute", "--help"}).code, 0);
  EXPECT_NE(Cli({"compute", "--help"}).out.find("--dump DIR"), std::string::npos);
}

TEST(CliCompute, LoadsWeightsFromNpy) {
  const std::string dir = TempDir("weights");
  // Dump once to get q for reference, then load hand-made weights: W_q = W_k = 0 gives uniform rows.
  const size_t d_model = 8, n_head = 2, d_k = 3, d_v = 4;
  std::vector<float> zeros(d_model * n_head * d_k, 0.0f), wv(d_model * n_head * d_v, 0.5f),
      wo(n_head * d_v * d_model, 0.25f);
  ASSERT_TRUE(WriteNpy(dir + "/wq.npy", zeros.data(), {d_model, n_head * d_k}).ok());
  ASSERT_TRUE(WriteNpy(dir + "/wk.npy", zeros.data(), {d_model, n_head * d_k}).ok());
  ASSERT_TRUE(WriteNpy(dir + "/wv.npy", wv.data(), {d_model, n_head * d_v}).ok());
  ASSERT_TRUE(WriteNpy(dir + "/wo.npy", wo.data(), {n_head * d_v, d_model}).ok());
  CliResult r = Cli({"compute", "--text", "a b c d e", "--d-model", "8", "--heads", "2", "--dk", "3", "--dv", "4",
                     "--weights", dir, "--dump", dir + "/d"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (float w : Npy(dir + "/d/weights.npy").data) EXPECT_FLOAT_EQ(w, 0.2f);
  ExpectUsageError({"compute", "--text", "a b", "--d-model", "8", "--heads", "2", "--dk", "4", "--dv", "4",
                    "--weights", dir},
                   "wq.npy: shape [8, 6] does not match [d_model, n_head*d_k] = [8, 8]");
  fs::remove_all(dir);
}

TEST(CliSweep, TableShowsUnscaledSaturation) {
  const std::string dir = TempDir("sweep");
  CliResult r = Cli({"sweep", "--random-tokens", "256", "--dks", "4,64,1024", "--seeds", "2", "--out", dir + "/s.csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(dir + "/s.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "d_k,scaled,seeds,max_weight,entropy,norm_entropy,effective_keys,grad_norm,logit_std");
  std::map<std::pair<int, int>, double> max_weight;
  int rows = 0;
  while (std::getline(in, line)) {
    int d_k, scaled, seeds;
    double mw;
    ASSERT_EQ(sscanf(line.c_str(), "%d,%d,%d,%lf", &d_k, &scaled, &seeds, &mw), 4) << line;
    EXPECT_EQ(seeds, 2);
    max_weight[{d_k, scaled}] = mw;
    ++rows;
  }
  EXPECT_EQ(rows, 6);
  auto at = [&](int d_k, int scaled) { return max_weight[std::make_pair(d_k, scaled)]; };
  EXPECT_GT(at(1024, 0), 0.9);
  EXPECT_LT(at(1024, 1), 0.2);
  EXPECT_GT(at(1024, 0), at(4, 0));
  ExpectUsageError({"sweep", "--random-tokens", "8", "--dks", "1,0"}, "--dks: 0 is out of range: allowed 1..4096");
  ExpectUsageError({"sweep", "--random-tokens", "8", "--plot", dir + "/p.gif"}, "allowed .png, .svg, .pdf");
  fs::remove_all(dir);
}

// A quoted "~/..." (the shell leaves it alone) is the user's home folder in every path option.
TEST(CliPaths, TildeInPathOptionsIsHome) {
  const std::string home = TempDir("tilde_home");
  const std::string env = "HOME=" + attnviz::cli_test::Quote(home) + " ";
  ASSERT_TRUE(WriteFileAtomic(home + "/s.txt", "I go home.\n").ok());
  CliResult r = Cli({"compute", "--text-file", "~/s.txt", "--dump", "~/dump"}, env);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(home + "/dump/weights.npy"));
  r = Cli({"export", "--text", "I go home.", "--out", "~/map.png"}, env);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(home + "/map.png"));
  EXPECT_FALSE(fs::exists("~"));  // no folder literally named "~" in the working folder
}
