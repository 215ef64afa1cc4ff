#include "sandbox/text.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/file_io.h"

using namespace attnviz;

namespace {
std::vector<std::string> Texts(std::string_view s) {
  auto t = Tokenize(s);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? TokenTexts(*t) : std::vector<std::string>{};
}
}  // namespace

TEST(Tokenize, WordsAndPunctuation) {
  EXPECT_EQ(Texts("I go home."), (std::vector<std::string>{"I", "go", "home", "."}));
  EXPECT_EQ(Texts("Hello,world!"), (std::vector<std::string>{"Hello", ",", "world", "!"}));
  EXPECT_EQ(Texts("  spaced\tout\n"), (std::vector<std::string>{"spaced", "out"}));
  EXPECT_EQ(Texts("d_k grows"), (std::vector<std::string>{"d_k", "grows"}));
}

// The learner trial: "didn't" came out as didn | ' | t. An apostrophe inside a word stays in it; one that opens or
// closes a word is still punctuation.
TEST(Tokenize, ApostropheInsideAWordKeepsTheWordWhole) {
  EXPECT_EQ(Texts("I didn't go."), (std::vector<std::string>{"I", "didn't", "go", "."}));
  EXPECT_EQ(Texts("it\u2019s l'homme"), (std::vector<std::string>{"it\u2019s", "l'homme"}));
  EXPECT_EQ(Texts("the dogs' bowl"), (std::vector<std::string>{"the", "dogs", "'", "bowl"}));
  EXPECT_EQ(Texts("'tis"), (std::vector<std::string>{"'", "tis"}));
  EXPECT_EQ(Texts("a' b"), (std::vector<std::string>{"a", "'", "b"}));
  EXPECT_EQ(Texts("don't."), (std::vector<std::string>{"don't", "."}));
  EXPECT_EQ(Texts("x'"), (std::vector<std::string>{"x", "'"}));  // at the end of the text
  EXPECT_EQ(Texts("rock'!"), (std::vector<std::string>{"rock", "'", "!"}));
}

TEST(Tokenize, Hangul) {
  EXPECT_EQ(Texts("나는 사과를 먹었다"), (std::vector<std::string>{"나는", "사과를", "먹었다"}));
  EXPECT_EQ(Texts("저는 집에 갑니다."), (std::vector<std::string>{"저는", "집에", "갑니다", "."}));
  EXPECT_EQ(Texts("「안녕」"), (std::vector<std::string>{"「", "안녕", "」"}));
}

TEST(Tokenize, ByteSpansPointIntoTheText) {
  const std::string text = "나는 사과를, 먹었다";
  auto t = Tokenize(text);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 4u);
  for (const Token& tok : *t) {
    EXPECT_EQ(text.substr(tok.byte_begin, tok.byte_end - tok.byte_begin), tok.display);
    // A sandbox word is the one Token with its text in every text field: no vocabulary id, never special.
    EXPECT_EQ(tok.piece, tok.display);
    EXPECT_EQ(tok.bytes, tok.display);
    EXPECT_EQ(tok.id, 0);
    EXPECT_FALSE(tok.special);
  }
  EXPECT_EQ((*t)[0].byte_begin, 0u);
  EXPECT_EQ((*t)[0].byte_end, 6u);  // two 3-byte syllables
  EXPECT_EQ((*t)[2].display, ",");
}

TEST(Tokenize, InvalidUtf8NamesTheByteOffset) {
  auto t = Tokenize(std::string("ok \xC3\x28 bad"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("byte offset 3"), std::string::npos) << t.message();
  auto overlong = Tokenize(std::string("ab\xC0\xAF"));
  ASSERT_FALSE(overlong.ok());
  EXPECT_NE(overlong.message().find("byte offset 2"), std::string::npos) << overlong.message();
  auto truncated = Tokenize(std::string("abc\xE3\x81"));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.message().find("byte offset 3"), std::string::npos);
  auto surrogate = Tokenize(std::string("\xED\xA0\x80"));
  EXPECT_FALSE(surrogate.ok());
}

TEST(Tokenize, EmptyAndWhitespaceOnlyAreErrors) {
  auto empty = Tokenize("");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("empty"), std::string::npos);
  auto blank = Tokenize(" \t \n\u3000");
  ASSERT_FALSE(blank.ok());
  EXPECT_NE(blank.message().find("whitespace"), std::string::npos);
}

TEST(Tokenize, TooManyTokensIsAnError) {
  std::string text;
  for (size_t i = 0; i <= kMaxTokens; ++i) text += "a ";
  auto t = Tokenize(text);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.message().find("8192"), std::string::npos);
}

TEST(SentenceFile, SelfAndCrossItemsCommentsAndBlankLines) {
  const std::string content =
      "# a comment\n"
      "\n"
      "I go home.\n"
      "   \n"
      "Ich gehe nach Hause. ||| I go home.\n"
      "나는 사과를 먹었다\r\n";
  auto items = ParseSentences(content, "s.txt");
  ASSERT_TRUE(items.ok()) << items.message();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_FALSE((*items)[0].is_cross());
  EXPECT_EQ((*items)[0].kv_text, "I go home.");
  EXPECT_EQ((*items)[0].line, 3);
  EXPECT_TRUE((*items)[1].is_cross());
  EXPECT_EQ((*items)[1].query_text, "Ich gehe nach Hause.");
  EXPECT_EQ((*items)[1].kv_text, "I go home.");
  EXPECT_EQ((*items)[1].line, 5);
  EXPECT_EQ((*items)[2].kv_text, "나는 사과를 먹었다");
}

