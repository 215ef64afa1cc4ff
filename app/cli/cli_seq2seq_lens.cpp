#include "cli_seq2seq_lens.h"

#include <cstdio>

#include "cli_model_attrib.h"  // LensLayerTable, PatchGrid
#include "cli_util.h"
#include "i18n/app_messages.h"
#include "io/json.h"
#include "model/seq2seq_attribution.h"
#include "model/seq2seq_lens.h"
#include "model/seq2seq_patching.h"
#include "model_folder.h"  // ResolveTokenArg
#include "options.h"
#include "session/loaded_model.h"  // TokenIds
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

using model::Seq2SeqStack;

std::string PieceJsonOf(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToPiece(id);
  return p ? JsonString(*p) : std::string("null");
}

std::string Number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

Result<std::string> LensOutput(const Seq2SeqLensOptions& o, bool json, const Seq2SeqAnalysisInput& in,
                               const model::Seq2SeqRun& run, const tokenize::Tokenizer& target) {
  auto lens = model::Seq2SeqLogitLens(*in.model, run.decoder_hidden.data.data(), (int)in.decoder_ids.size(),
                                      in.labels, o.lens_k);
  if (!lens) return Status::Prefixed(MsgId::kPrefixContext, {"--logit-lens"}, lens.status());
  std::string out;
  for (size_t l = 0; l < lens->size(); ++l)
    out += (json && l ? ",\n " : "") + LensLayerTable((*lens)[l], *in.decoder, target, json);
  return json ? "{\"layers\": [\n " + out + "]}\n" : out;
}

Result<std::string> AttributionOutput(const Seq2SeqLensOptions& o, bool json, const Seq2SeqAnalysisInput& in,
                                      const tokenize::Tokenizer& target) {
  // 1. POS[:TOKEN]; the target: the label at POS when no token is given.
  const size_t colon = o.attribute.find(':');
  const int n = (int)in.decoder_ids.size(), vocab = in.model->config().decoder_vocab;
  auto pos = ParseIntValue("--attribute", o.attribute.substr(0, colon), 0, 1 << 30);
  if (!pos) return AppError(AppMsgId::kAttributeSpec, {CappedValue(o.attribute)});
  if (*pos >= n)
    return Status::Prefixed(MsgId::kPrefixContext, {"--attribute"},
                            Status::Error(MsgId::kPositionRange, {"position", std::to_string(*pos),
                                                                  std::to_string(n - 1), std::to_string(n)}));
  int token = in.labels[(size_t)*pos];
  if (colon != std::string::npos) {
    auto t = ResolveTokenArg(target, vocab, o.attribute.substr(colon + 1), "--attribute");
    if (!t) return t.status();
    token = *t;
  }
  // 2. The attribution.
  auto a = model::Seq2SeqAttributeLogit(*in.model, in.source_ids, in.decoder_ids, *pos, token);
  if (!a) return Status::Prefixed(MsgId::kPrefixContext, {"--attribute"}, a.status());
  // 3. JSON, or a table: one component a line.
  if (json) {
    std::string out = "{\"position\": " + std::to_string(a->position) + ", \"target\": {\"id\": " +
                      std::to_string(a->target) + ", \"token\": " + PieceJsonOf(target, a->target) +
                      "}, \"logit\": " + JsonNumber(a->logit) + ", \"components\": [";
    for (size_t i = 0; i < a->components.size(); ++i) {
      const model::Seq2SeqLogitComponent& c = a->components[i];
      const bool has_stack = (c.kind == model::ComponentKind::kHead || c.kind == model::ComponentKind::kAttnBias);
      out += std::string(i ? ",\n  " : "\n  ") + "{\"kind\": \"" + model::ComponentKindName(c.kind) + "\", " +
             (has_stack ? "\"stack\": \"" + std::string(model::Seq2SeqStackName(c.stack)) + "\", " : "") +
             "\"layer\": " + std::to_string(c.layer) + ", \"head\": " + std::to_string(c.head) +
             ", \"value\": " + JsonNumber(c.value) + "}";
    }
    return out + "]}\n";
  }
  std::string out = "position " + std::to_string(a->position) + " \"" + ShownText((*in.decoder)[(size_t)*pos].display) +
                    "\" -> target " + PieceJsonOf(target, a->target) + " (id " + std::to_string(a->target) + ")\n";
  out += "logit " + Number("%.4f", a->logit) + "\n";
  out += "kind       stack    layer  head      value\n";
  for (const model::Seq2SeqLogitComponent& c : a->components) {
    const bool has_stack = c.kind == model::ComponentKind::kHead || c.kind == model::ComponentKind::kAttnBias;
    char line[128];
    std::snprintf(line, sizeof line, "%-9s %-7s %6s %5s %10.4f\n", model::ComponentKindName(c.kind),
                  has_stack ? model::Seq2SeqStackName(c.stack) : "-",
                  c.layer < 0 ? "-" : std::to_string(c.layer).c_str(), c.head < 0 ? "-" : std::to_string(c.head).c_str(),
                  c.value);
    out += line;
  }
  return out;
}

