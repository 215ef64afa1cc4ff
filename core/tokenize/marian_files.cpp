// Marian (opus-mt) folders as transformers' MarianTokenizer reads them: source.spm and target.spm (SentencePiece,
// run by Debian's libsentencepiece) cut the text into pieces, vocab.json (one table for both sides; with
// tokenizer_config.json's separate_vocabs, target_vocab.json for the target side) gives their ids.
// Encoding one side:
//   1. the special tokens </s>, <unk>, <pad> are found in the text; the text beside them keeps its spaces
//   2. each stretch between them: a language code at its very start (">>kor<<": ">>" up to the first "<<") is one
//      token, the rest goes through the side's .spm
//   3. each piece as sentencepiece spells it (a character the .spm does not know keeps its own text) -> its id in
//      the side's table, or <unk>'s id when the table lacks it
//   4. </s> appended
// The special tokens' ids are vocab.json's on both sides (MarianTokenizer's added tokens), also with separate_vocabs.
// Decoding generated ids (decode(ids, skip_special_tokens=True)): </s>, <unk> and <pad> left out, ids -> pieces
// through the target table, the pieces through target.spm's DecodePieces, "▁" read as a space, whitespace stripped.
// !! transformers' main branch (v5) gives a piece missing from vocab.json its id in the .spm rather than <unk>'s, and
// decodes through source.spm when the table is shared; this follows v4's MarianTokenizer, which looks pieces up in
// vocab.json only, as Marian itself does.
#include <sentencepiece_processor.h>

#include <algorithm>
#include <utility>

#include "io/file_io.h"
#include "tokenize/decoded_text.h"
#include "tokenize/model_files.h"
#include "tokenize/pipeline.h"
#include "tokenize/seq2seq_tokenizers.h"
#include "tokenize/value_for_message.h"

namespace attnviz::tokenize {
namespace {

struct MarianConfig {
  bool separate_vocabs = false;
  bool clean_up_spaces = false;
  std::string unk = "<unk>", eos = "</s>", pad = "<pad>";
};

std::string FolderOf(const std::string& model_dir) {
  std::string dir = model_dir.empty() ? "." : model_dir;
  if (dir.back() != '/') dir += '/';
  return dir;
}

// tokenizer_config.json, when the folder has one.
Result<MarianConfig> ReadMarianConfig(const std::string& dir) {
  MarianConfig c;
  const std::string path = dir + "tokenizer_config.json";
  if (!PathExists(path)) return c;
  auto config = ReadJsonFile(path);
  if (!config.ok()) return config.status();
  if (!config->is_object()) return Status::ErrorAt(path, MsgId::kMustBeJsonObject, {});
  for (auto [key, flag] : {std::pair{"separate_vocabs", &c.separate_vocabs},
                           std::pair{"clean_up_tokenization_spaces", &c.clean_up_spaces}}) {
    auto it = config->find(key);
    if (it == config->end() || it->is_null()) continue;
    if (!it->is_boolean()) return Status::ErrorAt(path, MsgId::kKeyMustBeBool, {key});
    *flag = it->get<bool>();
  }
  for (auto [key, name] : {std::pair{"unk_token", &c.unk}, std::pair{"eos_token", &c.eos}, std::pair{"pad_token", &c.pad}}) {
    auto it = config->find(key);
    if (it == config->end() || it->is_null()) continue;
    // Newer configs write {"content": "</s>", ...} objects.
    const nlohmann::json* value = it->is_object() && it->contains("content") ? &(*it)["content"] : &*it;
    if (!value->is_string()) return Status::ErrorAt(path, MsgId::kKeyMustBeString, {key});
    *name = value->get<std::string>();
  }
  return c;
}

// vocab.json / target_vocab.json: an object of piece: id.
Result<Vocab> ReadMarianVocab(const std::string& path) {
  auto json = ReadJsonFile(path);
  if (!json.ok()) return json.status();
  if (!json->is_object()) return Status::ErrorAt(path, MsgId::kVocabJsonForm, {});
  std::vector<std::pair<std::string, int64_t>> pairs;
  for (auto it = json->begin(); it != json->end(); ++it) {
    auto id = JsonInteger(it.value());
    if (!id) return Status::ErrorAt(path, MsgId::kVocabEntryNoId, {ValueForMessage(it.key())});
    pairs.emplace_back(it.key(), *id);
  }
  return Vocab::FromPairs(std::move(pairs), path);
}

Result<std::unique_ptr<sentencepiece::SentencePieceProcessor>> ReadSpm(const std::string& path) {
  auto bytes = ReadTokenizerFile(path);
  if (!bytes.ok()) return bytes.status();
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  if (auto s = sp->LoadFromSerializedProto(*bytes); !s.ok())
    return Status::ErrorAt(path, MsgId::kSentencePieceModel, {s.ToString()});
  return sp;
}

// One side: its .spm (and its path), its table (and the file it came from), <unk>'s id in it (a piece the table lacks).
struct MarianSide {
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp;
  std::string spm_path;
  Vocab vocab;
  std::string vocab_path;
  int unk_id = 0;
};

Result<MarianSide> LoadSide(const std::string& dir, const MarianConfig& config, bool target_side) {
  MarianSide side;
  side.spm_path = dir + (target_side ? "target.spm" : "source.spm");
  auto sp = ReadSpm(side.spm_path);
  if (!sp.ok()) return sp.status();
  side.sp = std::move(sp.value());
  side.vocab_path = dir + (target_side && config.separate_vocabs ? "target_vocab.json" : "vocab.json");
  auto vocab = ReadMarianVocab(side.vocab_path);
  if (!vocab.ok()) return vocab.status();
  side.vocab = std::move(vocab.value());
  const int* unk = side.vocab.Find(config.unk);
  if (!unk) return Status::ErrorAt(side.vocab_path, MsgId::kUnknownTokenAbsent, {ValueForMessage(config.unk)});
  side.unk_id = *unk;
  return side;
}

class MarianModel : public Model {
 public:
  explicit MarianModel(MarianSide side) : side_(std::move(side)) {}

