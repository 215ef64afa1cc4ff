// A GGUF file's llama-family tensors as the Hugging Face names the binder (bind_llama.cpp) asks for, so a GGUF
// model runs through the same BindModel / RunModel as its folder:
//   token_embd -> model.embed_tokens            output_norm -> model.norm        output -> lm_head (untied)
//   blk.N.attn_norm -> model.layers.N.input_layernorm    blk.N.ffn_norm -> ...post_attention_layernorm
//   blk.N.attn_{q,k,v,output} -> ...self_attn.{q,k,v,o}_proj   blk.N.ffn_{gate,up,down} -> ...mlp.{gate,up,down}_proj
//   (.weight, and .bias where the config has biases)
// !! ne is innermost first: HF [out, in] is ne {in, out}; shapes are checked in ne terms against the metadata.
// !! llama.cpp's convert_hf_to_gguf.py permutes the rows of q and k (weight and bias) of llama and mistral from
//    HF's rotate_half order to interleaved pairs (per head: row 2i + t <- row t * d_head/2 + i); undone here, so
//    the maps equal the folder's. qwen2 is written unpermuted.
// F32 tensors that need no permutation are used in place (the map is kept alive by the store). With
// GgufWeights::kPerLayer (the default) every other matrix of a block (q, k, v, o, gate, up, down) is dequantized
// per layer, when a run asks Model::BlockWeights, into the run's reused scratch (one layer of floats, model.h), and
// only the token embedding rows a run needs are dequantized (Model::TokenEmbedding), the LM head (output, or the
// tied token embedding) a chunk of vocab rows at a time (Model::LmHeadRows, predict.cpp); the small norms and biases
// are kept as floats. Each deferred tensor is dequantized once at load to check its values are finite (no copy
// kept). A quantized model then costs its file (mapped) plus one layer of floats per running thread.
// GgufWeights::kWhole dequantizes every tensor once, whole, at load (4 bytes a weight): the reference the
// per-layer path is tested against, value for value.
#pragma once
#include <memory>
#include <string>

#include "base/status.h"
#include "model/config.h"
#include "model/gguf_file.h"
#include "model/model.h"
#include "model/tensor_store.h"

namespace attnviz::model {

enum class GgufWeights { kPerLayer, kWhole };

// Every tensor resident (as kWhole): F32 in place, the rest dequantized whole.
Result<std::shared_ptr<TensorStore>> GgufTensorStore(std::shared_ptr<const GgufFile> file, const ModelConfig& config);

// FILE.gguf -> config (gguf_config.h) + weights (above) -> BindModel. The tokenizer is not here
// (core/tokenize/gguf_tokenizer.h).
Result<std::shared_ptr<const Model>> LoadGgufModel(const std::string& path, GgufWeights weights = GgufWeights::kPerLayer);
Result<std::shared_ptr<const Model>> LoadGgufModel(std::shared_ptr<const GgufFile> file,
                                                   GgufWeights weights = GgufWeights::kPerLayer);

}  // namespace attnviz::model
