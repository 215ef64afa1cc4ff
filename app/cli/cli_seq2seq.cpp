// attnviz-cli model on an encoder-decoder folder (bart, mbart, marian, t5, mt5): the source text through the
// encoder, the target (given, or generated greedily) through the decoder, and the three kinds of maps:
//   encoder self-attention  [n_enc_layer, n_enc_head, n_src, n_src]
//   decoder self-attention  [n_dec_layer, n_dec_head, n_tgt, n_tgt]   (causal)
//   cross-attention         [n_dec_layer, n_dec_head, n_tgt, n_src]   (rows: target tokens, columns: source tokens)
// The decoder reads the decoder start token, then the target's ids as its tokenizer makes them without the
// end-of-sequence id it appends (transformers' shift_right of the labels); the labels are the target's ids.
// RunModelCommand (cli_model.cpp) hands a folder here when model::IsEncoderDecoderFolder says it is one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "attention/metrics.h"
#include "base/title_words.h"
#include "cli_commands.h"
#include "cli_figure_options.h"
#include "cli_model_preflight.h"  // CheckModelFigureFits, PooledAxes
#include "cli_seq2seq_analysis.h"
#include "cli_seq2seq_lens.h"
#include "cli_util.h"
#include "figure/export.h"
#include "i18n/app_messages.h"
#include "i18n/help_ko.h"
#include "i18n/localized.h"
#include "io/file_io.h"
#include "io/json.h"
#include "io/npy.h"
#include "maps/pooled_map.h"
#include "model/arch/family.h"
#include "model/seq2seq.h"
#include "model/seq2seq_run.h"
#include "model_folder.h"
#include "options.h"
#include "session/loaded_model.h"  // TokenIds, TokenOfId
#include "tokenize/seq2seq_tokenizers.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

using model::Seq2SeqStack;

