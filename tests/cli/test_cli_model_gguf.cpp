// attnviz-cli model --model FILE.gguf, text in: the real binary on tests/fixtures/gguf/models/llama_e2e.gguf (the
// F32 GGUF of tests/fixtures/models_e2e/llama with its tokenizer as tokenizer.ggml.*) prints the same ids as the
// folder and dumps bit-equal attention.npy, hidden.npy, roles.csv, rollout.npy and value_norm.npy, with and without
// what-ifs, and the same predictions, neuron view and figures; llama_e2e_half.gguf (the same in f16/bf16: every
// matrix dequantized per layer, as a quantized file's) runs every analysis close to the folder's; a bad file exits 2
// naming it.
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
#include "io/npy.h"

namespace {

namespace fs = std::filesystem;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using nlohmann::json;

const std::string kSource = ATTNVIZ_SOURCE_DIR;
const std::string kGguf = kSource + "/tests/fixtures/gguf/models/llama_e2e.gguf";
const std::string kFolder = kSource + "/tests/fixtures/models_e2e/llama";
const std::string kHalf = kSource + "/tests/fixtures/gguf/models/llama_e2e_half.gguf";

json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

std::string TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("attnviz_cli_gguf_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

// The folder's tokenizer sentences (tests/fixtures/tokenize/llama_style) give llama.cpp's ids for the same
// vocabulary (llama_cpp_spm_reference.json), after the BOS the file asks for: the folder's where the two agree, and
// llama.cpp's "▁" in front of a leading space and of each piece after a special token where they do not.
TEST(CliModelGguf, TokensAreLlamaCppsOnEveryTokenizerSentence) {
  const json ref = ReadJson(kSource + "/tests/fixtures/gguf/llama_cpp/llama_cpp_spm_reference.json");
  const json* llama_style = nullptr;
  for (const json& v : ref["vocabs"])
    if (v["name"] == "llama_style") llama_style = &v;
  ASSERT_NE(llama_style, nullptr);
  int checked = 0;
  for (size_t i = 0; i < (*llama_style)["texts"].size(); ++i) {
    const std::string text = (*llama_style)["texts"][i];
    if (text.empty()) continue;
    CliResult r = Cli({"model", "--model", kGguf, "--text", text, "--tokens"});
    ASSERT_EQ(r.code, 0) << text << ": " << r.err;
    json want = json::array({1});  // <s>
    for (const json& id : (*llama_style)["ids"][i]) want.push_back(id);
    EXPECT_EQ(json::parse(r.out)["ids"], want) << text;
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
      std::vector<std::string> args = {"model", "--model", model, "--text", c["text"], "--dump", out,
                                       "--rollout", "--value-norm"};
      args.insert(args.end(), what_if.begin(), what_if.end());
      CliResult r = Cli(args);
      ASSERT_EQ(r.code, 0) << r.err;
      outs.push_back(out);
    }
    EXPECT_EQ(ReadJson(outs[0] + "/tokens.json")["ids"], c["ids"]);
    for (const char* file : {"attention.npy", "hidden.npy", "rollout.npy", "value_norm.npy"}) {
      auto a = attnviz::ReadNpy(outs[0] + "/" + file);
      auto b = attnviz::ReadNpy(outs[1] + "/" + file);
      ASSERT_TRUE(a.ok() && b.ok()) << file;
      EXPECT_EQ(a->shape, b->shape) << file;
      EXPECT_TRUE(a->data == b->data) << file;
    }
    EXPECT_EQ(ReadText(outs[0] + "/roles.csv"), ReadText(outs[1] + "/roles.csv"));
    EXPECT_FALSE(ReadText(outs[0] + "/roles.csv").empty());
    for (const auto& o : outs) fs::remove_all(o);
  }
}

// The other what-ifs (a head ablated, a temperature on some layers) and the ablation scan: the same maps, hidden
// states, predictions and scan from the file as from the folder, bit for bit.
TEST(CliModelGguf, AblationTemperatureAndTheScanEqualTheFolders) {
  const std::string text = ReadJson(kFolder + "/case.json")[0]["text"];
  const std::vector<std::vector<std::string>> runs = {{"--ablate", "1:2,0:4", "--dump", "OUT"},
                                                      {"--temperature", "0.5", "--layers", "1", "--dump", "OUT"},
                                                      {"--ablate", "0:1", "--predict", "3", "--json"},
                                                      {"--ablate-scan", "--json"}};
  const std::string base = TempDir("whatif_base");
  const CliResult baseline = Cli({"model", "--model", kFolder, "--text", text, "--dump", base});
  ASSERT_EQ(baseline.code, 0) << baseline.err;
  for (const auto& run : runs) {
    SCOPED_TRACE(run[0] + " " + run[1]);
    std::vector<std::string> outs, dirs;
    for (const std::string& model : {kGguf, kFolder}) {
      std::vector<std::string> args = {"model", "--model", model, "--text", text};
      for (const std::string& a : run) args.push_back(a == "OUT" ? TempDir("whatif" + std::to_string(dirs.size())) : a);
      if (run.back() == "OUT") dirs.push_back(args.back());
      CliResult r = Cli(args);
      ASSERT_EQ(r.code, 0) << r.err;
      outs.push_back(run.back() == "OUT" ? "" : r.out);
    }
    EXPECT_EQ(outs[0], outs[1]);
    if (dirs.empty()) {
      EXPECT_FALSE(outs[0].empty());
      continue;
    }
    for (const char* file : {"attention.npy", "hidden.npy"}) {
      auto a = attnviz::ReadNpy(dirs[0] + "/" + file);
      auto b = attnviz::ReadNpy(dirs[1] + "/" + file);
      auto plain = attnviz::ReadNpy(base + "/" + file);
      ASSERT_TRUE(a.ok() && b.ok() && plain.ok()) << file;
      EXPECT_EQ(a->shape, b->shape) << file;
      EXPECT_TRUE(a->data == b->data) << file;
      EXPECT_FALSE(a->data == plain->data) << file << ": the what-if changed nothing";
    }
    for (const auto& d : dirs) fs::remove_all(d);
  }
  fs::remove_all(base);
}

// --predict, --neuron (JSON) and --figure (PNG, SVG): the same bytes from the file as from the folder.
TEST(CliModelGguf, PredictNeuronAndFiguresEqualTheFolders) {
  const std::string text = ReadJson(kFolder + "/case.json")[0]["text"];
  const std::string dir = TempDir("figures");
  fs::create_directories(dir);
  std::vector<std::vector<std::string>> runs = {{"--predict", "5", "--json"}, {"--neuron", "1:5:7:2", "--json"}};
  for (const char* ext : {"png", "svg"}) runs.push_back({"--figure", std::string("fig.") + ext, "--layer", "1", "--head", "4"});
  for (const auto& run : runs) {
    SCOPED_TRACE(run[0] + " " + run[1]);
    std::vector<std::string> outs, files;
    for (const std::string& model : {kGguf, kFolder}) {
      std::vector<std::string> args = {"model", "--model", model, "--text", text};
      for (const std::string& a : run) args.push_back(a);
      const std::string file = dir + "/" + std::to_string(outs.size()) + run[1];
      if (run[0] == "--figure") args[args.size() - 5] = file;
      CliResult r = Cli(args);
      ASSERT_EQ(r.code, 0) << r.err;
      const bool figure = run[0] == "--figure";
      outs.push_back(figure ? "" : r.out);  // a figure's stdout names the model's path
      files.push_back(figure ? ReadText(file) : "");
    }
    EXPECT_EQ(outs[0], outs[1]);
    EXPECT_EQ(files[0], files[1]);
    EXPECT_FALSE(outs[0].empty() && files[0].empty());
  }
  fs::remove_all(dir);
}

// Every matrix deferred (f16/bf16, as a quantized file's): --value-norm read W_o from params() (null there) and
// crashed, --predict found no LM head (the tied token embedding deferred). Now each runs, and is the folder's within
// the rounding of the weights to half precision.
TEST(CliModelGguf, AHalfPrecisionFileRunsEveryAnalysisCloseToTheFolder) {
  const std::string text = ReadJson(kFolder + "/case.json")[0]["text"];
  std::vector<std::string> outs;
  std::vector<json> predict;
  for (const std::string& model : {kHalf, kFolder}) {
    const std::string out = TempDir("half" + std::to_string(outs.size()));
    CliResult r = Cli({"model", "--model", model, "--text", text, "--dump", out, "--rollout", "--value-norm"});
    ASSERT_EQ(r.code, 0) << r.err;
    outs.push_back(out);
    r = Cli({"model", "--model", model, "--text", text, "--predict", "3", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    predict.push_back(json::parse(r.out));
    r = Cli({"model", "--model", model, "--text", text, "--neuron", "1:5:7:2", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  for (const char* file : {"attention.npy", "rollout.npy", "value_norm.npy"}) {
    auto a = attnviz::ReadNpy(outs[0] + "/" + file);
    auto b = attnviz::ReadNpy(outs[1] + "/" + file);
    ASSERT_TRUE(a.ok() && b.ok()) << file;
    ASSERT_EQ(a->shape, b->shape) << file;
    double worst = 0, largest = 0;
    for (size_t i = 0; i < a->data.size(); ++i) {
      worst = std::max(worst, std::fabs((double)a->data[i] - b->data[i]));
      largest = std::max(largest, std::fabs((double)b->data[i]));
    }
    EXPECT_GT(worst, 0) << file;  // the weights were rounded: not the folder's bits
    EXPECT_LT(worst, 0.02 * largest) << file;
  }
  const double loss = predict[0]["loss"], folder_loss = predict[1]["loss"];
  EXPECT_NEAR(loss, folder_loss, 0.01 * folder_loss);
  ASSERT_EQ(predict[0]["positions"].size(), predict[1]["positions"].size());
  for (size_t i = 0; i < predict[0]["positions"].size(); ++i)  // the most likely next token: the folder's
    EXPECT_EQ(predict[0]["positions"][i]["top"][0]["id"], predict[1]["positions"][i]["top"][0]["id"]) << i;
  for (const auto& o : outs) fs::remove_all(o);
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
