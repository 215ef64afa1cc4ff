// A model folder as both programs open it: the checkpoint (core/model) and its tokenizer
// (core/tokenize), loaded together, shared and immutable. Also the text -> ids step they share.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "base/status.h"
#include "options.h"  // IsGgufFile
#include "tokenize/tokenizer.h"

namespace attnviz {

struct ModelFolder {
  std::string dir;
  std::shared_ptr<const model::Model> model;
  std::shared_ptr<const tokenize::Tokenizer> tokenizer;
  std::string Describe() const;  // "DIR: gpt2, 12 layers ... · tokenizer.json: BPE ..."
};

// What `--model` names, as a folder: "tiny" is the bundled model (FindDataDir().bundled_model(): the installed
// <prefix>/share/attnviz/assets/models/tiny, or the source tree's assets/models/tiny); anything else is a folder path,
// returned unchanged. Errors: "tiny" when no data folder holds the bundled model (the message lists where it
// looked); an empty name.
inline constexpr const char* kBundledModelName = "tiny";
Result<std::string> ResolveModelDir(const std::string& name_or_dir);

// A folder with config.json, or a GGUF file (IsGgufFile): what the app opens as a model when it is dropped or given.
bool IsModelPath(const std::string& path);

// Loads config.json + the safetensors weights and the tokenizer files of `dir`, or, when `dir` is a FILE.gguf,
// the weights and the tokenizer.ggml.* tokenizer of that one file. Errors name the file; a path that does not exist,
// or is a file but not a GGUF one, is refused as such (not as a folder without config.json).
Result<std::shared_ptr<const ModelFolder>> OpenModelFolder(const std::string& dir);

// No token of a real text covers more bytes than this (a long word becomes several tokens); a text of more than
// max_positions times this many bytes cannot fit the model and is refused before it is tokenized.
inline constexpr size_t kMaxBytesPerToken = 64;

// The model's tokens for `text` (with the model's special tokens, as its tokenizer adds them by
// default). Refuses text longer than the model's positions, naming both numbers (a text of more than
// max_positions * kMaxBytesPerToken bytes before tokenizing), and control characters, as the sandbox does.
Result<std::vector<tokenize::Token>> TokenizeForModel(const ModelFolder& folder, const std::string& text);
std::vector<int> TokenIds(const std::vector<tokenize::Token>& tokens);
// The positions of the mask token ("[MASK]", roberta's "<mask>"): where a masked-LM head (bert) predicts.
std::vector<int> MaskPositions(const std::vector<tokenize::Token>& tokens);

// "0,2,5" -> {0, 2, 5}, each in 0..n_layer-1 (spaces around items and empty items ignored; "" -> {}).
// The message names the bad item and the range; the caller says which option it was.
Result<std::vector<int>> ParseLayerList(const std::string& text, int n_layer);

}  // namespace attnviz
