#include "model/seq2seq.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"
#include "model/json_limits.h"
#include "model/safetensors.h"

namespace attnviz::model {

const char* Seq2SeqStackName(Seq2SeqStack s) {
  switch (s) {
    case Seq2SeqStack::kEncoder: return "encoder";
    case Seq2SeqStack::kDecoder: return "decoder";
    case Seq2SeqStack::kCross: return "cross";
  }
  return "?";
}

std::string Seq2SeqConfig::Describe() const {
  auto stack = [](const char* name, const Seq2SeqStackConfig& s) {
    return std::string(name) + " " + std::to_string(s.n_layer) + " layers x " + std::to_string(s.n_head) +
           " heads x " + std::to_string(s.d_head) + ", d_ff " + std::to_string(s.d_ff);
  };
  std::string s = model_type + ": " + stack("encoder", encoder) + "; " + stack("decoder", decoder) + "; d_model " +
                  std::to_string(d_model) + ", vocab " + std::to_string(vocab);
  if (decoder_vocab != vocab) s += " (decoder " + std::to_string(decoder_vocab) + ")";
  switch (positions) {
    case PositionKind::kLearned:
      s += ", learned positions (" + std::to_string(max_positions) + ", offset " + std::to_string(position_offset) + ")";
      break;
    case PositionKind::kSinusoidal: s += ", sinusoidal positions (" + std::to_string(max_positions) + ")"; break;
    case PositionKind::kRelative:
      s += ", relative position buckets (" + std::to_string(num_buckets) + ", max distance " +
           std::to_string(max_distance) + ")";
      break;
  }
  s += pre_norm ? ", pre-norm" : ", post-norm";
  s += norm == BlockRecipe::Norm::kRms ? " RMSNorm" : " LayerNorm";
  if (final_norms) s += ", final norms";
  if (embed_norm) s += ", embedding LayerNorm";
  if (scale_embedding) s += ", embeddings * sqrt(d_model)";
  if (!scale_q) s += ", unscaled q.k";
  s += std::string(", ") + (gated_mlp ? "gated " : "") + ActivationName(activation);
  if (!shared_embeddings) s += ", separate decoder embeddings";
  s += tie_word_embeddings ? ", tied lm_head" : ", lm_head";
  if (lm_head_rescale) s += " (output * d_model^-0.5)";
  if (final_logits_bias) s += ", final_logits_bias";
  s += ", decoder start " + std::to_string(decoder_start_id) + ", eos " + std::to_string(eos_id);
  return s;
}

std::string Seq2SeqModel::Describe() const {
  std::string s = config_.Describe() + "\n";
  for (const auto& f : store_->files()) s += "  " + f->path() + "\n";
  char b[96];
  std::snprintf(b, sizeof b, "  %.1f MB mapped, %.1f MB converted or computed", store_->mapped_bytes() / 1e6,
                store_->converted_bytes() / 1e6);
  return s + b;
}

int RelativePositionBucket(int relative_position, bool bidirectional, int num_buckets, int max_distance) {
  int bucket = 0;
  int rp = relative_position;
  if (bidirectional) {
    num_buckets /= 2;
    if (rp > 0) bucket += num_buckets;
    rp = rp < 0 ? -rp : rp;
  } else {
    rp = rp < 0 ? -rp : 0;  // keys after the query (masked anyway) share bucket 0
  }
  const int max_exact = num_buckets / 2;
  if (rp < max_exact) return bucket + rp;
  // !! float32 as torch's relative_position.float(): log(rp / max_exact) / log(max_distance / max_exact) * (n - max_exact)
  const float ratio = (float)rp / (float)max_exact;
  const float scaled = std::log(ratio) / (float)std::log((double)max_distance / max_exact) * (float)(num_buckets - max_exact);
  const int large = max_exact + (int)scaled;  // .to(torch.long): toward zero
  return bucket + (large < num_buckets - 1 ? large : num_buckets - 1);
}

namespace {

// Token ids the config names: each must be a row of its table.
Status CheckTokenIds(const Seq2SeqConfig& c, const std::string& where) {
  auto in = [&](const char* key, int id, int size, bool required) -> Status {
    if ((id < 0 && !required) || (id >= 0 && id < size)) return Status::Ok();
    return Status::ErrorAt(where, MsgId::kConfigNotInt, {key, std::to_string(id), "0", std::to_string(size - 1)});
  };
  ATTNVIZ_TRY(in("pad_token_id", c.pad_id, c.vocab, false));
  ATTNVIZ_TRY(in("bos_token_id", c.bos_id, c.decoder_vocab, false));
  ATTNVIZ_TRY(in("eos_token_id", c.eos_id, c.decoder_vocab, false));
  ATTNVIZ_TRY(in("decoder_start_token_id", c.decoder_start_id, c.decoder_vocab, true));
  for (int id : c.suppressed_ids) ATTNVIZ_TRY(in("bad_words_ids", id, c.decoder_vocab, true));
  return Status::Ok();
}

// bad_words_ids: [[id], [id, id], ...]; the one-token entries are ids generation never picks (longer ones are
// sequences transformers bans only after their prefix: not read).
Status ReadSuppressed(const json& j, const std::string& where, std::vector<int>* out) {
  auto it = j.find("bad_words_ids");
  if (it == j.end() || it->is_null()) return Status::Ok();
  auto bad = [&] {
    return Status::Prefixed(MsgId::kPrefixContext, {where},
                            Status::Error("\"bad_words_ids\" is " + JsonValueText(*it) +
                                          "; allowed: null or a list of lists of token ids"));
  };
  if (!it->is_array()) return bad();
  for (const json& seq : *it) {
    if (!seq.is_array()) return bad();
    for (const json& id : seq)
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > kMaxVocab) return bad();
    if (seq.size() == 1) out->push_back((int)seq[0].get<int64_t>());
  }
  return Status::Ok();
}

}  // namespace

