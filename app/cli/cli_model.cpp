// attnviz-cli model: a real checkpoint's attention, layer by layer (GPT-2, BERT, Llama family).
//   attnviz-cli model --model DIR|FILE.gguf|tiny (--text TEXT | --text-file FILE [--line N]) [--tokens] [--dump OUT]
//                     [--roles [--json]] [--no-scale] [--no-softcap] [--temperature T] [--no-qk-norm]
//                     [--layers L1,L2,...]
//                     [--figure OUT.png|.svg|.pdf --layer L --head H [figure options]]
//                     [--predict K] [--ablate L:H,... [--ablate-mode zero|mean]] [--neuron L:H:I:J]
//                     [--token-loss] [--logit-lens K] [--kind K,...] [--rollout] [--value-norm] [--json]
//                     [--attribute POS[:TOKEN]] [--patch-from CLEAN --metric A,B]
// --dump streams attention.npy one layer at a time: a full map of every layer is never held. Head roles
// (core/model/roles.h) are scored layer by layer as the run goes. --figure keeps one layer's maps and draws one
// head as the app's Export does (app/common/model_figure.h). --logit-lens reads each layer's residual stream as
// the run passes it (core/model/lens.h), so no layer's stream is kept for it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "cli_commands.h"
#include "cli_model_preflight.h"
#include "cli_figure_options.h"
#include "cli_model_attrib.h"
#include "cli_neuron_text.h"
#include "i18n/help_ko.h"
#include "i18n/app_messages.h"
#include "i18n/localized.h"
#include "cli_util.h"
#include "figure/export.h"
#include "io/file_io.h"
#include "io/json.h"
#include "model/analysis.h"
#include "model/arch/family.h"
#include "model/lens.h"
#include "model/predict.h"
#include "model/roles.h"
#include "model/run.h"
#include "model/seq2seq.h"
#include "model_figure.h"
#include "model_folder.h"
#include "session/layer_collector.h"
#include "session/map_kind.h"
#include "io/npy.h"
#include "maps/pooled_map.h"
#include "options.h"
#include "base/check.h"
#include "base/memory_budget.h"
#include "base/parse_number.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

const char* kModelHelp =
    "usage: attnviz-cli model --model DIR|FILE.gguf|tiny (--text TEXT | --text-file FILE [--line N]) [options]\n"
    "Runs a trained model (a Hugging Face folder: config.json, model.safetensors, tokenizer files; or a .gguf\n"
    "file with its tokenizer) on the text and prints, per layer, each head's mean max attention and entropy.\n"
    "An encoder-decoder folder ({seq2seq_types}) takes its own options: attnviz-cli model --model DIR\n"
    "--help shows them.\n"
    "  --model DIR|FILE.gguf|tiny\n"
    "                         the model folder ({model_types}), or a .gguf file\n"
    "                         ({gguf_types}; F32, F16, BF16 or quantized); tiny = the bundled model\n"
    "  --text TEXT            the text\n"
    "  --text-file FILE       a sentence file; --line N picks the item on line N (default: the first)\n"
    "  --tokens               print {\"ids\": [...], \"tokens\": [...]} as JSON and exit\n"
    "  --roles                print every head's role scores instead of the summary, as CSV: layer, head,\n"
    "                         previous_token, induction, first_token, same_token, local, broad (each 0..1),\n"
    "                         strongest, strongest_score\n"
    "  --json                 with --roles: the table as JSON, with each role's one-sentence meaning;\n"
    "                         with --predict, --neuron, --ablate-scan, --token-loss or --logit-lens: their\n"
    "                         output as JSON\n"
    "  --dump OUT             write OUT/tokens.json, OUT/attention.npy [n_layer, n_head, n, n] (softmax\n"
    "                         probabilities) and OUT/hidden.npy [n_layer + 1, n, d_model] (the residual stream\n"
    "                         after the embeddings and after each block, before any final norm) and\n"
    "                         OUT/roles.csv (the --roles table)\n"
    "  --no-scale             what-if: drop the 1/sqrt(d_head) scaling\n"
    "  --no-softcap           what-if: drop the attention logits' soft cap (gemma2; the final logit cap stays)\n"
    "  --temperature T        what-if: divide the logits by T (1e-06..1e+06)\n"
    "  --no-qk-norm           what-if: skip the q/k norms (models with them: {qk_norm_types})\n"
    "  --layers L1,L2,...     the layers the what-ifs act on (default: all)\n"
    "  --ablate L:H,...       what-if: head H of layer L outputs zero (before the output projection; its bias\n"
    "                         kept); every later layer, the maps and the predictions follow\n"
    "  --ablate-mode zero|mean\n"
    "                         with --ablate: zero (the default) sets the head's output to zero; mean sets it at\n"
    "                         every position to its mean over the text's positions\n"
    "  --predict K            print the top K next tokens at every position (bert: at each [MASK]) and the\n"
    "                         text's mean next-token loss (nats) and perplexity; --json: as JSON\n"
    "  --token-loss           print the loss (nats) and probability of each actual next token, position by\n"
    "                         position (models that predict the next token; under a what-if, the what-if's)\n"
    "  --logit-lens K         the logit lens: the final norm and the LM head applied after every layer (0: the\n"
    "                         embeddings; the last: the model's own prediction), the top K tokens (1..vocab)\n"
    "                         per position and the probability of the actual next token (bert: the MLM head\n"
    "                         at every position, no next token)\n"
    "  --attribute POS[:TOKEN]\n"
    "                         direct logit attribution at position POS (from 0): how much the embeddings, each\n"
    "                         head, each attention bias, each MLP and the final norm's bias add to TOKEN's logit\n"
    "                         (a token's text or id; default: the next token, at the last position the top\n"
    "                         prediction), through the final norm frozen at the whole stream; gemma2: before\n"
    "                         its final soft cap. Pre-norm models only; --json: as JSON\n"
    "  --patch-from CLEAN     activation patching: the text is the corrupted run, CLEAN the clean one (as many\n"
    "                         tokens); each head's output and the residual stream entering each layer at each\n"
    "                         position patched from the clean run in turn; prints the share\n"
    "                         (patched - corrupted) / (clean - corrupted) of --metric; --json: as JSON\n"
    "  --metric A,B           with --patch-from: logit[A] - logit[B] at the last position (tokens' text or ids)\n"
    "  --ablate-scan          ablate each head once and print the loss it leaves, as CSV: layer, head, loss,\n"
    "                         delta (the loss minus the text's own); --json: as JSON\n"
    "  --scan-at POS,...      with --ablate-scan: the loss at these positions only (position i predicts token\n"
    "                         i + 1; 0..n-2), not the mean over the text\n"
    "  --neuron L:H:I:J       print how query token I meets key token J in head H of layer L: q, k (for RoPE\n"
    "                         models also before the rotation, for q/k-norm models before the norms), q*k\n"
    "                         per dimension, the score, scale, logit\n"
    "                         and probability; --json: as JSON\n"
    "  --kind K[,K...]        with --dump: also the maps of these kinds ({map_kinds}), one .npy each:\n"
    "                         rollout -> OUT/rollout.npy, value_weighted -> OUT/value_norm.npy (as below)\n"
    "  --rollout              with --dump: OUT/rollout.npy [n_layer, n, n], attention rollout (heads averaged,\n"
    "                         plus the identity, multiplied through the layers); above 1024 tokens pooled to\n"
    "                         [n_layer, nb, nb], blocks of f tokens, f and nb in OUT/rollout.json\n"
    "  --value-norm           with --dump: OUT/value_norm.npy [n_layer, n_head, n, n], each weight times the\n"
    "                         size of what the key's value adds (||v_j W_o^h||)\n"
    "  --figure OUT           write the heatmap of one head as OUT.png, OUT.svg or OUT.pdf, as the app's Export does;\n"
    "                         the title names the model, layer, head, mask (causal, causal with a sliding\n"
    "                         window, bidirectional) and the what-ifs\n"
    "  --layer L, --head H    with --figure (both needed): the layer and the head drawn, 0-based; a figure alone\n"
    "                         (no --dump, --roles or table) stops the run after layer L (the summary lists 0..L)\n"
    "  --pool F|auto          with --figure: draw F x F tokens as one cell (a long text on a page's column: 8000\n"
    "                         tokens at --pool 8 are 1000 cells a side); auto: the smallest F that fits the\n"
    "                         figure's size; the title says \"max-pooled 8x8\"\n"
    "  --pool-mode max|mean   with --pool: a cell is the largest weight of its block (max, the default: a lone\n"
    "                         spike stays visible) or their mean (masked cells counting 0)\n"
    "  --size WxH, --dpi N, --title TEXT, --colormap NAME, --color-scale S, --range fixed|auto,\n"
    "  --cell-size PX, --width PX, --annotate\n"
    "                         with --figure: as in attnviz-cli export --help\n";

