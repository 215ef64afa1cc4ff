// The end of decode(ids): invalid UTF-8 as Python's errors="replace" gives it, str.strip(), clean_up_tokenization
// (each expected string is what CPython 3.11 returns for the same input).
#include <gtest/gtest.h>

#include "tokenize/decoded_text.h"

namespace attnviz::tokenize {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(DecodedText, InvalidUtf8ReadsAsPythonReplacesIt) {
  EXPECT_EQ(ReplaceInvalidUtf8("\xEB\x82\x98 ok"), "\xEB\x82\x98 ok");  // whole characters stay
  EXPECT_EQ(ReplaceInvalidUtf8("\xE2\x96"), kReplacement);             // a cut character: one replacement
  EXPECT_EQ(ReplaceInvalidUtf8("a\xED\xA0\x80" "b"), "a" + kReplacement + kReplacement + kReplacement + "b");  // surrogate
  EXPECT_EQ(ReplaceInvalidUtf8("\xF0\x9F\xA6x\xC3"), kReplacement + "x" + kReplacement);
  EXPECT_EQ(ReplaceInvalidUtf8("\xE0\x80\x80"), kReplacement + kReplacement + kReplacement);  // overlong
  EXPECT_EQ(ReplaceInvalidUtf8("\xFF"), kReplacement);
}

TEST(DecodedText, StripTakesWhatPythonCallsSpace) {
  EXPECT_EQ(StripPythonWhitespace("\xE3\x80\x80 a b\xC2\xA0\n\x1C"), "a b");  // U+3000, U+00A0, \x1c too
  EXPECT_EQ(StripPythonWhitespace("  2026-12-01 "), "2026-12-01");
  EXPECT_EQ(StripPythonWhitespace("\xE2\x80\x8B" "a"), "\xE2\x80\x8B" "a");  // U+200B is not a space to Python
  EXPECT_EQ(StripPythonWhitespace(""), "");
}

TEST(DecodedText, CleanUpJoinsPunctuationAndContractions) {
  EXPECT_EQ(CleanUpTokenizationSpaces("Hello , world . Is it ? Yes !"), "Hello, world. Is it? Yes!");
  EXPECT_EQ(CleanUpTokenizationSpaces("I do n't know , I 'm sure it 's they 're we 've"),
            "I don't know, I'm sure it's they're we've");
  EXPECT_EQ(CleanUpTokenizationSpaces("rock ' n"), "rock'n");
  EXPECT_EQ(CleanUpTokenizationSpaces("no change"), "no change");
}

}  // namespace
}  // namespace attnviz::tokenize
