// tokenizer.json -> PipelineParts. Every section is read as the Hugging Face library reads it (including the
// older spellings: merges as "a b" strings or [a, b] pairs, Metaspace's add_prefix_space); any type this
// library cannot run exactly is refused by name, with the place in the file.
#include <utility>

#include "tokenize/bpe_model.h"
#include "tokenize/model_files.h"
#include "tokenize/pipeline.h"
#include "tokenize/unicode.h"
#include "tokenize/unigram_model.h"
#include "tokenize/value_for_message.h"
#include "tokenize/wordpiece_model.h"

namespace attnviz::tokenize {
namespace {

using nlohmann::json;

// Real files nest a Sequence in a Sequence at most once or twice; each level also lengthens the place named in
// messages, so an unbounded depth cost memory quadratic in it.
constexpr int kMaxSequenceDepth = 16;

// Reads one tokenizer.json; `file_` prefixes every message.
class TokenizerJsonReader {
 public:
  explicit TokenizerJsonReader(std::string file) : file_(std::move(file)) {}

  Result<PipelineParts> Read(const json& root) {
    if (!root.is_object()) return Fail("", MsgId::kTokenizerTopLevel);
    PipelineParts parts;
    if (auto n = Section(root, "normalizer"); n && !n->is_null()) {
      auto normalizer = ReadNormalizer(*n, "normalizer", 0);
      if (!normalizer.ok()) return normalizer.status();
      parts.normalizer = std::move(normalizer.value());
    }
    if (auto p = Section(root, "pre_tokenizer"); p && !p->is_null()) {
      auto pre = ReadPreTokenizer(*p, "pre_tokenizer", &parts.display, 0);
      if (!pre.ok()) return pre.status();
      parts.pre_tokenizer = std::move(pre.value());
    }
    auto m = Section(root, "model");
    if (!m || m->is_null()) return Fail("", MsgId::kTokenizerNoModel);
    auto model = ReadModel(*m, &parts);
    if (!model.ok()) return model.status();
    parts.model = std::move(model.value());
    if (auto a = Section(root, "added_tokens"); a && !a->is_null()) {
      Status s = ReadAddedTokens(*a, &parts.added_tokens);
      if (!s.ok()) return s;
    }
    if (auto p = Section(root, "post_processor"); p && !p->is_null()) {
      auto post = ReadPostProcessor(*p, "post_processor", 0);
      if (!post.ok()) return post.status();
      parts.post_processor = std::move(post.value());
    }
    if (auto d = Section(root, "decoder"); d && !d->is_null()) {
      Status s = ReadDecoderHints(*d, "decoder", &parts.display, 0);
      if (!s.ok()) return s;
    }
    return parts;
  }

