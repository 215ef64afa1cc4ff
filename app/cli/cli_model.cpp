// attnviz-cli model: a real checkpoint's attention, layer by layer (GPT-2, BERT, Llama family).
//   attnviz-cli model --model DIR|tiny (--text TEXT | --text-file FILE [--line N]) [--tokens] [--dump OUT]
//                     [--roles [--json]] [--no-scale] [--temperature T] [--layers L1,L2,...]
//                     [--figure OUT.png|.svg --layer L --head H [figure options]]
// --dump streams attention.npy one layer at a time: a full map of every layer is never held. Head roles
// (core/model/roles.h) are scored layer by layer as the run goes. --figure keeps one layer's maps and draws one
// head as the app's Export does (app/common/model_figure.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli_commands.h"
#include "cli_figure_options.h"
#include "i18n/help_ko.h"
#include "i18n/app_messages.h"
#include "i18n/localized.h"
#include "cli_util.h"
#include "figure/export.h"
#include "io/file_io.h"
#include "io/json.h"
#include "model/roles.h"
#include "model/run.h"
#include "model_figure.h"
#include "model_folder.h"
#include "io/npy.h"
#include "options.h"
#include "base/parse_number.h"

namespace attnviz {
namespace {

const char* kModelHelp =
    "usage: attnviz-cli model --model DIR|tiny (--text TEXT | --text-file FILE [--line N]) [options]\n"
    "Runs a trained model (a Hugging Face folder: config.json, model.safetensors, tokenizer files) on the text\n"
    "and prints, per layer, each head's mean max attention and entropy.\n"
    "  --model DIR|tiny       the model folder (gpt2, bert, llama, qwen2, mistral); tiny = the bundled model\n"
    "  --text TEXT            the text\n"
    "  --text-file FILE       a sentence file; --line N picks the item on line N (default: the first)\n"
    "  --tokens               print {\"ids\": [...], \"tokens\": [...]} as JSON and exit\n"
    "  --roles                print every head's role scores instead of the summary, as CSV: layer, head,\n"
    "                         previous_token, induction, first_token, same_token, local, broad (each 0..1),\n"
    "                         strongest, strongest_score\n"
    "  --json                 with --roles: the table as JSON, with each role's one-sentence meaning\n"
    "  --dump OUT             write OUT/tokens.json, OUT/attention.npy [n_layer, n_head, n, n] (softmax\n"
    "                         probabilities) and OUT/hidden.npy [n_layer + 1, n, d_model] (the residual stream\n"
    "                         after the embeddings and after each block, before any final norm) and\n"
    "                         OUT/roles.csv (the --roles table)\n"
    "  --no-scale             what-if: drop the 1/sqrt(d_head) scaling\n"
    "  --temperature T        what-if: divide the logits by T (1e-06..1e+06)\n"
    "  --layers L1,L2,...     the layers the what-ifs act on (default: all)\n"
    "  --figure OUT           write the heatmap of one head as OUT.png or OUT.svg, as the app's Export does;\n"
    "                         the title names the model, layer, head, mask (causal, causal with a sliding\n"
    "                         window, bidirectional) and the what-ifs\n"
    "  --layer L, --head H    with --figure (both needed): the layer and the head drawn, 0-based\n"
    "  --size WxH, --dpi N, --title TEXT, --colormap NAME, --color-scale S, --range fixed|auto,\n"
    "  --cell-size PX, --width PX, --annotate\n"
    "                         with --figure: as in attnviz-cli export --help\n";

struct ModelArgs {
  std::string model_dir, dump_dir, layers;
  bool layers_set = false;  // --layers given (an empty list is an error, not "all")
  InputOptions input;  // --text / --text-file / --line only
  bool tokens_only = false, no_scale = false, roles = false, json = false;
  double temperature = 1.0;
  bool temperature_set = false;
  // --figure OUT --layer L --head H and the figure options (-1: not given)
  HeatmapExportOptions figure;
  int figure_layer = -1, figure_head = -1;
  std::string first_figure_option;  // the first figure option given, named when --figure is missing
};

Status ParseArgs(const std::vector<std::string>& args, ModelArgs* a, bool* help) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto take = [&](std::string* out) -> Status {
      auto v = TakeValue(args, &i);
      if (!v) return v.status();
      *out = *v;
      return Status::Ok();
    };
    auto take_path = [&](std::string* out) -> Status {  // "~" expanded (options.h ExpandHome)
      auto v = TakePathValue(args, &i);
      if (!v) return v.status();
      *out = *v;
      return Status::Ok();
    };
    Status st;
    if (arg == "--help" || arg == "-h") *help = true;
    else if (arg == "--model") st = take_path(&a->model_dir);
    else if (arg == "--text") st = take(&a->input.text);
    else if (arg == "--text-file") st = take_path(&a->input.text_file);
    else if (arg == "--line") {
      std::string v;
      st = take(&v);
      if (st.ok()) {
        auto n = ParseIntValue("--line", v, 1, 1 << 30);
        if (n) a->input.line = *n;
        else st = n.status();
      }
    } else if (arg == "--dump") st = take_path(&a->dump_dir);
    else if (arg == "--tokens") a->tokens_only = true;
    else if (arg == "--roles") a->roles = true;
    else if (arg == "--json") a->json = true;
    else if (arg == "--no-scale") a->no_scale = true;
    else if (arg == "--temperature") {
      std::string v;
      st = take(&v);
      if (st.ok()) {
        auto t = ParseDoubleValue("--temperature", v, kMinTemperature, kMaxTemperature);
        if (t) a->temperature = *t, a->temperature_set = true;
        else st = t.status();
      }
    } else if (arg == "--layers") {
      st = take(&a->layers);
      a->layers_set = true;
    } else if (arg == "--figure") {
      st = take_path(&a->figure.out_path);
    } else if (arg == "--layer" || arg == "--head") {
      std::string v;
      st = take(&v);
      if (st.ok()) {  // the model's range is checked once its config is read
        auto n = ParseIntValue(arg, v, 0, 1 << 20);
        if (n) (arg == "--layer" ? a->figure_layer : a->figure_head) = *n;
        else st = n.status();
      }
      if (a->first_figure_option.empty()) a->first_figure_option = arg;
    } else if (ParseFigureOption(args, &i, &a->figure, &st)) {  // --size, --dpi, --title, ... as export's
      if (a->first_figure_option.empty()) a->first_figure_option = arg;
    }
    else if (!arg.empty() && arg[0] != '-')  // a plain argument: the text and the model are given by option
      st = AppError(IsRegularFile(ExpandHome(arg) + "/config.json") ? AppMsgId::kModelFolderNeedsOption
                                                                    : AppMsgId::kStrayArgument,
                    {CappedValue(arg), "model"});
    else st = Status::Error(Trf(Str::kCliUnknownOption, {arg, "model"}));
    if (!st.ok()) return st;
  }
  if (*help) return Status::Ok();
  if (a->model_dir.empty()) return AppError(AppMsgId::kModelRequired, {});
  if (a->json && !a->roles) return AppError(AppMsgId::kJsonNeedsRoles, {});
  if (a->figure.out_path.empty()) {
    if (!a->first_figure_option.empty()) return AppError(AppMsgId::kOptionNeedsFigure, {a->first_figure_option});
    return Status::Ok();
  }
  if (a->figure_layer < 0 || a->figure_head < 0) return AppError(AppMsgId::kFigureNeedsLayerHead, {});
  const std::string ext = FileExtension(a->figure.out_path);
  if (ext.empty()) return AppError(AppMsgId::kFigureNoExtension, {a->figure.out_path});
  if (ext != ".png" && ext != ".svg") return AppError(AppMsgId::kFigureExtension, {a->figure.out_path, ext});
  return CheckFigureOptions(a->figure);
}


