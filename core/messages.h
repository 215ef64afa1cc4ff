// The engine's user-visible messages as ids with parameters, so the app and attnviz-cli can show them in the
// user's language without core knowing any language but English. An error built with an id carries its
// English text (made here from the template, for logs and tests) and the parts {id, args} a translation
// table renders; a prefix ("query text: ", "FILE:3: ") is a part of its own in front of the inner message.
// The rule for a translation: render every part from the table, and show the English text when any part
// has no id (an error built from plain text) or no translation.
#pragma once
#include <string>
#include <vector>

namespace attnviz {

enum class MsgId : int {
  kNone = 0,  // plain English text, no template
  // ---- prefixes: put in front of an inner message
  kPrefixContext,       // "{0}: "            an option, a file or a field
  kPrefixFileLine,      // "{0}:{1}: "        a file and a line
  kPrefixKeyValueText,  // "key/value text: "
  kPrefixQueryText,     // "query text: "
  kPrefixLeftOfSep,     // "query sentence (left of '|||'): "
  kPrefixRightOfSep,    // "key/value sentence (right of '|||'): "
  kPrefixSweep,         // "sweep: "
  kPrefixSweepDk,       // "sweep: d_k={0}: "
  // ---- settings (config.h Validate, the Parse* functions, qkv_source.h)
  kOutOfRange,           // {0} field, {1} value, {2} lo, {3} hi
  kTemperatureRange,     // {0} value, {1} lo, {2} hi
  kCausalNeedsSelf,
  kProjectionTooLarge,   // {0} floats, {1} the most allowed
  kUnknownName,          // {0} what, {1} text, {2} allowed names
  kWidthMismatch,        // {0} query source, {1} width, {2} " (d_k)" or "", {3} key source, {4} width, {5}
  kTemperatureNotFinite,
  // ---- numbers (parse_number.h) and options
  kNotWholeNumber,       // {0} text, {1} lo, {2} hi
  kNumberOutOfRange,     // {0} text, {1} lo..hi
  kNotANumber,           // {0} text, {1} lo..hi
  kMissingValue,         // {0} option
  // ---- text (text.h)
  kTextEmpty,
  kTextOnlySpaces,
  kTooManyTokens,        // {0} the most tokens
  kInvalidUtf8,          // {0} byte offset, {1} the byte (hex)
  kControlCharacter,     // {0} U+XXXX, {1} byte offset
  kFileInvalidUtf8,      // {0} offset in the file, {1} byte of the line
  kMoreThanOneSeparator,
  kNoSentences,          // {0} file
  // ---- files (file_io.h)
  kCannotOpen,           // {0} path, {1} the system's reason
  kIsAFolder,            // {0} path
  kCount
};

// The English template of `id` ("{0} = {1} is out of range: allowed {2}..{3}"); "" for kNone.
const char* EnglishTemplate(MsgId id);
// `pattern` with {0}, {1}, ... replaced by args[0], args[1], ... (numbered: a language may reorder them).
std::string FillTemplate(const std::string& pattern, const std::vector<std::string>& args);

// One piece of a message: a template id and what fills it.
struct MessagePart {
  MsgId id = MsgId::kNone;
  std::vector<std::string> args;
};

}  // namespace attnviz
