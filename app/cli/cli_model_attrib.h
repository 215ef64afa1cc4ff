// attnviz-cli model --attribute POS[:TOKEN] and --patch-from CLEAN --metric A,B (issue 41): direct logit attribution
// and activation patching (core/model/attribution.h, patching.h) as JSON or a text table.
#pragma once
#include <string>
#include <vector>

#include "base/status.h"
#include "model/lens.h"  // LensLayer
#include "model_folder.h"  // ResolveTokenArg
#include "session/loaded_model.h"
#include "tokenize/token.h"

namespace attnviz {

// spec: "POS" or "POS:TOKEN". Returns the table (JSON {"position", "target": {"id", "token"}, "logit",
// ["capped_logit",] "components": [{"kind", "layer", "head", "value"}]} or a text table).
Result<std::string> AttributionOutput(const ModelFolder& folder, const std::vector<tokenize::Token>& tokens,
                                      const std::string& spec, bool json);

// The given text's tokens are the corrupted run; clean_text is tokenized alike. metric: "A,B".
// Returns JSON {"clean", "corrupted", "heads": [[...] per layer], "residual": [[...] per layer 0..n_layer]} or text.
Result<std::string> PatchingOutput(const ModelFolder& folder, const std::vector<tokenize::Token>& tokens,
                                   const std::string& clean_text, const std::string& metric, bool json);

// One layer of a logit lens: JSON {"layer", "positions": [{"index", "top": [{"id", "token", "prob"}], "next_prob"}]}
// ("next_prob" only where there is a next token to predict), or text: the layer's line, then one position a line.
std::string LensLayerTable(const model::LensLayer& layer, const std::vector<tokenize::Token>& tokens,
                           const tokenize::Tokenizer& tok, bool json);

// A patching grid cells [rows, cols]: JSON rows of numbers, or a text table with the row number first.
std::string PatchGrid(const std::vector<double>& cells, int rows, int cols, bool json);

}  // namespace attnviz
