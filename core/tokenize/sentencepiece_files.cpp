// SentencePiece .model files (tokenizer.model, spiece.model, sentencepiece.bpe.model) through Debian's
// libsentencepiece: the library normalizes and segments each stretch of text between special tokens, as
// transformers' slow tokenizers call it; the pipeline around it finds the special tokens in the text, adds the
// post-processor's and shows pieces ("▁" as a space, <0xNN> as its byte).
//   tokenizer.model            Llama, Mistral, Gemma: ids as in the file; <s> added (tokenizer_config.json's
//                              add_bos_token, default true; add_eos_token, default false)
//   spiece.model               ALBERT style: ids as in the file; nothing added unless tokenizer_config.json asks.
//                              In a T5 folder (config.json model_type t5, mt5 or umt5, or tokenizer_config.json's
//                              tokenizer_class T5Tokenizer / MT5Tokenizer): T5Tokenizer's, </s> appended unless the
//                              text already ends with it, and <extra_id_0>.. (tokenizer_config.json extra_ids, default
//                              100) as special tokens counted down from the last id
//   sentencepiece.bpe.model    XLM-RoBERTa (fairseq): <s>=0 <pad>=1 </s>=2 <unk>=3, the file's pieces from id 3 on
//                              shifted by one, <mask> last; <s> ... </s> added (XLMRobertaTokenizer)
#include <sentencepiece_processor.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "io/file_io.h"
#include "tokenize/model_files.h"
#include "tokenize/pipeline.h"

namespace attnviz::tokenize {
namespace {

constexpr int kFairseqOffset = 1;  // XLMRobertaTokenizer.fairseq_offset

class SentencePieceModel : public Model {
 public:
  SentencePieceModel(std::unique_ptr<sentencepiece::SentencePieceProcessor> sp, Vocab vocab, bool fairseq)
      : sp_(std::move(sp)), vocab_(std::move(vocab)), fairseq_(fairseq) {}

  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override {
    std::vector<uint32_t> char_at_byte;
    const std::string text = ToUtf8(word, &char_at_byte);
    const auto encoded = sp_->EncodeAsImmutableProto(text);
    const size_t first_of_word = out->size();
    for (const auto& piece : encoded.pieces()) {
      // !! The byte pieces of one character after the first have an empty surface at offset 0: they cover what the
      // first covers.
      // The dummy prefix "▁" alone has one too: it stands for the start of the word, as a Prepend normalizer's "▁"
      // is tied to the first character.
      if (piece.surface().empty()) {
        const bool after = out->size() > first_of_word;
        out->push_back({Id(int(piece.id())), after ? out->back().first : 0,
                        after ? out->back().last : uint32_t(std::min<size_t>(1, word.size()))});
        continue;
      }
      const size_t begin = std::min<size_t>(piece.begin(), text.size());
      const size_t end = std::min<size_t>(std::max(piece.end(), piece.begin()), text.size());
      out->push_back({Id(int(piece.id())), char_at_byte[begin], char_at_byte[end]});
    }
    return Status::Ok();
  }
  const Vocab& vocab() const override { return vocab_; }

