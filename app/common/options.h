// The command-line options attnviz and attnviz-cli share: where the text comes from and the
// attention config. Each subcommand loops over argv, offers every argument to ParseInputOption
// first, and handles what is left itself.
#pragma once
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "sandbox/pipeline.h"
#include "base/status.h"

namespace attnviz {

struct InputOptions {
  std::string text;         // --text: the key/value sentence (and the queries in self mode)
  std::string text_file;    // --text-file: a sentence file
  int line = 0;             // --line N: 1-based line of the item in --text-file; 0 = first item
  std::string query_text;   // --query-text: cross mode, queries from this text
  std::string weights_dir;  // --weights DIR: wq.npy wk.npy wv.npy wo.npy
  std::string model_dir;    // a model folder (config.json inside), given as a positional DIR
  AttentionConfig config;
  bool d_k_set = false, d_v_set = false;
};

// If args[*i] is a shared option, consumes it (and its value, advancing *i) and returns true.
// A bad value sets *error ("--dk: 0 is out of range: allowed 1..4096").
// Positional arguments (not starting with '-') are shared options too, so `attnviz FILE` and
// `attnviz-cli compute FILE` open what they are given: a folder with config.json is a model folder
// (model_dir), anything else a sentence file (--text-file). --samples is --text-file with the sample
// sentences that come with the program (data_dir.h).
bool ParseInputOption(const std::vector<std::string>& args, size_t* i, InputOptions* options, Status* error);
// Help lines for the shared options.
std::string InputOptionsHelp();
// A regular file named *.gguf (any case) or starting with the GGUF magic: a model in one file (model_folder.h opens
// it; a positional one is the model, not a sentence file).
bool IsGgufFile(const std::string& path);
// The item the options name: --text (with --query-text), or the item on --line of --text-file (the
// first item without --line). Errors name the option or file:line. The CLI and the app both use it.
Result<SentenceItem> ResolveInputText(const InputOptions& options);
// Resolves the text (ResolveInputText), applies mode, loads --weights, and
// runs nothing yet. Errors name the option or the file:line.
Status PreparePipeline(const InputOptions& options, Pipeline* pipeline);

// Option values through the one strict number parser (parse_number.h); errors start with the option.
Result<int> ParseIntValue(const std::string& option, const std::string& value, int lo, int hi);
Result<double> ParseDoubleValue(const std::string& option, const std::string& value, double lo, double hi);
// Returns the value after args[*i] (advancing *i) or an error naming the option. The next argument is the
// value whatever it looks like: `--text --lang` is the text "--lang".
Result<std::string> TakeValue(const std::vector<std::string>& args, size_t* i);
// Whether `option` takes a value (TakeValue) in attnviz or in any attnviz-cli command. A pre-scan for a global
// option (--lang) steps over values with it, so it reads the arguments as the parsers will.
bool OptionTakesValue(const std::string& option);
// "~" and "~/x" become $HOME (or the passwd entry's home) and $HOME/x, "~user/x" that user's home;
// anything else, and a ~user that does not exist, is returned as it is. The shell does this for
// `--out ~/x`, but not for a quoted value or a path typed into the app's fields.
std::string ExpandHome(const std::string& path);
// TakeValue for an option that names a file or folder: ExpandHome applied.
Result<std::string> TakePathValue(const std::vector<std::string>& args, size_t* i);

}  // namespace attnviz
