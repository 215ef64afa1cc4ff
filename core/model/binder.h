// Internal to the families' binding (arch/<family>.cpp): fetch one tensor by name with its expected shape.
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "model/params.h"
#include "model/tensor_store.h"
#include "base/status.h"

namespace attnviz::model {

class Binder {
 public:
  explicit Binder(TensorStore* store) : store_(store) {}

  // *out = the float data of the first of `names` present; its shape must be `want`.
  // Missing: "missing tensor 'a' (also tried 'b')"; wrong shape: "... has shape [x] but config.json needs [y]".
  Status Get(std::initializer_list<std::string> names, const std::vector<int64_t>& want, const float** out);
  Status Get(const std::string& name, const std::vector<int64_t>& want, const float** out) {
    return Get({name}, want, out);
  }
  // nn.Linear "<name>.weight" [out, in] (+ "<name>.bias" [out] when `bias`).
  Status LinearOutIn(const std::string& name, int in, int out, bool bias, Linear* l);
  // !! Conv1D "<name>.weight" [in, out] + "<name>.bias" [out].
  Status Conv1D(const std::string& name, int in, int out, Linear* l);
  // "<name>.weight" (or .gamma) [d] and, for LayerNorm, "<name>.bias" (or .beta) [d].
  Status LayerNorm(const std::string& name, int d, Norm* n);
  Status RmsNorm(const std::string& name, int d, Norm* n);
  const TensorStore& store() const { return *store_; }
  // Floats derived from the checkpoint's at load (gpt_neox's de-interleaved query_key_value), kept by the store.
  const float* Keep(std::vector<float> values);

 private:
  TensorStore* store_;
};

}  // namespace attnviz::model

namespace attnviz::model {
struct ModelConfig;
// The LM head of a decoder: the input embeddings when tied, else `name` [vocab, d_model] when the checkpoint has it
// (a bare model has none: lm_head.w stays null).
Status BindLmHead(const ModelConfig& c, Binder& b, const std::string& name, ModelParams* p);
// Row blocks of a fused nn.Linear [sum of the widths, in] (+ bias), in order: views into it, nothing copied
// (phi3's qkv_proj and gate_up_proj).
void SplitRows(const Linear& fused, std::initializer_list<std::pair<int, Linear*>> parts);
// The first of `prefixes` for which `prefix + probe` is a tensor; "" when none is (Get then names what is missing).
std::string DetectPrefix(const TensorStore& store, const std::string& probe, std::initializer_list<std::string> prefixes);
}  // namespace attnviz::model
