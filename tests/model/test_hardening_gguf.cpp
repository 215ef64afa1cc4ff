// Issue 44, hardening round 3 (the GGUF side): header counts and strings bounded by what a real file needs and by
// the memory budget, tensors that share bytes, rope.scale_linear = 0 read as "not set"; and model files (GGUF and
// safetensors) that shrink under their map.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "base/memory_budget.h"
#include "gguf_test_util.h"
#include "model/analysis.h"
#include "model/gguf_config.h"
#include "model/gguf_file.h"
#include "model/gguf_weights.h"
#include "model/model.h"
#include "model/run.h"
#include "test_util.h"
#include "tokenize/gguf_tokenizer.h"
#include "tokenize/gguf_vocab.h"

namespace attnviz::model {
namespace {

using testing::CopyDir;
using testing::FixtureDir;
using testing::GgufBytes;
using testing::GgufFixture;
using testing::TempDir;
using testing::WriteBytes;
using ::testing::HasSubstr;

// `b` written at the start of a sparse file of `size` bytes: the file's size alone allows what `b` claims.
Result<std::shared_ptr<const GgufFile>> OpenSparse(const std::string& path, const GgufBytes& b, uint64_t size) {
  WriteBytes(path, b.str());
  std::filesystem::resize_file(path, size);
  return GgufFile::Open(path);
}

// Sets ATTNVIZ_MEMORY_LIMIT for one scope.
class MemoryLimit {
 public:
  explicit MemoryLimit(const char* text) { ::setenv("ATTNVIZ_MEMORY_LIMIT", text, 1); }
  ~MemoryLimit() { ::unsetenv("ATTNVIZ_MEMORY_LIMIT"); }
};

// Counts and lengths the file's size would allow are refused by what a real file needs, naming the field, its value,
// its byte and the bound, before anything is allocated for them.
TEST(HardeningGguf, HeaderCountsAndStringsAreBoundedByWhatARealFileNeeds) {
  TempDir dir;
  const std::string path = dir.File("big.gguf");
  const uint64_t mib = uint64_t(1) << 20;
  {
    GgufBytes b;
    b.Header(3, 500000, 0);  // 16 MiB would hold 524,288 tensor infos of 32 bytes
    auto f = OpenSparse(path, b, 16 * mib);
    ASSERT_FALSE(f.ok());
    EXPECT_THAT(f.message(), HasSubstr("big.gguf: tensor_count = 500000 at byte 8 is more than"));
    EXPECT_THAT(f.message(), HasSubstr("(at most " + std::to_string(GgufFile::kMaxTensors) + ")"));
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1000000);
    auto f = OpenSparse(path, b, 16 * mib);
    ASSERT_FALSE(f.ok());
    EXPECT_THAT(f.message(), HasSubstr("big.gguf: kv_count = 1000000 at byte 16 is more than"));
    EXPECT_THAT(f.message(), HasSubstr("(at most " + std::to_string(GgufFile::kMaxKeys) + ")"));
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Put<uint64_t>(mib);  // a key of 1 MiB
    auto f = OpenSparse(path, b, 2 * mib);
    ASSERT_FALSE(f.ok());
    EXPECT_THAT(f.message(), HasSubstr("big.gguf: the length of key 0 = 1048576 at byte 24 is more than"));
    EXPECT_THAT(f.message(), HasSubstr("(at most " + std::to_string(GgufFile::kMaxKeyBytes) + ")"));
  }
  {
    GgufBytes b;
    b.Header(3, 0, 1).Str("general.name").Put<uint32_t>(8).Put<uint64_t>(100 * mib);
    auto f = OpenSparse(path, b, 101 * mib);
    ASSERT_FALSE(f.ok());
    EXPECT_THAT(f.message(), HasSubstr("the length of the value of 'general.name' = 104857600 at byte 48 is more than"));
    EXPECT_THAT(f.message(), HasSubstr("(at most " + std::to_string(GgufFile::kMaxStringBytes) + ")"));
  }
  // At the bounds a file still parses.
  {
    GgufBytes b;
    b.Header(3, 0, 1).Str(std::string(GgufFile::kMaxKeyBytes, 'k')).Put<uint32_t>(4).Put<uint32_t>(7);
    auto f = OpenSparse(path, b, b.size());
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ((*f)->metadata().size(), 1u);
  }
}

// What the parse holds (about a hundred bytes per array item whatever its size in the file, and every string) is
// checked against the memory limit before it is allocated.
TEST(HardeningGguf, WhatTheParseHoldsIsCheckedAgainstTheMemoryLimit) {
  TempDir dir;
  const std::string path = dir.File("m.gguf");
  GgufBytes items;
  items.Header(3, 0, 1).Str("tokenizer.ggml.token_type").Put<uint32_t>(9).Put<uint32_t>(0).Put<uint64_t>(1000000);
  items.Raw(std::string(1000000, '\1'));
  GgufBytes text;
  text.Header(3, 0, 1).Str("tokenizer.chat_template").Put<uint32_t>(8).Put<uint64_t>(40 << 20);
  {
    MemoryLimit limit("16M");
    auto f = OpenSparse(path, items, items.size());
    ASSERT_FALSE(f.ok());
    EXPECT_THAT(f.message(), HasSubstr("m.gguf: array count of 'tokenizer.ggml.token_type' = 1000000 at byte 65 "
                                       "needs about "));
    EXPECT_THAT(f.message(), HasSubstr("more than the limit of 16.0 MiB"));
    auto g = OpenSparse(path, text, text.size() + (40 << 20));
    ASSERT_FALSE(g.ok());
    EXPECT_THAT(g.message(), HasSubstr("the length of the value of 'tokenizer.chat_template' = 41943040 at byte 59 needs about"));
    EXPECT_THAT(g.message(), HasSubstr("more than the limit of 16.0 MiB"));
  }
  // Under the default limit both are read whole.
  auto f = OpenSparse(path, items, items.size());
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ((*f)->Find("tokenizer.ggml.token_type")->items.size(), 1000000u);
  auto g = OpenSparse(path, text, text.size() + (40 << 20));
  ASSERT_TRUE(g.ok()) << g.message();
  EXPECT_EQ((*g)->Find("tokenizer.chat_template")->s.size(), size_t(40) << 20);
}

// Two tensors whose bytes overlap (the same offset, one reaching into the next, two inside a third) are refused with
// both names and both ranges, whatever the order of their infos; tensors that only touch are fine.
TEST(HardeningGguf, TensorsSharingBytesAreRefusedNamingBothAndTheirRanges) {
  TempDir dir;
  auto open = [&](const GgufBytes& b) {
    WriteBytes(dir.File("t.gguf"), b.str());
    return GgufFile::Open(dir.File("t.gguf"));
  };
  auto expect_refused = [&](const GgufBytes& b, const std::string& names_and_ranges) {
    auto f = open(b);
    ASSERT_FALSE(f.ok());
    EXPECT_THAT(f.message(), HasSubstr(names_and_ranges));
  };
  GgufBytes same;  // data section at 96
  same.Header(3, 2, 0).Info("a", {8}, 0, 0).Info("b", {8}, 0, 0).Align().Floats(std::vector<float>(8, 1));
  expect_refused(same, "t.gguf: tensors 'a' (bytes 96..128) and 'b' (bytes 96..128) share bytes");
  GgufBytes into_next;
  into_next.Header(3, 2, 0).Info("b", {8}, 0, 32).Info("a", {16}, 0, 0).Align().Floats(std::vector<float>(16, 1));
  expect_refused(into_next, "tensors 'a' (bytes 96..160) and 'b' (bytes 128..160) share bytes");
  GgufBytes inside;  // 'c' and 'b' both inside 'a': the first found is named
  inside.Header(3, 3, 0).Info("a", {32}, 0, 0).Info("c", {4}, 0, 32).Info("b", {8}, 0, 64).Align();
  inside.Floats(std::vector<float>(32, 1));
  expect_refused(inside, "tensors 'a' (bytes 128..256) and 'c' (bytes 160..176) share bytes");
  GgufBytes touching;
  touching.Header(3, 2, 0).Info("b", {8}, 0, 32).Info("a", {8}, 0, 0).Align().Floats(std::vector<float>(16, 1));
  auto f = open(touching);
  ASSERT_TRUE(f.ok()) << f.message();
}

// The keys of a small llama file and `extra` after them.
GgufBytes LlamaKeys(const std::vector<std::pair<std::string, float>>& extra, uint64_t n_tensors = 0) {
  GgufBytes b;
  b.Header(3, n_tensors, 7 + extra.size()).KvStr("general.architecture", "llama");
  b.KvU32("llama.block_count", 1).KvU32("llama.embedding_length", 32).KvU32("llama.feed_forward_length", 64);
  b.KvU32("llama.context_length", 64).KvU32("llama.attention.head_count", 4).KvU32("llama.vocab_size", 100);
  for (const auto& [key, value] : extra) b.Str(key).Put<uint32_t>(6).Put<float>(value);
  return b;
}

// llama.cpp reads a rope scale of 0 as "not set" (rope.scaling.factor when present, else rope.scale_linear; 0 is
// 1), so such a file is valid; a negative one is still refused.
TEST(HardeningGguf, RopeScaleZeroMeansNotSet) {
  TempDir dir;
  auto config = [&](const GgufBytes& b) {
    WriteBytes(dir.File("r.gguf"), b.str());
    auto f = GgufFile::Open(dir.File("r.gguf"));
    EXPECT_TRUE(f.ok()) << f.message();
    return GgufModelConfig(**f);
  };
  auto zero = config(LlamaKeys({{"llama.rope.scale_linear", 0.0f}}));
  ASSERT_TRUE(zero.ok()) << zero.message();
  EXPECT_EQ(zero->rope_scaling.kind, RopeScaling::Kind::kNone);
  auto two = config(LlamaKeys({{"llama.rope.scale_linear", 2.0f}}));
  ASSERT_TRUE(two.ok()) << two.message();
  EXPECT_EQ(two->rope_scaling.kind, RopeScaling::Kind::kLinear);
  EXPECT_EQ(two->rope_scaling.factor, 2.0);
  // rope.scaling.factor wins over rope.scale_linear when present (0 included), and means linear without a type.
  auto factor = config(LlamaKeys({{"llama.rope.scaling.factor", 3.0f}, {"llama.rope.scale_linear", 4.0f}}));
  ASSERT_TRUE(factor.ok()) << factor.message();
  EXPECT_EQ(factor->rope_scaling.kind, RopeScaling::Kind::kLinear);
  EXPECT_EQ(factor->rope_scaling.factor, 3.0);
  auto unset = config(LlamaKeys({{"llama.rope.scaling.factor", 0.0f}, {"llama.rope.scale_linear", 4.0f}}));
  ASSERT_TRUE(unset.ok()) << unset.message();
  EXPECT_EQ(unset->rope_scaling.kind, RopeScaling::Kind::kNone);
  auto negative = config(LlamaKeys({{"llama.rope.scale_linear", -2.0f}}));
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.message(), HasSubstr("key 'llama.rope.scale_linear' = -2 is out of range"));
}


