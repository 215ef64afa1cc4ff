// attnviz-cli model on the bundled model (assets/models/tiny): `--model tiny`, the --roles table as CSV and
// JSON, roles.csv in --dump, and the errors.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "io/file_io.h"
#include "model/roles.h"

namespace {

namespace fs = std::filesystem;
using attnviz::ReadFile;

const std::string kTinyDir = std::string(ATTNVIZ_SOURCE_DIR) + "/assets/models/tiny";
const std::string kHeldout = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models/tiny_heldout.txt";
const char* kText = "The cat sat on the mat. The cat sat on the mat.";
const std::vector<std::string> kColumns = {"layer",      "head",       "previous_token", "induction",      "first_token",
                                           "same_token", "local",      "broad",          "strongest",      "strongest_score"};
const std::set<std::string> kRoleNames = {"previous-token", "induction", "first-token", "same-token", "local", "broad"};

using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;

std::string TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("attnviz_cli_model_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// Checks the table's shape and ranges; returns, per role column, the best score.
std::vector<double> CheckRolesCsv(const std::string& csv, int n_layer, int n_head) {
  auto rows = ParseCsv(csv);
  EXPECT_EQ(rows.size(), (size_t)(1 + n_layer * n_head)) << csv;
  if (rows.empty()) return {};
  EXPECT_EQ(rows[0], kColumns);
  std::vector<double> best(6, 0.0);
  for (size_t r = 1; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].size(), kColumns.size()) << csv;
    if (rows[r].size() != kColumns.size()) continue;
    EXPECT_EQ(rows[r][0], std::to_string((r - 1) / n_head));
    EXPECT_EQ(rows[r][1], std::to_string((r - 1) % n_head));
    double top = 0;
    for (int k = 0; k < 6; ++k) {
      const double v = std::stod(rows[r][2 + k]);
      EXPECT_GE(v, 0.0);
      EXPECT_LE(v, 1.0);
      best[k] = std::max(best[k], v);
      top = std::max(top, v);
    }
    EXPECT_TRUE(kRoleNames.count(rows[r][8])) << rows[r][8];
    // The strongest role is the most specific one (roles.h StrongestRole): its own column's score, a pointed role
    // over broad once it clears kPointedRoleScore, else the top score.
    std::string column = rows[r][8];
    std::replace(column.begin(), column.end(), '-', '_');
    const size_t at = (size_t)(std::find(kColumns.begin(), kColumns.end(), column) - kColumns.begin());
    EXPECT_LT(at, 8u) << column;
    if (at < 8) EXPECT_EQ(rows[r][9], rows[r][at]);
    const double score = std::stod(rows[r][9]);
    EXPECT_TRUE(score == top || score >= attnviz::model::kPointedRoleScore - 1e-4) << score << " vs top " << top;
  }
  return best;
}

int TinyConfig(const char* key) {
  auto text = ReadFile(kTinyDir + "/config.json");
  EXPECT_TRUE(text.ok()) << text.message();
  return nlohmann::json::parse(text.ok() ? *text : "{}").value(key, 0);
}

TEST(CliModel, RolesPrintsTheCsvTableOnly) {
  CliResult r = Cli({"model", "--model", "tiny", "--text", kText, "--roles"});
  ASSERT_EQ(r.code, 0) << r.err;
  CheckRolesCsv(r.out, TinyConfig("n_layer"), TinyConfig("n_head"));
  EXPECT_EQ(r.out.find("tokens;"), std::string::npos) << "no summary with --roles: " << r.out;
}

TEST(CliModel, TinyIsTheBundledFolder) {
  CliResult by_name = Cli({"model", "--model", "tiny", "--text", kText, "--roles"});
  CliResult by_path = Cli({"model", "--model", kTinyDir, "--text", kText, "--roles"});
  ASSERT_EQ(by_name.code, 0) << by_name.err;
  ASSERT_EQ(by_path.code, 0) << by_path.err;
  EXPECT_EQ(by_name.out, by_path.out);
  // The summary names the folder it opened.
  CliResult summary = Cli({"model", "--model", "tiny", "--text", kText});
  ASSERT_EQ(summary.code, 0) << summary.err;
  EXPECT_NE(summary.out.find("assets/models/tiny"), std::string::npos) << summary.out;
  EXPECT_NE(summary.out.find("layer 0:"), std::string::npos) << summary.out;
}