struct ModelArgs {
  std::string model_dir, dump_dir, layers;
  bool layers_set = false;  // --layers given (an empty list is an error, not "all")
  InputOptions input;  // --text / --text-file / --line only
  bool tokens_only = false, no_scale = false, no_softcap = false, no_qk_norm = false, roles = false, json = false;
  double temperature = 1.0;
  bool temperature_set = false;
  // --figure OUT --layer L --head H and the figure options (-1: not given)
  HeatmapExportOptions figure;
  int figure_layer = -1, figure_head = -1;
  std::string first_figure_option;  // the first figure option given, named when --figure is missing
  PoolChoice pool;  // --pool F|auto, --pool-mode max|mean
  // What the model does with its attention (issue 23)
  int predict_k = 0;                    // --predict K (0: not given)
  std::string ablate;                   // --ablate L:H,...
  std::vector<model::AblatedHead> ablated;
  model::AblateMode ablate_mode = model::AblateMode::kZero;  // --ablate-mode zero|mean
  bool ablate_mode_set = false;
  bool neuron = false;                  // --neuron L:H:I:J
  int neuron_at[4] = {0, 0, 0, 0};
  // --dump --kind K[,K...] (and the older --rollout, --value-norm): the map kinds written beside attention.npy,
  // each once, in the registry's order (core/session/map_kind.h).
  std::vector<const MapKindInfo*> kinds;
  std::string first_kind_option;  // the first --kind or alias given, named when --dump is missing
  bool ablate_scan = false;             // --ablate-scan
  std::string scan_at;                  // --scan-at POS,... (checked against the tokens in CheckRun)
  bool scan_at_set = false;
  // Issue 41: the loss of each next token, the logit lens (core/model/lens.h)
  bool token_loss = false;              // --token-loss
  bool logit_lens = false;              // --logit-lens K
  int lens_k = 0;                       // checked against the vocabulary once the config is read
  // Issue 41: direct logit attribution, activation patching (cli_model_attrib.h)
  std::string attribute;                // --attribute POS[:TOKEN]
  bool attribute_set = false;
  std::string patch_from, metric;       // --patch-from CLEAN --metric A,B
  bool patch_set = false, metric_set = false;
};

// The kind an older flag stands for (--rollout, --value-norm); null for any other argument.
const MapKindInfo* KindOfAlias(const std::string& arg) {
  for (const MapKindInfo* k : MapKinds())
    if (*k->cli_alias && arg == k->cli_alias) return k;
  return nullptr;
}

void AddKind(ModelArgs* a, const MapKindInfo* kind, const std::string& option) {
  if (a->first_kind_option.empty()) a->first_kind_option = option;
  if (std::find(a->kinds.begin(), a->kinds.end(), kind) == a->kinds.end()) a->kinds.push_back(kind);
  std::sort(a->kinds.begin(), a->kinds.end(), [](const MapKindInfo* x, const MapKindInfo* y) { return x->kind < y->kind; });
}

// --kind attention,rollout: every name one of MapKinds() (attention is always written; naming it changes nothing).
Status AddKinds(ModelArgs* a, const std::string& list) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    const MapKindInfo* kind = MapKindNamed(name);
    if (!kind) return Status::Prefixed(MsgId::kPrefixContext, {"--kind"}, Status::Error(MsgId::kUnknownName, {"map kind", CappedValue(name), MapKindNames()}));
    if (kind->shows.derived) AddKind(a, kind, "--kind");
    start = end + 1;
  }
  return Status::Ok();
}

