#include "token_chips.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"  // FormatNumber
#include "io/json.h"
#include "maps/layer_cut.h"
#include "panel_util.h"
#include "tokenize/shown_text.h"
#include "widgets.h"

namespace attnviz {
namespace {

// Lays the chips of `text` out for a content width (chips wrap as whole buttons, 3 px apart), unless they are.
void LayOutChips(const ChipText& text, float width, TokenChips* c) {
  const float font_size = ImGui::GetFontSize();
  if (c->folder == text.owner && c->text == text.text && c->width == width && c->font_size == font_size &&
      !c->chips.empty())
    return;
  c->folder = text.owner, c->text = text.text, c->width = width, c->font_size = font_size;
  c->chips.clear();
  c->line_start.clear();
  std::string joined;
  float x = 0;  // where the last chip ends, from the content's left
  const std::vector<tokenize::Token>& tokens = *text.tokens;
  for (const tokenize::TokenGroup& group : tokenize::JoinBytePieces(tokens)) {
    TokenChips::Chip chip;
    chip.label = ShownText(group.display);
    if (chip.label.empty()) chip.label = "\xE2\x90\xA3";  // a visible nothing
    chip.first = group.first, chip.count = group.count, chip.special = HiddenAsSpecial(tokens[group.first]);
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
std::vector<ChipLoss> DrawChipColorChoice(PanelContext& ctx, const ChipText& text, ChipState state) {
  WidgetDump& dump = ctx.dump;
  if (!text.can_color) {
    if (!text.no_loss.empty()) DimText(text.no_loss);
    return {};
  }
  int mode = (int)*state.color;
  ImGui::TextUnformatted(Tr(Str::kChipColorLabel));
  SameLineIfRadioFits(Tr(Str::kChipColorNone));
  widget::RadioButton(dump, Str::kChipColorNone, "model.chip_color_none", &mode, (int)ChipColor::kNone);
  SameLineIfRadioFits(Tr(Str::kChipColorLoss));
  widget::RadioButton(dump, Str::kChipColorLoss, "model.chip_color_loss", &mode, (int)ChipColor::kLoss);
  SameLineIfRadioFits(Tr(Str::kChipColorDelta));
  widget::RadioButton(dump, Str::kChipColorDelta, "model.chip_color_delta", &mode, (int)ChipColor::kLossChange);
  *state.color = (ChipColor)mode;
  if (*state.color == ChipColor::kNone) {
    dump.SetField("token_loss", "{\"mode\": \"none\"}");
    return {};
  }
  std::vector<ChipLoss> losses = ChipLosses(text.losses, state.chips->chips);
  const double scale = ChipLossScale(losses, *state.color);
  const bool change = *state.color == ChipColor::kLossChange;
  ImGui::PushTextWrapPos(0);
  DimText(Tr(change ? text.delta_explain : text.explain));
  ImGui::PopTextWrapPos();
  if (change && text.base_unknown) DimText(Tr(Str::kLossBaselineUnknown));
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
std::string ChipLossLines(const ChipText& text, const ChipLoss& l, bool first_token) {
  if (!l.has) return first_token ? Tr(Str::kTokenLossFirstTip) : "";
  std::string lines = Trf(Str::kTokenLossTip, {FormatNumber(l.loss, "%.4f"), FormatNumber(std::exp(-l.loss), "%.4g")});
  if (l.has_base && std::abs(l.delta()) > 0)
    lines += "\n" + Trf(text.tip_delta, {FormatNumber(l.base_loss, "%.4f"), FormatNumber(std::exp(-l.base_loss), "%.4g"),
                                         FormatNumber(l.delta(), "%+.4f")});
  return lines;
}

}  // namespace

// Only the lines in sight are submitted (a long text has thousands of chips).
void DrawTokenChips(PanelContext& ctx, const ChipText& text, ChipState state) {
  TokenChips& c = *state.chips;
  LayOutChips(text, ImGui::GetContentRegionAvail().x, &c);
  const std::vector<ChipLoss> losses = DrawChipColorChoice(ctx, text, state);
  const double scale = ChipLossScale(losses, *state.color);
  const std::vector<tokenize::Token>& tokens = *text.tokens;
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
        const int position = (int)(text.predictions_after ? chip.first + chip.count - 1 : chip.first);
        // The label is drawn, not given to Button: ImGui would take a WordPiece's "##ing" for an id ("##" hides
        // what follows) and draw an empty chip.
        const ImVec2 pad = ImGui::GetStyle().FramePadding;
        const ImVec2 text_size = ImGui::CalcTextSize(chip.label.c_str(), nullptr, false);
        if (ImGui::Button("##chip", ImVec2(text_size.x + 2 * pad.x, text_size.y + 2 * pad.y))) *state.pinned = position;
        const ImVec2 at(ImGui::GetItemRectMin().x + pad.x, ImGui::GetItemRectMin().y + pad.y);
        if (g < losses.size())
          if (const ImU32 fill = ChipLossColor(losses[g], *state.color, scale))
            ImGui::GetWindowDrawList()->AddRectFilled(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), fill,
                                                      ImGui::GetStyle().FrameRounding);
        ImGui::GetWindowDrawList()->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), chip.label.c_str());
        ctx.dump.RecordItem("model.token." + std::to_string(g), std::to_string(position));
        ImGui::PopID();
        if (chip.special) ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
          std::string tip = TokenTipLines(tokens, chip.first, chip.count);
          if (g < losses.size())
            if (const std::string lines = ChipLossLines(text, losses[g], chip.first == 0); !lines.empty())
              tip += "\n" + lines;
          ctx.NeedGlyphs(tip);
          if (const std::string guesses = text.predictions ? text.predictions(position) : ""; !guesses.empty()) {
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
  if (!text.no_predictions.empty()) {
    DimText(text.no_predictions);
  } else if (text.has_predictions) {
    pinned = text.predictions ? text.predictions(*state.pinned) : "";
    if (pinned.empty()) {
      DimText(Tr(Str::kPredictHowTo));
    } else {
      ctx.NeedGlyphs(pinned);
      DimText(Tr(Str::kPredictPinned));
      ImGui::TextUnformatted(pinned.c_str());
    }
  }
  ctx.dump.SetField("predictions", "{\"positions\": " + std::to_string(text.prediction_positions) +
                                       ", \"pinned\": " + std::to_string(*state.pinned) +
                                       ", \"pinned_text\": " + JsonString(pinned) + "}");
}

}  // namespace attnviz
