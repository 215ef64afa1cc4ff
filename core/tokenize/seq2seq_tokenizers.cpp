#include "tokenize/seq2seq_tokenizers.h"

#include <utility>

#include "io/file_io.h"
#include "tokenize/decoded_text.h"
#include "tokenize/model_files.h"
#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {
namespace {

// T5 and BART: the target tokenizer's own pieces, special tokens left out, their bytes joined; T5Tokenizer then
// strips the text (sentencepiece's decode drops the dummy prefix, convert_tokens_to_string strips the rest).
class PieceDecoder : public TextDecoder {
 public:
  PieceDecoder(std::shared_ptr<const Tokenizer> tokenizer, std::string where, bool strip, bool clean_up_spaces)
      : tokenizer_(std::move(tokenizer)), where_(std::move(where)), strip_(strip), clean_up_spaces_(clean_up_spaces) {}

  Result<std::string> Decode(const std::vector<int>& ids) const override {
    std::string bytes;
    for (int id : ids) {
      if (tokenizer_->IsSpecialId(id)) continue;
      auto piece = tokenizer_->IdToBytes(id);
      if (!piece)
        return Status::ErrorAt(where_, MsgId::kTokenizerIdRange,
                               {std::to_string(id), std::to_string(tokenizer_->vocab_size() - 1)});
      bytes += *piece;
    }
    std::string text = ReplaceInvalidUtf8(bytes);
    if (strip_) text = StripPythonWhitespace(text);
    return clean_up_spaces_ ? CleanUpTokenizationSpaces(std::move(text)) : text;
  }

 private:
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::string where_;
  bool strip_;
  bool clean_up_spaces_;
};

// A string field of a JSON object file, "" when the file or the field is absent.
Result<std::string> StringField(const std::string& path, const char* key) {
  if (!PathExists(path)) return std::string();
  auto json = ReadJsonFile(path);
  if (!json.ok()) return json.status();
  if (!json->is_object()) return Status::ErrorAt(path, MsgId::kMustBeJsonObject, {});
  auto it = json->find(key);
  if (it == json->end() || it->is_null()) return std::string();
  if (!it->is_string()) return Status::ErrorAt(path, MsgId::kKeyMustBeString, {key});
  return it->get<std::string>();
}

Result<bool> CleanUpFlag(const std::string& config_path) {
  if (!PathExists(config_path)) return false;
  auto json = ReadJsonFile(config_path);
  if (!json.ok()) return json.status();
  if (!json->is_object()) return Status::ErrorAt(config_path, MsgId::kMustBeJsonObject, {});
  auto it = json->find("clean_up_tokenization_spaces");
  if (it == json->end() || it->is_null()) return false;
  if (!it->is_boolean()) return Status::ErrorAt(config_path, MsgId::kKeyMustBeBool, {"clean_up_tokenization_spaces"});
  return it->get<bool>();
}

}  // namespace

Result<Seq2SeqTokenizers> LoadSeq2SeqTokenizers(const std::string& model_dir) {
  std::string dir = model_dir.empty() ? "." : model_dir;
  if (dir.back() != '/') dir += '/';
  // 1. Which family: config.json's model_type, else the files present.
  auto model_type = StringField(dir + "config.json", "model_type");
  if (!model_type.ok()) return model_type.status();
  std::string type = *model_type;
  if (type.empty()) {
    if (PathExists(dir + "source.spm")) type = "marian";
    else if (PathExists(dir + "spiece.model")) type = "t5";
    else if (PathExists(dir + "merges.txt")) type = "bart";
  }
  Seq2SeqTokenizers out;
  out.model_type = type;
  // 2. Marian: two .spm files, one decoder of its own.
  if (type == "marian") {
    auto source = LoadMarianTokenizer(dir, false);
    if (!source.ok()) return source.status();
    auto target = LoadMarianTokenizer(dir, true);
    if (!target.ok()) return target.status();
    auto decoder = LoadMarianDecoder(dir);
    if (!decoder.ok()) return decoder.status();
    out.source = std::move(source.value());
    out.target = std::move(target.value());
    out.decoder = std::move(decoder.value());
    return out;
  }
  // 3. T5 and BART: one tokenizer for both sides.
  const bool t5 = type == "t5" || type == "mt5" || type == "umt5";
  if (!t5 && type != "bart") {
    if (!PathExists(dir)) return Status::ErrorAt(model_dir, MsgId::kNoSuchFolder, {});
    if (type.empty()) return Status::ErrorAt(model_dir, MsgId::kNoTokenizerFiles, {});
    return Status::ErrorAt(dir + "config.json", MsgId::kUnknownName,
                           {"encoder-decoder model_type", ValueForMessage(type), "marian, t5, mt5, umt5, bart"});
  }
  auto tokenizer = LoadTokenizer(dir);
  if (!tokenizer.ok()) return tokenizer.status();
  auto clean_up = CleanUpFlag(dir + "tokenizer_config.json");
  if (!clean_up.ok()) return clean_up.status();
  out.source = std::shared_ptr<const Tokenizer>(std::move(tokenizer.value()));
  out.target = out.source;
  out.decoder = std::make_shared<PieceDecoder>(out.source, model_dir, /*strip=*/t5, *clean_up);
  return out;
}

}  // namespace attnviz::tokenize
