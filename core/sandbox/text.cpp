#include "sandbox/text.h"

#include "io/file_io.h"

namespace attnviz {
namespace {

// Decodes one code point at text[*pos]; returns false on invalid UTF-8 (overlong, surrogate,
// out of range, truncated), leaving *pos at the bad byte.
bool DecodeOne(std::string_view text, size_t* pos, char32_t* cp) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = *pos, n = text.size();
  unsigned char c = s[i];
  if (c < 0x80) { *cp = c; *pos = i + 1; return true; }
  int len;
  char32_t min;
  if ((c & 0xE0) == 0xC0) { len = 2; *cp = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; *cp = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; *cp = c & 0x07; min = 0x10000; }
  else return false;
  if (i + len > n) return false;
  for (int k = 1; k < len; ++k) {
    if ((s[i + k] & 0xC0) != 0x80) return false;
    *cp = (*cp << 6) | (s[i + k] & 0x3F);
  }
  if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return false;
  *pos = i + len;
  return true;
}

bool IsSpace(char32_t c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200B) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000 || c == 0xFEFF;
}

bool IsPunct(char32_t c) {
  if (c < 0x80) {
    if (c == '_') return false;  // identifiers like d_k stay whole
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
  }
  return (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 &&
          c != 0xBA && c != 0xBC && c != 0xBD && c != 0xBE) ||
         c == 0xD7 || c == 0xF7 || (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E) ||
         (c >= 0x3001 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||
         (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65);
}

// An apostrophe (' or U+2019) with a word character on both sides belongs to the word: "didn't" is one token,
// not didn | ' | t. One that opens or closes a word ("'tis", "dogs'") is punctuation.
bool IsInnerApostrophe(std::string_view text, bool in_word, char32_t c, size_t next) {
  if (!in_word || (c != '\'' && c != 0x2019) || next >= text.size()) return false;
  char32_t after;
  DecodeOne(text, &next, &after);
  return !IsSpace(after) && !IsPunct(after);
}

std::string_view TrimSpaces(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

}  // namespace

Status ValidateUtf8(std::string_view text) {
  size_t pos = 0;
  char32_t cp;
  while (pos < text.size()) {
    if (!DecodeOne(text, &pos, &cp)) {
      char byte[8];
      snprintf(byte, sizeof byte, "%02X", (unsigned)(unsigned char)text[pos]);
      return Status::Error(MsgId::kInvalidUtf8, {std::to_string(pos), byte});
    }
  }
  return Status::Ok();
}

std::u32string DecodeUtf8(std::string_view text) {
  std::u32string out;
  size_t pos = 0;
  char32_t cp;
  while (pos < text.size()) {
    if (DecodeOne(text, &pos, &cp)) out.push_back(cp);
    else { out.push_back(0xFFFD); ++pos; }
  }
  return out;
}

Status ValidatePlainText(std::string_view text) {
  if (Status s = ValidateUtf8(text); !s) return s;
  size_t pos = 0;
  char32_t cp;
  while (pos < text.size()) {
    const size_t start = pos;
    DecodeOne(text, &pos, &cp);
    // C0 and C1 controls and DEL, except tab and line ends: a NUL would go raw into CSV, and XML
    // (SVG) allows none of them.
    const bool control = (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || (cp >= 0x7F && cp <= 0x9F && cp != 0x85);
    if (control) {
      char code[16];
      snprintf(code, sizeof code, "U+%04X", (unsigned)cp);
      return Status::Error(MsgId::kControlCharacter, {code, std::to_string(start)});
    }
  }
  return Status::Ok();
}

Token WordToken(std::string text, size_t byte_begin, size_t byte_end) {
  Token t;
  t.piece = text;
  t.bytes = text;
  t.display = std::move(text);
  t.byte_begin = byte_begin;
  t.byte_end = byte_end;
  return t;
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  if (Status s = ValidatePlainText(text); !s) return s;
  std::vector<Token> tokens;
  size_t pos = 0, word_begin = std::string_view::npos;
  auto close_word = [&](size_t end) {
    if (word_begin != std::string_view::npos) {
      tokens.push_back(WordToken(std::string(text.substr(word_begin, end - word_begin)), word_begin, end));
      word_begin = std::string_view::npos;
    }
  };
  while (pos < text.size()) {
    size_t start = pos;
    char32_t cp;
    DecodeOne(text, &pos, &cp);
    if (IsSpace(cp)) {
      close_word(start);
    } else if (IsInnerApostrophe(text, word_begin != std::string_view::npos, cp, pos)) {
      // inside a word: "didn't", "l'homme" stay one token
    } else if (IsPunct(cp)) {
      close_word(start);
      tokens.push_back(WordToken(std::string(text.substr(start, pos - start)), start, pos));
    } else if (word_begin == std::string_view::npos) {
      word_begin = start;
    }
    if (tokens.size() > kMaxTokens) break;
  }
  close_word(text.size());
  if (tokens.empty()) {
    return Status::Error(text.empty() ? MsgId::kTextEmpty : MsgId::kTextOnlySpaces, {});
  }
  if (tokens.size() > kMaxTokens) {
    return Status::Error(MsgId::kTooManyTokens, {std::to_string(kMaxTokens)});
  }
  return tokens;
}

Result<std::shared_ptr<const TokenizedText>> TokenizeTexts(const std::string& kv_text, const std::string& query_text) {
  auto out = std::make_shared<TokenizedText>();
  out->kv_text = kv_text;
  out->query_text = query_text;
  auto kv = Tokenize(kv_text);
  if (!kv) return query_text.empty() ? kv.status() : Status::Prefixed(MsgId::kPrefixKeyValueText, {}, kv.status());
  out->kv_tokens = std::move(*kv);
  if (!query_text.empty()) {
    auto q = Tokenize(query_text);
    if (!q) return Status::Prefixed(MsgId::kPrefixQueryText, {}, q.status());
    out->query_tokens = std::move(*q);
  }
  return std::shared_ptr<const TokenizedText>(std::move(out));
}

std::vector<std::string> TokenTexts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (const Token& t : tokens) out.push_back(t.display);
  return out;
}

namespace {

// What Tokenize checks of a text but its token count: a line of a sentence file may be a model's text, longer than the
// sandbox takes (the sandbox's own Tokenize refuses it there, as it does a --text).
Status CheckSentence(std::string_view text) {
  if (Status s = ValidatePlainText(text); !s) return s;
  if (text.empty()) return Status::Error(MsgId::kTextEmpty, {});
  size_t pos = 0;
  char32_t cp;
  while (pos < text.size()) {
    DecodeOne(text, &pos, &cp);
    if (!IsSpace(cp)) return Status::Ok();  // a word or a punctuation mark: at least one token
  }
  return Status::Error(MsgId::kTextOnlySpaces, {});
}

}  // namespace

Result<std::vector<SentenceItem>> ParseSentences(std::string_view content, const std::string& file_name) {
  std::vector<SentenceItem> items;
  size_t line_begin = 0;
  int line_no = 0;
  if (content.size() >= 3 && content.substr(0, 3) == "\xEF\xBB\xBF") line_begin = 3;  // UTF-8 BOM
  while (line_begin <= content.size()) {
    size_t line_end = content.find('\n', line_begin);
    if (line_end == std::string_view::npos) line_end = content.size();
    ++line_no;
    std::string_view raw = content.substr(line_begin, line_end - line_begin);
    const std::vector<std::string> where = {file_name, std::to_string(line_no)};
    if (Status s = ValidateUtf8(raw); !s) {
      // Report the offset within the file, not the line.
      size_t bad = 0;
      char32_t cp;
      while (bad < raw.size() && DecodeOne(raw, &bad, &cp)) {}
      return Status::Prefixed(
          MsgId::kPrefixFileLine, where,
          Status::Error(MsgId::kFileInvalidUtf8, {std::to_string(line_begin + bad), std::to_string(bad + 1)}));
    }
    std::string_view line = TrimSpaces(raw);
    if (!line.empty() && line[0] != '#') {
      SentenceItem item;
      item.line = line_no;
      size_t sep = line.find(kCrossSeparator);
      if (sep != std::string_view::npos) {
        std::string_view left = TrimSpaces(line.substr(0, sep));
        std::string_view right = TrimSpaces(line.substr(sep + kCrossSeparator.size()));
        if (right.find(kCrossSeparator) != std::string_view::npos)
          return Status::Prefixed(MsgId::kPrefixFileLine, where, Status::Error(MsgId::kMoreThanOneSeparator, {}));
        if (Status lq = CheckSentence(left); !lq)
          return Status::Prefixed(MsgId::kPrefixFileLine, where, Status::Prefixed(MsgId::kPrefixLeftOfSep, {}, lq));
        if (Status rk = CheckSentence(right); !rk)
          return Status::Prefixed(MsgId::kPrefixFileLine, where, Status::Prefixed(MsgId::kPrefixRightOfSep, {}, rk));
        item.query_text = std::string(left);
        item.kv_text = std::string(right);
      } else {
        if (Status t = CheckSentence(line); !t) return Status::Prefixed(MsgId::kPrefixFileLine, where, t);
        item.kv_text = std::string(line);
      }
      items.push_back(std::move(item));
    }
    if (line_end == content.size()) break;
    line_begin = line_end + 1;
  }
  if (items.empty()) return Status::Error(MsgId::kNoSentences, {file_name});
  return items;
}

Result<std::vector<SentenceItem>> LoadSentenceFile(const std::string& path) {
  auto content = ReadFile(path, kMaxSentenceFileBytes, "sentence file");
  if (!content) return content.status();
  return ParseSentences(*content, path);
}

}  // namespace attnviz