TEST(SentenceFile, ErrorsNameFileAndLine) {
  auto bad_utf8 = ParseSentences("fine\nalso fine\nbroken \xFF here\n", "f.txt");
  ASSERT_FALSE(bad_utf8.ok());
  EXPECT_NE(bad_utf8.message().find("f.txt:3:"), std::string::npos) << bad_utf8.message();
  EXPECT_NE(bad_utf8.message().find("byte offset 22"), std::string::npos) << bad_utf8.message();
  auto empty_side = ParseSentences("ok\n ||| keys here\n", "g.txt");
  ASSERT_FALSE(empty_side.ok());
  EXPECT_NE(empty_side.message().find("g.txt:2:"), std::string::npos) << empty_side.message();
  EXPECT_NE(empty_side.message().find("query"), std::string::npos);
  auto nothing = ParseSentences("# only comments\n\n", "h.txt");
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.message().find("h.txt"), std::string::npos);
  auto missing = LoadSentenceFile("/nonexistent/file.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent/file.txt"), std::string::npos);
}

TEST(SentenceFile, BundledSamplesLoad) {
  auto items = LoadSentenceFile(std::string(ATTNVIZ_SOURCE_DIR) + "/assets/sentences.txt");
  ASSERT_TRUE(items.ok()) << items.message();
  bool has_english = false, has_korean = false, has_long = false, has_cross = false;
  for (const SentenceItem& item : *items) {
    has_english |= item.kv_text == "I go home." && !item.is_cross();
    has_korean |= item.kv_text == "나는 사과를 먹었다";
    has_long |= Tokenize(item.kv_text)->size() >= 60;
    has_cross |= item.is_cross();
  }
  EXPECT_TRUE(has_english && has_korean && has_long && has_cross);
}

// A NUL or another control character went raw into CSV (and SVG is XML, which allows none): refused,
// with the code point and the byte offset. Tab and line ends are whitespace.
TEST(Tokenize, ControlCharactersAreRefused) {
  auto nul = Tokenize(std::string("I go\0home", 9));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.message().find("control character U+0000 at byte offset 4"), std::string::npos) << nul.message();
  auto escape = Tokenize("a\x1b[31m");
  ASSERT_FALSE(escape.ok());
  EXPECT_NE(escape.message().find("U+001B at byte offset 1"), std::string::npos) << escape.message();
  auto c1 = Tokenize("a\xC2\x9B" "b");  // U+009B, a C1 control
  ASSERT_FALSE(c1.ok());
  EXPECT_NE(c1.message().find("U+009B"), std::string::npos) << c1.message();
  auto whitespace = Tokenize("I\tgo\r\nhome");
  ASSERT_TRUE(whitespace.ok()) << whitespace.message();
  EXPECT_EQ(whitespace->size(), 3u);
  auto file = ParseSentences(std::string("fine\nI go\0home\n", 15), "s.txt");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.message().find("s.txt:2:"), std::string::npos) << file.message();
}

TEST(SentenceFile, ReadsAreBounded) {
  auto zero = LoadSentenceFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.message().find("/dev/zero: is not a regular file"), std::string::npos) << zero.message();
  char dir_pattern[] = "/tmp/attnviz-text-XXXXXX";
  ASSERT_NE(mkdtemp(dir_pattern), nullptr);
  const std::string dir = dir_pattern;
  const std::string fifo = dir + "/fifo.txt";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = LoadSentenceFile(fifo);  // must not block waiting for a writer
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_NE(from_fifo.message().find("is not a regular file"), std::string::npos) << from_fifo.message();
  const std::string big = dir + "/big.txt";
  ASSERT_TRUE(WriteFileAtomic(big, "x").ok());
  ASSERT_EQ(truncate(big.c_str(), (off_t)kMaxSentenceFileBytes + 1), 0);
  auto too_big = LoadSentenceFile(big);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.message().find(std::to_string(kMaxSentenceFileBytes + 1) +
                                   " bytes is too large for a sentence file (at most 16 MiB)"),
            std::string::npos) << too_big.message();
  std::filesystem::remove_all(dir);
}

// A sentence file's line is a model's text too (attnviz-cli model --text-file, the app's sentence list): the sandbox's
// word cap applies where the sandbox tokenizes it, not where the file is read, as for --text.
TEST(SentenceFile, LinesPastTheSandboxWordCapAreReadWhole) {
  std::string line;
  for (size_t i = 0; i < kMaxTokens + 100; ++i) line += "a ";
  line += "end";
  auto items = ParseSentences("short line\n" + line + "\nkeys ||| " + line + "\n", "s.txt");
  ASSERT_TRUE(items.ok()) << items.message();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_EQ((*items)[1].kv_text, line);
  EXPECT_EQ((*items)[2].kv_text, line);
  auto sandbox = TokenizeTexts((*items)[1].kv_text, "");
  ASSERT_FALSE(sandbox.ok());
  EXPECT_NE(sandbox.message().find("more than 8192 tokens"), std::string::npos) << sandbox.message();
  // The other checks of a line stay: an empty side, only whitespace.
  auto empty_side = ParseSentences("ok\n ||| " + line + "\n", "g.txt");
  ASSERT_FALSE(empty_side.ok());
  EXPECT_NE(empty_side.message().find("g.txt:2: query sentence (left of '|||'): the text is empty"), std::string::npos)
      << empty_side.message();
  auto spaces = ParseSentences("ok\n\xE3\x80\x80 ||| x\n", "h.txt");  // U+3000 IDEOGRAPHIC SPACE
  ASSERT_FALSE(spaces.ok());
  EXPECT_NE(spaces.message().find("h.txt:2: query sentence (left of '|||'): the text holds only whitespace"),
            std::string::npos)
      << spaces.message();
}
