#include "tokenize/pre_tokenizers.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "tokenize/byte_level.h"
#include "tokenize/unicode.h"

namespace attnviz::tokenize {

const char kGpt2SplitPattern[] = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

// A stretch of a piece, in code points, and whether the pattern matched it.
struct Stretch {
  size_t begin, end;
  bool is_match;
};

// tokenizers' NormalizedString::split: turns the matches into the pieces to keep.
std::vector<Stretch> ApplyBehavior(const std::vector<Stretch>& matches, SplitBehavior behavior) {
  std::vector<Stretch> out;  // is_match now means "remove"
  switch (behavior) {
    case SplitBehavior::kIsolated:
      for (auto m : matches) out.push_back({m.begin, m.end, false});
      break;
    case SplitBehavior::kRemoved:
      out = matches;
      break;
    case SplitBehavior::kContiguous: {
      bool previous_match = false;
      for (auto m : matches) {
        if (m.is_match == previous_match && !out.empty()) out.back().end = m.end;
        else out.push_back({m.begin, m.end, false});
        previous_match = m.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous_match = false;
      for (auto m : matches) {
        if (m.is_match && !previous_match && !out.empty()) out.back().end = m.end;
        else out.push_back({m.begin, m.end, false});
        previous_match = m.is_match;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous_match = false;
      for (auto it = matches.rbegin(); it != matches.rend(); ++it) {
        if (it->is_match && !previous_match && !out.empty()) out.back().begin = it->begin;
        else out.push_back({it->begin, it->end, false});
        previous_match = it->is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
    }
  }
  return out;
}

// Cuts one piece at `matches` (sorted, non-overlapping code point ranges) and appends the kept pieces.
void CutPiece(const Piece& piece, const std::vector<Stretch>& match_ranges, SplitBehavior behavior, bool invert,
              std::vector<Piece>* out) {
  const size_t n = piece.chars.size();
  std::vector<Stretch> all;
  if (n == 0) {
    all.push_back({0, 0, false});
  } else {
    size_t prev = 0;
    for (auto m : match_ranges) {
      if (prev != m.begin) all.push_back({prev, m.begin, false});
      all.push_back({m.begin, m.end, true});
      prev = m.end;
    }
    if (prev != n) all.push_back({prev, n, false});
  }
  if (invert)
    for (auto& s : all) s.is_match = !s.is_match;
  for (auto s : ApplyBehavior(all, behavior)) {
    if (s.is_match || s.end <= s.begin) continue;  // removed, or empty (the library drops empty pieces)
    Piece p;
    p.chars.assign(piece.chars.begin() + long(s.begin), piece.chars.begin() + long(s.end));
    out->push_back(std::move(p));
  }
}

// Each code point for which `is_delimiter` holds is a match of its own (tokenizers' Fn(char) -> bool pattern).
std::vector<Stretch> CharMatches(const AlignedText& chars, const std::function<bool(char32_t)>& is_delimiter) {
  std::vector<Stretch> m;
  for (size_t i = 0; i < chars.size(); ++i)
    if (is_delimiter(chars[i].cp)) m.push_back({i, i + 1, true});
  return m;
}

Result<std::vector<Stretch>> RegexMatches(const AlignedText& chars, const Regex& regex) {
  std::vector<uint32_t> char_at;
  std::string utf8 = ToUtf8(chars, &char_at);
  auto found = regex.FindAll(utf8);
  if (!found.ok()) return found.status();
  std::vector<Stretch> m;
  m.reserve(found->size());
  for (auto [s, e] : *found) m.push_back({char_at[s], char_at[e], true});
  return m;
}

// Applies `cut` to every piece that is not an added token.
Status ForEachWord(std::vector<Piece>* pieces, const std::function<Status(const Piece&, std::vector<Piece>*)>& cut) {
  std::vector<Piece> out;
  out.reserve(pieces->size());
  for (auto& piece : *pieces) {
    if (piece.added_token >= 0) {
      out.push_back(std::move(piece));
      continue;
    }
    Status s = cut(piece, &out);
    if (!s.ok()) return s;
  }
  *pieces = std::move(out);
  return Status::Ok();
}

class ByteLevelPre : public PreTokenizer {
 public:
  ByteLevelPre(bool add_prefix_space, bool use_regex, Regex regex)
      : add_prefix_space_(add_prefix_space), use_regex_(use_regex), regex_(std::move(regex)) {}
  Status PreTokenizeWithin(std::vector<Piece>* pieces, const GrowthBound& bound) const override {
    Status s = ForEachWord(pieces, [&](const Piece& piece, std::vector<Piece>* out) -> Status {
      Piece p = piece;
      if (add_prefix_space_ && !p.chars.empty() && p.chars.front().cp != ' ')
        p.chars.insert(p.chars.begin(), AlignedChar{U' ', p.chars.front().begin, p.chars.front().end});
      if (!use_regex_) {
        if (!p.chars.empty()) out->push_back(std::move(p));
        return Status::Ok();
      }
      auto m = RegexMatches(p.chars, regex_);
      if (!m.ok()) return m.status();
      CutPiece(p, *m, SplitBehavior::kIsolated, false, out);
      return Status::Ok();
    });
    if (!s.ok()) return s;
    for (auto& piece : *pieces)
      if (piece.added_token < 0) piece.chars = ToByteLevelChars(piece.chars);
    return Status::Ok();
  }

 private:
  bool add_prefix_space_, use_regex_;
  Regex regex_;
};

class SplitPre : public PreTokenizer {
 public:
  SplitPre(Regex pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  Status PreTokenizeWithin(std::vector<Piece>* pieces, const GrowthBound& bound) const override {
    return ForEachWord(pieces, [&](const Piece& piece, std::vector<Piece>* out) -> Status {
      auto m = RegexMatches(piece.chars, pattern_);
      if (!m.ok()) return m.status();
      CutPiece(piece, *m, behavior_, invert_, out);
      return Status::Ok();
    });
  }

 private:
  Regex pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class MetaspacePre : public PreTokenizer {
 public:
  MetaspacePre(char32_t replacement, PrependScheme scheme, bool split)
      : replacement_(replacement), scheme_(scheme), split_(split) {}
  Status PreTokenizeWithin(std::vector<Piece>* pieces, const GrowthBound& bound) const override {
    return ForEachWord(pieces, [&](const Piece& piece, std::vector<Piece>* out) -> Status {
      Piece p = piece;
      for (auto& c : p.chars)
        if (c.cp == ' ') c.cp = replacement_;
      bool starts_with_replacement = !p.chars.empty() && p.chars.front().cp == replacement_;
      // The library asks where the piece starts in the original text; an empty piece counts as offset 0.
      bool at_text_start = p.chars.empty() || SpanOf(p.chars, 0, p.chars.size()).begin == 0;
      bool prepend = scheme_ == PrependScheme::kEveryPiece ||
                     (!starts_with_replacement &&
                      (scheme_ == PrependScheme::kAlways || (scheme_ == PrependScheme::kFirst && at_text_start)));
      if (prepend && !p.chars.empty())
        p.chars.insert(p.chars.begin(), AlignedChar{replacement_, p.chars.front().begin, p.chars.front().end});
      if (!split_) {
        if (!p.chars.empty()) out->push_back(std::move(p));
        return Status::Ok();
      }
      char32_t r = replacement_;
      CutPiece(p, CharMatches(p.chars, [r](char32_t c) { return c == r; }), SplitBehavior::kMergedWithNext, false,
               out);
      return Status::Ok();
    });
  }

 private:
  char32_t replacement_;
  PrependScheme scheme_;
  bool split_;
};

class CharSplitPre : public PreTokenizer {
 public:
  CharSplitPre(std::function<bool(char32_t)> is_delimiter, SplitBehavior behavior)
      : is_delimiter_(std::move(is_delimiter)), behavior_(behavior) {}
  Status PreTokenizeWithin(std::vector<Piece>* pieces, const GrowthBound& bound) const override {
    return ForEachWord(pieces, [&](const Piece& piece, std::vector<Piece>* out) -> Status {
      CutPiece(piece, CharMatches(piece.chars, is_delimiter_), behavior_, false, out);
      return Status::Ok();
    });
  }

 private:
  std::function<bool(char32_t)> is_delimiter_;
  SplitBehavior behavior_;
};

class PreTokenizerSequence : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  // Checked after every step: nested or chained steps (16 ByteLevels, each up to 4 x) stop at the bound.
  Status PreTokenizeWithin(std::vector<Piece>* pieces, const GrowthBound& bound) const override {
    for (size_t i = 0; i < steps_.size(); ++i) {
      Status s = steps_[i]->PreTokenizeWithin(pieces, bound);
      if (!s.ok()) return s;
      s = bound.Check("pre_tokenizer Sequence (after step " + std::to_string(i + 1) + ")", CodePoints(*pieces));
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

Regex MustCompile(const std::string& pattern) {
  auto r = Regex::Compile(pattern);
  return std::move(r.value());  // fixed patterns of this file: they compile
}

}  // namespace

std::unique_ptr<PreTokenizer> MakeByteLevelPreTokenizer(bool add_prefix_space, bool use_regex) {
  return std::make_unique<ByteLevelPre>(add_prefix_space, use_regex, MustCompile(kGpt2SplitPattern));
}
std::unique_ptr<PreTokenizer> MakeSplitPreTokenizer(Regex pattern, SplitBehavior behavior, bool invert) {
  return std::make_unique<SplitPre>(std::move(pattern), behavior, invert);
}
std::unique_ptr<PreTokenizer> MakeMetaspacePreTokenizer(char32_t replacement, PrependScheme scheme, bool split) {
  return std::make_unique<MetaspacePre>(replacement, scheme, split);
}
std::unique_ptr<PreTokenizer> MakeDigitsPreTokenizer(bool individual_digits) {
  return std::make_unique<CharSplitPre>(IsNumeric,
                                        individual_digits ? SplitBehavior::kIsolated : SplitBehavior::kContiguous);
}
std::unique_ptr<PreTokenizer> MakeWhitespacePreTokenizer() {
  // The library's \w (Rust regex, Unicode): Alphabetic, marks, decimal digits, connector punctuation, joiners.
  const std::string word = R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}])";
  const std::string not_word_or_space = R"([^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\s])";
  return std::make_unique<SplitPre>(MustCompile(word + "+|" + not_word_or_space + "+"), SplitBehavior::kRemoved,
                                    /*invert=*/true);
}
std::unique_ptr<PreTokenizer> MakeWhitespaceSplitPreTokenizer() {
  return std::make_unique<CharSplitPre>(IsWhitespace, SplitBehavior::kRemoved);
}
std::unique_ptr<PreTokenizer> MakeBertPreTokenizer() {
  std::vector<std::unique_ptr<PreTokenizer>> steps;
  steps.push_back(MakeWhitespaceSplitPreTokenizer());
  steps.push_back(MakePunctuationPreTokenizer(SplitBehavior::kIsolated));
  return MakePreTokenizerSequence(std::move(steps));
}
std::unique_ptr<PreTokenizer> MakePunctuationPreTokenizer(SplitBehavior behavior) {
  return std::make_unique<CharSplitPre>(IsBertPunctuation, behavior);
}
std::unique_ptr<PreTokenizer> MakeCharDelimiterSplit(char32_t delimiter) {
  return std::make_unique<CharSplitPre>([delimiter](char32_t c) { return c == delimiter; }, SplitBehavior::kRemoved);
}
std::unique_ptr<PreTokenizer> MakePreTokenizerSequence(std::vector<std::unique_ptr<PreTokenizer>> steps) {
  return std::make_unique<PreTokenizerSequence>(std::move(steps));
}

}  // namespace attnviz::tokenize
