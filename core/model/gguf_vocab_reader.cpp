#include "model/gguf_vocab_reader.h"

namespace attnviz::model {
namespace {

constexpr uint64_t kMaxTokens = uint64_t(1) << 24;

class VocabKeys {
 public:
  explicit VocabKeys(const GgufFile& f) : f_(f) {}

  Status TypeError(const std::string& key, const GgufValue& v, const char* expected) const {
    std::string type = GgufValueTypeName(v.type);
    if (v.type == GgufValueType::kArray) type += std::string(" of ") + GgufValueTypeName(v.item_type);
    return Status::ErrorAt(f_.path(), MsgId::kGgufKeyType, {key, type, expected});
  }
  // An array of `item`s (any integer kind when `item` is kI32, any number kind when kF32); null when absent.
  Result<const GgufValue*> Array(const std::string& key, GgufValueType item, const char* expected) const {
    const GgufValue* v = f_.Find(key);
    if (!v) return (const GgufValue*)nullptr;
    bool ok = v->type == GgufValueType::kArray;
    if (ok && item == GgufValueType::kString) ok = v->item_type == GgufValueType::kString;
    if (ok && item == GgufValueType::kI32) {
      GgufValue probe;
      probe.type = v->item_type;
      ok = probe.is_integer();
    }
    if (ok && item == GgufValueType::kF32) ok = v->item_type == GgufValueType::kF32 || v->item_type == GgufValueType::kF64;
    if (!ok) return TypeError(key, *v, expected);
    if (v->items.size() > kMaxTokens)
      return Status::ErrorAt(f_.path(), MsgId::kGgufKeyRange,
                             {key + " (entries)", std::to_string(v->items.size()), "0", std::to_string(kMaxTokens)});
    return v;
  }
  Status Id(const std::string& key, size_t n_tokens, std::optional<int>* out) const {
    const GgufValue* v = f_.Find(key);
    if (!v) return Status::Ok();
    if (!v->is_integer()) return TypeError(key, *v, "an integer");
    const bool negative = (v->type == GgufValueType::kI8 || v->type == GgufValueType::kI16 ||
                           v->type == GgufValueType::kI32 || v->type == GgufValueType::kI64) && v->i < 0;
    if (negative) return Status::Ok();  // -1: no such token (llama.cpp's LLAMA_TOKEN_NULL)
    if (v->u >= n_tokens)
      return Status::ErrorAt(f_.path(), MsgId::kGgufTokenId, {key, std::to_string(v->u), std::to_string(n_tokens - 1)});
    *out = (int)v->u;
    return Status::Ok();
  }
  Status Bool(const std::string& key, std::optional<bool>* out) const {
    const GgufValue* v = f_.Find(key);
    if (!v) return Status::Ok();
    if (v->type != GgufValueType::kBool) return TypeError(key, *v, "bool");
    *out = v->u != 0;
    return Status::Ok();
  }
  Status String(const std::string& key, bool required, std::string* out) const {
    const GgufValue* v = f_.Find(key);
    if (!v) return required ? Status::ErrorAt(f_.path(), MsgId::kGgufMissingKey, {key}) : Status::Ok();
    if (v->type != GgufValueType::kString) return TypeError(key, *v, "string");
    *out = v->s;
    return Status::Ok();
  }
  Status SameLength(const std::string& key, const GgufValue* v, size_t n) const {
    if (v && v->items.size() != n)
      return Status::ErrorAt(f_.path(), MsgId::kGgufArrayLengths,
                             {key, std::to_string(v->items.size()), "tokenizer.ggml.tokens", std::to_string(n)});
    return Status::Ok();
  }

 private:
  const GgufFile& f_;
};

#define VOCAB_TRY(expr)                     \
  do {                                      \
    if (Status s_ = (expr); !s_) return s_; \
  } while (0)

}  // namespace

Result<tokenize::GgufVocab> ReadGgufVocab(const GgufFile& f) {
  const VocabKeys k(f);
  tokenize::GgufVocab v;
  v.where = f.path();
  VOCAB_TRY(k.String("tokenizer.ggml.model", true, &v.model));
  VOCAB_TRY(k.String("tokenizer.ggml.pre", false, &v.pre));
  auto tokens = k.Array("tokenizer.ggml.tokens", GgufValueType::kString, "array of string");
  if (!tokens) return tokens.status();
  if (!*tokens) return Status::ErrorAt(f.path(), MsgId::kGgufMissingKey, {"tokenizer.ggml.tokens"});
  const size_t n = (*tokens)->items.size();
  if (n == 0) return Status::ErrorAt(f.path(), MsgId::kVocabEmpty, {});
  v.tokens.reserve(n);
  for (const GgufValue& t : (*tokens)->items) v.tokens.push_back(t.s);
  auto scores = k.Array("tokenizer.ggml.scores", GgufValueType::kF32, "array of float32");
  if (!scores) return scores.status();
  VOCAB_TRY(k.SameLength("tokenizer.ggml.scores", *scores, n));
  if (*scores)
    for (const GgufValue& s : (*scores)->items) v.scores.push_back((float)s.f);
  auto types = k.Array("tokenizer.ggml.token_type", GgufValueType::kI32, "array of int32");
  if (!types) return types.status();
  VOCAB_TRY(k.SameLength("tokenizer.ggml.token_type", *types, n));
  if (*types)
    for (const GgufValue& t : (*types)->items) v.types.push_back((tokenize::GgufTokenType)t.i);
  auto merges = k.Array("tokenizer.ggml.merges", GgufValueType::kString, "array of string");
  if (!merges) return merges.status();
  if (*merges)
    for (const GgufValue& m : (*merges)->items) v.merges.push_back(m.s);
  VOCAB_TRY(k.Id("tokenizer.ggml.bos_token_id", n, &v.bos));
  VOCAB_TRY(k.Id("tokenizer.ggml.eos_token_id", n, &v.eos));
  VOCAB_TRY(k.Id("tokenizer.ggml.unknown_token_id", n, &v.unk));
  VOCAB_TRY(k.Bool("tokenizer.ggml.add_bos_token", &v.add_bos));
  VOCAB_TRY(k.Bool("tokenizer.ggml.add_eos_token", &v.add_eos));
  VOCAB_TRY(k.Bool("tokenizer.ggml.add_space_prefix", &v.add_space_prefix));
  return v;
}

}  // namespace attnviz::model