const char* kSeq2SeqHelp =
    "usage: attnviz-cli model --model DIR --text SOURCE (--target-text TARGET | --generate N) [options]\n"
    "Runs an encoder-decoder model ({seq2seq_types}: a Hugging Face folder) on a source text and its\n"
    "target, and prints, per stack and layer, each head's mean max attention. The decoder reads the decoder start\n"
    "token, then the target's tokens without the end-of-sequence token (the labels: the target's tokens with it).\n"
    "  --model DIR|tiny-seq2seq\n"
    "                         the model folder; tiny-seq2seq = the bundled model (dates in English or Korean\n"
    "                         written as ISO 8601: --text \"the first of December 2026\" --generate 12)\n"
    "  --text SOURCE          the source text (the encoder's); --text-file FILE [--line N]: from a sentence file\n"
    "  --target-text TARGET   the target text (the decoder's), as its tokenizer makes it\n"
    "  --generate N           the target made by greedy decoding, at most N new tokens (stopping at the end of\n"
    "                         sequence); printed as text, with --json as {\"ids\", \"text\"}\n"
    "  --tokens               print {\"source\": {\"ids\", \"tokens\"}, \"target\": {\"ids\", \"tokens\"}} (the target as\n"
    "                         the decoder reads it, from the decoder start token) and exit\n"
    "  --dump OUT             write OUT/tokens.json, encoder_attention.npy [n_enc_layer, n_head, n_src, n_src],\n"
    "                         decoder_attention.npy [n_dec_layer, n_head, n_tgt, n_tgt], cross_attention.npy\n"
    "                         [n_dec_layer, n_head, n_tgt, n_src], encoder_hidden.npy [n_enc_layer + 1, n_src,\n"
    "                         d_model], decoder_hidden.npy [n_dec_layer + 1, n_tgt, d_model] (before final norms)\n"
    "  --rollout              with --dump: OUT/encoder_rollout.npy [n_enc_layer, n_src, n_src] and\n"
    "                         OUT/decoder_rollout.npy [n_dec_layer, n_tgt, n_tgt], attention rollout (heads\n"
    "                         averaged, plus the identity, multiplied through the layers); none for\n"
    "                         cross-attention, whose rows and columns are different tokens\n"
    "  --value-norm           with --dump: OUT/encoder_value_norm.npy, decoder_value_norm.npy,\n"
    "                         cross_value_norm.npy (shaped as the attention files), each weight times the size of\n"
    "                         what the key's value adds (||v_j W_o^h||; cross: v from the encoder output)\n"
    "  --neuron L:H:I:J       with --stack S: how query token I meets key token J in head H of layer L of stack S\n"
    "                         (cross: I a target token, J a source token): q, k, q*k per dimension, the score,\n"
    "                         scale, position bias (t5), logit and probability; --json: as JSON\n"
    "  --ablate-scan          ablate each head of each stack once and print the loss of the labels it leaves, as\n"
    "                         CSV: stack, layer, head, loss, delta (the loss minus the target's own); --json: as\n"
    "                         JSON\n"
    "  --scan-at POS,...      with --ablate-scan: the loss at these decoder positions only (position i predicts\n"
    "                         label i; 0..n_tgt-1), not the mean over the target\n"
    "  --predict K            the top K tokens at every decoder position and the mean loss of the labels (nats);\n"
    "                         --json: as JSON\n"
    "  --token-loss           the loss (nats) and probability of each label, decoder position by position\n"
    "  --logit-lens K         the logit lens on the decoder: the final norm and the LM head applied to the decoder's\n"
    "                         stream after every layer (0: the embeddings; the last: the model's own predictions):\n"
    "                         the top K tokens and the probability of the label at each decoder position\n"
    "  --attribute POS[:TOKEN]\n"
    "                         direct logit attribution at decoder position POS: how much the embeddings, each\n"
    "                         decoder self-attention and cross-attention head, the output biases, each MLP and the\n"
    "                         final norm's bias add to TOKEN's logit (default: the label there); pre-norm models only\n"
    "  --patch-from CLEAN     activation patching: --text is the corrupted source, CLEAN the clean one (as many\n"
    "                         tokens), the same target; each head of each stack and each residual position of both\n"
    "                         streams patched from the clean run in turn; prints the share\n"
    "                         (patched - corrupted) / (clean - corrupted) of --metric\n"
    "  --metric A,B           with --patch-from: logit[A] - logit[B] at the last decoder position (target tokens'\n"
    "                         text or ids)\n"
    "  --json                 with --predict, --token-loss, --generate, --neuron, --ablate-scan, --logit-lens,\n"
    "                         --attribute or --patch-from: as JSON\n"
    "  --ablate S:L:H,...     what-if: head H of layer L of stack S (encoder, decoder or cross) outputs zero\n"
    "                         before the output projection; every later layer and the predictions follow\n"
    "  --ablate-mode zero|mean\n"
    "                         with --ablate or --ablate-scan: zero (the default), or the head's mean over the\n"
    "                         positions\n"
    "  --figure OUT           write one head's map as OUT.png, OUT.svg or OUT.pdf; the title names the stack\n"
    "  --stack S, --layer L, --head H\n"
    "                         with --figure (all needed): encoder, decoder or cross; the layer and head, 0-based;\n"
    "                         --stack also with --neuron\n"
    "  --size WxH, --dpi N, --title TEXT, --colormap NAME, --color-scale S, --range fixed|auto,\n"
    "  --cell-size PX, --width PX, --annotate\n"
    "                         with --figure: as in attnviz-cli export --help\n"
    "  --pool F|auto, --pool-mode max|mean\n"
    "                         with --figure: F x F tokens as one cell, as in attnviz-cli model --help (a long\n"
    "                         source on a page's column); auto: the smallest F that fits\n";

struct Seq2SeqArgs {
  std::string model_dir, dump_dir, target_text;
  InputOptions input;
  bool target_set = false, tokens_only = false, json = false, token_loss = false;
  int generate = 0;  // --generate N (0: not given)
  int predict_k = 0;
  std::vector<model::Seq2SeqAblatedHead> ablated;
  model::AblateMode ablate_mode = model::AblateMode::kZero;
  bool ablate_mode_set = false;
  HeatmapExportOptions figure;
  PoolChoice pool;  // --pool F|auto, --pool-mode max|mean
  std::string first_figure_option;
  int stack = -1, layer = -1, head = -1;  // --stack, --layer, --head (-1: not given)
  Seq2SeqAnalysisOptions analysis;        // --neuron, --rollout, --value-norm, --ablate-scan, --scan-at
  Seq2SeqLensOptions lens;                // --logit-lens, --attribute, --patch-from, --metric
};

Result<Seq2SeqStack> ParseStack(const std::string& name) {
  for (Seq2SeqStack s : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder, Seq2SeqStack::kCross})
    if (name == model::Seq2SeqStackName(s)) return s;
  return Status::Error(MsgId::kUnknownName, {"stack", CappedValue(name), "encoder, decoder, cross"});
}

