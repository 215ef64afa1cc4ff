// attnviz-cli model end to end, text in: the real binary on the model folders of tests/fixtures/models_e2e
// (gpt2, bert, llama with GQA 3:1 and positions past 64, roberta, xlm_roberta; each with its tokenizer files). The ids must be the
// peer's (npm `tokenizers` / the tokenizer fixtures' expected.json), attention.npy and hidden.npy within 1e-4
// of PyTorch's HF-mirror modules for every layer, with and without a what-if on chosen layers. Then the bad
// folders: each exits 2 with one line naming the problem; a dump that fails leaves no files behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "io/file_io.h"
#include "io/npy.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

const std::string kSource = ATTNVIZ_SOURCE_DIR;
const std::string kFixtures = kSource + "/tests/fixtures/models_e2e";
constexpr double kTol = 1e-4;

using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using attnviz::cli_test::Quote;

std::string TempDir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("attnviz_cli_e2e_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

json ReadJson(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

std::vector<int> Ids(const json& j) { return j.get<std::vector<int>>(); }

// The largest |a - b| over [begin, end) of two float arrays.
double MaxDiff(const float* a, const float* b, size_t count) {
  double worst = 0;
  for (size_t i = 0; i < count; ++i) worst = std::max(worst, (double)std::fabs(a[i] - b[i]));
  return worst;
}

// --------------------------------------------------------------------------------------------- peer ids

// Every non-empty sentence of a tokenizer fixture: `model --tokens` prints the peer's ids.
void ExpectPeerIds(const std::string& family, const std::string& tokenizer_fixture) {
  const std::string dir = kFixtures + "/" + family;
  const json expected = ReadJson(kSource + "/tests/fixtures/tokenize/" + tokenizer_fixture + "/expected.json");
  int checked = 0;
  for (const json& c : expected) {
    const std::string text = c["text"];
    if (text.empty()) continue;  // the CLI refuses empty text (nothing to attend over)
    CliResult r = Cli({"model", "--model", dir, "--text", text, "--tokens"});
    ASSERT_EQ(r.code, 0) << family << " '" << text << "': " << r.err;
    const json got = json::parse(r.out);
    EXPECT_EQ(Ids(got["ids"]), Ids(c["ids"])) << family << " '" << text << "'";
    EXPECT_EQ(got["tokens"].size(), got["ids"].size());
    ++checked;
  }
  EXPECT_GT(checked, 60);
}

TEST(CliModelE2E, Gpt2TokensArePeerIds) { ExpectPeerIds("gpt2", "bytelevel_bpe"); }
TEST(CliModelE2E, BertTokensArePeerIds) { ExpectPeerIds("bert", "bert_uncased"); }
TEST(CliModelE2E, LlamaTokensArePeerIds) { ExpectPeerIds("llama", "llama_style"); }
TEST(CliModelE2E, RobertaTokensArePeerIds) { ExpectPeerIds("roberta", "roberta_style"); }
// sentencepiece.bpe.model alone: libsentencepiece with XLM-RoBERTa's fairseq ids (python3-sentencepiece's peer).
TEST(CliModelE2E, XlmRobertaTokensArePeerIds) { ExpectPeerIds("xlm_roberta", "xlmr"); }

// --------------------------------------------------------------------------------------------- dumps vs torch

class CliModelE2EDumpVsTorch : public ::testing::TestWithParam<std::string> {};

TEST_P(CliModelE2EDumpVsTorch, EveryLayerWithinTolerance) {
  const std::string family = GetParam();
  const std::string dir = kFixtures + "/" + family;
  const json cfg = ReadJson(dir + "/config.json");
  const int n_layer = cfg.contains("n_layer") ? cfg["n_layer"].get<int>() : cfg["num_hidden_layers"].get<int>();
  const int n_head = cfg.contains("n_head") ? cfg["n_head"].get<int>() : cfg["num_attention_heads"].get<int>();
  const int d_model = cfg.contains("n_embd") ? cfg["n_embd"].get<int>() : cfg["hidden_size"].get<int>();
  for (const json& c : ReadJson(dir + "/case.json")) {
    const std::string name = c["name"];
    SCOPED_TRACE(family + " " + name);
    const std::vector<int> ids = Ids(c["ids"]);
    const size_t n = ids.size();
    if (family == "llama" && name == "plain") {
      EXPECT_GT(n, 64u);  // rope positions past 64
    }
    // The ids first: the text goes in, the peer's ids must come out.
    CliResult tok = Cli({"model", "--model", dir, "--text", c["text"], "--tokens"});
    ASSERT_EQ(tok.code, 0) << tok.err;
    ASSERT_EQ(Ids(json::parse(tok.out)["ids"]), ids);

    const std::string out = TempDir(family + "_" + name);
    std::vector<std::string> args = {"model", "--model", dir, "--text", c["text"], "--dump", out};
    for (const json& a : c["args"]) args.push_back(a);
    CliResult r = Cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("dump written to"), std::string::npos) << r.out;
    EXPECT_EQ(Ids(ReadJson(out + "/tokens.json")["ids"]), ids);

    auto got_p = attnviz::ReadNpy(out + "/attention.npy");
    auto got_h = attnviz::ReadNpy(out + "/hidden.npy");
    auto want_p = attnviz::ReadNpy(dir + "/" + c["probs"].get<std::string>());
    auto want_h = attnviz::ReadNpy(dir + "/" + c["hidden"].get<std::string>());
    ASSERT_TRUE(got_p.ok() && got_h.ok() && want_p.ok() && want_h.ok());
    const std::vector<size_t> p_shape = {(size_t)n_layer, (size_t)n_head, n, n};
    const std::vector<size_t> h_shape = {(size_t)n_layer + 1, n, (size_t)d_model};
    ASSERT_EQ(got_p->shape, p_shape);
    ASSERT_EQ(want_p->shape, p_shape);
    ASSERT_EQ(got_h->shape, h_shape);
    ASSERT_EQ(want_h->shape, h_shape);
    const size_t per_p = (size_t)n_head * n * n, per_h = n * (size_t)d_model;
    for (int l = 0; l < n_layer; ++l) {
      const double dp = MaxDiff(got_p->data.data() + l * per_p, want_p->data.data() + l * per_p, per_p);
      EXPECT_LT(dp, kTol) << "attention, layer " << l;
    }
    for (int l = 0; l <= n_layer; ++l) {
      const double dh = MaxDiff(got_h->data.data() + l * per_h, want_h->data.data() + l * per_h, per_h);
      EXPECT_LT(dh, kTol) << "hidden, after " << (l == 0 ? std::string("the embeddings") : "block " + std::to_string(l - 1));
    }
    fs::remove_all(out);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, CliModelE2EDumpVsTorch, ::testing::Values("gpt2", "bert", "llama", "roberta", "xlm_roberta"));

// The what-if must matter: with it, the dump differs from the plain run's (guards against ignored options).
TEST(CliModelE2E, WhatIfChangesOnlyLaterLayers) {
  const std::string dir = kFixtures + "/gpt2";
  const json cases = ReadJson(dir + "/case.json");
  auto plain = attnviz::ReadNpy(dir + "/" + cases[0]["probs"].get<std::string>());
  auto whatif = attnviz::ReadNpy(dir + "/" + cases[1]["probs"].get<std::string>());
  ASSERT_TRUE(plain.ok() && whatif.ok());
  // The committed what-if acts on layer 2 only: layers 0 and 1 equal, layer 2 not.
  const size_t per = plain->data.size() / plain->shape[0];
  EXPECT_EQ(MaxDiff(plain->data.data(), whatif->data.data(), 2 * per), 0.0);
  EXPECT_GT(MaxDiff(plain->data.data() + 2 * per, whatif->data.data() + 2 * per, per), 1e-2);
}

// --------------------------------------------------------------------------------------------- bad folders

// A copy of a fixture folder to break.
std::string CopyFixture(const std::string& family, const std::string& name) {
  const std::string dir = TempDir("bad_" + name);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(kFixtures + "/" + family)) {
    const std::string f = e.path().filename().string();
    if (f.size() > 4 && f.substr(f.size() - 4) == ".npy") continue;
    fs::copy_file(e.path(), dir + "/" + f);
  }
  return dir;
}

std::string ReadBytes(const std::string& path) {
  auto r = attnviz::ReadFile(path);
  return r.ok() ? *r : std::string();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), (std::streamsize)bytes.size());
}

