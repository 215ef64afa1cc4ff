// The Heads panel's map kind choice in model mode (Attention / Rollout / Value-weighted): it drives what the
// Heads panel, the Overview and the export show (App::OverviewLayer), with one sentence on what the kind means and,
// when a run cannot make it (a long input, the memory limit), why not.
#include <imgui.h>

#include "app.h"
#include "i18n/localized.h"
#include "i18n/map_kind_words.h"
#include "io/json.h"
#include "model_analysis.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {
namespace {

// Under an encoder-decoder model's choice: what the kind means, why the shown stack has none of it, or that its
// maps are being made.
void DrawSeq2SeqKindState(PanelContext& ctx) {
  const MapKind kind = ctx.views.heads.kind;
  if (WordsOf(kind).explain != Str::kCount) DimText(Tr(WordsOf(kind).explain));
  const bool refused = !Seq2SeqKindRefusal(kind, ctx.views.seq2seq.stack).ok();
  const Seq2SeqKindResult* made = ctx.results.seq2seq_kind.get();
  const std::string refusal = refused                            ? Tr(Str::kSeq2SeqRolloutNoCross)
                              : made && !made->status.ok() ? Localized(made->status)
                                                           : std::string();
  if (!refusal.empty()) ErrorText(refusal);
  const bool making = !refused && kind != MapKind::kAttention && !ctx.results.seq2seq_kind;
  if (making) DimText(Tr(Str::kSeq2SeqKindMaking));
  ctx.dump.SetField("map_kind", "{\"kind\": " + JsonString(MapKindName(kind)) + ", \"refusal\": " +
                                    JsonString(refusal) + ", \"making\": " + BoolJson(making) + ", \"pooled\": \"\"}");
}

}  // namespace

void DrawMapKindChoice(PanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  MapKind& kind = ctx.views.heads.kind;
  // An encoder-decoder model: a kind its shown stack has none of is disabled (seq2seq_jobs.h Seq2SeqKindRefusal).
  const bool seq2seq = ctx.results.seq2seq_mode(ctx.settings);
  ImGui::TextUnformatted(Tr(Str::kMapKindLabel));
  for (const MapKindInfo* choice : MapKinds()) {  // the registry's kinds, in its order (core/session/map_kind.h)
    ImGui::SameLine();
    const std::string widget_name = std::string("heads.kind_") + choice->name;
    const bool disabled = seq2seq && !Seq2SeqKindRefusal(choice->kind, ctx.views.seq2seq.stack).ok();
    ImGui::BeginDisabled(disabled);
    if (widget::RadioButton(dump, WordsOf(choice->kind).label, widget_name.c_str(), kind == choice->kind))
      kind = choice->kind;
    ImGui::EndDisabled();
  }
  if (seq2seq) return DrawSeq2SeqKindState(ctx);
  const KindShows& shows = KindInfo(kind).shows;
  if (WordsOf(kind).explain != Str::kCount) DimText(Tr(WordsOf(kind).explain));
  // A long input's rollout is pooled into blocks (model_analysis.h RolloutFactor): say to how many tokens a cell.
  const int n = ctx.results.model ? (int)ctx.results.model->tokens.size() : 0;
  const std::string pooled = !shows.exact_from_qk && n > 0 && RolloutFactor(n) > 1
                                 ? Trf(Str::kRolloutPooled, {std::to_string(n), std::to_string(kRolloutMaxTokens),
                                                             std::to_string(RolloutFactor(n))})
                                 : std::string();
  if (!pooled.empty()) DimText(pooled);
  const std::string refusal = ctx.results.model ? MapKindRefusal(*ctx.results.model, kind).Render() : std::string();
  if (!refusal.empty()) ErrorText(refusal);
  // A streamed run's value-weighted layer is made in the background (App::UpdateModel); the attention maps meanwhile.
  bool making = false;
  if (const ModelResult* model = ctx.results.model.get(); model && ctx.settings.source == Source::kModel && refusal.empty()) {
    const int layer = std::clamp(ctx.settings.model_layer, 0, std::max(0, model->n_layer() - 1));
    making = ValueWeightedPending(*model, layer, kind, nullptr) &&
             (!ctx.shown || !ctx.shown->maps || ctx.shown->maps->col_scale->empty());
    if (making) DimText(Trf(Str::kValueWeightedMaking, {std::to_string(layer)}));
    if (shows.after_last_layer && RolloutPending(*model, layer)) {
      making = true;
      DimText(Tr(Str::kRolloutMaking));
    }
  }
  dump.SetField("map_kind", "{\"kind\": " + JsonString(MapKindName(kind)) + ", \"refusal\": " + JsonString(refusal) +
                                ", \"making\": " + (making ? "true" : "false") +
                                ", \"pooled\": " + JsonString(pooled) + "}");
}

}  // namespace attnviz
