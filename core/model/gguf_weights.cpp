#include "model/gguf_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/finite.h"
#include "base/check.h"
#include "model/arch/family.h"
#include "model/gguf_config.h"
#include "model/gguf_quant.h"
#include "model/safetensors.h"

namespace attnviz::model {
namespace {

// w: [n_head * d_head, cols] rows in convert_hf_to_gguf's interleaved order -> out: the same in HF's order.
void UnpermuteRows(const float* w, int n_head, int d_head, int64_t cols, float* out) {
  const int half = d_head / 2;
  for (int h = 0; h < n_head; ++h)
    for (int t = 0; t < 2; ++t)
      for (int i = 0; i < half; ++i)
        std::memcpy(out + ((int64_t)h * d_head + t * half + i) * cols, w + ((int64_t)h * d_head + 2 * i + t) * cols,
                    (size_t)cols * sizeof(float));
}

// The matrices of a block a LayerWeightSource fills.
enum class Slot { kQ, kK, kV, kO, kGate, kUp, kDown };
const float** SlotField(BlockParams* b, Slot s) {
  switch (s) {
    case Slot::kQ: return &b->q.w;
    case Slot::kK: return &b->k.w;
    case Slot::kV: return &b->v.w;
    case Slot::kO: return &b->o.w;
    case Slot::kGate: return &b->gate.w;
    case Slot::kUp: return &b->up.w;
    case Slot::kDown: return &b->down.w;
  }
  return nullptr;
}

struct DeferredMatrix {
  const GgufTensor* t = nullptr;
  int permute_heads = 0;  // > 0: undo the q/k row permutation over that many heads
  Slot slot = Slot::kQ;
  size_t offset = 0;      // in the layer's scratch, floats (a multiple of 16)
};

// HF row r of a permuted [n_head * d_head, cols] matrix is stored row StoredRow(r) (UnpermuteRows' inverse).
int64_t StoredRow(int64_t r, int64_t d_head) {
  const int64_t half = d_head / 2, h = r / d_head, t = (r % d_head) / half, i = r % half;
  return h * d_head + 2 * i + t;
}

// Rows [first, first + count) of matrix m (HF order) into dst [count, ne[0]]: the same values, value for value, as
// DequantizeTensorRows of the whole tensor followed by UnpermuteRows (each row is dequantized alone either way).
void DequantizeMatrixRows(const GgufFile& f, const DeferredMatrix& m, int64_t first, int64_t count, float* dst) {
  const GgufTensor& t = *m.t;
  const int64_t cols = t.ne[0];
  const uint64_t row_bytes = GgmlRowBytes(t.type, cols);
  const uint8_t* bytes = f.Bytes(t);
  if (m.permute_heads == 0) {
    DequantizeRows(t.type, bytes + (uint64_t)first * row_bytes, cols, count, dst);
    return;
  }
  const int64_t d_head = t.rows() / m.permute_heads;
  for (int64_t r = 0; r < count; ++r)
    DequantizeRows(t.type, bytes + (uint64_t)StoredRow(first + r, d_head) * row_bytes, cols, 1, dst + r * cols);
}

class GgufLayerSource : public LayerWeightSource {
 public:
  GgufLayerSource(std::shared_ptr<const GgufFile> f, int n_layer) : f_(std::move(f)), layers_(n_layer), floats_(n_layer) {}

  void Add(int layer, const GgufTensor* t, int permute_heads, Slot slot) {
    DeferredMatrix m{t, permute_heads, slot, floats_[layer]};
    floats_[layer] += ((size_t)t->elements + 15) / 16 * 16;
    layers_[layer].push_back(m);
  }
  void SetTokenEmbedding(const GgufTensor* t) { tok_emb_ = t; }
  const GgufTensor* token_embedding() const { return tok_emb_; }
  void SetLmHead(const GgufTensor* t) { lm_head_ = t; }

  size_t LayerFloats(int layer) const override { return floats_[(size_t)layer]; }

