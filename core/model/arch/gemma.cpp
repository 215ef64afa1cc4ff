// gemma2 (Gemma2ForCausalLM, Gemma2Model) and gemma3_text (Gemma3ForCausalLM, Gemma3TextModel): pre-norm blocks with
// four RMSNorms each, all Gemma's (1 + w): x = x + post_attention_layernorm(attn(input_layernorm(x))), then
// x = x + post_feedforward_layernorm(mlp(pre_feedforward_layernorm(x))); the embeddings times sqrt(hidden_size); the
// scaling query_pre_attn_scalar^-0.5 (not head_dim's); sliding-window and full layers alternating; a gated
// gelu_pytorch_tanh MLP; tied embeddings.
//   gemma2:      attention logits soft-capped, attn_logit_softcapping * tanh(s / cap) before the mask, and the LM
//                logits by final_logit_softcapping; layer i slides iff (i + 1) % 2 != 0 (layer_types when given).
//   gemma3_text: q_norm/k_norm (Gemma's, per head over head_dim) before RoPE; layer i slides iff
//                (i + 1) % sliding_window_pattern != 0 (layer_types when given); sliding layers turn by
//                rope_local_base_freq with no scaling, full layers by rope_theta with rope_scaling; soft-caps when set.
//   config.json: num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim (default 256),
//                intermediate_size, vocab_size, max_position_embeddings, rms_norm_eps, hidden_activation,
//                rope_theta, query_pre_attn_scalar, sliding_window, layer_types, attn_logit_softcapping,
//                final_logit_softcapping, attention_bias, tie_word_embeddings; gemma3_text also
//                rope_local_base_freq, rope_scaling, sliding_window_pattern
//   tensors ("model." prefix or none): embed_tokens, layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj,
//                [self_attn.{q_norm, k_norm}], post_attention_layernorm, pre_feedforward_layernorm,
//                mlp.{gate,up,down}_proj, post_feedforward_layernorm}, norm; lm_head.weight when untied.
// !! A config with model_type "gemma3" is the multimodal bundle (text_config beside a vision tower): refused by name
//    (arch/refused.cpp), the text model is its own folder.
#include "model/arch/config_keys.h"
#include "model/arch/family.h"
#include "model/binder.h"
#include "model/gguf_config.h"

