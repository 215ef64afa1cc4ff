#include "tokenize/normalizers.h"

#include <algorithm>
#include <utility>

#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {
namespace {

bool IsHangulJamoVowelOrTrail(char32_t c) { return (c >= 0x1161 && c <= 0x1175) || (c >= 0x11A8 && c <= 0x11C2); }

// Canonical ordering: each run of non-starters is stably sorted by combining class, carrying alignment along
// (a sort per run, not insertion over the text, which is quadratic in a long run of marks).
void ReorderMarks(AlignedText* text) {
  AlignedText& t = *text;
  std::vector<std::pair<int, AlignedChar>> run;  // (combining class, code point) of the current run
  size_t i = 0;
  while (i < t.size()) {
    if (CombiningClass(t[i].cp) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    run.clear();
    for (int c; j < t.size() && (c = CombiningClass(t[j].cp)) != 0; ++j) run.emplace_back(c, t[j]);
    if (run.size() > 1) {
      std::stable_sort(run.begin(), run.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t k = 0; k < run.size(); ++k) t[i + k] = run[k].second;
    }
    i = j;
  }
}

// Composition: each segment (a starter and the marks or Hangul jamo that may join it) is composed on its own,
// so the composed code points keep the spans of what they were made from. The whole-string form from utf8proc
// is the reference; in the rare case a composition crosses segments, alignment falls back to the whole text.
void ComposeAligned(AlignedText* text, NormalForm form) {
  AlignedText& t = *text;
  AlignedText out;
  out.reserve(t.size());
  size_t i = 0;
  while (i < t.size()) {
    size_t j = i + 1;
    while (j < t.size() && (CombiningClass(t[j].cp) != 0 || IsHangulJamoVowelOrTrail(t[j].cp))) ++j;
    if (j == i + 1 && t[i].cp < 0x300) {  // a lone code point below the first combining mark never changes
      out.push_back(t[i]);
      i = j;
      continue;
    }
    std::u32string segment;
    for (size_t k = i; k < j; ++k) segment.push_back(t[k].cp);
    std::u32string composed = NormalizeString(segment, form);
    if (composed.size() == segment.size()) {
      for (size_t k = 0; k < composed.size(); ++k) out.push_back({composed[k], t[i + k].begin, t[i + k].end});
    } else {
      ByteSpan span = SpanOf(t, i, j);
      for (char32_t cp : composed) out.push_back({cp, span.begin, span.end});
    }
    i = j;
  }
  std::u32string whole, mine;
  for (const auto& c : t) whole.push_back(c.cp);
  for (const auto& c : out) mine.push_back(c.cp);
  std::u32string reference = NormalizeString(whole, form);
  if (reference != mine) {
    ByteSpan span = SpanOf(t, 0, t.size());
    out.clear();
    for (char32_t cp : reference) out.push_back({cp, span.begin, span.end});
  }
  t = std::move(out);
}

class UnicodeNormalizer : public Normalizer {
 public:
  explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    bool compat = form_ == NormalForm::kNfkc || form_ == NormalForm::kNfkd;
    DecomposeAligned(text, compat);
    if (form_ == NormalForm::kNfc || form_ == NormalForm::kNfkc) ComposeAligned(text, form_);
    return Status::Ok();
  }
  std::string name() const override {
    switch (form_) {
      case NormalForm::kNfc: return "NFC";
      case NormalForm::kNfd: return "NFD";
      case NormalForm::kNfkc: return "NFKC";
      case NormalForm::kNfkd: return "NFKD";
    }
    return "NFC";
  }

 private:
  NormalForm form_;
};

class Lowercase : public Normalizer {
 public:
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    LowercaseAligned(text);
    return Status::Ok();
  }
  std::string name() const override { return "Lowercase"; }
};

void StripMarks(AlignedText* text, bool (*is_stripped)(char32_t)) {
  AlignedText out;
  out.reserve(text->size());
  for (const auto& c : *text)
    if (!is_stripped(c.cp)) out.push_back(c);
  *text = std::move(out);
}

class StripAccents : public Normalizer {
 public:
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    StripMarks(text, IsMark);  // every mark, spacing ones too (unlike BertNormalizer)
    return Status::Ok();
  }
  std::string name() const override { return "StripAccents"; }
};

class Replace : public Normalizer {
 public:
  Replace(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(AlignUtf8(content)) {}
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    std::vector<uint32_t> char_at;
    std::string utf8 = ToUtf8(*text, &char_at);
    auto matches = pattern_.FindAll(utf8);
    if (!matches.ok()) return matches.status();
    if (matches->empty()) return Status::Ok();
    size_t matched = 0;  // code points the matches cover
    for (auto [s, e] : *matches) matched += char_at[e] - char_at[s];
    const size_t out_size = text->size() - matched + matches->size() * content_.size();
    if (Status s = bound.Check("normalizer " + name(), out_size); !s.ok()) return s;  // before building it
    AlignedText out;
    out.reserve(out_size);
    size_t next = 0;  // next code point of `text` not yet copied
    for (auto [s, e] : *matches) {
      size_t first = char_at[s], last = char_at[e];
      while (next < first) out.push_back((*text)[next++]);
      // The replacement stands for the matched code points; an empty match borrows its neighbour's span.
      ByteSpan span = first < last ? SpanOf(*text, first, last)
                       : first < text->size() ? ByteSpan{(*text)[first].begin, (*text)[first].end}
                       : text->empty() ? ByteSpan{} : ByteSpan{text->back().begin, text->back().end};
      for (const auto& c : content_) out.push_back({c.cp, span.begin, span.end});
      next = last;
    }
    while (next < text->size()) out.push_back((*text)[next++]);
    *text = std::move(out);
    return Status::Ok();
  }
  std::string name() const override { return "Replace /" + ValueForMessage(pattern_.pattern()) + "/"; }

