// The two pre-tokenizer.json formats, loaded into the pipeline the Hugging Face library builds from them:
//   GPT-2:  vocab.json + merges.txt -> ByteLevel (no prefix space, GPT-2 regex) + BPE, nothing added
//           (RoBERTa's, with <s> and </s> in the vocabulary: + its special tokens, <s> ... </s>, add_prefix_space
//           from tokenizer_config.json)
//   BERT:   vocab.txt (+ tokenizer_config.json) -> BertNormalizer + BertPreTokenizer + WordPiece + [CLS] A [SEP]
#include <utility>

#include "io/file_io.h"
#include "tokenize/bpe_model.h"
#include "tokenize/model_files.h"
#include "tokenize/pipeline.h"
#include "tokenize/seq2seq_tokenizers.h"
#include "tokenize/value_for_message.h"
#include "tokenize/wordpiece_model.h"

namespace attnviz::tokenize {
namespace {

// Splits on '\n', dropping one trailing '\r' per line (files written on Windows).
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string::npos ? text.size() : nl;
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    pos = end + 1;
  }
  return lines;
}

// RoBERTa's vocab.json holds <s> and </s> (GPT-2's only <|endoftext|>): RobertaTokenizer's pipeline then adds
// <s> ... </s> and finds its special tokens in the text, <mask> taking the spaces before it.
bool AddRobertaSpecials(const Vocab& vocab, PipelineParts* parts) {
  const int* bos = vocab.Find("<s>");
  const int* eos = vocab.Find("</s>");
  if (!bos || !eos) return false;
  for (const char* name : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"})
    if (const int* id = vocab.Find(name)) {
      AddedToken t;
      t.content = name;
      t.id = *id;
      t.special = true;
      t.normalized = false;
      t.lstrip = t.content == "<mask>";
      parts->added_tokens.push_back(t);
    }
  std::vector<TemplateItem> single(3);
  single[0].special = SpecialTokens{{*bos}, {"<s>"}};
  single[1].is_sequence = true;
  single[2].special = SpecialTokens{{*eos}, {"</s>"}};
  parts->post_processor = MakeTemplateProcessor(std::move(single));
  return true;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadGpt2Tokenizer(const std::string& vocab_json_path,
                                                     const std::string& merges_txt_path,
                                                     const std::string& config_path) {
  auto vocab_json = ReadJsonFile(vocab_json_path);
  if (!vocab_json.ok()) return vocab_json.status();
  if (!vocab_json->is_object()) return Status::ErrorAt(vocab_json_path, MsgId::kVocabJsonForm, {});
  std::vector<std::pair<std::string, int64_t>> pairs;
  for (auto it = vocab_json->begin(); it != vocab_json->end(); ++it) {
    auto id = JsonInteger(it.value());
    if (!id) return Status::ErrorAt(vocab_json_path, MsgId::kVocabEntryNoId, {ValueForMessage(it.key())});
    pairs.emplace_back(it.key(), *id);
  }
  auto vocab = Vocab::FromPairs(std::move(pairs), vocab_json_path);
  if (!vocab.ok()) return vocab.status();

  auto merges_text = ReadTokenizerFile(merges_txt_path);
  if (!merges_text.ok()) return merges_text.status();
  std::vector<std::pair<std::string, std::string>> merges;
  size_t line_number = 0;
  for (const std::string& line : Lines(*merges_text)) {
    ++line_number;
    if (line.rfind("#version", 0) == 0 || line.empty()) continue;
    size_t space = line.find(' ');
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
      return Status::Prefixed(MsgId::kPrefixFileLine, {merges_txt_path, std::to_string(line_number)},
                              Status::Error(MsgId::kMergeLineForm, {ValueForMessage(line)}));
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  PipelineParts parts;
  bool add_prefix_space = false;
  const bool roberta = AddRobertaSpecials(*vocab, &parts);
  if (roberta && !config_path.empty() && PathExists(config_path)) {
    auto config = ReadJsonFile(config_path);
    if (!config.ok()) return config.status();
    if (auto it = config->find("add_prefix_space"); config->is_object() && it != config->end() && !it->is_null()) {
      if (!it->is_boolean()) return Status::ErrorAt(config_path, MsgId::kKeyMustBeBool, {"add_prefix_space"});
      add_prefix_space = it->get<bool>();
    }
  }
  auto model = BpeModel::Create(std::move(vocab.value()), merges, BpeOptions{}, merges_txt_path);
  if (!model.ok()) return model.status();

  parts.pre_tokenizer = MakeByteLevelPreTokenizer(add_prefix_space, /*use_regex=*/true);
  parts.model = std::move(model.value());
  parts.display.byte_level = true;
  parts.description = roberta ? "RoBERTa vocab.json + merges.txt: BPE (byte-level)"
                              : "GPT-2 vocab.json + merges.txt: BPE (byte-level)";
  return MakePipelineTokenizer(std::move(parts));
}

Result<std::unique_ptr<Tokenizer>> LoadBertTokenizer(const std::string& vocab_txt_path,
                                                     const std::string& config_path) {
  auto text = ReadTokenizerFile(vocab_txt_path);
  if (!text.ok()) return text.status();
  std::vector<std::pair<std::string, int64_t>> pairs;
  std::vector<std::string> lines = Lines(*text);
  if (!lines.empty() && lines.back().empty()) lines.pop_back();  // the newline that ends the last line
  for (size_t i = 0; i < lines.size(); ++i) pairs.emplace_back(lines[i], int64_t(i));
  if (pairs.empty()) return Status::ErrorAt(vocab_txt_path, MsgId::kVocabEmpty, {});
  auto vocab = Vocab::FromPairs(std::move(pairs), vocab_txt_path);
  if (!vocab.ok()) return vocab.status();

  BertNormalizerOptions normalizer;
  std::string unk = "[UNK]", cls = "[CLS]", sep = "[SEP]", pad = "[PAD]", mask = "[MASK]";
  if (!config_path.empty() && PathExists(config_path)) {
    auto config = ReadJsonFile(config_path);
    if (!config.ok()) return config.status();
    auto flag = [&](const char* key, bool fallback) -> Result<bool> {
      auto it = config->find(key);
      if (it == config->end() || it->is_null()) return fallback;
      if (!it->is_boolean()) return Status::ErrorAt(config_path, MsgId::kKeyMustBeBool, {key});
      return it->get<bool>();
    };
    auto lower = flag("do_lower_case", true), chinese = flag("tokenize_chinese_chars", true);
    if (!lower.ok()) return lower.status();
    if (!chinese.ok()) return chinese.status();
    auto strip = flag("strip_accents", *lower);  // null: strip when lowercasing
    if (!strip.ok()) return strip.status();
    normalizer.lowercase = *lower;
    normalizer.handle_chinese_chars = *chinese;
    normalizer.strip_accents = *strip;
    auto name = [&](const char* key, std::string* value) {
      auto it = config->find(key);
      if (it != config->end() && it->is_string()) *value = it->get<std::string>();
      // Newer configs write {"content": "[CLS]", ...} objects.
      if (it != config->end() && it->is_object() && it->contains("content") && (*it)["content"].is_string())
        *value = (*it)["content"].get<std::string>();
    };
    name("unk_token", &unk);
    name("cls_token", &cls);
    name("sep_token", &sep);
    name("pad_token", &pad);
    name("mask_token", &mask);
  }
  const int* cls_id = vocab->Find(cls);
  const int* sep_id = vocab->Find(sep);
  if (!cls_id || !sep_id)
    return Status::ErrorAt(vocab_txt_path, MsgId::kNotInVocab, {ValueForMessage(!cls_id ? cls : sep)});

  PipelineParts parts;
  // The special tokens the library registers for BERT, so "[SEP]" typed in the text is that token.
  for (const std::string& name : {pad, unk, cls, sep, mask})
    if (const int* id = vocab->Find(name)) {
      AddedToken t;
      t.content = name;
      t.id = *id;
      t.special = true;
      t.normalized = false;
      parts.added_tokens.push_back(t);
    }
  std::vector<TemplateItem> single(3);
  single[0].special = SpecialTokens{{*cls_id}, {cls}};
  single[1].is_sequence = true;
  single[2].special = SpecialTokens{{*sep_id}, {sep}};
  parts.post_processor = MakeTemplateProcessor(std::move(single));
  parts.normalizer = MakeBertNormalizer(normalizer);
  parts.pre_tokenizer = MakeBertPreTokenizer();
  WordPieceOptions wordpiece;
  wordpiece.unk_token = unk;
  auto model = MakeWordPieceModel(std::move(vocab.value()), wordpiece, vocab_txt_path);
  if (!model.ok()) return model.status();
  parts.model = std::move(model.value());
  parts.description = std::string("BERT vocab.txt: WordPiece") + (normalizer.lowercase ? " (lowercase)" : " (cased)");
  return MakePipelineTokenizer(std::move(parts));
}

Result<std::unique_ptr<Tokenizer>> LoadTokenizer(const std::string& model_dir) {
  std::string dir = model_dir.empty() ? "." : model_dir;
  if (dir.back() != '/') dir += '/';
  std::string sentencepiece;  // the first SentencePiece file present
  for (const char* name : {"tokenizer.model", "spiece.model", "sentencepiece.bpe.model"})
    if (sentencepiece.empty() && PathExists(dir + name)) sentencepiece = dir + name;
  if (PathExists(dir + "tokenizer.json")) {
    auto json = LoadTokenizerJson(dir + "tokenizer.json");
    // !! A tokenizer.json this library cannot run (XLM-R's Precompiled normalizer) with the .model it was converted
    // from beside it: the .model is the same tokenizer.
    if (json.ok() || sentencepiece.empty()) return json;
    return LoadSentencePieceTokenizer(sentencepiece, dir + "tokenizer_config.json");
  }
  // A Marian folder's vocab.json has no merges.txt: its tokenizer for the model's input is the source side.
  if (PathExists(dir + "source.spm")) return LoadMarianTokenizer(dir, /*target_side=*/false);
  if (PathExists(dir + "vocab.json") || PathExists(dir + "merges.txt")) {
    if (!PathExists(dir + "merges.txt"))
      return Status::ErrorAt(dir + "merges.txt", MsgId::kBpeFileMissing, {"vocab.json"});
    if (!PathExists(dir + "vocab.json")) return Status::ErrorAt(dir + "vocab.json", MsgId::kBpeFileMissing, {"merges.txt"});
    return LoadGpt2Tokenizer(dir + "vocab.json", dir + "merges.txt", dir + "tokenizer_config.json");
  }
  if (PathExists(dir + "vocab.txt")) return LoadBertTokenizer(dir + "vocab.txt", dir + "tokenizer_config.json");
  if (!sentencepiece.empty()) return LoadSentencePieceTokenizer(sentencepiece, dir + "tokenizer_config.json");
  if (!PathExists(model_dir.empty() ? "." : model_dir)) return Status::ErrorAt(model_dir, MsgId::kNoSuchFolder, {});
  return Status::ErrorAt(model_dir, MsgId::kNoTokenizerFiles, {});
}

}  // namespace attnviz::tokenize
