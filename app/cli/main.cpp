// attnviz-cli: the headless command line (links core, and the figure library for export).
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "cli_commands.h"
#include "passive_waits.h"
#include "i18n/help_ko.h"
#include "data_dir.h"
#include "i18n/localized.h"
#include "i18n/ui_strings.h"
#include "options.h"

namespace {
const char* kUsage =
    "usage: attnviz-cli COMMAND [options]\n"
    "commands:\n"
    "  compute   run one attention layer; print shapes and saturation; --dump DIR writes every tensor\n"
    "  sweep     saturation table over d_k (1..4096), scaled and unscaled, as CSV (and --plot)\n"
    "  export    heatmap figures (PNG, SVG) and data (CSV, NPY, JSON)\n"
    "  model     a trained model's attention (GPT-2, BERT, Llama family): tokens, per-layer maps, --dump, --figure\n"
    "'attnviz-cli COMMAND --help' shows the options of a command; a sentence file may be given as\n"
    "a plain argument ('attnviz-cli compute FILE' is 'attnviz-cli compute --text-file FILE').\n"
    "  --print-paths   print where the samples and the bundled model are read from\n"
    "  --version       print the version\n"
    "  --lang en|ko    the language of messages and figure titles (default: ko when LC_ALL, LC_MESSAGES or\n"
    "                  LANG starts with ko)\n";
}

namespace {
int RunCommand(const std::string& command, const std::vector<std::string>& args);
}

int main(int argc, char** argv) {
  attnviz::UsePassiveOpenMpWaits(argv);  // before any parallel region: waiting threads sleep, never spin
  if (argc < 2) {
    std::fputs(attnviz::HelpText(attnviz::Help::kUsage, kUsage), stderr);
    return 2;
  }
  // --lang en|ko anywhere (default: the locale): the language of the messages and figure titles. The scan steps
  // over every option's value as the commands will take it: `--text --lang` is the text "--lang", not --lang.
  std::vector<std::string> all(argv + 1, argv + argc);
  attnviz::Lang lang = attnviz::LangFromEnvironment();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] != "--lang") {
      if (attnviz::OptionTakesValue(all[i])) ++i;
      continue;
    }
    if (i + 1 >= all.size() || !attnviz::ParseLang(all[i + 1], &lang)) {
      std::fprintf(stderr, "attnviz-cli: --lang: '%s' is not a language: allowed en, ko\n",
                   i + 1 < all.size() ? attnviz::CappedValue(all[i + 1]).c_str() : "");
      return 2;
    }
    all.erase(all.begin() + (long)i, all.begin() + (long)i + 2);
    --i;
  }
  attnviz::SetLang(lang);
  if (all.empty()) {
    std::fputs(attnviz::HelpText(attnviz::Help::kUsage, kUsage), stderr);
    return 2;
  }
  const std::string command = all[0];
  std::vector<std::string> args(all.begin() + 1, all.end());
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(attnviz::HelpText(attnviz::Help::kUsage, kUsage), stdout);
    return 0;
  }
  if (std::string info = attnviz::InfoOptionText("attnviz-cli", command); !info.empty()) {
    std::fputs(info.c_str(), stdout);
    return 0;
  }
  // An allocation that fails despite the memory checks ends the command with a message, never an abort.
  try {
    return RunCommand(command, args);
  } catch (const std::bad_alloc&) {
    const attnviz::Status s = attnviz::Status::Error(attnviz::MsgId::kOutOfMemory, {"attnviz-cli " + command});
    std::fprintf(stderr, "attnviz-cli: %s\n", attnviz::Localized(s).c_str());
    return 2;
  }
}

namespace {
int RunCommand(const std::string& command, const std::vector<std::string>& args) {
  if (command == "compute") return attnviz::RunCompute(args);
  if (command == "sweep") return attnviz::RunSweep(args);
  if (command == "model") return attnviz::RunModelCommand(args);
#if ATTNVIZ_HAVE_FIGURE
  if (command == "export") return attnviz::RunExport(args);
#endif
  std::fprintf(stderr, "%s\n", attnviz::Trf(attnviz::Str::kCliSeeHelp, {attnviz::CappedValue(command)}).c_str());
  return 2;
}
}  // namespace
