// The neuron view (BertViz's): how query i meets key j in one head of a trained model. Per dimension of the head,
// bar strips of q_i and k_j (after RoPE; for RoPE families also before the rotation) and their product, then the
// sum (the score), the scale, the logit and the probability, which is the Heads map's cell. Opened by a click on a
// cell of a Heads panel map; computed on the UI thread once per click from the layer's kept q and k (O(d_head n):
// the softmax row), or for a streamed layer from q and k made again from its input (a pass over the layer's rows).
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"  // FormatNumber
#include "panel_context.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "model_analysis.h"
#include "panel_util.h"
#include "unicode_slots.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

const ImU32 kPositive = IM_COL32(90, 160, 255, 255);
const ImU32 kNegative = IM_COL32(255, 140, 60, 255);

// One strip: `label` left, then a bar per dimension, up from the middle line when positive and down when negative,
// `scale` (the largest |value| of the strips compared with it) reaching the strip's edge.
void Strip(WidgetDump& dump, const std::string& label, const std::vector<float>& values, float scale, float label_w,
           const std::string& dump_name) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float height = std::max(24.0f, ImGui::GetTextLineHeight() * 1.8f);
  const float width = std::max(40.0f, ImGui::GetContentRegionAvail().x - label_w);
  dl->AddText(ImVec2(p0.x, p0.y + (height - ImGui::GetTextLineHeight()) * 0.5f), ImGui::GetColorU32(ImGuiCol_Text),
              label.c_str());
  const float x0 = p0.x + label_w, mid = p0.y + height * 0.5f;
  const float bar = width / (float)std::max<size_t>(1, values.size());
  dl->AddLine(ImVec2(x0, mid), ImVec2(x0 + width, mid), ImGui::GetColorU32(kDimColor));
  for (size_t t = 0; t < values.size(); ++t) {
    const float h = scale > 0 ? std::clamp(values[t] / scale, -1.0f, 1.0f) * (height * 0.5f - 1.0f) : 0.0f;
    const float xa = x0 + (float)t * bar, xb = xa + std::max(1.0f, bar - (bar >= 4.0f ? 1.0f : 0.0f));
    dl->AddRectFilled(ImVec2(xa, std::min(mid, mid - h)), ImVec2(xb, std::max(mid, mid - h)),
                      values[t] >= 0 ? kPositive : kNegative);
  }
  ImGui::Dummy(ImVec2(label_w + width, height));
  dump.RecordRect(dump_name, p0.x, p0.y, x0 + width, p0.y + height, false, ImGui::IsItemHovered(),
                  "{\"d\": " + std::to_string(values.size()) + ", \"scale\": " + JsonNumber(scale) + "}");
  // Hover: the dimension's value.
  if (ImGui::IsItemHovered() && !values.empty()) {
    const int t = std::clamp((int)((ImGui::GetIO().MousePos.x - x0) / bar), 0, (int)values.size() - 1);
    ImGui::SetTooltip("%s [%d] = %s", label.c_str(), t, FormatNumber(values[(size_t)t]).c_str());
  }
}

float MaxAbs(std::initializer_list<const std::vector<float>*> rows) {
  float m = 0;
  for (const std::vector<float>* r : rows)
    for (float v : *r) m = std::max(m, std::fabs(v));
  return m;
}

// What the numbers are drawn with: the view, its tokens, and what the scale may divide by (a narrow context: a
// decoder-only run and an encoder-decoder stack give it alike).
struct NeuronShown {
  const model::NeuronView* view = nullptr;
  std::string query, key;      // the tokens at i and j
  std::string stack;           // an encoder-decoder stack's title ("" decoder-only)
  double d_head = 0, query_pre_attn_scalar = 0;
  bool has_position_bias = false;  // t5's self-attention: added to score * scale to make the logit
  double position_bias = 0;
};