  void Fill(int layer, float* scratch, BlockParams* b) const override {
    for (const DeferredMatrix& m : layers_[(size_t)layer]) {
      float* dst = scratch + m.offset;
      const int64_t rows = m.t->rows(), cols = m.t->ne[0];
      // Rows in chunks over the run's threads: each row is dequantized alone, so the bits do not depend on them.
      const int64_t chunk = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, cols));
      const int64_t chunks = (rows + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (rows * cols >= (1 << 16))
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t first = c * chunk, count = std::min(chunk, rows - first);
        DequantizeMatrixRows(*f_, m, first, count, dst + first * cols);
      }
      *SlotField(b, m.slot) = dst;
    }
  }

  void TokenRow(int id, float* out) const override {
    ATTNVIZ_CHECK_SHAPE(tok_emb_ != nullptr && id >= 0 && id < tok_emb_->rows(), "token id ", id, " of ",
                        tok_emb_ ? tok_emb_->rows() : int64_t(0), " embedding rows");
    const uint64_t row_bytes = GgmlRowBytes(tok_emb_->type, tok_emb_->ne[0]);
    DequantizeRows(tok_emb_->type, f_->Bytes(*tok_emb_) + (uint64_t)id * row_bytes, tok_emb_->ne[0], 1, out);
  }

  bool HasLmHead() const override { return lm_head_ != nullptr; }

  void LmHeadRows(int64_t first, int64_t count, float* out) const override {
    ATTNVIZ_CHECK_SHAPE(lm_head_ != nullptr && first >= 0 && count >= 0 && first + count <= lm_head_->rows(), "LM head rows ",
                        first, " + ", count, " of ", lm_head_ ? lm_head_->rows() : int64_t(0));
    const int64_t cols = lm_head_->ne[0];
    const uint64_t row_bytes = GgmlRowBytes(lm_head_->type, cols);
    const uint8_t* bytes = f_->Bytes(*lm_head_) + (uint64_t)first * row_bytes;
    // Rows over the threads as Fill: each row is dequantized alone.
    const int64_t chunk = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, cols));
    const int64_t chunks = (count + chunk - 1) / chunk;
#pragma omp parallel for schedule(static) if (count * cols >= (1 << 16))
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t r = c * chunk, rows = std::min(chunk, count - r);
      DequantizeRows(lm_head_->type, bytes + (uint64_t)r * row_bytes, cols, rows, out + r * cols);
    }
  }

  bool empty() const {
    if (tok_emb_ || lm_head_) return false;
    for (const auto& l : layers_)
      if (!l.empty()) return false;
    return true;
  }

 private:
  std::shared_ptr<const GgufFile> f_;
  std::vector<std::vector<DeferredMatrix>> layers_;  // [n_layer]
  std::vector<size_t> floats_;                       // [n_layer]
  const GgufTensor* tok_emb_ = nullptr;              // set when the token embedding is deferred
  const GgufTensor* lm_head_ = nullptr;              // set when the LM head is deferred (output, or tied tok_emb_)
};

class GgufLoader {
 public:
  GgufLoader(std::shared_ptr<const GgufFile> f, TensorStore* store, GgufLayerSource* source)
      : f_(std::move(f)), store_(store), source_(source) {}

  // What `layer` of Add may be beside a block's index: kept as floats, or rows dequantized as asked.
  static constexpr int kResident = -2, kTokenEmbedding = -1, kLmHead = -3;

  // Tensor `gguf` with ne `want` as `hf`; `permute_heads` > 0: undo the q/k row permutation over that many heads.
  // `layer` >= 0 and `slot`: a block's matrix, dequantized per layer when not F32 in place (and a source is given);
  // kTokenEmbedding / kLmHead: the token embedding / untied LM head, their rows dequantized as asked.
  // What a resident tensor needs beside a permutation: nothing; minus 1 (gemma's norms, written as 1 + w); or its
  // q | k | v rows put back in the folder's [n_head, 3, d_head] order (gptneox; `c` gives the heads).
  enum class Edit { kNone, kMinusOne, kQkvPerHead };

