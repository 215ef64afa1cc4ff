#include "tokenize/gguf_tokenizer.h"

#include <algorithm>
#include <map>
#include <utility>

#include "tokenize/bpe_model.h"
#include "tokenize/pipeline.h"
#include "tokenize/unicode.h"

namespace attnviz::tokenize {
namespace {

// The regexes of the Hugging Face tokenizer.json files of these families (llama.cpp's llama-vocab.cpp holds the
// same splits, rewritten for its own regex engine).
constexpr char kLlama3Pattern[] =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kQwen2Pattern[] =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr char kSupportedPre[] = "default, gpt2, mpt, olmo, jais, llama-bpe, llama3, qwen2, smollm";

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

Result<std::unique_ptr<Tokenizer>> Gpt2(const GgufVocab& v) {
  PipelineParts parts;
  const std::string pre = v.pre.empty() ? "default" : v.pre;
  auto split = [&](const char* pattern) -> Result<std::unique_ptr<PreTokenizer>> {
    auto re = Regex::Compile(pattern);
    if (!re) return re.status();
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    steps.push_back(MakeSplitPreTokenizer(std::move(*re), SplitBehavior::kIsolated, /*invert=*/false));
    steps.push_back(MakeByteLevelPreTokenizer(/*add_prefix_space=*/false, /*use_regex=*/false));
    return MakePreTokenizerSequence(std::move(steps));
  };
  if (pre == "default" || pre == "gpt2" || pre == "mpt" || pre == "olmo" || pre == "jais") {
    parts.pre_tokenizer = MakeByteLevelPreTokenizer(false, true);
  } else if (pre == "llama-bpe" || pre == "llama3") {
    auto p = split(kLlama3Pattern);
    if (!p) return p.status();
    parts.pre_tokenizer = std::move(*p);
  } else if (pre == "qwen2") {
    parts.normalizer = MakeUnicodeNormalizer(NormalForm::kNfc);
    auto p = split(kQwen2Pattern);
    if (!p) return p.status();
    parts.pre_tokenizer = std::move(*p);
  } else if (pre == "smollm") {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    steps.push_back(MakeDigitsPreTokenizer(/*individual_digits=*/true));
    steps.push_back(MakeByteLevelPreTokenizer(false, true));
    parts.pre_tokenizer = MakePreTokenizerSequence(std::move(steps));
  } else {
    return Status::ErrorAt(v.where, MsgId::kGgufTokenizerPre, {CappedValue(v.pre), kSupportedPre});
  }
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
  auto model = BpeModel::Create(std::move(*vocab), merges, BpeOptions{}, v.where + ": tokenizer.ggml.merges");
  if (!model) return model.status();
  parts.model = std::move(*model);
  parts.added_tokens = AddedTokens(v);
  parts.post_processor = BosEos(v, /*bos_default=*/false);
  parts.display.byte_level = true;
  parts.description = "GGUF: BPE (byte-level, pre " + pre + ")";
  return MakePipelineTokenizer(std::move(parts));
}

// SentencePiece BPE: every way to write a token as two tokens is a merge, ranked by the token's score.
std::vector<std::pair<std::string, std::string>> ScoreMerges(const GgufVocab& v, const Vocab& vocab) {
  struct Candidate {
    float score;
    int id, left_id;
    std::string left, right;
  };
  std::vector<Candidate> all;
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    const GgufTokenType t = TypeOf(v, i);
    if (t != GgufTokenType::kNormal && t != GgufTokenType::kUserDefined) continue;
    const std::string& piece = v.tokens[i];
    if (const int* found = vocab.Find(piece); !found || *found != (int)i) continue;  // a repeated piece: once
    for (size_t k = 1; k < piece.size(); ++k) {
      if (((unsigned char)piece[k] & 0xC0) == 0x80) continue;  // inside a UTF-8 sequence
      const int* l = vocab.Find(std::string_view(piece).substr(0, k));
      const int* r = vocab.Find(std::string_view(piece).substr(k));
      if (!l || !r) continue;
      all.push_back({i < v.scores.size() ? v.scores[i] : 0.0f, (int)i, *l, piece.substr(0, k), piece.substr(k)});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.id != b.id) return a.id < b.id;
    return a.left_id < b.left_id;
  });
  std::vector<std::pair<std::string, std::string>> merges;
  merges.reserve(all.size());
  for (auto& c : all) merges.emplace_back(std::move(c.left), std::move(c.right));
  return merges;
}

Result<std::unique_ptr<Tokenizer>> Llama(const GgufVocab& v) {
  PipelineParts parts;
  auto vocab = MakeVocab(v);
  if (!vocab) return vocab.status();
  const auto merges = ScoreMerges(v, *vocab);
  BpeOptions o;
  o.byte_fallback = true;
  o.fuse_unk = true;
  if (v.unk) o.unk_token = v.tokens[(size_t)*v.unk];
  auto model = BpeModel::Create(std::move(*vocab), merges, std::move(o), v.where + ": tokenizer.ggml.tokens");
  if (!model) return model.status();
  parts.model = std::move(*model);
  constexpr char32_t kSpace = 0x2581;  // ▁
  parts.pre_tokenizer = MakeMetaspacePreTokenizer(
      kSpace, v.add_space_prefix.value_or(true) ? PrependScheme::kFirst : PrependScheme::kNever, /*split=*/false);
  parts.added_tokens = AddedTokens(v);
  parts.post_processor = BosEos(v, /*bos_default=*/true);
  parts.display.byte_fallback = true;
  parts.display.space_marker = kSpace;
  parts.description = "GGUF: BPE (SentencePiece, byte fallback)";
  return MakePipelineTokenizer(std::move(parts));
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> MakeGgufTokenizer(const GgufVocab& v) {
  if (v.model == "gpt2") return Gpt2(v);
  if (v.model == "llama") return Llama(v);
  return Status::ErrorAt(v.where, MsgId::kGgufTokenizerModel, {CappedValue(v.model)});
}

}  // namespace attnviz::tokenize