// --ablate encoder:0:1,cross:1:0
Status ParseSeq2SeqAblate(const std::string& list, std::vector<model::Seq2SeqAblatedHead>* heads) {
  heads->clear();
  for (size_t start = 0; start <= list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    const std::string item = list.substr(start, end - start);
    const size_t c1 = item.find(':'), c2 = c1 == std::string::npos ? c1 : item.find(':', c1 + 1);
    if (c2 == std::string::npos) return AppError(AppMsgId::kSeq2SeqAblateSpec, {CappedValue(item)});
    auto stack = ParseStack(item.substr(0, c1));
    auto layer = ParseIntValue("", item.substr(c1 + 1, c2 - c1 - 1), 0, 1 << 20);
    auto head = ParseIntValue("", item.substr(c2 + 1), 0, 1 << 20);
    if (!stack || !layer || !head) return AppError(AppMsgId::kSeq2SeqAblateSpec, {CappedValue(item)});
    heads->push_back({*stack, *layer, *head});
    start = end + 1;
  }
  return Status::Ok();
}

Status ParseSeq2SeqArgs(const std::vector<std::string>& args, Seq2SeqArgs* a, bool* help) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto take = [&](std::string* out) -> Status {
      auto v = TakeValue(args, &i);
      if (!v) return v.status();
      *out = *v;
      return Status::Ok();
    };
    auto take_int = [&](const char* option, int lo, int hi, int* out) -> Status {
      std::string v;
      if (Status s = take(&v); !s) return s;
      auto n = ParseIntValue(option, v, lo, hi);
      if (!n) return n.status();
      *out = *n;
      return Status::Ok();
    };
    Status st;
    if (arg == "--help" || arg == "-h") *help = true;
    else if (arg == "--model") {
      auto v = TakePathValue(args, &i);
      if (v) a->model_dir = *v;
      else st = v.status();
    } else if (arg == "--text") st = take(&a->input.text);
    else if (arg == "--text-file") {
      auto v = TakePathValue(args, &i);
      if (v) a->input.text_file = *v;
      else st = v.status();
    } else if (arg == "--line") st = take_int("--line", 1, 1 << 30, &a->input.line);
    else if (arg == "--target-text") {
      st = take(&a->target_text);
      a->target_set = true;
    } else if (arg == "--generate") st = take_int("--generate", 1, 4096, &a->generate);
    else if (arg == "--tokens") a->tokens_only = true;
    else if (arg == "--json") a->json = true;
    else if (arg == "--token-loss") a->token_loss = true;
    else if (arg == "--predict") st = take_int("--predict", 1, 1000, &a->predict_k);
    else if (arg == "--dump") {
      auto v = TakePathValue(args, &i);
      if (v) a->dump_dir = *v;
      else st = v.status();
    } else if (arg == "--ablate") {
      std::string v;
      st = take(&v);
      if (st.ok()) st = ParseSeq2SeqAblate(v, &a->ablated);
    } else if (arg == "--ablate-mode") {
      std::string v;
      st = take(&v);
      if (st.ok()) {
        a->ablate_mode_set = true;
        auto mode = ParseAblateMode(v);
        if (mode) a->ablate_mode = *mode;
        else st = mode.status();
      }
    } else if (arg == "--figure") {
      auto v = TakePathValue(args, &i);
      if (v) a->figure.out_path = *v;
      else st = v.status();
    } else if (arg == "--stack") {
      std::string v;
      st = take(&v);
      if (st.ok()) {
        auto s = ParseStack(v);
        if (s) a->stack = (int)*s;
        else st = Status::Prefixed(MsgId::kPrefixContext, {"--stack"}, s.status());
      }
    } else if (arg == "--layer" || arg == "--head") {
      st = take_int(arg.c_str(), 0, 1 << 20, arg == "--layer" ? &a->layer : &a->head);
      if (a->first_figure_option.empty()) a->first_figure_option = arg;
    } else if (ParseFigureOption(args, &i, &a->figure, &st) || ParsePoolOption(args, &i, &a->pool, &st)) {
      if (a->first_figure_option.empty()) a->first_figure_option = arg;
    } else if (ParseSeq2SeqAnalysisOption(args, &i, &a->analysis, &st)) {
    } else if (ParseSeq2SeqLensOption(args, &i, &a->lens, &st)) {
    } else if (!arg.empty() && arg[0] == '-' && OptionTakesValue(arg)) {
      // An option of the decoder-only models' (--roles, --kind, ...): not built for encoder-decoder ones.
      st = AppError(AppMsgId::kSeq2SeqOptionUnbuilt, {arg});
    } else if (arg == "--roles" || arg == "--no-scale" || arg == "--no-softcap" || arg == "--no-qk-norm") {
      st = AppError(AppMsgId::kSeq2SeqOptionUnbuilt, {arg});
    } else if (!arg.empty() && arg[0] != '-') {
      st = AppError(AppMsgId::kStrayArgument, {CappedValue(arg), "model"});
    } else {
      st = Status::Error(Trf(Str::kCliUnknownOption, {CappedValue(arg), "model"}));
    }
    if (!st.ok()) return st;
  }
  if (*help) return Status::Ok();
  if (a->target_set && a->generate) return AppError(AppMsgId::kSeq2SeqTargetOrGenerate, {});
  if (!a->target_set && !a->generate) return AppError(AppMsgId::kSeq2SeqNeedsTarget, {a->model_dir});
  const Seq2SeqAnalysisOptions& an = a->analysis;
  if (a->ablate_mode_set && a->ablated.empty() && !an.ablate_scan)
    return AppError(AppMsgId::kAblateModeNeedsAblate, {});
  if (a->pool.mode_set && !a->pool.set) return AppError(AppMsgId::kPoolModeNeedsPool, {});
  {  // one table on stdout at a time
    std::vector<const char*> outputs;
    if (a->predict_k) outputs.push_back("--predict");
    if (a->token_loss) outputs.push_back("--token-loss");
    if (an.neuron) outputs.push_back("--neuron");
    if (an.ablate_scan) outputs.push_back("--ablate-scan");
    if (a->lens.Any()) outputs.push_back(a->lens.Name());
    if (outputs.size() > 1) return AppError(AppMsgId::kOneOutputAtATime, {outputs[0], outputs[1]});
  }
  if (a->json && !a->predict_k && !a->token_loss && !a->generate && !an.neuron && !an.ablate_scan && !a->lens.Any())
    return AppError(AppMsgId::kJsonNeedsRoles, {});
  if (Status s = CheckSeq2SeqLensOptions(a->lens, !a->ablated.empty()); !s) return s;
  if (Status s = CheckSeq2SeqAnalysisOptions(an, !a->dump_dir.empty(), a->stack); !s) return s;
  for (model::Seq2SeqAblatedHead& h : a->ablated) h.mode = a->ablate_mode;
  if (a->figure.out_path.empty()) {
    if (!a->first_figure_option.empty()) return AppError(AppMsgId::kOptionNeedsFigure, {a->first_figure_option});
    if (a->stack >= 0 && !an.neuron) return AppError(AppMsgId::kOptionNeedsFigure, {"--stack"});
    return Status::Ok();
  }
  if (a->stack < 0 || a->layer < 0 || a->head < 0) return AppError(AppMsgId::kSeq2SeqFigureNeedsStack, {});
  const std::string ext = FileExtension(a->figure.out_path);
  if (ext.empty()) return AppError(AppMsgId::kFigureNoExtension, {a->figure.out_path});
  if (ext != ".png" && ext != ".svg" && ext != ".pdf") return AppError(AppMsgId::kFigureExtension, {a->figure.out_path, ext});
  return CheckFigureOptions(a->figure);
}

