// gpt_neox (Pythia; GPTNeoXForCausalLM or the bare GPTNeoXModel): pre-LayerNorm blocks, one fused query_key_value
// interleaved per head, partial rotary (NeoX rotate_half on the first rotary_pct of each head), a gelu MLP with
// biases, causal attention scaled by 1 / sqrt(head_size), the parallel residual x + attn(ln1 x) + mlp(ln2 x) (or
// the sequential one), an untied embed_out.
//   config.json: num_hidden_layers, num_attention_heads, hidden_size, intermediate_size, vocab_size,
//                max_position_embeddings, layer_norm_eps, hidden_act, rotary_pct (or partial_rotary_factor),
//                rotary_emb_base (or rope_theta), rope_scaling, use_parallel_residual, attention_bias,
//                tie_word_embeddings
//   tensors ("gpt_neox." prefix or none): embed_in, layers.N.{input_layernorm, post_attention_layernorm,
//                attention.query_key_value, attention.dense, mlp.dense_h_to_4h, mlp.dense_4h_to_h},
//                final_layer_norm; embed_out.weight (no prefix) when untied. Skipped: attention.bias, masked_bias,
//                rotary_emb.inv_freq buffers of older checkpoints.
// !! query_key_value's rows are [n_head, 3, head_size] (q, k, v of head 0, then of head 1, ...), not q | k | v.
//    They are de-interleaved once at load into a q | k | v copy (and its bias) whose row blocks the run projects
//    with one GEMM each, as for phi3's views; a strided view of the stored rows would need a GEMM per head.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"
#include "model/gguf_config.h"