  Status Add(const std::string& gguf, const std::vector<int64_t>& want, const std::string& hf, int permute_heads = 0,
             int layer = kResident, Slot slot = Slot::kQ, Edit edit = Edit::kNone, const ModelConfig* c = nullptr) {
    const GgufTensor* t = f_->FindTensor(gguf);
    if (!t) return Status::ErrorAt(f_->path(), MsgId::kGgufTensorMissing, {gguf, f_->path()});
    if (t->ne != want)
      return Status::Error(MsgId::kGgufTensorShape, {gguf, f_->path(), NeString(t->ne), NeString(want)});
    std::vector<int64_t> shape = t->torch_shape();
    if (t->type == GgmlType::kF32 && permute_heads == 0 && edit == Edit::kNone) {
      store_->AddInPlace(hf, std::move(shape), reinterpret_cast<const float*>(f_->Bytes(*t)), f_->path(),
                         GgmlTypeName(t->type), t->end - t->begin);
      return Status::Ok();
    }
    if (source_ && layer != kResident && edit == Edit::kNone) {
      // Checked once here, a block of rows at a time (the type dequantizable, every value finite); no copy kept.
      if (Status s = CheckRows(*t); !s) return s;
      store_->AddDeferred(hf, std::move(shape), f_->path(), GgmlTypeName(t->type), t->end - t->begin);
      if (layer == kTokenEmbedding) source_->SetTokenEmbedding(t);
      else if (layer == kLmHead) source_->SetLmHead(t);
      else source_->Add(layer, t, permute_heads, slot);
      return Status::Ok();
    }
    std::vector<float> values(t->elements);
    if (Status s = DequantizeTensorRows(*f_, *t, 0, t->rows(), values.data()); !s) return s;
    if (permute_heads > 0) {
      const int64_t rows = t->rows(), cols = t->ne[0];
      // a bias is one row of n_head * d_head values: permute its elements as rows of one column
      const bool bias = t->ne.size() == 1;
      const int64_t n = bias ? cols : rows, width = bias ? 1 : cols;
      std::vector<float> out(values.size());
      UnpermuteRows(values.data(), permute_heads, (int)(n / permute_heads), width, out.data());
      values.swap(out);
    }
    if (edit == Edit::kMinusOne)
      for (float& v : values) v -= 1.0f;
    if (edit == Edit::kQkvPerHead) {
      // q | k | v (convert_hf_to_gguf's GPTNeoXModel order) -> [n_head, 3, d_head] rows, as query_key_value has them
      const int64_t width = t->ne.size() == 1 ? 1 : t->ne[0], dh = c->d_head, part = (int64_t)c->n_head * dh;
      std::vector<float> out(values.size());
      for (int64_t hd = 0; hd < c->n_head; ++hd)
        for (int64_t p = 0; p < 3; ++p)
          std::memcpy(out.data() + ((hd * 3 + p) * dh) * width, values.data() + (p * part + hd * dh) * width,
                      (size_t)(dh * width) * sizeof(float));
      values.swap(out);
    }
    store_->AddFloats(hf, std::move(shape), std::move(values), f_->path(), GgmlTypeName(t->type));
    return Status::Ok();
  }

