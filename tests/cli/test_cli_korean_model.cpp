// attnviz-cli --lang ko on broken model folders and --weights files (issue 12): the loader's refusal in Korean,
// still naming the file, the tensor and both shapes, with exit code 2; the same English text without --lang.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"

namespace {

namespace fs = std::filesystem;
using attnviz::cli_test::Cli;
using attnviz::cli_test::CliResult;
using attnviz::cli_test::HasHangul;

const std::string kTinyDir = std::string(ATTNVIZ_SOURCE_DIR) + "/assets/models/tiny";

// A copy of the bundled model, removed at the end, for a test to break one file of.
class BrokenModel {
 public:
  explicit BrokenModel(const std::string& name)
      : dir_((fs::temp_directory_path() / ("attnviz_cli_ko_" + name + "_" + std::to_string(::getpid()))).string()) {
    fs::remove_all(dir_);
    fs::copy(kTinyDir, dir_, fs::copy_options::recursive);
  }
  ~BrokenModel() { fs::remove_all(dir_); }
  const std::string& dir() const { return dir_; }
  std::string File(const std::string& name) const { return dir_ + "/" + name; }
  void Write(const std::string& name, const std::string& bytes) const {
    std::ofstream(File(name), std::ios::binary) << bytes;
  }
  // config.json with `from` replaced by `to`.
  void EditConfig(const std::string& from, const std::string& to) const {
    std::ifstream f(File("config.json"), std::ios::binary);
    std::string cfg(std::istreambuf_iterator<char>(f), {});
    ASSERT_NE(cfg.find(from), std::string::npos) << from;
    Write("config.json", cfg.replace(cfg.find(from), from.size(), to));
  }

