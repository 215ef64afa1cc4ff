// Command-line options: the input is argv split on NUL bytes. The shared options (ParseInputOption, as every
// subcommand and the app loop over them), the text they resolve to, and the per-option value parsers the CLI
// uses for what is left (integers, reals, seeds, colormaps, layer lists).
#include "color/colormap.h"
#include "fuzz_util.h"
#include "model_folder.h"
#include "options.h"
#include "base/parse_number.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> args = fuzz::SplitOnNul(fuzz::AsText(data, size));
  InputOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const size_t before = i;
    Status error;
    if (ParseInputOption(args, &i, &options, &error)) {
      FUZZ_EXPECT(i >= before && i < args.size());
      if (!error.ok()) FUZZ_EXPECT(!error.message().empty());
      continue;
    }
    const std::string& a = args[i];
    // What the subcommands do with an argument the shared options leave: a value of some kind.
    if (auto n = ParseIntValue("--n", a, -1000, 1000); n) FUZZ_EXPECT(*n >= -1000 && *n <= 1000);
    if (auto x = ParseDoubleValue("--x", a, 1e-6, 1e6); x) FUZZ_EXPECT(*x >= 1e-6 && *x <= 1e6);
    (void)ParseUnsigned64(a);
    (void)ParseColormap(a);
    (void)ParseColorScale(a);
    if (auto layers = ParseLayerList(a, 12); layers) {
      for (int l : *layers) FUZZ_EXPECT(l >= 0 && l < 12);
    }
  }
  // Only texts given inline: --text-file would read whatever path the input names.
  if (options.text_file.empty() && !options.text.empty()) (void)ResolveInputText(options);
  return 0;
}