// model.safetensors as (header, per-tensor bytes); `edit` may change the header (drop or rename entries);
// the file is written back with offsets recomputed.
void EditSafetensors(const std::string& path, const std::function<void(ordered_json*)>& edit) {
  const std::string bytes = ReadBytes(path);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  ordered_json header = ordered_json::parse(bytes.substr(8, n));
  const std::string data = bytes.substr(8 + n);
  std::map<std::string, std::string> blobs;
  for (auto& [name, e] : header.items()) {
    if (name == "__metadata__") continue;
    const uint64_t b = e["data_offsets"][0], en = e["data_offsets"][1];
    blobs[name] = data.substr(b, en - b);
  }
  ordered_json before = header;
  edit(&header);
  std::string out_data;
  for (auto& [name, e] : header.items()) {
    if (name == "__metadata__") continue;
    // A renamed entry keeps its bytes: find them by its old offsets.
    std::string blob;
    if (blobs.count(name)) blob = blobs[name];
    else blob = data.substr(e["data_offsets"][0].get<uint64_t>(),
                            e["data_offsets"][1].get<uint64_t>() - e["data_offsets"][0].get<uint64_t>());
    e["data_offsets"] = {out_data.size(), out_data.size() + blob.size()};
    out_data += blob;
  }
  std::string h = header.dump();
  h.append((8 - h.size() % 8) % 8, ' ');
  const uint64_t hn = h.size();
  std::string out(reinterpret_cast<const char*>(&hn), 8);
  WriteBytes(path, out + h + out_data);
}

