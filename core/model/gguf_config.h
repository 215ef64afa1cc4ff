// GGUF metadata -> ModelConfig, checked as config.json is (config.h): every value range-checked, the message
// naming the file, the key, the value and what is allowed.
//
// general.architecture: one a family lists (Family::gguf in arch/family.h; SupportedModelTypes(true) names them),
// ARCH below, keys as llama.cpp's gguf-py/gguf/constants.py names them:
//   ARCH.block_count, ARCH.embedding_length, ARCH.feed_forward_length, ARCH.context_length,
//   ARCH.attention.head_count, ARCH.attention.head_count_kv (default head_count),
//   ARCH.attention.key_length / value_length (default embedding_length / head_count; must be equal),
//   ARCH.rope.dimension_count (must be the head width: attnviz rotates whole heads), ARCH.rope.freq_base
//   (default 10000), ARCH.attention.layer_norm_rms_epsilon (default 1e-5), ARCH.vocab_size (default: rows of
//   token_embd), ARCH.rope.scaling.type none | linear + ARCH.rope.scaling.factor (or the older
//   ARCH.rope.scale_linear), ARCH.attention.sliding_window (where GgufArchitecture::reads_sliding_window).
// Then the architecture's own keys (GgufArchitecture::read_keys in its family's file: gemma2's soft caps, gptneox's
// parallel residual, phi3's longrope factors, gemma3's second rope base and sliding pattern, ...). ARCH.rope.dimension_count may be less than the head width where
// GgufArchitecture::partial_rotary (phi3, gptneox: ModelConfig::rotary_dim).
// From the tensors: biases (blk.0.attn_q.bias, attn_output.bias, ffn_up.bias), tied embeddings (no output.weight).
// rope_freqs.weight [head width / 2] (llama.cpp's per-frequency divisors, its form of llama3 scaling) when present.
// Refused by name: other architectures, rope scaling yarn/longrope/....
#pragma once
#include "base/status.h"
#include "model/config.h"
#include "model/gguf_file.h"

namespace attnviz::model {

// Reads the keys of one file with errors that name the file, the key, the value and the allowed range.
class GgufKeys {
 public:
  explicit GgufKeys(const GgufFile& f) : f_(f) {}
  // An integer in [lo, hi]; absent: *fallback, or an error when there is none.
  Status Int(const std::string& key, int lo, int hi, int* out, const int* fallback = nullptr) const;
  Status IntOr(const std::string& key, int lo, int hi, int fallback, int* out) const {
    return Int(key, lo, hi, out, &fallback);
  }
  Status Double(const std::string& key, double lo, double hi, double fallback, double* out) const;
  Status Bool(const std::string& key, bool fallback, bool* out) const;
  // *out = the string, or "" when the key is absent.
  Status String(const std::string& key, std::string* out) const;
  const GgufFile& file() const { return f_; }

 private:
  const GgufFile& f_;
};

// A tensor of rope frequency divisors, ne {n}, each finite and > 0 (rope_freqs.weight; phi3's rope_factors_long /
// rope_factors_short.weight); *out is left empty when the file has no such tensor.
Status ReadRopeFactors(const GgufFile& f, const std::string& name, int n, std::vector<double>* out);

Result<ModelConfig> GgufModelConfig(const GgufFile& file);

}  // namespace attnviz::model
