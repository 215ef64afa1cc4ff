// Checkpoint binding: tensor names -> ModelParams, per architecture. Every tensor's shape is checked against
// config.json; a missing tensor is named (with the names tried); a mismatch gives both shapes.
//
//   gpt2  (GPT2Model, or GPT2LMHeadModel with the "transformer." prefix):
//         wte, wpe, h.N.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, ln_f
//         !! Conv1D weights are [in, out]. Skipped: h.N.attn.bias / masked_bias buffers, lm_head.
//   bert  (BertModel, or BertFor* with the "bert." prefix): embeddings.{word,position,token_type}_embeddings,
//         embeddings.LayerNorm, encoder.layer.N.{attention.self.{query,key,value}, attention.output.{dense,
//         LayerNorm}, intermediate.dense, output.{dense,LayerNorm}}; LayerNorm.gamma/beta accepted for weight/bias.
//         Skipped: pooler, cls.*, embeddings.position_ids.
//   llama, qwen2, mistral (with or without the "model." prefix): embed_tokens, layers.N.{input_layernorm,
//         self_attn.{q,k,v,o}_proj, post_attention_layernorm, mlp.{gate,up,down}_proj}, norm.
//         Biases where the config says (qwen2: q/k/v). Skipped: lm_head, rotary_emb.inv_freq.
#pragma once
#include <string>

#include "model/config.h"
#include "model/params.h"
#include "model/tensor_store.h"
#include "base/status.h"

namespace attnviz::model {

Result<ModelParams> BindParams(const ModelConfig& config, TensorStore* store);

}  // namespace attnviz::model