// Exit 2, exactly one line on stderr, "attnviz-cli model: ..." with every `words` in it, nothing on stdout.
void ExpectRefused(const CliResult& r, const std::vector<std::string>& words) {
  EXPECT_EQ(r.code, 2) << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.back(), '\n');
  EXPECT_EQ(r.err.rfind("attnviz-cli model: ", 0), 0u) << r.err;
  for (const std::string& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "'" << w << "' not in: " << r.err;
  EXPECT_EQ(r.out, "");
}

CliResult RunOn(const std::string& dir) { return Cli({"model", "--model", dir, "--text", "Hello world", "--tokens"}); }

// The refusal on `dir` in English, then with --lang ko (issue 12): in Korean, with the same facts (`words`: files,
// tensors, numbers).
void ExpectRefusedOn(const std::string& dir, const std::vector<std::string>& words) {
  CliResult en = RunOn(dir);
  ExpectRefused(en, words);
  EXPECT_FALSE(attnviz::cli_test::HasHangul(en.err)) << en.err;
  CliResult ko = Cli({"--lang", "ko", "model", "--model", dir, "--text", "Hello world", "--tokens"});
  EXPECT_EQ(ko.code, 2) << ko.err;
  EXPECT_EQ(std::count(ko.err.begin(), ko.err.end(), '\n'), 1) << ko.err;
  EXPECT_EQ(ko.err.rfind("attnviz-cli model: 오류: ", 0), 0u) << ko.err;
  EXPECT_TRUE(attnviz::cli_test::HasHangul(ko.err.substr(std::strlen("attnviz-cli model: 오류: ")))) << ko.err;
  for (const std::string& w : words) EXPECT_NE(ko.err.find(w), std::string::npos) << "'" << w << "' not in: " << ko.err;
}

