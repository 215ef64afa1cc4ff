#include "tokenize/gguf_tokenizer.h"

#include <algorithm>
#include <map>
#include <utility>

#include "tokenize/bpe_model.h"
#include "tokenize/pipeline.h"
#include "tokenize/spm_model.h"
#include "tokenize/unicode.h"

namespace attnviz::tokenize {
namespace {

// llama.cpp's BPE pre-tokenizers (llama-vocab.cpp), by the tokenizer.ggml.pre names its converter writes: each a
// list of regexes applied in turn, every piece split further by the next one, matches and the text between them both
// kept (Hugging Face's Split with "Isolated"), then each piece's bytes mapped to the byte-level alphabet.
// !! A name llama.cpp does not know gets its default split (as llama.cpp does, with a warning); the tokenizer's
// description says so. Names whose split llama.cpp makes in custom code, not regexes, are refused by name.
constexpr char kGpt2Re[] = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
constexpr char kLlama3Re[] =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kQwen2Re[] =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kPoroRe[] = R"( ?[^(\s|.,!?…。，、।۔،)]+)";
constexpr char kTekkenRe[] =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kDeepseek3Words[] =
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kGpt4oRe[] =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

struct PreSplit {
  std::vector<const char*> names;    // tokenizer.ggml.pre values
  std::vector<const char*> regexes;  // applied in turn
  bool ignore_merges = false;        // a piece that is itself a token is that token (llama.cpp's ignore_merges)
  bool bos_default = false;          // add the BOS token when tokenizer.ggml.add_bos_token is absent
  bool nfc = false;                  // NFC first (the Qwen2 tokenizer.json's normalizer)
};

const std::vector<PreSplit>& PreSplits() {
  static const std::vector<PreSplit> table = {
      {{"default"}, {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2Re, R"(\p{N}+)", "[0-9][0-9][0-9]"}},
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"},
       {kLlama3Re}, /*ignore_merges=*/true, /*bos_default=*/true},
      {{"dbrx", "smaug-bpe", "glm4", "chatglm-bpe"}, {kLlama3Re}},
      {{"deepseek-llm"},
       {"[\r\n]",
        "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-\\x{1F7D}ᾀ-ᾴᾶ-ᾼ\\x{1FBE}ῂ-ῄῆ-ῌῐ-\\x{1FD3}ῖ-\\x{1FDB}ῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤ\\x{2126}ℨ\\x{212A}-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ\U00010400-\U0001044f𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
        "\\s?[!-/:-~！-／：-～‘-‟　-。]+", "\\s+$", "[一-龥ࠀ-一가-퟿]+", "\\p{N}+"}},
      {{"deepseek-v3", "hunyuan-dense"}, {R"(\p{N}{1,3})", "[一-龥぀-ゟ゠-ヿ]+", kDeepseek3Words}},
      {{"deepseek-coder"}, {"[\r\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", "[一-龥ࠀ-一가-퟿]+", R"(\p{N})"}},
      {{"falcon"}, {R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2Re, "[0-9][0-9][0-9]"}},
      {{"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"}, {R"(\p{N})", kGpt2Re}},
      {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
        "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4", "mpt", "olmo", "jais", "trillion", "granite-docling"},
       {kGpt2Re}},
      {{"qwen2", "deepseek-r1-qwen", "kormo", "megrez", "stablelm2", "hunyuan"}, {kQwen2Re}, false, false,
       /*nfc=*/true},
      {{"poro-chat", "bloom", "gpt3-finnish"}, {kPoroRe}},
      {{"viking"}, {kPoroRe, R"(\p{N})"}},
      {{"tekken"}, {kTekkenRe}, /*ignore_merges=*/true, /*bos_default=*/true},
      {{"gpt-4o", "llama4", "minimax-m2"}, {kGpt4oRe}},
      {{"seed-coder"},
       {R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)"}},
      {{"grok-2"}, {kQwen2Re}},
      {{"bailingmoe", "bailingmoe2", "llada-moe"},
       {R"('(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)"}},
  };
  return table;
}

// Names llama.cpp splits in code of its own: no regex list would give its pieces.
constexpr const char* kCustomSplits[] = {"kimi-k2", "afmoe", "superbpe", "chameleon", "qwen35"};
constexpr char kSupportedPre[] = "default, gpt-2, llama-bpe, qwen2, smollm, tekken, deepseek-llm, ...";

GgufTokenType TypeOf(const GgufVocab& v, size_t id) {
  return id < v.types.size() ? v.types[id] : GgufTokenType::kNormal;
}

Result<Vocab> MakeVocab(const GgufVocab& v) {
  std::vector<std::pair<std::string, int64_t>> pairs;
  pairs.reserve(v.tokens.size());
  for (size_t i = 0; i < v.tokens.size(); ++i) pairs.emplace_back(v.tokens[i], (int64_t)i);
  return Vocab::FromPairs(std::move(pairs), v.where + ": tokenizer.ggml.tokens");
}

// Control, unknown and user-defined tokens are matched in the text before the model sees it.
std::vector<AddedToken> AddedTokens(const GgufVocab& v) {
  std::vector<AddedToken> out;
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    const GgufTokenType t = TypeOf(v, i);
    if (t != GgufTokenType::kControl && t != GgufTokenType::kUserDefined && t != GgufTokenType::kUnknown) continue;
    if (v.tokens[i].empty()) continue;
    AddedToken a;
    a.content = v.tokens[i];
    a.id = (int)i;
    a.special = t != GgufTokenType::kUserDefined;
    a.normalized = !a.special;
    out.push_back(std::move(a));
  }
  return out;
}