namespace attnviz::model {
namespace {

// 1. config.json: what both read, then each one's own keys.
Status ParseGemmaCommon(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(k.Int("num_hidden_layers", 1, kMaxLayers, &c->n_layer));
  ATTNVIZ_TRY(ParseHeadsWithHeadDim(k, 256, c));
  if (c->d_head % 2 != 0) return Status::ErrorAt(k.where(), MsgId::kConfigHeadDimOdd, {std::to_string(c->d_head)});
  ATTNVIZ_TRY(k.Int("intermediate_size", 1, 16 * kMaxWidth, &c->d_ff));
  ATTNVIZ_TRY(k.Int("vocab_size", 1, kMaxVocab, &c->vocab));
  ATTNVIZ_TRY(k.IntOr("max_position_embeddings", 1, kMaxPositions, 8192, &c->max_positions));
  ATTNVIZ_TRY(k.Double("rms_norm_eps", 0, 1, 1e-6, &c->norm_eps));
  // hidden_activation wins over hidden_act as in Gemma2MLP / Gemma3MLP.
  const char* act_key = j.contains("hidden_activation") && !j["hidden_activation"].is_null() ? "hidden_activation"
                                                                                            : "hidden_act";
  ATTNVIZ_TRY(ParseActivation(k, act_key, "gelu_pytorch_tanh", &c->activation));
  ATTNVIZ_TRY(k.Double("query_pre_attn_scalar", 1e-6, 1e9, 256.0, &c->query_pre_attn_scalar));
  ATTNVIZ_TRY(k.Bool("tie_word_embeddings", true, &c->tie_word_embeddings));
  bool bias = false;
  ATTNVIZ_TRY(k.Bool("attention_bias", false, &bias));
  c->qkv_bias = c->o_bias = bias;
  c->scale_embeddings = true;
  return Status::Ok();
}

// The soft caps: a number, or null for none; absent keys take the family's default.
Status ParseSoftcap(const Keys& k, const json& j, const char* key, double fallback, double* out) {
  auto it = j.find(key);
  if (it != j.end() && it->is_null()) {
    *out = 0;
    return Status::Ok();
  }
  return k.Double(key, 1e-6, 1e9, fallback, out);
}

Status ParseGemma2(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(ParseGemmaCommon(k, j, c));
  ATTNVIZ_TRY(k.Double("rope_theta", 1e-6, 1e12, 10000.0, &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  ATTNVIZ_TRY(ParseSoftcap(k, j, "attn_logit_softcapping", 50.0, &c->attn_softcap));
  ATTNVIZ_TRY(ParseSoftcap(k, j, "final_logit_softcapping", 30.0, &c->final_softcap));
  int window = 0;
  ATTNVIZ_TRY(k.IntOr("sliding_window", 1, kMaxPositions, 4096, &window));
  std::vector<bool> derived((size_t)c->n_layer);
  for (int l = 0; l < c->n_layer; ++l) derived[(size_t)l] = (l + 1) % 2 != 0;
  return ParseLayerTypes(k, j, c->n_layer, derived, window, &c->layer_window);
}

Status ParseGemma3(const Keys& k, const json& j, ModelConfig* c) {
  ATTNVIZ_TRY(ParseGemmaCommon(k, j, c));
  ATTNVIZ_TRY(k.Double("rope_theta", 1e-6, 1e12, 1000000.0, &c->rope_theta));
  ATTNVIZ_TRY(ParseRopeScaling(j, k.where(), &c->rope_scaling));
  ATTNVIZ_TRY(k.Double("rope_local_base_freq", 1e-6, 1e12, 10000.0, &c->rope_local_theta));
  ATTNVIZ_TRY(ParseSoftcap(k, j, "attn_logit_softcapping", 0.0, &c->attn_softcap));
  ATTNVIZ_TRY(ParseSoftcap(k, j, "final_logit_softcapping", 0.0, &c->final_softcap));
  int window = 0, pattern = 6;
  ATTNVIZ_TRY(k.IntOr("sliding_window", 1, kMaxPositions, 4096, &window));
  // Gemma3TextConfig reads sliding_window_pattern (older configs) or _sliding_window_pattern.
  ATTNVIZ_TRY(k.IntOr(j.contains("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern", 1,
                      kMaxLayers, 6, &pattern));
  std::vector<bool> derived((size_t)c->n_layer);
  for (int l = 0; l < c->n_layer; ++l) derived[(size_t)l] = (l + 1) % pattern != 0;
  std::vector<bool> sliding;
  ATTNVIZ_TRY(ParseLayerTypes(k, j, c->n_layer, derived, window, &c->layer_window, &sliding));
  c->layer_local_rope = sliding;  // the local base on the sliding layers
  return Status::Ok();
}

// 2. Tensor names -> params. Gemma's RMSNorm multiplies by (1 + w): bound as one kept copy of 1 + w.
Status GemmaNorm(Binder& b, const std::string& name, int d, Norm* n) {
  const float* w = nullptr;
  ATTNVIZ_TRY(b.Get(name + ".weight", {d}, &w));
  std::vector<float> plus_one(w, w + d);
  for (float& v : plus_one) v += 1.0f;
  *n = Norm{};
  n->w = b.Keep(std::move(plus_one));
  return Status::Ok();
}

Status BindGemma(const ModelConfig& c, Binder& b, ModelParams* p) {
  const std::string pre = DetectPrefix(b.store(), "embed_tokens.weight", {"model.", ""});
  const int d = c.d_model;
  const bool qk_norm = c.recipe.qk_norm != BlockRecipe::QkNorm::kNone;
  ATTNVIZ_TRY(b.Get({pre + "embed_tokens.weight", "model.embed_tokens.weight"}, {c.vocab, d}, &p->tok_emb));
  p->blocks.resize(c.n_layer);
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = pre + "layers." + std::to_string(l) + ".";
    BlockParams& bp = p->blocks[l];
    ATTNVIZ_TRY(GemmaNorm(b, h + "input_layernorm", d, &bp.attn_norm));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.q_proj", d, c.q_dim(), c.qkv_bias, &bp.q));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.k_proj", d, c.kv_dim(), c.qkv_bias, &bp.k));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.v_proj", d, c.kv_dim(), c.qkv_bias, &bp.v));
    ATTNVIZ_TRY(b.LinearOutIn(h + "self_attn.o_proj", c.q_dim(), d, c.o_bias, &bp.o));
    if (qk_norm) {
      ATTNVIZ_TRY(GemmaNorm(b, h + "self_attn.q_norm", c.d_head, &bp.q_norm));
      ATTNVIZ_TRY(GemmaNorm(b, h + "self_attn.k_norm", c.d_head, &bp.k_norm));
    }
    ATTNVIZ_TRY(GemmaNorm(b, h + "post_attention_layernorm", d, &bp.attn_out_norm));
    ATTNVIZ_TRY(GemmaNorm(b, h + "pre_feedforward_layernorm", d, &bp.mlp_norm));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.gate_proj", d, c.d_ff, false, &bp.gate));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.up_proj", d, c.d_ff, false, &bp.up));
    ATTNVIZ_TRY(b.LinearOutIn(h + "mlp.down_proj", c.d_ff, d, false, &bp.down));
    ATTNVIZ_TRY(GemmaNorm(b, h + "post_feedforward_layernorm", d, &bp.mlp_out_norm));
  }
  ATTNVIZ_TRY(GemmaNorm(b, pre + "norm", d, &p->final_norm));
  return BindLmHead(c, b, "lm_head.weight", p);
}

