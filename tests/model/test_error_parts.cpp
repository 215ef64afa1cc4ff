// The model loader's errors (config.json, safetensors, the index, binding, tokenizer files, --weights .npy)
// carry message parts, so the app and attnviz-cli can show them in Korean (issue 12): each bad input below
// fails with parts whose English templates, filled and joined, give back exactly message(), and the parts
// keep the facts (file, tensor, shapes) as arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "model/model.h"
#include "model/roles.h"
#include "model/tensor_store.h"
#include "io/npy.h"
#include "test_util.h"
#include "tokenize/tokenizer.h"
#include "sandbox/weights.h"

namespace attnviz::model {
namespace {

using testing::CopyDir;
using testing::FixtureDir;
using testing::MakeSafetensors;
using testing::ReadBytes;
using testing::SafetensorsBytes;
using testing::TempDir;
using testing::WriteBytes;

std::string EnglishFromParts(const Status& s) {
  std::string out;
  for (const MessagePart& part : s.parts()) out += FillTemplate(EnglishTemplate(part.id), part.args);
  return out;
}

::testing::AssertionResult Translatable(const Status& s) {
  if (s.ok()) return ::testing::AssertionFailure() << "no error";
  if (s.parts().empty()) return ::testing::AssertionFailure() << "plain text, no parts: " << s.message();
  for (const MessagePart& part : s.parts())
    if (part.id == MsgId::kNone) return ::testing::AssertionFailure() << "a part without an id: " << s.message();
  const std::string english = EnglishFromParts(s);
  if (english != s.message())
    return ::testing::AssertionFailure() << "parts give '" << english << "', the message is '" << s.message() << "'";
  return ::testing::AssertionSuccess();
}

bool HasArg(const Status& s, const std::string& arg) {
  for (const MessagePart& part : s.parts())
    if (std::find(part.args.begin(), part.args.end(), arg) != part.args.end()) return true;
  return false;
}

TEST(ModelErrorParts, ConfigJson) {
  const char* bad[] = {
      "{",
      "[1]",
      "{}",
      R"({"model_type": "t5"})",
      R"({"model_type": "gpt2"})",
      R"({"model_type": "gpt2", "n_layer": "two", "n_head": 2, "n_embd": 8, "vocab_size": 5})",
      R"({"model_type": "gpt2", "n_layer": 2, "n_head": 3, "n_embd": 8, "vocab_size": 5})",
      R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 5, "activation_function": "tanh"})",
      R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 5, "layer_norm_epsilon": 7})",
      R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 5, "scale_attn_weights": 1})",
      R"({"model_type": "bert", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
          "intermediate_size": 16, "vocab_size": 5, "position_embedding_type": "relative_key"})",
      R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 6,
          "intermediate_size": 16, "vocab_size": 5})",
      R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
          "intermediate_size": 16, "vocab_size": 5, "rope_scaling": {"rope_type": "yarn"}})",
      R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
          "intermediate_size": 16, "vocab_size": 5, "rope_scaling": 3})",
      R"({"model_type": "qwen2", "num_hidden_layers": 1, "num_attention_heads": 2, "hidden_size": 8,
          "intermediate_size": 16, "vocab_size": 5, "use_sliding_window": true})",
  };
  for (const char* text : bad) {
    auto c = ParseModelConfig(text, "m/config.json");
    EXPECT_TRUE(Translatable(c.status())) << text;
    EXPECT_TRUE(HasArg(c.status(), "m/config.json") || c.message().rfind("m/config.json", 0) == 0) << c.message();
  }
  auto missing = ReadModelConfig("/nonexistent/attnviz/config.json");
  EXPECT_TRUE(Translatable(missing.status()));
}