std::string TokensJson(const std::vector<tokenize::Token>& tokens) {
  std::vector<std::string> pieces, display;
  std::string ids = "[";
  for (size_t i = 0; i < tokens.size(); ++i) {
    ids += (i ? ", " : "") + std::to_string(tokens[i].id);
    pieces.push_back(tokens[i].piece);
    display.push_back(tokens[i].display);
  }
  return "{\"ids\": " + ids + "], \"tokens\": " + JsonStringArray(pieces) + ", \"display\": " +
         JsonStringArray(display) + "}\n";
}

// Streams each layer's probs into attention.npy and its hidden state into hidden.npy, scores the layer's head
// roles, and keeps the per-layer summary the command prints.
class DumpSink : public model::LayerSink {
 public:
  DumpSink(NpyStreamWriter* attention, NpyStreamWriter* hidden, const std::vector<int>* ids, model::HeadRoles* roles)
      : attention_(attention), hidden_(hidden), ids_(ids), roles_(roles) {}
  Status OnEmbeddings(const float* hidden, int n, int d_model) override {
    return hidden_ ? hidden_->Append(hidden, (size_t)n * d_model) : Status::Ok();
  }
  Status OnLayer(const model::LayerOutput& out) override {
    const size_t plane = (size_t)out.n * out.n;
    if (attention_) {
      if (Status s = attention_->Append(out.probs, (size_t)out.n_head * plane); !s) return s;
    }
    if (hidden_) {
      if (Status s = hidden_->Append(out.hidden, (size_t)out.n * out.d_model); !s) return s;
    }
    if (Status s = model::ScoreLayer(out.probs, out.layer, out.n_head, out.n, *ids_, roles_); !s) return s;
    // Per head: the mean over rows of the row max, and of the row entropy (the attention pass's own row
    // figures, RunOptions::row_figures: the same numbers the app shows).
    if (!out.metrics) return Status::Error("layer " + std::to_string(out.layer) + " has no row figures");
    std::string line = "layer " + std::to_string(out.layer) + ":";
    for (int h = 0; h < out.n_head; ++h) {
      const HeadMetrics& hm = (*out.metrics)[(size_t)h];
      char buf[64];
      std::snprintf(buf, sizeof buf, " h%d %.2f/%.2f", h, hm.max_weight, hm.entropy);
      line += buf;
    }
    lines_.push_back(line);
    return Status::Ok();
  }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  NpyStreamWriter *attention_, *hidden_;
  const std::vector<int>* ids_;
  model::HeadRoles* roles_;
  std::vector<std::string> lines_;
};