 private:
  Regex pattern_;
  AlignedText content_;
};

class Prepend : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(AlignUtf8(prefix)) {}
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    if (text->empty()) return Status::Ok();
    if (Status s = bound.Check("normalizer " + name(), text->size() + prefix_.size()); !s.ok()) return s;
    AlignedText out;
    out.reserve(text->size() + prefix_.size());
    for (const auto& c : prefix_) out.push_back({c.cp, text->front().begin, text->front().end});
    out.insert(out.end(), text->begin(), text->end());
    *text = std::move(out);
    return Status::Ok();
  }
  std::string name() const override { return "Prepend"; }

 private:
  AlignedText prefix_;
};

class Strip : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    size_t b = 0, e = text->size();
    if (left_)
      while (b < e && IsWhitespace((*text)[b].cp)) ++b;
    if (right_)
      while (e > b && IsWhitespace((*text)[e - 1].cp)) --e;
    *text = AlignedText(text->begin() + long(b), text->begin() + long(e));
    return Status::Ok();
  }
  std::string name() const override { return "Strip"; }

 private:
  bool left_, right_;
};

class BertNormalizer : public Normalizer {
 public:
  explicit BertNormalizer(const BertNormalizerOptions& o) : options_(o) {}
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    AlignedText out;
    out.reserve(text->size());
    for (AlignedChar c : *text) {
      if (options_.clean_text) {
        bool control = c.cp != '\t' && c.cp != '\n' && c.cp != '\r' && IsOtherCategory(c.cp);
        if (c.cp == 0 || c.cp == 0xFFFD || control) continue;
        if (c.cp == '\t' || c.cp == '\n' || c.cp == '\r' || IsWhitespace(c.cp)) c.cp = ' ';
      }
      if (options_.handle_chinese_chars && IsCjkIdeograph(c.cp)) {
        out.push_back({U' ', c.begin, c.end});
        out.push_back(c);
        out.push_back({U' ', c.begin, c.end});
        continue;
      }
      out.push_back(c);
    }
    if (options_.strip_accents) {
      DecomposeAligned(&out, /*compat=*/false);
      StripMarks(&out, IsNonspacingMark);
    }
    if (options_.lowercase) LowercaseAligned(&out);
    *text = std::move(out);
    return Status::Ok();
  }
  std::string name() const override { return "BertNormalizer"; }

 private:
  BertNormalizerOptions options_;
};

class NormalizerSequence : public Normalizer {
 public:
  explicit NormalizerSequence(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  // Checked after every step, so steps that each stay in bounds (doubling 40 times) are stopped as soon as the
  // text outgrows the bound, not after.
  Status NormalizeWithin(AlignedText* text, const GrowthBound& bound) const override {
    for (size_t i = 0; i < steps_.size(); ++i) {
      Status s = steps_[i]->NormalizeWithin(text, bound);
      if (!s.ok()) return s;
      const std::string step = std::to_string(i + 1) + ", " + steps_[i]->name();
      s = bound.Check("normalizer Sequence (after step " + step + ")", text->size());
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }
  std::string name() const override { return "Sequence"; }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

void LowercaseAligned(AlignedText* text) {
  AlignedText out;
  out.reserve(text->size());
  std::u32string lower;
  for (const auto& c : *text) {
    if (c.cp < 0x80) {
      out.push_back({c.cp >= 'A' && c.cp <= 'Z' ? c.cp + 32 : c.cp, c.begin, c.end});
      continue;
    }
    lower.clear();
    AppendLowercase(c.cp, &lower);
    for (char32_t l : lower) out.push_back({l, c.begin, c.end});
  }
  *text = std::move(out);
}

void DecomposeAligned(AlignedText* text, bool compat) {
  AlignedText out;
  out.reserve(text->size());
  bool any_mark = false;
  for (const auto& c : *text) {
    if (c.cp < 0xC0) {  // ASCII and Latin-1 punctuation: no decomposition except compatibility ones below
      if (!compat || c.cp < 0xA0) {
        out.push_back(c);
        continue;
      }
    }
    for (char32_t d : DecomposeCodePoint(c.cp, compat)) {
      out.push_back({d, c.begin, c.end});
      any_mark = any_mark || CombiningClass(d) != 0;
    }
  }
  if (any_mark) ReorderMarks(&out);
  *text = std::move(out);
}

std::unique_ptr<Normalizer> MakeUnicodeNormalizer(NormalForm form) { return std::make_unique<UnicodeNormalizer>(form); }
std::unique_ptr<Normalizer> MakeLowercase() { return std::make_unique<Lowercase>(); }
std::unique_ptr<Normalizer> MakeStripAccents() { return std::make_unique<StripAccents>(); }
std::unique_ptr<Normalizer> MakeReplace(Regex pattern, std::string content) {
  return std::make_unique<Replace>(std::move(pattern), std::move(content));
}
std::unique_ptr<Normalizer> MakePrepend(std::string prefix) { return std::make_unique<Prepend>(std::move(prefix)); }
std::unique_ptr<Normalizer> MakeStrip(bool left, bool right) { return std::make_unique<Strip>(left, right); }
std::unique_ptr<Normalizer> MakeBertNormalizer(const BertNormalizerOptions& options) {
  return std::make_unique<BertNormalizer>(options);
}
std::unique_ptr<Normalizer> MakeNormalizerSequence(std::vector<std::unique_ptr<Normalizer>> steps) {
  return std::make_unique<NormalizerSequence>(std::move(steps));
}

}  // namespace attnviz::tokenize