// {"ids": [...], "tokens": [pieces]}
std::string SideJson(const std::vector<Token>& tokens) {
  std::vector<std::string> pieces;
  std::string ids = "[";
  for (size_t i = 0; i < tokens.size(); ++i) {
    ids += (i ? ", " : "") + std::to_string(tokens[i].id);
    pieces.push_back(tokens[i].piece);
  }
  return "{\"ids\": " + ids + "], \"tokens\": " + JsonStringArray(pieces) + "}";
}

std::string TokensJson(const std::vector<Token>& source, const std::vector<Token>& target) {
  return "{\"source\": " + SideJson(source) + ", \"target\": " + SideJson(target) + "}\n";
}

// What the run reads: the source tokens, the decoder's tokens (from the start token) and the labels.
struct Seq2SeqInput {
  std::vector<Token> source, decoder;
  std::vector<int> labels;  // [n_tgt]
  std::vector<int> generated;  // --generate: the new ids (ending with eos when it stopped there)
  bool generated_set = false;
};

Status CheckRanges(const Seq2SeqArgs& a, const model::Seq2SeqConfig& c) {
  auto check = [](const char* what, int v, int n) -> Status {
    if (v < n) return Status::Ok();
    return Status::Error(MsgId::kOutOfRange, {what, std::to_string(v), "0", std::to_string(n - 1)});
  };
  for (const model::Seq2SeqAblatedHead& h : a.ablated) {
    const model::Seq2SeqStackConfig& s = c.Stack(h.stack);
    if (Status st = check("--ablate layer", h.layer, s.n_layer); !st) return st;
    if (Status st = check("--ablate head", h.head, s.n_head); !st) return st;
  }
  if (a.stack >= 0) {
    const model::Seq2SeqStackConfig& s = c.Stack((Seq2SeqStack)a.stack);
    if (Status st = check("--layer", a.layer, s.n_layer); !st) return st;
    if (Status st = check("--head", a.head, s.n_head); !st) return st;
  }
  if (a.predict_k > c.decoder_vocab)
    return Status::Error(MsgId::kTopKRange, {std::to_string(a.predict_k), std::to_string(c.decoder_vocab)});
  return Status::Ok();
}

