// Model: switch between the sandbox and a trained model; open a model folder (path, recent models,
// the bundled one, or drop the folder on the window); the tokens as the model sees them; the layer
// the Heads panel shows; the what-ifs (no 1/sqrt(d_head), a temperature) on all or chosen layers, with the loss and
// the ablated heads under them (panel_predictions.cpp, panel_ablation.cpp); each token's top next tokens.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app.h"
#include "base/memory_budget.h"
#include "io/json.h"
#include "lessons.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "token_chips.h"
#include "widgets.h"

namespace attnviz {
namespace {

// The tokens as chips (token_chips.h): coloured by each token's next-token loss, a chip's predictions are of what
// follows it.
void DrawTokens(PanelContext& ctx, const ModelResult& result) {
  ChipText text;
  text.owner = result.request.folder.get();
  text.text = result.request.text;
  text.tokens = &result.tokens.all();
  const model::ModelConfig& c = result.request.folder->model->config();
  if (result.has_lm_head) {
    if (!model::PredictsNextToken(c)) {
      text.no_loss = Trf(Str::kTokenLossMasked, {c.model_type});
    } else if (result.tokens.size() < 2) {
      text.no_loss = Tr(Str::kTokenLossShort);
    } else {
      text.can_color = true;
      text.losses = TokenLossesOf(result);
      text.base_unknown = !result.request.plain() && !result.baseline_next_log_prob;
    }
  }
  if (!result.has_lm_head) text.no_predictions = Tr(Str::kNoLmHead);
  else if (result.predictions && result.predictions->positions.empty()) text.no_predictions = Tr(Str::kPredictNoMask);
  // Before the predictions over every position come, a hovered or pinned token's come alone (from the last stream).
  text.has_predictions = result.predictions != nullptr || (result.last_hidden && model::PredictsNextToken(c));
  text.prediction_positions = result.predictions ? result.predictions->positions.size() : 0;
  text.predictions = [&ctx](int position) { return PredictionLines(ctx.results, position, &ctx.views.model.top_wanted); };
  ModelPanelView& v = ctx.views.model;
  DrawTokenChips(ctx, text, {&v.chips, &v.chip_color, &v.pinned_position});
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
      // A new text sharing its start with the last one's: how many rows every layer took from it (prefix reuse).
      const std::string tokens_line =
          r.prefix_rows > 0 ? Trf(Str::kTokensKeptFromLast, {std::to_string(r.tokens.size()),
                                                              FormatNumber(r.seconds, "%.2f"), std::to_string(r.prefix_rows)})
                            : Trf(Str::kTokensAsModelSees, {std::to_string(r.tokens.size()), FormatNumber(r.seconds, "%.2f")});
      ImGui::TextWrapped("%s", tokens_line.c_str());  // (with the kept rows it is longer than the panel is wide)
      dump.SetField("model_tokens_line", JsonString(tokens_line));
      DrawTokens(ctx, r);
    }
  }
  ImGui::End();
}

}  // namespace attnviz