 private:
  // "FILE: WHERE: what" (WHERE a place such as normalizer.normalizers[1], or none).
  Status Fail(const std::string& where, const Status& what) const {
    return Status::Prefixed(MsgId::kPrefixContext, {file_},
                            where.empty() ? what : Status::Prefixed(MsgId::kPrefixContext, {where}, what));
  }
  Status Fail(const std::string& where, MsgId id, std::vector<std::string> args = {}) const {
    return Fail(where, Status::Error(id, std::move(args)));
  }
  // "normalizer type 'X' is not supported" for top-level sections, with the place for nested ones.
  Status Unsupported(const std::string& kind, const std::string& type, const std::string& where,
                     const std::string& supported) const {
    const std::string shown = ValueForMessage(type);
    return Fail("", where == kind ? Status::Error(MsgId::kTokenizerType, {kind, shown, supported})
                                  : Status::Error(MsgId::kTokenizerTypeAt, {kind, shown, where, supported}));
  }
  // A Sequence inside `depth` Sequences already: refused past kMaxSequenceDepth, before reading deeper.
  Status CheckDepth(const std::string& section, int depth, const std::string& where) const {
    if (depth < kMaxSequenceDepth) return Status::Ok();
    return Fail(where, MsgId::kTokenizerTooDeep, {section, std::to_string(kMaxSequenceDepth)});
  }
  // A token id: an integer in 0..kMaxTokenId, checked in 64 bits (4294967296 must not become 0).
  Result<int> Id(const json& value, const std::string& where) const {
    auto id = JsonInteger(value);
    if (!id || *id < 0) return Fail(where, MsgId::kTokenizerIdForm);
    if (*id > kMaxTokenId)
      return Fail(where, MsgId::kTokenizerIdRange, {std::to_string(*id), std::to_string(kMaxTokenId)});
    return int(*id);
  }
  static const json* Section(const json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  Result<std::string> TypeOf(const json& obj, const std::string& where) const {
    if (!obj.is_object()) return Fail(where, MsgId::kMustBeJsonObject);
    auto t = obj.find("type");
    if (t == obj.end() || !t->is_string()) return Fail(where, MsgId::kTokenizerNoType);
    return t->get<std::string>();
  }
  Result<bool> Bool(const json& obj, const char* key, bool fallback, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) return Fail(where, MsgId::kKeyMustBeBool, {key});
    return it->get<bool>();
  }
  Result<std::string> String(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) return Fail(where, MsgId::kKeyMustBeString, {key});
    return it->get<std::string>();
  }
  Result<char32_t> Char(const json& obj, const char* key, const std::string& where) const {
    auto s = String(obj, key, where);
    if (!s.ok()) return s.status();
    AlignedText t = AlignUtf8(*s);
    if (t.size() != 1) return Fail(where, MsgId::kKeyMustBeChar, {key});
    return t[0].cp;
  }
  // {"String": "..."} or {"Regex": "..."}.
  Result<Regex> Pattern(const json& obj, const std::string& where) const {
    auto it = obj.find("pattern");
    if (it == obj.end() || !it->is_object()) return Fail(where, MsgId::kTokenizerPattern);
    if (auto s = it->find("String"); s != it->end() && s->is_string()) {
      auto r = Regex::Literal(s->get<std::string>());
      if (!r.ok()) return Fail(where, r.status());
      return r;
    }
    if (auto s = it->find("Regex"); s != it->end() && s->is_string()) {
      auto r = Regex::Compile(s->get<std::string>());
      if (!r.ok()) return Fail(where, r.status());
      return r;
    }
    return Fail(where, MsgId::kTokenizerPattern);
  }

  Result<std::unique_ptr<Normalizer>> ReadNormalizer(const json& n, const std::string& where, int depth) {
    auto type = TypeOf(n, where);
    if (!type.ok()) return type.status();
    const std::string& t = *type;
    if (t == "NFC") return MakeUnicodeNormalizer(NormalForm::kNfc);
    if (t == "NFD") return MakeUnicodeNormalizer(NormalForm::kNfd);
    if (t == "NFKC") return MakeUnicodeNormalizer(NormalForm::kNfkc);
    if (t == "NFKD") return MakeUnicodeNormalizer(NormalForm::kNfkd);
    if (t == "Lowercase") return MakeLowercase();
    if (t == "StripAccents") return MakeStripAccents();
    if (t == "Replace") {
      auto pattern = Pattern(n, where);
      if (!pattern.ok()) return pattern.status();
      auto content = String(n, "content", where);
      if (!content.ok()) return content.status();
      return MakeReplace(std::move(pattern.value()), *content);
    }
    if (t == "Prepend") {
      auto prepend = String(n, "prepend", where);
      if (!prepend.ok()) return prepend.status();
      return MakePrepend(*prepend);
    }
    if (t == "Strip") {
      auto left = Bool(n, "strip_left", true, where), right = Bool(n, "strip_right", true, where);
      if (!left.ok()) return left.status();
      if (!right.ok()) return right.status();
      return MakeStrip(*left, *right);
    }
    if (t == "BertNormalizer") {
      BertNormalizerOptions o;
      auto clean = Bool(n, "clean_text", true, where), chinese = Bool(n, "handle_chinese_chars", true, where),
           lower = Bool(n, "lowercase", true, where);
      if (!clean.ok()) return clean.status();
      if (!chinese.ok()) return chinese.status();
      if (!lower.ok()) return lower.status();
      o.clean_text = *clean;
      o.handle_chinese_chars = *chinese;
      o.lowercase = *lower;
      auto strip = Bool(n, "strip_accents", o.lowercase, where);  // null: follow lowercase
      if (!strip.ok()) return strip.status();
      o.strip_accents = *strip;
      return MakeBertNormalizer(o);
    }
    if (t == "Sequence") {
      if (Status s = CheckDepth("normalizer", depth, where); !s.ok()) return s;
      auto list = n.find("normalizers");
      if (list == n.end() || !list->is_array()) return Fail(where, MsgId::kKeyMustBeList, {"normalizers"});
      std::vector<std::unique_ptr<Normalizer>> steps;
      for (size_t i = 0; i < list->size(); ++i) {
        auto step = ReadNormalizer((*list)[i], where + ".normalizers[" + std::to_string(i) + "]", depth + 1);
        if (!step.ok()) return step.status();
        steps.push_back(std::move(step.value()));
      }
      return MakeNormalizerSequence(std::move(steps));
    }
    return Unsupported("normalizer", t, where,
                       "NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Replace, Prepend, Strip, BertNormalizer, "
                       "Sequence");
  }