Result<Seq2SeqInput> PrepareInput(const Seq2SeqArgs& a, const std::string& source_text, const model::Seq2SeqModel& m,
                                  const tokenize::Seq2SeqTokenizers& tok) {
  const model::Seq2SeqConfig& c = m.config();
  Seq2SeqInput in;
  auto source = tok.source->Encode(source_text);
  if (!source) return Status::Prefixed(MsgId::kPrefixContext, {"--text"}, source.status());
  in.source = *source;
  if (in.source.empty()) return AppError(AppMsgId::kSeq2SeqEmptySide, {"--text"});
  if (a.generate) {
    model::GreedyOptions g;
    g.max_new_tokens = a.generate;
    g.run.ablate = a.ablated;
    auto result = model::GreedyGenerate(m, TokenIds(in.source), g);
    if (!result) return result.status();
    in.generated = result->ids;
    in.generated_set = true;
    in.labels = result->ids;
  } else {
    auto target = tok.target->Encode(a.target_text);
    if (!target) return Status::Prefixed(MsgId::kPrefixContext, {"--target-text"}, target.status());
    in.labels = TokenIds(*target);
  }
  if (in.labels.empty()) return AppError(AppMsgId::kSeq2SeqEmptySide, {"--target-text"});
  // shift_right: the start token, then every label but the last (the end of sequence the decoder never reads).
  in.decoder.push_back(TokenOfId(*tok.target, c.decoder_start_id));
  for (size_t i = 0; i + 1 < in.labels.size(); ++i) in.decoder.push_back(TokenOfId(*tok.target, in.labels[i]));
  if (!a.generate) {  // the target's own tokens (their spans in the target text) where the tokenizer made them
    auto target = tok.target->Encode(a.target_text);
    for (size_t i = 0; target && i + 1 < target->size(); ++i) in.decoder[i + 1] = (*target)[i];
  }
  return in;
}

const char* StackWords(Seq2SeqStack s) {
  return s == Seq2SeqStack::kEncoder ? Tr(Str::kSeq2SeqEncoderAttention)
         : s == Seq2SeqStack::kDecoder ? Tr(Str::kSeq2SeqDecoderAttention) : Tr(Str::kSeq2SeqCrossAttention);
}

const Tensor& ProbsOf(const model::Seq2SeqRun& run, Seq2SeqStack s) {
  return s == Seq2SeqStack::kEncoder ? run.encoder_probs : s == Seq2SeqStack::kDecoder ? run.decoder_probs : run.cross_probs;
}

std::string Summary(const model::Seq2SeqRun& run) {
  std::string out;
  for (Seq2SeqStack s : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder, Seq2SeqStack::kCross}) {
    const Tensor& p = ProbsOf(run, s);
    const int n_layer = (int)p.dim(0), n_head = (int)p.dim(1), n_q = (int)p.dim(2), n_k = (int)p.dim(3);
    const Mask mask = s == Seq2SeqStack::kDecoder ? Mask::Causal() : Mask::Bidirectional();
    for (int l = 0; l < n_layer; ++l) {
      // Each head's mean over rows of its largest weight.
      std::vector<HeadMetrics> m;
      ComputeProbMetrics(p.data.data() + (size_t)l * n_head * n_q * n_k, nullptr, n_head, n_q, n_k, mask, &m);
      std::string heads;
      char buf[32];
      for (const HeadMetrics& h : m) {
        std::snprintf(buf, sizeof buf, "%s%.3f", heads.empty() ? "" : " ", (double)h.max_weight);
        heads += buf;
      }
      out += Trf(Str::kCliSeq2SeqLayerLine, {StackWords(s), std::to_string(l), heads}) + "\n";
    }
  }
  return out;
}

