#include "model_folder.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <system_error>
#include <sstream>

#include "base/parse_number.h"

#include <sys/stat.h>

#include "data_dir.h"
#include "io/file_io.h"
#include "model/gguf_vocab_reader.h"
#include "model/gguf_weights.h"
#include "tokenize/gguf_tokenizer.h"
#include "i18n/app_messages.h"

namespace attnviz {

Result<std::string> ResolveModelDir(const std::string& name_or_dir) {
  if (name_or_dir.empty()) return AppError(AppMsgId::kModelEmpty, {});
  if (name_or_dir != kBundledModelName && name_or_dir != kBundledSeq2SeqName) return name_or_dir;
  const DataDir& data = FindDataDir();
  const std::string dir = name_or_dir == kBundledModelName ? data.bundled_model() : data.bundled_seq2seq_model();
  if (dir.empty())
    return AppError(AppMsgId::kBundledNoDataDir, {data.searched});
  if (!PathExists(dir + "/config.json"))
    return AppError(AppMsgId::kBundledNoConfig, {dir});
  return dir;
}

bool IsModelPath(const std::string& path) {
  if (IsFolder(path)) return IsRegularFile(path + "/config.json");
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
  if (stat(dir.c_str(), &st) != 0)
    return errno == ELOOP ? Status::Error(MsgId::kStSymlinkLoop, {dir}) : AppError(AppMsgId::kModelPathMissing, {dir});
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

namespace {
bool AllDigitsId(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  return true;
}
}  // namespace

Result<int> ResolveTokenArg(const ModelFolder& folder, const std::string& text, const char* option) {
  return ResolveTokenArg(*folder.tokenizer, folder.model->config().vocab, text, option);
}

Result<int> ResolveTokenArg(const tokenize::Tokenizer& tokenizer, int vocab, const std::string& text, const char* option) {
  if (AllDigitsId(text)) {
    const int id = std::stoi(text);
    if (id >= vocab)
      return Status::Prefixed(MsgId::kPrefixContext, {option},
                              Status::Error(MsgId::kOutOfRange, {"token id", text, "0", std::to_string(vocab - 1)}));
    return id;
  }
  auto enc = tokenizer.Encode(text, /*add_special_tokens=*/false);
  if (!enc) return Status::Prefixed(MsgId::kPrefixContext, {option}, enc.status());
  if (enc->size() != 1 || (*enc)[0].id < 0 || (*enc)[0].id >= vocab)
    return AppError(AppMsgId::kTokenNotOne,
                    {option, CappedValue(text), std::to_string(enc->size()), std::to_string(vocab - 1)});
  return (*enc)[0].id;
}

}  // namespace attnviz