// --ablate L:H,...: every item, empty ones too ("0:1,").
Status ParseAblateList(const std::string& list, std::vector<model::AblatedHead>* heads) {
  heads->clear();
  for (size_t start = 0; start <= list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, end - start);
    int lh[2];
    if (item.find(':') == std::string::npos || !ParseColonInts(item, 2, lh))
      return AppError(AppMsgId::kAblateSpec, {CappedValue(item)});
    heads->push_back({lh[0], lh[1]});
    start = end + 1;
  }
  return Status::Ok();
}

// What the options say together: a model, --json with a table, one table at a time, --kind with --dump, the figure.
Status CheckArgs(const ModelArgs& args) {
  const ModelArgs* a = &args;
  if (a->model_dir.empty()) return AppError(AppMsgId::kModelRequired, {});
  if (a->json && !a->roles && !a->predict_k && !a->neuron && !a->ablate_scan && !a->token_loss && !a->logit_lens &&
      !a->attribute_set && !a->patch_set)
    return AppError(AppMsgId::kJsonNeedsRoles, {});
  if (a->ablate_mode_set && a->ablated.empty()) return AppError(AppMsgId::kAblateModeNeedsAblate, {});
  if (a->scan_at_set && !a->ablate_scan) return AppError(AppMsgId::kScanAtNeedsScan, {});
  {  // one table on stdout at a time
    std::vector<std::string> outputs;
    if (a->roles) outputs.push_back("--roles");
    if (a->predict_k) outputs.push_back("--predict");
    if (a->neuron) outputs.push_back("--neuron");
    if (a->ablate_scan) outputs.push_back("--ablate-scan");
    if (a->token_loss) outputs.push_back("--token-loss");
    if (a->logit_lens) outputs.push_back("--logit-lens");
    if (a->attribute_set) outputs.push_back("--attribute");
    if (a->patch_set) outputs.push_back("--patch-from");
    if (outputs.size() > 1) return AppError(AppMsgId::kOneOutputAtATime, {outputs[0], outputs[1]});
  }
  if (a->patch_set != a->metric_set) return AppError(AppMsgId::kPatchNeedsMetric, {});
  if ((a->attribute_set || a->patch_set) && (!a->ablated.empty() || a->no_scale || a->no_softcap || a->no_qk_norm ||
                                             a->temperature_set))
    return AppError(AppMsgId::kWhatIfWithAttribution, {a->attribute_set ? "--attribute" : "--patch-from"});
  if (!a->kinds.empty() && a->dump_dir.empty())
    return AppError(AppMsgId::kNeedsDump, {a->first_kind_option, a->kinds.front()->dump.file});
  if (a->figure.out_path.empty()) {
    if (!a->first_figure_option.empty()) return AppError(AppMsgId::kOptionNeedsFigure, {a->first_figure_option});
    return Status::Ok();
  }
  if (a->figure_layer < 0 || a->figure_head < 0) return AppError(AppMsgId::kFigureNeedsLayerHead, {});
  if (a->pool.mode_set && !a->pool.set) return AppError(AppMsgId::kPoolModeNeedsPool, {});
  const std::string ext = FileExtension(a->figure.out_path);
  if (ext.empty()) return AppError(AppMsgId::kFigureNoExtension, {a->figure.out_path});
  if (ext != ".png" && ext != ".svg" && ext != ".pdf") return AppError(AppMsgId::kFigureExtension, {a->figure.out_path, ext});
  return CheckFigureOptions(a->figure);
}

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
    else if (arg == "--no-softcap") a->no_softcap = true;
    else if (arg == "--no-qk-norm") a->no_qk_norm = true;
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
    } else if (arg == "--predict") {
      std::string v;
      st = take(&v);
      if (st.ok()) {
        auto k = ParseIntValue("--predict", v, 1, 1000);
        if (k) a->predict_k = *k;
        else st = k.status();
      }
    } else if (arg == "--ablate") {
      st = take(&a->ablate);
      if (st.ok()) st = ParseAblateList(a->ablate, &a->ablated);
    } else if (arg == "--ablate-mode") {
      std::string v;
      st = take(&v);
      if (st.ok()) {
        a->ablate_mode_set = true;
        auto mode = ParseAblateMode(v);
        if (mode) a->ablate_mode = *mode;
        else st = mode.status();
      }
    } else if (arg == "--attribute") {
      st = take(&a->attribute);
      a->attribute_set = true;
    } else if (arg == "--patch-from") {
      st = take(&a->patch_from);
      a->patch_set = true;
    } else if (arg == "--metric") {
      st = take(&a->metric);
      a->metric_set = true;
    } else if (arg == "--target-text" || arg == "--generate" || arg == "--stack") {
      st = AppError(AppMsgId::kSeq2SeqOnly, {arg, CappedValue(a->model_dir.empty() ? std::string("--model") : a->model_dir),
                                             model::SupportedSeq2SeqModelTypes()});
    } else if (arg == "--token-loss") a->token_loss = true;
    else if (arg == "--logit-lens") {
      std::string v;
      st = take(&v);
      if (st.ok()) {  // 0 and a k past the vocabulary are refused with the vocabulary's range (CheckRun)
        auto k = ParseIntValue("--logit-lens", v, 0, 1 << 30);
        if (k) a->lens_k = *k, a->logit_lens = true;
        else st = k.status();
      }
    } else if (arg == "--neuron") {
      std::string v;
      st = take(&v);
      if (st.ok() && !ParseColonInts(v, 4, a->neuron_at)) st = AppError(AppMsgId::kNeuronSpec, {CappedValue(v)});
      a->neuron = true;
    } else if (arg == "--ablate-scan") {
      a->ablate_scan = true;
    } else if (arg == "--scan-at") {
      st = take(&a->scan_at);
      a->scan_at_set = true;
    } else if (const MapKindInfo* alias = KindOfAlias(arg)) AddKind(a, alias, arg);
    else if (arg == "--kind") {
      std::string list;
      if (Status s = take(&list); !s) return s;
      if (Status s = AddKinds(a, list); !s) return s;
    }
    else if (arg == "--figure") {
      st = take_path(&a->figure.out_path);
    } else if (ParsePoolOption(args, &i, &a->pool, &st)) {
      if (a->first_figure_option.empty()) a->first_figure_option = arg;
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
                    : IsGgufFile(ExpandHome(arg))                   ? AppMsgId::kGgufFileNeedsOption
                                                                    : AppMsgId::kStrayArgument,
                    {CappedValue(arg), "model"});
    else st = Status::Error(Trf(Str::kCliUnknownOption, {CappedValue(arg), "model"}));
    if (!st.ok()) return st;
  }
  return *help ? Status::Ok() : CheckArgs(*a);
}


