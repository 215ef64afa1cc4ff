// A checkpoint's parameters bound to one struct per architecture concept: plain pointers into the memory-mapped
// safetensors (F32) or into the store's one converted copy (F16/BF16). No copies of F32 weights.
//
// Dimension glossary (config.h)
//   vocab      token ids            max_pos  learned positions (gpt2, bert)
//   d_model    residual width       d_ff     MLP hidden width
//   n_head     query heads          n_kv     key/value heads (grouped-query attention; == n_head otherwise)
//   d_head     per-head width       q_dim = n_head*d_head, kv_dim = n_kv*d_head
#pragma once
#include <vector>

namespace attnviz::model {

// A dense layer y = x W (+ b) as stored.
struct Linear {
  const float* w = nullptr;  // [out, in] (nn.Linear), or [in, out] when in_out (!! GPT-2's Conv1D)
  const float* b = nullptr;  // [out], or null
  int in = 0, out = 0;
  bool in_out = false;  // !! Conv1D stores the weight transposed relative to nn.Linear
  int ld = 0;           // row stride of w in floats (in_out: >= out, to take a column block of a fused weight)
};

// LayerNorm (w, b) or RMSNorm (w only).
struct Norm {
  const float* w = nullptr;  // [d_model] (q/k norms: [d_head] per head, or the projection's width)
  const float* b = nullptr;  // [d_model], or null for RMSNorm
};

struct BlockParams {
  Norm attn_norm;  // gpt2 ln_1 (pre), llama input_layernorm (pre), bert attention.output.LayerNorm (post)
  // Projections. gpt2: q, k, v are column blocks of the fused c_attn weight [d_model, 3 d_model].
  Linear q;  // -> [n, q_dim]
  Linear k;  // -> [n, kv_dim]
  Linear v;  // -> [n, kv_dim]
  Linear o;  // [n, q_dim] -> [n, d_model]
  // RMSNorms of q and k before RoPE (BlockRecipe::qk_norm): w [d_head] (kPerHead) or [q_dim], [kv_dim] (kWhole).
  Norm q_norm, k_norm;
  Norm mlp_norm;  // gpt2 ln_2 (pre), llama post_attention_layernorm (pre), bert output.LayerNorm (post)
  Linear up;      // gpt2 mlp.c_fc, bert intermediate.dense, llama up_proj: -> [n, d_ff]
  Linear gate;    // llama gate_proj: -> [n, d_ff] (w null otherwise)
  Linear down;    // gpt2 mlp.c_proj, bert output.dense, llama down_proj: [n, d_ff] -> [n, d_model]
  // Norms of a sublayer's output before it is added to the residual stream (BlockRecipe::output_norms), [d_model]:
  // olmo2 post_attention_layernorm, post_feedforward_layernorm.
  Norm attn_out_norm, mlp_out_norm;
};

// The LM head: final hidden state -> vocabulary logits. gpt2: ln_f then wte (tied) or lm_head; llama family:
// norm then lm_head (or embed_tokens when tied); bert (BertForMaskedLM): cls.predictions.transform (dense, the
// config's activation, LayerNorm), then the decoder (tied: word_embeddings) + cls.predictions.bias.
struct LmHead {
  Linear transform;          // bert only: [n, d_model] -> [n, d_model] (w null otherwise)
  Norm transform_norm;       // bert only
  const float* w = nullptr;  // [vocab, d_model] (nn.Linear layout; the tied input embeddings); null = no LM head
  const float* b = nullptr;  // [vocab] (bert), or null
};

struct ModelParams {
  const float* tok_emb = nullptr;   // [vocab, d_model]
  const float* pos_emb = nullptr;   // [max_pos, d_model] (gpt2, bert)
  const float* type_emb = nullptr;  // [type_vocab, d_model] (bert; row 0 is used)
  Norm emb_norm;                    // bert embeddings.LayerNorm
  std::vector<BlockParams> blocks;  // [n_layer]
  Norm final_norm;                  // gpt2 ln_f, llama model.norm (bound, never applied to the kept residual stream)
  LmHead lm_head;                   // predict.h; lm_head.w null when the checkpoint has none
};

}  // namespace attnviz::model
