// UTF-8 text -> tokens with byte spans; sentence files with self and cross items.
//
// Tokenizer: words (runs of letters, digits, marks, including Hangul) and punctuation.
// Whitespace separates words; every punctuation code point is a token of its own, except an apostrophe
// inside a word.
//   "I go home."        -> I | go | home | .
//   "I didn't go."      -> I | didn't | go | .
//   "나는 사과를 먹었다"  -> 나는 | 사과를 | 먹었다
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tokenize/token.h"

namespace attnviz {

// A word of the sandbox as the one Token (tokenize/token.h): piece, bytes and display all its text (valid UTF-8),
// [byte_begin, byte_end) its span in the source text; id 0 and not special (the sandbox has no vocabulary).
Token WordToken(std::string text, size_t byte_begin = 0, size_t byte_end = 0);

// Most tokens one sentence may have (keeps maps within memory: n_head * n_q * n_k floats).
constexpr size_t kMaxTokens = 8192;

// Checks UTF-8; on error the message names the byte offset of the first bad byte.
Status ValidateUtf8(std::string_view text);
// ValidateUtf8, and no control character (C0, DEL, C1) other than tab, CR, LF, NEL: the message
// names the code point and its byte offset. Sentences and figure titles pass through it.
Status ValidatePlainText(std::string_view text);
// Decodes valid UTF-8 into code points.
std::u32string DecodeUtf8(std::string_view text);

// Fails on invalid UTF-8 or a control character (ValidatePlainText: byte offset), empty/whitespace-only
// text, or more than kMaxTokens tokens.
Result<std::vector<Token>> Tokenize(std::string_view text);

// The texts of one request and their tokens, made once and shared (shared_ptr to const) by everything
// that needs them: the forward pass, the scale-flipped twin and the d_k sweep.
struct TokenizedText {
  std::string kv_text, query_text;         // query_text empty in self mode
  std::vector<Token> kv_tokens, query_tokens;
};
// Errors as Tokenize, prefixed "key/value text: " or "query text: " when there is a query text.
Result<std::shared_ptr<const TokenizedText>> TokenizeTexts(const std::string& kv_text, const std::string& query_text);

// Token displays only (labels for figures and panels).
std::vector<std::string> TokenTexts(const std::vector<Token>& tokens);

// One item of a sentence file.
//   self item:  "I go home."                          -> query_text empty, kv_text = the sentence
//   cross item: "Ich gehe nach Hause. ||| I go home." -> queries from the left, keys/values from the right
struct SentenceItem {
  std::string query_text;  // empty for a self-attention item
  std::string kv_text;     // the sentence keys and values come from (and queries too, in self mode)
  int line = 0;            // 1-based line in the file, 0 when not from a file
  bool is_cross() const { return !query_text.empty(); }
};

// The separator between the query sentence and the key/value sentence of a cross item.
constexpr std::string_view kCrossSeparator = "|||";

// Sentence file: UTF-8, one item per line, '#' starts a comment line, blank lines skipped.
// Each item is checked as Tokenize checks a text, so errors name "file:line: ..." (and the byte offset for bad
// UTF-8), but not for kMaxTokens: a line may be a model's text, which takes its whole context (the sandbox refuses a
// longer one where it tokenizes it, as it does a --text).
Result<std::vector<SentenceItem>> ParseSentences(std::string_view content, const std::string& file_name);
// Reads at most kMaxSentenceFileBytes (file_io.h ReadFile: regular files only).
constexpr size_t kMaxSentenceFileBytes = size_t(16) << 20;
Result<std::vector<SentenceItem>> LoadSentenceFile(const std::string& path);

}  // namespace attnviz
