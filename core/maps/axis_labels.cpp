#include "maps/axis_labels.h"

#include <algorithm>

namespace attnviz {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// Tokens a label joins at most: a word longer than this is named by its start and an ellipsis.
constexpr int kMaxJoined = 8;

}  // namespace

std::vector<bool> WordStarts(const std::vector<Token>& tokens) {
  std::vector<bool> starts(tokens.size(), false);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (i == 0 || t.special || tokens[i - 1].special) {
      starts[i] = true;
      continue;
    }
    const Token& prev = tokens[i - 1];
    const bool skipped = t.byte_end > t.byte_begin && prev.byte_end > prev.byte_begin && t.byte_begin > prev.byte_end;
    starts[i] = skipped || (!t.display.empty() && IsSpace(t.display.front())) ||
                (!prev.display.empty() && IsSpace(prev.display.back()));
  }
  return starts;
}

std::vector<AxisLabel> ThinnedAxisLabels(const std::function<std::string(int)>& text, const std::vector<bool>& starts,
                                         int begin, int end, int step) {
  std::vector<AxisLabel> labels;
  const int n = (int)starts.size();
  begin = std::max(0, begin);
  end = std::min(end, n);
  step = std::max(1, step);
  const auto starts_word = [&](int i) { return starts[(size_t)i]; };
  int last = -2 * step - 1;
  for (int i = begin; i < end; ++i) {
    if (step == 1) {
      labels.push_back({i, text(i)});
      continue;
    }
    if (starts_word(i) && i - last >= step) {
      std::string word = text(i);
      int j = i + 1;
      for (; j < n && !starts_word(j) && j - i < kMaxJoined; ++j) word += text(j);
      if (j < n && !starts_word(j)) word += "\xE2\x80\xA6";  // U+2026: the word goes on
      labels.push_back({i, word});
      last = i;
    } else if (i - last >= 2 * step && !starts_word(i)) {
      labels.push_back({i, text(i)});
      last = i;
    }
  }
  return labels;
}

}  // namespace attnviz

namespace attnviz {

std::vector<AxisLabel> ThinnedAxisLabels(const std::vector<std::string>& texts, const std::vector<bool>& starts,
                                         int begin, int end, int step) {
  std::vector<bool> every(texts.size(), true);
  const std::vector<bool>& s = starts.size() == texts.size() ? starts : every;
  return ThinnedAxisLabels([&](int i) { return texts[(size_t)i]; }, s, begin, end, step);
}

}  // namespace attnviz
