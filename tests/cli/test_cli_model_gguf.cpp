// attnviz-cli model --model FILE.gguf, text in: the real binary on tests/fixtures/gguf/models/llama_e2e.gguf (the
// F32 GGUF of tests/fixtures/models_e2e/llama with its tokenizer as tokenizer.ggml.*) prints the same ids as the
// folder and dumps bit-equal attention.npy and hidden.npy, with and without what-ifs; a bad file exits 2 naming it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "io/npy.h"

namespace {

namespace fs = std::filesystem;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using nlohmann::json;

const std::string kSource = ATTNVIZ_SOURCE_DIR;
const std::string kGguf = kSource + "/tests/fixtures/gguf/models/llama_e2e.gguf";
const std::string kFolder = kSource + "/tests/fixtures/models_e2e/llama";

json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

std::string TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("attnviz_cli_gguf_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

TEST(CliModelGguf, TokensAreTheFoldersOnEveryTokenizerSentence) {
  const json expected = ReadJson(kSource + "/tests/fixtures/tokenize/llama_style/expected.json");
  int checked = 0;
  for (const json& c : expected) {
    const std::string text = c["text"];
    if (text.empty()) continue;
    CliResult r = Cli({"model", "--model", kGguf, "--text", text, "--tokens"});
    ASSERT_EQ(r.code, 0) << text << ": " << r.err;
    EXPECT_EQ(json::parse(r.out)["ids"], c["ids"]) << text;
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

TEST(CliModelGguf, DumpsEqualTheFoldersBitForBit) {
  for (const json& c : ReadJson(kFolder + "/case.json")) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    std::vector<std::string> what_if;
    for (const json& a : c["args"]) what_if.push_back(a);
    std::vector<std::string> outs;
    for (const std::string& model : {kGguf, kFolder}) {
      const std::string out = TempDir(name + std::to_string(outs.size()));
      std::vector<std::string> args = {"model", "--model", model, "--text", c["text"], "--dump", out};
      args.insert(args.end(), what_if.begin(), what_if.end());
      CliResult r = Cli(args);
      ASSERT_EQ(r.code, 0) << r.err;
      outs.push_back(out);
    }
    EXPECT_EQ(ReadJson(outs[0] + "/tokens.json")["ids"], c["ids"]);
    for (const char* file : {"attention.npy", "hidden.npy"}) {
      auto a = attnviz::ReadNpy(outs[0] + "/" + file);
      auto b = attnviz::ReadNpy(outs[1] + "/" + file);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->shape, b->shape) << file;
      EXPECT_TRUE(a->data == b->data) << file;
    }
    for (const auto& o : outs) fs::remove_all(o);
  }
}

TEST(CliModelGguf, TruncatedFileExitsTwoNamingIt) {
  const std::string dir = TempDir("bad");
  fs::create_directories(dir);
  const std::string path = dir + "/cut.gguf";
  {
    std::ifstream in(kGguf, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(path, std::ios::binary).write(bytes.data(), 100000);
  }
  CliResult r = Cli({"model", "--model", path, "--text", "hello"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cut.gguf: tensor '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("past the end of the file (100000 bytes)"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

}  // namespace
