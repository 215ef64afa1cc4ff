#include "model_folder.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <future>
#include <system_error>
#include <sstream>

#include "base/parse_number.h"
#include "sandbox/text.h"

#include <sys/stat.h>

#include "data_dir.h"
#include "model/gguf_vocab_reader.h"
#include "model/gguf_weights.h"
#include "tokenize/gguf_tokenizer.h"
#include "i18n/app_messages.h"

namespace attnviz {

Result<std::string> ResolveModelDir(const std::string& name_or_dir) {
  if (name_or_dir.empty()) return AppError(AppMsgId::kModelEmpty, {});
  if (name_or_dir != kBundledModelName) return name_or_dir;
  const DataDir& data = FindDataDir();
  const std::string dir = data.bundled_model();
  struct stat st;
  if (dir.empty())
    return AppError(AppMsgId::kBundledNoDataDir, {data.searched});
  if (stat((dir + "/config.json").c_str(), &st) != 0)
    return AppError(AppMsgId::kBundledNoConfig, {dir});
  return dir;
}

std::string ModelFolder::Describe() const {
  return dir + ": " + model->config().Describe() + " \xC2\xB7 " + tokenizer->Describe();
}

bool IsModelPath(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return stat((path + "/config.json").c_str(), &st) == 0 && S_ISREG(st.st_mode);
  return IsGgufFile(path);
}

namespace {

// One .gguf file holds both the weights and the tokenizer (tokenizer.ggml.*).
Result<std::shared_ptr<const ModelFolder>> OpenGgufFile(const std::string& path) {
  auto file = model::GgufFile::Open(path);
  if (!file) return file.status();
  auto folder = std::make_shared<ModelFolder>();
  folder->dir = path;
  auto model = model::LoadGgufModel(*file);
  if (!model) return model.status();
  folder->model = *model;
  auto vocab = model::ReadGgufVocab(**file);
  if (!vocab) return vocab.status();
  auto tokenizer = tokenize::MakeGgufTokenizer(*vocab);
  if (!tokenizer) return tokenizer.status();
  folder->tokenizer = std::shared_ptr<const tokenize::Tokenizer>(std::move(*tokenizer));
  return std::shared_ptr<const ModelFolder>(std::move(folder));
}

}  // namespace

Result<std::shared_ptr<const ModelFolder>> OpenModelFolder(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return AppError(AppMsgId::kModelPathMissing, {dir});
  if (IsGgufFile(dir)) return OpenGgufFile(dir);
  if (!S_ISDIR(st.st_mode)) return AppError(AppMsgId::kNotModelFolderOrGguf, {dir});
  auto folder = std::make_shared<ModelFolder>();
  folder->dir = dir;
  // The tokenizer's files load beside the weights (each on one core: the app's window waits for both).
  std::future<Result<std::unique_ptr<tokenize::Tokenizer>>> loading;
  try {
    loading = std::async(std::launch::async, [&dir] { return tokenize::LoadTokenizer(dir); });
  } catch (const std::system_error&) {  // no thread to be had: one after the other
  }
  auto model = model::LoadModel(dir);
  auto tokenizer = loading.valid() ? loading.get() : tokenize::LoadTokenizer(dir);
  if (!model) return model.status();  // the weights' refusal first, as when they loaded alone
  folder->model = *model;
  if (!tokenizer) return tokenizer.status();
  folder->tokenizer = std::shared_ptr<const tokenize::Tokenizer>(std::move(*tokenizer));
  return std::shared_ptr<const ModelFolder>(std::move(folder));
}

Result<std::vector<tokenize::Token>> TokenizeForModel(const ModelFolder& folder, const std::string& text) {
  // The same text rules as the sandbox's (no control characters: they would go raw into CSV and SVG).
  if (Status s = ValidatePlainText(text); !s) return s;
  // A text too long for the model's positions is refused before the tokenizer runs: no token covers more than
  // kMaxBytesPerToken bytes of a real text, so a longer one cannot fit (a 16 MiB word is not tokenized first).
  const model::ModelConfig& config = folder.model->config();
  const size_t most_bytes = (size_t)config.max_positions * kMaxBytesPerToken;
  if (text.size() > most_bytes)
    return Status::Error(MsgId::kTextTooManyBytesForModel,
                         {std::to_string(text.size()), std::to_string(most_bytes), std::to_string(config.max_positions),
                          std::to_string(kMaxBytesPerToken)});
  // Under that bound a text can still give far more tokens than positions ("a a a ..."): the tokenizer stops
  // once it has passed max_positions, so the text is refused without being tokenized to its end.
  auto tokens = folder.tokenizer->Encode(text, true, (size_t)config.max_positions);
  if (!tokens) return tokens.status();
  const model::ModelConfig& c = folder.model->config();
  if (tokens->empty()) return AppError(AppMsgId::kTextNoTokens, {});
  if ((int)tokens->size() > c.max_positions)
    return AppError(AppMsgId::kTextTooLongForModel, {c.model_type, std::to_string(c.max_positions)});
  for (const tokenize::Token& t : *tokens)
    if (t.id < 0 || t.id >= c.vocab)
      return AppError(AppMsgId::kTokenOutsideVocab, {t.display, std::to_string(t.id), std::to_string(c.vocab)});
  return tokens;
}

std::vector<int> TokenIds(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const tokenize::Token& t : tokens) ids.push_back(t.id);
  return ids;
}

std::vector<int> MaskPositions(const std::vector<tokenize::Token>& tokens) {
  std::vector<int> at;
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].piece == "[MASK]" || tokens[i].piece == "<mask>") at.push_back((int)i);
  return at;
}

Result<std::vector<int>> ParseLayerList(const std::string& text, int n_layer) {
  std::vector<int> layers;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) continue;
    auto n = ParseInteger(item, 0, n_layer - 1);
    if (!n) return n.status();
    layers.push_back((int)*n);
  }
  return layers;
}

}  // namespace attnviz