Result<std::string> PatchingOutput(const Seq2SeqLensOptions& o, bool json, const Seq2SeqAnalysisInput& in,
                                   const tokenize::Seq2SeqTokenizers& tok) {
  // 1. A,B (target tokens) and the clean source's tokens.
  const size_t comma = o.metric.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == o.metric.size())
    return AppError(AppMsgId::kMetricSpec, {CappedValue(o.metric)});
  const int vocab = in.model->config().decoder_vocab;
  auto a = ResolveTokenArg(*tok.target, vocab, o.metric.substr(0, comma), "--metric");
  if (!a) return a.status();
  auto b = ResolveTokenArg(*tok.target, vocab, o.metric.substr(comma + 1), "--metric");
  if (!b) return b.status();
  auto clean = tok.source->Encode(o.patch_from);
  if (!clean) return Status::Prefixed(MsgId::kPrefixContext, {"--patch-from"}, clean.status());
  // 2. Every grid.
  auto p = model::Seq2SeqPatchActivations(*in.model, TokenIds(*clean), in.source_ids, in.decoder_ids, *a, *b);
  if (!p) return Status::Prefixed(MsgId::kPrefixContext, {"--patch-from"}, p.status());
  // 3. JSON, or one table per grid (rows: layers; columns: heads, positions).
  const std::pair<const char*, std::string> grids[] = {
      {"encoder_heads", PatchGrid(p->encoder_heads, p->n_enc_layer, p->n_enc_head, json)},
      {"decoder_heads", PatchGrid(p->decoder_heads, p->n_dec_layer, p->n_dec_head, json)},
      {"cross_heads", PatchGrid(p->cross_heads, p->n_dec_layer, p->n_dec_head, json)},
      {"encoder_residual", PatchGrid(p->encoder_residual, p->n_enc_layer + 1, p->n_src, json)},
      {"decoder_residual", PatchGrid(p->decoder_residual, p->n_dec_layer + 1, p->n_tgt, json)}};
  std::string out;
  if (json) {
    out = "{\"clean\": " + JsonNumber(p->clean) + ", \"corrupted\": " + JsonNumber(p->corrupted);
    for (const auto& [name, grid] : grids) out += ",\n \"" + std::string(name) + "\": " + grid;
    return out + "}\n";
  }
  out = "metric logit[" + PieceJsonOf(*tok.target, *a) + "] - logit[" + PieceJsonOf(*tok.target, *b) +
        "] at the last decoder position: clean " + Number("%.4f", p->clean) + ", corrupted " +
        Number("%.4f", p->corrupted) + "\nshare (patched - corrupted) / (clean - corrupted); heads: rows layers, "
        "columns heads; residual: rows the stream entering layers 0..n_layer, columns positions\n";
  for (const auto& [name, grid] : grids) out += std::string(name) + ":\n" + grid;
  return out;
}

}  // namespace

bool ParseSeq2SeqLensOption(const std::vector<std::string>& args, size_t* i, Seq2SeqLensOptions* o, Status* st) {
  const std::string& arg = args[*i];
  std::string* value = arg == "--logit-lens" ? nullptr
                       : arg == "--attribute"  ? &o->attribute
                       : arg == "--patch-from" ? &o->patch_from
                       : arg == "--metric"     ? &o->metric
                                               : nullptr;
  if (!value && arg != "--logit-lens") return false;
  auto v = TakeValue(args, i);
  if (!v) {
    *st = v.status();
    return true;
  }
  if (arg == "--logit-lens") {
    auto k = ParseIntValue("--logit-lens", *v, 1, 1 << 30);
    if (k) o->lens_k = *k, o->logit_lens = true;
    else *st = k.status();
    return true;
  }
  *value = *v;
  (arg == "--attribute" ? o->attribute_set : arg == "--patch-from" ? o->patch_set : o->metric_set) = true;
  return true;
}

Status CheckSeq2SeqLensOptions(const Seq2SeqLensOptions& o, bool what_ifs) {
  if (o.patch_set != o.metric_set) return AppError(AppMsgId::kPatchNeedsMetric, {});
  std::vector<const char*> views;
  if (o.logit_lens) views.push_back("--logit-lens");
  if (o.attribute_set) views.push_back("--attribute");
  if (o.patch_set) views.push_back("--patch-from");
  if (views.size() > 1) return AppError(AppMsgId::kOneOutputAtATime, {views[0], views[1]});
  if ((o.attribute_set || o.patch_set) && what_ifs) return AppError(AppMsgId::kWhatIfWithAttribution, {o.Name()});
  return Status::Ok();
}

Result<std::string> Seq2SeqLensOutput(const Seq2SeqLensOptions& o, bool json, const Seq2SeqAnalysisInput& in,
                                      const model::Seq2SeqRun& run, const tokenize::Seq2SeqTokenizers& tok) {
  if (o.logit_lens) return LensOutput(o, json, in, run, *tok.target);
  if (o.attribute_set) return AttributionOutput(o, json, in, *tok.target);
  return PatchingOutput(o, json, in, tok);
}

}  // namespace attnviz
