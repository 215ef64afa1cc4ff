// The last steps of transformers' decode(ids) that turn joined pieces into the string Python returns: bytes
// that are not UTF-8 read as U+FFFD (bytes.decode(errors="replace")), str.strip(), clean_up_tokenization.
#pragma once
#include <string>
#include <string_view>

namespace attnviz::tokenize {

// Each maximal invalid subsequence (as Python and the Unicode standard count them) becomes one U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view bytes);
// Python's str.strip(): every code point str.isspace() accepts, at both ends (U+3000 and U+00A0 too).
std::string StripPythonWhitespace(std::string_view utf8);  // utf8: valid UTF-8
// PreTrainedTokenizerBase.clean_up_tokenization (tokenizer_config.json clean_up_tokenization_spaces): " ." -> ".",
// " ?", " !", " ,", " ' " -> "'", " n't", " 'm", " 's", " 've", " 're", each replaced everywhere in that order.
std::string CleanUpTokenizationSpaces(std::string text);

}  // namespace attnviz::tokenize