TEST(ModelErrorParts, SafetensorsFiles) {
  TempDir dir;
  const std::string good = MakeSafetensors({{"w", "F32", {2, 2}, std::string(16, '\0')}});
  const std::string bad[] = {
      "abc",
      SafetensorsBytes("{\"w\":", ""),
      std::string("\xff\xff\x00\x00\x00\x00\x00\x00", 8) + "{}",
      SafetensorsBytes("[1, 2]", ""),
      SafetensorsBytes(R"({"w": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}})", std::string(8, '\0')),
      SafetensorsBytes(R"({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", std::string(8, '\0')),
      SafetensorsBytes(R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", std::string(8, '\0')),
      SafetensorsBytes(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 80]}})", std::string(8, '\0')),
      SafetensorsBytes(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                           "v": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                       std::string(8, '\0')),
      SafetensorsBytes(R"({"__metadata__": {"a": 1}})", ""),
      good.substr(0, good.size() - 4),
  };
  for (const std::string& bytes : bad) {
    WriteBytes(dir.File("t.safetensors"), bytes);
    auto f = SafetensorsFile::Open(dir.File("t.safetensors"));
    EXPECT_TRUE(Translatable(f.status()));
    EXPECT_TRUE(HasArg(f.status(), dir.File("t.safetensors"))) << f.message();
  }
  EXPECT_TRUE(Translatable(SafetensorsFile::Open(dir.path()).status()));  // a folder
  EXPECT_TRUE(Translatable(SafetensorsFile::Open(dir.File("nope.safetensors")).status()));
}

TEST(ModelErrorParts, FolderIndexAndBinding) {
  TempDir empty;
  EXPECT_TRUE(Translatable(TensorStore::OpenDir(empty.path()).status()));

  TempDir sharded;
  for (const char* index : {"{", R"({"weight_map": {}})", R"({"weight_map": {"w": "../x.safetensors"}})",
                            R"({"weight_map": {"w": 3}})"}) {
    WriteBytes(sharded.File("model.safetensors.index.json"), index);
    EXPECT_TRUE(Translatable(TensorStore::OpenDir(sharded.path()).status())) << index;
  }

  // A tensor of the wrong shape: both shapes are arguments.
  TempDir wrong_shape;
  testing::CopyWithConfigEdit("gpt2", wrong_shape.path(), "\"n_positions\": 40", "\"n_positions\": 48");
  auto m = LoadModel(wrong_shape.path());
  EXPECT_TRUE(Translatable(m.status()));
  EXPECT_TRUE(HasArg(m.status(), "[40, 32]") && HasArg(m.status(), "[48, 32]")) << m.message();
  EXPECT_TRUE(HasArg(m.status(), "transformer.wpe.weight")) << m.message();

  // A missing tensor with its other name, in the file it was looked for in.
  TempDir other_arch;
  CopyDir(FixtureDir("bert"), other_arch.path());
  WriteBytes(other_arch.File("config.json"), ReadBytes(FixtureDir("gpt2") + "/config.json"));
  auto a = LoadModel(other_arch.path());
  EXPECT_TRUE(Translatable(a.status()));
  EXPECT_EQ(a.status().parts().back().id, MsgId::kTensorMissingIn) << a.message();

  // A config.json missing from the folder.
  TempDir no_config;
  EXPECT_TRUE(Translatable(LoadModel(no_config.path()).status()));
}

