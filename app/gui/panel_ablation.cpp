// Head ablation in the app: the right-click menu on a head's map (Heads and Overview panels), the list of ablated
// heads with "restore all" (an encoder-decoder model's too, its heads of any stack), and "ablate each head once": its
// button, progress and Cancel, and the heads ranked by how much their ablation raises the loss (the Overview can
// colour its cells by that).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "app.h"
#include "i18n/localized.h"
#include "io/json.h"
#include "model/predict.h"
#include "model_folder.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {
namespace {

// The ranking's rows shown without scrolling, and the ones the widgets dump lists (tests read the top).
constexpr int kScanTableRows = 8;
constexpr size_t kScanDumpTop = 5;

std::string HeadName(int layer, int head) { return "L" + std::to_string(layer) + " H" + std::to_string(head); }

// The scan's "loss at positions" field and its Start button, either model kind: the positions parsed (each in
// 0..n_positions-1) when Start was pressed and they parse; else nothing (a refusal kept in *error, naming the field).
std::optional<std::vector<int>> DrawScanStart(WidgetDump& dump, std::string* at_text, UiMessage* error,
                                              int n_positions) {
  // The field leaves its label room in the narrow panel (the Korean label is the longer).
  const float label = ImGui::CalcTextSize(Tr(Str::kScanAt)).x + ImGui::GetStyle().ItemInnerSpacing.x + 4.0f;
  ImGui::SetNextItemWidth(std::max(60.0f, ImGui::GetContentRegionAvail().x - label));
  widget::InputTextWithHint(dump, Str::kScanAt, "model.scan_at", Tr(Str::kScanAtHint), at_text);
  std::optional<std::vector<int>> start;
  if (widget::Button(dump, Str::kScanButton, "model.scan")) {
    Result<std::vector<int>> at = ParseLayerList(*at_text, std::max(1, n_positions));
    *error = at ? UiMessage() : UiMessage(Status::Prefixed(MsgId::kPrefixContext, {std::string(Tr(Str::kScanAt))}, at.status()));
    if (at) start = std::move(*at);
  }
  if (!error->empty()) ErrorText(error->Render());
  return start;
}

// "a, b, c" of the positions a scan read its loss at.
std::string PositionsText(const std::vector<int>& at) {
  std::string text;
  for (int i : at) text += (text.empty() ? "" : ", ") + std::to_string(i);
  return text;
}

// An encoder-decoder stack's name in the ablation's words ("encoder", "decoder", "cross-attention").
std::string StackWord(int stack) {
  return Tr(stack == kEncoderStack ? Str::kSeq2SeqEncoderSide
            : stack == kDecoderStack ? Str::kSeq2SeqDecoderSide : Str::kSeq2SeqCrossSide);
}

// The scanned heads ranked, largest loss change first (an encoder-decoder model's with their stack); a row's click
// opens that head in the Heads panel, as its Overview cell's does, and its right-click menu ablates it.
void DrawScanTable(PanelContext& ctx, const std::vector<RankedHead>& ranked) {
  const bool stacks = !ranked.empty() && ranked.front().stack >= 0;
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY;
  const float height = ImGui::GetTextLineHeightWithSpacing() * (kScanTableRows + 1);
  if (!ImGui::BeginTable("##ablation_scan", stacks ? 5 : 4, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  if (stacks) ImGui::TableSetupColumn(Tr(Str::kScanColStack));
  for (Str column : {Str::kScanColLayer, Str::kScanColHead, Str::kScanColLoss, Str::kScanColDelta})
    ImGui::TableSetupColumn(Tr(column));
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin((int)ranked.size());
  while (clipper.Step())
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const RankedHead& h = ranked[(size_t)i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const std::string first = stacks ? StackWord(h.stack) : std::to_string(h.layer);
      if (ImGui::Selectable(first.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
        if (stacks) ctx.views.seq2seq.stack = h.stack;
        ctx.settings.model_layer = h.layer;
        ctx.settings.selected_head = h.head;
        ctx.settings.enlarged = true;
      }
      ctx.dump.RecordItem("model.scan_row." + std::to_string(i), "[" + std::to_string(h.stack) + ", " +
                                                                     std::to_string(h.layer) + ", " +
                                                                     std::to_string(h.head) + "]");
      if (stacks) DrawSeq2SeqHeadAblateMenu(ctx, h.stack, h.layer, h.head);
      else DrawHeadAblateMenu(ctx, h.layer, h.head);
      ImGui::PopID();
      if (stacks) {
        ImGui::TableNextColumn();
        ImGui::Text("%d", h.layer);
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d", h.head);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatNumber(h.loss, "%.4g").c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatNumber(h.delta, "%+.3g").c_str());
    }
  ImGui::EndTable();
}

// A head's right-click menu: its one item, `label()` (made only while the menu is open); true when chosen.
bool AblateMenuItem(PanelContext& ctx, const std::function<std::string()>& label) {
  if (!ImGui::BeginPopupContextItem("##ablate_menu")) return false;
  const std::string text = label();
  const bool chosen = ImGui::MenuItem(text.c_str());
  ctx.dump.RecordItem("menu.ablate_head", JsonString(text));
  ImGui::EndPopup();
  return chosen;
}

// One ablated head in the list: its button's label and what its tooltip says a click does.
struct AblatedEntry {
  std::string name, restore_tip;
};
constexpr int kRestoreAllHeads = -2;

// The ablated heads, one button each that restores it (model.restore.<i>), "restore all" (model.restore_all) and
// the mode (model.ablate_zero, model.ablate_mean). Returns the index of the head to restore, kRestoreAllHeads or -1.
int DrawAblatedList(PanelContext& ctx, const std::vector<AblatedEntry>& heads, model::AblateMode* mode) {
  if (heads.empty()) return -1;
  WidgetDump& dump = ctx.dump;
  int restore = -1;
  ImGui::TextWrapped("%s", Tr(Str::kAblatedHeads));
  // The buttons flow onto more lines as the panel's width allows (many heads may be ablated).
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  auto same_line_if_fits = [&](const std::string& label) {
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w < right) ImGui::SameLine();
  };
  for (size_t i = 0; i < heads.size(); ++i) {
    // One button per head restores it (the label names it; the tooltip says what a click does).
    const std::string label = heads[i].name + " \xC3\x97";
    if (i) same_line_if_fits(label);
    if (ImGui::SmallButton((label + "##restore" + std::to_string(i)).c_str())) restore = (int)i;
    dump.RecordItem("model.restore." + std::to_string(i), JsonString(heads[i].name));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", heads[i].restore_tip.c_str());
  }
  same_line_if_fits(Tr(Str::kRestoreAll));
  if (widget::SmallButton(dump, Str::kRestoreAll, "model.restore_all")) restore = kRestoreAllHeads;
  // Zero ablation removes the head; mean ablation keeps what it writes on average and removes only what it
  // writes at this position (its output replaced by its mean over the text's positions).
  int m = (int)*mode;
  ImGui::TextUnformatted(Tr(Str::kAblateModeLabel));
  SameLineIfRadioFits(Tr(Str::kAblateModeZero));
  widget::RadioButton(dump, Str::kAblateModeZero, "model.ablate_zero", &m, (int)model::AblateMode::kZero);
  SameLineIfRadioFits(Tr(Str::kAblateModeMean));
  widget::RadioButton(dump, Str::kAblateModeMean, "model.ablate_mean", &m, (int)model::AblateMode::kMean);
  *mode = (model::AblateMode)m;
  return restore;
}

std::vector<std::string> Seq2SeqHeadArgs(int stack, int layer, int head) {
  return {StackWord(stack), std::to_string(layer), std::to_string(head)};
}

}  // namespace

void DrawHeadAblateMenu(PanelContext& ctx, int layer, int head) {
  const bool ablated = ctx.HeadAblated(layer, head);
  if (AblateMenuItem(ctx, [&] {
        return Trf(ablated ? Str::kRestoreHead : Str::kAblateHead, {std::to_string(layer), std::to_string(head)});
      }))
    ctx.verbs.SetHeadAblated(layer, head, !ablated);
}

bool Seq2SeqHeadAblated(const Seq2SeqPanelView& view, int stack, int layer, int head) {
  for (const model::Seq2SeqAblatedHead& a : view.ablated)
    if ((int)a.stack == stack && a.layer == layer && a.head == head) return true;
  return false;
}

void SetSeq2SeqHeadAblated(Seq2SeqPanelView* view, int stack, int layer, int head, bool ablated) {
  std::vector<model::Seq2SeqAblatedHead>& a = view->ablated;
  a.erase(std::remove_if(a.begin(), a.end(),
                         [&](const model::Seq2SeqAblatedHead& h) {
                           return (int)h.stack == stack && h.layer == layer && h.head == head;
                         }),
          a.end());
  if (ablated) a.push_back({(model::Seq2SeqStack)stack, layer, head, view->ablate_mode});
}

void DrawSeq2SeqHeadAblateMenu(PanelContext& ctx, int stack, int layer, int head) {
  const bool ablated = Seq2SeqHeadAblated(ctx.views.seq2seq, stack, layer, head);
  if (AblateMenuItem(ctx, [&] {
        return Trf(ablated ? Str::kSeq2SeqRestoreHead : Str::kSeq2SeqAblateHead, Seq2SeqHeadArgs(stack, layer, head));
      }))
    SetSeq2SeqHeadAblated(&ctx.views.seq2seq, stack, layer, head, !ablated);
}

void DrawSeq2SeqAblationControls(PanelContext& ctx) {
  Seq2SeqPanelView& v = ctx.views.seq2seq;
  std::vector<AblatedEntry> entries;
  std::string json = "[";
  for (const model::Seq2SeqAblatedHead& a : v.ablated) {
    const int s = (int)a.stack;
    entries.push_back({StackWord(s) + " " + HeadName(a.layer, a.head),
                       Trf(Str::kSeq2SeqRestoreHead, Seq2SeqHeadArgs(s, a.layer, a.head))});
    json += (json.size() > 1 ? ", [" : "[") + std::to_string(s) + ", " + std::to_string(a.layer) + ", " +
            std::to_string(a.head) + "]";
  }
  const int restore = DrawAblatedList(ctx, entries, &v.ablate_mode);
  if (restore == kRestoreAllHeads) v.ablated.clear();
  else if (restore >= 0) v.ablated.erase(v.ablated.begin() + restore);
  ctx.dump.SetField("seq2seq_ablated", json + "]");
  DrawSeq2SeqScanControls(ctx);
}

void DrawSeq2SeqScanControls(PanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  Seq2SeqPanelView& v = ctx.views.seq2seq;
  const AppResults& r = ctx.results;
  const JobProgress& p = r.seq2seq_scan_progress;
  std::string progress;
  if (r.seq2seq_scan_busy) {  // every head of every stack, one run each: "head n of N", Stop keeps those done
    progress = Trf(Str::kSeq2SeqScanProgress, {std::to_string(std::min(p.done + 1, std::max<size_t>(p.total, 1))),
                                               std::to_string(p.total)});
    ImGui::ProgressBar((float)p.fraction, ImVec2(ImGui::GetContentRegionAvail().x * 0.6f, 0), progress.c_str());
    ImGui::SameLine();
    if (widget::SmallButton(dump, Str::kSeq2SeqScanStop, "model.scan_stop")) v.scan_stop = true;
  } else if (r.seq2seq && r.seq2seq->complete()) {
    // The loss read at chosen decoder positions (each predicts the target's token there), or their mean.
    if (auto at = DrawScanStart(dump, &v.scan_at, &v.scan_at_error, (int)r.seq2seq->labels.size()))
      v.scan_start = true, v.scan_loss_at = std::move(*at);
  }
  const Seq2SeqScanResult* scan = r.seq2seq_scan.get();
  std::string error, losses = "[";
  if (scan && !scan->status.ok()) {
    ErrorText(error = Localized(scan->status));
  } else if (scan) {
    DimText(Trf(Str::kSeq2SeqScanDone, {std::to_string(scan->scan.heads_done), std::to_string(scan->scan.heads.size()),
                                        FormatNumber(scan->scan.base_loss, "%.4g")}));
    if (!scan->scan.loss_at.empty()) DimText(Trf(Str::kSeq2SeqScanAtShown, {PositionsText(scan->scan.loss_at)}));
    widget::Checkbox(dump, Str::kScanColorOverview, "model.scan_color", &v.color_by_delta);
    DrawScanTable(ctx, scan->ranked);
    for (const model::Seq2SeqHeadLoss& h : scan->scan.heads)
      losses += (losses.size() > 1 ? ", " : "") + (std::isnan(h.loss) ? std::string("null") : JsonNumber(h.loss));
  }
  dump.SetField("seq2seq_scan", "{\"busy\": " + BoolJson(r.seq2seq_scan_busy) + ", \"progress\": " +
                                    JsonString(progress) + ", \"error\": " + JsonString(error) + ", \"base_loss\": " +
                                    (scan && scan->status.ok() ? JsonNumber(scan->scan.base_loss) : "null") +
                                    ", \"heads_done\": " + (scan ? std::to_string(scan->scan.heads_done) : "0") +
                                    ", \"complete\": " + BoolJson(scan && scan->scan.complete) +
                                    ", \"loss_at\": [" + (scan ? PositionsText(scan->scan.loss_at) : "") + "]" +
                                    ", \"at_error\": " + JsonString(v.scan_at_error.Render()) +
                                    ", \"loss\": " + losses + "]}");
}

void DrawAblationControls(PanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  const std::vector<model::AblatedHead>& ablated = ctx.views.model.ablated;
  std::string ablated_json = "[";
  std::vector<AblatedEntry> entries;
  for (size_t i = 0; i < ablated.size(); ++i) {
    const model::AblatedHead a = ablated[i];
    ablated_json += (i ? ", [" : "[") + std::to_string(a.layer) + ", " + std::to_string(a.head) + "]";
    entries.push_back(
        {HeadName(a.layer, a.head), Trf(Str::kRestoreHead, {std::to_string(a.layer), std::to_string(a.head)})});
  }
  const int restore = DrawAblatedList(ctx, entries, &ctx.views.model.ablate_mode);
  if (restore == kRestoreAllHeads) ctx.verbs.RestoreAllHeads();
  else if (restore >= 0) ctx.verbs.SetHeadAblated(ablated[(size_t)restore].layer, ablated[(size_t)restore].head, false);
  dump.SetField("ablated", ablated_json + "]");

  std::shared_ptr<const ModelFolder> folder = ctx.verbs.ModelFolderOpen();
  if (!folder) return;
  const bool can_scan = model::PredictsNextToken(folder->model->config()) && model::HasLmHead(*folder->model);
  float fraction = 0;
  const std::string progress = ctx.verbs.AblationScanProgress(&fraction);
  if (!can_scan) {
    DimText(Tr(Str::kScanRefused));
  } else if (ctx.verbs.AblationScanBusy()) {
    ImGui::ProgressBar(fraction, ImVec2(ImGui::GetContentRegionAvail().x * 0.6f, 0), progress.c_str());
    ImGui::SameLine();
    if (widget::SmallButton(dump, Str::kScanCancel, "model.scan_cancel")) ctx.verbs.CancelAblationScan();
  } else {
    // Where the loss is read: "where does ablating this head hurt" at the tokens that matter, or the mean (the
    // last position predicts nothing of the text).
    const int n = ctx.results.model ? (int)ctx.results.model->tokens.size() : 0;
    if (auto at = DrawScanStart(dump, &ctx.views.model.scan_at, &ctx.views.model.scan_at_error, n - 1))
      ctx.verbs.StartAblationScan(std::move(*at));
  }
  std::shared_ptr<const AblationScanResult> scan = ctx.verbs.ShownScan();
  std::string error, top = "[";
  if (scan && !scan->status.ok()) {
    ErrorText(error = Localized(scan->status));
  } else if (scan && ctx.results.model) {
    if (scan->request != ctx.results.model->request) DimText(Tr(Str::kScanOtherWhatIfs));
    DimText(Trf(Str::kScanBase, {FormatNumber(scan->scan.base_loss, "%.4g")}));
    if (!scan->scan.loss_at.empty()) DimText(Trf(Str::kScanAtShown, {PositionsText(scan->scan.loss_at)}));
    if (!scan->scan.complete)
      DimText(Trf(Str::kScanPartial, {std::to_string(scan->scan.heads_done), std::to_string(scan->scan.loss.size())}));
    widget::Checkbox(dump, Str::kScanColorOverview, "model.scan_color", &ctx.views.model.color_by_delta);
    DrawScanTable(ctx, scan->ranked);
    for (size_t i = 0; i < std::min(kScanDumpTop, scan->ranked.size()); ++i) {
      const RankedHead& h = scan->ranked[i];
      top += (i ? ", [" : "[") + std::to_string(h.layer) + ", " + std::to_string(h.head) + ", " + JsonNumber(h.loss) +
             ", " + JsonNumber(h.delta) + "]";
    }
  }
  const std::string loss_at = "[" + (scan ? PositionsText(scan->scan.loss_at) : "");
  dump.SetField("ablation_scan", "{\"busy\": " + BoolJson(ctx.verbs.AblationScanBusy()) + ", \"progress\": " + JsonString(progress) +
                                     ", \"error\": " + JsonString(error) + ", \"base_loss\": " +
                                     (scan && scan->status.ok() ? JsonNumber(scan->scan.base_loss) : "null") +
                                     ", \"heads_done\": " + (scan ? std::to_string(scan->scan.heads_done) : "0") +
                                     ", \"complete\": " + BoolJson(scan && scan->scan.complete) +
                                     ", \"loss_at\": " + loss_at + "]" +
                                     ", \"at_error\": " + JsonString(ctx.views.model.scan_at_error.Render()) +
                                     ", \"top\": " + top + "]}");
}

}  // namespace attnviz
