// Controls: every attention setting, plus how the maps are coloured.
#include <imgui.h>

#include <cmath>

#include "app.h"  // FormatNumber
#include "panel_context.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "sandbox/score.h"
#include "widgets.h"

namespace attnviz {

namespace {

// The sizes, the scaling and the temperature.
void DrawSizeKnobs(PanelContext& ctx) {
  AttentionConfig& c = ctx.settings.config;
  WidgetDump& dump = ctx.dump;
  widget::SliderInt(dump, Str::kDModel, "controls.d_model", &c.d_model, 1, kMaxDModel, "%d", ImGuiSliderFlags_Logarithmic);
  widget::SliderInt(dump, Str::kHeadsKnob, "controls.n_head", &c.n_head, 1, 16, "%d");

  int d_k = c.head_dim_k();
  if (widget::SliderInt(dump, "d_k", "controls.d_k", &d_k, 1, kMaxHeadDim, "%d", ImGuiSliderFlags_Logarithmic)) c.d_k = d_k;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kDkTip));
  ImGui::SameLine();
  bool d_k_auto = c.d_k == 0;
  if (widget::Checkbox(dump, Str::kAuto, "controls.d_k_auto", &d_k_auto)) c.d_k = d_k_auto ? 0 : c.head_dim_k();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kDkAutoTip));

  int d_v = c.head_dim_v();
  if (widget::SliderInt(dump, "d_v", "controls.d_v", &d_v, 1, kMaxHeadDim, "%d", ImGuiSliderFlags_Logarithmic)) c.d_v = d_v;
  ImGui::SameLine();
  bool d_v_auto = c.d_v == 0;
  if (widget::Checkbox(dump, Str::kAuto, "controls.d_v_auto", &d_v_auto)) c.d_v = d_v_auto ? 0 : c.head_dim_v();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kDvAutoTip));

  // Only scaled-dot divides its logits by sqrt(d_k) (logit_multiplier): under another score the box would change
  // nothing, so it is greyed out and says why (the setting is kept for when scaled-dot comes back).
  const bool scale_acts = c.score == ScoreKind::kScaledDot;
  if (!scale_acts) ImGui::BeginDisabled();
  widget::Checkbox(dump, Str::kScaleCheckbox, "controls.scale", &c.scale);
  if (!scale_acts) ImGui::EndDisabled();
  if (!scale_acts && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", Trf(Str::kScaleOnlyScaledDotTip, {ScoreFormula(c.score)}).c_str());
  dump.SetField("controls_scale_disabled", BoolJson(!scale_acts));

  widget::SliderFloat(dump, Str::kTemperature, "controls.temperature", &c.temperature, 0.01f, 100.0f, "%.3g", ImGuiSliderFlags_Logarithmic);
  if (!std::isfinite(c.temperature)) c.temperature = 1.0f;  // a typed "nan" never reaches the engine

  // Seed (d) as today's models answer it: the q/k norm (Qwen3, OLMo 2, Gemma 3) and the soft cap (Gemma 2).
  widget::Checkbox(dump, Str::kQkNormCheckbox, "controls.qk_norm", &c.qk_norm);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kQkNormTip));
  bool capped = c.softcap > 0;
  if (widget::Checkbox(dump, Str::kSoftcapCheckbox, "controls.softcap_on", &capped)) c.softcap = capped ? kDefaultSoftcap : 0;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kSoftcapTip));
  if (capped) {
    ImGui::SameLine();
    widget::SliderFloat(dump, Str::kSoftcapValue, "controls.softcap", &c.softcap, 0.1f, 100.0f, "%.3g",
                        ImGuiSliderFlags_Logarithmic);
    if (!std::isfinite(c.softcap) || c.softcap <= 0) c.softcap = kDefaultSoftcap;  // off only by the checkbox
    c.softcap = std::min(c.softcap, kMaxSoftcap);
  }
}

// Mask, mode and the q/k/v projection's layout.
void DrawLayoutKnobs(PanelContext& ctx) {
  AttentionConfig& c = ctx.settings.config;
  WidgetDump& dump = ctx.dump;
  int mask = (int)c.mask;
  ImGui::TextUnformatted(Tr(Str::kMask));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (widget::RadioButton(dump, Str::kMaskNone, "controls.mask_none", mask == 0)) c.mask = MaskKind::kNone;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kMaskCausal, "controls.mask_causal", mask == 1)) c.mask = MaskKind::kCausal;

  bool cross = c.mode == AttentionMode::kCross;
  ImGui::TextUnformatted(Tr(Str::kMode));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (widget::RadioButton(dump, Str::kModeSelf, "controls.mode_self", !cross)) c.mode = AttentionMode::kSelf;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kModeCross, "controls.mode_cross", cross)) c.mode = AttentionMode::kCross;

  bool fused = c.qkv == QkvLayout::kFused;
  ImGui::TextUnformatted(Tr(Str::kQkv));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (widget::RadioButton(dump, Str::kQkvFused, "controls.qkv_fused", fused)) c.qkv = QkvLayout::kFused;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kQkvSeparate, "controls.qkv_separate", !fused)) c.qkv = QkvLayout::kSeparate;
}

