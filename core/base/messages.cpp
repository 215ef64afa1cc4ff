#include "base/messages.h"

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
    "softcap = {0} is out of range: allowed 0..{1} (0 = no cap)",
    "mask = causal applies to self-attention only (query i may see keys 0..i of its own sentence); use mask none "
    "in cross mode",
    "d_model * n_head * (2*d_k + d_v) = {0} projection weights is too large: allowed up to {1} (lower d_model, "
    "n_head, d_k or d_v)",
    "{0} '{1}' is unknown: allowed {2}",
    "a score needs d_q = d_k: the query from {0} has width {1}{2}, the key from {3} has width {4}{5} (every score "
    "pairs each component of q with one of k: q\xC2\xB7k, cosine, \xE2\x88\x92|q \xE2\x88\x92 k|, additive)",
    "'{0}' is not a whole number (allowed {1}..{2})",
    "{0} is out of range: allowed {1}",
    "'{0}' is not a number (allowed {1})",
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
    "rope type \"{0}\" is not supported: its frequency rescaling is not built (supported: {1})",
    "head_dim {0} must be even for rotary embeddings",
    "\"use_sliding_window\" is true; qwen2 sliding-window attention is not supported (allowed: false)",
    "missing \"model_type\" (supported: {0})",
    "model_type \"{0}\" is not supported (supported: {1})",
    "heads x head width {0} is larger than {1}",
    "too large for a config.json",
    "\"{0}\" {1} of a head of {2} gives {3} rotary dims; RoPE needs an even number, at least 2",
    "rope_scaling \"{0}\" has {1} values; {2} are needed (one per rotary frequency: rotary dims / 2)",
    "{0} \"{1}\" is not supported: a mixture-of-experts MLP (a router sending each token to a few experts) is not "
    "built (supported: {2})",
    "{0} \"{1}\" is not supported: linear-attention layers (no softmax map to draw) are not built (supported: {2})",
    "model_type \"gemma3\" is the multimodal wrapper (a text_config beside a vision tower): point at the text "
    "model's folder, whose config.json has model_type \"gemma3_text\" (supported: {0})",
    "layer_types[{0}] is \"{1}\": allowed sliding_attention, full_attention",
    "layer_types has {0} entries; num_hidden_layers is {1} (one entry per layer)",
    "model_type \"{0}\" is an encoder-decoder model (an encoder, and a decoder with cross-attention): open it as an "
    "encoder-decoder model ({1})",
    "model_type \"{0}\" is not an encoder-decoder model (encoder-decoder: {1})",
    "model_type \"umt5\" is not supported: each of its layers has a relative position bias of its own (t5 and mt5 "
    "share the first layer's) (supported: {0})",
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
    "JSON nests more than {0} levels deep at byte offset {1} (line {2}, column {3})",
    "{0} Sequences nest more than {1} levels deep",
    "{0} would make {1} code points from {2}: at most {3} x the input + {4}",
    "regex /{0}/ took more than {1} matching steps on a text of {2} bytes (at most {3} per byte)",
    "max_input_chars_per_word = {0} is too large: at most {1}",
    "id {0} is out of range: allowed 0..{1}",
    "{0} = {1} names no token: allowed 0..{2}",
    "vocab entry {0} must be a [piece, score] pair",
    "not a SentencePiece model file: {0}",
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
    "unknown head role '{0}'; the roles are {1}",
    "empty role filter",
    "no comparison in '{0}'",
    "no role before '{0}'",
    "no number after the comparison in '{0}'",
    "'{0}' is not a number",
    "threshold {0} is outside 0..1 (scores are in [0, 1])",
    ": write ROLE OP NUMBER, e.g. 'induction >= 0.4' (OP: >=, >, <=, <, =; NUMBER: 0..1; ROLE: {0})",
    " (write ROLE OP NUMBER, e.g. 'induction >= 0.4' (OP: >=, >, <=, <, =; NUMBER: 0..1; ROLE: {0}))",
    "no output path given",
    "{0}: is a folder; give a file name",
    "{0}: cannot write in folder '{1}': {2}",
    "{0}: write failed: {1} (nothing was written)",
    "{0}: write failed: {1}",
    "{0}: cannot open for writing: {1}",
    "no folder given",
    "{0}: exists and is not a folder",
    "{0}: cannot create folder: {1}",
    "{0}: cannot write",
    "size '{0}' has no unit in, cm or mm: give WxH with a unit, e.g. 3.3x3in or 8.4x7.6cm (each 0.5..40 in)",
    "size '{0}' is not WxH: give WxH with a unit, e.g. 3.3x3in or 8.4x7.6cm (each 0.5..40 in)",
    "size '{0}': '{1}' is not a number: give WxH with a unit, e.g. 3.3x3in or 8.4x7.6cm (each 0.5..40 in)",
    "size '{0}' is out of range: give WxH with a unit, e.g. 3.3x3in or 8.4x7.6cm (each 0.5..40 in)",
    "the size at {0} dpi would be {1}x{2} pixels, more than 16384x16384: a lower dpi or a smaller size",
    "the figure size {0} pixels is too small for this figure at {1} dpi: at least {2}x{3} pixels are needed "
    "(a larger size, a lower dpi or fewer heads)",
    "an SVG of {0} cells (heads x queries x keys) is refused: at most {1} (e.g. 1024 x 1024 tokens for one "
    "head, 4 heads of 512 x 512); export PNG (or NPY for the numbers), or fewer heads or tokens",
    "the figure would be {0}x{1} pixels, more than 16384x16384: use a smaller --cell-size",
    "the title ({0} characters) would make the figure {1}x{2} pixels, more than 16384x16384: shorten the title",
    "{0} of a long input ({1} x {2} cells a head; no full map is kept) would hold {3} cells, more than {4}: "
    "export .npy (streamed, any heads) or .csv of one head, or zoom in to a smaller window",
    "nothing to export: the attention map is empty (run the pipeline first)",
    "head {0} is out of range: allowed 0..{1} (n_head = {2})",
    "cell size {0} is out of range: allowed 1..400",
    "width {0} is out of range: allowed 1..16384",
    "dpi {0} is out of range: allowed 10..2400",
    "no output file given (--out FILE)",
    "unknown format '{0}': allowed png|svg|pdf|csv|npy|json",
    "{0}: no file extension to take the format from: allowed .png .svg .pdf .csv .npy .json (or give --format)",
    "{0}: unknown extension '{1}': allowed .png .svg .pdf .csv .npy .json (or give --format)",
    "{0}: unknown extension '{1}' for the saturation plot: allowed .png .svg .pdf",
    "PDF figures use the standard Helvetica font, which has no '{0}' ({1}, in \"{2}\"): export PNG or SVG for "
    "this text",
    "{0}: cannot read: {1}",
    "{0}: is not a regular file (a device, FIFO or socket): refusing to read it as a {1}",
    "{0}: {1} bytes is too large for a {2} (at most {3})",
    "{0}: grew past {1} while being read: too large for a {2}",
    "{0}: read error: {1}",
    "{0}: cannot read the symbolic link: {1}",
    "{0}: too many levels of symbolic links",
    "{0}: cannot create a staging folder in '{1}': {2}",
    "{0}: cannot move into place: {1}",
    "heads '{0}': an empty item; give all, a list or ranges such as 0,2,5 or 0-3,7",
    "heads '{0}': '{1}' is not a head number; give all, a list or ranges such as 0,2,5 or 0-3,7",
    "heads '{0}': '{1}' is not a range A-B; give all, a list or ranges such as 0,2,5 or 0-3,7",
    "heads '{0}': the range '{1}' runs backwards; give all, a list or ranges such as 0,2,5 or 0-3,7",
    "head {0} is out of range: allowed 0..{1} (n_head = {2})",
    "unknown colormap '{0}': allowed {1}",
    "unknown color scale '{0}': allowed linear|log",
    "font {0} ({1}) not found in ATTNVIZ_FONT_DIR={2}: install the Debian package {3} (apt-get install {3})",
    "font {0} ({1}) not found: install the Debian package {2} (apt-get install {2})",
    "font {0} is not a TrueType font stb_truetype can read: reinstall {1}",
    "'{0}' is not a number or a list of numbers",
    "'{0}': no number",
    "dictionary: '{' without a closing '}'",
    "dictionary entry at byte {0}: empty (write key: value)",
    "dictionary entry at byte {0} '{1}': no ':' (write key: value)",
    "dictionary entry at byte {0} '{1}': the key is empty",
    "dictionary entry at byte {0}: the key '{1}' appears twice",
    "dictionary entry at byte {0} (key '{1}'): the value ",
    "dictionary: no entry (write e.g. {'a': 1, 'b': 2})",
    "dictionary: no key",
    "dictionary: {0} keys but {1} values",
    "dictionary: score additive needs trained weights; use dot, scaled-dot, cosine or neg-distance",
    "dictionary: temperature {0} is out of range: allowed {1}..{2}",
    "dictionary: the value of '{0}' has {1} numbers, the value of '{2}' has {3} (every value has one width d_v)",
    "dictionary: a score needs d_q = d_k: the query '{0}' has width {1}, the key '{2}' has width {3}",
    // ---- limits
    "JSON nests deeper than {0} levels (refused: no real file of this kind nests so deep)",
    "a run over {2} tokens needs about {0} of memory, more than the limit of {1} (ATTNVIZ_MEMORY_LIMIT, e.g. "
    "8G, changes it; fewer tokens need less)",
    "out of memory while {0}",
    "element {0} is {1}: weights must be finite numbers",
    "layer {0}: {1} holds a value that is not a finite number (NaN or Inf): the weights or the config (e.g. "
    "layer_norm_epsilon 0 on a constant row) overflow; nothing is shown from a broken run",
    "{0}: is not a regular file (a device, FIFO or socket): refusing to write to it (give a file name)",
    "{0}: is a folder; the dump writes a file of that name (remove or rename the folder)",
    "{0}: could not be put back after a failed dump: {1}",
    "{0}: too many levels of symbolic links (a link loop)",
    "the text has {0} bytes, more than a model of {2} positions can take ({1}: {3} bytes per token at most); "
    "shorten the text",
    "the text gives no tokens",
    "the text is more than {1} tokens; {0} takes at most {1} (max_position_embeddings)",
    "token '{0}' has id {1}, outside the model's vocabulary of {2} (tokenizer and checkpoint disagree)",
    "the layer over {2} words needs about {0} of memory, more than the limit of {1} (ATTNVIZ_MEMORY_LIMIT, e.g. "
    "8G, changes it; fewer words or smaller sizes need less)",
    "onehot features would be {0} wide (one per distinct word), more than {1}: each q\xC2\xB7k costs the width, so the "
    "layer grows as the cube of the words; use fewer distinct words or another source",
    "not a GGUF file: it starts with {0}, not the magic 'GGUF'",
    "GGUF version {0} is not supported (supported: 2, 3)",
    "a big-endian GGUF file (version {0} byte-swapped); attnviz reads little-endian GGUF files only",
    "truncated at byte {0}: {1} needs {2} bytes but {3} are left",
    "{0} = {1} at byte {2} is more than the file can hold (at most {3})",
    "key '{0}' at byte {1}: value type {2} is unknown (allowed 0..12)",
    "key '{0}' at byte {1}: arrays nested deeper than {2} levels",
    "key '{0}' at byte {1} appears twice",
    "key '{0}' has type {1}; expected {2}",
    "general.alignment = {0} must be a power of two in 1..65536",
    "tensor name at byte {0} is {1} bytes long; allowed at most {2}",
    "tensor '{0}' at byte {1}: {2} dimensions; allowed 1..4",
    "tensor '{0}' at byte {1}: ne[{2}] = {3} is out of range (allowed 1..{4})",
    "tensor '{0}' at byte {1}: ne {2} has too many elements",
    "tensor '{0}' at byte {1}: ggml type {2} is unknown",
    "tensor '{0}' at byte {1}: row length ne[0] = {2} is not a multiple of {3}'s block of {4}",
    "tensor '{0}' at byte {1}: data offset {2} is not a multiple of the alignment {3}",
    "tensor '{0}': bytes {1}..{2} (ne {3} as {4}) lie past the end of the file ({5} bytes)",
    "tensor '{0}' at byte {1} appears twice (first at byte {2})",
    "tensor '{0}' is stored as {1}; supported: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_K, q3_K, q4_K, q5_K, q6_K",
    "general.architecture is \"{0}\"; supported: {1}",
    "missing key '{0}'",
    "key '{0}' = {1} is out of range: allowed {2}..{3}",
    "{0} = {1} but {2} = {3}; attnviz needs them equal",
    "{0} = \"{1}\" is not supported; supported: none, linear",
    "tensor '{2}' holds {0} at index {1}; a rope frequency factor must be finite and > 0",
    "tensor '{0}' in {1} has ne {2} but the metadata needs ne {3} (ne[0] = row length)",
    "missing tensor '{0}' in {1}",
    "tokenizer.ggml.model is \"{0}\"; supported: gpt2 (byte-level BPE), llama (SentencePiece BPE)",
    "tokenizer.ggml.pre is \"{0}\", which llama.cpp splits with code of its own; supported: the names it splits by regexes ({1})",
    "key '{0}' has {1} entries but '{2}' has {3}",
    "key '{0}' = {1} is not a token id (allowed 0..{2})",
    // what a model does with its attention
    "this {0} checkpoint has no LM head (no lm_head.weight, no tied embeddings, no cls.predictions.*): it cannot "
    "predict tokens",
    "top-k {0} is out of range: allowed 1..{1} (the vocabulary)",
    "{0} {1} is out of range: allowed 0..{2} (the text has {3} tokens)",
    "ablate: layer {0} is out of range: allowed 0..{1} (the model has {2} layers)",
    "ablate: head {0} of layer {1} is out of range: allowed 0..{2} (the model has {3} heads)",
    "this {0} model has no attention soft cap to remove (attn_logit_softcapping is null in its config.json)",
    "the no-q/k-norm what-if needs q/k norms (q_norm, k_norm), and model_type {0} has none: allowed on {1}",
    "{0} of {3} tokens needs about {1}, over the limit {2} (ATTNVIZ_MEMORY_LIMIT, e.g. 8G, raises it; fewer "
    "tokens need less)",
    // limits of hardening round 3
    "{0} = {1} at byte {2} is more than any real file needs (at most {3})",
    "{0} = {1} at byte {2} needs about {3} of memory, more than the limit of {4} (ATTNVIZ_MEMORY_LIMIT, e.g. 8G, "
    "changes it)",
    "tensors '{0}' (bytes {1}..{2}) and '{3}' (bytes {4}..{5}) share bytes; each tensor needs bytes of its own",
    "the file changed while it was read: it is shorter than the {0} bytes it had when opened (another program "
    "rewriting it, a download not finished); nothing computed from it is shown: open it again once it is complete",
    "layer {0} is out of range: allowed 0..{1} (the model has {2} layers)",
    "head {0} of layer {1} is out of range: allowed 0..{2} (the model has {3} heads)",
    "the text's character {0} is not in the vocabulary, which has no byte token {1} to write it with and no unknown "
    "token (llama.cpp stops on such a text too)",
    // issue 41: per-token loss, the logit lens
    "per-token loss is the loss of each next token, and this {0} model is a masked language model: it predicts "
    "[MASK] tokens, not the next one (the logit lens and top-k predictions work on it)",
    "per-token loss needs at least 2 tokens (the loss of each token after the first); the text has {0}",
    // issue 41: direct logit attribution, activation patching
    "direct logit attribution splits the residual stream into parts that add up to a logit, and this {0} model "
    "has none: it renormalizes the stream after every sublayer (post-norm) and predicts through a nonlinear MLM "
    "head; it works on pre-norm models that predict the next token",
    "activation patching needs the clean and the corrupted text to have as many tokens: the clean text "
    "(--patch-from) has {0}, the corrupted text has {1}",
    "the clean and the corrupted run give the same metric ({0}): the patched share (patched - corrupted) / "
    "(clean - corrupted) would divide by zero; choose texts or tokens A,B the two runs tell apart",
    "the scan's loss at position {0}: out of range, allowed 0..{1} (position i is the loss of predicting token "
    "i + 1; the last token predicts nothing)",
    "the scan's loss at position {0}: the position is given twice",
    // GGUF files of the newer families
    "'{0}' is set, and attnviz does not build what it describes",
};
static_assert(std::size(kEnglish) == (size_t)MsgId::kCount, "messages.cpp: one English template per MsgId");
static_assert((int)MsgId::kCount <= (int)MsgId::kAppFirst, "messages.h: core's ids stay below the programs' own");
}  // namespace