std::string ModelName(const std::string& dir) {
  std::string name = dir;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  name = name.substr(name.find_last_of('/') + 1);
  return name.empty() ? "model" : name;
}

// The figure's axes: rows the stack's queries (encoder: source tokens; decoder, cross: decoder tokens), columns its
// keys (encoder, cross: source tokens; decoder: decoder tokens), the stack's mask; no maps.
LayerMaps FigureAxes(Seq2SeqStack s, const Seq2SeqInput& in) {
  LayerMaps axes;
  axes.query_tokens = TokenList(s == Seq2SeqStack::kEncoder ? in.source : in.decoder);
  axes.kv_tokens = TokenList(s == Seq2SeqStack::kDecoder ? in.decoder : in.source);
  axes.mask = s == Seq2SeqStack::kDecoder ? Mask::Causal() : Mask::Bidirectional();
  return axes;
}

// The figure's options at pooling factor f: the title naming the stack (and the pooling), the axes' words.
HeatmapExportOptions FigureOptionsAt(const Seq2SeqArgs& a, const model::Seq2SeqModel& m, int f) {
  const Seq2SeqStack s = (Seq2SeqStack)a.stack;
  HeatmapExportOptions o = a.figure;
  o.head = f > 1 ? 0 : a.head;  // a pooled figure draws the one plane it pooled
  if (o.title.empty()) {
    o.title = Trf(Str::kSeq2SeqFigureTitle, {ModelName(m.dir()), StackWords(s), std::to_string(a.layer),
                                             std::to_string(a.head)});
    if (f > 1) o.title += kTitleDot + LocalizedTitle(PooledTitle(a.pool.mode, f));
  }
  o.words = LocalizedFigureWords();
  if (s != Seq2SeqStack::kEncoder) o.words.query = Tr(Str::kSeq2SeqTargetAxis);
  if (s != Seq2SeqStack::kDecoder) o.words.key = Tr(Str::kSeq2SeqSourceAxis);
  return o;
}

// --figure before the run: the factor to draw at (--pool, auto resolved), or the refusal saying what would fit.
Result<int> CheckFigure(const Seq2SeqArgs& a, const model::Seq2SeqModel& m, const Seq2SeqInput& in) {
  const LayerMaps axes = FigureAxes((Seq2SeqStack)a.stack, in);
  const int longest = (int)std::max(axes.query_tokens.size(), axes.kv_tokens.size());
  if (a.pool.factor > longest)
    return AppError(AppMsgId::kPoolPastTokens, {std::to_string(a.pool.factor), std::to_string(longest)});
  return CheckModelFigureFits(axes, a.pool.factor, [&](int f) { return FigureOptionsAt(a, m, f); });
}

// One head's map of the run (pooled f x f when f > 1: maps/pooled_map.h).
Status WriteFigure(const Seq2SeqArgs& a, const model::Seq2SeqModel& m, const Seq2SeqInput& in,
                   const model::Seq2SeqRun& run, int f) {
  const Seq2SeqStack s = (Seq2SeqStack)a.stack;
  const Tensor& p = ProbsOf(run, s);
  const size_t n_head = p.dim(1), n_q = p.dim(2), n_k = p.dim(3);
  const float* layer_probs = p.data.data() + (size_t)a.layer * n_head * n_q * n_k;
  LayerMaps maps = PooledAxes(FigureAxes(s, in), f);
  auto shown = std::make_shared<Tensor>();
  if (f > 1) {
    shown->Resize({1, (size_t)PooledSide((int)n_q, f), (size_t)PooledSide((int)n_k, f)});
    PoolMapPlane(layer_probs + (size_t)a.head * n_q * n_k, (int)n_q, (int)n_k, f, a.pool.mode, shown->data.data());
  } else {
    shown->Resize({n_head, n_q, n_k});
    std::copy_n(layer_probs, n_head * n_q * n_k, shown->data.data());
  }
  maps.probs = shown;
  ExportNotes notes;
  Status written = ExportHeatmap(maps, nullptr, FigureOptionsAt(a, m, f), nullptr, &notes);
  if (written) PrintFigureNotes(notes);
  return written;
}

