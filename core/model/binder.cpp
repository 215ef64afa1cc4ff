#include "model/binder.h"

#include <algorithm>
#include <cmath>

#include "base/finite.h"
#include "model/arch/family.h"
#include "model/bind.h"
#include "base/check.h"

#include <memory>

namespace attnviz::model {

Status Binder::Get(std::initializer_list<std::string> names, const std::vector<int64_t>& want, const float** out) {
  for (const std::string& name : names) {
    const TensorStore::Entry* e = store_->Find(name);
    if (!e) continue;
    if (e->info->shape != want)
      return Status::Error(MsgId::kTensorShape,
                           {name, e->path(), ShapeString(e->info->shape), ShapeString(want)});
    if (e->deferred) {  // dequantized per layer (model.h): no floats to bind or check here (the loader checked them)
      *out = nullptr;
      return Status::Ok();
    }
    auto f = store_->Floats(name);
    if (!f) return f.status();
    // A NaN or Inf weight would turn every map it reaches into NaN: refused here, naming the tensor. F16 and BF16
    // weights are checked after conversion: their own Inf and NaN become float ones.
    if (const size_t bad = FirstNotFinite(*f, e->info->elements); bad < e->info->elements)
      return Status::Prefixed(MsgId::kPrefixContext, {e->path()},
                              Status::Prefixed(MsgId::kPrefixTensor, {CappedValue(name)},
                                               Status::Error(MsgId::kTensorNotFinite,
                                                             {std::to_string(bad), std::isnan((*f)[bad]) ? "NaN" : "Inf"})));
    *out = *f;
    return Status::Ok();
  }
  // "missing tensor 'A' (also tried 'B' 'C') in FILE [and its other shards]": one part each, the later ones
  // optional, built from the end (`rest` Ok: nothing follows).
  auto before = [](MsgId id, std::string arg, const Status& rest) {
    return rest.ok() ? Status::Error(id, {std::move(arg)}) : Status::Prefixed(id, {std::move(arg)}, rest);
  };
  const auto& files = store_->files();
  Status rest;
  if (!files.empty())
    rest = Status::Error(files.size() > 1 ? MsgId::kTensorMissingInShards : MsgId::kTensorMissingIn, {files.front()->path()});
  std::string others;
  for (auto it = names.begin() + 1; it != names.end(); ++it) others += (others.empty() ? "'" : " '") + *it + "'";
  if (!others.empty()) rest = before(MsgId::kTensorAlsoTried, others, rest);
  return before(MsgId::kTensorMissing, *names.begin(), rest);
}

Status Binder::LinearOutIn(const std::string& name, int in, int out, bool bias, Linear* l) {
  *l = Linear{};
  l->in = in, l->out = out, l->in_out = false, l->ld = in;
  if (Status s = Get(name + ".weight", {out, in}, &l->w); !s) return s;
  if (bias) return Get(name + ".bias", {out}, &l->b);
  return Status::Ok();
}

Status Binder::Conv1D(const std::string& name, int in, int out, Linear* l) {
  *l = Linear{};
  l->in = in, l->out = out, l->in_out = true, l->ld = out;
  if (Status s = Get(name + ".weight", {in, out}, &l->w); !s) return s;  // !! [in, out]
  return Get(name + ".bias", {out}, &l->b);
}

Status Binder::LayerNorm(const std::string& name, int d, Norm* n) {
  *n = Norm{};
  if (Status s = Get({name + ".weight", name + ".gamma"}, {d}, &n->w); !s) return s;
  return Get({name + ".bias", name + ".beta"}, {d}, &n->b);
}

Status Binder::RmsNorm(const std::string& name, int d, Norm* n) {
  *n = Norm{};
  return Get(name + ".weight", {d}, &n->w);
}

const float* Binder::Keep(std::vector<float> values) {
  auto kept = std::make_shared<std::vector<float>>(std::move(values));
  store_->Keep(kept);
  return kept->data();
}

Status BindLmHead(const ModelConfig& c, Binder& b, const std::string& name, ModelParams* p) {
  if (c.tie_word_embeddings) p->lm_head.w = p->tok_emb;
  else if (b.store().Has(name))
    return b.Get(name, {c.vocab, c.d_model}, &p->lm_head.w);
  return Status::Ok();
}

void SplitRows(const Linear& fused, std::initializer_list<std::pair<int, Linear*>> parts) {
  int row = 0;
  for (const auto& [width, part] : parts) {
    *part = fused;
    part->out = width;
    part->w = fused.w ? fused.w + (size_t)row * fused.ld : nullptr;
    part->b = fused.b ? fused.b + row : nullptr;
    row += width;
  }
  ATTNVIZ_CHECK_SHAPE(row == fused.out, "row blocks of ", row, " rows of a [", fused.out, ", ", fused.in, "] weight");
}

std::string DetectPrefix(const TensorStore& store, const std::string& probe, std::initializer_list<std::string> prefixes) {
  for (const std::string& p : prefixes)
    if (store.Has(p + probe)) return p;
  return "";
}

Result<ModelParams> BindParams(const ModelConfig& config, TensorStore* store) {
  Binder b(store);
  ModelParams p;
  // A GGUF file's config names its architecture (gptneox), the family its reader found.
  const Family* family = config.family.empty() ? FamilyFor(config.model_type) : FamilyNamed(config.family);
  if (!family) return Status::Error(MsgId::kConfigModelType, {CappedValue(config.model_type), SupportedModelTypes()});
  const Status s = family->bind(config, b, &p);
  if (!s) return Status::Prefixed(MsgId::kPrefixCheckpoint, {config.model_type}, s);
  return p;
}

}  // namespace attnviz::model