TEST(CliModel, RolesJsonCarriesScoresAndSentences) {
  CliResult r = Cli({"model", "--model", "tiny", "--text", kText, "--roles", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(r.out)) << r.out;
  const int n_layer = TinyConfig("n_layer"), n_head = TinyConfig("n_head");
  EXPECT_EQ(j["n_layer"], n_layer);
  EXPECT_EQ(j["n_head"], n_head);
  EXPECT_GT(j["induction_rows"].get<int>(), 0);  // the sentence repeats
  ASSERT_EQ(j["heads"].size(), (size_t)(n_layer * n_head));
  for (const auto& head : j["heads"]) {
    EXPECT_EQ(head["scores"].size(), kRoleNames.size());
    for (const auto& [name, score] : head["scores"].items()) {
      EXPECT_TRUE(kRoleNames.count(name)) << name;
      EXPECT_GE(score.get<double>(), 0.0);
      EXPECT_LE(score.get<double>(), 1.0);
    }
    EXPECT_TRUE(kRoleNames.count(head["strongest"].get<std::string>()));
  }
  for (const std::string& name : kRoleNames) EXPECT_GT(j["sentences"][name].get<std::string>().size(), 20u) << name;
  // The same numbers as the CSV (4 decimals).
  CliResult csv = Cli({"model", "--model", "tiny", "--text", kText, "--roles"});
  auto rows = ParseCsv(csv.out);
  ASSERT_EQ(rows.size(), j["heads"].size() + 1);
  for (size_t k = 0; k < j["heads"].size(); ++k)
    EXPECT_NEAR(j["heads"][k]["scores"]["induction"].get<double>(), std::stod(rows[k + 1][3]), 1e-9);
}

TEST(CliModel, DumpWritesRolesCsv) {
  const std::string dir = TempDir("dump");
  CliResult r = Cli({"model", "--model", "tiny", "--text", kText, "--roles", "--dump", dir});
  ASSERT_EQ(r.code, 0) << r.err;
  auto roles = ReadFile(dir + "/roles.csv");
  ASSERT_TRUE(roles.ok()) << roles.message();
  EXPECT_EQ(*roles, r.out) << "roles.csv is the --roles table";
  EXPECT_TRUE(fs::exists(dir + "/attention.npy"));
  EXPECT_TRUE(fs::exists(dir + "/tokens.json"));
  EXPECT_NE(r.err.find("dump written"), std::string::npos) << "with --roles the note goes to stderr: " << r.err;
  fs::remove_all(dir);

  // Without --roles: the summary on stdout, roles.csv in the dump all the same.
  CliResult plain = Cli({"model", "--model", "tiny", "--text", kText, "--dump", dir});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_NE(plain.out.find("dump written"), std::string::npos);
  auto again = ReadFile(dir + "/roles.csv");
  ASSERT_TRUE(again.ok()) << again.message();
  EXPECT_EQ(*again, *roles);
  fs::remove_all(dir);
}

TEST(CliModel, BundledModelShowsItsHeadsOnTheHeldOutText) {
  CliResult r = Cli({"model", "--model", "tiny", "--text-file", kHeldout, "--roles"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<double> best = CheckRolesCsv(r.out, TinyConfig("n_layer"), TinyConfig("n_head"));
  ASSERT_EQ(best.size(), 6u);
  EXPECT_GE(best[0], 0.6) << "previous-token\n" << r.out;
  EXPECT_GE(best[1], 0.5) << "induction\n" << r.out;
}

TEST(CliModel, Errors) {
  auto expect_usage = [](const std::vector<std::string>& args, const std::string& needle) {
    CliResult r = Cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  };
  expect_usage({"model", "--model", "tiny", "--text", kText, "--json"}, "--json goes with --roles");
  expect_usage({"model", "--text", kText, "--roles"}, "--model tiny");
  expect_usage({"model", "--model", "/nonexistent/tiny_model", "--text", kText, "--roles"}, "/nonexistent/tiny_model");
  CliResult help = Cli({"model", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--roles"), std::string::npos);
  EXPECT_NE(help.out.find("tiny"), std::string::npos);
}

}  // namespace

// Issue 25: a text longer than the model's positions can hold is refused by its bytes before it is tokenized
// (the bundled model: 256 positions, at most 64 bytes a token), and control characters are refused as in compute.
TEST(CliModel, TextTooLongInBytesIsRefusedBeforeTokenizing) {
  CliResult r = Cli({"model", "--model", "tiny", "--text", std::string(40000, 'z')});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the text has 40000 bytes, more than a model of 256 positions can take"), std::string::npos)
      << r.err;
}

TEST(CliModel, ControlCharactersAreRefusedAsInCompute) {
  CliResult r = Cli({"model", "--model", "tiny", "--text", "I\x07go"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("control character U+0007 at byte offset 1"), std::string::npos) << r.err;
}

TEST(CliModel, FifoOutputsAreRefusedNotWaitedOn) {
  const std::string dir = TempDir("fifo");
  fs::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir + "/h.svg").c_str(), 0600), 0);
  CliResult r = Cli({"model", "--model", "tiny", "--text", kText, "--figure", dir + "/h.svg", "--layer", "0",
                     "--head", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("h.svg: is not a regular file"), std::string::npos) << r.err;
  fs::remove_all(dir);
}
