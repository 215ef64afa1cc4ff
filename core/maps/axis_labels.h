// Which tokens a map's axis names when its cells are too small for a label each. Thinning to every k-th token
// names word fragments ("The at at the at" for " c|at s|at m|at"); the labels here sit at word starts instead and
// name the whole word ("·cat"), so a thinned axis still reads as the text.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tokenize/token.h"

namespace attnviz {

struct AxisLabel {
  int index = 0;     // the token the label sits on
  std::string text;  // its word (step > 1) or its own text (step 1)
};

// starts[i]: token i begins a word: the first token, a special token or the one after it, a token whose text starts
// with whitespace or follows one that ends with it, or one the tokenizer cut after skipped bytes (BERT drops spaces).
// tokens: [n]
std::vector<bool> WordStarts(const std::vector<Token>& tokens);

// Labels for tokens [begin, end) at least `step` tokens apart. step 1: every token, its own text. step > 1: a label at
// each word start far enough from the last, naming tokens up to the next word start joined; a stretch of 2 * step
// tokens with no word start (one long word, text without spaces) gets its token's own text so no span goes bare.
// starts: [n]; text(i): token i as the axis writes it (e.g. ShownText), asked only near [begin, end)
std::vector<AxisLabel> ThinnedAxisLabels(const std::function<std::string(int)>& text, const std::vector<bool>& starts,
                                         int begin, int end, int step);
// The same over texts: [n].
std::vector<AxisLabel> ThinnedAxisLabels(const std::vector<std::string>& texts, const std::vector<bool>& starts,
                                         int begin, int end, int step);

}  // namespace attnviz