// Passes the run on to `next` and keeps a copy of one layer's maps [n_head, n, n]: the figure's layer, and no
// other layer, is held after its turn.
class KeepLayerSink : public model::LayerSink {
 public:
  KeepLayerSink(model::LayerSink* next, int layer) : next_(next), layer_(layer) {}
  Status OnEmbeddings(const float* hidden, int n, int d_model) override {
    return next_->OnEmbeddings(hidden, n, d_model);
  }
  Status OnLayer(const model::LayerOutput& out) override {
    if (out.layer == layer_) {
      auto kept = std::make_shared<Tensor>();
      kept->Resize({(size_t)out.n_head, (size_t)out.n, (size_t)out.n});
      std::copy(out.probs, out.probs + kept->size(), kept->data.begin());
      kept_ = kept;
    }
    return next_->OnLayer(out);
  }
  const SharedTensor& kept() const { return kept_; }

 private:
  model::LayerSink* next_;
  int layer_;
  SharedTensor kept_;
};

// The figure of one head of the kept layer, through the app's own path (MakeModelHeadFigure), to options.out_path.
Status WriteModelFigure(const model::ModelConfig& c, const std::vector<tokenize::Token>& tokens, const SharedTensor& probs,
                        int layer, int head, const ModelWhatIfs& what_ifs, HeatmapExportOptions options) {
  Result<ModelHeadFigure> figure =
      MakeModelHeadFigure(c, ModelLayerMaps(c, tokens, probs, layer, WhatIfRunOptions(what_ifs, c.n_layer)),
                          (int)tokens.size(), layer, head, what_ifs);
  if (!figure) return figure.status();
  options.head = figure->head;
  if (options.title.empty()) options.title = LocalizedTitle(figure->title);
  options.words = LocalizedFigureWords();
  return ExportHeatmap(figure->maps, nullptr, options);
}

}  // namespace

int RunModelCommand(const std::vector<std::string>& args) {
  ModelArgs a;
  bool help = false;
  if (Status s = ParseArgs(args, &a, &help); !s) return UsageError("model", Localized(s));
  if (help) {
    std::printf("%s", HelpText(Help::kModel, kModelHelp));
    return 0;
  }
  Result<SentenceItem> item = ResolveInputText(a.input);
  if (!item) return UsageError("model", Localized(item));
  if (item->is_cross()) return UsageError("model", Localized(AppError(AppMsgId::kCrossNeedsSandbox, {})));
  auto model_dir = ResolveModelDir(a.model_dir);
  if (!model_dir) return UsageError("model", Localized(model_dir));
  auto folder = OpenModelFolder(*model_dir);
  if (!folder) return UsageError("model", Localized(folder));
  const model::ModelConfig& c = (*folder)->model->config();
  auto tokens = TokenizeForModel(**folder, item->kv_text);
  if (!tokens) return UsageError("model", Localized(tokens));
  if (a.tokens_only) {
    std::fputs(TokensJson(*tokens).c_str(), stdout);
    return 0;
  }

  // What-ifs on the layers --layers names (all when absent).
  ModelWhatIfs what_ifs;
  what_ifs.no_scale = a.no_scale;
  if (a.temperature_set) what_ifs.temperature = (float)a.temperature;
  if (a.layers_set) {
    auto parsed = ParseLayerList(a.layers, c.n_layer);
    if (!parsed) return UsageError("model", Localized(Status::Prefixed(MsgId::kPrefixContext, {"--layers"}, parsed.status())));
    if (parsed->empty()) return UsageError("model", Localized(AppErrorAt("--layers", AppMsgId::kNoLayerGiven, {})));
    what_ifs.layers = *parsed;
  }
  model::RunOptions options = WhatIfRunOptions(what_ifs, c.n_layer);
  options.row_figures = true;
  // --figure: the layer and head in the model's range, before anything runs.
  const bool figure = !a.figure.out_path.empty();
  if (figure && a.figure_layer >= c.n_layer)
    return UsageError("model", Localized(AppError(AppMsgId::kModelLayerOutOfRange,
                                                       {"--layer", std::to_string(a.figure_layer),
                                                        std::to_string(c.n_layer - 1), std::to_string(c.n_layer)})));
  if (figure && a.figure_head >= c.n_head)
    return UsageError("model", Localized(AppError(AppMsgId::kModelHeadOutOfRange,
                                                       {"--head", std::to_string(a.figure_head),
                                                        std::to_string(c.n_head - 1), std::to_string(c.n_head)})));

  const std::vector<int> ids = TokenIds(*tokens);
  const size_t n = ids.size();
  if (figure) options.caller_bytes = (size_t)c.n_head * n * n * sizeof(float);  // KeepLayerSink's copy
  DumpFolder dump;
  NpyStreamWriter attention, hidden;
  if (!a.dump_dir.empty()) {
    if (Status s = dump.Begin(a.dump_dir); !s) return UsageError("model", Localized(s));
    if (Status s = WriteFileAtomic(dump.Path("tokens.json"), TokensJson(*tokens)); !s) return UsageError("model", Localized(s));
    if (Status s = attention.Open(dump.Path("attention.npy"), {(size_t)c.n_layer, (size_t)c.n_head, n, n}); !s)
      return UsageError("model", Localized(s));
    if (Status s = hidden.Open(dump.Path("hidden.npy"), {(size_t)c.n_layer + 1, n, (size_t)c.d_model}); !s)
      return UsageError("model", Localized(s));
  }
  const bool dumping = !a.dump_dir.empty();
  model::HeadRoles roles = model::MakeHeadRoles(c.n_layer, c.n_head, ids);
  DumpSink sink(dumping ? &attention : nullptr, dumping ? &hidden : nullptr, &ids, &roles);
  KeepLayerSink keep(&sink, figure ? a.figure_layer : -1);
  if (Status s = model::RunModel(*(*folder)->model, ids, options, &keep); !s) return UsageError("model", Localized(s));
  if (figure) {
    if (Status s = WriteModelFigure(c, *tokens, keep.kept(), a.figure_layer, a.figure_head, what_ifs, a.figure); !s)
      return UsageError("model", Localized(s));
  }
  if (a.roles) {  // stdout holds the table only, so it pipes into other tools
    std::fputs((a.json ? model::HeadRolesJson(roles) : model::HeadRolesCsv(roles)).c_str(), stdout);
  } else {
    std::printf("%s\n%s\n", (*folder)->Describe().c_str(), Trf(Str::kCliModelPerHead, {std::to_string(n)}).c_str());
    for (const std::string& line : sink.lines()) std::printf("%s\n", line.c_str());
  }
  if (dumping) {
    if (Status s = WriteFileAtomic(dump.Path("roles.csv"), model::HeadRolesCsv(roles)); !s)
      return UsageError("model", Localized(s));
    if (Status s = attention.Close(); !s) return UsageError("model", Localized(s));
    if (Status s = hidden.Close(); !s) return UsageError("model", Localized(s));
    if (Status s = dump.Commit(); !s) return UsageError("model", Localized(s));
    std::fprintf(a.roles ? stderr : stdout, "%s\n", Trf(Str::kCliDumpWritten, {a.dump_dir}).c_str());
  }
  if (figure) std::fprintf(a.roles ? stderr : stdout, "%s\n", Trf(Str::kCliWrote, {a.figure.out_path}).c_str());
  return 0;
}

}  // namespace attnviz