 private:
  // Every value of t finite (the binder's check of resident weights, here for a tensor no copy is kept of).
  Status CheckRows(const GgufTensor& t) {
    const int64_t cols = t.ne[0], rows = t.rows();
    const int64_t chunk = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, cols));
    buffer_.resize((size_t)(chunk * cols));
    for (int64_t first = 0; first < rows; first += chunk) {
      const int64_t count = std::min(chunk, rows - first);
      if (Status s = DequantizeTensorRows(*f_, t, first, count, buffer_.data()); !s) return s;
      const size_t i = FirstNotFinite(buffer_.data(), (size_t)(count * cols));
      if (i < (size_t)(count * cols))
        return Status::Prefixed(
            MsgId::kPrefixContext, {f_->path()},
            Status::Prefixed(MsgId::kPrefixTensor, {t.name},
                             Status::Error(MsgId::kTensorNotFinite, {std::to_string(first * cols + (int64_t)i),
                                                                     std::isnan(buffer_[i]) ? "NaN" : "Inf"})));
    }
    return Status::Ok();
  }

  std::shared_ptr<const GgufFile> f_;
  TensorStore* store_;
  GgufLayerSource* source_;
  std::vector<float> buffer_;
};

// The ne {in, out} of a block tensor's weight (its bias: {out}) by role; norms are {d} (q/k norms {d_head} or the
// whole projection's width).
std::vector<int64_t> RoleNe(const ModelConfig& c, GgufTensorName::Role role) {
  using R = GgufTensorName::Role;
  const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff;
  const bool per_head = c.recipe.qk_norm == BlockRecipe::QkNorm::kPerHead;
  switch (role) {
    case R::kNorm: return {d};
    case R::kQNorm: return {per_head ? (int64_t)c.d_head : q};
    case R::kKNorm: return {per_head ? (int64_t)c.d_head : kv};
    case R::kQ: return {d, q};
    case R::kK: case R::kV: return {d, kv};
    case R::kO: return {q, d};
    case R::kGate: case R::kUp: return {d, ff};
    case R::kDown: return {ff, d};
    case R::kQkv: return {d, q + 2 * kv};
    case R::kGateUp: return {d, 2 * ff};
  }
  return {};
}

// Whether a block tensor of that role has a bias under the config.
bool RoleBias(const ModelConfig& c, GgufTensorName::Role role) {
  using R = GgufTensorName::Role;
  switch (role) {
    case R::kNorm: return c.recipe.norm == BlockRecipe::Norm::kLayerNorm;
    case R::kQNorm: case R::kKNorm: return false;
    case R::kQ: case R::kK: case R::kV: case R::kQkv: return c.qkv_bias;
    case R::kO: return c.o_bias;
    case R::kGate: case R::kUp: case R::kDown: case R::kGateUp: return c.mlp_bias;
  }
  return false;
}

bool RoleSlot(GgufTensorName::Role role, Slot* slot) {
  using R = GgufTensorName::Role;
  switch (role) {
    case R::kQ: *slot = Slot::kQ; return true;
    case R::kK: *slot = Slot::kK; return true;
    case R::kV: *slot = Slot::kV; return true;
    case R::kO: *slot = Slot::kO; return true;
    case R::kGate: *slot = Slot::kGate; return true;
    case R::kUp: *slot = Slot::kUp; return true;
    case R::kDown: *slot = Slot::kDown; return true;
    default: return false;  // norms, and the fused matrices (bound as views or re-ordered copies: kept resident)
  }
}

