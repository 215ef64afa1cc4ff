// attnviz-cli with seed (f)'s options: --query-from, --key-from, --value-from, --score in compute, export and sweep.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "cli_runner.h"
#include "io/file_io.h"
#include "io/npy.h"

using namespace attnviz;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
namespace fs = std::filesystem;

namespace {
std::string TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("attnviz_seed_f_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}
}  // namespace

TEST(CliSeedF, ComputeUsesTheSourcesAndScoreAndRecordsThem) {
  const std::string dir = TempDir("compute");
  // q = k = word length, score -|q - k|: "a" (1) and "bb" (2) give row 0 = softmax(0, -1) in every head.
  CliResult r = Cli({"compute", "--text", "a bb", "--heads", "2", "--query-from", "length", "--key-from", "length",
                     "--value-from", "onehot", "--score", "neg-distance", "--dump", dir + "/d"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("q from length"), std::string::npos) << r.out;
  auto probs = ReadNpy(dir + "/d/probs.npy");
  ASSERT_TRUE(probs.ok()) << probs.message();
  const float expected = 1.0f / (1.0f + std::exp(-1.0f));
  EXPECT_NEAR(probs->data[0], expected, 1e-6f);
  EXPECT_NEAR(probs->data[2 * 2 + 0], expected, 1e-6f);  // head 1, row 0
  auto v = ReadNpy(dir + "/d/v.npy");
  EXPECT_EQ(v->shape, (std::vector<size_t>{2, 2, 2}));  // one-hot values: d_v = n_vocab = 2
  auto metrics = ReadFile(dir + "/d/metrics.json");
  ASSERT_TRUE(metrics.ok());
  for (const char* field : {"\"query_from\": \"length\"", "\"key_from\": \"length\"", "\"value_from\": \"onehot\"",
                            "\"score\": \"neg-distance\""})
    EXPECT_NE(metrics->find(field), std::string::npos) << field;
  fs::remove_all(dir);
}

TEST(CliSeedF, WidthMismatchAndBadValuesAreRefusedWithTheReason) {
  CliResult r = Cli({"compute", "--text", "the cat sat", "--query-from", "length", "--key-from", "onehot"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("a score needs d_q = d_k: the query from length has width 1, the key from onehot has width 3 "
                       "(n_vocab)"),
            std::string::npos)
      << r.err;
  r = Cli({"compute", "--text", "a b", "--score", "manhattan"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--score: score 'manhattan' is unknown: allowed scaled-dot, dot, additive, cosine, neg-distance"),
            std::string::npos)
      << r.err;
  r = Cli({"compute", "--text", "a b", "--value-from", "colour"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("allowed embedding, length, position, onehot"), std::string::npos) << r.err;
  r = Cli({"compute", "--help"});
  for (const char* option : {"--query-from", "--key-from", "--value-from", "--score"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
}

TEST(CliSeedF, ExportTitlesAndSweepCarryTheOptions) {
  const std::string dir = TempDir("export");
  CliResult r = Cli({"export", "--text", "the cat sat", "--score", "cosine", "--query-from", "position", "--key-from",
                     "position", "--out", dir + "/map.svg"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto svg = ReadFile(dir + "/map.svg");
  ASSERT_TRUE(svg.ok());
  EXPECT_NE(svg->find("q from position \u00B7 k from position \u00B7 score q\u00B7k / (|q| |k|)"), std::string::npos);
  // The default config's title names no source or score.
  r = Cli({"export", "--text", "the cat sat", "--out", dir + "/plain.svg"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(dir + "/plain.svg")->find("score "), std::string::npos);
  // The sweep refuses the first d_k that makes a length query (width 1) meet projected keys of another width.
  r = Cli({"sweep", "--text", "the cat sat", "--query-from", "length", "--dk", "1", "--dks", "1,2", "--seeds", "1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("d_k=2: a score needs d_q = d_k"), std::string::npos) << r.err;
  r = Cli({"sweep", "--text", "the cat sat", "--score", "cosine", "--dks", "1,4", "--seeds", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  fs::remove_all(dir);
}