// The strips and numbers of one view; its dump field starts with `field`.
void DrawNeuronNumbers(WidgetDump& dump, const NeuronShown& shown, const std::string& field) {
  const model::NeuronView& n = *shown.view;
  if (!shown.stack.empty()) DimText(shown.stack);
  ImGui::TextWrapped("%s", Trf(Str::kNeuronWhat, {std::to_string(n.layer), std::to_string(n.head), std::to_string(n.i),
                                                  shown.query, std::to_string(n.j), shown.key}).c_str());
  DimText(Tr(Str::kNeuronExplain));
  if (n.qk_norm) DimText(Trf(Str::kNeuronQkNormNote, {std::to_string(n.q_before_norm.size())}));
  if (n.rope) DimText(Tr(Str::kNeuronRopeNote));
  ImGui::Spacing();
  // Strips aligned per dimension: q and k (and before RoPE) on one scale, so their sizes compare; the product on
  // its own.
  const float label_w = std::max({ImGui::CalcTextSize(Tr(Str::kNeuronRowQBefore)).x,
                                  ImGui::CalcTextSize(Tr(Str::kNeuronRowKBefore)).x,
                                  ImGui::CalcTextSize(Tr(Str::kNeuronRowQBeforeNorm)).x,
                                  ImGui::CalcTextSize(Tr(Str::kNeuronRowProduct)).x}) + 10.0f;
  const float qk_scale = MaxAbs({&n.q, &n.k, &n.q_before_rope, &n.k_before_rope});
  // The projections before the norms on a scale of their own: the norms exist because these lengths vary.
  if (n.qk_norm) {
    const float raw_scale = MaxAbs({&n.q_before_norm, &n.k_before_norm});
    Strip(dump, Tr(Str::kNeuronRowQBeforeNorm), n.q_before_norm, raw_scale, label_w, "neuron.q_before_norm");
    Strip(dump, Tr(Str::kNeuronRowKBeforeNorm), n.k_before_norm, raw_scale, label_w, "neuron.k_before_norm");
  }
  if (n.rope) {
    Strip(dump, Tr(Str::kNeuronRowQBefore), n.q_before_rope, qk_scale, label_w, "neuron.q_before_rope");
    Strip(dump, Tr(Str::kNeuronRowKBefore), n.k_before_rope, qk_scale, label_w, "neuron.k_before_rope");
  }
  Strip(dump, "q_i", n.q, qk_scale, label_w, "neuron.q");
  Strip(dump, "k_j", n.k, qk_scale, label_w, "neuron.k");
  Strip(dump, Tr(Str::kNeuronRowProduct), n.product, MaxAbs({&n.product}), label_w, "neuron.product");
  ImGui::Spacing();
  ImGui::TextUnformatted(Trf(Str::kNeuronScore, {FormatNumber(n.score)}).c_str());
  // What the 1/sqrt divides by, when the scale is just that (a what-if or gpt2's layer index changes it).
  const std::string source = n.scale_source;
  const bool qpas = source == "query_pre_attn_scalar";
  const double divisor = qpas ? shown.query_pre_attn_scalar : shown.d_head;
  const bool plain_scale = source != "none" && std::fabs(n.scale - 1.0 / std::sqrt(divisor)) <= 1e-6 * n.scale;
  if (plain_scale)
    ImGui::TextWrapped("%s", Trf(Str::kNeuronScaleFrom, {std::string(qpas ? "query_pre_attn_scalar " : "head_dim ") +
                                                           FormatNumber(divisor, "%g"),
                                                       FormatNumber(n.scale)}).c_str());
  else
    ImGui::TextUnformatted(Trf(Str::kNeuronScale, {FormatNumber(n.scale)}).c_str());
  if (shown.has_position_bias)
    ImGui::TextWrapped("%s", Trf(Str::kNeuronPositionBias, {FormatNumber(shown.position_bias)}).c_str());
  if (n.softcap > 0)
    ImGui::TextWrapped("%s", Trf(Str::kNeuronSoftcapped,
                               {FormatNumber(n.softcap), FormatNumber(n.logit), FormatNumber(n.uncapped_logit)}).c_str());
  else
    ImGui::TextUnformatted(Trf(Str::kNeuronLogit, {FormatNumber(n.logit)}).c_str());
  if (n.masked) ErrorText(Trf(Str::kNeuronMasked, {std::to_string(n.i), std::to_string(n.j)}));
  else ImGui::TextUnformatted(Trf(Str::kNeuronProb, {FormatNumber(n.prob)}).c_str());
  dump.SetField("neuron", field + ", \"d_head\": " + std::to_string(n.q.size()) + ", \"rope\": " + BoolJson(n.rope) +
                              ", \"masked\": " + BoolJson(n.masked) + ", \"score\": " + JsonNumber(n.score) +
                              ", \"scale\": " + JsonNumber(n.scale) + ", \"scale_source\": " +
                              JsonString(n.scale_source) + ", \"qk_norm\": " + BoolJson(n.qk_norm) +
                              ", \"softcap\": " + JsonNumber(n.softcap) + ", \"uncapped_logit\": " +
                              JsonNumber(n.uncapped_logit) + ", \"logit\": " + JsonNumber(n.logit) +
                              ", \"prob\": " + JsonNumber(n.prob) + ", \"query\": " + JsonString(shown.query) +
                              ", \"key\": " + JsonString(shown.key) + ", \"position_bias\": " +
                              (shown.has_position_bias ? JsonNumber(shown.position_bias) : std::string("null")) +
                              ", \"error\": \"\"}");
}