Status WriteDump(const std::string& dir, const Seq2SeqInput& in, const model::Seq2SeqRun& run,
                 const Seq2SeqAnalysisOptions& analysis, const Seq2SeqAnalysisInput& analysis_input) {
  DumpFolder dump;
  if (Status s = dump.Begin(dir); !s) return s;
  if (Status s = WriteFileAtomic(dump.Path("tokens.json"), TokensJson(in.source, in.decoder)); !s) return s;
  const std::pair<const char*, const Tensor*> files[] = {
      {"encoder_attention.npy", &run.encoder_probs}, {"decoder_attention.npy", &run.decoder_probs},
      {"cross_attention.npy", &run.cross_probs},     {"encoder_hidden.npy", &run.encoder_hidden},
      {"decoder_hidden.npy", &run.decoder_hidden}};
  for (const auto& [name, tensor] : files)
    if (Status s = WriteNpy(dump.Path(name), *tensor); !s) return s;
  if (Status s = WriteSeq2SeqAnalysisDumps(analysis, analysis_input, run, &dump); !s) return s;
  return dump.Commit();
}

std::string PieceJsonOf(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToPiece(id);
  return p ? JsonString(*p) : std::string("null");
}

std::string PieceTextOf(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToDisplay(id);
  return p ? "\"" + ShownText(*p) + "\"" : Trf(Str::kCliNoPiece, {std::to_string(id)});
}

// --predict K and --token-loss over the decoder positions: position i reads decoder[0..i] and predicts labels[i]
// (core's Seq2SeqTokenLoss and Seq2SeqTopTokens; this only writes them out).
Result<std::string> DecoderTable(const Seq2SeqArgs& a, const model::Seq2SeqModel& m, const Seq2SeqInput& in,
                                 const model::Seq2SeqRun& run, const tokenize::Tokenizer& target) {
  const int n_tgt = (int)in.decoder.size();
  const float* last = run.decoder_hidden.data.data() + (run.decoder_hidden.dim(0) - 1) * n_tgt * run.decoder_hidden.dim(2);
  auto losses = model::Seq2SeqTokenLoss(m, last, n_tgt, in.labels);
  if (!losses) return losses.status();
  std::vector<model::PositionTop> tops;
  if (a.predict_k) {
    auto t = model::Seq2SeqTopTokens(m, last, n_tgt, a.predict_k);
    if (!t) return t.status();
    tops = std::move(*t);
  }
  const double mean = model::MeanLoss(*losses);
  char buf[96];
  std::vector<std::string> rows;
  for (int i = 0; i < n_tgt; ++i) {
    const double loss = (*losses)[(size_t)i];
    const int label = in.labels[(size_t)i];
    std::string row;
    if (a.token_loss && a.json) {
      row = "{\"index\": " + std::to_string(i) + ", \"next_id\": " + std::to_string(label) + ", \"next_token\": " +
            PieceJsonOf(target, label) + ", \"loss\": " + JsonNumber(loss) + ", \"prob\": " + JsonNumber(std::exp(-loss)) + "}";
    } else if (a.token_loss) {
      std::snprintf(buf, sizeof buf, "%4d ", i);
      row = buf + ("\"" + ShownText(in.decoder[(size_t)i].display) + "\"") + " -> " + PieceTextOf(target, label);
      std::snprintf(buf, sizeof buf, "  loss %.4f  p %.4g", loss, std::exp(-loss));
      row += buf;
    } else if (a.json) {
      row = "{\"index\": " + std::to_string(i) + ", \"token\": " + JsonString(in.decoder[(size_t)i].piece) + ", \"top\": [";
      for (size_t t = 0; t < tops[(size_t)i].top.size(); ++t) {
        const model::TokenProb& p = tops[(size_t)i].top[t];
        row += std::string(t ? ", " : "") + "{\"id\": " + std::to_string(p.id) + ", \"token\": " + PieceJsonOf(target, p.id) +
               ", \"prob\": " + JsonNumber(p.prob) + "}";
      }
      row += "]}";
    } else {
      std::snprintf(buf, sizeof buf, "%4d ", i);
      row = buf + ("\"" + ShownText(in.decoder[(size_t)i].display) + "\"") + " ->";
      for (const model::TokenProb& p : tops[(size_t)i].top) {
        std::snprintf(buf, sizeof buf, " %.3f", p.prob);
        row += " " + PieceTextOf(target, p.id) + buf;
      }
    }
    rows.push_back(row);
  }
  std::string out;
  if (a.json) {
    out = "{\"loss\": " + JsonNumber(mean) + (a.predict_k ? ", \"perplexity\": " + JsonNumber(std::exp(mean)) : "") +
          ", \"positions\": [";
    for (size_t i = 0; i < rows.size(); ++i) out += (i ? ",\n  " : "\n  ") + rows[i];
    return out + "]}\n";
  }
  char loss[32], ppl[32];
  std::snprintf(loss, sizeof loss, "%.4f", mean);
  std::snprintf(ppl, sizeof ppl, "%.4g", std::exp(mean));
  out = Trf(Str::kCliPredictLoss, {loss, std::to_string(n_tgt), ppl}) + "\n";
  for (const std::string& r : rows) out += r + "\n";
  return out;
}

