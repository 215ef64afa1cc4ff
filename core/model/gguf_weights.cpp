#include "model/gguf_weights.h"

#include <cstring>

#include "model/gguf_config.h"
#include "model/gguf_quant.h"

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

class GgufLoader {
 public:
  GgufLoader(std::shared_ptr<const GgufFile> f, TensorStore* store) : f_(std::move(f)), store_(store) {}

  // Tensor `gguf` with ne `want` as `hf`; `permute_heads` > 0: undo the q/k row permutation over that many heads.
  Status Add(const std::string& gguf, const std::vector<int64_t>& want, const std::string& hf, int permute_heads = 0) {
    const GgufTensor* t = f_->FindTensor(gguf);
    if (!t) return Status::ErrorAt(f_->path(), MsgId::kGgufTensorMissing, {gguf, f_->path()});
    if (t->ne != want)
      return Status::Error(MsgId::kGgufTensorShape, {gguf, f_->path(), NeString(t->ne), NeString(want)});
    std::vector<int64_t> shape = t->torch_shape();
    if (t->type == GgmlType::kF32 && permute_heads == 0) {
      store_->AddInPlace(hf, std::move(shape), reinterpret_cast<const float*>(f_->Bytes(*t)), f_->path(),
                         GgmlTypeName(t->type), t->end - t->begin);
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
    store_->AddFloats(hf, std::move(shape), std::move(values), f_->path(), GgmlTypeName(t->type));
    return Status::Ok();
  }

 private:
  std::shared_ptr<const GgufFile> f_;
  TensorStore* store_;
};

}  // namespace

Result<std::shared_ptr<TensorStore>> GgufTensorStore(std::shared_ptr<const GgufFile> file, const ModelConfig& c) {
  auto store = std::make_shared<TensorStore>();
  store->Keep(file);
  GgufLoader g(file, store.get());
  const bool permuted = c.model_type == "llama" || c.model_type == "mistral";
  const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff;
#define GGUF_ADD(...)                                      \
  do {                                                     \
    if (Status s_ = g.Add(__VA_ARGS__); !s_) return s_;    \
  } while (0)
  GGUF_ADD("token_embd.weight", {d, c.vocab}, "model.embed_tokens.weight");
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".", h = "model.layers." + std::to_string(l) + ".";
    GGUF_ADD(b + "attn_norm.weight", {d}, h + "input_layernorm.weight");
    GGUF_ADD(b + "attn_q.weight", {d, q}, h + "self_attn.q_proj.weight", permuted ? c.n_head : 0);
    GGUF_ADD(b + "attn_k.weight", {d, kv}, h + "self_attn.k_proj.weight", permuted ? c.n_kv_head : 0);
    GGUF_ADD(b + "attn_v.weight", {d, kv}, h + "self_attn.v_proj.weight");
    if (c.qkv_bias) {
      GGUF_ADD(b + "attn_q.bias", {q}, h + "self_attn.q_proj.bias", permuted ? c.n_head : 0);
      GGUF_ADD(b + "attn_k.bias", {kv}, h + "self_attn.k_proj.bias", permuted ? c.n_kv_head : 0);
      GGUF_ADD(b + "attn_v.bias", {kv}, h + "self_attn.v_proj.bias");
    }
    GGUF_ADD(b + "attn_output.weight", {q, d}, h + "self_attn.o_proj.weight");
    if (c.o_bias) GGUF_ADD(b + "attn_output.bias", {d}, h + "self_attn.o_proj.bias");
    GGUF_ADD(b + "ffn_norm.weight", {d}, h + "post_attention_layernorm.weight");
    GGUF_ADD(b + "ffn_gate.weight", {d, ff}, h + "mlp.gate_proj.weight");
    GGUF_ADD(b + "ffn_up.weight", {d, ff}, h + "mlp.up_proj.weight");
    GGUF_ADD(b + "ffn_down.weight", {ff, d}, h + "mlp.down_proj.weight");
    if (c.mlp_bias) {
      GGUF_ADD(b + "ffn_gate.bias", {ff}, h + "mlp.gate_proj.bias");
      GGUF_ADD(b + "ffn_up.bias", {ff}, h + "mlp.up_proj.bias");
      GGUF_ADD(b + "ffn_down.bias", {d}, h + "mlp.down_proj.bias");
    }
  }
  GGUF_ADD("output_norm.weight", {d}, "model.norm.weight");
  if (!c.tie_word_embeddings) GGUF_ADD("output.weight", {d, c.vocab}, "lm_head.weight");  // the LM head (predict.h)
#undef GGUF_ADD
  return store;
}

Result<std::shared_ptr<const Model>> LoadGgufModel(std::shared_ptr<const GgufFile> file) {
  auto config = GgufModelConfig(*file);
  if (!config) return config.status();
  auto store = GgufTensorStore(file, *config);
  if (!store) return store.status();
  return BindModel(std::move(*config), std::move(*store), file->path());
}

Result<std::shared_ptr<const Model>> LoadGgufModel(const std::string& path) {
  auto file = GgufFile::Open(path);
  if (!file) return file.status();
  return LoadGgufModel(*file);
}

}  // namespace attnviz::model