// A model file that shrinks while it is mapped (another program rewriting it, a download still in progress) ended the
// process with SIGBUS at the first read past its new end. Now those bytes read as zeros and the run ends with a
// message naming the file; the process goes on. Run in a child process, so a crash fails this test alone.
TEST(HardeningMap, AModelFileThatShrinksUnderItsMapIsAMessageNotACrash) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto shrink_and_run = [] {
    TempDir dir;
    const std::string gguf = dir.File("m.gguf");
    const std::string bytes = testing::ReadBytes(GgufFixture("models/llama_e2e.gguf"));
    WriteBytes(gguf, bytes);
    auto g = LoadGgufModel(gguf);  // F32: the weights are read from the map at every run
    if (!g.ok()) return 3;
    if (::truncate(gguf.c_str(), 4096) != 0) return 4;
    auto run = RunModel(**g, {1, 2, 3});
    if (run.ok() || run.message().find(gguf + ": the file changed while it was read: it is shorter than the " +
                                       std::to_string(bytes.size()) + " bytes") == std::string::npos)
      return 5;
    g = Status::Error("closed");  // the changed map goes with its model; then other files load again
    CopyDir(FixtureDir("gpt2"), dir.File("gpt2"));
    const std::string st = dir.File("gpt2/model.safetensors");
    auto s = LoadModel(dir.File("gpt2"));
    if (!s.ok()) return 6;
    if (::truncate(st.c_str(), 4096) != 0) return 7;
    auto again = RunModel(**s, {1, 2, 3});
    if (again.ok() || again.message().find(st + ": the file changed while it was read") == std::string::npos) return 8;
    return 0;
  };
  EXPECT_EXIT(std::_Exit(shrink_and_run()), ::testing::ExitedWithCode(0), "");
}