  Result<SplitBehavior> Behavior(const json& obj, const std::string& where, SplitBehavior fallback) const {
    auto it = obj.find("behavior");
    if (it == obj.end() || it->is_null()) return fallback;
    std::string b = it->is_string() ? it->get<std::string>() : "";
    if (b == "Removed") return SplitBehavior::kRemoved;
    if (b == "Isolated") return SplitBehavior::kIsolated;
    if (b == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
    if (b == "MergedWithNext") return SplitBehavior::kMergedWithNext;
    if (b == "Contiguous") return SplitBehavior::kContiguous;
    return Fail(where, MsgId::kTokenizerBehavior, {ValueForMessage(b)});
  }

  Result<std::unique_ptr<PreTokenizer>> ReadPreTokenizer(const json& p, const std::string& where,
                                                         DisplayRules* display, int depth) {
    auto type = TypeOf(p, where);
    if (!type.ok()) return type.status();
    const std::string& t = *type;
    if (t == "ByteLevel") {
      auto prefix = Bool(p, "add_prefix_space", true, where), regex = Bool(p, "use_regex", true, where);
      if (!prefix.ok()) return prefix.status();
      if (!regex.ok()) return regex.status();
      display->byte_level = true;
      return MakeByteLevelPreTokenizer(*prefix, *regex);
    }
    if (t == "Split") {
      auto pattern = Pattern(p, where);
      if (!pattern.ok()) return pattern.status();
      auto behavior = Behavior(p, where, SplitBehavior::kIsolated);
      if (!behavior.ok()) return behavior.status();
      auto invert = Bool(p, "invert", false, where);
      if (!invert.ok()) return invert.status();
      return MakeSplitPreTokenizer(std::move(pattern.value()), *behavior, *invert);
    }
    if (t == "Metaspace") {
      auto replacement = Char(p, "replacement", where);
      if (!replacement.ok()) return replacement.status();
      PrependScheme scheme = PrependScheme::kAlways;
      if (auto s = p.find("prepend_scheme"); s != p.end() && !s->is_null()) {
        std::string v = s->is_string() ? s->get<std::string>() : "";
        if (v == "always") scheme = PrependScheme::kAlways;
        else if (v == "first") scheme = PrependScheme::kFirst;
        else if (v == "never") scheme = PrependScheme::kNever;
        else return Fail(where, MsgId::kTokenizerPrependScheme, {ValueForMessage(v)});
      }
      auto add_prefix = p.find("add_prefix_space");  // the older spelling
      if (add_prefix != p.end() && add_prefix->is_boolean() && !add_prefix->get<bool>()) {
        if (scheme != PrependScheme::kAlways && scheme != PrependScheme::kNever)
          return Fail(where, MsgId::kTokenizerPrefixSpace);
        scheme = PrependScheme::kNever;
      }
      auto split = Bool(p, "split", true, where);
      if (!split.ok()) return split.status();
      display->space_marker = *replacement;
      return MakeMetaspacePreTokenizer(*replacement, scheme, *split);
    }
    if (t == "Digits") {
      auto individual = Bool(p, "individual_digits", false, where);
      if (!individual.ok()) return individual.status();
      return MakeDigitsPreTokenizer(*individual);
    }
    if (t == "Whitespace") return MakeWhitespacePreTokenizer();
    if (t == "WhitespaceSplit") return MakeWhitespaceSplitPreTokenizer();
    if (t == "BertPreTokenizer") return MakeBertPreTokenizer();
    if (t == "Punctuation") {
      auto behavior = Behavior(p, where, SplitBehavior::kIsolated);
      if (!behavior.ok()) return behavior.status();
      return MakePunctuationPreTokenizer(*behavior);
    }
    if (t == "CharDelimiterSplit") {
      auto delimiter = Char(p, "delimiter", where);
      if (!delimiter.ok()) return delimiter.status();
      return MakeCharDelimiterSplit(*delimiter);
    }
    if (t == "Sequence") {
      if (Status s = CheckDepth("pre_tokenizer", depth, where); !s.ok()) return s;
      auto list = p.find("pretokenizers");
      if (list == p.end() || !list->is_array()) return Fail(where, MsgId::kKeyMustBeList, {"pretokenizers"});
      std::vector<std::unique_ptr<PreTokenizer>> steps;
      for (size_t i = 0; i < list->size(); ++i) {
        auto step = ReadPreTokenizer((*list)[i], where + ".pretokenizers[" + std::to_string(i) + "]", display,
                                     depth + 1);
        if (!step.ok()) return step.status();
        steps.push_back(std::move(step.value()));
      }
      return MakePreTokenizerSequence(std::move(steps));
    }
    return Unsupported("pre_tokenizer", t, where,
                       "ByteLevel, Split, Metaspace, Digits, Whitespace, WhitespaceSplit, BertPreTokenizer, "
                       "Punctuation, CharDelimiterSplit, Sequence");
  }

  Result<Vocab> ReadVocabMap(const json& m, const std::string& where) const {
    auto v = m.find("vocab");
    if (v == m.end() || !v->is_object()) return Fail(where, MsgId::kTokenizerVocabForm);
    std::vector<std::pair<std::string, int64_t>> pairs;
    pairs.reserve(v->size());
    for (auto it = v->begin(); it != v->end(); ++it) {
      auto id = JsonInteger(it.value());
      if (!id) return Fail(where, MsgId::kTokenizerVocabEntry, {ValueForMessage(it.key())});
      pairs.emplace_back(it.key(), *id);
    }
    return Vocab::FromPairs(std::move(pairs), file_ + ": " + where);
  }

  Result<std::unique_ptr<Model>> ReadModel(const json& m, PipelineParts* parts) {
    const std::string where = "model";
    if (!m.is_object()) return Fail(where, MsgId::kMustBeJsonObject);
    std::string t;
    if (auto it = m.find("type"); it != m.end() && it->is_string()) {
      t = it->get<std::string>();
    } else if (m.contains("merges")) {  // files without "type": the library tries the models in turn
      t = "BPE";
    } else if (m.contains("max_input_chars_per_word")) {
      t = "WordPiece";
    } else if (m.contains("vocab") && m["vocab"].is_array()) {
      t = "Unigram";
    } else {
      t = "WordLevel";
    }
    if (t == "BPE") {
      if (auto d = m.find("dropout"); d != m.end() && d->is_number() && d->get<double>() > 0.0)
        return Fail(where, MsgId::kTokenizerDropout);
      auto vocab = ReadVocabMap(m, where);
      if (!vocab.ok()) return vocab.status();
      auto merges_json = m.find("merges");
      if (merges_json == m.end() || !merges_json->is_array()) return Fail(where, MsgId::kKeyMustBeList, {"merges"});
      std::vector<std::pair<std::string, std::string>> merges;
      merges.reserve(merges_json->size());
      for (size_t i = 0; i < merges_json->size(); ++i) {
        const json& e = (*merges_json)[i];
        if (e.is_string()) {
          std::string line = e.get<std::string>();
          size_t space = line.find(' ');
          if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
            return Fail(where, MsgId::kTokenizerMergeForm, {std::to_string(i + 1), ValueForMessage(line)});
          merges.emplace_back(line.substr(0, space), line.substr(space + 1));
        } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
          merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
        } else {
          return Fail(where, MsgId::kTokenizerMergeShape, {std::to_string(i + 1)});
        }
      }
      BpeOptions o;
      auto opt_string = [&](const char* key) -> std::optional<std::string> {
        auto it = m.find(key);
        if (it == m.end() || !it->is_string()) return std::nullopt;
        return it->get<std::string>();
      };
      o.unk_token = opt_string("unk_token");
      o.continuing_subword_prefix = opt_string("continuing_subword_prefix").value_or("");
      o.end_of_word_suffix = opt_string("end_of_word_suffix").value_or("");
      auto fuse = Bool(m, "fuse_unk", false, where), fallback = Bool(m, "byte_fallback", false, where),
           ignore = Bool(m, "ignore_merges", false, where);
      if (!fuse.ok()) return fuse.status();
      if (!fallback.ok()) return fallback.status();
      if (!ignore.ok()) return ignore.status();
      o.fuse_unk = *fuse;
      o.byte_fallback = *fallback;
      o.ignore_merges = *ignore;
      parts->display.byte_fallback = o.byte_fallback;
      parts->description = std::string("tokenizer.json: BPE") + (parts->display.byte_level ? " (byte-level)" : "") +
                           (o.byte_fallback ? " (byte fallback)" : "");
      auto model = BpeModel::Create(std::move(vocab.value()), merges, std::move(o), file_ + ": " + where);
      if (!model.ok()) return model.status();
      return std::unique_ptr<Model>(std::move(model.value()));
    }
    if (t == "WordPiece") {
      auto vocab = ReadVocabMap(m, where);
      if (!vocab.ok()) return vocab.status();
      WordPieceOptions o;
      if (auto it = m.find("unk_token"); it != m.end() && it->is_string()) o.unk_token = it->get<std::string>();
      if (auto it = m.find("continuing_subword_prefix"); it != m.end() && it->is_string())
        o.continuing_subword_prefix = it->get<std::string>();
      if (auto it = m.find("max_input_chars_per_word"); it != m.end() && it->is_number_unsigned()) {
        // The library's default is 100; a larger value only lets longer words through the greedy match.
        uint64_t chars = it->get<uint64_t>();
        if (chars > kMaxWordPieceChars)
          return Fail(where, MsgId::kWordPieceMaxChars, {std::to_string(chars), std::to_string(kMaxWordPieceChars)});
        o.max_input_chars_per_word = size_t(chars);
      }
      parts->description = "tokenizer.json: WordPiece";
      return MakeWordPieceModel(std::move(vocab.value()), std::move(o), file_ + ": " + where);
    }
    if (t == "WordLevel") {
      auto vocab = ReadVocabMap(m, where);
      if (!vocab.ok()) return vocab.status();
      auto unk = String(m, "unk_token", where);
      if (!unk.ok()) return unk.status();
      parts->description = "tokenizer.json: WordLevel";
      return MakeWordLevelModel(std::move(vocab.value()), *unk, file_ + ": " + where);
    }
    if (t == "Unigram") return ReadUnigram(m, parts);
    return Unsupported("model", t, where, "BPE, WordPiece, WordLevel, Unigram");
  }