namespace attnviz::model {
namespace {

// 1. config.json
Status ParseGptNeox(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(k.Int("num_attention_heads", 1, kMaxHeads, &c->n_head));
  ATTNVIZ_TRY(k.Int("hidden_size", 1, kMaxWidth, &c->d_model));
  if (c->d_model % c->n_head != 0)
    return Status::ErrorAt(k.where(), MsgId::kConfigNotMultiple, {"hidden_size", std::to_string(c->d_model),
                                                                  "num_attention_heads", std::to_string(c->n_head)});
  c->n_kv_head = c->n_head;
  c->d_head = c->d_model / c->n_head;
  ATTNVIZ_TRY(k.IntOr("intermediate_size", 1, 16 * kMaxWidth, 4 * c->d_model, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 2048, &c->max_positions));
  ATTNVIZ_TRY(k.Double("layer_norm_eps", 0, 1, 1e-5, &c->norm_eps));
  ATTNVIZ_TRY(ParseActivation(k, "hidden_act", "gelu", &c->activation));
  // Newer configs name rotary_pct partial_rotary_factor and rotary_emb_base rope_theta.
  const char* pct_key = j.contains("rotary_pct") ? "rotary_pct" : "partial_rotary_factor";
  double pct = 0.25;
  ATTNVIZ_TRY(k.Double(pct_key, 0, 1, 0.25, &pct));
  ATTNVIZ_TRY(k.Double(j.contains("rotary_emb_base") ? "rotary_emb_base" : "rope_theta", 1e-6, 1e12, 10000.0,
                       &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  c->rotary_dim = (int)(c->d_head * pct);  // HF: int(head_size * rotary_pct)
  if (c->rotary_dim < 2 || c->rotary_dim % 2 != 0) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", pct);
    return Status::ErrorAt(k.where(), MsgId::kConfigRotaryDims,
                           {pct_key, value, std::to_string(c->d_head), std::to_string(c->rotary_dim)});
  }
  ATTNVIZ_TRY(k.Bool("use_parallel_residual", true, &c->recipe.parallel_residual));
  bool bias = true;
  ATTNVIZ_TRY(k.Bool("attention_bias", true, &bias));
  c->qkv_bias = c->o_bias = bias;
  c->mlp_bias = true;
  return k.Bool("tie_word_embeddings", false, &c->tie_word_embeddings);
}

// query_key_value's [n_head, 3, d_head] rows (weight [3 d, d], bias [3 d]) -> q | k | v rows, one copy.
std::vector<float> Deinterleave(const float* rows, int n_head, int d_head, int width) {
  const size_t d = (size_t)n_head * d_head;
  std::vector<float> out(3 * d * (size_t)width);
  for (int h = 0; h < n_head; ++h)
    for (int part = 0; part < 3; ++part)
      for (int r = 0; r < d_head; ++r) {
        const float* from = rows + ((size_t)(h * 3 + part) * d_head + r) * width;
        std::copy(from, from + width, out.begin() + (ptrdiff_t)((part * d + (size_t)h * d_head + r) * width));
      }
  return out;
}

// 2. Tensor names -> params
Status BindQkv(const ModelConfig& c, Binder& b, const std::string& name, BlockParams* bp) {
  const int d = c.d_model;
  Linear fused;
  if (Status s = b.LinearOutIn(name, d, 3 * d, c.qkv_bias, &fused); !s) return s;
  if (fused.w) fused.w = b.Keep(Deinterleave(fused.w, c.n_head, c.d_head, d));
  if (fused.b) fused.b = b.Keep(Deinterleave(fused.b, c.n_head, c.d_head, 1));
  SplitRows(fused, {{d, &bp->q}, {d, &bp->k}, {d, &bp->v}});
  return Status::Ok();
}

Status BindGptNeox(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embed_in.weight", {"gpt_neox.", ""});
  const int d = c.d_model;
  if (Status s = b.Get({pre + "embed_in.weight", "gpt_neox.embed_in.weight"}, {c.vocab, d}, &p->tok_emb); !s) return s;
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "layers." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    if (Status s = b.LayerNorm(h + "input_layernorm", d, &bp.attn_norm); !s) return s;
    if (Status s = BindQkv(c, b, h + "attention.query_key_value", &bp); !s) return s;
    if (Status s = b.LinearOutIn(h + "attention.dense", d, d, c.o_bias, &bp.o); !s) return s;
    if (Status s = b.LayerNorm(h + "post_attention_layernorm", d, &bp.mlp_norm); !s) return s;
    if (Status s = b.LinearOutIn(h + "mlp.dense_h_to_4h", d, c.d_ff, true, &bp.up); !s) return s;
    if (Status s = b.LinearOutIn(h + "mlp.dense_4h_to_h", c.d_ff, d, true, &bp.down); !s) return s;
  }
  if (Status s = b.LayerNorm(pre + "final_layer_norm", d, &p->final_norm); !s) return s;
  // The LM head: embed_out (GPTNeoXForCausalLM, untied by default), or embed_in when tied; a bare model has none.
  return BindLmHead(c, b, "embed_out.weight", p);
}

// 3. A GGUF file (llama.cpp's gptneox, convert_hf_to_gguf.py's GPTNeoXModel): query_key_value written as q | k | v
// (put back in the [n_head, 3, d_head] order the bind reads), LayerNorms with biases, keys
// gptneox.rope.dimension_count (the rotary dims), gptneox.use_parallel_residual and
// gptneox.attention.layer_norm_epsilon (both required, as llama.cpp requires them); no rope base is written
// (llama.cpp's 10000).
Status ReadGptNeoxGguf(const GgufFile& f, const GgufKeys& k, ModelConfig* c) {
  const std::string& a = c->model_type;
  c->activation = Activation::kGeluErf;  // HF's "gelu" (llama.cpp's ggml_gelu is its tanh form)
  for (const std::string key : {a + ".use_parallel_residual", a + ".attention.layer_norm_epsilon"})
    if (!f.Find(key)) return Status::ErrorAt(f.path(), MsgId::kGgufMissingKey, {key});
  ATTNVIZ_TRY(k.Bool(a + ".use_parallel_residual", true, &c->recipe.parallel_residual));
  ATTNVIZ_TRY(k.Double(a + ".attention.layer_norm_epsilon", 0, 1, 1e-5, &c->norm_eps));
  if (c->n_kv_head != c->n_head)
    return Status::ErrorAt(f.path(), MsgId::kGgufKeysDiffer, {a + ".attention.head_count_kv", std::to_string(c->n_kv_head),
                                                               a + ".attention.head_count", std::to_string(c->n_head)});
  return Status::Ok();
}

GgufArchitecture GptNeoxGguf() {
  using R = GgufTensorName::Role;
  GgufArchitecture a;
  a.name = "gptneox";
  a.qk_rows_permuted = false;
  a.reads_sliding_window = false;
  a.qkv_per_head = true;
  a.partial_rotary = true;
  a.block = {{"attn_norm", "input_layernorm", R::kNorm},
             {"attn_qkv", "attention.query_key_value", R::kQkv},
             {"attn_output", "attention.dense", R::kO},
             {"ffn_norm", "post_attention_layernorm", R::kNorm},
             {"ffn_up", "mlp.dense_h_to_4h", R::kUp},
             {"ffn_down", "mlp.dense_4h_to_h", R::kDown}};
  a.hf_layers = "gpt_neox.layers.";
  a.hf_embedding = "gpt_neox.embed_in";
  a.hf_final_norm = "gpt_neox.final_layer_norm";
  a.hf_lm_head = "embed_out";
  a.read_keys = ReadGptNeoxGguf;
  return a;
}

}  // namespace

const Family& GptNeoxFamily() {
  static const Family family = [] {
    Family f;
    f.name = "gpt_neox";
    f.model_types = {"gpt_neox"};
    f.recipe.norm = BlockRecipe::Norm::kLayerNorm;
    f.recipe.rope = true;
    f.recipe.parallel_residual = true;  // HF's default; use_parallel_residual sets it per model
    f.recipe.attn_norm_stage = "the attention's input norm (input_layernorm)";
    f.recipe.mlp_norm_stage = "the MLP's input norm (post_attention_layernorm)";
    f.read_config = ParseGptNeox;
    f.bind = BindGptNeox;
    f.gguf = {GptNeoxGguf()};
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
