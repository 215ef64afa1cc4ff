// attnviz-cli export: heatmap figures (PNG, SVG) and the weights as data (CSV, NPY, JSON).
#include <cstdio>

#include "cli_commands.h"
#include "cli_figure_options.h"
#include "i18n/help_ko.h"
#include "cli_util.h"
#include "color/colormap.h"
#include "figure/export.h"
#include "i18n/localized.h"
#include "options.h"
#include "sandbox/text.h"

namespace attnviz {
namespace {

const char* kExportHelp =
    "usage: attnviz-cli export (--text TEXT | --text-file FILE [--line N]) [options] --out FILE\n"
    "Runs one attention layer and writes a head's attention map as a figure or as data.\n"
    "Export:\n"
    "  --out FILE             output file; the format comes from its extension:\n"
    "                         .png .svg .pdf (figure), .csv .npy .json (weights)\n"
    "  --format F             png|svg|pdf|csv|npy|json, overriding the extension\n"
    "  --head N               the head to export, 0-based (default 0)\n"
    "  --heads all|LIST       every head, or a list with ranges (0,2,5  0-3,7): a grid of maps\n"
    "                         sharing one colorbar (figures), [heads, n_q, n_k] (npy), blocks (csv, json)\n"
    "                         (--heads N, a plain number, still sets the number of heads)\n"
    "  --colormap NAME        viridis|magma|cividis|gray|blue-white-red (default viridis)\n"
    "  --color-scale S        linear|log (log: log10 with a floor of 1e-4, so 0 maps to the low end)\n"
    "  --range fixed|auto     fixed: weights 0..1 (default); auto: min..max of the heads shown\n"
    "  --cell-size PX         pixels per cell, 1..400 (default: about 440 px per map)\n"
    "  --width PX             figure width in pixels instead of --cell-size\n"
    "  --size WxH             figure size with a unit: 3.3x3in, 8.4x7.6cm (each 0.5..40 in);\n"
    "                         the figure is exactly that many inches at --dpi\n"
    "  --dpi N                pixels per inch, 10..2400 (default 96): text is sized in points\n"
    "                         (9 pt labels), so it prints at the same size; PNG records it (pHYs)\n"
    "  --annotate             print the weight in each cell when the cells are large enough\n"
    "                         (masked cells stay empty)\n"
    "  --title TEXT           figure title (default e.g. 'head 2 · d_k=512 · unscaled · T=1 · causal':\n"
    "                         the mask and every setting that is not the default)\n";

}  // namespace

int RunExport(const std::vector<std::string>& args) {
  InputOptions input;
  HeatmapExportOptions options;
  bool head_set = false;
  std::string head_list;  // --heads all|LIST, checked against n_head once the config is known
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // "--heads all" and lists ("0,2,5", "0-3") are ours; "--heads N" (a number) is the shared head count.
    if (a == "--heads" && i + 1 < args.size() &&
        (args[i + 1] == "all" || args[i + 1].find_first_of(",-") != std::string::npos)) {
      if (auto syntax = ParseHeadList(args[i + 1], 0); !syntax) return UsageError("export", Localized(Status::Prefixed(MsgId::kPrefixContext, {"--heads"}, syntax.status())));
      options.all_heads = true;
      head_list = args[++i];
      continue;
    }
    Status error;
    if (ParseInputOption(args, &i, &input, &error)) {
      if (!error) return UsageError("export", Localized(error));
      continue;
    }
    if (a == "--help" || a == "-h") {
      std::printf("%s%s", HelpText(Help::kExport, kExportHelp),
                  HelpText(Help::kInputOptions, InputOptionsHelp().c_str()));
      return 0;
    }
    if (ParseFigureOption(args, &i, &options, &error)) {  // --colormap, --size, --title, ... (cli_figure_options.h)
      if (!error) return UsageError("export", Localized(error));
      continue;
    }
    if (a == "--out" || a == "--format" || a == "--head") {
      auto v = TakeValue(args, &i);
      if (!v) return UsageError("export", Localized(v));
      if (a == "--out") {
        options.out_path = ExpandHome(*v);
      } else if (a == "--format") {
        options.format = *v;
      } else if (a == "--head") {
        auto n = ParseIntValue(a, *v, 0, 1 << 30);  // against n_head once the config is known (its range named)
        if (!n) return UsageError("export", Localized(n));
        options.head = *n;
        head_set = true;
      }
      continue;
    }
    return UsageError("export", Trf(Str::kCliUnknownOption, {CappedValue(a), "export"}));
  }
  if (Status s = RefuseModelFolder(input, "export"); !s) return UsageError("export", Localized(s));
  if (options.out_path.empty()) return UsageError("export", Tr(Str::kCliNoOut));
  if (head_set && options.all_heads) return UsageError("export", Tr(Str::kCliHeadAndHeads));
  if (Status s = CheckFigureOptions(options); !s) return UsageError("export", Localized(s));
  // Check the format before computing anything.
  if (auto f = ResolveExportFormat(options); !f) return UsageError("export", Localized(f));

  Pipeline pipeline;
  if (Status s = PreparePipeline(input, &pipeline); !s) return UsageError("export", Localized(s));
  const int n_head = pipeline.config().n_head;
  if (!head_list.empty()) {
    auto heads = ParseHeadList(head_list, n_head);
    if (!heads) return UsageError("export", Localized(Status::Prefixed(MsgId::kPrefixContext, {"--heads"}, heads.status())));
    if (head_list != "all") options.heads = *heads;
  }
  if (!options.all_heads && options.head >= n_head)
    return UsageError("export", Trf(Str::kCliHeadOutOfRange, {std::to_string(options.head), std::to_string(n_head - 1),
                                                             std::to_string(n_head)}));
  if (Status s = pipeline.Run(Stage::kSoftmax); !s) return UsageError("export", Localized(s));
  if (options.title.empty()) options.title = LocalizedTitle(DefaultHeatmapTitle(pipeline.config(), options));
  options.words = LocalizedFigureWords();  // axes and legend in --lang's language, as the title
  ExportNotes notes;
  if (Status s = ExportHeatmap(pipeline.tensors(), pipeline.config(), options, nullptr, &notes); !s)
    return UsageError("export", Localized(s));
  std::printf("%s\n", Trf(Str::kCliWrote, {options.out_path}).c_str());
  PrintFigureNotes(notes);
  return 0;
}

}  // namespace attnviz