  // {"type": "Unigram", "unk_id": 0, "byte_fallback": true, "vocab": [["<unk>", 0.0], ["▁the", -3.1], ...]}
  Result<std::unique_ptr<Model>> ReadUnigram(const json& m, PipelineParts* parts) const {
    const std::string where = "model";
    auto v = m.find("vocab");
    if (v == m.end() || !v->is_array()) return Fail(where, MsgId::kKeyMustBeList, {"vocab"});
    std::vector<std::pair<std::string, double>> pieces;
    pieces.reserve(v->size());
    for (size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
        return Fail(where, MsgId::kTokenizerUnigramEntry, {std::to_string(i)});
      pieces.emplace_back(e[0].get<std::string>(), e[1].get<double>());
    }
    UnigramOptions o;
    if (auto u = m.find("unk_id"); u != m.end() && !u->is_null()) {
      auto id = Id(*u, where + ".unk_id");
      if (!id.ok()) return id.status();
      o.unk_id = *id;
    }
    auto fallback = Bool(m, "byte_fallback", false, where);
    if (!fallback.ok()) return fallback.status();
    o.byte_fallback = *fallback;
    parts->display.byte_fallback = o.byte_fallback;
    parts->description = std::string("tokenizer.json: Unigram") + (o.byte_fallback ? " (byte fallback)" : "");
    return MakeUnigramModel(std::move(pieces), o, file_ + ": " + where);
  }

