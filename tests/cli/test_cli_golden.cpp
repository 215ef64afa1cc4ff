// The CLI's dumps for the sample sentences are pinned: tests/cli/golden/ holds what the binary wrote
// before the house was reshaped (issue 7). Every refactor must leave them unchanged. Numbers are
// compared within 1e-5 (a different CPU may round the last bit differently); names, shapes, texts
// and the JSON structure must match exactly.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "cli_runner.h"
#include "io/file_io.h"
#include "io/npy.h"

using namespace attnviz;
namespace fs = std::filesystem;

namespace {

struct GoldenCase {
  const char* name;  // folder under tests/cli/golden/
  std::vector<std::string> args;
};

// The commands that made the golden folders (run from the source tree with the pre-refactor binary).
const std::vector<GoldenCase>& Cases() {
  static const std::vector<GoldenCase> cases = {
      {"line6", {"--line", "6"}},
      {"line7", {"--line", "7"}},
      {"line8", {"--line", "8"}},
      {"line9", {"--line", "9"}},
      {"line10", {"--line", "10"}},
      {"line11", {"--line", "11"}},
      {"line12", {"--line", "12"}},
      {"line8_causal_h8", {"--line", "8", "--mask", "causal", "--heads", "8", "--dk", "16"}},
      {"line7_separate_unscaled",
       {"--line", "7", "--qkv", "separate", "--no-scale", "--dv", "24", "--temperature", "0.5", "--seed", "7"}},
  };
  return cases;
}

// Walks both texts; where both hold a number, the numbers must agree within tol; elsewhere the
// characters must be equal.
::testing::AssertionResult SameJsonUpToRounding(const std::string& a, const std::string& b, double tol) {
  size_t i = 0, j = 0;
  auto number_start = [](const std::string& s, size_t p) {
    return p < s.size() && (std::isdigit((unsigned char)s[p]) || (s[p] == '-' && p + 1 < s.size() && std::isdigit((unsigned char)s[p + 1])));
  };
  while (i < a.size() && j < b.size()) {
    if (number_start(a, i) && number_start(b, j) && (i == 0 || !std::isalpha((unsigned char)a[i - 1]))) {
      char *ea = nullptr, *eb = nullptr;
      double x = std::strtod(a.c_str() + i, &ea), y = std::strtod(b.c_str() + j, &eb);
      if (std::fabs(x - y) > tol * std::max(1.0, std::fabs(y)))
        return ::testing::AssertionFailure() << "number at byte " << i << ": " << x << " vs golden " << y;
      i = (size_t)(ea - a.c_str());
      j = (size_t)(eb - b.c_str());
      continue;
    }
    if (a[i] != b[j])
      return ::testing::AssertionFailure() << "differs at byte " << i << ": '" << a.substr(i, 40) << "' vs golden '"
                                           << b.substr(j, 40) << "'";
    ++i, ++j;
  }
  if (i != a.size() || j != b.size()) return ::testing::AssertionFailure() << "lengths differ";
  return ::testing::AssertionSuccess();
}

using attnviz::cli_test::Quote;

}  // namespace

class CliGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(CliGolden, DumpEqualsThePinnedOne) {
  const GoldenCase& c = GetParam();
  const std::string golden = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/cli/golden/" + c.name;
  const fs::path out = fs::temp_directory_path() / ("attnviz_golden_" + std::string(c.name) + "_" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::string cmd = Quote(ATTNVIZ_CLI) + " compute --text-file " + Quote(std::string(ATTNVIZ_SOURCE_DIR) + "/assets/sentences.txt");
  for (const std::string& a : c.args) cmd += " " + Quote(a);
  cmd += " --dump " + Quote(out.string()) + " >/dev/null";
  int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << cmd;
  size_t compared = 0;
  for (const auto& entry : fs::directory_iterator(golden)) {
    const std::string name = entry.path().filename().string();
    const std::string mine = (out / name).string();
    ASSERT_TRUE(fs::exists(mine)) << name << " is no longer written";
    if (entry.path().extension() == ".npy") {
      Result<Tensor> want = ReadNpy(entry.path().string());
      Result<Tensor> got = ReadNpy(mine);
      ASSERT_TRUE(want.ok() && got.ok()) << name;
      ASSERT_EQ(got->shape, want->shape) << name;
      for (size_t e = 0; e < want->size(); ++e)
        ASSERT_NEAR(got->data[e], want->data[e], 1e-5 * std::max(1.0f, std::fabs(want->data[e]))) << name << " [" << e << "]";
    } else {
      EXPECT_TRUE(SameJsonUpToRounding(*ReadFile(mine), *ReadFile(entry.path().string()), 1e-5)) << name;
    }
    ++compared;
  }
  EXPECT_GE(compared, 11u);
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(SampleSentences, CliGolden, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });
