// The panels of an encoder-decoder model (t5, bart, marian; app_seq2seq.cpp runs it):
//   Model     the folder, the source and target texts, Translate (greedy generation), the tokens and progress, the
//             target's mean loss (and its change under the ablated heads, listed with their restore buttons), the
//             target's tokens coloured by their loss with the top tokens at each decoder position
//   Overview  three grids of thumbnails, layers x heads: encoder self-attention [n_src x n_src], decoder
//             self-attention (causal) [n_tgt x n_tgt], cross-attention [n_tgt x n_src]; a click shows that head of
//             that stack in the Heads panel (which draws results.shown, with the stack's token labels), a right-click
//             ablates it
//   Shapes    the shown stack's q, k, v and probs with their lengths (cross: q from the decoder, k and v from the
//             encoder)
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"
#include "io/json.h"
#include "panel_util.h"
#include "token_chips.h"
#include "unicode_slots.h"
#include "widgets.h"

namespace attnviz {
namespace {

constexpr Str kStackTitles[3] = {Str::kSeq2SeqEncoderAttention, Str::kSeq2SeqDecoderAttention,
                                 Str::kSeq2SeqCrossAttention};
constexpr const char* kStackNames[3] = {"encoder", "decoder", "cross"};
constexpr MapView kStackViews[3] = {MapView::kEncoderOverview, MapView::kDecoderOverview, MapView::kCrossOverview};

std::string IdList(const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s;
}

// One stack's grid: its title, "H0 H1 ..." on top, a row of thumbnails per layer.
void DrawStackGrid(PanelContext& ctx, HeatmapRenderer& renderer, const Seq2SeqResult& r, int s, float cell) {
  const LayerStack& st = (*r.stacks)[(size_t)s];
  ImGui::TextUnformatted(Tr(kStackTitles[s]));
  const std::string name = std::string("overview.") + kStackNames[s];
  const int n_head = st.layer(0) ? st.layer(0)->n_head() : 0;
  ctx.dump.RecordItem(name, "{\"n_layer\": " + std::to_string(st.n_layer()) + ", \"n_head\": " +
                                std::to_string(n_head) + ", \"n_q\": " + std::to_string(st.n_q()) +
                                ", \"n_k\": " + std::to_string(st.n_k()) + "}");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  const float gap = 3.0f, label_w = ImGui::CalcTextSize("L00 ").x, label_h = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  for (int h = 0; h < n_head; ++h)
    dl->AddText(ImVec2(origin.x + label_w + (float)h * (cell + gap), origin.y), dim, ("H" + std::to_string(h)).c_str());
  for (int l = 0; l < st.n_layer(); ++l) {
    const float y = origin.y + label_h + (float)l * (cell + gap);
    dl->AddText(ImVec2(origin.x, y), dim, ("L" + std::to_string(l)).c_str());
    const LayerMaps* t = st.layer(l);
    if (!t) continue;
    const size_t plane = (size_t)t->n_q() * (size_t)t->n_k();
    for (int h = 0; h < t->n_head(); ++h) {
      const ImVec2 p0(origin.x + label_w + (float)h * (cell + gap), y), p1(p0.x + cell, p0.y + cell);
      HeatmapImage image;
      image.probs = t->probs->data.data() + (size_t)h * plane;
      image.n_q = t->n_q();
      image.n_k = t->n_k();
      image.data_version = r.generation * 4 + (uint64_t)s;  // a generation's steps: each its own result
      if (r.generating) image.data_version = (uint64_t)(uintptr_t)&r;
      image.colormap = ctx.settings.colormap;
      image.color_scale = ctx.settings.color_scale;
      image.masked = t->mask.HidesAny(t->n_q(), t->n_k());
      const HeatmapKey key{kStackViews[s], l, h, 0};
      ImGui::SetCursorScreenPos(p0);
      ImGui::PushID(key.imgui_id());
      ImTextureID texture = renderer.Render(key, image, std::max(1, (int)cell), std::max(1, (int)cell));
      if (texture) ImGui::Image(texture, ImVec2(cell, cell));
      else ImGui::Dummy(ImVec2(cell, cell));
      const bool clicked = ImGui::IsItemClicked();
      const bool hovered = ImGui::IsItemHovered();
      DrawSeq2SeqHeadAblateMenu(ctx, s, l, h);
      ImGui::PopID();
      const bool selected =
          ctx.views.seq2seq.stack == s && l == ctx.settings.model_layer && h == ctx.settings.selected_head;
      const bool ablated = Seq2SeqHeadAblated(ctx.views.seq2seq, s, l, h);
      const double delta = ctx.results.seq2seq_scan ? ctx.results.seq2seq_scan->Delta(s, l, h) : NAN;
      // Tinted by the scan's loss change as the decoder-only Overview's cells; a head not scanned (NaN) stays as is.
      if (ctx.views.seq2seq.color_by_delta && !std::isnan(delta) && ctx.results.seq2seq_scan->max_abs_delta > 0)
        DrawDeltaTint(delta / ctx.results.seq2seq_scan->max_abs_delta, p0, p1);
      if (ablated) {  // dimmed and crossed out, as the decoder-only Overview marks an ablated head
        dl->AddRectFilled(p0, p1, IM_COL32(0, 0, 0, 150));
        dl->AddLine(p0, p1, IM_COL32(255, 80, 60, 255), 2.0f);
        dl->AddLine(ImVec2(p0.x, p1.y), ImVec2(p1.x, p0.y), IM_COL32(255, 80, 60, 255), 2.0f);
      }
      if (selected)
        dl->AddRect(ImVec2(p0.x - 1, p0.y - 1), ImVec2(p1.x + 1, p1.y + 1),
                    ImGui::GetColorU32(ImVec4(1.0f, 0.85f, 0.3f, 1.0f)), 0, 0, 2.0f);
      if (hovered && h < (int)t->metrics.size())
        ImGui::SetTooltip("%s", (std::string(Tr(kStackTitles[s])) + "\n" + Trf(Str::kCaptionLayer, {std::to_string(l)}) +
                                 " \xC2\xB7 " + Trf(Str::kTipHead, {std::to_string(h)}))
                                    .c_str());
      ctx.dump.RecordRect(name + "." + std::to_string(l) + "." + std::to_string(h), p0.x, p0.y, p1.x, p1.y, false,
                          hovered, "{\"selected\": " + BoolJson(selected) + ", \"ablated\": " + BoolJson(ablated) +
                              ", \"delta\": " + (std::isnan(delta) ? std::string("null") : JsonNumber(delta)) + "}");
      if (clicked) {
        ctx.views.seq2seq.stack = s;
        ctx.settings.model_layer = l;
        ctx.settings.selected_head = h;
        ctx.settings.enlarged = true;
      }
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + label_h + (float)st.n_layer() * (cell + gap) + gap));
  ImGui::Dummy(ImVec2(1, 1));
}

// The target's tokens as chips (token_chips.h): each coloured by the loss of predicting it at its decoder position
// (or that loss's change under the ablations), its tooltip and pin giving the top tokens at that position.
void DrawTargetChips(PanelContext& ctx, const Seq2SeqResult& r) {
  ImGui::Separator();
  ImGui::TextWrapped("%s", Tr(Str::kSeq2SeqTargetTokens));
  ChipText text;
  text.owner = r.folder.get();
  text.text = IdList(r.labels);
  text.tokens = &r.label_tokens;
  text.can_color = !r.token_loss.empty();
  text.losses.loss = r.token_loss;
  text.losses.base = r.request.ablate.empty() ? r.token_loss : r.base_token_loss;  // a plain run is its own base
  text.explain = Str::kSeq2SeqTokenLossExplain;
  text.delta_explain = Str::kSeq2SeqTokenLossDeltaExplain;
  text.tip_delta = Str::kSeq2SeqTokenLossTipDelta;
  text.predictions_after = false;
  text.predictions = [&r](int position) { return Seq2SeqPredictionLines(r, position); };
  text.has_predictions = !r.top.empty();
  text.prediction_positions = r.top.size();
  Seq2SeqPanelView& v = ctx.views.seq2seq;
  DrawTokenChips(ctx, text, {&v.chips, &v.chip_color, &v.pinned_position});
}

}  // namespace

void DrawSeq2SeqModelPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.0f, 0.0f, 0.258f, 0.59f);  // where the decoder-only Model panel sits
  if (!ImGui::Begin(WindowTitle(Str::kWinModel, "Model").c_str())) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = ctx.dump;
  AppSettings& s = ctx.settings;
  const float width = ImGui::GetContentRegionAvail().x;
  int source = (int)s.source;
  widget::RadioButton(dump, Str::kSourceSandbox, "model.source_sandbox", &source, (int)Source::kSandbox);
  widget::RadioButton(dump, Str::kSourceModel, "model.source_model", &source, (int)Source::kModel);
  ImGui::SameLine();
  DrawLanguageSwitch(ctx);
  if (source != (int)s.source) ctx.verbs.SetSource((Source)source);

  ImGui::Separator();
  ImGui::TextWrapped("%s", Tr(Str::kModelFolderHint));
  ImGui::SetNextItemWidth(width - ImGui::CalcTextSize(Tr(Str::kOpen)).x - ImGui::GetStyle().FramePadding.x * 2 -
                          ImGui::GetStyle().ItemSpacing.x);
  const bool enter = widget::TextField("##model_path", &ctx.views.model.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
  dump.RecordItem("model.path", JsonString(ctx.views.model.path_input));
  ImGui::SameLine();
  const bool open = widget::Button(dump, Str::kOpen, "model.open");
  if ((enter || open) && !ctx.views.model.path_input.empty()) ctx.verbs.OpenModel(ctx.views.model.path_input);

  const std::shared_ptr<const Seq2SeqResult>& r = ctx.results.seq2seq;
  ImGui::Separator();
  const float line = ImGui::GetTextLineHeight();
  ImGui::TextUnformatted(Tr(Str::kSeq2SeqSourceText));
  InputTextMultilineAnyUnicode("##s2s_source", &s.kv_text, ImVec2(width, line * 2.6f),
                               ImGuiInputTextFlags_CtrlEnterForNewLine);
  dump.RecordItem("model.source_text", JsonString(s.kv_text));
  ImGui::TextUnformatted(Tr(Str::kSeq2SeqTargetText));
  InputTextMultilineAnyUnicode("##s2s_target", &ctx.views.seq2seq.target_text, ImVec2(width, line * 2.6f),
                               ImGuiInputTextFlags_CtrlEnterForNewLine);
  dump.RecordItem("model.target_text", JsonString(ctx.views.seq2seq.target_text));
  if (widget::Button(dump, Str::kSeq2SeqTranslate, "model.translate")) ctx.views.seq2seq.translate = true;
  ImGui::SameLine();
  DimText(Trf(Str::kSeq2SeqTranslateHint, {std::to_string(App::kTranslateMaxTokens)}));
  if (!ctx.views.seq2seq.generated_ids.empty())
    DimText(Trf(Str::kSeq2SeqGenerated, {IdList(ctx.views.seq2seq.generated_ids)}));
  dump.SetField("seq2seq_generated_ids", "[" + IdList(ctx.views.seq2seq.generated_ids) + "]");
  if (!ctx.results.seq2seq_error.empty()) ErrorText(ctx.results.seq2seq_error.Render());
  dump.SetField("seq2seq_error", JsonString(ctx.results.seq2seq_error.Render()));
  const JobProgress& p = ctx.results.seq2seq_progress;
  if (r && r->generating) {
    widget::ProgressBar(dump, "model.progress", (float)r->generated_ids.size() / (float)App::kTranslateMaxTokens, width,
                        Trf(Str::kSeq2SeqTranslating, {std::to_string(r->generated_ids.size())}));
  } else if (p.active) {
    widget::ProgressBar(dump, "model.progress", (float)p.fraction, width, Trf(Str::kRunning, {p.stage}));
  }
  // The folder's description (several lines) comes once the folder is open: below Translate, so the button stays
  // where it was drawn while the folder opened, and a press then lands on it.
  if (r && r->folder) {
    const std::string description = r->folder->dir + ": " + r->folder->model->config().Describe();
    DimText(description);
    dump.SetField("model_description", JsonString(description));
  } else if (ctx.results.seq2seq_busy) {
    DimText(Trf(Str::kSeq2SeqOpening, {ctx.results.seq2seq_dir}));
  }
  if (r && r->stacks) {
    ImGui::Separator();
    ImGui::TextWrapped("%s", Trf(Str::kSeq2SeqTokensLine, {std::to_string(r->source_tokens.size()),
                                                           std::to_string(r->decoder_tokens.size())})
                                 .c_str());
    const int stack = std::clamp(ctx.views.seq2seq.stack, 0, 2);
    const int n_layer = (*r->stacks)[(size_t)stack].n_layer();
    s.model_layer = std::clamp(s.model_layer, 0, std::max(0, n_layer - 1));
    DimText(Trf(Str::kSeq2SeqShownStack, {Tr(kStackTitles[stack]), std::to_string(s.model_layer)}));
    ImGui::SetNextItemWidth(width * 0.6f);
    widget::SliderInt(dump, Str::kLayer, "model.layer", &s.model_layer, 0, std::max(0, n_layer - 1));
    DrawSeq2SeqLossLine(ctx);
    DrawSeq2SeqAblationControls(ctx);
    if (!ctx.views.seq2seq.ablated.empty()) DimText(Tr(Str::kSeq2SeqTranslateUnablated));
    if (r->complete() && !r->label_tokens.empty()) DrawTargetChips(ctx, *r);
  }
  ImGui::End();
}