  Status ReadAddedTokens(const json& list, std::vector<AddedToken>* out) const {
    if (!list.is_array()) return Fail("added_tokens", MsgId::kMustBeList);
    for (size_t i = 0; i < list.size(); ++i) {
      const json& e = list[i];
      std::string where = "added_tokens[" + std::to_string(i) + "]";
      if (!e.is_object()) return Fail(where, MsgId::kMustBeObject);
      AddedToken t;
      auto content = String(e, "content", where);
      if (!content.ok()) return content.status();
      t.content = *content;
      auto id_json = e.find("id");
      if (id_json == e.end()) return Fail(where, MsgId::kTokenizerIdForm);
      auto id = Id(*id_json, where);
      if (!id.ok()) return id.status();
      t.id = *id;
      auto special = Bool(e, "special", false, where);
      if (!special.ok()) return special.status();
      t.special = *special;
      auto single = Bool(e, "single_word", false, where), lstrip = Bool(e, "lstrip", false, where),
           rstrip = Bool(e, "rstrip", false, where), normalized = Bool(e, "normalized", !t.special, where);
      for (const auto* r : {&single, &lstrip, &rstrip, &normalized})
        if (!r->ok()) return r->status();
      t.single_word = *single;
      t.lstrip = *lstrip;
      t.rstrip = *rstrip;
      t.normalized = *normalized;
      out->push_back(std::move(t));
    }
    return Status::Ok();
  }

