#include "messages.h"

#include <iterator>

namespace attnviz {

namespace {
// In MsgId order (the static_assert below keeps the two in step).
constexpr const char* kEnglish[] = {
    "",
    "{0}: ",
    "{0}:{1}: ",
    "key/value text: ",
    "query text: ",
    "query sentence (left of '|||'): ",
    "key/value sentence (right of '|||'): ",
    "sweep: ",
    "sweep: d_k={0}: ",
    "{0} = {1} is out of range: allowed {2}..{3}",
    "temperature = {0} is out of range: allowed {1}..{2} (must be > 0)",
    "mask = causal applies to self-attention only (query i may see keys 0..i of its own sentence); use mask none "
    "in cross mode",
    "d_model * n_head * (2*d_k + d_v) = {0} projection weights is too large: allowed up to {1} (lower d_model, "
    "n_head, d_k or d_v)",
    "{0} '{1}' is unknown: allowed {2}",
    "a score needs d_q = d_k: the query from {0} has width {1}{2}, the key from {3} has width {4}{5} (q . k pairs "
    "every component of q with one of k)",
    "temperature must be a finite number",
    "'{0}' is not a whole number (allowed {1}..{2})",
    "{0} is out of range: allowed {1}",
    "'{0}' is not a number (allowed {1})",
    "{0}: missing value",
    "the text is empty: type at least one word",
    "the text holds only whitespace: type at least one word",
    "the text has more than {0} tokens (allowed 1..{0})",
    "invalid UTF-8 at byte offset {0} (byte 0x{1})",
    "control character {0} at byte offset {1} is not allowed",
    "invalid UTF-8 at byte offset {0} of the file (byte {1} of the line)",
    "more than one '|||' separator (a cross item is QUERY ||| KEY/VALUE)",
    "{0}: no sentences (only blank lines and # comments)",
    "{0}: cannot open: {1}",
    "{0}: is a folder, not a file",
    "tensor '{0}': ",
    "{0} checkpoint: ",
    "not valid JSON at byte {0}: {1}",
    "not valid JSON: {0}",
    "must be a JSON object",
    "missing key \"{0}\" (an integer in [{1}, {2}])",
    "\"{0}\" is {1}; allowed: an integer in [{2}, {3}]",
    "missing key \"{0}\"",
    "\"{0}\" is {1}; allowed: a number in [{2}, {3}]",
    "\"{0}\" is {1}; allowed: true, false",
    "\"{0}\" is {1}; allowed: a string",
    "\"{0}\" is \"{1}\"; supported: gelu_new, gelu_pytorch_tanh, gelu_fast (tanh approximation), "
    "gelu (erf), silu, swish, relu",
    "{0} {1} is not a multiple of {2} {3}",
    "hidden_size {0} is not a multiple of num_attention_heads {1} and there is no \"head_dim\"",
    "\"position_embedding_type\" is \"{0}\"; supported: absolute",
    "{0} rope_scaling must be null or an object",
    "missing \"rope_type\" (or legacy \"type\")",
    "high_freq_factor must be greater than low_freq_factor",
    "rope type \"{0}\" is not supported; supported: default, linear, llama3",
    "head_dim {0} must be even for rotary embeddings",
    "\"use_sliding_window\" is true; qwen2 sliding-window attention is not supported (allowed: false)",
    "missing \"model_type\" (supported: gpt2, bert, llama, qwen2, mistral)",
    "model_type \"{0}\" is not supported (supported: gpt2, bert, llama, qwen2, mistral)",
    "heads x head width {0} is larger than {1}",
    "too large for a config.json",
    "cannot stat: {0}",
    "not a regular file (refusing to map a device, FIFO or folder)",
    "cannot mmap {0} bytes: {1}",
    "truncated: {0} bytes, shorter than the 8-byte header length of a safetensors file",
    "header length {0} is longer than the file ({1} bytes, so at most {2} bytes of header); "
    "truncated or not a safetensors file",
    "header length {0} exceeds the 100 MiB limit",
    "header of {0} bytes cannot hold a JSON object",
    "header is not valid JSON at byte {0} of the header (file offset {1}): {2}",
    "header is not valid JSON: {0}",
    "header must be a JSON object of tensors",
    "__metadata__ must be an object of strings",
    "__metadata__ value of '{0}' must be a string",
    "entry must be an object {dtype, shape, data_offsets}",
    "missing or non-string \"dtype\"",
    "unknown dtype \"{0}\" (safetensors dtypes: F32 F16 BF16 F64 I64 I32 I16 I8 U8 U16 U32 U64 BOOL F8_E4M3 "
    "F8_E5M2)",
    "missing or non-array \"shape\"",
    "shape {0} must hold non-negative integers",
    "absurd shape {0} (element count overflows)",
    "absurd shape {0} (byte count overflows)",
    "\"data_offsets\" must be [begin, end] with non-negative integers",
    "data_offsets {0} have begin after end",
    "data_offsets {0} out of range: the data section has only {1} bytes (file truncated?)",
    "data_offsets {0} span {1} bytes but shape {2} x {3} needs {4}",
    "tensors '{0}' and '{1}' overlap in the data section (bytes {2}..{3})",
    "tensor '{0}' has dtype {1}; weights must be F32, F16 or BF16",
    "tensor '{0}' is in both {1} and {2}",
    "no model.safetensors or model.safetensors.index.json (only safetensors checkpoints are read; convert "
    "pytorch_model.bin first)",
    "{0} bytes is too large for an index",
    "missing \"weight_map\" object {tensor name: shard file}",
    "weight_map entry '{0}' must be a file name string",
    "weight_map entry '{0}' names shard \"{1}\"; shards must be plain file names in the index's folder",
    "weight_map is empty",
    "tensor '{0}' is listed in weight_map but not in {1}",
    "tensor '{0}' is listed in {1} but stored in {2}",
    "tensor '{0}' not found",
    "tensor '{0}' in {1} has shape {2} but config.json needs {3}",
    "missing tensor '{0}'",
    " (also tried {0})",
    " in {0}",
    " in {0} and its other shards",
    "--model: empty; give a model folder or 'tiny' (the bundled model)",
    "the bundled model 'tiny' was not found: no data folder (looked in {0})",
    "the bundled model 'tiny' was not found: {0}/config.json is missing",
    "the text gives no tokens",
    "the text is {0} tokens; {1} takes at most {2} (max_position_embeddings)",
    "token '{0}' has id {1}, outside the model's vocabulary of {2} (tokenizer and checkpoint disagree)",
    "must be a JSON object of token: id",
    "entry '{0}' has no integer id",
    "'{0}' is not two tokens separated by one space",
    "the vocabulary is empty",
    "'{0}' must be true or false",
    "'{0}' is not in the vocabulary",
    "missing ({0} is there; GPT-2 style BPE needs both)",
    "no such folder",
    "no tokenizer files (looked for tokenizer.json, vocab.json + merges.txt, vocab.txt)",
    "invalid JSON at byte offset {0} (line {1}, column {2}): {3}",
    "invalid JSON: {0}",
    "regex /{0}/ does not compile: {1} (at pattern byte {2})",
    "regex /{0}/ failed while matching: {1}",
    "the unknown token '{0}' is not in the vocabulary",
    "merge {0} ('{1}' '{2}'): '{3}' is not in the vocabulary",
    "token '{0}' has a negative id {1}",
    "token '{0}' has an implausible id {1}",
    "id {0} is given to both '{1}' and '{2}'",
    "the top level must be a JSON object",
    "there is no 'model' section",
    "{0} type '{1}' is not supported; supported: {2}",
    "{0} type '{1}' is not supported (at {2}); supported: {3}",
    "has no \"type\"",
    "'{0}' must be a string",
    "'{0}' must be a single character",
    "'pattern' must be {\"String\": ...} or {\"Regex\": ...}",
    "'{0}' must be a list",
    "must be a list",
    "must be an object",
    "behavior '{0}' is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous",
    "prepend_scheme '{0}' is not one of always, first, never",
    "add_prefix_space does not match declared prepend_scheme",
    "'vocab' must be an object of token: id",
    "vocab entry '{0}' has no integer id",
    "BPE dropout is not supported (it makes the ids random)",
    "merge {0} ('{1}') is not two tokens separated by one space",
    "merge {0} is neither \"a b\" nor [\"a\", \"b\"]",
    "'id' must be a non-negative integer",
    "'{0}' must be [token, id]",
    "special token '{0}' is not in 'special_tokens'",
    "special_tokens['{0}'] needs 'ids' and 'tokens' of the same length",
    "special_tokens['{0}'] has a bad id or token",
    "must be {\"SpecialToken\": {...}} or {\"Sequence\": {...}}",
    "unexpected content: {0}",
    "text of {0} bytes is too long to tokenize (at most {1})",
    "shape {0} does not match {1} = {2} for d_model={3}, n_head={4}, d_k={5}, d_v={6}",
    "not a valid .npy file: ",
    "missing \\x93NUMPY magic",
    "truncated header",
    "unsupported format version {0}",
    "header runs past the end of the file",
    "header lacks descr, fortran_order or shape",
    "shape {0} is not a tuple such as (3, 4)",
    "bad shape {0}: ",
    "shape {0} has too many elements (the data size overflows)",
    "shape {0} has more than 32 dimensions",
    "bad shape {0}",
    "dtype {0} is not supported: allowed float32 ('<f4') or float64 ('<f8')",
    "Fortran-order arrays are not supported: save in C order",
    "data holds {0} bytes, the shape {1} needs {2} (truncated or corrupt file)",
    "element {0} is {1}: only finite float32 values are allowed",
    "element {0} is {1}, beyond the float32 range: only finite float32 values are allowed",
};
static_assert(std::size(kEnglish) == (size_t)MsgId::kCount, "messages.cpp: one English template per MsgId");
}  // namespace

const char* EnglishTemplate(MsgId id) {
  const int i = (int)id;
  return i >= 0 && i < (int)MsgId::kCount ? kEnglish[i] : "";
}

std::string FillTemplate(const std::string& pattern, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 2 < pattern.size() && pattern[i + 1] >= '0' && pattern[i + 1] <= '9' &&
        pattern[i + 2] == '}') {
      const size_t n = (size_t)(pattern[i + 1] - '0');
      if (n < args.size()) out += args[n];
      i += 2;
      continue;
    }
    out += pattern[i];
  }
  return out;
}

}  // namespace attnviz
