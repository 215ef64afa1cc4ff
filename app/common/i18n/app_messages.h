// The programs' own message ids (attnviz and attnviz-cli, app/): what their options, model folders and commands
// refuse, as ids with parameters like core's (core/base/messages.h), so they are shown in the user's language
// the same way. They are numbered from MsgId::kAppFirst on and travel in a Status as a MsgId (ToMsgId); core
// carries them without knowing their names, and localized.h renders core's ids and these alike (their Korean
// templates are in messages_ko.cpp).
#pragma once
#include <string>
#include <vector>

#include "base/messages.h"
#include "base/status.h"

namespace attnviz {

enum class AppMsgId : int {
  // ---- the input options (app/common/options.cpp)
  kMissingValue = (int)MsgId::kAppFirst,  // {0} option
  kTextAndTextFile,
  kLineNeedsTextFile,
  kNoText,
  kNoSentenceOnLine,          // {0} file, {1} line, {2} the lines that hold one
  kFolderWithoutConfig,       // {0} path
  kTwoModelFolders,           // {0}, {1} the folders
  kTwoSentenceFiles,          // {0}, {1} the files
  kModelFolderForSandbox,     // {0} the folder, {1} the command (compute, sweep, export)
  kStrayArgument,             // {0} the argument, {1} the command
  kModelFolderNeedsOption,    // {0} the folder
  // ---- opening a model folder and its text (app/common/model_folder.cpp)
  kModelEmpty,
  kBundledNoDataDir,          // {0} places searched
  kBundledNoConfig,           // {0} folder
  kModelPathMissing,          // {0} path
  kNotModelFolderOrGguf,      // {0} path
  // ---- a model head as a figure (app/common/model_figure.cpp; attnviz-cli model --layer/--head)
  kModelLayerOutOfRange,      // {0} "--layer" or "layer", {1} layer, {2} the last layer, {3} n_layer
  kModelHeadOutOfRange,       // {0} "--head" or "head", {1} head, {2} the last head, {3} n_head
  // ---- attnviz-cli model (app/cli/cli_model.cpp)
  kModelRequired,
  kJsonNeedsRoles,
  kCrossNeedsSandbox,
  kNoLayerGiven,
  kFigureNeedsLayerHead,
  kOptionNeedsFigure,         // {0} option
  kFigureNoExtension,         // {0} path
  kFigureExtension,           // {0} path, {1} extension
  kAblateSpec,                // {0} the item
  kNeuronSpec,                // {0} the value
  kOneOutputAtATime,          // {0}, {1} options
  kNeedsDump,                 // {0} option, {1} file name
  kPredictNeedsMask,
  // ---- the figure options (app/cli/cli_figure_options.cpp)
  kTitleTooLong,              // {0} characters, {1} the most
  // ---- the desktop app (app/gui/app.cpp, app/gui/app_model.cpp)
  kTemperatureNotFinite,
  kPrefixWhatIfLayers,
  // issue 44's minor items
  kGgufFileForSandbox,        // {0} the file, {1} the command (compute, sweep, export)
  kGgufFileNeedsOption,       // {0} the file
  kLayersNeedWhatIf,
  // issue 41 (app/cli/cli_model.cpp)
  kAblateModeNeedsAblate,
  // issue 41: attribution and patching (app/cli/cli_model_attrib.cpp)
  kTokenNotOne,               // {0} option, {1} the text, {2} tokens it encodes as, {3} the last id
  kAttributeSpec,             // {0} the value
  kMetricSpec,                // {0} the value
  kPatchNeedsMetric,
  kWhatIfWithAttribution,     // {0} option
  kScanAtNeedsScan,
  // encoder-decoder models (app/cli/cli_seq2seq.cpp)
  kSeq2SeqNeedsTarget,        // {0} the model folder
  kSeq2SeqTargetOrGenerate,
  kSeq2SeqAblateSpec,         // {0} the item
  kSeq2SeqOptionUnbuilt,      // {0} the option
  kSeq2SeqFigureNeedsStack,
  kSeq2SeqEmptySide,          // {0} the option whose text made no tokens
  kSeq2SeqOnly,               // {0} the option, {1} the model folder, {2} the encoder-decoder model types
  // issue 42: sizes checked before the run, --pool (app/cli/cli_model.cpp, cli_model_preflight.cpp)
  kFigureRefusedBeforeRun,    // {0} tokens, {1} what fits ("--cell-size 2, --pool 3")
  kFigureRefusedNothingFits,  // {0} tokens
  kPoolValue,                 // {0} the value
  kPoolPastTokens,            // {0} the factor, {1} tokens
  kPoolModeNeedsPool,
  kDumpPastDisk,              // {0} the files' size, {1} the folder, {2} free there, {3} tokens, {4} the most that fit
  // issue 40: the analyses of encoder-decoder models (app/cli/cli_seq2seq_analysis.cpp)
  kSeq2SeqNeuronNeedsStack,
  kCount
};

// The id as a Status part carries it.
constexpr MsgId ToMsgId(AppMsgId id) { return static_cast<MsgId>(static_cast<int>(id)); }
// Whether `id` is one of the programs' own.
constexpr bool IsAppMsgId(MsgId id) {
  return static_cast<int>(id) >= static_cast<int>(MsgId::kAppFirst) &&
         static_cast<int>(id) < static_cast<int>(AppMsgId::kCount);
}
// The English template of `id`.
const char* AppEnglishTemplate(AppMsgId id);
// The English template of any id, core's or the programs'; "" for kNone and for an id neither knows.
const char* AnyEnglishTemplate(MsgId id);

// Status::Error, Prefixed and ErrorAt for the programs' ids: the same English text and parts.
Status AppError(AppMsgId id, std::vector<std::string> args);
Status AppPrefixed(AppMsgId id, std::vector<std::string> args, const Status& inner);
Status AppErrorAt(const std::string& where, AppMsgId id, std::vector<std::string> args);

}  // namespace attnviz