void DrawSeq2SeqOverviewPanel(PanelContext& ctx) {
  ctx.layout.PlacePanel(0.719f, 0.0f, 0.281f, 0.65f);  // where the decoder-only Overview sits
  if (!ImGui::Begin(WindowTitle(Str::kWinOverview, "Overview").c_str())) {
    ImGui::End();
    return;
  }
  const std::shared_ptr<const Seq2SeqResult>& r = ctx.results.seq2seq;
  if (!ctx.results.seq2seq_error.empty()) ErrorText(ctx.results.seq2seq_error.Render());
  // The three stacks' grids, or what the run computes in their place (panel_seq2seq_readouts.cpp).
  using View = OverviewPanelView::View;
  const View view = DrawOverviewViewChoice(ctx);
  if (view != View::kMaps) {
    if (view == View::kLens) DrawSeq2SeqLensView(ctx);
    else if (view == View::kAttribution) DrawSeq2SeqAttributionView(ctx);
    else DrawSeq2SeqPatchingView(ctx);
    ImGui::End();
    return;
  }
  if (!r || !r->stacks || !ctx.renderer) {
    DimText(Tr(Str::kComputingFirstMaps));
    ImGui::End();
    return;
  }
  DimText(Tr(Str::kSeq2SeqOverviewHint));
  // One cell size for the three grids: as wide as the widest stack allows, the layers of all three in the height.
  int rows = 0, widest = 1;
  for (const LayerStack& st : *r->stacks) {
    rows += st.n_layer();
    if (st.layer(0)) widest = std::max(widest, st.layer(0)->n_head());
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = ImGui::CalcTextSize("L00 ").x, extra = ImGui::GetTextLineHeightWithSpacing() * 2.2f;
  const float by_width = (avail.x - label_w) / (float)widest - 3.0f;
  const float by_height = (avail.y - 3 * extra) / (float)std::max(1, rows) - 3.0f;
  const float cell = std::max(12.0f, std::min(by_width, std::max(by_height, 28.0f)));
  for (int s = 0; s < 3; ++s) DrawStackGrid(ctx, *ctx.renderer, *r, s, cell);
  ImGui::End();
}

void DrawSeq2SeqShapes(PanelContext& ctx) {
  const std::shared_ptr<const Seq2SeqResult>& r = ctx.results.seq2seq;
  if (!r || !r->stacks || !r->folder) {
    DimText(Tr(Str::kComputingFirstMaps));
    return;
  }
  const model::Seq2SeqConfig& c = r->folder->model->config();
  const int s = std::clamp(ctx.views.seq2seq.stack, 0, 2);
  const LayerStack& st = (*r->stacks)[(size_t)s];
  const int layer = std::clamp(ctx.settings.model_layer, 0, std::max(0, st.n_layer() - 1));
  const int d_head = s == kEncoderStack ? c.encoder.d_head : c.decoder.d_head;
  const int n_head = s == kEncoderStack ? c.encoder.n_head : c.decoder.n_head;
  const int n_q = st.n_q(), n_k = st.n_k();
  const Str q_side = s == kEncoderStack ? Str::kSeq2SeqEncoderSide : Str::kSeq2SeqDecoderSide;
  const Str kv_side = s == kDecoderStack ? Str::kSeq2SeqDecoderSide : Str::kSeq2SeqEncoderSide;
  ImGui::TextUnformatted(Trf(Str::kSeq2SeqShapesTitle, {Tr(kStackTitles[s]), std::to_string(layer)}).c_str());
  const std::string q = Trf(Str::kSeq2SeqShapesQ, {Tr(q_side), std::to_string(n_q), std::to_string(d_head)});
  const std::string kv = Trf(Str::kSeq2SeqShapesKv, {Tr(kv_side), std::to_string(n_k), std::to_string(d_head)});
  const std::string probs =
      Trf(Str::kSeq2SeqShapesProbs, {std::to_string(n_q), std::to_string(n_k), std::to_string(n_head)});
  ImGui::BulletText("%s", q.c_str());
  ImGui::BulletText("%s", kv.c_str());
  ImGui::BulletText("%s", probs.c_str());
  if (s == kCrossStack)
    ImGui::TextWrapped("%s", Trf(Str::kSeq2SeqCrossLengths, {std::to_string(n_q), std::to_string(n_k)}).c_str());
  ctx.dump.SetField("seq2seq_shapes", "{\"stack\": " + JsonString(kStackNames[s]) + ", \"layer\": " +
                                          std::to_string(layer) + ", \"q\": [" + std::to_string(n_q) + ", " +
                                          std::to_string(d_head) + "], \"k\": [" + std::to_string(n_k) + ", " +
                                          std::to_string(d_head) + "], \"v\": [" + std::to_string(n_k) + ", " +
                                          std::to_string(d_head) + "], \"q_from\": " +
                                          JsonString(s == kEncoderStack ? "encoder" : "decoder") + ", \"kv_from\": " +
                                          JsonString(s == kDecoderStack ? "decoder" : "encoder") + "}");
}

}  // namespace attnviz