 private:
  std::string dir_;
};

// The model command on `dir` in Korean and in English (a C locale, no --lang): both refuse with exit code 2,
// the Korean one saying `ko`, the English one `en`.
void ExpectRefusal(const std::string& dir, const std::string& ko, const std::string& en) {
  const CliResult in_ko = Cli({"--lang", "ko", "model", "--model", dir, "--text", "the cat sat"});
  const CliResult in_en = Cli({"model", "--model", dir, "--text", "the cat sat"}, "LC_ALL=C; export LC_ALL; ");
  EXPECT_EQ(in_ko.code, 2) << in_ko.err;
  EXPECT_EQ(in_en.code, 2) << in_en.err;
  EXPECT_TRUE(HasHangul(in_ko.err)) << in_ko.err;
  EXPECT_FALSE(HasHangul(in_en.err)) << in_en.err;
  EXPECT_NE(in_ko.err.find(ko), std::string::npos) << in_ko.err;
  EXPECT_NE(in_en.err.find(en), std::string::npos) << in_en.err;
}

TEST(CliKoreanModel, MissingConfigJson) {
  BrokenModel m("no_config");
  fs::remove(m.File("config.json"));
  ExpectRefusal(m.dir(), m.File("config.json") + ": 열 수 없습니다: ", m.File("config.json") + ": cannot open: ");
}

TEST(CliKoreanModel, BadConfigValue) {
  BrokenModel m("bad_config");
  m.EditConfig("\"n_head\": 4", "\"n_head\": 3");
  ExpectRefusal(m.dir(), m.File("config.json") + ": n_embd 128은(는) n_head 3의 배수가 아닙니다",
                m.File("config.json") + ": n_embd 128 is not a multiple of n_head 3");
}

TEST(CliKoreanModel, TensorOfTheWrongShapeNamesBothShapes) {
  BrokenModel m("wrong_shape");
  m.EditConfig("\"n_positions\": 256", "\"n_positions\": 300");
  ExpectRefusal(m.dir(),
                "gpt2 체크포인트: " + m.File("model.safetensors") +
                    "의 텐서 'transformer.wpe.weight'의 shape는 [256, 128]이지만 config.json에 따르면 [300, 128]이어야 합니다",
                "gpt2 checkpoint: tensor 'transformer.wpe.weight' in " + m.File("model.safetensors") +
                    " has shape [256, 128] but config.json needs [300, 128]");
}

TEST(CliKoreanModel, TruncatedSafetensors) {
  BrokenModel m("truncated");
  m.Write("model.safetensors", "abcde");
  ExpectRefusal(m.dir(), m.File("model.safetensors") + ": 잘린 파일입니다: 5바이트로",
                m.File("model.safetensors") + ": truncated: 5 bytes");
}

TEST(CliKoreanModel, BadTokenizerJson) {
  BrokenModel m("bad_tokenizer");
  m.Write("tokenizer.json", "{\"model\": ");
  ExpectRefusal(m.dir(), m.File("tokenizer.json") + ": 바이트 오프셋 10(1번째 줄, 11번째 열)에서 JSON이 잘못되었습니다: ",
                m.File("tokenizer.json") + ": invalid JSON at byte offset 10 (line 1, column 11): ");
  m.Write("tokenizer.json", R"({"model": {"type": "CharLevel", "vocab": []}})");
  ExpectRefusal(m.dir(), m.File("tokenizer.json") + ": model 종류 'CharLevel'은(는) 지원하지 않습니다; 지원: BPE, WordPiece, WordLevel, Unigram",
                m.File("tokenizer.json") + ": model type 'CharLevel' is not supported; supported: BPE, WordPiece, WordLevel, Unigram");
}

TEST(CliKoreanModel, BadWeightsFile) {
  BrokenModel m("weights");
  m.Write("wq.npy", "not an npy file");
  CliResult ko = Cli({"--lang", "ko", "compute", "--text", "a b", "--weights", m.dir()});
  EXPECT_EQ(ko.code, 2);
  EXPECT_NE(ko.err.find(m.File("wq.npy") + ": 올바른 .npy 파일이 아닙니다: \\x93NUMPY 매직 바이트가 없습니다"),
            std::string::npos)
      << ko.err;
  CliResult en = Cli({"compute", "--text", "a b", "--weights", m.dir()}, "LC_ALL=C; export LC_ALL; ");
  EXPECT_EQ(en.code, 2);
  EXPECT_NE(en.err.find(m.File("wq.npy") + ": not a valid .npy file: missing \\x93NUMPY magic"), std::string::npos)
      << en.err;
}

TEST(CliKoreanModel, UsageErrorsInKorean) {
  CliResult r = Cli({"--lang", "ko", "model", "--text", "a b"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--model DIR 이 필요합니다"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "model", "--model", "tiny", "--text", "a b", "--json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--json 은 --roles, --predict, --neuron, --ablate-scan, --token-loss 또는 --logit-lens 와 함께 씁니다"), std::string::npos) << r.err;
  r = Cli({"--lang", "ko", "model", "--model", "tiny", "--text", "a b", "--no-scale", "--layers", "7"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--layers: 7 은(는) 범위를 벗어났습니다: 허용 범위 0..1"), std::string::npos) << r.err;
  r = Cli({"model", "--model", "tiny", "--text", "a b", "--no-scale", "--layers", "7"}, "LC_ALL=C; export LC_ALL; ");
  EXPECT_NE(r.err.find("--layers: 7 is out of range: allowed 0..1"), std::string::npos) << r.err;
}

TEST(CliKoreanModel, HelpIsKorean) {
  CliResult r = Cli({"--lang", "ko", "model", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("사용법: attnviz-cli model --model DIR|FILE.gguf|tiny"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("층마다 각 헤드의 평균 최대 어텐션과 엔트로피"), std::string::npos) << r.out;
  for (const char* option : {"--model", "--text", "--text-file", "--tokens", "--roles", "--json", "--dump", "--no-scale",
                             "--temperature", "--layers"})
    EXPECT_NE(r.out.find(std::string("\n  ") + option + " "), std::string::npos) << option;
  r = Cli({"--lang", "en", "model", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_FALSE(HasHangul(r.out)) << r.out;
  EXPECT_NE(r.out.find("usage: attnviz-cli model --model DIR|FILE.gguf|tiny"), std::string::npos) << r.out;
}

}  // namespace

// The per-head table under --lang ko says the model, its tokenizer and each layer in Korean, as the app's Model
// panel does (the trial saw "2 layers ... byte-level, 1025 tokens" and "layer 0:" there); English stays English.
TEST(CliKoreanModel, PerHeadTableDescribesTheModelInKorean) {
  const CliResult ko = Cli({"--lang", "ko", "model", "--model", "tiny", "--text", "the cat sat"});
  ASSERT_EQ(ko.code, 0) << ko.err;
  for (const char* english : {" layers", "heads x", "byte-level", " tokens", "layer 0:", "layer 1:"})
    EXPECT_EQ(ko.out.find(english), std::string::npos) << english << "\n" << ko.out;
  for (const char* korean : {"층 2개", "바이트 단위", "토큰 ", "\n층 0:", "\n층 1:"})
    EXPECT_NE(ko.out.find(korean), std::string::npos) << korean << "\n" << ko.out;
  const CliResult en = Cli({"model", "--model", "tiny", "--text", "the cat sat"}, "LC_ALL=C; export LC_ALL; ");
  ASSERT_EQ(en.code, 0) << en.err;
  EXPECT_FALSE(HasHangul(en.out)) << en.out;
  for (const char* english : {"2 layers", "byte-level", "\nlayer 0:", "\nlayer 1:"})
    EXPECT_NE(en.out.find(english), std::string::npos) << english << "\n" << en.out;
}
