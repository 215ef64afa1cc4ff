// A GGUF file's llama-family tensors as the Hugging Face names the binder (bind_llama.cpp) asks for, so a GGUF
// model runs through the same BindModel / RunModel as its folder:
//   token_embd -> model.embed_tokens            output_norm -> model.norm        (output: not needed, skipped)
//   blk.N.attn_norm -> model.layers.N.input_layernorm    blk.N.ffn_norm -> ...post_attention_layernorm
//   blk.N.attn_{q,k,v,output} -> ...self_attn.{q,k,v,o}_proj   blk.N.ffn_{gate,up,down} -> ...mlp.{gate,up,down}_proj
//   (.weight, and .bias where the config has biases)
// !! ne is innermost first: HF [out, in] is ne {in, out}; shapes are checked in ne terms against the metadata.
// !! llama.cpp's convert_hf_to_gguf.py permutes the rows of q and k (weight and bias) of llama and mistral from
//    HF's rotate_half order to interleaved pairs (per head: row 2i + t <- row t * d_head/2 + i); undone here, so
//    the maps equal the folder's. qwen2 is written unpermuted.
// F32 tensors that need no permutation are used in place (the map is kept alive by the store); every other
// tensor is dequantized once, whole, here.
// TODO(per-layer dequantization): a quantized model costs 4 bytes per weight after loading. To keep one layer in
// float at a time: keep the GgufTensor (and the q/k unpermute flag) of each Linear beside BlockParams, and in
// run.cpp's "3. Blocks." loop, just before `Block(c, p.blocks[l], ...)`, DequantizeTensorRows layer l's tensors into
// a buffer of the calling thread's Workspace (reused for every layer and run) and pass a BlockParams pointing there;
// the embedding needs only the rows of the ids (DequantizeTensorRows(token_embd, id, 1, ...)).
#pragma once
#include <memory>
#include <string>

#include "base/status.h"
#include "model/config.h"
#include "model/gguf_file.h"
#include "model/model.h"
#include "model/tensor_store.h"

namespace attnviz::model {

Result<std::shared_ptr<TensorStore>> GgufTensorStore(std::shared_ptr<const GgufFile> file, const ModelConfig& config);

// FILE.gguf -> config (gguf_config.h) + weights (above) -> BindModel. The tokenizer is not here
// (core/tokenize/gguf_tokenizer.h).
Result<std::shared_ptr<const Model>> LoadGgufModel(const std::string& path);
Result<std::shared_ptr<const Model>> LoadGgufModel(std::shared_ptr<const GgufFile> file);

}  // namespace attnviz::model
