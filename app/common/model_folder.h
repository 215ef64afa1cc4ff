// Opening a model as both programs do: a folder or a .gguf file, or "tiny" (the bundled model), into the
// ModelFolder every run reads (core/session/loaded_model.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "base/status.h"
#include "options.h"  // IsGgufFile
#include "session/loaded_model.h"  // ModelFolder, TokenizeForModel
#include "tokenize/tokenizer.h"

namespace attnviz {

// What `--model` names, as a folder: "tiny" is the bundled model (FindDataDir().bundled_model(): the installed
// <prefix>/share/attnviz/assets/models/tiny, or the source tree's assets/models/tiny); anything else is a folder path,
// returned unchanged. Errors: "tiny" when no data folder holds the bundled model (the message lists where it
// looked); an empty name.
inline constexpr const char* kBundledModelName = "tiny";
// "tiny-seq2seq": the bundled encoder-decoder model (dates in English or Korean -> ISO 8601), found the same way.
inline constexpr const char* kBundledSeq2SeqName = "tiny-seq2seq";
Result<std::string> ResolveModelDir(const std::string& name_or_dir);

// A folder with config.json, or a GGUF file (IsGgufFile): what the app opens as a model when it is dropped or given.
bool IsModelPath(const std::string& path);

// Loads config.json + the safetensors weights and the tokenizer files of `dir`, or, when `dir` is a FILE.gguf,
// the weights and the tokenizer.ggml.* tokenizer of that one file. Errors name the file; a path that does not exist,
// or is a file but not a GGUF one, is refused as such (not as a folder without config.json).
Result<std::shared_ptr<const ModelFolder>> OpenModelFolder(const std::string& dir);


// "0,2,5" -> {0, 2, 5}, each in 0..n_layer-1 (spaces around items and empty items ignored; "" -> {}).
// The message names the bad item and the range; the caller says which option it was.
Result<std::vector<int>> ParseLayerList(const std::string& text, int n_layer);

// A token given on the command line or typed into the app: digits are an id (0..vocab-1); anything else is a token's text, one token of
// the vocabulary as the tokenizer encodes it alone (no special tokens added). option: named in the refusal.
Result<int> ResolveTokenArg(const ModelFolder& folder, const std::string& text, const char* option);
// The same with a tokenizer and its vocabulary size (an encoder-decoder model's target side).
Result<int> ResolveTokenArg(const tokenize::Tokenizer& tokenizer, int vocab, const std::string& text, const char* option);

}  // namespace attnviz
