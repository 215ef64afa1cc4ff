// Checkpoint binding: tensor names -> ModelParams, by the model's family (core/model/arch/<family>.cpp names its
// tensors). Every tensor's shape is checked against config.json; a missing tensor is named (with the names
// tried); a mismatch gives both shapes.
#pragma once
#include <string>

#include "model/config.h"
#include "model/params.h"
#include "model/tensor_store.h"
#include "base/status.h"

namespace attnviz::model {

Result<ModelParams> BindParams(const ModelConfig& config, TensorStore* store);

}  // namespace attnviz::model