// An encoder-decoder stack's view (seq2seq_jobs.h: made off the UI thread for the result shown): rows from the
// stack's query side, columns from its key side (cross: target rows, source columns).
void DrawSeq2SeqNeuron(PanelContext& ctx, const std::string& field) {
  const std::shared_ptr<const Seq2SeqNeuronResult>& made = ctx.results.seq2seq_neuron;
  const std::shared_ptr<const Seq2SeqResult>& r = ctx.results.seq2seq;
  const std::string error = made && !made->status.ok() ? Localized(made->status) : std::string();
  if (!made || !error.empty() || !r || !r->stacks) {
    if (!error.empty()) ErrorText(error);
    else DimText(Tr(Str::kNeuronHint));
    ctx.dump.SetField("neuron", field + ", \"error\": " + JsonString(error) + "}");
    return;
  }
  const model::Seq2SeqNeuronView& v = made->view;
  const LayerMaps* maps = (*r->stacks)[(size_t)made->request.stack].layer(v.view.layer);
  auto token = [](const TokenList* tokens, int p) {
    return tokens && p < (int)tokens->size() ? ToImGui(ShownText((*tokens)[(size_t)p].display)) : std::string();
  };
  const model::Seq2SeqConfig& c = r->folder->model->config();
  NeuronShown shown;
  shown.view = &v.view;
  shown.query = token(maps ? &maps->query_tokens : nullptr, v.view.i);
  shown.key = token(maps ? &maps->kv_tokens : nullptr, v.view.j);
  shown.stack = Tr(made->request.stack == kEncoderStack   ? Str::kSeq2SeqEncoderAttention
                   : made->request.stack == kDecoderStack ? Str::kSeq2SeqDecoderAttention
                                                          : Str::kSeq2SeqCrossAttention);
  shown.d_head = made->request.stack == kEncoderStack ? c.encoder.d_head : c.decoder.d_head;
  shown.has_position_bias = v.has_position_bias;
  shown.position_bias = v.position_bias;
  DrawNeuronNumbers(ctx.dump, shown, field + ", \"stack\": " + std::to_string(made->request.stack));
}

}  // namespace

void OpenNeuronView(PanelContext& ctx, int head, int display_i, int display_j) {
  if (ctx.results.seq2seq_mode(ctx.settings)) {  // an encoder-decoder stack's cell: its positions are the display's
    if (!ctx.shown || !ctx.shown->maps || display_i < 0 || display_j < 0 || display_i >= ctx.shown->maps->n_q() ||
        display_j >= ctx.shown->maps->n_k())
      return;
    NeuronPanelView& v = ctx.views.neuron;
    v.open = true;
    v.stack = ctx.shown->stack;
    v.layer = ctx.shown->layer;
    v.head = head;
    v.i = display_i;
    v.j = display_j;
    ImGui::SetWindowFocus(WindowTitle(Str::kWinNeuron, "Neuron").c_str());
    return;
  }
  const std::shared_ptr<const ModelResult>& r = ctx.results.model;
  if (!r) return;
  const std::vector<int> pos = DisplayPositions(*r, ctx.settings.model_hide_special);
  if (display_i < 0 || display_j < 0 || display_i >= (int)pos.size() || display_j >= (int)pos.size()) return;
  NeuronPanelView& v = ctx.views.neuron;
  v.open = true;
  v.layer = std::clamp(ctx.settings.model_layer, 0, std::max(0, r->n_layer() - 1));
  v.head = head;
  v.i = pos[(size_t)display_i];
  v.j = pos[(size_t)display_j];
  v.generation = ~uint64_t(0);  // compute it on the next draw
  v.view.reset();
  v.error.clear();
  ImGui::SetWindowFocus(WindowTitle(Str::kWinNeuron, "Neuron").c_str());
}

