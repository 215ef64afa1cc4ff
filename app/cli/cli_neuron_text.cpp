#include "cli_neuron_text.h"

#include <cstdio>

#include "i18n/ui_strings.h"
#include "io/json.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

std::string FloatsJson(const std::vector<float>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + JsonNumber(v[i]);
  return out + "]";
}

}  // namespace

std::string NeuronJson(const model::NeuronView& v, const NeuronStackExtras& extras) {
  std::string out = "{";
  if (extras.stack) out += "\"stack\": " + JsonString(extras.stack) + ", ";
  out += "\"layer\": " + std::to_string(v.layer) + ", \"head\": " + std::to_string(v.head) +
         ", \"i\": " + std::to_string(v.i) + ", \"j\": " + std::to_string(v.j) +
         ", \"masked\": " + (v.masked ? "true" : "false") + ",\n \"q\": " + FloatsJson(v.q) +
         ",\n \"k\": " + FloatsJson(v.k) + ",\n \"product\": " + FloatsJson(v.product);
  if (v.qk_norm)
    out += ",\n \"q_before_norm\": " + FloatsJson(v.q_before_norm) + ",\n \"k_before_norm\": " +
           FloatsJson(v.k_before_norm);
  if (v.rope)
    out += ",\n \"q_before_rope\": " + FloatsJson(v.q_before_rope) + ",\n \"k_before_rope\": " +
           FloatsJson(v.k_before_rope);
  out += ",\n \"score\": " + JsonNumber(v.score) + ", \"scale\": " + JsonNumber(v.scale) +
         ", \"scale_source\": " + JsonString(v.scale_source);
  if (extras.stack)
    out += ", \"position_bias\": " + (extras.has_position_bias ? JsonNumber(extras.position_bias) : std::string("null"));
  return out + ", \"uncapped_logit\": " + JsonNumber(v.uncapped_logit) + ", \"softcap\": " + JsonNumber(v.softcap) +
         ", \"logit\": " + JsonNumber(v.logit) + ", \"prob\": " + JsonNumber(v.prob) + "}\n";
}

std::string NeuronText(const model::NeuronView& v, const std::vector<tokenize::Token>& queries,
                       const std::vector<tokenize::Token>& keys, const NeuronStackExtras& extras) {
  char buf[200];
  std::string out = std::string(extras.stack ? std::string(extras.stack) + " " : "") + "layer " +
                    std::to_string(v.layer) + " head " + std::to_string(v.head) + ": query " + std::to_string(v.i) +
                    " " + ("\"" + ShownText(queries[(size_t)v.i].display) + "\"") + ", key " + std::to_string(v.j) +
                    " " + ("\"" + ShownText(keys[(size_t)v.j].display) + "\"") + "\n";
  // The columns in the order the run makes them: the projections, the q/k norms, RoPE, the product.
  std::vector<std::pair<const char*, const std::vector<float>*>> columns;
  if (v.qk_norm) columns.insert(columns.end(), {{"q_before_norm", &v.q_before_norm}, {"k_before_norm", &v.k_before_norm}});
  if (v.rope) columns.insert(columns.end(), {{"q_before_rope", &v.q_before_rope}, {"k_before_rope", &v.k_before_rope}});
  columns.insert(columns.end(), {{"q", &v.q}, {"k", &v.k}, {"q * k", &v.product}});
  out += "   t";
  for (const auto& column : columns) {
    std::snprintf(buf, sizeof buf, " %14s", column.first);
    out += buf;
  }
  out += "\n";
  for (size_t t = 0; t < v.q.size(); ++t) {
    std::snprintf(buf, sizeof buf, "%4zu", t);
    out += buf;
    for (const auto& column : columns) {
      std::snprintf(buf, sizeof buf, " %14.6g", (*column.second)[t]);
      out += buf;
    }
    out += "\n";
  }
  if (v.softcap > 0)  // gemma2: the cap after the scale
    std::snprintf(buf, sizeof buf,
                  "score %.6g x scale %.6g (%s) = %.6g; soft cap %.6g * tanh(%.6g / %.6g) = logit %.6g; "
                  "probability %.6g\n",
                  v.score, v.scale, v.scale_source, v.uncapped_logit, v.softcap, v.uncapped_logit, v.softcap, v.logit,
                  v.prob);
  else if (extras.has_position_bias)  // the relative position bias after the scale
    std::snprintf(buf, sizeof buf, "score %.6g x scale %.6g (%s) + position bias %.6g = logit %.6g; probability %.6g\n",
                  v.score, v.scale, v.scale_source, extras.position_bias, v.logit, v.prob);
  else
    std::snprintf(buf, sizeof buf, "score %.6g x scale %.6g (%s) = logit %.6g; probability %.6g\n", v.score, v.scale,
                  v.scale_source, v.logit, v.prob);
  out += buf;
  if (v.masked) out += Trf(Str::kCliNeuronMasked, {std::to_string(v.i), std::to_string(v.j)}) + "\n";
  return out;
}

}  // namespace attnviz
