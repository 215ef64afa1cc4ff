#include "cli_seq2seq_analysis.h"

#include "cli_neuron_text.h"
#include "cli_util.h"
#include "i18n/app_messages.h"
#include "io/json.h"
#include "io/npy.h"
#include "model/seq2seq_analysis.h"
#include "model_folder.h"  // ParseLayerList
#include "options.h"

namespace attnviz {

using model::Seq2SeqStack;

bool ParseSeq2SeqAnalysisOption(const std::vector<std::string>& args, size_t* i, Seq2SeqAnalysisOptions* o,
                                Status* st) {
  const std::string& arg = args[*i];
  if (arg == "--neuron") {
    auto v = TakeValue(args, i);
    if (!v) *st = v.status();
    else if (!ParseColonInts(*v, 4, o->neuron_at)) *st = AppError(AppMsgId::kNeuronSpec, {CappedValue(*v)});
    o->neuron = true;
  } else if (arg == "--rollout" || arg == "--value-norm") {
    (arg == "--rollout" ? o->rollout : o->value_norm) = true;
    if (o->first_dump_option.empty()) o->first_dump_option = arg;
  } else if (arg == "--ablate-scan") {
    o->ablate_scan = true;
  } else if (arg == "--scan-at") {
    auto v = TakeValue(args, i);
    if (v) o->scan_at = *v;
    else *st = v.status();
    o->scan_at_set = true;
  } else {
    return false;
  }
  return true;
}

Status CheckSeq2SeqAnalysisOptions(const Seq2SeqAnalysisOptions& o, bool dump, int stack) {
  if (o.neuron && stack < 0) return AppError(AppMsgId::kSeq2SeqNeuronNeedsStack, {});
  if (!o.first_dump_option.empty() && !dump)
    return AppError(AppMsgId::kNeedsDump, {o.first_dump_option, o.first_dump_option == "--rollout"
                                                                    ? "encoder_rollout.npy"
                                                                    : "encoder_value_norm.npy"});
  if (o.scan_at_set && !o.ablate_scan) return AppError(AppMsgId::kScanAtNeedsScan, {});
  if (o.neuron && o.ablate_scan) return AppError(AppMsgId::kOneOutputAtATime, {"--neuron", "--ablate-scan"});
  return Status::Ok();
}

Result<std::string> Seq2SeqNeuronOutput(const Seq2SeqAnalysisOptions& o, int stack, bool json,
                                        const Seq2SeqAnalysisInput& in) {
  const Seq2SeqStack s = (Seq2SeqStack)stack;
  model::Seq2SeqRunOptions options;
  options.ablate = in.ablate;
  auto v = model::RunSeq2SeqNeuron(*in.model, in.source_ids, in.decoder_ids, options, s, o.neuron_at[0],
                                   o.neuron_at[1], o.neuron_at[2], o.neuron_at[3]);
  if (!v) return Status::Prefixed(MsgId::kPrefixContext, {"--neuron"}, v.status());
  const NeuronStackExtras extras{model::Seq2SeqStackName(s), v->has_position_bias, v->position_bias};
  if (json) return NeuronJson(v->view, extras);
  // Queries: source tokens in the encoder, decoder tokens else; keys: decoder tokens in the decoder, source else.
  return NeuronText(v->view, s == Seq2SeqStack::kEncoder ? *in.source : *in.decoder,
                    s == Seq2SeqStack::kDecoder ? *in.decoder : *in.source, extras);
}

Result<std::string> Seq2SeqScanOutput(const Seq2SeqAnalysisOptions& o, bool json, model::AblateMode mode,
                                      const Seq2SeqAnalysisInput& in) {
  std::vector<int> at;
  if (o.scan_at_set) {  // decoder positions: position i predicts label i
    auto parsed = ParseLayerList(o.scan_at, (int)in.decoder_ids.size());
    if (!parsed) return Status::Prefixed(MsgId::kPrefixContext, {"--scan-at"}, parsed.status());
    at = std::move(*parsed);
  }
  model::Seq2SeqRunOptions base;
  base.ablate = in.ablate;
  auto scan = model::ScanSeq2SeqHeadAblations(*in.model, in.source_ids, in.decoder_ids, in.labels, base, mode, at);
  if (!scan) return scan.status();
  std::string positions;
  for (int i : scan->loss_at) positions += (positions.empty() ? "" : ", ") + std::to_string(i);
  std::string out = json ? "{\"loss_at\": [" + positions + "], \"base_loss\": " + JsonNumber(scan->base_loss) +
                               ", \"heads\": ["
                         : "stack,layer,head,loss,delta\n";
  for (size_t i = 0; i < scan->heads.size(); ++i) {
    const model::Seq2SeqHeadLoss& h = scan->heads[i];
    const std::string stack = model::Seq2SeqStackName(h.stack), l = std::to_string(h.layer), hd = std::to_string(h.head);
    const std::string loss = JsonNumber(h.loss), delta = JsonNumber(h.loss - scan->base_loss);
    if (json)
      out += std::string(i ? ",\n  " : "\n  ") + "{\"stack\": " + JsonString(stack) + ", \"layer\": " + l +
             ", \"head\": " + hd + ", \"loss\": " + loss + ", \"delta\": " + delta + "}";
    else
      out += stack + "," + l + "," + hd + "," + loss + "," + delta + "\n";
  }
  return json ? out + "]}\n" : out;
}

Status WriteSeq2SeqAnalysisDumps(const Seq2SeqAnalysisOptions& o, const Seq2SeqAnalysisInput& in,
                                 const model::Seq2SeqRun& run, DumpFolder* dump) {
  if (o.rollout) {  // the self-attention stacks only
    for (Seq2SeqStack s : {Seq2SeqStack::kEncoder, Seq2SeqStack::kDecoder}) {
      auto r = model::Seq2SeqRollout(s, s == Seq2SeqStack::kEncoder ? run.encoder_probs : run.decoder_probs);
      if (!r) return Status::Prefixed(MsgId::kPrefixContext, {"--rollout"}, r.status());
      if (Status st = WriteNpy(dump->Path(std::string(model::Seq2SeqStackName(s)) + "_rollout.npy"), *r); !st)
        return st;
    }
  }
  if (o.value_norm) {
    model::Seq2SeqRunOptions options;
    options.ablate = in.ablate;
    auto maps = model::RunSeq2SeqValueNorms(*in.model, in.source_ids, in.decoder_ids, options);
    if (!maps) return Status::Prefixed(MsgId::kPrefixContext, {"--value-norm"}, maps.status());
    const std::pair<const char*, const Tensor*> files[] = {{"encoder_value_norm.npy", &maps->encoder},
                                                           {"decoder_value_norm.npy", &maps->decoder},
                                                           {"cross_value_norm.npy", &maps->cross}};
    for (const auto& [name, tensor] : files)
      if (Status st = WriteNpy(dump->Path(name), *tensor); !st) return st;
  }
  return Status::Ok();
}

}  // namespace attnviz