void DrawNeuronPanel(PanelContext& ctx) {
  NeuronPanelView& v = ctx.views.neuron;
  if (!v.open) {
    ctx.dump.SetField("neuron", "{\"open\": false}");
    return;
  }
  // In the Overview's place, beside the Heads panel it explains; the Export panel below stays in sight.
  ctx.layout.PlacePanel(0.719f, 0.0f, 0.281f, 0.65f);
  ImGui::SetNextWindowBgAlpha(1.0f);  // opaque: it lies over the Overview
  if (!ImGui::Begin(WindowTitle(Str::kWinNeuron, "Neuron").c_str(), &v.open)) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = ctx.dump;
  if (ctx.results.seq2seq_mode(ctx.settings)) {
    const bool one_map = ctx.shown && KindInfo(ctx.shown->kind).shows.one_map;
    const std::string field = "{\"open\": true, \"layer\": " + std::to_string(v.layer) + ", \"head\": " +
                              std::to_string(v.head) + ", \"i\": " + std::to_string(v.i) + ", \"j\": " +
                              std::to_string(v.j);
    if (one_map) {
      ErrorText(Tr(Str::kNeuronNoHead));
      dump.SetField("neuron", field + ", \"error\": " + JsonString(Tr(Str::kNeuronNoHead)) + "}");
    } else {
      DrawSeq2SeqNeuron(ctx, field);
    }
    ImGui::End();
    return;
  }
  const std::shared_ptr<const ModelResult>& r = ctx.results.model;
  // A map kind of one map per layer (rollout) has no head's score to take apart: the cell shown before would be
  // stale beside it.
  const bool one_map = KindInfo(ctx.views.heads.kind).shows.one_map;
  // A new run (a what-if, another text) shows the same (layer, head, i, j) again once that layer is there.
  if (!one_map && r && r->generation != v.generation && r->has_layer(v.layer)) {
    v.generation = r->generation;
    Result<model::NeuronView> made = NeuronOf(*r, v.layer, v.head, v.i, v.j);
    if (made) v.view = std::make_shared<const model::NeuronView>(std::move(*made)), v.error.clear();
    else v.view.reset(), v.error = made.status();
  }
  std::string field = "{\"open\": true, \"layer\": " + std::to_string(v.layer) + ", \"head\": " + std::to_string(v.head) +
                      ", \"i\": " + std::to_string(v.i) + ", \"j\": " + std::to_string(v.j);
  if (one_map || !v.error.empty() || !v.view || !r) {
    const UiMessage error = one_map ? UiMessage(Str::kNeuronNoHead) : v.error;
    if (!error.empty()) ErrorText(error.Render());
    else DimText(Tr(Str::kNeuronHint));
    dump.SetField("neuron", field + ", \"error\": " + JsonString(error.Render()) + "}");
    ImGui::End();
    return;
  }
  const model::NeuronView& n = *v.view;
  auto token = [&](int p) { return p < (int)r->tokens.size() ? ToImGui(ShownText(r->tokens[(size_t)p].display)) : std::string(); };
  const model::ModelConfig& c = r->request.folder->model->config();
  NeuronShown shown;
  shown.view = &n;
  shown.query = token(n.i);
  shown.key = token(n.j);
  shown.d_head = (double)c.d_head;
  shown.query_pre_attn_scalar = c.query_pre_attn_scalar;
  DrawNeuronNumbers(dump, shown, field);
  ImGui::End();
}

}  // namespace attnviz