  // ["[SEP]", 102] -> one special token.
  Result<SpecialTokens> PairToken(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_string() ||
        !(*it)[1].is_number_integer())
      return Fail(where, MsgId::kTokenizerPairToken, {key});
    auto id = Id((*it)[1], where + "." + key);
    if (!id.ok()) return id.status();
    return SpecialTokens{{*id}, {(*it)[0].get<std::string>()}};
  }

  Result<std::unique_ptr<PostProcessor>> ReadPostProcessor(const json& p, const std::string& where, int depth) const {
    auto type = TypeOf(p, where);
    if (!type.ok()) return type.status();
    const std::string& t = *type;
    if (t == "BertProcessing" || t == "RobertaProcessing") {
      auto cls = PairToken(p, "cls", where), sep = PairToken(p, "sep", where);
      if (!cls.ok()) return cls.status();
      if (!sep.ok()) return sep.status();
      std::vector<TemplateItem> single(3);
      single[0].special = *cls;
      single[1].is_sequence = true;
      single[2].special = *sep;
      return MakeTemplateProcessor(std::move(single));
    }
    if (t == "ByteLevel") return MakeNoOpProcessor();
    if (t == "TemplateProcessing") {
      auto single_json = p.find("single");
      if (single_json == p.end() || !single_json->is_array()) return Fail(where, MsgId::kKeyMustBeList, {"single"});
      auto specials = p.find("special_tokens");
      std::vector<TemplateItem> single;
      for (size_t i = 0; i < single_json->size(); ++i) {
        const json& item = (*single_json)[i];
        std::string item_where = where + ".single[" + std::to_string(i) + "]";
        TemplateItem out;
        if (item.is_object() && item.contains("Sequence")) {
          out.is_sequence = true;
        } else if (item.is_object() && item.contains("SpecialToken") && item["SpecialToken"].is_object() &&
                   item["SpecialToken"].contains("id") && item["SpecialToken"]["id"].is_string()) {
          std::string name = item["SpecialToken"]["id"].get<std::string>();
          if (specials == p.end() || !specials->is_object() || !specials->contains(name))
            return Fail(item_where, MsgId::kTokenizerSpecialAbsent, {ValueForMessage(name)});
          const json& spec = (*specials)[name];
          auto ids = spec.find("ids");
          auto tokens = spec.find("tokens");
          if (ids == spec.end() || tokens == spec.end() || !ids->is_array() || !tokens->is_array() ||
              ids->size() != tokens->size())
            return Fail(where, MsgId::kTokenizerSpecialLengths, {ValueForMessage(name)});
          for (size_t k = 0; k < ids->size(); ++k) {
            if (!(*ids)[k].is_number_integer() || !(*tokens)[k].is_string())
              return Fail(where, MsgId::kTokenizerSpecialBad, {ValueForMessage(name)});
            auto id = Id((*ids)[k], where + ".special_tokens");
            if (!id.ok()) return id.status();
            out.special.ids.push_back(*id);
            out.special.pieces.push_back((*tokens)[k].get<std::string>());
          }
        } else {
          return Fail(item_where, MsgId::kTokenizerTemplateItem);
        }
        single.push_back(std::move(out));
      }
      return MakeTemplateProcessor(std::move(single));
    }
    if (t == "Sequence") {
      if (Status s = CheckDepth("post_processor", depth, where); !s.ok()) return s;
      auto list = p.find("processors");
      if (list == p.end() || !list->is_array()) return Fail(where, MsgId::kKeyMustBeList, {"processors"});
      std::vector<std::unique_ptr<PostProcessor>> steps;
      for (size_t i = 0; i < list->size(); ++i) {
        auto step = ReadPostProcessor((*list)[i], where + ".processors[" + std::to_string(i) + "]", depth + 1);
        if (!step.ok()) return step.status();
        steps.push_back(std::move(step.value()));
      }
      return MakeProcessorSequence(std::move(steps));
    }
    return Unsupported("post_processor", t, where,
                       "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
  }

  // The decoder does not change ids; it only tells how pieces read back (for Token::bytes and display). Only a
  // Sequence nested too deep is an error.
  Status ReadDecoderHints(const json& d, const std::string& where, DisplayRules* display, int depth) const {
    if (!d.is_object()) return Status::Ok();
    std::string t = d.value("type", "");
    if (t == "ByteLevel") display->byte_level = true;
    if (t == "ByteFallback") display->byte_fallback = true;
    if (t == "Metaspace" && d.contains("replacement") && d["replacement"].is_string()) {
      AlignedText r = AlignUtf8(d["replacement"].get<std::string>());
      if (r.size() == 1) display->space_marker = r[0].cp;
    }
    if (t == "Replace" && d.contains("pattern") && d["pattern"].is_object() && d.value("content", "") == " ") {
      const json& pattern = d["pattern"];
      if (pattern.contains("String") && pattern["String"].is_string()) {
        AlignedText r = AlignUtf8(pattern["String"].get<std::string>());
        if (r.size() == 1) display->space_marker = r[0].cp;
      }
    }
    if (t == "Sequence" && d.contains("decoders") && d["decoders"].is_array()) {
      if (Status s = CheckDepth("decoder", depth, where); !s.ok()) return s;
      const json& steps = d["decoders"];
      for (size_t i = 0; i < steps.size(); ++i) {
        Status s = ReadDecoderHints(steps[i], where + ".decoders[" + std::to_string(i) + "]", display, depth + 1);
        if (!s.ok()) return s;
      }
    }
    return Status::Ok();
  }

  std::string file_;
};

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadTokenizerJson(const std::string& path) {
  auto root = ReadJsonFile(path);
  if (!root.ok()) return root.status();
  try {
    TokenizerJsonReader reader(path);
    auto parts = reader.Read(*root);
    if (!parts.ok()) return parts.status();
    auto tokenizer = MakePipelineTokenizer(std::move(parts.value()));
    if (!tokenizer.ok()) return Status::Prefixed(MsgId::kPrefixContext, {path}, tokenizer.status());
    return tokenizer;
  } catch (const nlohmann::json::exception& e) {
    return Status::ErrorAt(path, MsgId::kTokenizerUnexpected, {CappedJsonError(e.what())});
  }
}

}  // namespace attnviz::tokenize
