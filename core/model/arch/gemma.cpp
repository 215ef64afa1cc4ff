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

// 3. A GGUF file (llama.cpp's gemma2, convert_hf_to_gguf.py's Gemma2Model): every norm written as 1 + w (read back
// as w: the bind adds the 1 again, exactly for any w > -0.5), no output.weight (llama.cpp always ties the LM head),
// no q/k permutation, keys gemma2.attn_logit_softcapping (llama.cpp's default 50), gemma2.final_logit_softcapping
// (30), gemma2.attention.sliding_window (4096) on every other layer from the first (sliding_window_pattern 2).
// !! The file has no query_pre_attn_scalar: llama.cpp scales by 1/sqrt(head width), or 1/sqrt(d_model / heads) for
//    a 46-layer model (Gemma 2 27B), which is what every released Gemma 2 has; read so, as llama.cpp runs it.
// Refused: gemma2.rope.freq_base_swa (a second base on the sliding layers) and a sliding_window_pattern that is
// not a number.
Status ReadGemma2Gguf(const GgufFile& f, const GgufKeys& k, ModelConfig* c) {
  const std::string& a = c->model_type;
  c->activation = Activation::kGeluTanh;
  c->scale_embeddings = true;
  c->tie_word_embeddings = true;
  c->query_pre_attn_scalar = c->n_layer == 46 ? (double)(c->d_model / c->n_head) : (double)c->d_head;
  ATTNVIZ_TRY(k.Double(a + ".attn_logit_softcapping", 1e-6, 1e9, 50.0, &c->attn_softcap));
  ATTNVIZ_TRY(k.Double(a + ".final_logit_softcapping", 1e-6, 1e9, 30.0, &c->final_softcap));
  if (f.Find(a + ".rope.freq_base_swa")) return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {a + ".rope.freq_base_swa"});
  int window = 0, pattern = 2;
  ATTNVIZ_TRY(k.IntOr(a + ".attention.sliding_window", 1, kMaxPositions, 4096, &window));
  const GgufValue* p = f.Find(a + ".attention.sliding_window_pattern");
  if (p && !p->is_integer())
    return Status::ErrorAt(f.path(), MsgId::kGgufNotBuilt, {a + ".attention.sliding_window_pattern"});
  ATTNVIZ_TRY(k.IntOr(a + ".attention.sliding_window_pattern", 0, kMaxLayers, 2, &pattern));
  // llama.cpp's set_swa_pattern: layer l slides iff the pattern is 0 or l % pattern < pattern - 1.
  c->sliding_window = 0;
  c->layer_window.assign((size_t)c->n_layer, 0);
  for (int l = 0; l < c->n_layer; ++l)
    if (pattern == 0 || l % pattern < pattern - 1) c->layer_window[(size_t)l] = window;
  return Status::Ok();
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
    return f;
  }();
  return family;
}

}  // namespace attnviz::model
