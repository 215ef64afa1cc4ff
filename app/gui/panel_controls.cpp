// Controls: every attention setting, plus how the maps are coloured.
#include <imgui.h>

#include <cmath>

#include "app.h"
#include "io/json.h"
#include "i18n/localized.h"
#include "panel_util.h"

namespace attnviz {

void DrawControlsPanel(App& app) {
  app.layout.PlacePanel(0.0f, 0.0f, 0.258f, 0.59f);
  if (!ImGui::Begin(WindowTitle(Str::kWinControls, "Controls").c_str())) {
    ImGui::End();
    return;
  }
  AttentionConfig& c = app.settings.config;
  WidgetDump& dump = app.dump;
  // The trained models are one click away (the Model panel takes this place; it has the way back).
  if (ImGui::Button(Labeled(dump, Str::kTrainedModelButton, "trained_model").c_str())) app.SetSource(Source::kModel);
  dump.RecordItem("controls.trained_model");
  ImGui::SameLine();
  DrawLanguageSwitch(app);
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.58f);

  ImGui::TextUnformatted(Tr(Str::kAttention));
  ImGui::Separator();
  ImGui::SliderInt(Labeled(dump, Str::kDModel, "d_model").c_str(), &c.d_model, 1, kMaxDModel, "%d", ImGuiSliderFlags_Logarithmic);
  dump.RecordItem("controls.d_model", std::to_string(c.d_model));
  ImGui::SliderInt(Labeled(dump, Str::kHeadsKnob, "heads").c_str(), &c.n_head, 1, 16, "%d");
  dump.RecordItem("controls.n_head", std::to_string(c.n_head));