void DrawFeatureKnobs(PanelContext& ctx) {
  AttentionConfig& c = ctx.settings.config;
  WidgetDump& dump = ctx.dump;
  // Seed (f): where q, k and v come from, and the score. A width mismatch is refused with the reason.
  // The Str ids of the choices run in the enums' order (config.h).
  auto source_name = [](FeatureSource s) { return Tr((Str)((int)Str::kFeatureEmbedding + (int)s)); };
  auto source_word = [](FeatureSource s) { return ToString(s); };
  auto source_combo = [&](Str label, const char* name, FeatureSource* source) {
    widget::Combo(dump, label, name, source, kFeatureSources, source_name, source_word);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kFeaturesTip));
  };
  source_combo(Str::kQueryFrom, "controls.query_from", &c.query_from);
  source_combo(Str::kKeyFrom, "controls.key_from", &c.key_from);
  source_combo(Str::kValueFrom, "controls.value_from", &c.value_from);
  auto score_name = [](ScoreKind s) { return Tr((Str)((int)Str::kScoreScaledDot + (int)s)); };
  widget::Combo(dump, Str::kScore, "controls.score", &c.score, kScoreKinds, score_name,
                [](ScoreKind s) { return ToString(s); });
  // The pipeline refuses d_q != d_k (one-hot widths need the text, so the run's error says it then).
  const std::string config_error = ctx.results.config_error.Render(), compute_error = ctx.results.compute_error.Render();
  const std::string width_error = IsWidthRefusal(config_error)    ? config_error
                                  : IsWidthRefusal(compute_error) ? compute_error
                                                                  : std::string();
  if (!width_error.empty()) ErrorText(width_error);
  dump.RecordItem("controls.width_error", JsonString(width_error));

  widget::InputU64(dump, Str::kSeed, "controls.seed", &c.seed);
  widget::Checkbox(dump, Str::kPositional, "controls.positional", &c.positional);
}

// How the maps are coloured: colormap, linear or log, fixed or automatic range.
void DrawPictureKnobs(PanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  std::vector<Colormap> colormaps;
  for (int i = 0; i < kSequentialColormapCount; ++i) colormaps.push_back((Colormap)i);
  auto colormap_name = [](Colormap m) { return ToString(m); };
  widget::Combo(dump, Str::kColormap, "controls.colormap", &ctx.settings.colormap, colormaps, colormap_name,
                colormap_name);
  bool log_scale = ctx.settings.color_scale == ColorScale::kLog;
  ImGui::TextUnformatted(Tr(Str::kColour));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (widget::RadioButton(dump, Str::kColourLinear, "controls.color_linear", !log_scale)) ctx.settings.color_scale = ColorScale::kLinear;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kColourLog, "controls.color_log", log_scale)) ctx.settings.color_scale = ColorScale::kLog;
  ImGui::TextUnformatted(Tr(Str::kRange));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (widget::RadioButton(dump, Str::kRangeFixed, "controls.range_fixed", !ctx.settings.auto_range)) ctx.settings.auto_range = false;
  ImGui::SameLine();
  if (widget::RadioButton(dump, Str::kRangeAuto, "controls.range_auto", ctx.settings.auto_range)) ctx.settings.auto_range = true;
}

// What the last run was, or why the settings are not applied.
void DrawRunLine(PanelContext& ctx) {
  if (!ctx.results.config_error.empty()) {
    const std::string config_error = ctx.results.config_error.Render();
    if (!IsWidthRefusal(config_error)) ErrorText(Trf(Str::kNotApplied, {config_error}));  // that one is above
  } else if (ctx.results.computing) {
    ImGui::TextUnformatted(Tr(Str::kComputing));
  } else if (const SandboxExtras* run = ctx.shown ? ctx.shown->sandbox.get() : nullptr) {
    DimText(LocalizedDescribe(run->config) + " \xC2\xB7 " + FormatNumber(run->seconds * 1000.0, "%.1f") + " ms");
  }
}

}  // namespace

void DrawControlsPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.0f, 0.0f, 0.258f, 0.59f);
  if (!ImGui::Begin(WindowTitle(Str::kWinControls, "Controls").c_str())) {
    ImGui::End();
    return;
  }
  // The trained models are one click away (the Model panel takes this place; it has the way back).
  if (widget::Button(ctx.dump, Str::kTrainedModelButton, "controls.trained_model")) ctx.verbs.SetSource(Source::kModel);
  ImGui::SameLine();
  DrawLanguageSwitch(ctx);
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.58f);
  ImGui::TextUnformatted(Tr(Str::kAttention));
  ImGui::Separator();
  DrawSizeKnobs(ctx);
  DrawLayoutKnobs(ctx);
  DrawFeatureKnobs(ctx);
  ImGui::Spacing();
  ImGui::TextUnformatted(Tr(Str::kPicture));
  ImGui::Separator();
  DrawPictureKnobs(ctx);
  ImGui::PopItemWidth();
  ImGui::Spacing();
  ImGui::Separator();
  DrawRunLine(ctx);
  ImGui::End();
}

}  // namespace attnviz
