// Helpers shared by the attnviz-cli subcommands.
#pragma once
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "attention/metrics.h"
#include "sandbox/pipeline.h"
#include "i18n/ui_strings.h"  // messages and figure titles in the --lang language
#include "model/run.h"  // AblateMode
#include "options.h"

namespace attnviz {

// Prints "attnviz-cli SUBCOMMAND: MESSAGE" to stderr (Korean: "... 오류: MESSAGE") and returns exit code 2.
int UsageError(const std::string& subcommand, const std::string& message);
// A model folder given as a plain argument (options.h ParsePositional) to a sandbox command (compute, sweep,
// export): refused with the model command that runs it, never ignored for the random sandbox layer.
Status RefuseModelFolder(const InputOptions& options, const std::string& subcommand);
// The bytes an ordinary user may still write on the disk that holds `path` (or its nearest existing parent folder,
// when it is yet to be made); < 0 when that cannot be told.
double FreeDiskBytes(const std::string& path);
// --ablate-mode zero|mean (model, encoder-decoder models alike); the error names the option and the allowed names.
Result<model::AblateMode> ParseAblateMode(const std::string& value);
// "L:H" or "L:H:I:J" (count parts) -> numbers >= 0 into out[count]; false when malformed.
bool ParseColonInts(const std::string& text, size_t count, int* out);
// [{"text": "I", "begin": 0, "end": 1}, ...]
std::string TokensJson(const std::vector<Token>& tokens);
// Per-head metrics and their mean, with per-row figures.
std::string MetricsJson(const AttentionTensors& tensors, const AttentionConfig& config);

}  // namespace attnviz
