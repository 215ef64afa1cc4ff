// core/io/json.*: strings are always valid JSON, whatever bytes they are given.
#include "io/json.h"

#include <gtest/gtest.h>

#include "sandbox/text.h"

using namespace attnviz;

namespace {

// Bytes that are not UTF-8 (a GGUF vocabulary's token strings are never checked) are written as the text \xNN, so
// the output is valid UTF-8 and valid JSON; valid UTF-8 passes through.
TEST(JsonString, BytesThatAreNotUtf8AreWrittenAsEscapes) {
  EXPECT_EQ(JsonString("caf\xC3\xA9 \xEA\xB0\x80"), "\"caf\xC3\xA9 \xEA\xB0\x80\"");
  const std::string lone = JsonString("a\xFF" "b");
  EXPECT_EQ(lone, "\"a\\\\xffb\"");
  // A cut sequence, an overlong form, a surrogate, past U+10FFFF: each bad byte escaped, the rest kept.
  EXPECT_EQ(JsonString("\xE4\xB8"), "\"\\\\xe4\\\\xb8\"");
  EXPECT_EQ(JsonString("\xC0\xAF"), "\"\\\\xc0\\\\xaf\"");
  EXPECT_EQ(JsonString("\xED\xA0\x80x"), "\"\\\\xed\\\\xa0\\\\x80x\"");
  EXPECT_EQ(JsonString("\xF4\x90\x80\x80"), "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"");
  EXPECT_EQ(JsonString("\xE4\xB8\xAD\xE4"), "\"\xE4\xB8\xAD\\\\xe4\"");
  for (const char* s : {"\xFF", "\xE4\xB8", "\xC0\xAF", "\xED\xA0\x80", "\x80\x80", "ok\xF0\x9F\x98"})
    EXPECT_TRUE(ValidateUtf8(JsonString(s)).ok()) << s;
  EXPECT_EQ(JsonStringArray({"\xFE", "x"}), "[\"\\\\xfe\", \"x\"]");
}

// What the app shows of a vocabulary's piece: the same \xNN, unescaped otherwise.
TEST(JsonString, EscapeInvalidUtf8KeepsValidTextAndShowsBadBytes) {
  EXPECT_EQ(EscapeInvalidUtf8("a\xFF" "b\xEA\xB0\x80 \"q\""), "a\\xffb\xEA\xB0\x80 \"q\"");
  EXPECT_EQ(EscapeInvalidUtf8("\xF0\x9F\x98"), "\\xf0\\x9f\\x98");
  EXPECT_EQ(EscapeInvalidUtf8("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
}

}  // namespace