// Minor items of issue 44: each message names what is wrong.
TEST(HardeningGguf, MessagesNameWhatIsWrong) {
  // --neuron's layer and head are not "ablate"'s.
  ModelConfig c;
  c.n_layer = 2, c.n_head = 4;
  const Status layer = CheckNeuron(c, 5, 7, 0, 0, 0), head = CheckNeuron(c, 5, 1, 9, 0, 0);
  EXPECT_EQ(layer.message(), "layer 7 is out of range: allowed 0..1 (the model has 2 layers)");
  EXPECT_EQ(head.message(), "head 9 of layer 1 is out of range: allowed 0..3 (the model has 4 heads)");
  TempDir dir;
  auto config = [&](const GgufBytes& b) {
    WriteBytes(dir.File("r.gguf"), b.str());
    auto f = GgufFile::Open(dir.File("r.gguf"));
    EXPECT_TRUE(f.ok()) << f.message();
    return GgufModelConfig(**f);
  };
  // A float past its bound is not printed as equal to it.
  auto past = config(LlamaKeys({{"llama.rope.scale_linear", 1000000.5f}}));
  ASSERT_FALSE(past.ok());
  EXPECT_THAT(past.message(), HasSubstr("'llama.rope.scale_linear' = 1000000.5 is out of range: allowed 0..1e+06"));
  // A 4-D token_embd is there, with the wrong shape.
  GgufBytes b = LlamaKeys({}, 1);
  b.Info("token_embd.weight", {32, 5, 2, 1}, 0, 0).Align().Floats(std::vector<float>(320, 0.5f));
  auto four = config(b);
  ASSERT_FALSE(four.ok());
  EXPECT_THAT(four.message(), HasSubstr("tensor 'token_embd.weight' in "));
  EXPECT_THAT(four.message(), HasSubstr("has ne {32, 5, 2, 1}"));
}