  Status Tokenize(const AlignedText& word, std::vector<ModelToken>* out) const override {
    std::vector<uint32_t> char_at_byte;
    const std::string text = ToUtf8(word, &char_at_byte);
    // 1. A language code at the very start: one token (MarianTokenizer.remove_language_code).
    size_t rest = 0;
    if (text.compare(0, 2, ">>") == 0) {
      if (size_t close = text.find("<<"); close != std::string::npos) {
        rest = close + 2;
        out->push_back({IdOf(std::string_view(text).substr(0, rest)), 0, char_at_byte[rest]});
      }
    }
    // 2. The rest through the .spm; each piece as it spells it -> the table's id.
    const auto encoded = side_.sp->EncodeAsImmutableProto(text.substr(rest));
    const size_t first_of_rest = out->size();
    for (const auto& piece : encoded.pieces()) {
      const int id = IdOf(piece.piece());
      // !! A piece with no surface (the dummy prefix "▁" alone) stands where the next character starts, as in
      // sentencepiece_files.cpp; the later byte pieces of one character cover what the first covers.
      if (piece.surface().empty()) {
        const bool after = out->size() > first_of_rest;
        const uint32_t start = char_at_byte[rest];
        out->push_back({id, after ? out->back().first : start,
                        after ? out->back().last : std::min<uint32_t>(start + 1, uint32_t(word.size()))});
        continue;
      }
      const size_t begin = std::min<size_t>(rest + piece.begin(), text.size());
      const size_t end = std::min<size_t>(rest + std::max(piece.end(), piece.begin()), text.size());
      out->push_back({id, char_at_byte[begin], char_at_byte[end]});
    }
    return Status::Ok();
  }
  const Vocab& vocab() const override { return side_.vocab; }

 private:
  int IdOf(std::string_view piece) const {
    const int* id = side_.vocab.Find(piece);
    return id ? *id : side_.unk_id;
  }

  MarianSide side_;
};

class MarianDecoder : public TextDecoder {
 public:
  MarianDecoder(MarianSide target, std::vector<int> special_ids, bool clean_up_spaces)
      : target_(std::move(target)), special_ids_(std::move(special_ids)), clean_up_spaces_(clean_up_spaces) {}