TEST(CliModelE2EBadFolder, MissingConfig) {
  const std::string dir = CopyFixture("gpt2", "noconfig");
  fs::remove(dir + "/config.json");
  ExpectRefusedOn(dir, {"config.json"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, MissingFolder) {
  ExpectRefusedOn(TempDir("does_not_exist"), {"does_not_exist"});
}

TEST(CliModelE2EBadFolder, MissingWeights) {
  const std::string dir = CopyFixture("gpt2", "noweights");
  fs::remove(dir + "/model.safetensors");
  ExpectRefusedOn(dir, {"model.safetensors"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, PytorchBinRefused) {
  const std::string dir = CopyFixture("gpt2", "bin");
  fs::rename(dir + "/model.safetensors", dir + "/pytorch_model.bin");
  ExpectRefusedOn(dir, {"pytorch_model.bin"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, MissingTokenizer) {
  const std::string dir = CopyFixture("gpt2", "notokenizer");
  fs::remove(dir + "/tokenizer.json");
  ExpectRefusedOn(dir, {"tokenizer"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, UnknownModelType) {
  const std::string dir = CopyFixture("gpt2", "modeltype");
  json cfg = ReadJson(dir + "/config.json");
  cfg["model_type"] = "gpt5";
  WriteBytes(dir + "/config.json", cfg.dump(2));
  ExpectRefusedOn(dir, {"gpt5"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, MissingTensorNamed) {
  const std::string dir = CopyFixture("gpt2", "notensor");
  EditSafetensors(dir + "/model.safetensors", [](ordered_json* h) { h->erase("transformer.h.1.attn.c_proj.weight"); });
  ExpectRefusedOn(dir, {"h.1.attn.c_proj.weight"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, LlamaMissingTensorNamed) {
  const std::string dir = CopyFixture("llama", "llama_notensor");
  EditSafetensors(dir + "/model.safetensors",
                  [](ordered_json* h) { h->erase("model.layers.1.self_attn.k_proj.weight"); });
  ExpectRefusedOn(dir, {"k_proj"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, ShapeDisagreesWithConfigBothShapesGiven) {
  // config.json says 80 positions; wpe.weight is [96, 32].
  const std::string dir = CopyFixture("gpt2", "shape");
  json cfg = ReadJson(dir + "/config.json");
  cfg["n_positions"] = 80;
  cfg["n_ctx"] = 80;
  WriteBytes(dir + "/config.json", cfg.dump(2));
  ExpectRefusedOn(dir, {"wpe.weight", "96", "80", "32"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, LlamaKvShapeDisagrees) {
  // config.json says 3 kv heads; k_proj is [2 * 16, 48].
  const std::string dir = CopyFixture("llama", "llama_kv");
  json cfg = ReadJson(dir + "/config.json");
  cfg["num_key_value_heads"] = 3;
  WriteBytes(dir + "/config.json", cfg.dump(2));
  CliResult r = RunOn(dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, TruncatedSafetensors) {
  const std::string dir = CopyFixture("gpt2", "truncated");
  const std::string bytes = ReadBytes(dir + "/model.safetensors");
  WriteBytes(dir + "/model.safetensors", bytes.substr(0, bytes.size() - 1000));
  ExpectRefusedOn(dir, {"model.safetensors"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, HeaderLongerThanFile) {
  const std::string dir = CopyFixture("gpt2", "header");
  std::string bytes = ReadBytes(dir + "/model.safetensors");
  const uint64_t claimed = bytes.size() + 4096;
  std::memcpy(bytes.data(), &claimed, 8);
  WriteBytes(dir + "/model.safetensors", bytes);
  ExpectRefusedOn(dir, {"model.safetensors"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, BadConfigJson) {
  const std::string dir = CopyFixture("gpt2", "badjson");
  const std::string text = ReadBytes(dir + "/config.json");
  WriteBytes(dir + "/config.json", text.substr(0, text.size() / 2));
  ExpectRefusedOn(dir, {"config.json"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, BadSafetensorsHeaderJson) {
  const std::string dir = CopyFixture("gpt2", "badheader");
  std::string bytes = ReadBytes(dir + "/model.safetensors");
  bytes[9] = '#';  // inside the JSON header
  WriteBytes(dir + "/model.safetensors", bytes);
  ExpectRefusedOn(dir, {"model.safetensors"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, BadTokenizerJson) {
  const std::string dir = CopyFixture("llama", "badtok");
  const std::string text = ReadBytes(dir + "/tokenizer.json");
  WriteBytes(dir + "/tokenizer.json", text.substr(0, 300));
  ExpectRefusedOn(dir, {"tokenizer.json"});
  fs::remove_all(dir);
}

TEST(CliModelE2EBadFolder, EmptyFiles) {
  // Zero-byte files: nothing crashes.
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json"}) {
    const std::string dir = CopyFixture("gpt2", std::string("empty_") + file);
    WriteBytes(dir + "/" + file, "");
    ExpectRefusedOn(dir, {file});
    fs::remove_all(dir);
  }
}

// --------------------------------------------------------------------------------------------- options, dumps

TEST(CliModelE2E, LayersOutOfRange) {
  const std::string dir = kFixtures + "/gpt2";  // 3 layers
  for (const char* layers : {"0,3", "-1", "7", "1,x", ""}) {  // "" is no layer, not all of them
    CliResult r = Cli({"model", "--model", dir, "--text", "Hello world", "--no-scale", "--layers", layers});
    ExpectRefused(r, {"--layers"});
  }
  // In range: fine.
  CliResult ok = Cli({"model", "--model", dir, "--text", "Hello world", "--temperature", "2", "--layers", "0,2"});
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST(CliModelE2E, TextLongerThanPositionsRefused) {
  std::string text;
  for (int i = 0; i < 60; ++i) text += "lazy dog ";  // > 96 tokens for the gpt2 fixture
  CliResult r = Cli({"model", "--model", kFixtures + "/gpt2", "--text", text, "--tokens"});
  ExpectRefused(r, {"96"});
}

TEST(CliModelE2E, DumpIntoUnwritableFolderLeavesNothing) {
  const std::string base = TempDir("unwritable");
  fs::create_directories(base);
  WriteBytes(base + "/file", "x");
  CliResult r = Cli({"model", "--model", kFixtures + "/gpt2", "--text", "Hello world", "--dump", base + "/file/out"});
  ExpectRefused(r, {base + "/file"});
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(base)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"file"});
  fs::remove_all(base);
}

TEST(CliModelE2E, DumpThatFailsMidwayLeavesNoPartialFiles) {
  // A file size limit (SIGXFSZ ignored, so writes fail with EFBIG) stops attention.npy part way: the command
  // fails with exit 2 and the folder holds neither a partial file nor the staging folder.
  const std::string out = TempDir("midway");
  fs::create_directories(out);
  CliResult r = Cli({"model", "--model", kFixtures + "/gpt2", "--text",
                     "The quick brown fox jumps over the lazy dog. I'm sure you'll see", "--dump", out},
                    "trap '' XFSZ; ulimit -f 40; ");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_TRUE(fs::is_empty(out)) << "left: " << fs::directory_iterator(out)->path();
  // And a good dump after it replaces nothing it should not: all four files, complete.
  CliResult ok = Cli({"model", "--model", kFixtures + "/gpt2", "--text", "Hello world", "--dump", out});
  ASSERT_EQ(ok.code, 0) << ok.err;
  for (const char* f : {"tokens.json", "attention.npy", "hidden.npy", "roles.csv"}) EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  fs::remove_all(out);
}

}  // namespace
