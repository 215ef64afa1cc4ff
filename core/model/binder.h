// Internal to the families' binding (arch/<family>.cpp): fetch one tensor by name with its expected shape.
#pragma once
#include <initializer_list>
#include <string>
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

 private:
  TensorStore* store_;
};

}  // namespace attnviz::model

namespace attnviz::model {
struct ModelConfig;
// The first of `prefixes` for which `prefix + probe` is a tensor; "" when none is (Get then names what is missing).
std::string DetectPrefix(const TensorStore& store, const std::string& probe, std::initializer_list<std::string> prefixes);
}  // namespace attnviz::model