Result<std::string> GenerationOutput(const Seq2SeqArgs& a, const Seq2SeqInput& in, const tokenize::TextDecoder& decoder) {
  auto text = decoder.Decode(in.generated);
  if (!text) return text.status();
  if (!a.json) return *text + "\n";
  std::string ids = "[";
  for (size_t i = 0; i < in.generated.size(); ++i) ids += (i ? ", " : "") + std::to_string(in.generated[i]);
  return "{\"ids\": " + ids + "], \"text\": " + JsonString(*text) + "}\n";
}

Status Run(const Seq2SeqArgs& a) {
  Result<SentenceItem> item = ResolveInputText(a.input);
  if (!item) return item.status();
  auto dir = ResolveModelDir(a.model_dir);  // "tiny-seq2seq": the bundled model
  if (!dir) return dir.status();
  auto model = model::LoadSeq2SeqModel(*dir);
  if (!model) return model.status();
  const model::Seq2SeqModel& m = **model;
  if (Status s = CheckRanges(a, m.config()); !s) return s;
  auto tok = tokenize::LoadSeq2SeqTokenizers(*dir);
  if (!tok) return tok.status();
  auto in = PrepareInput(a, item->kv_text, m, *tok);
  if (!in) return in.status();
  if (a.tokens_only) {
    std::fputs(TokensJson(in->source, in->decoder).c_str(), stdout);
    return Status::Ok();
  }
  int figure_pool = 1;
  if (!a.figure.out_path.empty()) {  // refused before the run, with what would fit
    Result<int> f = CheckFigure(a, m, *in);
    if (!f) return f.status();
    figure_pool = *f;
  }
  model::Seq2SeqRunOptions options;
  options.ablate = a.ablated;
  auto run = model::RunSeq2Seq(m, TokenIds(in->source), TokenIds(in->decoder), options);
  if (!run) return run.status();
  Seq2SeqAnalysisInput analysis{&m, TokenIds(in->source), TokenIds(in->decoder), in->labels, a.ablated,
                                &in->source, &in->decoder};
  std::string table;
  if (a.lens.Any()) {
    auto t = Seq2SeqLensOutput(a.lens, a.json, analysis, *run, *tok);
    if (!t) return t.status();
    table = *t;
  } else if (a.analysis.neuron || a.analysis.ablate_scan) {
    auto t = a.analysis.neuron ? Seq2SeqNeuronOutput(a.analysis, a.stack, a.json, analysis)
                               : Seq2SeqScanOutput(a.analysis, a.json, a.ablate_mode, analysis);
    if (!t) return t.status();
    table = *t;
  } else if (a.predict_k || a.token_loss) {
    auto t = DecoderTable(a, m, *in, *run, *tok->target);
    if (!t) return t.status();
    table = *t;
  } else if (in->generated_set) {
    auto t = GenerationOutput(a, *in, *tok->decoder);
    if (!t) return t.status();
    table = *t;
  }
  FILE* notes = table.empty() ? stdout : stderr;
  if (!a.dump_dir.empty()) {
    if (Status s = WriteDump(a.dump_dir, *in, *run, a.analysis, analysis); !s) return s;
    std::fprintf(notes, "%s\n", Trf(Str::kCliDumpWritten, {a.dump_dir}).c_str());
  }
  if (!a.figure.out_path.empty()) {
    if (Status s = WriteFigure(a, m, *in, *run, figure_pool); !s) return s;
    std::fprintf(notes, "%s\n", Trf(Str::kCliWrote, {a.figure.out_path}).c_str());
  }
  std::fputs(table.empty() ? Summary(*run).c_str() : table.c_str(), stdout);
  return Status::Ok();
}

}  // namespace

int RunSeq2SeqCommand(const std::vector<std::string>& args) {
  Seq2SeqArgs a;
  bool help = false;
  if (Status s = ParseSeq2SeqArgs(args, &a, &help); !s) return UsageError("model", Localized(s));
  if (help) {
    std::printf("%s", WithModelTypes(HelpText(Help::kSeq2Seq, kSeq2SeqHelp)).c_str());
    return 0;
  }
  if (Status s = Run(a); !s) return UsageError("model", Localized(s));
  return 0;
}

}  // namespace attnviz