  // The file's id -> the id the model was trained with.
  int Id(int spm_id) const {
    if (!fairseq_) return spm_id;
    return spm_id == sp_->unk_id() ? 3 : spm_id + kFairseqOffset;
  }

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  Vocab vocab_;
  bool fairseq_;
};

AddedToken Special(std::string content, int id) {
  AddedToken t;
  t.content = std::move(content);
  t.id = id;
  t.special = true;
  t.normalized = false;
  return t;
}

// tokenizer_config.json's add_bos_token / add_eos_token, when the file is there.
Status ReadAddFlags(const std::string& config_path, bool* add_bos, bool* add_eos) {
  if (config_path.empty() || !PathExists(config_path)) return Status::Ok();
  auto config = ReadJsonFile(config_path);
  if (!config.ok()) return config.status();
  if (!config->is_object()) return Status::ErrorAt(config_path, MsgId::kMustBeJsonObject, {});
  for (auto [key, flag] : {std::pair{"add_bos_token", add_bos}, std::pair{"add_eos_token", add_eos}}) {
    auto it = config->find(key);
    if (it == config->end() || it->is_null()) continue;
    if (!it->is_boolean()) return Status::ErrorAt(config_path, MsgId::kKeyMustBeBool, {key});
    *flag = it->get<bool>();
  }
  return Status::Ok();
}

// T5Tokenizer's folder: config.json's model_type or tokenizer_config.json's tokenizer_class says so.
Result<bool> IsT5Folder(const std::string& model_path, const std::string& config_path) {
  const std::string dir = model_path.substr(0, model_path.find_last_of('/') + 1);
  for (const auto& [path, key, names] :
       {std::tuple{dir + "config.json", "model_type", std::vector<std::string>{"t5", "mt5", "umt5"}},
        std::tuple{config_path, "tokenizer_class",
                   std::vector<std::string>{"T5Tokenizer", "T5TokenizerFast", "MT5Tokenizer", "MT5TokenizerFast"}}}) {
    if (path.empty() || !PathExists(path)) continue;
    auto json = ReadJsonFile(path);
    if (!json.ok()) return json.status();
    if (!json->is_object()) return Status::ErrorAt(path, MsgId::kMustBeJsonObject, {});
    auto it = json->find(key);
    if (it != json->end() && it->is_string() && std::find(names.begin(), names.end(), it->get<std::string>()) != names.end())
      return true;
  }
  return false;
}

// T5Tokenizer's extra_ids (tokenizer_config.json, default 100) and its legacy handling, the only one run here.
Result<int> T5ExtraIds(const std::string& config_path) {
  if (config_path.empty() || !PathExists(config_path)) return 100;
  auto config = ReadJsonFile(config_path);
  if (!config.ok()) return config.status();
  if (auto it = config->find("legacy"); it != config->end() && it->is_boolean() && !it->get<bool>())
    return Status::Error(config_path + ": legacy = false is not supported (T5Tokenizer's non-legacy handling of the "
                         "text after a special token); the legacy tokenizer is what the folder's model was trained with "
                         "unless it says otherwise");
  auto it = config->find("extra_ids");
  if (it == config->end() || it->is_null()) return 100;
  auto n = JsonInteger(*it);
  if (!n || *n < 0 || *n > 10000)
    return Status::ErrorAt(config_path, MsgId::kOutOfRange, {"extra_ids", it->dump(), "0", "10000"});
  return int(*n);
}

TemplateItem SpecialItem(const std::string& piece, int id) {
  TemplateItem item;
  item.special = SpecialTokens{{id}, {piece}};
  return item;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadSentencePieceTokenizer(const std::string& model_path,
                                                              const std::string& config_path) {
  auto bytes = ReadTokenizerFile(model_path);
  if (!bytes.ok()) return bytes.status();
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  if (auto s = sp->LoadFromSerializedProto(*bytes); !s.ok())
    return Status::ErrorAt(model_path, MsgId::kSentencePieceModel, {s.ToString()});
  const std::string name = model_path.substr(model_path.find_last_of('/') + 1);
  const bool fairseq = name == "sentencepiece.bpe.model";
  const int n = sp->GetPieceSize();

  PipelineParts parts;
  std::vector<std::pair<std::string, int64_t>> pairs;
  int mask_id = -1;
  if (fairseq) {
    // XLMRobertaTokenizer's table: four fairseq specials, the file's pieces from 3 on, <mask> after them.
    pairs = {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"<unk>", 3}};
    for (int i = 3; i < n; ++i) pairs.emplace_back(sp->IdToPiece(i), i + kFairseqOffset);
    mask_id = n + kFairseqOffset;
    pairs.emplace_back("<mask>", mask_id);
    for (const auto& [piece, id] : pairs)
      if (id < 4 || id == mask_id) parts.added_tokens.push_back(Special(piece, int(id)));
    parts.added_tokens.back().lstrip = true;  // <mask> takes the spaces before it
  } else {
    for (int i = 0; i < n; ++i) {
      pairs.emplace_back(sp->IdToPiece(i), i);
      // Control pieces and the unknown piece are special tokens of the tokenizer, found in the text.
      if (sp->IsControl(i) || sp->IsUnknown(i)) parts.added_tokens.push_back(Special(sp->IdToPiece(i), i));
    }
  }
  bool t5 = false;
  if (name == "spiece.model") {
    auto is_t5 = IsT5Folder(model_path, config_path);
    if (!is_t5.ok()) return is_t5.status();
    t5 = *is_t5;
  }
  if (t5) {
    auto extra_ids = T5ExtraIds(config_path);
    if (!extra_ids.ok()) return extra_ids.status();
    // T5Tokenizer: <extra_id_0> is the last id, <extra_id_1> the one before, ...
    for (int i = 0; i < *extra_ids; ++i)
      parts.added_tokens.push_back(Special("<extra_id_" + std::to_string(i) + ">", n + *extra_ids - 1 - i));
  }
  auto vocab = Vocab::FromPairs(std::move(pairs), model_path);
  if (!vocab.ok()) return vocab.status();

  std::vector<TemplateItem> single;
  if (t5) {
    if (sp->eos_id() < 0) return Status::ErrorAt(model_path, MsgId::kNotInVocab, {"</s>"});
    parts.post_processor = MakeAppendIfAbsentProcessor(sp->eos_id(), sp->IdToPiece(sp->eos_id()));
  } else if (fairseq) {
    single = {SpecialItem("<s>", 0), TemplateItem{true, {}}, SpecialItem("</s>", 2)};
  } else {
    bool add_bos = name == "tokenizer.model", add_eos = false;
    if (Status s = ReadAddFlags(config_path, &add_bos, &add_eos); !s.ok()) return s;
    if (add_bos && sp->bos_id() >= 0) single.push_back(SpecialItem(sp->IdToPiece(sp->bos_id()), sp->bos_id()));
    single.push_back(TemplateItem{true, {}});
    if (add_eos && sp->eos_id() >= 0) single.push_back(SpecialItem(sp->IdToPiece(sp->eos_id()), sp->eos_id()));
  }
  if (single.size() > 1) parts.post_processor = MakeTemplateProcessor(std::move(single));
  parts.display.byte_fallback = true;
  parts.display.space_marker = U'\u2581';
  parts.description = "SentencePiece " + name + (fairseq ? " (fairseq ids)" : t5 ? " (T5)" : "");
  parts.model = std::make_unique<SentencePieceModel>(std::move(sp), std::move(vocab.value()), fairseq);
  return MakePipelineTokenizer(std::move(parts));
}

}  // namespace attnviz::tokenize