// SentencePiece-style vocabularies: the merges were every split of every token, both sides held as strings and each
// looked up by hashing it anew (L^2 for a token of L bytes): a 2.4 MB vocabulary took 2.8 GiB, one 1 MB token over
// four minutes. They are found from the tokens' prefixes and suffixes now, n log n in the vocabulary's bytes.
TEST(HardeningGguf, SentencePieceMergesCostTheVocabularysBytes) {
  tokenize::GgufVocab v;
  v.where = "v.gguf";
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "b"};  // U+2581 the SentencePiece space
  v.types = {tokenize::GgufTokenType::kUnknown, tokenize::GgufTokenType::kControl, tokenize::GgufTokenType::kControl};
  v.unk = 0, v.bos = 1, v.eos = 2;
  for (int n = 1; n <= 1000; ++n) v.tokens.push_back(std::string((size_t)n, 'a'));  // every split of each is a merge
  v.tokens.push_back(std::string(size_t(1) << 20, 'b'));                          // one token of 1 MiB
  v.types.resize(v.tokens.size(), tokenize::GgufTokenType::kNormal);
  for (const std::string& t : v.tokens) v.scores.push_back(-(float)t.size());
  const auto start = std::chrono::steady_clock::now();
  auto tok = tokenize::MakeGgufTokenizer(v);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(tok.ok()) << tok.message();
  EXPECT_LT(seconds, 20.0);  // a hang guard: well under a second
  // The merges still build the runs: a few tokens that spell the text, not one a byte.
  auto tokens = (*tok)->Encode("aaaaaaa bbb");
  ASSERT_TRUE(tokens.ok()) << tokens.message();
  std::string spelled;
  size_t pieces = 0;
  for (const auto& t : *tokens) {
    if (t.special) continue;
    spelled += t.piece;
    ++pieces;
  }
  EXPECT_EQ(spelled, "\xE2\x96\x81" "aaaaaaa\xE2\x96\x81" "bbb");
  EXPECT_LT(pieces, 8u);
}

}  // namespace
}  // namespace attnviz::model
