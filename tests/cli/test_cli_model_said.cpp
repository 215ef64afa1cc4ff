// Issue 44, the minor items: what attnviz-cli ignored or named wrongly is said. A symlink loop given as the model
// is called a loop (not "no such file"); a .gguf given to a sandbox command or as a plain argument is called a GGUF
// file (not a folder with config.json); --layers without a what-if is refused (it changed nothing); a one-token
// text of a causal model says why there is no loss (not "a masked language model"); a predicted id the tokenizer
// has no piece for is said to have none (not "").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "word_level_tokenizer.h"

namespace attnviz {
namespace {

namespace fs = std::filesystem;
using cli_test::Cli;
using cli_test::CliResult;
using cli_test::Refused;

const std::string kSource = ATTNVIZ_SOURCE_DIR;
const std::string kGguf = kSource + "/tests/fixtures/gguf/models/llama_e2e.gguf";

// A fresh folder of this test's own under the temporary folder.
std::string ScratchDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("attnviz_cli_said_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

TEST(CliModelSaid, ASymlinkLoopIsCalledALoop) {
  const std::string dir = ScratchDir("loop");
  fs::create_symlink(dir + "/b", dir + "/a");
  fs::create_symlink(dir + "/a", dir + "/b");
  const CliResult r = Cli({"model", "--model", dir + "/a", "--text", "I go", "--roles"});
  EXPECT_TRUE(Refused(r, dir + "/a: too many levels of symbolic links (a link loop)"));
  EXPECT_EQ(r.err.find("no such"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(CliModelSaid, AGgufFileIsCalledOneNotAFolderWithConfigJson) {
  for (const char* command : {"compute", "export"}) {
    const CliResult r = Cli({command, kGguf, "--text", "I go"});
    EXPECT_TRUE(Refused(r, kGguf + ": a GGUF model file; attnviz-cli " + command +
                               " runs the sandbox layer, not a model: run attnviz-cli model --model " + kGguf));
    EXPECT_EQ(r.err.find("config.json"), std::string::npos) << r.err;
  }
  const CliResult r = Cli({"model", kGguf, "--text", "I go"});
  EXPECT_TRUE(Refused(r, "unexpected argument '" + kGguf + "': a GGUF model file is given as --model " + kGguf));
}

TEST(CliModelSaid, LayersWithoutAWhatIfAreRefused) {
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "--layers", "0"}),
                      "--layers names the layers the what-ifs act on, and none is given"));
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "--layers", "0", "--ablate", "0:0"}),
                      "--layers names the layers the what-ifs act on"));
  // The range is still named first, and with a what-if --layers runs.
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "--layers", "99"}), "--layers: 99 is out of range"));
  EXPECT_EQ(Cli({"model", "--model", "tiny", "--text", "I go", "--layers", "0", "--no-scale", "--roles"}).code, 0);
}

// A copy of tests/fixtures/models/gpt2 (vocab_size 100) with a word-level tokenizer of `pieces` pieces t0, t1, ...
std::string Gpt2WithPieces(int pieces) {
  const std::string dir = ScratchDir("gpt2_" + std::to_string(pieces));
  fs::copy(kSource + "/tests/fixtures/models/gpt2", dir, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  testing::WriteWordLevelTokenizer(dir, pieces);
  return dir;
}

TEST(CliModelSaid, OneTokenOfACausalModelSaysWhyThereIsNoLoss) {
  const std::string dir = Gpt2WithPieces(100);
  const CliResult r = Cli({"model", "--model", dir, "--text", "t5", "--predict", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("one token: nothing follows it to predict, so no next-token loss; the top 3 after it"),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("masked"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(CliModelSaid, APredictedIdWithoutAPieceIsSaidToHaveNone) {
  const std::string dir = Gpt2WithPieces(10);  // the LM head has 100 rows, the tokenizer 10 pieces
  const CliResult text = Cli({"model", "--model", dir, "--text", "t5 t2", "--predict", "100"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("(id 57: no piece in the tokenizer's vocabulary)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("\"\""), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\"t3\""), std::string::npos) << text.out;
  const CliResult json = Cli({"model", "--model", dir, "--text", "t5 t2", "--predict", "100", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  int none = 0, named = 0;
  for (const auto& pos : parsed["positions"])
    for (const auto& t : pos["top"]) {
      const int id = t["id"];
      if (id >= 10) {
        EXPECT_TRUE(t["token"].is_null()) << t.dump();
        ++none;
      } else {
        EXPECT_EQ(t["token"], "t" + std::to_string(id));
        ++named;
      }
    }
  EXPECT_EQ(none, 2 * 90);
  EXPECT_EQ(named, 2 * 10);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attnviz