// {"ids": [...], "tokens": [pieces], "display": [...]}: what the model sees of the text.
std::string ModelTokensJson(const std::vector<tokenize::Token>& tokens) {
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

// The figure of one head of the kept layer (its maps as the collector kept them, or the head alone pooled f x f
// as the run passed it), through the app's own path (MakeModelHeadFigure), to options.out_path.
Status WriteModelFigure(const model::ModelConfig& c, LayerMaps maps, int n_tokens, int layer, int head,
                        const ModelWhatIfs& what_ifs, HeatmapExportOptions options, int pool = 1,
                        PoolKind pool_mode = PoolKind::kMax) {
  maps.metrics.clear();  // the figure draws the weights alone
  Result<ModelHeadFigure> figure =
      MakeModelHeadFigure(c, maps, n_tokens, layer, head, what_ifs, MapKind::kAttention, pool,
                          pool > 1 ? std::optional<PoolKind>(pool_mode) : std::nullopt);
  if (!figure) return figure.status();
  options.head = figure->head;
  if (options.title.empty()) options.title = LocalizedTitle(figure->title);
  options.words = LocalizedFigureWords();
  ExportNotes notes;
  Status written = ExportHeatmap(figure->maps, nullptr, options, nullptr, &notes);
  if (written) PrintFigureNotes(notes);
  return written;
}

// What attnviz-cli model writes of each layer as it passes (the collector's taps): the dump's hidden.npy and one
// .npy per map kind (attention.npy, and each --kind), streamed one layer at a time (a full map of every layer is
// never held), the neuron view of its layer, and the per-head summary line.
struct CliLayerTaps {
  const ModelArgs& a;
  const model::ModelConfig& config;
  NpyStreamWriter* hidden = nullptr;
  struct KindFile {
    const MapKindInfo* kind;
    NpyStreamWriter npy;
  };
  std::vector<std::unique_ptr<KindFile>> kinds;  // attention first, then the --kind ones
  model::NeuronView neuron;
  std::vector<std::string> lines;
  std::vector<float> scratch;  // a kind's buffer across layers

  Status OnLayer(const model::LayerOutput& out, const LayerAnalysis& analysis) {
    if (hidden)
      if (Status s = hidden->Append(out.hidden, (size_t)out.n * out.d_model); !s) return s;
    for (const std::unique_ptr<KindFile>& k : kinds)
      if (Status s = k->kind->dump.append(out, analysis, &k->npy, &scratch); !s) return s;
    if (a.neuron && out.layer == a.neuron_at[0])
      neuron = model::Neuron(config, out, a.neuron_at[1], a.neuron_at[2], a.neuron_at[3]);
    // Per head: the mean over rows of the row max, and of the row entropy (the attention pass's own row figures:
    // the same numbers the app shows).
    std::string line = std::string(Tr(Str::kLayer)) + " " + std::to_string(out.layer) + ":";  // 층 0: under --lang ko
    for (int h = 0; h < out.n_head; ++h) {
      const HeadMetrics& hm = (*out.metrics)[(size_t)h];
      char buf[64];
      std::snprintf(buf, sizeof buf, " h%d %.2f/%.2f", h, hm.max_weight, hm.entropy);
      line += buf;
    }
    lines.push_back(line);
    return Status::Ok();
  }
};

// A predicted id's piece as JSON: null for an id the tokenizer has no piece for (an LM head wider than the
// vocabulary: padded rows, gaps in the ids).
std::string PieceJson(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToPiece(id);
  return p ? JsonString(*p) : std::string("null");
}

// The text table's: what the id reads as, quoted and written as the app writes a token ("·Pluto", not the
// vocabulary's "\u0120Pluto"), or said to have none.
std::string PieceText(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToDisplay(id);
  return p ? "\"" + ShownText(*p) + "\"" : Trf(Str::kCliNoPiece, {std::to_string(id)});
}

std::string PredictionsJson(const model::Predictions& p, const std::vector<tokenize::Token>& tokens,
                            const tokenize::Tokenizer& tok) {
  std::string out = "{\"loss\": " + (p.has_loss ? JsonNumber(p.loss) : std::string("null")) +
                    ", \"perplexity\": " + (p.has_loss ? JsonNumber(p.perplexity) : std::string("null")) +
                    ", \"positions\": [";
  for (size_t i = 0; i < p.positions.size(); ++i) {
    const model::PositionTop& pos = p.positions[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"index\": " + std::to_string(pos.index) +
           ", \"token\": " + JsonString(tokens[(size_t)pos.index].piece) + ", \"top\": [";
    for (size_t t = 0; t < pos.top.size(); ++t)
      out += std::string(t ? ", " : "") + "{\"id\": " + std::to_string(pos.top[t].id) + ", \"token\": " +
             PieceJson(tok, pos.top[t].id) + ", \"prob\": " + JsonNumber(pos.top[t].prob) + "}";
    out += "]}";
  }
  return out + "]}\n";
}

std::string PredictionsText(const model::Predictions& p, const std::vector<tokenize::Token>& tokens,
                            const tokenize::Tokenizer& tok, int k) {
  char buf[96];
  std::string out;
  if (p.has_loss) {
    char loss[32], ppl[32];
    std::snprintf(loss, sizeof loss, "%.4f", p.loss);
    std::snprintf(ppl, sizeof ppl, "%.4g", p.perplexity);
    out += Trf(Str::kCliPredictLoss, {loss, std::to_string(tokens.size() - 1), ppl}) + "\n";
  } else if (p.next_token) {  // a causal model given one token
    out += Trf(Str::kCliPredictOneToken, {std::to_string(k)}) + "\n";
  } else {
    out += Trf(Str::kCliPredictMasked, {std::to_string(k)}) + "\n";
  }
  for (const model::PositionTop& pos : p.positions) {
    std::snprintf(buf, sizeof buf, "%4d ", pos.index);
    out += buf + ("\"" + ShownText(tokens[(size_t)pos.index].display) + "\"") + " ->";
    for (const model::TokenProb& t : pos.top) {
      std::snprintf(buf, sizeof buf, " %.4f", t.prob);
      out += " " + PieceText(tok, t.id) + buf;
    }
    out += "\n";
  }
  return out;
}

// --token-loss as JSON {"loss": mean, "positions": [{"index", "next_id", "next_token", "loss", "prob"}]} (next_token
// as --predict prints a token: its piece, null for an id without one) or as text, one position a line.
std::string TokenLossTable(const std::vector<model::TokenLoss>& losses, const std::vector<tokenize::Token>& tokens,
                           const tokenize::Tokenizer& tok, bool json) {
  double sum = 0;
  for (const model::TokenLoss& t : losses) sum += t.loss;
  const double mean = sum / (double)losses.size();
  char buf[96];
  std::string out = json ? "{\"loss\": " + JsonNumber(mean) + ", \"positions\": [" : "";
  if (!json) {
    char ppl[32];
    std::snprintf(buf, sizeof buf, "%.4f", mean);
    std::snprintf(ppl, sizeof ppl, "%.4g", std::exp(mean));
    out += Trf(Str::kCliPredictLoss, {buf, std::to_string(losses.size()), ppl}) + "\n";
  }
  for (size_t i = 0; i < losses.size(); ++i) {
    const model::TokenLoss& t = losses[i];
    if (json) {
      out += std::string(i ? ",\n  " : "\n  ") + "{\"index\": " + std::to_string(t.index) + ", \"next_id\": " +
             std::to_string(t.next_id) + ", \"next_token\": " + PieceJson(tok, t.next_id) + ", \"loss\": " +
             JsonNumber(t.loss) + ", \"prob\": " + JsonNumber(t.prob) + "}";
    } else {
      std::snprintf(buf, sizeof buf, "%4d ", t.index);
      out += buf + JsonString(tokens[(size_t)t.index].display) + " -> " + PieceText(tok, t.next_id);
      std::snprintf(buf, sizeof buf, "  loss %.4f  p %.4g\n", t.loss, t.prob);
      out += buf;
    }
  }
  return json ? out + "]}\n" : out;
}

// The scan as CSV (layer, head, loss, delta) or JSON {"base_loss", "heads": [{"layer", "head", "loss", "delta"}]}.
std::string AblationScanText(const model::AblationScan& scan, int n_head, bool json) {
  std::string at;
  for (int i : scan.loss_at) at += (at.empty() ? "" : ", ") + std::to_string(i);
  std::string out = json ? "{\"loss_at\": [" + at + "], \"base_loss\": " + JsonNumber(scan.base_loss) + ", \"heads\": ["
                         : "layer,head,loss,delta\n";
  for (size_t i = 0; i < scan.loss.size(); ++i) {
    const std::string l = std::to_string(i / n_head), h = std::to_string(i % n_head);
    const std::string loss = JsonNumber(scan.loss[i]), delta = JsonNumber(scan.loss[i] - scan.base_loss);
    if (json)
      out += std::string(i ? ",\n  " : "\n  ") + "{\"layer\": " + l + ", \"head\": " + h + ", \"loss\": " + loss +
             ", \"delta\": " + delta + "}";
    else
      out += l + "," + h + "," + loss + "," + delta + "\n";
  }
  return json ? out + "]}\n" : out;
}

// The bytes of --logit-lens's output per token it names: {"id": 12345, "token": "...", "prob": 0.123...}.
constexpr double kLensBytesPerToken = 80;

// The run the arguments ask for, checked before anything runs: the what-ifs on the layers --layers names (all when
// absent), where --predict predicts (bert: at its [MASK] tokens), --neuron, --token-loss and --logit-lens (a model
// that can give them, k in range, the lens's output within the memory limit), the kinds and the figure in range.
struct CheckedRun {
  ModelWhatIfs what_ifs;
  model::RunOptions options;
  std::vector<int> predict_at;
  std::vector<int> scan_at;  // --scan-at: positions 0..n-2
  int figure_pool = 1;       // --figure: tokens a side of a cell (--pool, auto resolved; 1: not pooled)
};

// The figure's options at pooling factor f, the title and words as the file will have them (MakeModelHeadFigure's
// title, in --lang's language): what the check before the run lays out.
HeatmapExportOptions FigureOptionsAt(const ModelArgs& a, const model::ModelConfig& c, int n, const ModelWhatIfs& w,
                                     int f) {
  HeatmapExportOptions o = a.figure;
  if (o.title.empty()) {
    const std::string heads = ModelFigureHeads(MapKind::kAttention, "head " + std::to_string(a.figure_head), f,
                                               f > 1 ? std::optional<PoolKind>(a.pool.mode) : std::nullopt);
    o.title = LocalizedTitle(ModelFigureTitle(c, n, a.figure_layer, heads, w));
  }
  o.words = LocalizedFigureWords();
  return o;
}

// The last layer the outputs asked for read: --figure of layer L alone (and --neuron's layer) needs no later one,
// so the run stops there; every other output (the dump, roles, predictions, losses, the lens, the scan) reads
// every layer (-1).
int LastLayerNeeded(const ModelArgs& a) {
  if (a.figure.out_path.empty() || !a.dump_dir.empty() || a.roles || a.predict_k || a.token_loss || a.logit_lens ||
      a.ablate_scan)
    return -1;
  return std::max(a.figure_layer, a.neuron ? a.neuron_at[0] : 0);
}

Result<CheckedRun> CheckRun(const ModelArgs& a, const ModelFolder& folder, const std::vector<tokenize::Token>& tokens) {
  const model::ModelConfig& c = folder.model->config();
  CheckedRun run;
  run.what_ifs.no_scale = a.no_scale;
  run.what_ifs.no_softcap = a.no_softcap;
  if (a.no_softcap && !(c.attn_softcap > 0))  // nothing to remove: refused, not a run that changes nothing
    return Status::Prefixed(MsgId::kPrefixContext, {"--no-softcap"},
                            Status::Error(MsgId::kNoSoftcapToRemove, {c.model_type}));
  run.what_ifs.no_qk_norm = a.no_qk_norm;
  if (a.no_qk_norm && c.recipe.qk_norm == model::BlockRecipe::QkNorm::kNone)
    return Status::Prefixed(MsgId::kPrefixContext, {"--no-qk-norm"},
                            Status::Error(MsgId::kNoQkNorms, {c.model_type, model::QkNormModelTypes()}));
  if (a.temperature_set) run.what_ifs.temperature = (float)a.temperature;
  if (a.layers_set) {
    auto parsed = ParseLayerList(a.layers, c.n_layer);
    if (!parsed) return Status::Prefixed(MsgId::kPrefixContext, {"--layers"}, parsed.status());
    if (parsed->empty()) return AppErrorAt("--layers", AppMsgId::kNoLayerGiven, {});
    // --layers limits the what-ifs; alone it would change nothing (checked after its range, which it names first).
    if (!a.no_scale && !a.no_softcap && !a.temperature_set && !a.no_qk_norm)
      return AppError(AppMsgId::kLayersNeedWhatIf, {});
    run.what_ifs.layers = *parsed;
  }
  run.options = WhatIfRunOptions(run.what_ifs, c.n_layer);
  run.options.row_figures = true;
  run.options.ablate = a.ablated;
  for (model::AblatedHead& h : run.options.ablate) h.mode = a.ablate_mode;
  if (a.predict_k) {
    if (!model::HasLmHead(*folder.model)) return Status::Error(MsgId::kNoLmHead, {c.model_type});
    if (!model::PredictsNextToken(c)) {
      run.predict_at = MaskPositions(tokens);
      if (run.predict_at.empty()) return AppError(AppMsgId::kPredictNeedsMask, {});
    }
    if (a.predict_k > c.vocab)
      return Status::Prefixed(MsgId::kPrefixContext, {"--predict"},
                              Status::Error(MsgId::kTopKRange, {std::to_string(a.predict_k), std::to_string(c.vocab)}));
  }
  if (a.token_loss) {  // the loss of each next token: a causal model with an LM head, and a next token
    if (!model::HasLmHead(*folder.model)) return Status::Error(MsgId::kNoLmHead, {c.model_type});
    if (!model::PredictsNextToken(c))
      return Status::Prefixed(MsgId::kPrefixContext, {"--token-loss"}, Status::Error(MsgId::kTokenLossMaskedLm, {c.model_type}));
    if (tokens.size() < 2)
      return Status::Prefixed(MsgId::kPrefixContext, {"--token-loss"},
                              Status::Error(MsgId::kTokenLossTooShort, {std::to_string(tokens.size())}));
  }
  if (a.logit_lens) {  // k in 1..vocab; its output (the text of (n_layer + 1) x n x k tokens) within the memory limit
    if (!model::HasLmHead(*folder.model)) return Status::Error(MsgId::kNoLmHead, {c.model_type});
    if (a.lens_k < 1 || a.lens_k > c.vocab)
      return Status::Prefixed(MsgId::kPrefixContext, {"--logit-lens"},
                              Status::Error(MsgId::kTopKRange, {std::to_string(a.lens_k), std::to_string(c.vocab)}));
    const double need = ((double)c.n_layer + 1) * (double)tokens.size() * ((double)a.lens_k + 1) * kLensBytesPerToken;
    if (need > (double)MemoryLimitBytes())
      return Status::Prefixed(MsgId::kPrefixContext, {"--logit-lens"},
                              Status::Error(MsgId::kAnalysisMemory, {"the top " + std::to_string(a.lens_k) +
                                                                     " of every layer", MemoryText(need),
                                                                     MemoryText((double)MemoryLimitBytes()),
                                                                     std::to_string(tokens.size())}));
  }
  if (a.scan_at_set) {  // positions 0..n-2 (the last token predicts nothing), checked before the scan's long run
    Result<std::vector<int>> at = ParseLayerList(a.scan_at, std::max(1, (int)tokens.size() - 1));
    if (!at) return Status::Prefixed(MsgId::kPrefixContext, {"--scan-at"}, at.status());
    run.scan_at = std::move(*at);
  }
  if (a.neuron)
    if (Status s = model::CheckNeuron(c, (int)tokens.size(), a.neuron_at[0], a.neuron_at[1], a.neuron_at[2], a.neuron_at[3]); !s)
      return Status::Prefixed(MsgId::kPrefixContext, {"--neuron"}, s);
  for (const MapKindInfo* kind : a.kinds)  // a kind the run cannot make is refused before anything runs
    if (Status s = kind->refusal((int)tokens.size()); !s) return s;
  if (!a.dump_dir.empty())
    if (Status s = CheckDumpRoom(a.dump_dir, c, a.kinds, (int)tokens.size()); !s) return s;
  const bool figure = !a.figure.out_path.empty();
  if (figure && a.figure_layer >= c.n_layer)
    return AppError(AppMsgId::kModelLayerOutOfRange, {"--layer", std::to_string(a.figure_layer),
                                                      std::to_string(c.n_layer - 1), std::to_string(c.n_layer)});
  if (figure && a.figure_head >= c.n_head)
    return AppError(AppMsgId::kModelHeadOutOfRange, {"--head", std::to_string(a.figure_head),
                                                     std::to_string(c.n_head - 1), std::to_string(c.n_head)});
  if (figure) {  // the figure laid out from the tokens before the run: refused now, with what fits, or its factor
    const int n = (int)tokens.size();
    if (a.pool.factor > n) return AppError(AppMsgId::kPoolPastTokens, {std::to_string(a.pool.factor), std::to_string(n)});
    const LayerMaps axes = ModelLayerMaps(c, TokenList(tokens), nullptr, a.figure_layer, run.options);
    Result<int> pool = CheckModelFigureFits(
        axes, a.pool.factor, [&](int f) { return FigureOptionsAt(a, c, n, run.what_ifs, f); });
    if (!pool) return pool.status();
    run.figure_pool = *pool;
  }
  run.options.last_layer = LastLayerNeeded(a);
  return run;
}

// --dump OUT: tokens.json now, and hidden.npy and one .npy per kind (attention first) opened for the taps.
Status OpenDump(const ModelArgs& a, const model::ModelConfig& c, const std::vector<tokenize::Token>& tokens,
                DumpFolder* dump, NpyStreamWriter* hidden, CliLayerTaps* taps) {
  const size_t n = tokens.size();
  if (Status s = dump->Begin(a.dump_dir); !s) return s;
  if (Status s = WriteFileAtomic(dump->Path("tokens.json"), ModelTokensJson(tokens)); !s) return s;
  if (Status s = hidden->Open(dump->Path("hidden.npy"), {(size_t)c.n_layer + 1, n, (size_t)c.d_model}); !s) return s;
  taps->hidden = hidden;
  std::vector<const MapKindInfo*> written = {&AttentionKind()};
  written.insert(written.end(), a.kinds.begin(), a.kinds.end());
  for (const MapKindInfo* kind : written) {
    taps->kinds.push_back(std::make_unique<CliLayerTaps::KindFile>());
    taps->kinds.back()->kind = kind;
    if (Status s = taps->kinds.back()->npy.Open(dump->Path(kind->dump.file), kind->dump.shape(c, (int)n)); !s) return s;
    if (*kind->dump.sidecar_file)
      if (Status s = WriteFileAtomic(dump->Path(kind->dump.sidecar_file), kind->dump.sidecar((int)n)); !s) return s;
  }
  return Status::Ok();
}

// The one collector (core/session), keeping nothing but the figure's layer (a pooled figure: not even that, its
// head is pooled as the layer passes, FigurePlane): the taps stream the rest out.
CollectPlan CliPlan(const ModelArgs& a, const model::ModelConfig& c, int n, int figure_pool,
                    model::RunOptions* options) {
  CollectPlan plan;
  plan.maps = CollectPlan::Maps::kNone;
  plan.keep_layer = a.figure.out_path.empty() || figure_pool > 1 ? -1 : a.figure_layer;
  plan.thumbnails = plan.neuron_qk = plan.resume_points = plan.rollout = plan.value_norms = false;
  plan.rollout_with_layers = true;
  double scratch_bytes = 0;
  for (const MapKindInfo* kind : a.kinds) {
    kind->collect(&plan);
    scratch_bytes = std::max(scratch_bytes, kind->dump.scratch_bytes(n));
  }
  const double pooled_side = figure_pool > 1 ? (double)PooledSide(n, figure_pool) : 0;
  options->caller_bytes = (size_t)(CollectedBytes(c, n, plan) + scratch_bytes + pooled_side * pooled_side * sizeof(float));
  return plan;
}

// A pooled figure's head of its layer as the run passes it, [1, nb, nb]: the map pooled f x f (maps/pooled_map.h),
// so no whole layer is kept for it.
SharedTensor FigurePlane(const model::LayerOutput& out, int head, int f, PoolKind mode) {
  ATTNVIZ_CHECK_SHAPE(out.probs && head < out.n_head, "the figure's layer ", out.layer, " has no map of head ", head);
  const int nb = PooledSide(out.n, f);
  auto plane = std::make_shared<Tensor>();
  plane->Resize({1, (size_t)nb, (size_t)nb});
  PoolMapPlane(out.probs + (size_t)head * out.n * out.n, out.n, out.n, f, mode, plane->data.data());
  return plane;
}

// What stdout holds instead of the summary: --predict, --neuron, --token-loss, --logit-lens (the layers the run's
// taps read) or --ablate-scan ("" for none).
Result<std::string> OutputTable(const ModelArgs& a, const ModelFolder& folder, const std::vector<tokenize::Token>& tokens,
                                const CheckedRun& run, const LayerCollector& collector, const CliLayerTaps& taps,
                                const std::string& lens) {
  const std::vector<int> ids = TokenIds(tokens);
  std::string table;
  if (a.predict_k) {
    auto pred = model::Predict(*folder.model, collector.last_hidden().data(), ids, a.predict_k, run.predict_at);
    if (!pred) return pred.status();
    const tokenize::Tokenizer& tok = *folder.tokenizer;
    table = a.json ? PredictionsJson(*pred, tokens, tok) : PredictionsText(*pred, tokens, tok, a.predict_k);
  }
  if (a.neuron) table = a.json ? NeuronJson(taps.neuron) : NeuronText(taps.neuron, tokens, tokens);
  if (a.token_loss) {  // from the run's last stream: under a what-if, the what-if's losses
    auto losses = model::TokenLosses(*folder.model, collector.last_hidden().data(), ids);
    if (!losses) return losses.status();
    table = TokenLossTable(*losses, tokens, *folder.tokenizer, a.json);
  }
  if (a.logit_lens) table = a.json ? "{\"layers\": [\n " + lens + "]}\n" : lens;
  if (a.ablate_scan) {
    model::RunOptions scan_options = run.options;
    scan_options.row_figures = false;
    scan_options.caller_bytes = 0;
    scan_options.last_layer = -1;
    auto scan = model::ScanHeadAblations(*folder.model, ids, scan_options, run.scan_at);
    if (!scan) return scan.status();
    table = AblationScanText(*scan, folder.model->config().n_head, a.json);
  }
  return table;
}

// The per-head summary: the model and its tokenizer in the UI language, as the app's Model panel says them.
void PrintSummary(const ModelFolder& f, size_t n, const CliLayerTaps& taps) {
  const std::string described = f.dir + ": " + LocalizedModelDescribe(f.model->config()) + " \xC2\xB7 " +
                                LocalizedTokenizerDescribe(f.tokenizer->Describe());
  std::printf("%s\n%s\n", described.c_str(), Trf(Str::kCliModelPerHead, {std::to_string(n)}).c_str());
  for (const std::string& line : taps.lines) std::printf("%s\n", line.c_str());
}

// roles.csv, then every .npy closed and the folder moved into place (a dump that fails leaves no files).
Status FinishDump(const model::HeadRoles& roles, DumpFolder* dump, NpyStreamWriter* hidden, CliLayerTaps* taps) {
  if (Status s = WriteFileAtomic(dump->Path("roles.csv"), model::HeadRolesCsv(roles)); !s) return s;
  if (Status s = hidden->Close(); !s) return s;
  for (const std::unique_ptr<CliLayerTaps::KindFile>& k : taps->kinds)
    if (Status s = k->npy.Close(); !s) return s;
  return dump->Commit();
}

// The command after --help and --tokens: 1. checks, 2. the dump's files, 3. the run through the collector and its
// taps, 4. stdout (roles, a table or the summary), the figure, the dump committed.
Status RunOnTokens(const ModelArgs& a, const ModelFolder& folder, const std::vector<tokenize::Token>& tokens) {
  const model::ModelConfig& c = folder.model->config();
  Result<CheckedRun> run = CheckRun(a, folder, tokens);  // 1.
  if (!run) return run.status();
  const size_t n = tokens.size();
  DumpFolder dump;  // 2.
  NpyStreamWriter hidden;
  const bool dumping = !a.dump_dir.empty(), figure = !a.figure.out_path.empty();
  CliLayerTaps taps{a, c};
  if (dumping)
    if (Status s = OpenDump(a, c, tokens, &dump, &hidden, &taps); !s) return s;
  LayerTaps layer_taps;  // 3.
  // --logit-lens: each residual stream read as it passes (hidden[0] from the embeddings, hidden[l + 1] after block
  // l), its output appended layer by layer; no stream is kept.
  const std::vector<int> ids = TokenIds(tokens);
  std::string lens;
  auto lens_at = [&](const float* h, int layer) -> Status {
    if (!a.logit_lens) return Status::Ok();
    auto read = model::LogitLensLayer(*folder.model, h, layer, ids, a.lens_k);
    if (!read) return read.status();
    lens += (a.json && layer ? ",\n " : "") + LensLayerTable(*read, tokens, *folder.tokenizer, a.json);
    return Status::Ok();
  };
  if (dumping || a.logit_lens)
    layer_taps.embeddings = [&](const float* h, int rows, int d) -> Status {
      if (dumping)
        if (Status s = hidden.Append(h, (size_t)rows * d); !s) return s;
      return lens_at(h, 0);
    };
  SharedTensor figure_plane;  // a pooled figure's head, [1, nb, nb]
  layer_taps.layer = [&](const model::LayerOutput& out, const LayerMaps&, const LayerAnalysis& analysis) -> Status {
    if (figure && run->figure_pool > 1 && out.layer == a.figure_layer)
      figure_plane = FigurePlane(out, a.figure_head, run->figure_pool, a.pool.mode);
    if (Status s = taps.OnLayer(out, analysis); !s) return s;
    return lens_at(out.hidden, out.layer + 1);
  };
  const CollectPlan plan = CliPlan(a, c, (int)n, run->figure_pool, &run->options);
  LayerCollector collector(*folder.model, run->options, tokens, plan, layer_taps);
  if (Status s = model::RunModel(*folder.model, ids, run->options, &collector); !s) return s;
  const model::HeadRoles& roles = collector.collected().roles;
  Result<std::string> table = OutputTable(a, folder, tokens, *run, collector, taps, lens);  // 4.
  if (!table) return table.status();
  if (figure) {
    const LayerMaps maps = run->figure_pool > 1
                               ? PooledAxes(ModelLayerMaps(c, TokenList(tokens), figure_plane, a.figure_layer, run->options),
                                            run->figure_pool)
                               : *collector.collected().layers[(size_t)a.figure_layer];
    if (Status s = WriteModelFigure(c, maps, (int)n, a.figure_layer, a.figure_head, run->what_ifs, a.figure,
                                    run->figure_pool, a.pool.mode);
        !s)
      return s;
  }
  const bool table_only = a.roles || !table->empty();  // stdout holds the table only, so it pipes into other tools
  if (a.roles) std::fputs((a.json ? model::HeadRolesJson(roles) : model::HeadRolesCsv(roles)).c_str(), stdout);
  else if (!table->empty()) std::fputs(table->c_str(), stdout);
  else PrintSummary(folder, n, taps);
  if (dumping) {
    if (Status s = FinishDump(roles, &dump, &hidden, &taps); !s) return s;
    std::fprintf(table_only ? stderr : stdout, "%s\n", Trf(Str::kCliDumpWritten, {a.dump_dir}).c_str());
  }
  if (figure) std::fprintf(table_only ? stderr : stdout, "%s\n", Trf(Str::kCliWrote, {a.figure.out_path}).c_str());
  return Status::Ok();
}

// The folder --model names when it is an encoder-decoder one (model::IsEncoderDecoderFolder), else "". The other
// options' values are stepped over as the parsers read them.
std::string EncoderDecoderFolder(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] != "--model") {
      if (OptionTakesValue(args[i])) ++i;
      continue;
    }
    if (i + 1 >= args.size()) return "";
    auto dir = ResolveModelDir(ExpandHome(args[i + 1]));
    return dir && model::IsEncoderDecoderFolder(*dir) ? *dir : "";
  }
  return "";
}

}  // namespace

