// Issue 25, round 2: how attnviz-cli reads its arguments. Ranges are refused naming the option, the value as typed
// and the allowed range; a long --title by its length; an option's value is the next argument whatever it looks
// like (the global --lang is not looked for inside values); a model folder given as a plain argument is refused
// with the command that runs it; a text far past a model's positions is refused without tokenizing it all.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "cli_runner.h"

namespace attnviz {
namespace {

using cli_test::Cli;
using cli_test::CliResult;
using cli_test::Refused;
namespace fs = std::filesystem;

const std::string kGpt2Dir = std::string(ATTNVIZ_SOURCE_DIR) + "/tests/fixtures/models_e2e/gpt2";

std::string OutDir() {
  const fs::path dir = fs::temp_directory_path() / ("attnviz_cli_args_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir.string();
}

TEST(CliArguments, RangesNameTheOptionTheValueAndTheAllowedRange) {
  const std::string png = OutDir() + "/ranges.png";
  // A range past n_head is refused by its end as typed (was: "head 65 in '0-999999' ... allowed head numbers
  // from 0", or the first head past n_head).
  EXPECT_TRUE(Refused(Cli({"export", "--text", "I go", "--out", png, "--heads", "0-999999"}),
                      "--heads: head 999999 is out of range: allowed 0..3 (n_head = 4)"));
  EXPECT_TRUE(Refused(Cli({"export", "--text", "I go", "--out", png, "--heads", "8", "--heads", "2,9-12"}),
                      "--heads: head 12 is out of range: allowed 0..7 (n_head = 8)"));
  // --head against the config's heads, not the most any config has (was: "allowed 0..63").
  EXPECT_TRUE(Refused(Cli({"export", "--text", "I go", "--out", png, "--head", "999"}),
                      "--head 999 is out of range: allowed 0..3 (--heads 4)"));
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "--figure", png, "--layer", "999999",
                           "--head", "0"}),
                      "--layer: 999999 is out of range: allowed 0.."));
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "--figure", png, "--layer", "0",
                           "--head", "999999"}),
                      "--head: 999999 is out of range: allowed 0.."));
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "--layers", "0,999999"}),
                      "--layers: 999999 is out of range: allowed 0.."));
  EXPECT_FALSE(fs::exists(png));
}