BlockRecipe GemmaRecipe() {
  BlockRecipe r;
  r.norm = BlockRecipe::Norm::kRms;
  r.rope = true;
  r.gated_mlp = true;
  r.output_norms = true;
  r.attn_norm_stage = "the attention's input norm (input_layernorm)";
  r.mlp_norm_stage = "the MLP's input norm (pre_feedforward_layernorm)";
  r.attn_out_norm_stage = "the attention output norm (post_attention_layernorm)";
  r.mlp_out_norm_stage = "the MLP output norm (post_feedforward_layernorm)";
  return r;
}

// <arch>.attention.sliding_window_pattern as llama.cpp's load_swa_pattern reads it: an array of one flag per layer
// (nonzero: the layer slides; convert_hf_to_gguf.py writes it from layer_types), or a number n (layer l slides iff n
// is 0 or l % n < n - 1), else `fallback` as n. The sliding layers get `window`; *sliding says which they are.
Status ReadSwaPattern(const GgufFile& f, const GgufKeys& k, int fallback, int window, ModelConfig* c,
                      std::vector<bool>* sliding) {
  const std::string key = c->model_type + ".attention.sliding_window_pattern";
  sliding->assign((size_t)c->n_layer, false);
  const GgufValue* p = f.Find(key);
  if (p && p->type == GgufValueType::kArray) {
    if (p->items.size() != (size_t)c->n_layer)
      return Status::ErrorAt(f.path(), MsgId::kGgufKeysDiffer, {key + " (entries)", std::to_string(p->items.size()),
                                                                 c->model_type + ".block_count", std::to_string(c->n_layer)});
    for (size_t l = 0; l < p->items.size(); ++l) {
      const GgufValue& v = p->items[l];
      if (v.type != GgufValueType::kBool && !v.is_integer())
        return Status::ErrorAt(f.path(), MsgId::kGgufKeyType, {key, GgufValueTypeName(v.type), "an array of bools"});
      (*sliding)[l] = v.u != 0 || v.i != 0;
    }
  } else {
    int pattern = fallback;
    ATTNVIZ_TRY(k.IntOr(key, 0, kMaxLayers, fallback, &pattern));
    for (int l = 0; l < c->n_layer; ++l) (*sliding)[(size_t)l] = pattern == 0 || l % pattern < pattern - 1;
  }
  c->sliding_window = 0;
  c->layer_window.assign((size_t)c->n_layer, 0);
  for (int l = 0; l < c->n_layer; ++l)
    if ((*sliding)[(size_t)l]) c->layer_window[(size_t)l] = window;
  return Status::Ok();
}

// 3. A GGUF file (llama.cpp's gemma2, convert_hf_to_gguf.py's Gemma2Model): every norm written as 1 + w (read back
// as w: the bind adds the 1 again, exactly for any w > -0.5), no output.weight (llama.cpp always ties the LM head),
// no q/k permutation, keys gemma2.attn_logit_softcapping (llama.cpp's default 50), gemma2.final_logit_softcapping
// (30), gemma2.attention.sliding_window (4096) on the layers the pattern says (ReadSwaPattern; every other layer from
// the first when absent).
// !! The file has no query_pre_attn_scalar: llama.cpp scales by 1/sqrt(head width), or 1/sqrt(d_model / heads) for
//    a 46-layer model (Gemma 2 27B), which is what every released Gemma 2 has; read so, as llama.cpp runs it.
// Refused: gemma2.rope.freq_base_swa (a second base on the sliding layers).
Status ReadGemma2Gguf(const GgufFile& f, const GgufKeys& k, ModelConfig* c) {
  const std::string& a = c->model_type;
  c->activation = Activation::kGeluTanh;
  c->scale_embeddings = true;
  c->tie_word_embeddings = true;
  c->query_pre_attn_scalar = c->n_layer == 46 ? (double)(c->d_model / c->n_head) : (double)c->d_head;
  ATTNVIZ_TRY(k.Double(a + ".attn_logit_softcapping", 1e-6, 1e9, 50.0, &c->attn_softcap));
  ATTNVIZ_TRY(k.Double(a + ".final_logit_softcapping", 1e-6, 1e9, 30.0, &c->final_softcap));
  if (f.Find(a + ".rope.freq_base_swa")) return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {a + ".rope.freq_base_swa"});
  int window = 0;
  ATTNVIZ_TRY(k.IntOr(a + ".attention.sliding_window", 1, kMaxPositions, 4096, &window));
  std::vector<bool> sliding;
  return ReadSwaPattern(f, k, 2, window, c, &sliding);
}

