#include "cli_model_attrib.h"

#include <cstdio>

#include "i18n/app_messages.h"
#include "i18n/localized.h"
#include "io/json.h"
#include "model/attribution.h"
#include "model/patching.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

bool AllDigits(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char ch : s)
    if (ch < '0' || ch > '9') return false;
  return true;
}

std::string PieceJsonOf(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToPiece(id);
  return p ? JsonString(*p) : std::string("null");
}

std::string DisplayOf(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToDisplay(id);
  return p ? "\"" + ShownText(*p) + "\"" : "#" + std::to_string(id);
}

std::string Fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The text table's: what the id reads as, quoted as the app writes a token, or said to have none.
std::string PieceTextOf(const tokenize::Tokenizer& t, int id) {
  auto p = t.IdToDisplay(id);
  return p ? "\"" + ShownText(*p) + "\"" : Trf(Str::kCliNoPiece, {std::to_string(id)});
}

}  // namespace

// One layer of --logit-lens: JSON {"layer", "positions": [{"index", "top": [{"id", "token", "prob"}], "next_prob"}]}
// ("next_prob" only where there is a next token to predict), or text: the layer's line, then one position a line.
std::string LensLayerTable(const model::LensLayer& layer, const std::vector<tokenize::Token>& tokens,
                           const tokenize::Tokenizer& tok, bool json) {
  char buf[64];
  std::string out = json ? "{\"layer\": " + std::to_string(layer.layer) + ", \"positions\": ["
                         : std::string(Tr(Str::kLayer)) + " " + std::to_string(layer.layer) + ":\n";
  for (size_t i = 0; i < layer.positions.size(); ++i) {
    const model::LensPosition& p = layer.positions[i];
    if (json) {
      out += std::string(i ? ",\n   " : "\n   ") + "{\"index\": " + std::to_string(p.index) + ", \"top\": [";
      for (size_t t = 0; t < p.top.size(); ++t)
        out += std::string(t ? ", " : "") + "{\"id\": " + std::to_string(p.top[t].id) + ", \"token\": " +
               PieceJsonOf(tok, p.top[t].id) + ", \"prob\": " + JsonNumber(p.top[t].prob) + "}";
      out += "]" + (p.has_next ? ", \"next_prob\": " + JsonNumber(p.next_prob) : std::string()) + "}";
    } else {
      std::snprintf(buf, sizeof buf, "%4d ", p.index);
      out += buf + JsonString(tokens[(size_t)p.index].display) + " ->";
      for (const model::TokenProb& t : p.top) {
        std::snprintf(buf, sizeof buf, " %.4f", t.prob);
        out += " " + PieceTextOf(tok, t.id) + buf;
      }
      if (p.has_next) {
        std::snprintf(buf, sizeof buf, "  (next %.4g)", p.next_prob);
        out += buf;
      }
      out += "\n";
    }
  }
  return json ? out + "]}" : out;
}

std::string PatchGrid(const std::vector<double>& cells, int rows, int cols, bool json) {
  std::string out = json ? "[" : "";
  for (int r = 0; r < rows; ++r) {
    if (json) out += std::string(r ? ",\n  " : "\n  ") + "[";
    else out += Fixed("%5.0f", r) + " ";
    for (int k = 0; k < cols; ++k) {
      const double v = cells[(size_t)r * cols + k];
      out += json ? (k ? ", " : "") + JsonNumber(v) : Fixed(" %7.3f", v);
    }
    out += json ? "]" : "\n";
  }
  return json ? out + "]" : out;
}

