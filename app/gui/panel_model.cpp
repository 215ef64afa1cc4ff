// Model: switch between the sandbox and a trained model; open a model folder (path, recent models,
// the bundled one, or drop the folder on the window); the tokens as the model sees them; the layer
// the Heads panel shows; the what-ifs (no 1/sqrt(d_head), a temperature) on all or chosen layers, with the loss and
// the ablated heads under them (panel_predictions.cpp, panel_ablation.cpp); each token's top next tokens.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app.h"
#include "base/memory_budget.h"
#include "io/json.h"
#include "lessons.h"
#include "maps/layer_cut.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "token_loss.h"
#include "tokenize/shown_text.h"
#include "widgets.h"

namespace attnviz {
namespace {

// Lays the chips of `result` out for a content width (chips wrap as whole buttons, 3 px apart), unless they are.
void LayOutChips(const ModelResult& result, float width, TokenChips* c) {
  const float font_size = ImGui::GetFontSize();
  if (c->folder == result.request.folder.get() && c->text == result.request.text && c->width == width &&
      c->font_size == font_size && !c->chips.empty())
    return;
  c->folder = result.request.folder.get(), c->text = result.request.text, c->width = width, c->font_size = font_size;
  c->chips.clear();
  c->line_start.clear();
  std::string joined;
  float x = 0;  // where the last chip ends, from the content's left
  for (const tokenize::TokenGroup& group : tokenize::JoinBytePieces(result.tokens)) {
    TokenChips::Chip chip;
    chip.label = ShownText(group.display);
    if (chip.label.empty()) chip.label = "\xE2\x90\xA3";  // a visible nothing
    chip.first = group.first, chip.count = group.count, chip.special = HiddenAsSpecial(result.tokens[group.first]);
    joined += (joined.empty() ? "" : " | ") + chip.label;
    const float w = ImGui::CalcTextSize(chip.label.c_str()).x + 8.0f;
    if (!c->chips.empty() && x + 3.0f + w < width) {
      x += 3.0f + w;
    } else {
      c->line_start.push_back(c->chips.size());
      x = w;
    }
    c->chips.push_back(std::move(chip));
  }
  c->joined_json = JsonString(joined);
}

// The chips' colour: a loss on a sequential orange scale [0, scale], a change red (worse) / blue (better) over
// [-scale, scale]; transparent where the chip has no value.
ImU32 ChipLossColor(const ChipLoss& c, ChipColor mode, double scale) {
  if (!c.has || !(scale > 0) || mode == ChipColor::kNone) return 0;
  if (mode == ChipColor::kLoss) return IM_COL32(240, 140, 40, (int)(25 + 205 * std::min(1.0, c.loss / scale)));
  if (!c.has_base) return 0;
  const double d = c.delta() / scale;
  const int alpha = (int)(220 * std::min(1.0, std::abs(d)));
  return d >= 0 ? IM_COL32(230, 40, 30, alpha) : IM_COL32(40, 90, 230, alpha);
}

// "Colour the tokens by: nothing / loss / loss change", what the colours mean and their scale's ends; the chips'
// values in the widget dump (token_loss). Returns the losses per chip (empty: nothing to colour by).
std::vector<ChipLoss> DrawChipColorChoice(PanelContext& ctx, const ModelResult& result) {
  WidgetDump& dump = ctx.dump;
  ModelPanelView& v = ctx.views.model;
  const model::ModelConfig& c = result.request.folder->model->config();
  if (!result.has_lm_head) return {};
  if (!model::PredictsNextToken(c)) {
    DimText(Trf(Str::kTokenLossMasked, {c.model_type}));
    return {};
  }
  if (result.tokens.size() < 2) {
    DimText(Tr(Str::kTokenLossShort));
    return {};
  }
  int mode = (int)v.chip_color;
  ImGui::TextUnformatted(Tr(Str::kChipColorLabel));
  SameLineIfRadioFits(Tr(Str::kChipColorNone));
  widget::RadioButton(dump, Str::kChipColorNone, "model.chip_color_none", &mode, (int)ChipColor::kNone);
  SameLineIfRadioFits(Tr(Str::kChipColorLoss));
  widget::RadioButton(dump, Str::kChipColorLoss, "model.chip_color_loss", &mode, (int)ChipColor::kLoss);
  SameLineIfRadioFits(Tr(Str::kChipColorDelta));
  widget::RadioButton(dump, Str::kChipColorDelta, "model.chip_color_delta", &mode, (int)ChipColor::kLossChange);
  v.chip_color = (ChipColor)mode;
  if (v.chip_color == ChipColor::kNone) {
    dump.SetField("token_loss", "{\"mode\": \"none\"}");
    return {};
  }
  std::vector<ChipLoss> losses = ChipLosses(result, v.chips.chips);
  const double scale = ChipLossScale(losses, v.chip_color);
  const bool change = v.chip_color == ChipColor::kLossChange;
  ImGui::PushTextWrapPos(0);
  DimText(Tr(change ? Str::kTokenLossDeltaExplain : Str::kTokenLossExplain));
  ImGui::PopTextWrapPos();
  if (change && !result.request.plain() && !result.baseline_next_log_prob) DimText(Tr(Str::kLossBaselineUnknown));
  if (!losses.empty()) {  // the scale: its ends and what they measure
    const std::string lo = change ? FormatNumber(-scale, "%+.3f") : "0", hi = FormatNumber(scale, change ? "%+.3f" : "%.3f");
    ImGui::TextUnformatted(lo.c_str());
    ImGui::SameLine();
    const float h = ImGui::GetTextLineHeight(), w = 120.0f;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(w, h));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (change) {
      const float mid = p0.x + w * 0.5f;
      dl->AddRectFilledMultiColor(p0, ImVec2(mid, p0.y + h), IM_COL32(40, 90, 230, 220), IM_COL32(40, 90, 230, 0),
                                  IM_COL32(40, 90, 230, 0), IM_COL32(40, 90, 230, 220));
      dl->AddRectFilledMultiColor(ImVec2(mid, p0.y), ImVec2(p0.x + w, p0.y + h), IM_COL32(230, 40, 30, 0),
                                  IM_COL32(230, 40, 30, 220), IM_COL32(230, 40, 30, 220), IM_COL32(230, 40, 30, 0));
    } else {
      dl->AddRectFilledMultiColor(p0, ImVec2(p0.x + w, p0.y + h), IM_COL32(240, 140, 40, 25), IM_COL32(240, 140, 40, 230),
                                  IM_COL32(240, 140, 40, 230), IM_COL32(240, 140, 40, 25));
    }
    dl->AddRect(p0, ImVec2(p0.x + w, p0.y + h), ImGui::GetColorU32(kDimColor));
    ImGui::SameLine();
    ImGui::TextUnformatted((hi + "  " + Tr(change ? Str::kTokenLossDeltaLegend : Str::kTokenLossLegend)).c_str());
  }
  if (dump.enabled()) {
    std::string values, deltas;
    for (const ChipLoss& l : losses) {
      values += (values.empty() ? "" : ", ") + (l.has ? JsonNumber(l.loss) : std::string("null"));
      deltas += (deltas.empty() ? "" : ", ") + (l.has_base ? JsonNumber(l.delta()) : std::string("null"));
    }
    dump.SetField("token_loss", "{\"mode\": \"" + std::string(change ? "change" : "loss") + "\", \"scale\": " +
                                    JsonNumber(scale) + ", \"chips\": [" + values + "], \"deltas\": [" + deltas + "]}");
  }
  return losses;
}

// A chip's loss lines for its tooltip.
std::string ChipLossLines(const ChipLoss& l, bool first_token) {
  if (!l.has) return first_token ? Tr(Str::kTokenLossFirstTip) : "";
  std::string lines = Trf(Str::kTokenLossTip, {FormatNumber(l.loss, "%.4f"), FormatNumber(std::exp(-l.loss), "%.4g")});
  if (l.has_base && std::abs(l.delta()) > 0)
    lines += "\n" + Trf(Str::kTokenLossTipDelta, {FormatNumber(l.base_loss, "%.4f"),
                                                  FormatNumber(std::exp(-l.base_loss), "%.4g"),
                                                  FormatNumber(l.delta(), "%+.4f")});
  return lines;
}

// The tokens as chips: byte pieces that make one character are joined (JoinBytePieces); special
// tokens dimmed; hovering one shows its id and vocabulary piece. Only the lines in sight are submitted.
void DrawTokens(PanelContext& ctx, const ModelResult& result) {
  TokenChips& c = ctx.views.model.chips;
  LayOutChips(result, ImGui::GetContentRegionAvail().x, &c);
  const std::vector<ChipLoss> losses = DrawChipColorChoice(ctx, result);
  const double scale = ChipLossScale(losses, ctx.views.model.chip_color);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(3, 3));
  ImGuiListClipper clipper;
  clipper.Begin((int)c.line_start.size(), ImGui::GetFrameHeightWithSpacing());
  while (clipper.Step())
    for (int line = clipper.DisplayStart; line < clipper.DisplayEnd; ++line) {
      const size_t end = line + 1 < (int)c.line_start.size() ? c.line_start[(size_t)line + 1] : c.chips.size();
      for (size_t g = c.line_start[(size_t)line]; g < end; ++g) {
        const TokenChips::Chip& chip = c.chips[g];
        if (g > c.line_start[(size_t)line]) ImGui::SameLine();
        if (chip.special) ImGui::PushStyleColor(ImGuiCol_Text, kDimColor);
        ImGui::PushID((int)g);
        // The group's last token is where the model's guess for what follows the group is read.
        const int position = (int)(chip.first + chip.count - 1);
        // The label is drawn, not given to Button: ImGui would take a WordPiece's "##ing" for an id ("##" hides
        // what follows) and draw an empty chip.
        const ImVec2 pad = ImGui::GetStyle().FramePadding;
        const ImVec2 text_size = ImGui::CalcTextSize(chip.label.c_str(), nullptr, false);
        if (ImGui::Button("##chip", ImVec2(text_size.x + 2 * pad.x, text_size.y + 2 * pad.y)))
          ctx.views.model.pinned_position = position;
        const ImVec2 at(ImGui::GetItemRectMin().x + pad.x, ImGui::GetItemRectMin().y + pad.y);
        if (g < losses.size())
          if (const ImU32 fill = ChipLossColor(losses[g], ctx.views.model.chip_color, scale))
            ImGui::GetWindowDrawList()->AddRectFilled(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), fill,
                                                      ImGui::GetStyle().FrameRounding);
        ImGui::GetWindowDrawList()->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), chip.label.c_str());
        ctx.dump.RecordItem("model.token." + std::to_string(g), std::to_string(position));
        ImGui::PopID();
        if (chip.special) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
          std::string tip = TokenTipLines(result.tokens, chip.first, chip.count);
          if (g < losses.size())
            if (const std::string lines = ChipLossLines(losses[g], chip.first == 0); !lines.empty()) tip += "\n" + lines;
          ctx.NeedGlyphs(tip);
          if (const std::string guesses = PredictionLines(ctx.results, position); !guesses.empty()) {
            tip += "\n\n" + guesses;
            ctx.NeedGlyphs(guesses);  // the vocabulary's pieces may need glyphs the text did not
          }
          ImGui::SetTooltip("%s", tip.c_str());
        }
      }
    }
  ImGui::PopStyleVar();
  ctx.dump.SetField("model_tokens", c.joined_json);
  // The pinned token's guesses stay below the chips until another chip is clicked.
  std::string pinned;
  if (!result.has_lm_head) DimText(Tr(Str::kNoLmHead));
  else if (result.predictions && result.predictions->positions.empty()) DimText(Tr(Str::kPredictNoMask));
  else if (result.predictions) {
    pinned = PredictionLines(ctx.results, ctx.views.model.pinned_position);
    if (pinned.empty()) {
      DimText(Tr(Str::kPredictHowTo));
    } else {
      ctx.NeedGlyphs(pinned);
      DimText(Tr(Str::kPredictPinned));
      ImGui::TextUnformatted(pinned.c_str());
    }
  }
  ctx.dump.SetField("predictions", "{\"positions\": " +
                                       std::to_string(result.predictions ? result.predictions->positions.size() : 0) +
                                       ", \"pinned\": " + std::to_string(ctx.views.model.pinned_position) +
                                       ", \"pinned_text\": " + JsonString(pinned) + "}");
}

}  // namespace

void DrawModelPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.0f, 0.0f, 0.258f, 0.59f);  // where the sandbox's Controls panel sits
  if (!ImGui::Begin(WindowTitle(Str::kWinModel, "Model").c_str())) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = ctx.dump;
  AppSettings& s = ctx.settings;
  float width = ImGui::GetContentRegionAvail().x;

  int source = (int)s.source;
  widget::RadioButton(dump, Str::kSourceSandbox, "model.source_sandbox", &source, (int)Source::kSandbox);
  widget::RadioButton(dump, Str::kSourceModel, "model.source_model", &source, (int)Source::kModel);
  ImGui::SameLine();
  DrawLanguageSwitch(ctx);
  if (source != (int)s.source) ctx.verbs.SetSource((Source)source);

  ImGui::Separator();
  ImGui::TextWrapped("%s", Tr(Str::kModelFolderHint));  // wrapped: the Korean hint ran past a narrow panel
  ImGui::SetNextItemWidth(width - ImGui::CalcTextSize(Tr(Str::kOpen)).x - ImGui::GetStyle().FramePadding.x * 2 -
                          ImGui::GetStyle().ItemSpacing.x);
  bool enter = widget::TextField("##model_path", &ctx.views.model.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
  dump.RecordItem("model.path", JsonString(ctx.views.model.path_input));
  ImGui::SameLine();
  bool open = widget::Button(dump, Str::kOpen, "model.open");
  if ((enter || open) && !ctx.views.model.path_input.empty()) ctx.verbs.OpenModel(ctx.views.model.path_input);
  // The bundled model first, then the recent ones.
  std::vector<std::string> offers;
  if (!ctx.bundled_model_dir.empty()) offers.push_back(ctx.bundled_model_dir);
  for (const std::string& m : s.recent_models)
    if (m != ctx.bundled_model_dir) offers.push_back(m);
  for (size_t i = 0; i < offers.size(); ++i) {
    const bool bundled = offers[i] == ctx.bundled_model_dir;
    std::string label = (bundled ? std::string(Tr(Str::kBundledTiny)) : offers[i]) + "##offer" + std::to_string(i);
    if (ImGui::SmallButton(label.c_str())) ctx.verbs.OpenModel(offers[i]);
    dump.RecordItem(bundled ? "model.bundled" : "model.recent." + std::to_string(i), JsonString(offers[i]));
  }
  if (ctx.verbs.ModelOpening()) DimText(Trf(Str::kOpeningModel, {s.model_dir}));
  const std::string open_error = ctx.verbs.ModelOpenError();
  if (!open_error.empty()) ErrorText(open_error);
  dump.SetField("model_open_error", JsonString(open_error));
  std::shared_ptr<const ModelFolder> folder = ctx.verbs.ModelFolderOpen();
  if (folder) {  // ModelFolder::Describe() with the model's part in the UI's language (the tokenizer's as it is)
    const std::string description =
        folder->dir + ": " + LocalizedModelDescribe(folder->model->config()) + " \xC2\xB7 " + LocalizedTokenizerDescribe(folder->tokenizer->Describe());
    DimText(description);
    dump.SetField("model_description", JsonString(description));
    const bool bundled_on_repeat = folder->dir == ctx.bundled_model_dir && s.kv_text == kRepeatedSentence;
    if (bundled_on_repeat) DimText(Tr(Str::kBundledRepeatedWhy));
    dump.SetField("model_bundled_repeat_note", bundled_on_repeat ? "true" : "false");
    const model::Model& m = *folder->model;
    if (std::string(m.format()) == "GGUF") {  // what was read: the architecture, the tensor types, the file's size
      const std::string read =
          Trf(Str::kGgufWhatWasRead, {m.config().model_type, m.TensorTypes(), MemoryText((double)m.FileBytes())});
      DimText(read);
      dump.SetField("model_gguf", JsonString(read));
    }
  }
  else DimText(Tr(Str::kDropModelHint));

  if (folder) {
    const model::ModelConfig& c = folder->model->config();
    ImGui::Separator();
    // Layer: what the Heads panel shows.
    s.model_layer = std::clamp(s.model_layer, 0, c.n_layer - 1);
    ImGui::SetNextItemWidth(width * 0.6f);
    widget::SliderInt(dump, Str::kLayer, "model.layer", &s.model_layer, 0, c.n_layer - 1);
    widget::Checkbox(dump, Str::kHideSpecial, "model.hide_special", &s.model_hide_special);
    if (s.model_hide_special && ctx.results.model && ctx.results.model->streamed)
      DimText(Tr(Str::kHideSpecialStreamed));  // no whole map to cut them out of
    ImGui::TextUnformatted(Tr(Str::kWhatIf));
    widget::Checkbox(dump, Str::kNoScaling, "model.no_scale", &s.model_no_scale);
    if (c.attn_softcap > 0) widget::Checkbox(dump, Str::kNoSoftcap, "model.no_softcap", &s.model_no_softcap);
    if (c.recipe.qk_norm != model::BlockRecipe::QkNorm::kNone)
      widget::Checkbox(dump, Str::kNoQkNorm, "model.no_qk_norm", &s.model_no_qk_norm);
    ImGui::SetNextItemWidth(width * 0.6f);
    widget::SliderFloat(dump, Str::kTemperature, "model.temperature", &s.model_temperature, 0.05f, 20.0f, "%.3g", ImGuiSliderFlags_Logarithmic);
    ImGui::SetNextItemWidth(width * 0.6f);
    widget::InputTextWithHint(dump, Str::kOnLayers, "model.whatif_layers", Tr(Str::kOnLayersHint),
                              &s.model_whatif_layers);
    DrawLossLine(ctx);
    DrawAblationControls(ctx);
    if (!ctx.results.model_error.empty()) ErrorText(ctx.results.model_error.Render());
    // A text too long for the model: run its first max_positions tokens instead (the text is cut where a token ends).
    if (ctx.results.model_error.Says(MsgId::kTextTooLongForModel) ||
        ctx.results.model_error.Says(MsgId::kTextTooManyBytesForModel)) {
      if (const std::shared_ptr<const ModelFolder> folder = ctx.verbs.ModelFolderOpen()) {
        const std::string most = std::to_string(folder->model->config().max_positions);
        if (widget::Button(dump, Trf(Str::kUseFirstTokens, {most}).c_str(), "model.use_first_tokens")) {
          if (auto cut = TextOfFirstTokens(*folder, s.kv_text); cut.ok()) s.kv_text = *cut;
        }
      }
    }
    float fraction = 0;
    const std::string progress = ModelProgressText(ctx.verbs.ModelRunProgress(), &fraction);
    if (!progress.empty()) {
      widget::ProgressBar(dump, "model.progress", fraction, width, Trf(Str::kRunning, {progress}));
    }
    dump.SetField("model_progress", JsonString(progress));
    // How many runs were asked of the session by then (a request sent twice would restart its run).
    if (ctx.results.model) dump.SetField("model_run_generation", std::to_string(ctx.results.model->generation));
    if (ctx.results.model && ctx.results.model->status.ok()) {
      const ModelResult& r = *ctx.results.model;
      ImGui::Separator();
      const std::string line = ctx.HeadRoleLine(s.model_layer, s.selected_head);
      if (!line.empty()) {
        ImGui::TextWrapped("%s", line.c_str());
        dump.SetField("model_head_role", JsonString(line));
      }
      ImGui::TextUnformatted(
          Trf(Str::kTokensAsModelSees, {std::to_string(r.tokens.size()), FormatNumber(r.seconds, "%.2f")}).c_str());
      DrawTokens(ctx, r);
    }
  }
  ImGui::End();
}

}  // namespace attnviz