Result<Seq2SeqConfig> ParseSeq2SeqConfig(const std::string& text, const std::string& where) {
  json j;
  if (Status s = ParseJsonBounded(text.data(), text.data() + text.size(), where, &j); !s) return s;
  if (!j.is_object()) return Status::ErrorAt(where, MsgId::kMustBeJsonObject, {});
  auto mt = j.find("model_type");
  if (mt == j.end() || !mt->is_string())
    return Status::ErrorAt(where, MsgId::kConfigNoModelType, {SupportedSeq2SeqModelTypes()});
  Seq2SeqConfig c;
  c.model_type = mt->get<std::string>();
  if (Status refused = RefuseUnbuilt(j, c.model_type, where); !refused) return refused;
  const Seq2SeqFamily* family = Seq2SeqFamilyFor(c.model_type);
  if (!family)
    return Status::ErrorAt(where, MsgId::kConfigNotEncoderDecoder, {CappedValue(c.model_type), SupportedSeq2SeqModelTypes()});
  c.family = family->name;
  const Keys k(j, where);
  ATTNVIZ_TRY(family->read_config(k, j, &c));
  ATTNVIZ_TRY(ReadSuppressed(j, where, &c.suppressed_ids));
  ATTNVIZ_TRY(CheckTokenIds(c, where));
  for (const Seq2SeqStackConfig* s : {&c.encoder, &c.decoder})
    if ((int64_t)s->n_head * s->d_head > kMaxWidth)
      return Status::ErrorAt(where, MsgId::kConfigHeadsTooWide,
                             {std::to_string((int64_t)s->n_head * s->d_head), std::to_string(kMaxWidth)});
  return c;
}

Result<Seq2SeqConfig> ReadSeq2SeqConfig(const std::string& path) {
  auto map = MappedFile::Open(path);
  if (!map) return map.status();
  if ((*map)->size() > (16u << 20)) return Status::ErrorAt(path, MsgId::kConfigTooLarge, {});
  const char* b = reinterpret_cast<const char*>((*map)->data());
  return ParseSeq2SeqConfig(std::string(b, b + (*map)->size()), path);
}

bool IsEncoderDecoderConfigText(const std::string& text) {
  json j;
  try {
    if (!ParseJsonWithinDepth(text.data(), text.data() + text.size(), &j) || !j.is_object()) return false;
  } catch (const std::exception&) {
    return false;
  }
  auto mt = j.find("model_type");
  if (mt == j.end() || !mt->is_string()) return false;
  const std::string type = mt->get<std::string>();
  if (Seq2SeqFamilyFor(type) || type == "umt5") return true;
  if (FamilyFor(type)) return false;
  auto ed = j.find("is_encoder_decoder");
  return ed != j.end() && ed->is_boolean() && ed->get<bool>();
}

bool IsEncoderDecoderFolder(const std::string& dir) {
  auto map = MappedFile::Open(dir + "/config.json");
  if (!map || (*map)->size() > (16u << 20)) return false;
  const char* b = reinterpret_cast<const char*>((*map)->data());
  return IsEncoderDecoderConfigText(std::string(b, b + (*map)->size()));
}

Result<std::shared_ptr<const Seq2SeqModel>> BindSeq2SeqModel(Seq2SeqConfig config, std::shared_ptr<TensorStore> store,
                                                             std::string dir) {
  const Seq2SeqFamily* family = Seq2SeqFamilyFor(config.model_type);
  if (!family)
    return Status::Error(MsgId::kConfigModelType, {CappedValue(config.model_type), SupportedSeq2SeqModelTypes()});
  Binder b(store.get());
  Seq2SeqParams params;
  if (Status s = family->bind(config, b, &params); !s)
    return Status::Prefixed(MsgId::kPrefixContext, {dir}, Status::Prefixed(MsgId::kPrefixCheckpoint, {config.model_type}, s));
  std::shared_ptr<Seq2SeqModel> m(new Seq2SeqModel());
  m->config_ = std::move(config);
  m->store_ = std::move(store);
  m->params_ = std::move(params);
  m->dir_ = std::move(dir);
  return std::shared_ptr<const Seq2SeqModel>(std::move(m));
}

Result<std::shared_ptr<const Seq2SeqModel>> LoadSeq2SeqModel(const std::string& dir) {
  // 1. config.json
  auto config = ReadSeq2SeqConfig(dir + "/config.json");
  if (!config) return config.status();
  // 2. weights (one file or shards)
  auto store = TensorStore::OpenDir(dir);
  if (!store) return store.status();
  // 3. names -> params, shapes checked against the config
  auto model = BindSeq2SeqModel(std::move(*config), std::move(*store), dir);
  if (Status unchanged = MappedFilesUnchanged(); !unchanged) return unchanged;
  return model;
}

}  // namespace attnviz::model