  int d_k = c.head_dim_k();
  if (ImGui::SliderInt(dump.Label("d_k", "d_k").c_str(), &d_k, 1, kMaxHeadDim, "%d", ImGuiSliderFlags_Logarithmic)) c.d_k = d_k;
  dump.RecordItem("controls.d_k", std::to_string(c.head_dim_k()));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kDkTip));
  ImGui::SameLine();
  bool d_k_auto = c.d_k == 0;
  if (ImGui::Checkbox(Labeled(dump, Str::kAuto, "dk_auto").c_str(), &d_k_auto)) c.d_k = d_k_auto ? 0 : c.head_dim_k();
  dump.RecordItem("controls.d_k_auto", BoolJson(d_k_auto));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kDkAutoTip));

  int d_v = c.head_dim_v();
  if (ImGui::SliderInt(dump.Label("d_v", "d_v").c_str(), &d_v, 1, kMaxHeadDim, "%d", ImGuiSliderFlags_Logarithmic)) c.d_v = d_v;
  dump.RecordItem("controls.d_v", std::to_string(c.head_dim_v()));
  ImGui::SameLine();
  bool d_v_auto = c.d_v == 0;
  if (ImGui::Checkbox(Labeled(dump, Str::kAuto, "dv_auto").c_str(), &d_v_auto)) c.d_v = d_v_auto ? 0 : c.head_dim_v();
  dump.RecordItem("controls.d_v_auto", BoolJson(d_v_auto));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kDvAutoTip));

  ImGui::Checkbox(Labeled(dump, Str::kScaleCheckbox, "scale").c_str(), &c.scale);
  dump.RecordItem("controls.scale", BoolJson(c.scale));

  ImGui::SliderFloat(Labeled(dump, Str::kTemperature, "temperature").c_str(), &c.temperature, 0.01f, 100.0f, "%.3g", ImGuiSliderFlags_Logarithmic);
  dump.RecordItem("controls.temperature", JsonNumber(c.temperature));
  if (!std::isfinite(c.temperature)) c.temperature = 1.0f;  // a typed "nan" never reaches the engine

  int mask = (int)c.mask;
  ImGui::TextUnformatted(Tr(Str::kMask));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (ImGui::RadioButton(Labeled(dump, Str::kMaskNone, "mask_none").c_str(), mask == 0)) c.mask = MaskKind::kNone;
  dump.RecordItem("controls.mask_none", BoolJson(mask == 0));
  ImGui::SameLine();
  if (ImGui::RadioButton(Labeled(dump, Str::kMaskCausal, "mask_causal").c_str(), mask == 1)) c.mask = MaskKind::kCausal;
  dump.RecordItem("controls.mask_causal", BoolJson(mask == 1));

  bool cross = c.mode == AttentionMode::kCross;
  ImGui::TextUnformatted(Tr(Str::kMode));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (ImGui::RadioButton(Labeled(dump, Str::kModeSelf, "mode_self").c_str(), !cross)) c.mode = AttentionMode::kSelf;
  dump.RecordItem("controls.mode_self", BoolJson(!cross));
  ImGui::SameLine();
  if (ImGui::RadioButton(Labeled(dump, Str::kModeCross, "mode_cross").c_str(), cross)) c.mode = AttentionMode::kCross;
  dump.RecordItem("controls.mode_cross", BoolJson(cross));

  bool fused = c.qkv == QkvLayout::kFused;
  ImGui::TextUnformatted(Tr(Str::kQkv));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (ImGui::RadioButton(Labeled(dump, Str::kQkvFused, "qkv_fused").c_str(), fused)) c.qkv = QkvLayout::kFused;
  dump.RecordItem("controls.qkv_fused", BoolJson(fused));
  ImGui::SameLine();
  if (ImGui::RadioButton(Labeled(dump, Str::kQkvSeparate, "qkv_separate").c_str(), !fused)) c.qkv = QkvLayout::kSeparate;
  dump.RecordItem("controls.qkv_separate", BoolJson(!fused));

  // Seed (f): where q, k and v come from, and the score. A width mismatch is refused with the reason.
  // The Str ids of the choices run in the enums' order (config.h).
  auto source_name = [](FeatureSource s) { return Tr((Str)((int)Str::kFeatureEmbedding + (int)s)); };
  auto source_combo = [&](Str label, const char* id, FeatureSource* source) {
    if (ImGui::BeginCombo(Labeled(dump, label, id).c_str(), source_name(*source))) {
      for (FeatureSource s : kFeatureSources)
        if (ImGui::Selectable(source_name(s), s == *source)) *source = s;
      ImGui::EndCombo();
    }
    dump.RecordItem(std::string("controls.") + id, JsonString(ToString(*source)));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(Str::kFeaturesTip));
  };
  source_combo(Str::kQueryFrom, "query_from", &c.query_from);
  source_combo(Str::kKeyFrom, "key_from", &c.key_from);
  source_combo(Str::kValueFrom, "value_from", &c.value_from);
  auto score_name = [](ScoreKind s) { return Tr((Str)((int)Str::kScoreScaledDot + (int)s)); };
  if (ImGui::BeginCombo(Labeled(dump, Str::kScore, "score").c_str(), score_name(c.score))) {
    for (ScoreKind s : kScoreKinds)
      if (ImGui::Selectable(score_name(s), s == c.score)) c.score = s;
    ImGui::EndCombo();
  }
  dump.RecordItem("controls.score", JsonString(ToString(c.score)));
  // The pipeline refuses d_q != d_k (one-hot widths need the text, so the run's error says it then).
  const std::string config_error = app.results.config_error.Render(), compute_error = app.results.compute_error.Render();
  const std::string width_error = config_error.find("d_q = d_k") != std::string::npos    ? config_error
                                  : compute_error.find("d_q = d_k") != std::string::npos ? compute_error
                                                                                         : std::string();
  if (!width_error.empty()) ErrorText(width_error);
  dump.RecordItem("controls.width_error", JsonString(width_error));

  ImGui::InputScalar(Labeled(dump, Str::kSeed, "seed").c_str(), ImGuiDataType_U64, &c.seed);
  dump.RecordItem("controls.seed", std::to_string(c.seed));
  ImGui::Checkbox(Labeled(dump, Str::kPositional, "positional").c_str(), &c.positional);
  dump.RecordItem("controls.positional", BoolJson(c.positional));

  ImGui::Spacing();
  ImGui::TextUnformatted(Tr(Str::kPicture));
  ImGui::Separator();
  int colormap = (int)app.settings.colormap;
  if (ImGui::BeginCombo(Labeled(dump, Str::kColormap, "colormap").c_str(), ToString(app.settings.colormap))) {
    for (int i = 0; i < kColormapCount; ++i)
      if (ImGui::Selectable(ToString((Colormap)i), i == colormap)) app.settings.colormap = (Colormap)i;
    ImGui::EndCombo();
  }
  dump.RecordItem("controls.colormap", JsonString(ToString(app.settings.colormap)));
  bool log_scale = app.settings.color_scale == ColorScale::kLog;
  ImGui::TextUnformatted(Tr(Str::kColour));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (ImGui::RadioButton(Labeled(dump, Str::kColourLinear, "linear").c_str(), !log_scale)) app.settings.color_scale = ColorScale::kLinear;
  dump.RecordItem("controls.color_linear", BoolJson(!log_scale));
  ImGui::SameLine();
  if (ImGui::RadioButton(Labeled(dump, Str::kColourLog, "log").c_str(), log_scale)) app.settings.color_scale = ColorScale::kLog;
  dump.RecordItem("controls.color_log", BoolJson(log_scale));
  ImGui::TextUnformatted(Tr(Str::kRange));
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.30f);
  if (ImGui::RadioButton(Labeled(dump, Str::kRangeFixed, "range_fixed").c_str(), !app.settings.auto_range)) app.settings.auto_range = false;
  dump.RecordItem("controls.range_fixed", BoolJson(!app.settings.auto_range));
  ImGui::SameLine();
  if (ImGui::RadioButton(Labeled(dump, Str::kRangeAuto, "range_auto").c_str(), app.settings.auto_range)) app.settings.auto_range = true;
  dump.RecordItem("controls.range_auto", BoolJson(app.settings.auto_range));
  ImGui::PopItemWidth();

  ImGui::Spacing();
  ImGui::Separator();
  if (!app.results.config_error.empty()) {
    ErrorText(Trf(Str::kNotApplied, {app.results.config_error.Render()}));
  } else if (app.results.computing) {
    ImGui::TextUnformatted(Tr(Str::kComputing));
  } else if (app.results.shown) {
    DimText(LocalizedDescribe(app.results.shown->request.config) + " \xC2\xB7 " + FormatNumber(app.results.shown->seconds * 1000.0, "%.1f") +
            " ms");
  }
  ImGui::End();
}

}  // namespace attnviz
