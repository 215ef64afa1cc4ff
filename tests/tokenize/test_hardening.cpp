// Issue 25, round 2: hostile tokenizer files and texts cost bounded time and memory, and are refused with a message
// naming the file, the place and the limit. Sizes are chosen so the old code would take minutes (or gigabytes): the
// tests assert results, ctest's timeout is the hang guard.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenize/normalizers.h"
#include "tokenize/regex.h"
#include "tokenize/value_for_message.h"
#include "tokenize_test_util.h"

namespace attnviz::tokenize {
namespace {

using nlohmann::json;
using testing::TempDir;

::testing::AssertionResult Contains(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message.substr(0, 600) << "' does not contain '" << part << "'";
}

// A WordLevel tokenizer.json ([UNK] = 0, "a" = 1) with `changes` merged in at the top level.
json MinimalTokenizer(const json& changes = json::object()) {
  json j = {{"version", "1.0"},
            {"added_tokens", json::array()},
            {"normalizer", nullptr},
            {"pre_tokenizer", nullptr},
            {"post_processor", nullptr},
            {"decoder", nullptr},
            {"model", {{"type", "WordLevel"}, {"vocab", {{"[UNK]", 0}, {"a", 1}}}, {"unk_token", "[UNK]"}}}};
  j.update(changes);
  return j;
}

Result<std::unique_ptr<Tokenizer>> Load(const TempDir& dir, const std::string& text) {
  dir.Write("tokenizer.json", text);
  return LoadTokenizer(dir.path());
}

// `depth` Sequences, one inside the other, around `inner`.
json Nested(const char* list_key, int depth, json inner) {
  for (int i = 0; i < depth; ++i) inner = {{"type", "Sequence"}, {list_key, json::array({inner})}};
  return inner;
}

// ---- cause 2: nesting

TEST(Hardening, DeepSequencesAreRefusedNamingTheSection) {
  TempDir dir;
  auto post = Load(dir, MinimalTokenizer({{"post_processor", Nested("processors", 40, {{"type", "ByteLevel"}})}}).dump());
  ASSERT_FALSE(post.ok());
  EXPECT_TRUE(Contains(post.message(), "tokenizer.json: post_processor.processors[0]"));
  EXPECT_TRUE(Contains(post.message(), "post_processor Sequences nest more than 16 levels deep"));

  auto decoder = Load(dir, MinimalTokenizer({{"decoder", Nested("decoders", 17, {{"type", "ByteLevel"}})}}).dump());
  ASSERT_FALSE(decoder.ok());
  EXPECT_TRUE(Contains(decoder.message(), "decoder Sequences nest more than 16 levels deep"));

  auto pre = Load(dir, MinimalTokenizer({{"pre_tokenizer", Nested("pretokenizers", 300, {{"type", "Whitespace"}})}}).dump());
  ASSERT_FALSE(pre.ok());
  EXPECT_TRUE(Contains(pre.message(), "pre_tokenizer Sequences nest more than 16 levels deep"));

  auto ok = Load(dir, MinimalTokenizer({{"normalizer", Nested("normalizers", 16, {{"type", "Lowercase"}})}}).dump());
  ASSERT_TRUE(ok.ok()) << ok.message();
  auto ids = (*ok)->Encode("A");
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(testing::Ids(*ids), (std::vector<int>{1}));
}

TEST(Hardening, JsonNestedBeyondTheLimitIsRefusedBeforeParsing) {
  TempDir dir;
  // 200,000 levels in a key nobody reads: a parse would build them all (and copies or dumps recurse per level).
  std::string deep = MinimalTokenizer().dump();
  deep.insert(1, "\"unused\": " + std::string(200'000, '[') + std::string(200'000, ']') + ", ");
  auto r = Load(dir, deep);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "tokenizer.json: JSON nests more than 1000 levels deep at byte offset 1010"));
  // Brackets inside strings do not count.
  auto quoted = Load(dir, MinimalTokenizer({{"unused", std::string(5000, '[')}}).dump());
  EXPECT_TRUE(quoted.ok()) << quoted.message();
}

// ---- cause 5: normalizer growth

TEST(Hardening, ChainedReplacesStopAtTheGrowthLimit) {
  TempDir dir;
  json steps = json::array();
  for (int i = 0; i < 36; ++i)
    steps.push_back({{"type", "Replace"}, {"pattern", {{"String", "b"}}}, {"content", "bb"}});
  auto tok = Load(dir, MinimalTokenizer({{"normalizer", {{"type", "Sequence"}, {"normalizers", steps}}}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  auto r = (*tok)->Encode("abc");  // 2^36 b's (800 GiB of aligned text) before the fix
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "normalizer Replace /b/ would make 2050 code points from 3"));
  EXPECT_TRUE(Contains(r.message(), "at most 32 x the input + 1024"));
  auto fine = (*tok)->Encode("a");  // no b: nothing grows
  ASSERT_TRUE(fine.ok()) << fine.message();
}

TEST(Hardening, NestedReplacesAreBoundedByTheOutermostInput) {
  TempDir dir;
  json doubling = {{"type", "Replace"}, {"pattern", {{"String", "b"}}}, {"content", "bb"}};
  json normalizer = {{"type", "Lowercase"}};
  for (int i = 0; i < 16; ++i)  // each Sequence only doubles its own input; together 2^16 x
    normalizer = {{"type", "Sequence"}, {"normalizers", json::array({doubling, normalizer})}};
  auto tok = Load(dir, MinimalTokenizer({{"normalizer", normalizer}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  auto r = (*tok)->Encode(std::string(5000, 'b'));  // 327 M code points (4 GB) before the fix
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "normalizer Replace /b/ would make 320000 code points from 5000: at most 32 x the "
                                    "input + 1024"));
}

TEST(Hardening, NestedByteLevelPreTokenizersAreBounded) {
  TempDir dir;
  json pre = {{"type", "ByteLevel"}, {"add_prefix_space", false}};
  for (int i = 0; i < 16; ++i)  // each ByteLevel turns a 2-byte code point into 2 code points: 2^16 x for Hangul
    pre = {{"type", "Sequence"}, {"pretokenizers", json::array({{{"type", "ByteLevel"}, {"add_prefix_space", false}}, pre})}};
  auto tok = Load(dir, MinimalTokenizer({{"pre_tokenizer", pre}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "나";
  auto r = (*tok)->Encode(text);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "pre_tokenizer Sequence (after step 1) would make"));
  EXPECT_TRUE(Contains(r.message(), "code points from 3000: at most 32 x the input + 1024"));
}

TEST(Hardening, OneReplaceIsRefusedBeforeBuildingItsOutput) {
  TempDir dir;
  json replace = {{"type", "Replace"}, {"pattern", {{"Regex", "\\s"}}}, {"content", std::string(3000, 'z')}};
  auto tok = Load(dir, MinimalTokenizer({{"normalizer", replace}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  auto r = (*tok)->Encode(std::string(10'000, ' '));  // 30 M code points
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "normalizer Replace /\\s/ would make 30000000 code points from 10000"));
  // Unicode's own growth stays inside the limit: U+FDFA is 18 code points in NFKD.
  auto nfkd = Load(dir, MinimalTokenizer({{"normalizer", Nested("normalizers", 1, {{"type", "NFKD"}})}}).dump());
  ASSERT_TRUE(nfkd.ok()) << nfkd.message();
  std::string arabic;
  for (int i = 0; i < 1000; ++i) arabic += "\xEF\xB7\xBA";
  EXPECT_TRUE((*nfkd)->Encode(arabic).ok());
}

// ---- cause 8: regex work per text

TEST(Hardening, RegexWorkIsBudgetedAcrossPositions) {
  TempDir dir;
  json split = {{"type", "Split"}, {"pattern", {{"Regex", "\\w+(?=[\\s\\S]*#)"}}}, {"behavior", "Isolated"}};
  auto tok = Load(dir, MinimalTokenizer({{"pre_tokenizer", split}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  std::string text;
  while (text.size() < 300'000) text += "ab ";  // no '#': every position scans the rest (minutes before the fix)
  auto r = (*tok)->Encode(text);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "regex /\\w+(?=[\\s\\S]*#)/ took more than 601000000 matching steps on a text of "
                                    "300000 bytes (at most 2000 per byte)"));
}

TEST(Hardening, RealPatternsStayFarBelowTheBudget) {
  auto gpt2 = Regex::Compile("'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+");
  ASSERT_TRUE(gpt2.ok());
  std::string text;
  while (text.size() < 100'000) text += "The quick brown fox, 12345 times!  나는 사과를 먹었다.\n";
  uint64_t steps = 0;
  auto m = gpt2->FindAll(text, &steps);
  ASSERT_TRUE(m.ok()) << m.message();
  EXPECT_GT(m->size(), 10'000u);
  EXPECT_LT(steps, 100 * text.size());
  uint64_t word_steps = 0;
  ASSERT_TRUE(gpt2->FindAll(std::string(200'000, 'x'), &word_steps).ok());  // one long word: one scan
  EXPECT_LT(word_steps, 10 * 200'000u);
}

// Issue 44: PCRE2's JIT stack (32 KiB when none is given) ran out on a run of a few hundred capital letters or CJK
// characters in the tekken and gpt-4o splits (llama.cpp's regexes, gguf_tokenizer.cpp), and a valid text was
// refused. The JIT has a stack that grows up to kRegexJitStackBytes; a run that needs more is matched by the
// interpreter, within the same work budget. Each run is one piece, as the patterns say.
TEST(Hardening, LongLetterRunsAreMatchedPastTheJitStack) {
  const std::vector<std::string> patterns = {
      R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
      R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
  };
  auto repeat = [](const std::string& unit, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += unit;
    return s;
  };
  // 2,000 letters overflowed the old stack; 120,000 need more than kRegexJitStackBytes (the interpreter's turn).
  const std::vector<std::string> texts = {repeat("A", 2000), repeat("\xE4\xB8\xAD", 2000), repeat("A", 120000),
                                          repeat("\xE4\xB8\xAD", 120000)};
  for (const std::string& pattern : patterns) {
    auto re = Regex::Compile(pattern);
    ASSERT_TRUE(re.ok()) << re.message();
    for (const std::string& text : texts) {
      auto m = re->FindAll(text);
      ASSERT_TRUE(m.ok()) << text.size() << ": " << m.message();
      EXPECT_EQ(*m, (std::vector<std::pair<size_t, size_t>>{{0, text.size()}})) << text.size();
      EXPECT_TRUE(re->Search(text));
    }
    // Two runs with a space between: two pieces, the second with the space in front.
    const std::string two = repeat("A", 3000) + " " + repeat("B", 3000);
    auto m = re->FindAll(two);
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(*m, (std::vector<std::pair<size_t, size_t>>{{0, 3000}, {3000, 6001}}));
  }
}

// ---- cause 9: added tokens

TEST(Hardening, ManyLongAddedTokensCostTheMatchNotTheCount) {
  TempDir dir;
  json added = json::array();
  const std::string stem(300, 'x');
  for (int i = 0; i < 30'000; ++i)
    added.push_back({{"id", 2 + i}, {"content", stem + std::to_string(i)}, {"special", false}});
  auto tok = Load(dir, MinimalTokenizer({{"added_tokens", added}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  // 150 KB of x before the token: each position walks the shared 300 x's once, not 30,000 tokens' worth.
  std::string text = std::string(150'000, 'x') + stem + "12345 a";
  auto r = (*tok)->Encode(text);
  ASSERT_TRUE(r.ok()) << r.message();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[1].id, 2 + 12345);  // the longest token there (not "…1", "…12", "…123", "…1234")
  EXPECT_EQ((*r)[1].byte_begin, 150'000u);
}

TEST(Hardening, AddedTokensKeepLongestFirstAndTheFirstOfEqualOnes) {
  TempDir dir;
  json added = json::array({{{"id", 5}, {"content", "ab"}},
                            {{"id", 6}, {"content", "abc"}},
                            {{"id", 7}, {"content", "abc"}},
                            {{"id", 8}, {"content", "c"}},
                            {{"id", 9}, {"content", "bcd"}}});
  auto tok = Load(dir, MinimalTokenizer({{"added_tokens", added}, {"pre_tokenizer", {{"type", "Whitespace"}}}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  auto r = (*tok)->Encode("abcd ab abx c");
  ASSERT_TRUE(r.ok());
  // abc (first of the two), then d unknown; ab; ab then x; c.
  EXPECT_EQ(testing::Ids(*r), (std::vector<int>{6, 0, 5, 5, 0, 8}));
}

// ---- cause 10: WordPiece

TEST(Hardening, WordPieceWordLengthIsCappedAndMatchingBounded) {
  TempDir dir;
  json vocab = {{"[UNK]", 0}};
  for (char c = 'a'; c <= 'z'; ++c) {
    vocab[std::string(1, c)] = int(vocab.size());
    vocab["##" + std::string(1, c)] = int(vocab.size());
  }
  json model = {{"type", "WordPiece"}, {"vocab", vocab}, {"unk_token", "[UNK]"}, {"max_input_chars_per_word", 5000}};
  auto refused = Load(dir, MinimalTokenizer({{"model", model}}).dump());
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(Contains(refused.message(), "tokenizer.json: model: max_input_chars_per_word = 5000 is too large: at most 1000"));

  model["max_input_chars_per_word"] = 1000;
  auto tok = Load(dir, MinimalTokenizer({{"model", model}, {"pre_tokenizer", {{"type", "WhitespaceSplit"}}}}).dump());
  ASSERT_TRUE(tok.ok()) << tok.message();
  std::string words;
  for (int w = 0; w < 200; ++w) words += std::string(1000, char('a' + w % 26)) + " ";
  auto r = (*tok)->Encode(words);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->size(), 200'000u);  // every letter a piece of its own
  EXPECT_EQ((*r)[1].id, vocab["##a"].get<int>());
}

// ---- cause 11: combining marks

TEST(Hardening, LongRunsOfMarksAreSortedStablyAndFast) {
  // 150,000 marks of class 230 then 150,000 of class 220: 2.25e10 swaps for an insertion sort.
  constexpr int kEach = 150'000;
  std::string text = "a";
  for (int i = 0; i < kEach; ++i) text += "\xCC\x81";  // U+0301, class 230
  for (int i = 0; i < kEach; ++i) text += "\xCC\x96";  // U+0316, class 220
  text += "b\xCC\x81\xCC\x96";
  AlignedText t = AlignUtf8(text);
  ASSERT_TRUE(MakeUnicodeNormalizer(NormalForm::kNfd)->Normalize(&t).ok());
  ASSERT_EQ(t.size(), size_t(2 * kEach + 4));
  EXPECT_EQ(t[1].cp, char32_t(0x316));
  EXPECT_EQ(t[1].begin, uint32_t(1 + 2 * kEach));  // the first U+0316 keeps its own bytes
  EXPECT_EQ(t[kEach].cp, char32_t(0x316));
  EXPECT_EQ(t[kEach + 1].cp, char32_t(0x301));
  EXPECT_EQ(t[kEach + 1].begin, 1u);
  EXPECT_EQ(t[2 * kEach + 1].cp, U'b');
  EXPECT_EQ(t[2 * kEach + 2].cp, char32_t(0x316));
  EXPECT_EQ(t[2 * kEach + 3].cp, char32_t(0x301));
  // NFC: a + U+0301 compose across the lower-class U+0316 run (not blocked), as utf8proc says for the whole text.
  AlignedText c = AlignUtf8(text);
  ASSERT_TRUE(MakeUnicodeNormalizer(NormalForm::kNfc)->Normalize(&c).ok());
  ASSERT_EQ(c.size(), size_t(2 * kEach + 3));
  EXPECT_EQ(c[0].cp, char32_t(0xE1));
  EXPECT_EQ(c[1].cp, char32_t(0x316));
  EXPECT_EQ(c[kEach + 1].cp, char32_t(0x301));
}

// ---- cause 14: ids past 32 bits

TEST(Hardening, IdsPast32BitsAreRefusedNotWrapped) {
  TempDir gpt;
  gpt.Write("vocab.json", R"({"a": 0, "b": 4294967297})");
  gpt.Write("merges.txt", "#version: 0.2\n");
  auto legacy = LoadTokenizer(gpt.path());
  ASSERT_FALSE(legacy.ok());
  EXPECT_TRUE(Contains(legacy.message(), "vocab.json: token 'b' has an implausible id 4294967297"));

  TempDir dir;
  json model = MinimalTokenizer()["model"];
  model["vocab"]["big"] = 8589934593LL;
  auto vocab = Load(dir, MinimalTokenizer({{"model", model}}).dump());
  ASSERT_FALSE(vocab.ok());
  EXPECT_TRUE(Contains(vocab.message(), "8589934593"));

  auto added = Load(dir, MinimalTokenizer({{"added_tokens", json::array({{{"id", 4294967297LL}, {"content", "<x>"}}})}}).dump());
  ASSERT_FALSE(added.ok());
  EXPECT_TRUE(Contains(added.message(), "tokenizer.json: added_tokens[0]: id 4294967297 is out of range: allowed 0..50000000"));

  auto huge = Load(dir, MinimalTokenizer({{"added_tokens", json::array({{{"id", 18446744073709551615ULL}, {"content", "<x>"}}})}}).dump());
  ASSERT_FALSE(huge.ok());
  EXPECT_TRUE(Contains(huge.message(), "is out of range"));

  json bert = {{"type", "BertProcessing"}, {"sep", json::array({"a", 4294967296LL})}, {"cls", json::array({"a", 1})}};
  auto post = Load(dir, MinimalTokenizer({{"post_processor", bert}}).dump());
  ASSERT_FALSE(post.ok());
  EXPECT_TRUE(Contains(post.message(), "post_processor.sep: id 4294967296 is out of range"));

  json templ = {{"type", "TemplateProcessing"},
                {"single", json::array({{{"SpecialToken", {{"id", "<s>"}}}}, {{"Sequence", {{"id", "A"}}}}})},
                {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", json::array({4294967297LL})}, {"tokens", json::array({"<s>"})}}}}}};
  auto special = Load(dir, MinimalTokenizer({{"post_processor", templ}}).dump());
  ASSERT_FALSE(special.ok());
  EXPECT_TRUE(Contains(special.message(), "id 4294967297 is out of range"));
}

// ---- quoted values

TEST(Hardening, QuotedValuesAreCappedAndNulIsShown) {
  EXPECT_EQ(ValueForMessage("abc"), "abc");
  EXPECT_EQ(ValueForMessage(std::string("a\0b", 3)), "a\\x00b");
  std::string long_value(500, 'q');
  EXPECT_EQ(ValueForMessage(long_value), std::string(80, 'q') + "…(500 bytes)");
  EXPECT_EQ(ValueForMessage(std::string(100, '\xEA')).substr(0, 4), "\\xEA");  // not UTF-8: shown byte by byte

  TempDir dir;
  json model = MinimalTokenizer()["model"];
  model["vocab"][std::string(400, 'k')] = "seven";
  auto r = Load(dir, MinimalTokenizer({{"model", model}}).dump());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.message(), "'" + std::string(80, 'k') + "…(400 bytes)'"));
  EXPECT_FALSE(Contains(r.message(), std::string(81, 'k')));

  // A syntax error quotes the token read so far: an unterminated 100 KB string is cut too.
  auto unterminated = Load(dir, "{\"model\": \"" + std::string(100'000, 'u') + "\n\"}");
  ASSERT_FALSE(unterminated.ok());
  EXPECT_TRUE(Contains(unterminated.message(), "invalid JSON at byte offset"));
  EXPECT_LT(unterminated.message().size(), 1000u);

  json with_nul = MinimalTokenizer()["model"];
  with_nul["vocab"][std::string("x\0y", 3)] = "nine";
  auto n = Load(dir, MinimalTokenizer({{"model", with_nul}}).dump());
  ASSERT_FALSE(n.ok());
  EXPECT_TRUE(Contains(n.message(), "'x\\x00y' has no integer id"));
  EXPECT_EQ(n.message().find('\0'), std::string::npos);
}

// ---- cause 6: a text far past the model's positions stops the tokenizer early

TEST(Hardening, EncodeStopsOnceTheTokensPassMaxTokens) {
  TempDir dir;
  json j = MinimalTokenizer({{"pre_tokenizer", {{"type", "WhitespaceSplit"}}}});
  auto tokenizer = Load(dir, j.dump());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.message();
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "a ";
  auto all = (*tokenizer)->Encode(text);
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(all->size(), 5000u);
  auto stopped = (*tokenizer)->Encode(text, true, 256);
  ASSERT_TRUE(stopped.ok()) << stopped.message();
  EXPECT_EQ(stopped->size(), 257u);  // one past the limit
  EXPECT_EQ(stopped->back().byte_begin, 512u);  // the 257th word: nothing after it was tokenized
  auto fits = (*tokenizer)->Encode("a a", true, 256);
  ASSERT_TRUE(fits.ok()) << fits.message();
  EXPECT_EQ(fits->size(), 2u);  // under the limit: as without it
}

}  // namespace
}  // namespace attnviz::tokenize
