// attnviz-cli sweep: the "watch softmax saturate" table over d_k, scaled and unscaled.
#include <cstdio>

#include "cli_commands.h"
#include "i18n/help_ko.h"
#include "cli_util.h"
#include "io/file_io.h"
#include "i18n/localized.h"
#include "sandbox/sweep.h"
#include "options.h"
#if ATTNVIZ_HAVE_FIGURE
#include "figure/export.h"
#endif

namespace attnviz {
namespace {

const char* kSweepHelp =
    "usage: attnviz-cli sweep (--text TEXT | --text-file FILE [--line N] | --random-tokens N) [options]\n"
    "Runs the layer at d_k = 1, 2, 4 ... 4096, scaled and unscaled, averaged over seeds, and writes\n"
    "mean max weight, entropy, normalized entropy, effective keys, softmax-gradient size and logit std.\n"
    "  --out FILE.csv         write the table there (default: print it)\n"
    "  --plot FILE.png|.svg|.pdf  draw the saturation figure\n"
    "  --seeds N              seeds averaged per point, 1..64 (default 2, 1 above 1024 query rows:\n"
    "                         the app's sweep, StandardSweepOptions)\n"
    "  --dks LIST             comma-separated d_k values, each 1..4096 (default 1,2,4,...,4096)\n"
    "  --random-tokens N      use N distinct synthetic tokens instead of a text, 1..8192\n"
    "  --dk N                 marks that d_k in the plot, as the app marks its current d_k\n"
    "  (the sweep sets d_k and d_v itself and runs 2 heads per seed)\n";

}  // namespace

int RunSweep(const std::vector<std::string>& args) {
  InputOptions options;
  std::string out_path, plot_path;
  int seeds = 0;  // 0: the standard sweep's
  std::vector<int> d_ks;
  int random_tokens = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    Status error;
    if (ParseInputOption(args, &i, &options, &error)) {
      if (!error) return UsageError("sweep", Localized(error));
      continue;
    }
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s%s", HelpText(Help::kSweep, kSweepHelp),
                  HelpText(Help::kInputOptions, InputOptionsHelp().c_str()));
      return 0;
    }
    if (a == "--out" || a == "--plot" || a == "--seeds" || a == "--dks" || a == "--random-tokens") {
      auto v = TakeValue(args, &i);
      if (!v) return UsageError("sweep", Localized(v));
      if (a == "--out") out_path = ExpandHome(*v);
      else if (a == "--plot") plot_path = ExpandHome(*v);
      else if (a == "--seeds") {
        auto n = ParseIntValue(a, *v, 1, 64);
        if (!n) return UsageError("sweep", Localized(n));
        seeds = *n;
      } else if (a == "--random-tokens") {
        auto n = ParseIntValue(a, *v, 1, (int)kMaxTokens);
        if (!n) return UsageError("sweep", Localized(n));
        random_tokens = *n;
      } else {
        // Every item between commas is a number: "8," and ",8" are refused (getline dropped a trailing empty item).
        for (size_t begin = 0;;) {
          const size_t comma = v->find(',', begin);
          auto n = ParseIntValue(a, v->substr(begin, comma == std::string::npos ? std::string::npos : comma - begin), 1,
                                 kMaxHeadDim);
          if (!n) return UsageError("sweep", Localized(n));
          d_ks.push_back(*n);
          if (comma == std::string::npos) break;
          begin = comma + 1;
        }
      }
      continue;
    }
    return UsageError("sweep", Trf(Str::kCliUnknownOption, {CappedValue(a), "sweep"}));
  }
  if (Status s = RefuseModelFolder(options, "sweep"); !s) return UsageError("sweep", Localized(s));
  if (random_tokens > 0) {
    if (!options.text.empty() || !options.text_file.empty())
      return UsageError("sweep", Tr(Str::kCliRandomAndText));
    std::string text;
    for (int i = 0; i < random_tokens; ++i) text += (i ? " t" : "t") + std::to_string(i);
    options.text = text;
  }
  Pipeline pipeline;  // used for text resolution and validation
  if (Status s = PreparePipeline(options, &pipeline); !s) return UsageError("sweep", Localized(s));
  if (!plot_path.empty()) {
    std::string ext = FileExtension(plot_path);
    if (ext != ".png" && ext != ".svg" && ext != ".pdf")
      return UsageError("sweep", Trf(Str::kCliPlotExtension, {plot_path, ext}));
  }
  AttentionConfig base = pipeline.config();
  const std::vector<Token>& kv_tokens = pipeline.kv_tokens();
  const bool cross = base.mode == AttentionMode::kCross;
  SweepOptions sweep = StandardSweepOptions((cross ? pipeline.query_tokens() : kv_tokens).size());
  if (seeds > 0) sweep.n_seeds = seeds;
  sweep.d_ks = d_ks;
  auto points = SweepDk(pipeline.query_tokens(), kv_tokens, base, sweep);
  if (!points) return UsageError("sweep", Localized(points));
  const std::string csv = SweepToCsv(*points);
  if (out_path.empty()) {
    std::fputs(csv.c_str(), stdout);
  } else {
    if (Status s = WriteFileAtomic(out_path, csv); !s) return UsageError("sweep", Localized(s));
    std::printf("%s\n", Trf(Str::kCliWroteRows, {out_path, std::to_string(points->size())}).c_str());
  }
  if (!plot_path.empty()) {
#if ATTNVIZ_HAVE_FIGURE
    // --dk N given: marked, as the app marks its d_k: the width q and k really have (1 from word length or position,
    // whatever --dk says; none from one-hot, whose width is the vocabulary's).
    const int marked_d_k = options.config.d_k > 0 ? QueryKeyWidth(base) : 0;
    // The legend names the score (one line under a score never divided by sqrt(d_k)), in --lang's language.
    if (Status s = WriteSaturationPlot(plot_path, *points, LocalizedTitle(SweepTitle(base, (int)kv_tokens.size())),
                                       marked_d_k, LocalizedSaturationWords(base.score));
        !s)
      return UsageError("sweep", Localized(s));
    std::printf("%s\n", Trf(Str::kCliWrote, {plot_path}).c_str());
#else
    return UsageError("sweep", Tr(Str::kCliNoFigureLibrary));
#endif
  }
  return 0;
}

}  // namespace attnviz