GgufArchitecture Gemma2Gguf() {
  using R = GgufTensorName::Role;
  GgufArchitecture a;
  a.name = "gemma2";
  a.qk_rows_permuted = false;
  a.reads_sliding_window = false;
  a.norms_plus_one = true;
  a.block = {{"attn_norm", "input_layernorm", R::kNorm},
             {"attn_q", "self_attn.q_proj", R::kQ},
             {"attn_k", "self_attn.k_proj", R::kK},
             {"attn_v", "self_attn.v_proj", R::kV},
             {"attn_output", "self_attn.o_proj", R::kO},
             {"post_attention_norm", "post_attention_layernorm", R::kNorm},
             {"ffn_norm", "pre_feedforward_layernorm", R::kNorm},
             {"ffn_gate", "mlp.gate_proj", R::kGate},
             {"ffn_up", "mlp.up_proj", R::kUp},
             {"ffn_down", "mlp.down_proj", R::kDown},
             {"post_ffw_norm", "post_feedforward_layernorm", R::kNorm}};
  a.read_keys = ReadGemma2Gguf;
  return a;
}

// A GGUF file of gemma3 (llama.cpp's gemma3, convert_hf_to_gguf.py's Gemma3Model): gemma2's tensors with
// blk.N.attn_q_norm / attn_k_norm [head width] (1 + w like every norm), TextModel's keys (rope.freq_base for the
// global layers, rope.freq_base_swa for the sliding ones, default 10000; linear rope.scaling.* on the global layers
// only, as llama.cpp's sliding layers turn unscaled), gemma3.final_logit_softcapping (none when absent),
// gemma3.attention.sliding_window (absent or 0: no sliding layer, every layer turns by rope.freq_base) and the
// pattern as llama.cpp reads it (every 6th layer global when absent). The query scaling as gemma2's (no
// query_pre_attn_scalar in the file): 1/sqrt(head width), or 1/sqrt(d_model / heads) for a 62-layer model (27B).
// Refused: gemma3.attn_logit_softcapping (Gemma 3 has none; llama.cpp's gemma3 would not apply it).
Status ReadGemma3Gguf(const GgufFile& f, const GgufKeys& k, ModelConfig* c) {
  const std::string& a = c->model_type;
  c->activation = Activation::kGeluTanh;
  c->scale_embeddings = true;
  c->query_pre_attn_scalar = c->n_layer == 62 ? (double)(c->d_model / c->n_head) : (double)c->d_head;
  if (f.Find(a + ".attn_logit_softcapping"))
    return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {a + ".attn_logit_softcapping"});
  ATTNVIZ_TRY(k.Double(a + ".final_logit_softcapping", 0, 1e9, 0.0, &c->final_softcap));
  int window = 0;
  ATTNVIZ_TRY(k.IntOr(a + ".attention.sliding_window", 0, kMaxPositions, 0, &window));
  if (window == 0) return Status::Ok();
  ATTNVIZ_TRY(k.Double(a + ".rope.freq_base_swa", 1e-6, 1e12, 10000.0, &c->rope_local_theta));
  std::vector<bool> sliding;
  ATTNVIZ_TRY(ReadSwaPattern(f, k, 6, window, c, &sliding));
  c->layer_local_rope = sliding;  // the local base on the sliding layers
  return Status::Ok();
}

GgufArchitecture Gemma3Gguf() {
  using R = GgufTensorName::Role;
  GgufArchitecture a = Gemma2Gguf();
  a.name = "gemma3";
  a.block.insert(a.block.begin() + 5, {{"attn_q_norm", "self_attn.q_norm", R::kQNorm},
                                       {"attn_k_norm", "self_attn.k_norm", R::kKNorm}});
  a.read_keys = ReadGemma3Gguf;
  return a;
}

}  // namespace

const Family& Gemma2Family() {
  static const Family family = [] {
    Family f;
    f.name = "gemma2";
    f.model_types = {"gemma2"};
    f.recipe = GemmaRecipe();
    f.read_config = ParseGemma2;
    f.bind = BindGemma;
    f.gguf = {Gemma2Gguf()};
    return f;
  }();
  return family;
}

const Family& Gemma3Family() {
  static const Family family = [] {
    Family f;
    f.name = "gemma3";
    f.model_types = {"gemma3_text"};
    f.recipe = GemmaRecipe();
    f.recipe.qk_norm = BlockRecipe::QkNorm::kPerHead;
    f.recipe.qk_norm_stage = "the per-head q and k norms (self_attn.q_norm, self_attn.k_norm)";
    f.read_config = ParseGemma3;
    f.bind = BindGemma;
    f.gguf = {Gemma3Gguf()};
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