// [bos] $A [eos] as the flags say.
std::unique_ptr<PostProcessor> BosEos(const GgufVocab& v, bool bos_default) {
  std::vector<TemplateItem> items;
  auto special = [&](int id) {
    TemplateItem t;
    t.special.ids = {id};
    t.special.pieces = {v.tokens[(size_t)id]};
    return t;
  };
  if (v.add_bos.value_or(bos_default) && v.bos) items.push_back(special(*v.bos));
  TemplateItem seq;
  seq.is_sequence = true;
  items.push_back(seq);
  if (v.add_eos.value_or(false) && v.eos) items.push_back(special(*v.eos));
  if (items.size() == 1) return nullptr;
  return MakeTemplateProcessor(std::move(items));
}

// The split a tokenizer.ggml.pre name selects; nullptr (with *refused) for a name split in custom code. A name
// not in the table, or none, gets "default".
const PreSplit* FindPreSplit(const std::string& pre, bool* refused) {
  *refused = std::find_if(std::begin(kCustomSplits), std::end(kCustomSplits),
                          [&](const char* n) { return pre == n; }) != std::end(kCustomSplits);
  if (*refused) return nullptr;
  const auto& table = PreSplits();
  for (const PreSplit& s : table) {
    for (const char* n : s.names)
      if (pre == n) return &s;
  }
  return &table.front();
}

Result<std::unique_ptr<PreTokenizer>> MakePreSplit(const PreSplit& s) {
  std::vector<std::unique_ptr<PreTokenizer>> steps;
  for (const char* pattern : s.regexes) {
    auto re = Regex::Compile(pattern);
    if (!re) return re.status();
    steps.push_back(MakeSplitPreTokenizer(std::move(*re), SplitBehavior::kIsolated, /*invert=*/false));
  }
  steps.push_back(MakeByteLevelPreTokenizer(/*add_prefix_space=*/false, /*use_regex=*/false));
  return MakePreTokenizerSequence(std::move(steps));
}

Result<std::unique_ptr<Tokenizer>> Gpt2(const GgufVocab& v) {
  PipelineParts parts;
  bool refused = false;
  const PreSplit* split = FindPreSplit(v.pre, &refused);
  if (!split) return Status::ErrorAt(v.where, MsgId::kGgufTokenizerPre, {CappedValue(v.pre), kSupportedPre});
  const bool known = split != &PreSplits().front() || v.pre == "default";
  if (split->nfc) parts.normalizer = MakeUnicodeNormalizer(NormalForm::kNfc);
  auto pre_tokenizer = MakePreSplit(*split);
  if (!pre_tokenizer) return pre_tokenizer.status();
  parts.pre_tokenizer = std::move(*pre_tokenizer);
  std::vector<std::pair<std::string, std::string>> merges;
  merges.reserve(v.merges.size());
  for (size_t i = 0; i < v.merges.size(); ++i) {
    const std::string& line = v.merges[i];
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
      return Status::ErrorAt(v.where + ": tokenizer.ggml.merges", MsgId::kTokenizerMergeForm,
                             {std::to_string(i + 1), CappedValue(line)});
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  auto vocab = MakeVocab(v);
  if (!vocab) return vocab.status();
  BpeOptions options;
  options.ignore_merges = split->ignore_merges;
  auto model = BpeModel::Create(std::move(*vocab), merges, options, v.where + ": tokenizer.ggml.merges");
  if (!model) return model.status();
  parts.model = std::move(*model);
  parts.added_tokens = AddedTokens(v);
  parts.post_processor = BosEos(v, split->bos_default);
  parts.display.byte_level = true;
  parts.description = known ? "GGUF: BPE (byte-level, pre " + v.pre + ")"
                            : "GGUF: BPE (byte-level, pre " + (v.pre.empty() ? std::string("missing") : "\"" + CappedValue(v.pre) + "\"") +
                                  ": llama.cpp's default split)";
  return MakePipelineTokenizer(std::move(parts));
}

Result<std::unique_ptr<Tokenizer>> Llama(const GgufVocab& v) {
  PipelineParts parts;
  auto vocab = MakeVocab(v);
  if (!vocab) return vocab.status();
  parts.model = SpmModel::Create(std::move(*vocab), v.scores, v.unk, v.where);
  constexpr char32_t kSpace = 0x2581;  // ▁
  parts.pre_tokenizer = MakeMetaspacePreTokenizer(
      kSpace, v.add_space_prefix.value_or(true) ? PrependScheme::kEveryPiece : PrependScheme::kNever, /*split=*/false);
  parts.added_tokens = AddedTokens(v);
  parts.post_processor = BosEos(v, /*bos_default=*/true);
  parts.display.byte_fallback = true;
  parts.display.space_marker = kSpace;
  parts.description = "GGUF: SentencePiece (llama.cpp's SPM merges, byte fallback)";
  return MakePipelineTokenizer(std::move(parts));
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> MakeGgufTokenizer(const GgufVocab& v) {
  if (v.model == "gpt2") return Gpt2(v);
  if (v.model == "llama") return Llama(v);
  return Status::ErrorAt(v.where, MsgId::kGgufTokenizerModel, {CappedValue(v.model)});
}

}  // namespace attnviz::tokenize
