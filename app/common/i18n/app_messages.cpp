// The English templates of the programs' own message ids (app_messages.h).
#include "i18n/app_messages.h"

#include <iterator>

namespace attnviz {

namespace {
// In AppMsgId order (the static_assert below keeps the two in step).
constexpr const char* kEnglish[] = {
    // the input options (app/common/options.cpp)
    "{0}: missing value",
    "give --text or --text-file, not both",
    "--line needs --text-file",
    "no text: give --text TEXT or --text-file FILE",
    "{0}:{1}: no sentence on this line (sentences are on lines {2})",
    "{0}: a folder without config.json (a model folder has one; a sentence file is a file)",
    "two model folders given: '{0}' and '{1}' (one at a time)",
    "two sentence files given: '{0}' and '{1}' (one at a time)",
    "{0}: a model folder (config.json inside); attnviz-cli {1} runs the sandbox layer, not a model: run "
    "attnviz-cli model --model {0}",
    "unexpected argument '{0}' (see attnviz-cli {1} --help)",
    "unexpected argument '{0}': a model folder (config.json inside) is given as --model {0}",
    // opening a model folder and its text (app/common/model_folder.cpp)
    "--model: empty; give a model folder or 'tiny' (the bundled model)",
    "the bundled model 'tiny' was not found: no data folder (looked in {0})",
    "the bundled model 'tiny' was not found: {0}/config.json is missing",
    "{0}: no such folder or file (a model is a folder with config.json, or a .gguf file)",
    "{0}: neither a model folder (with config.json) nor a .gguf file",
    // a model head as a figure (app/common/model_figure.cpp; attnviz-cli model --layer/--head)
    "{0}: {1} is out of range: allowed 0..{2} (the model has {3} layers)",
    "{0}: {1} is out of range: allowed 0..{2} (the model has {3} heads)",
    // attnviz-cli model (app/cli/cli_model.cpp)
    "--model DIR is required (or --model tiny, the bundled model)",
    "--json goes with --roles, --predict, --neuron, --ablate-scan, --token-loss or --logit-lens (their output as "
    "JSON)",
    "a cross item (QUERY ||| KEY/VALUE) needs the sandbox: models read one text",
    "no layer given",
    "--figure needs --layer L and --head H (the head of the layer to draw)",
    "{0} goes with --figure OUT.png|OUT.svg|OUT.pdf",
    "{0}: no file extension: a figure is .png, .svg or .pdf",
    "{0}: unknown figure extension '{1}': allowed .png .svg .pdf",
    "--ablate: '{0}' is not L:H (a layer and a head, 0-based; several: 0:1,2:3)",
    "--neuron: '{0}' is not L:H:I:J (layer, head, query token, key token; each 0-based)",
    "{0} and {1} both print to stdout: give one at a time",
    "{0} writes OUT/{1}: give --dump OUT",
    "this masked language model (bert) predicts [MASK] tokens: put [MASK] in the text",
    // the figure options (app/cli/cli_figure_options.cpp)
    "{0} characters is too long for a title: at most {1} (a title is one line across the figure)",
    // the desktop app (app/gui/app.cpp, app/gui/app_model.cpp)
    "temperature must be a finite number",
    "what-if layers: ",
    // a .gguf file where a model folder's messages were (app/cli/cli_util.cpp, app/cli/cli_model.cpp)
    "{0}: a GGUF model file; attnviz-cli {1} runs the sandbox layer, not a model: run attnviz-cli model --model {0}",
    "unexpected argument '{0}': a GGUF model file is given as --model {0}",
    // attnviz-cli model's --layers (app/cli/cli_model.cpp)
    "--layers names the layers the what-ifs act on, and none is given: add --no-scale, --no-softcap, --temperature T "
    "or --no-qk-norm, or leave "
    "--layers out (--ablate L:H names its own layers)",
    // issue 41 (app/cli/cli_model.cpp)
    "--ablate-mode goes with --ablate L:H,... (the heads whose output it replaces)",
    // issue 41: attribution and patching (app/cli/cli_model_attrib.cpp)
    "{0}: '{1}' is not one token of the vocabulary (it encodes as {2} tokens); give one token's text or its id "
    "0..{3}",
    "--attribute: '{0}' is not POS or POS:TOKEN (a position from 0; TOKEN a token's text or id)",
    "--metric: '{0}' is not A,B (two tokens, each a token's text or id)",
    "--patch-from CLEAN goes with --metric A,B (the logit difference it measures), and --metric with --patch-from",
    "{0} runs the model as it is: the what-ifs (--ablate, --no-scale, --temperature, ...) do not go with it",
    "--scan-at goes with --ablate-scan (the positions whose loss ranks the heads)",
    "{0} is an encoder-decoder model: it reads a source and a target; give the target with --target-text TEXT, or "
    "make it with --generate N",
    "--target-text and --generate exclude each other (the target is given or generated)",
    "--ablate: '{0}' is not S:L:H (the stack encoder, decoder or cross, then the layer and the head, from 0; "
    "several: encoder:0:1,cross:1:0)",
    "{0} is not built for encoder-decoder models; they take --tokens, --dump (with --rollout, --value-norm), "
    "--predict, --token-loss, --generate, --ablate S:L:H, --ablate-scan, --neuron, --logit-lens, --attribute, "
    "--patch-from with --metric and --figure with --stack",
    "--figure of an encoder-decoder model needs --stack encoder|decoder|cross, --layer L and --head H",
    "{0} made no tokens",
    "{0} is for encoder-decoder models ({2}); {1} is not one",
    "--figure of {0} tokens, refused before the run (what fits: {1}): ",
    "--figure of {0} tokens, refused before the run: ",
    "--pool: '{0}' is not a pooling factor: give a whole number 1..65536 (tokens a side of a cell; 1: not "
    "pooled) or auto (the smallest factor whose figure fits)",
    "--pool {0} is more than the text's {1} tokens: at most {1}",
    "--pool-mode goes with --pool F|auto (the pooling it names)",
    "--dump: the files would take {0} and {1} has {2} free (checked before the run): at most {4} of these {3} "
    "tokens fit there, or give a folder on a disk with more room",
    "--neuron of an encoder-decoder model needs --stack encoder|decoder|cross (the attention its layer and head are of)",
};
constexpr int kAppCount = (int)AppMsgId::kCount - (int)MsgId::kAppFirst;
static_assert(std::size(kEnglish) == (size_t)kAppCount, "app_messages.cpp: one English template per AppMsgId");
}  // namespace

const char* AppEnglishTemplate(AppMsgId id) {
  const int i = (int)id - (int)MsgId::kAppFirst;
  return i >= 0 && i < kAppCount ? kEnglish[i] : "";
}

const char* AnyEnglishTemplate(MsgId id) {
  return IsAppMsgId(id) ? AppEnglishTemplate((AppMsgId)(int)id) : EnglishTemplate(id);
}

Status AppError(AppMsgId id, std::vector<std::string> args) {
  return Status::Error(ToMsgId(id), AppEnglishTemplate(id), std::move(args));
}

Status AppPrefixed(AppMsgId id, std::vector<std::string> args, const Status& inner) {
  return Status::Prefixed(ToMsgId(id), AppEnglishTemplate(id), std::move(args), inner);
}

Status AppErrorAt(const std::string& where, AppMsgId id, std::vector<std::string> args) {
  return Status::Prefixed(MsgId::kPrefixContext, {where}, AppError(id, std::move(args)));
}

}  // namespace attnviz