  Result<std::string> Decode(const std::vector<int>& ids) const override {
    // 1. Special tokens out, ids -> pieces.
    std::vector<std::string> pieces;
    for (int id : ids) {
      if (std::find(special_ids_.begin(), special_ids_.end(), id) != special_ids_.end()) continue;
      const std::string* piece = target_.vocab.Piece(id);
      if (!piece)
        return Status::ErrorAt(target_.vocab_path, MsgId::kTokenizerIdRange,
                               {std::to_string(id), std::to_string(target_.vocab.max_id())});
      pieces.push_back(*piece);
    }
    // 2. target.spm joins them (a piece it does not know keeps its text); 3. "▁" left over is a space.
    std::string text;
    if (auto s = target_.sp->Decode(pieces, &text); !s.ok())
      return Status::ErrorAt(target_.spm_path, MsgId::kSentencePieceModel, {s.ToString()});
    std::string spaced;
    const std::string marker = "\xE2\x96\x81";
    size_t pos = 0, hit;
    while ((hit = text.find(marker, pos)) != std::string::npos) {
      spaced.append(text, pos, hit - pos);
      spaced += ' ';
      pos = hit + marker.size();
    }
    spaced.append(text, pos, std::string::npos);
    // 4. str.strip(), then clean_up_tokenization when the config asks.
    std::string out = StripPythonWhitespace(ReplaceInvalidUtf8(spaced));
    return clean_up_spaces_ ? CleanUpTokenizationSpaces(std::move(out)) : out;
  }

 private:
  MarianSide target_;
  std::vector<int> special_ids_;
  bool clean_up_spaces_;
};

AddedToken Special(const std::string& content, int id) {
  AddedToken t;
  t.content = content;
  t.id = id;
  t.special = true;
  t.normalized = false;
  return t;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadMarianTokenizer(const std::string& model_dir, bool target_side) {
  const std::string dir = FolderOf(model_dir);
  auto config = ReadMarianConfig(dir);
  if (!config.ok()) return config.status();
  auto side = LoadSide(dir, *config, target_side);
  if (!side.ok()) return side.status();

  // !! MarianTokenizer registers its special tokens with their ids in vocab.json (get_vocab() at load), so with
  // separate_vocabs the target side's </s> (appended or typed), <unk> and <pad> typed in the text keep vocab.json's
  // ids, while its pieces (and the <unk> of a missing piece) take target_vocab.json's.
  Vocab shared_table;
  const Vocab* specials = &side->vocab;
  if (side->vocab_path != dir + "vocab.json") {
    auto shared = ReadMarianVocab(dir + "vocab.json");
    if (!shared.ok()) return shared.status();
    shared_table = std::move(shared.value());
    specials = &shared_table;
  }
  const int* eos_id = specials->Find(config->eos);
  if (!eos_id) return Status::ErrorAt(dir + "vocab.json", MsgId::kNotInVocab, {ValueForMessage(config->eos)});

  PipelineParts parts;
  // MarianTokenizer's special tokens, found in the text.
  for (const std::string& name : {config->eos, config->unk, config->pad})
    if (const int* id = specials->Find(name)) parts.added_tokens.push_back(Special(name, *id));
  std::vector<TemplateItem> single(2);
  single[0].is_sequence = true;
  single[1].special = SpecialTokens{{*eos_id}, {config->eos}};
  parts.post_processor = MakeTemplateProcessor(std::move(single));
  parts.display.byte_fallback = true;
  parts.display.space_marker = U'\u2581';
  parts.description = std::string("Marian ") + (target_side ? "target.spm" : "source.spm") + " + " +
                      side->vocab_path.substr(side->vocab_path.find_last_of('/') + 1);
  parts.model = std::make_unique<MarianModel>(std::move(side.value()));
  return MakePipelineTokenizer(std::move(parts));
}

Result<std::unique_ptr<TextDecoder>> LoadMarianDecoder(const std::string& model_dir) {
  const std::string dir = FolderOf(model_dir);
  auto config = ReadMarianConfig(dir);
  if (!config.ok()) return config.status();
  auto target = LoadSide(dir, *config, /*target_side=*/true);
  if (!target.ok()) return target.status();
  // all_special_ids: the special tokens' ids as MarianTokenizer registers them, from vocab.json (get_vocab()).
  auto shared = ReadMarianVocab(dir + "vocab.json");
  if (!shared.ok()) return shared.status();
  std::vector<int> special_ids;
  for (const std::string& name : {config->eos, config->unk, config->pad})
    if (const int* id = shared->Find(name)) special_ids.push_back(*id);
  return std::unique_ptr<TextDecoder>(
      new MarianDecoder(std::move(target.value()), std::move(special_ids), config->clean_up_spaces));
}

}  // namespace attnviz::tokenize