int RunModelCommand(const std::vector<std::string>& args) {
  if (!EncoderDecoderFolder(args).empty()) return RunSeq2SeqCommand(args);
  ModelArgs a;
  bool help = false;
  if (Status s = ParseArgs(args, &a, &help); !s) return UsageError("model", Localized(s));
  if (help) {
    std::printf("%s", WithModelTypes(HelpText(Help::kModel, kModelHelp)).c_str());
    return 0;
  }
  Result<SentenceItem> item = ResolveInputText(a.input);
  if (!item) return UsageError("model", Localized(item));
  if (item->is_cross()) return UsageError("model", Localized(AppError(AppMsgId::kCrossNeedsSandbox, {})));
  auto model_dir = ResolveModelDir(a.model_dir);
  if (!model_dir) return UsageError("model", Localized(model_dir));
  auto folder = OpenModelFolder(*model_dir);
  if (!folder) return UsageError("model", Localized(folder));
  auto tokens = TokenizeForModel(**folder, item->kv_text);
  if (!tokens) return UsageError("model", Localized(tokens));
  if (a.tokens_only) {
    std::fputs(ModelTokensJson(*tokens).c_str(), stdout);
    return 0;
  }
  if (a.attribute_set || a.patch_set) {  // their own runs: the summary's run is not made
    auto out = a.attribute_set ? AttributionOutput(**folder, *tokens, a.attribute, a.json)
                               : PatchingOutput(**folder, *tokens, a.patch_from, a.metric, a.json);
    if (!out) return UsageError("model", Localized(out));
    std::fputs(out->c_str(), stdout);
    return 0;
  }
  if (Status s = RunOnTokens(a, **folder, *tokens); !s) return UsageError("model", Localized(s));
  return 0;
}

}  // namespace attnviz
