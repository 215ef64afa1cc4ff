// What the model predicts, in the Model panel: each token's top next tokens (a tooltip on its chip, pinned by a
// click) and the text's mean next-token loss under the what-ifs, beside the loss of the model as trained; for an
// encoder-decoder model the top tokens at each decoder position and the target's mean loss under the ablations.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"
#include "io/json.h"
#include "maps/layer_cut.h"
#include "model/predict.h"
#include "panel_util.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

const model::PositionTop* FindPosition(const model::Predictions& p, int index) {
  for (const model::PositionTop& pos : p.positions)
    if (pos.index == index) return &pos;
  return nullptr;
}

// The loss with its formatting in one place (the line, the change and the dump read alike).
std::string Nats(double loss) { return FormatNumber(loss, "%.4f"); }

// One line per top token: its probability and what it reads as ("·the", as attnviz-cli's table writes it), not its
// vocabulary piece ("Ġthe", which attnviz-cli's JSON "token" gives); its id when the tokenizer has no text for it.
std::string TopTokenLines(const model::PositionTop& top, const tokenize::Tokenizer& tokenizer) {
  std::string lines;
  for (const model::TokenProb& t : top.top) {
    const std::optional<std::string> text = tokenizer.IdToDisplay(t.id);
    lines += "\n  " + FormatNumber(t.prob, "%.3g") + "  " + (text ? "\"" + ShownText(*text) + "\"" : std::to_string(t.id));
  }
  return lines;
}

// "loss X nats, perplexity Y".
std::string LossLine(double loss, double perplexity) {
  return Trf(Str::kLossLine, {Nats(loss), FormatNumber(perplexity, "%.4g")});
}

}  // namespace

std::string PredictionLines(const AppResults& results, int position, std::vector<int>* wanted) {
  const ModelResult* r = results.model.get();
  if (!r || !r->request.folder) return "";
  const model::PositionTop* top = nullptr;
  if (r->predictions) {
    top = FindPosition(*r->predictions, position);
  } else if (r->last_hidden && position >= 0 && position < (int)r->tokens.size() &&
             model::PredictsNextToken(r->request.folder->model->config())) {
    // The layers are done, the predictions over every position not yet: this position's rows alone.
    if (wanted && std::find(wanted->begin(), wanted->end(), position) == wanted->end()) wanted->push_back(position);
    if (results.model_top && results.model_top->request.Of(results.model))
      for (const model::PositionTop& t : results.model_top->positions)
        if (t.index == position) top = &t;
  }
  if (!top) return "";
  const ModelFolder& folder = *r->request.folder;
  const bool next = model::PredictsNextToken(folder.model->config());
  return Trf(next ? Str::kPredictNextTip : Str::kPredictMaskTip, {std::to_string(position)}) +
         TopTokenLines(*top, *folder.tokenizer);
}

std::string Seq2SeqPredictionLines(const Seq2SeqResult& r, int position) {
  if (!r.folder || position < 0 || (size_t)position >= r.top.size()) return "";
  return Trf(Str::kSeq2SeqPredictTip, {std::to_string(position)}) +
         TopTokenLines(r.top[(size_t)position], *r.folder->tokenizers.target);
}

std::string TokenTipLines(const std::vector<tokenize::Token>& tokens, size_t first, size_t count) {
  std::string tip;
  for (size_t k = 0; k < count && first + k < tokens.size(); ++k) {
    const tokenize::Token& t = tokens[first + k];
    tip += (k ? "\n" : "") + std::string("id ") + std::to_string(t.id) + "  " + ShownText(t.display) +
           (t.special ? std::string("  ") + Tr(Str::kSpecialToken) : std::string());
  }
  return tip;
}

void DrawRowLabelPredictions(PanelContext& ctx, ImVec2 labels_min, ImVec2 labels_max, int first_row, float row_height) {
  const ModelResult* r = ctx.results.model.get();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!r || !r->predictions || row_height <= 0 || !ImGui::IsWindowHovered() || mouse.x < labels_min.x ||
      mouse.x >= labels_max.x || mouse.y < labels_min.y || mouse.y >= labels_max.y)
    return;
  int row = first_row + (int)((mouse.y - labels_min.y) / row_height);
  // With the special tokens hidden, row k is the k-th other token.
  int position = row;
  if (ctx.settings.model_hide_special && !r->streamed) {
    position = -1;
    for (size_t i = 0, shown = 0; i < r->tokens.size() && position < 0; ++i)
      if (!HiddenAsSpecial(r->tokens[i]) && (int)shown++ == row) position = (int)i;
  }
  const std::string lines = PredictionLines(ctx.results, position);
  if (lines.empty()) return;
  ctx.NeedGlyphs(lines);
  ImGui::SetTooltip("%s", lines.c_str());
}

void DrawLossLine(PanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  const ModelResult* r = ctx.results.model.get();
  std::string value = "null", baseline = "null";
  if (r && r->complete()) {
    const model::ModelConfig& c = r->request.folder->model->config();
    if (!r->has_lm_head) {
      DimText(Tr(Str::kNoLmHead));
    } else if (!model::PredictsNextToken(c)) {
      DimText(Tr(Str::kLossMasked));
    } else if (r->predictions && r->predictions->has_loss) {
      const model::Predictions& p = *r->predictions;
      value = JsonNumber(p.loss);
      if (r->baseline_loss) baseline = JsonNumber(*r->baseline_loss);
      ImGui::TextWrapped("%s", LossLine(p.loss, p.perplexity).c_str());
      if (!r->request.plain()) {  // what the what-ifs and ablations did to it
        if (r->baseline_loss) ImGui::TextWrapped("%s", Trf(Str::kLossChange, {Nats(*r->baseline_loss), Nats(p.loss)}).c_str());
        else DimText(Tr(Str::kLossBaselineUnknown));
      }
      DimText(Tr(Str::kLossExplain));
    }
  }
  dump.SetField("loss", "{\"value\": " + value + ", \"baseline\": " + baseline +
                            ", \"has_lm_head\": " + BoolJson(r && r->has_lm_head) +
                            ", \"plain\": " + BoolJson(r && r->request.plain()) + "}");
}

void DrawSeq2SeqLossLine(PanelContext& ctx) {
  const Seq2SeqResult* r = ctx.results.seq2seq.get();
  std::string value = "null", baseline = "null";
  const bool plain = !r || r->request.ablate.empty();
  if (r && r->complete() && !r->token_loss.empty()) {
    value = JsonNumber(r->loss);
    ImGui::TextWrapped("%s", LossLine(r->loss, std::exp(r->loss)).c_str());
    if (!plain) {  // what the ablations did to it
      baseline = JsonNumber(r->base_loss);
      ImGui::TextWrapped("%s", Trf(Str::kSeq2SeqLossChange, {FormatNumber(r->loss - r->base_loss, "%+.4f"),
                                                             Nats(r->base_loss)})
                                   .c_str());
    }
    DimText(Tr(Str::kSeq2SeqLossExplain));
  }
  ctx.dump.SetField("loss", "{\"value\": " + value + ", \"baseline\": " + baseline +
                                ", \"has_lm_head\": true, \"plain\": " + BoolJson(plain) + "}");
}

}  // namespace attnviz