Result<std::shared_ptr<TensorStore>> MakeStore(std::shared_ptr<const GgufFile> file, const ModelConfig& c,
                                               GgufLayerSource* source) {
  using R = GgufTensorName::Role;
  auto store = std::make_shared<TensorStore>();
  store->Keep(file);
  store->SetSourceBytes(file->file_size());
  GgufLoader g(file, store.get(), source);
  const GgufArchitecture* arch = GgufArchitectureFor(c.model_type);
  if (!arch) return Status::ErrorAt(file->path(), MsgId::kGgufArch, {CappedValue(c.model_type), SupportedModelTypes(true)});
  const bool permuted = arch->qk_rows_permuted;
  const std::vector<GgufTensorName> block = arch->block.empty() ? LlamaGgufBlock() : arch->block;
  const GgufLoader::Edit plus_one = arch->norms_plus_one ? GgufLoader::Edit::kMinusOne : GgufLoader::Edit::kNone;
  const int64_t d = c.d_model;
#define GGUF_ADD(...)                                      \
  do {                                                     \
    if (Status s_ = g.Add(__VA_ARGS__); !s_) return s_;    \
  } while (0)
  GGUF_ADD("token_embd.weight", {d, c.vocab}, arch->hf_embedding + ".weight", 0, GgufLoader::kTokenEmbedding);
  // Tied and deferred: the LM head is the same quantized rows (the binder's lm_head.w = tok_emb is null then).
  if (source && c.tie_word_embeddings) source->SetLmHead(source->token_embedding());
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".", h = arch->hf_layers + std::to_string(l) + ".";
    for (const GgufTensorName& t : block) {
      const std::vector<int64_t> ne = RoleNe(c, t.role);
      const bool norm = t.role == R::kNorm || t.role == R::kQNorm || t.role == R::kKNorm;
      int heads = 0;  // q/k rows to unpermute over that many heads
      if (permuted && t.role == R::kQ) heads = c.n_head;
      if (permuted && t.role == R::kK) heads = c.n_kv_head;
      GgufLoader::Edit edit = norm ? plus_one : GgufLoader::Edit::kNone;
      if (t.role == R::kQkv && arch->qkv_per_head) edit = GgufLoader::Edit::kQkvPerHead;
      Slot slot = Slot::kQ;
      const bool deferred = RoleSlot(t.role, &slot);
      GGUF_ADD(b + t.gguf + ".weight", ne, h + t.hf + ".weight", heads, deferred ? l : GgufLoader::kResident, slot,
               edit, &c);
      if (RoleBias(c, t.role))  // biases: [out] floats, kept resident
        GGUF_ADD(b + t.gguf + ".bias", {ne.back()}, h + t.hf + ".bias", heads, GgufLoader::kResident, Slot::kQ,
                 edit == GgufLoader::Edit::kQkvPerHead ? edit : GgufLoader::Edit::kNone, &c);
    }
  }
  GGUF_ADD("output_norm.weight", {d}, arch->hf_final_norm + ".weight", 0, GgufLoader::kResident, Slot::kQ, plus_one);
  if (c.recipe.norm == BlockRecipe::Norm::kLayerNorm) GGUF_ADD("output_norm.bias", {d}, arch->hf_final_norm + ".bias");
  // The LM head (predict.h): served in chunks of rows when not F32 (never dequantized whole: 2 GB for Llama-3-8B)
  if (!c.tie_word_embeddings)
    GGUF_ADD("output.weight", {d, c.vocab}, arch->hf_lm_head + ".weight", 0, GgufLoader::kLmHead);
#undef GGUF_ADD
  return store;
}

}  // namespace

Result<std::shared_ptr<TensorStore>> GgufTensorStore(std::shared_ptr<const GgufFile> file, const ModelConfig& c) {
  return MakeStore(std::move(file), c, nullptr);
}

Result<std::shared_ptr<const Model>> LoadGgufModel(std::shared_ptr<const GgufFile> file, GgufWeights weights) {
  auto config = GgufModelConfig(*file);
  if (!config) return config.status();
  std::shared_ptr<GgufLayerSource> source;
  if (weights == GgufWeights::kPerLayer) source = std::make_shared<GgufLayerSource>(file, config->n_layer);
  auto store = MakeStore(file, *config, source.get());
  if (!store) return store.status();
  if (source && source->empty()) source.reset();  // every weight F32 in place
  auto model = BindModel(std::move(*config), std::move(*store), file->path(), std::move(source));
  if (Status unchanged = MappedFilesUnchanged(); !unchanged) return unchanged;  // it shrank while being read
  return model;
}

Result<std::shared_ptr<const Model>> LoadGgufModel(const std::string& path, GgufWeights weights) {
  auto file = GgufFile::Open(path);
  if (!file) return file.status();
  return LoadGgufModel(*file, weights);
}

}  // namespace attnviz::model