TEST(CliArguments, ALongTitleIsRefusedByItsLengthNotTheCellSize) {
  const std::string png = OutDir() + "/title.png";
  CliResult r = Cli({"export", "--text", "I go", "--out", png, "--title", std::string(100000, 'a')});
  EXPECT_TRUE(Refused(r, "--title: 100000 characters is too long for a title: at most 1000"));
  EXPECT_EQ(r.err.find("cell-size"), std::string::npos) << r.err;
  // Within the length, a title that alone makes the PNG too large names the title (at 2400 dpi, 1000 characters
  // are far wider than 16384 pixels).
  r = Cli({"export", "--text", "I go", "--out", png, "--dpi", "2400", "--title", std::string(1000, 'W')});
  EXPECT_TRUE(Refused(r, "the title (1000 characters) would make the figure"));
  EXPECT_EQ(r.err.find("cell-size"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(png));
}

TEST(CliArguments, AnOptionsValueIsTheNextArgumentEvenWhenItLooksLikeAnOption) {
  // `--text --lang` is the text "--lang" (was: --lang taken as the global option, then "--lang: '' is not a
  // language").
  CliResult r = Cli({"compute", "--text", "--lang"});
  EXPECT_EQ(r.code, 0) << r.err;
  r = Cli({"model", "--model", "tiny", "--text", "--lang", "--tokens"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("[\"--\", \"l\", \"ang\"]"), std::string::npos) << r.out;  // the text "--lang"
  // The global --lang is still read anywhere outside a value.
  r = Cli({"compute", "--text", "--lang", "--lang", "ko", "--heads", "0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(cli_test::HasHangul(r.err)) << r.err;
  // Every option a command's help shows with a value ("--out FILE") takes "--lang" as that value: the pre-scan
  // and the parsers agree on which options take values.
  // "--out FILE", "--mask none|causal"; not prose such as "(the --roles table)".
  const std::regex valued(R"((--[a-z][a-z-]*) (?:[A-Z]|[a-z]+\|))");
  for (const char* command : {"compute", "sweep", "export", "model"}) {
    CliResult help = Cli({command, "--help", "--lang", "en"});
    ASSERT_EQ(help.code, 0) << command;
    std::set<std::string> options;
    for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), valued); it != std::sregex_iterator(); ++it)
      options.insert((*it)[1]);
    EXPECT_GT(options.size(), 3u) << command;
    for (const std::string& option : options) {
      if (option == "--lang") continue;
      CliResult v = Cli({command, option, "--lang"}, "LC_ALL=C LANG=C ");
      EXPECT_EQ(v.err.find("is not a language"), std::string::npos) << command << " " << option << ": " << v.err;
      EXPECT_EQ(v.err.find("missing value"), std::string::npos) << command << " " << option << ": " << v.err;
    }
  }
}

TEST(CliArguments, AModelFolderAsAPlainArgumentIsRefusedWithTheModelCommand) {
  // Was: compute, sweep and export ignored it and ran the random sandbox layer.
  for (const char* command : {"compute", "sweep", "export"}) {
    std::vector<std::string> args = {command, kGpt2Dir, "--text", "I go"};
    if (std::string(command) == "export") args.insert(args.end(), {"--out", OutDir() + "/m.csv"});
    if (std::string(command) == "sweep") args.insert(args.end(), {"--dks", "4"});
    CliResult r = Cli(args);
    EXPECT_TRUE(Refused(r, "run attnviz-cli model --model " + kGpt2Dir)) << command;
    EXPECT_TRUE(r.out.empty()) << command << ": " << r.out;
  }
  EXPECT_TRUE(Refused(Cli({"model", kGpt2Dir, "--text", "I go"}), "is given as --model " + kGpt2Dir));
  EXPECT_TRUE(Refused(Cli({"model", "--model", "tiny", "--text", "I go", "stray"}), "unexpected argument 'stray'"));
}

TEST(CliArguments, ATextFarPastTheModelsPositionsIsRefusedNamingTheLimit) {
  // Under the byte bound (256 positions x 64 bytes = 16384) but some 8000 tokens: the tokenizer stops past 256,
  // and the message gives the limit, not a count it never finished.
  std::string text;
  while (text.size() + 2 < 16384) text += "a ";
  const std::string file = OutDir() + "/long.txt";
  ASSERT_TRUE(WriteFileAtomic(file, text + "\n").ok());
  CliResult r = Cli({"model", "--model", "tiny", "--text-file", file});
  EXPECT_TRUE(Refused(r, "the text is more than 256 tokens;"));
  EXPECT_TRUE(Refused(r, "takes at most 256"));
}

}  // namespace
}  // namespace attnviz

namespace attnviz {
namespace {

// Issue 44: every value typed on the command line is quoted short and escaped (CappedValue, as values from files
// are): an unknown option, command, --lang value, number or name of 100 KB gave a 100 KB message, and escape bytes
// reached the terminal.
TEST(CliArguments, TypedValuesAreQuotedCappedAndEscaped) {
  const std::string x(100000, 'x');
  const std::vector<std::vector<std::string>> cases = {
      {"compute", "--text", "I go", "--" + x},
      {"sweep", "--" + x},
      {"export", "--text", "I go", "--" + x},
      {"model", "--" + x},
      {x},
      {"--lang", x, "compute"},
      {"compute", "--text", "I go", "--heads", std::string(100000, '7')},
      {"compute", "--text", "I go", "--temperature", std::string(100000, '7')},
      {"compute", "--text", "I go", "--mask", x},
  };
  for (const auto& args : cases) {
    const CliResult r = Cli(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args[1].substr(0, 20);
    EXPECT_LT(r.err.size(), 800u) << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(" bytes in all)"), std::string::npos) << r.err.substr(0, 300);
  }
  for (const auto& args : std::vector<std::vector<std::string>>{{"compute", "--text", "I go", "--\x1b[31mred"},
                                                               {"\x1b[2Jcls"},
                                                               {"--lang", "\x1b[2J", "compute"},
                                                               {"model", "--model", "m", "--\x07" "bell"}}) {
    const CliResult r = Cli(args);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
    EXPECT_TRUE(r.err.find("\\x1b") != std::string::npos || r.err.find("\\x07") != std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace attnviz