Result<std::string> AttributionOutput(const ModelFolder& folder, const std::vector<tokenize::Token>& tokens,
                                      const std::string& spec, bool json) {
  // 1. POS[:TOKEN]
  const size_t colon = spec.find(':');
  const std::string pos_text = spec.substr(0, colon);
  if (!AllDigits(pos_text)) return AppError(AppMsgId::kAttributeSpec, {CappedValue(spec)});
  const int pos = std::stoi(pos_text);
  if (pos >= (int)tokens.size())
    return Status::Prefixed(MsgId::kPrefixContext, {"--attribute"},
                            Status::Error(MsgId::kPositionRange, {"position", pos_text,
                                                                  std::to_string((int)tokens.size() - 1),
                                                                  std::to_string(tokens.size())}));
  int target = -1;
  if (colon != std::string::npos) {
    auto t = ResolveTokenArg(folder, spec.substr(colon + 1), "--attribute");
    if (!t) return t.status();
    target = *t;
  }
  // 2. The attribution.
  auto a = model::AttributeLogit(*folder.model, TokenIds(tokens), pos, target);
  if (!a) return Status::Prefixed(MsgId::kPrefixContext, {"--attribute"}, a.status());
  const tokenize::Tokenizer& tok = *folder.tokenizer;
  // 3. JSON, or a table: one component a line, largest |value| first after the totals.
  if (json) {
    std::string out = "{\"position\": " + std::to_string(a->position) + ", \"target\": {\"id\": " +
                      std::to_string(a->target) + ", \"token\": " + PieceJsonOf(tok, a->target) +
                      "}, \"logit\": " + JsonNumber(a->logit);
    if (a->capped) out += ", \"capped_logit\": " + JsonNumber(a->capped_logit);
    out += ", \"components\": [";
    for (size_t i = 0; i < a->components.size(); ++i) {
      const model::LogitComponent& c = a->components[i];
      out += std::string(i ? ",\n  " : "\n  ") + "{\"kind\": \"" + model::ComponentKindName(c.kind) +
             "\", \"layer\": " + std::to_string(c.layer) + ", \"head\": " + std::to_string(c.head) +
             ", \"value\": " + JsonNumber(c.value) + "}";
    }
    return out + "]}\n";
  }
  std::string out = "position " + std::to_string(a->position) + " " + DisplayOf(tok, tokens[(size_t)pos].id) +
                    " -> target " + DisplayOf(tok, a->target) + " (id " + std::to_string(a->target) + ")\n";
  out += "logit " + Fixed("%.4f", a->logit) +
         (a->capped ? " before the final soft cap (" + Fixed("%.4f", a->capped_logit) + " after it)" : "") + "\n";
  out += "kind       layer  head      value\n";
  for (const model::LogitComponent& c : a->components) {
    char line[96];
    std::snprintf(line, sizeof line, "%-9s %6s %5s %10.4f\n", model::ComponentKindName(c.kind),
                  c.layer < 0 ? "-" : std::to_string(c.layer).c_str(), c.head < 0 ? "-" : std::to_string(c.head).c_str(),
                  c.value);
    out += line;
  }
  return out;
}

Result<std::string> PatchingOutput(const ModelFolder& folder, const std::vector<tokenize::Token>& tokens,
                                   const std::string& clean_text, const std::string& metric, bool json) {
  // 1. A,B and the clean text's tokens.
  const size_t comma = metric.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == metric.size())
    return AppError(AppMsgId::kMetricSpec, {CappedValue(metric)});
  auto a = ResolveTokenArg(folder, metric.substr(0, comma), "--metric");
  if (!a) return a.status();
  auto b = ResolveTokenArg(folder, metric.substr(comma + 1), "--metric");
  if (!b) return b.status();
  auto clean = TokenizeForModel(folder, clean_text);
  if (!clean) return Status::Prefixed(MsgId::kPrefixContext, {"--patch-from"}, clean.status());
  // 2. Both grids.
  auto p = model::PatchActivations(*folder.model, TokenIds(*clean), TokenIds(tokens), *a, *b);
  if (!p) return Status::Prefixed(MsgId::kPrefixContext, {"--patch-from"}, p.status());
  // 3. JSON, or two tables (rows: layers; columns: heads, positions).
  if (json)
    return "{\"clean\": " + JsonNumber(p->clean) + ", \"corrupted\": " + JsonNumber(p->corrupted) + ",\n \"heads\": " +
           PatchGrid(p->heads, p->n_layer, p->n_head, true) + ",\n \"residual\": " +
           PatchGrid(p->residual, p->n_layer + 1, p->n, true) + "}\n";
  const tokenize::Tokenizer& tok = *folder.tokenizer;
  std::string out = "metric logit[" + DisplayOf(tok, *a) + "] - logit[" + DisplayOf(tok, *b) + "] at the last position: clean " +
                    Fixed("%.4f", p->clean) + ", corrupted " + Fixed("%.4f", p->corrupted) + "\n";
  out += "share (patched - corrupted) / (clean - corrupted), heads (rows: layers, columns: heads):\n";
  out += PatchGrid(p->heads, p->n_layer, p->n_head, false);
  out += "residual stream entering each layer (rows: layers 0..n_layer, columns: positions):\n";
  out += PatchGrid(p->residual, p->n_layer + 1, p->n, false);
  return out;
}

}  // namespace attnviz