TEST(ModelErrorParts, TokenizerFiles) {
  auto load = [](const std::vector<std::pair<std::string, std::string>>& files) {
    TempDir dir;
    for (const auto& [name, text] : files) WriteBytes(dir.File(name), text);
    return tokenize::LoadTokenizer(dir.path()).status();
  };
  const std::string word_level = R"("model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"})";
  const std::vector<std::vector<std::pair<std::string, std::string>>> bad = {
      {},
      {{"vocab.json", "{}"}},
      {{"merges.txt", "a b\n"}},
      {{"vocab.json", R"({"a": 0, "b": 1})"}, {"merges.txt", "a b c\n"}},
      {{"vocab.json", R"({"a": 0, "b": 1})"}, {"merges.txt", "a b\n"}},
      {{"vocab.json", R"({"a": 0, "b": 0})"}, {"merges.txt", ""}},
      {{"vocab.json", R"({"a": "x"})"}, {"merges.txt", ""}},
      {{"vocab.txt", ""}},
      {{"vocab.txt", "a\nb\n"}},
      {{"vocab.txt", "[CLS]\n[SEP]\n[UNK]\n"}, {"tokenizer_config.json", R"({"do_lower_case": "yes"})"}},
      {{"tokenizer.json", "{\"model\": "}},
      {{"tokenizer.json", "[]"}},
      {{"tokenizer.json", "{}"}},
      {{"tokenizer.json", "{" + word_level + ", \"normalizer\": {\"type\": \"Precompiled\"}}"}},
      {{"tokenizer.json", "{" + word_level + ", \"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"(\"}}}"}},
      {{"tokenizer.json", "{" + word_level + ", \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": "
                                             "[{\"type\": \"Split\", \"pattern\": {\"String\": \" \"}, \"behavior\": \"X\"}]}}"}},
      {{"tokenizer.json", R"({"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "[UNK]"}})"}},
      {{"tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}})"}},
      {{"tokenizer.json", "{" + word_level + ", \"added_tokens\": [{\"id\": -1, \"content\": \"x\"}]}"}},
  };
  for (const auto& files : bad) {
    Status s = load(files);
    std::string names;
    for (const auto& f : files) names += f.first + " ";
    EXPECT_TRUE(Translatable(s)) << names;
  }
  EXPECT_TRUE(Translatable(tokenize::LoadTokenizer("/nonexistent/attnviz/model").status()));
}

TEST(ModelErrorParts, NpyAndWeights) {
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  auto npy = [](const std::string& h, const std::string& data) {
    std::string head = h;
    head.append(63 - (10 + head.size()) % 64, ' ');
    head += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += char(head.size() & 0xff);
    out += char(head.size() >> 8);
    return out + head + data;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::string nan_data(8, '\0');
  std::memcpy(&nan_data[4], &nan, 4);
  const std::string bad[] = {
      "not npy at all",
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0')),
      npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", std::string(8, '\0')),
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': 2, }", std::string(8, '\0')),
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2;), }", std::string(8, '\0')),
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
      npy(header, std::string(4, '\0')),
      npy(header, nan_data),
  };
  for (const std::string& bytes : bad) {
    auto t = ParseNpy(bytes, "wq.npy");
    EXPECT_TRUE(Translatable(t.status()));
    EXPECT_TRUE(HasArg(t.status(), "wq.npy")) << t.message();
  }
  ASSERT_TRUE(ParseNpy(npy(header, std::string(8, '\0')), "wq.npy").ok());

  // --weights: a wq.npy of the wrong shape names both shapes.
  TempDir dir;
  WriteBytes(dir.File("wq.npy"), npy(header, std::string(8, '\0')));
  AttentionConfig config;
  ProjectionWeights w;
  Status s = LoadWeights(dir.path(), config, &w);
  EXPECT_TRUE(Translatable(s));
  EXPECT_TRUE(HasArg(s, "[2]")) << s.message();
  EXPECT_TRUE(Translatable(LoadWeights(dir.path() + "/none", config, &w)));
}

TEST(ModelErrorParts, RoleFilter) {
  for (const char* text : {"", "induction", ">= 0.4", "copying >= 0.4", "induction >=", "induction >= x",
                           "induction >= 1.5"}) {
    auto f = ParseRoleFilter(text);
    EXPECT_TRUE(Translatable(f.status())) << text;
    // Every refusal ends with how to write a filter.
    EXPECT_NE(f.message().find("write ROLE OP NUMBER, e.g. 'induction >= 0.4'"), std::string::npos) << f.message();
  }
  EXPECT_TRUE(Translatable(ParseRoleName("copying").status()));
}

}  // namespace
}  // namespace attnviz::model
