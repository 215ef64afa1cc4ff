#include "tokenize/added_vocabulary.h"

#include <algorithm>
#include <utility>

#include "tokenize/regex.h"
#include "tokenize/unicode.h"

namespace attnviz::tokenize {
namespace {

// The library's \w (Rust regex, Unicode): Alphabetic, marks, decimal numbers, connector punctuation, joiners.
bool IsWordCharacter(char32_t cp) {
  static const Regex word = std::move(
      Regex::Compile(R"(^[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}]$)").value());
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
  return word.Search(ToUtf8(cp));
}

}  // namespace

Result<AddedVocabulary> AddedVocabulary::Create(std::vector<AddedToken> tokens, const Normalizer* normalizer) {
  AddedVocabulary v;
  v.tokens_ = std::move(tokens);
  for (size_t i = 0; i < v.tokens_.size(); ++i) {
    const AddedToken& t = v.tokens_[i];
    std::string pattern = t.content;
    if (t.normalized && normalizer) {
      AlignedText text = AlignUtf8(t.content);
      Status s = normalizer->Normalize(&text);
      if (!s.ok()) return s;
      pattern = ToUtf8(text);
    }
    if (pattern.empty()) continue;  // an empty token can never be found
    Matcher& m = t.normalized ? v.normalized_ : v.raw_;
    m.patterns.emplace_back(pattern, int(i));
  }
  for (Matcher* m : {&v.raw_, &v.normalized_}) std::sort(m->patterns.begin(), m->patterns.end());
  return v;
}

std::pair<int, size_t> AddedVocabulary::Matcher::LongestAt(std::string_view text) const {
  // Invariant: patterns[lo, hi) are those that start with text[0, k).
  size_t lo = 0, hi = patterns.size(), k = 0;
  std::pair<int, size_t> best{-1, 0};
  while (lo < hi) {
    // All patterns of the range share their first `common` bytes (those of the first and the last, as sorted).
    const std::string& first = patterns[lo].first;
    const std::string& last = patterns[hi - 1].first;
    size_t common = k;
    while (common < first.size() && common < last.size() && first[common] == last[common]) ++common;
    for (; k < common; ++k)
      if (k >= text.size() || text[k] != first[k]) return best;
    if (first.size() == k) {  // a whole pattern (the lowest index among equal ones sorts first)
      best = {patterns[lo].second, k};
      ++lo;
      while (lo < hi && patterns[lo].first.size() == k) ++lo;  // the same content again
    }
    if (k >= text.size() || lo >= hi) return best;
    // Narrow to the patterns whose byte k is text[k]; every one left is longer than k.
    const unsigned char c = static_cast<unsigned char>(text[k]);
    auto byte_at = [k](const std::pair<std::string, int>& p) { return static_cast<unsigned char>(p.first[k]); };
    auto begin = patterns.begin() + long(lo), end = patterns.begin() + long(hi);
    auto from = std::partition_point(begin, end, [&](const auto& p) { return byte_at(p) < c; });
    auto to = std::partition_point(from, end, [&](const auto& p) { return byte_at(p) == c; });
    lo = size_t(from - patterns.begin());
    hi = size_t(to - patterns.begin());
    ++k;
  }
  return best;
}

void AddedVocabulary::Split(const Matcher& matcher, std::vector<Piece>* pieces) const {
  if (matcher.patterns.empty()) return;
  std::vector<Piece> out;
  out.reserve(pieces->size());
  for (auto& piece : *pieces) {
    if (piece.added_token >= 0) {
      out.push_back(std::move(piece));
      continue;
    }
    std::vector<uint32_t> char_at;
    const std::string s = ToUtf8(piece.chars, &char_at);
    const AlignedText& chars = piece.chars;
    std::vector<size_t> byte_of(chars.size() + 1, s.size());  // code point index -> its first byte
    for (size_t b = s.size(); b-- > 0;) byte_of[char_at[b]] = b;
    auto emit = [&](size_t first, size_t last, int token) {
      if (first >= last) return;
      Piece p;
      p.chars.assign(chars.begin() + long(first), chars.begin() + long(last));
      p.added_token = token;
      out.push_back(std::move(p));
    };
    size_t done = 0;  // code points already emitted
    size_t pos = 0;   // byte where the search goes on
    while (pos < s.size()) {
      auto [found, length] = matcher.LongestAt(std::string_view(s).substr(pos));
      if (found < 0) {
        ++pos;
        continue;
      }
      size_t start = char_at[pos], stop = char_at[pos + length];
      pos += length;  // the matcher goes on after this match even when the token is then discarded
      const AddedToken& t = tokens_[size_t(found)];
      if (t.single_word) {
        bool word_before = start > 0 && IsWordCharacter(chars[start - 1].cp);
        bool word_after = stop < chars.size() && IsWordCharacter(chars[stop].cp);
        if (word_before || word_after) continue;
      }
      if (t.lstrip) {
        size_t new_start = start;
        while (new_start > 0 && IsWhitespace(chars[new_start - 1].cp)) --new_start;
        start = std::max(new_start, done);  // spaces an earlier match took stay with it
      }
      if (t.rstrip)
        while (stop < chars.size() && IsWhitespace(chars[stop].cp)) ++stop;
      emit(done, start, -1);
      emit(start, stop, found);
      done = stop;
      pos = std::max(pos, byte_of[stop]);  // continue after the match, and after the spaces rstrip took
    }
    emit(done, chars.size(), -1);
  }
  *pieces = std::move(out);
}

}  // namespace attnviz::tokenize