std::string CappedJsonError(std::string_view what) {
  constexpr std::string_view kLastRead = "last read: '";
  const size_t last = what.find(kLastRead);
  if (last == std::string_view::npos) return CappedValue(what, 4 * kMaxQuotedChars);
  const size_t from = last + kLastRead.size(), to = what.rfind('\'');
  if (to == std::string_view::npos || to < from) return CappedValue(what, 4 * kMaxQuotedChars);
  return CappedValue(what.substr(0, from), 4 * kMaxQuotedChars) + CappedValue(what.substr(from, to - from)) +
         CappedValue(what.substr(to), 4 * kMaxQuotedChars);
}

std::string CappedValue(std::string_view value, size_t max_chars) {
  std::string out;
  size_t chars = 0, i = 0;
  for (; i < value.size() && chars < max_chars; ++chars) {
    const unsigned char c = (unsigned char)value[i];
    if (c < 0x20 || c == 0x7f) {  // NUL would end a C string; the rest would move the terminal's cursor
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
      continue;
    }
    // One UTF-8 code point (its continuation bytes), never cut in two.
    size_t len = 1;
    while (i + len < value.size() && ((unsigned char)value[i + len] & 0xC0) == 0x80 && len < 4) ++len;
    out.append(value.substr(i, len));
    i += len;
  }
  if (i < value.size()) out += "... (" + std::to_string(value.size()) + " bytes in all)";
  return out;
}

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
