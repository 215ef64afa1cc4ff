// The bound on how much a tokenizer stage may grow the text: at most kMaxGrowthFactor x the code points the
// stage was given + kMaxGrowthSlack, or it fails naming the step and the limit. The bound is the outermost
// input's, passed down through nested Sequences: 40 chained (or 16 nested) "a" -> "aa" Replaces, or 16 nested
// ByteLevel pre-tokenizers, each only double their own input. Unicode's longest decomposition (U+FDFA, 18 code
// points) and ByteLevel (a code point becomes at most 4) stay inside it.
#pragma once
#include <cstddef>
#include <string>

#include "base/status.h"

namespace attnviz::tokenize {

constexpr size_t kMaxGrowthFactor = 32;
constexpr size_t kMaxGrowthSlack = 1024;

struct GrowthBound {
  size_t input = 0;  // code points the outermost stage was given
  size_t most() const { return input * kMaxGrowthFactor + kMaxGrowthSlack; }
  // Ok when `out` code points are within most(); else the error naming `step` ("normalizer Replace /a/").
  Status Check(const std::string& step, size_t out) const {
    if (out <= most()) return Status::Ok();
    return Status::Error(MsgId::kTokenizerGrowth, {step, std::to_string(out), std::to_string(input),
                                                   std::to_string(kMaxGrowthFactor), std::to_string(kMaxGrowthSlack)});
  }
};

}  // namespace attnviz::tokenize
