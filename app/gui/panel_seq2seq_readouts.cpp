// The Overview's readouts of an encoder-decoder run (core/session/seq2seq_readouts.h), drawn in place of its three
// grids as the decoder-only Overview draws its own (panel_lens.cpp, panel_attribution.cpp, panel_patching.cpp):
//   lens         the decoder's layers by decoder positions (lens_grid.h), coloured by p(the target's next token)
//   attribution  decoder layers by decoder self-attention heads (D), cross-attention heads (X) and the MLP, the
//                parts of no head in a row below; refused with the reason for post-norm models (bart, marian)
//   patching     the shown source is the corrupted run, a second source (as many tokens) the clean one, the metric
//                logit[A] - logit[B] at the last decoder position: a heads grid per stack, the encoder's and the
//                decoder's residual stream; Run, progress in reruns, Stop keeping the cells done
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app.h"
#include "i18n/localized.h"
#include "lens_grid.h"
#include "model_folder.h"  // ResolveTokenArg
#include "panel_util.h"
#include "signed_grid.h"
#include "tokenize/shown_text.h"
#include "widgets.h"

namespace attnviz {
namespace {

using model::ComponentKind;
using model::Seq2SeqStack;

// The complete run shown, after the view's one-sentence explanation; null, with what is awaited, before.
const Seq2SeqResult* CompleteSeq2SeqRun(PanelContext& ctx, Str explain) {
  const std::shared_ptr<const Seq2SeqResult>& r = ctx.results.seq2seq;
  if (!r || !r->complete() || !r->folder) {
    DimText(Tr(Str::kComputingFirstMaps));
    return nullptr;
  }
  ImGui::PushTextWrapPos(0);
  DimText(Tr(explain));
  ImGui::PopTextWrapPos();
  return r.get();
}

void ErrorLine(PanelContext& ctx, const std::string& field, const std::string& why) {
  ImGui::PushTextWrapPos(0);
  ErrorText(why);
  ImGui::PopTextWrapPos();
  ctx.dump.SetField(field, JsonString(why));
}

// A token input of the metric or the attribution: its id in the target vocabulary, or -1 with the error (empty
// text: -1 and no error).
int ReadTargetToken(const Seq2SeqFolder& folder, const std::string& text, Str label, std::string* error) {
  if (text.empty()) return -1;
  Result<int> t = ResolveTokenArg(*folder.tokenizers.target, folder.model->config().decoder_vocab, text, Tr(label));
  if (t) return *t;
  *error = Localized(t.status());
  return -1;
}

constexpr Str kStackTitle[3] = {Str::kSeq2SeqEncoderAttention, Str::kSeq2SeqDecoderAttention,
                                Str::kSeq2SeqCrossAttention};
constexpr Str kStreamTitle[2] = {Str::kSeq2SeqEncoderSide, Str::kSeq2SeqDecoderSide};

}  // namespace

void DrawSeq2SeqLensView(PanelContext& ctx) {
  const Seq2SeqResult* r = CompleteSeq2SeqRun(ctx, Str::kSeq2SeqLensExplain);
  if (!r) return;
  ctx.views.seq2seq.lens_wanted = true;
  const std::shared_ptr<const Seq2SeqLensResult>& lens = ctx.results.seq2seq_lens;
  if (ctx.results.seq2seq_lens_busy || !lens) {
    const JobProgress& p = ctx.results.seq2seq_lens_progress;
    widget::ProgressBar(ctx.dump, "lens.progress", (float)p.fraction, ImGui::GetContentRegionAvail().x * 0.6f,
                        Trf(Str::kLensProgress, {std::to_string(p.done), std::to_string(p.total)}));
  }
  if (!lens) return;
  if (!lens->status.ok()) return ErrorLine(ctx, "lens_error", Localized(lens->status));
  DrawLensLegend(ctx.settings.colormap, Tr(Str::kLensLegend));
  const Seq2SeqFolder& folder = *r->folder;
  LensGridInput in;
  in.layers = &lens->layers;
  in.count = in.n = (int)r->decoder_tokens.size();
  in.made_by = lens.get(), in.generation = lens->generation;
  in.token = [&](int id) { return TargetTokenText(folder, id); };
  in.at = [&](int position) { return ShownText(r->decoder_tokens[(size_t)position].display); };
  in.next = [&](int position) {
    return position < (int)r->label_tokens.size() ? ShownText(r->label_tokens[(size_t)position].display)
                                                  : std::string();
  };
  DrawLensGrid(ctx, in);
}

void DrawSeq2SeqAttributionView(PanelContext& ctx) {
  const Seq2SeqResult* r = CompleteSeq2SeqRun(ctx, Str::kSeq2SeqAttribExplain);
  if (!r) return;
  const Seq2SeqFolder& folder = *r->folder;
  const model::Seq2SeqConfig& c = folder.model->config();
  if (!c.pre_norm) return ErrorLine(ctx, "attrib_error", Trf(Str::kSeq2SeqAttribPostNorm, {c.model_type}));
  // 1. The decoder position (the last unless moved) and the target (typed, or the label there).
  const int n = (int)r->decoder_tokens.size();
  OverviewPanelView& v = ctx.views.overview;
  Seq2SeqPanelView& s = ctx.views.seq2seq;
  int position = v.attrib_position < 0 || v.attrib_position >= n ? n - 1 : v.attrib_position;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  if (widget::SliderInt(ctx.dump, Str::kAttribPosition, "attrib.position", &position, 0, std::max(0, n - 1)))
    v.attrib_position = position == n - 1 ? -1 : position;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  widget::InputTextWithHint(ctx.dump, Str::kAttribTarget, "attrib.target", Tr(Str::kAttribTargetHint),
                            &v.attrib_target);
  std::string target_error;
  const int target = ReadTargetToken(folder, v.attrib_target, Str::kAttribTarget, &target_error);
  ctx.dump.SetField("attrib_target_error", JsonString(target_error));
  if (!target_error.empty()) return ErrorLine(ctx, "attrib_error", target_error);
  // 2. The job: asked every frame, started when the run, the position or the target changed.
  s.attribution_wanted = true;
  s.attrib_position = position, s.attrib_target = target;
  const std::shared_ptr<const Seq2SeqAttributionResult>& a = ctx.results.seq2seq_attribution;
  if (ctx.results.seq2seq_attribution_busy || !a) DimText(Tr(Str::kAttribBusy));
  if (!a) return;
  if (!a->status.ok()) return ErrorLine(ctx, "attrib_error", Localized(a->status));
  // 3. The logit and the parts' sum, then the grid: per decoder layer its D heads, its X heads and its MLP.
  const model::Seq2SeqLogitAttribution& at = a->attribution;
  const int L = c.decoder.n_layer, H = c.decoder.n_head, cols = 2 * H + 1;
  std::vector<double> cells((size_t)L * cols, 0.0);
  double embed = 0, attn_bias = 0, norm_bias = 0, sum = 0;
  for (const model::Seq2SeqLogitComponent& p : at.components) {
    sum += p.value;
    if (p.kind == ComponentKind::kEmbed) embed += p.value;
    else if (p.kind == ComponentKind::kAttnBias) attn_bias += p.value;
    else if (p.kind == ComponentKind::kNormBias) norm_bias += p.value;
    else if (p.layer >= 0 && p.layer < L && p.kind == ComponentKind::kMlp) cells[(size_t)p.layer * cols + 2 * H] = p.value;
    else if (p.layer >= 0 && p.layer < L && p.head >= 0 && p.head < H)
      cells[(size_t)p.layer * cols + (p.stack == Seq2SeqStack::kCross ? H : 0) + p.head] = p.value;
  }
  const int pos = std::clamp(at.position, 0, n - 1);
  const std::string line =
      Trf(Str::kAttribSum, {"\"" + TargetTokenText(folder, at.target) + "\"", std::to_string(at.position),
                            "\"" + ShownText(r->decoder_tokens[(size_t)pos].display) + "\"",
                            FormatNumber(at.logit, "%.4f"), FormatNumber(sum, "%.4f")});
  ctx.NeedGlyphs(line);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(line.c_str());
  ImGui::PopTextWrapPos();
  ctx.dump.SetField("attribution", "{\"position\": " + std::to_string(at.position) + ", \"target\": " +
                                       std::to_string(at.target) + ", \"logit\": " + ExactNumber(at.logit) +
                                       ", \"sum\": " + ExactNumber(sum) + ", \"line\": " + JsonString(line) + "}");
  double range = std::max({std::fabs(embed), std::fabs(attn_bias), std::fabs(norm_bias), 1e-12});
  for (double x : cells) range = std::max(range, std::fabs(x));
  DrawDivergingLegend(range, Tr(Str::kAttribLegend));
  SignedGrid grid;
  grid.rows = L, grid.cols = cols;
  grid.values = cells.data();
  for (int l = 0; l < L; ++l) grid.row_labels.push_back("L" + std::to_string(l));
  for (const char* side : {"D", "X"})
    for (int h = 0; h < H; ++h) grid.col_labels.push_back(side + std::to_string(h));
  grid.col_labels.push_back("MLP");
  grid.range = range;
  grid.dump_name = "attrib";
  grid.tooltip = [&](int row, int col) {
    const double value = cells[(size_t)row * cols + col];
    if (col == 2 * H) return Trf(Str::kAttribTipPart, {"L" + std::to_string(row) + " MLP", SignedText(value)});
    const Str stack = col < H ? Str::kSeq2SeqDecoderAttention : Str::kSeq2SeqCrossAttention;
    return Trf(Str::kSeq2SeqAttribTipHead, {Tr(stack), std::to_string(row), std::to_string(col % H), SignedText(value)});
  };
  const float line_h = ImGui::GetTextLineHeightWithSpacing();
  DrawSignedGrid(ctx, grid, ImGui::GetContentRegionAvail().y - line_h * 3);
  // 4. The parts of no head: the embeddings, every attention bias together, the final norm's bias.
  const double parts[3] = {embed, attn_bias, norm_bias};
  DrawAttributionParts(ctx, parts, range);
}

void DrawSeq2SeqPatchingView(PanelContext& ctx) {
  const Seq2SeqResult* r = CompleteSeq2SeqRun(ctx, Str::kSeq2SeqPatchExplain);
  if (!r) return;
  const Seq2SeqFolder& folder = *r->folder;
  // 1. The clean source (the shown one to start from) and the metric's tokens.
  OverviewPanelView& v = ctx.views.overview;
  Seq2SeqPanelView& s = ctx.views.seq2seq;
  const bool busy = ctx.results.seq2seq_patching_busy;
  const JobProgress& progress = ctx.results.seq2seq_patching_progress;
  const PatchInputs in = DrawPatchInputs(
      ctx, Str::kSeq2SeqPatchClean, r->request.source_text, busy, progress,
      Trf(Str::kSeq2SeqPatchProgress, {std::to_string(progress.done), std::to_string(progress.total)}),
      [&](const std::string& text, Str label, std::string* error) { return ReadTargetToken(folder, text, label, error); });
  const int a = in.a, b = in.b;
  const std::string& error = in.error;
  if (in.run) s.patch_start = true, s.patch_a = a, s.patch_b = b;
  if (in.cancel) s.patch_stop = true;
  ctx.dump.SetField("patch_token_error", JsonString(error));
  if (!error.empty()) ErrorLine(ctx, "patch_error", error);
  // 2. The last patching of this folder, or why it was refused.
  const std::shared_ptr<const Seq2SeqPatchingResult>& shown = ctx.results.seq2seq_patching;
  if (!shown) {
    if (!busy) DimText(Tr(Str::kPatchNeedsRun));
    return;
  }
  const Seq2SeqPatchingRequest& req = shown->request;
  if (!shown->status.ok()) {
    // Sources of different lengths: both counts, in the app's words (the core's name the CLI's option).
    const int corrupted = (int)req.run->source_tokens.size();
    const bool counts = shown->clean_tokens > 0 && shown->clean_tokens != corrupted;
    return ErrorLine(ctx, "patch_error",
                     counts ? Trf(Str::kSeq2SeqPatchCounts, {std::to_string(shown->clean_tokens),
                                                             std::to_string(corrupted)})
                            : Localized(shown->status));
  }
  ImGui::PushTextWrapPos(0);
  if (req.clean_source != v.patch_clean || req.run->request != r->request || req.token_a != a || req.token_b != b)
    DimText(Tr(Str::kPatchStale));
  const model::Seq2SeqPatching& p = shown->patching;
  if (!p.complete && !busy) DimText(Trf(Str::kPatchPartial, {std::to_string(p.done), std::to_string(p.total)}));
  const std::string metric =
      Trf(Str::kSeq2SeqPatchMetric, {"\"" + TargetTokenText(folder, req.token_a) + "\"",
                                     "\"" + TargetTokenText(folder, req.token_b) + "\"", FormatNumber(p.clean, "%.4f"),
                                     FormatNumber(p.corrupted, "%.4f")});
  ctx.NeedGlyphs(metric);
  ImGui::TextUnformatted(metric.c_str());
  ImGui::PopTextWrapPos();
  ctx.dump.SetField("patching", "{\"clean\": " + JsonNumber(p.clean) + ", \"corrupted\": " + JsonNumber(p.corrupted) +
                                    ", \"done\": " + std::to_string(p.done) + ", \"total\": " +
                                    std::to_string(p.total) + ", \"complete\": " + BoolJson(p.complete) + "}");
  // 3. The grids, all in one colour range (1 = all of the difference, at least +-1).
  double range = 1;
  for (const std::vector<double>* g :
       {&p.encoder_heads, &p.decoder_heads, &p.cross_heads, &p.encoder_residual, &p.decoder_residual})
    for (double x : *g)
      if (!std::isnan(x)) range = std::max(range, std::fabs(x));
  DrawDivergingLegend(range, Tr(Str::kPatchLegend));
  const std::string not_done = Tr(Str::kPatchNotDone);
  auto share = [&](double x) { return std::isnan(x) ? not_done : SignedText(x); };
  ImGui::BeginChild("##seq2seq_patching", ImVec2(0, 0), false);
  // Heads: encoder, decoder, cross; each layers x heads.
  const std::vector<double>* heads[3] = {&p.encoder_heads, &p.decoder_heads, &p.cross_heads};
  const char* head_names[3] = {"patch.encoder_heads", "patch.decoder_heads", "patch.cross_heads"};
  for (int st = 0; st < 3; ++st) {
    const int layers = st == 0 ? p.n_enc_layer : p.n_dec_layer, n_head = st == 0 ? p.n_enc_head : p.n_dec_head;
    if (heads[st]->empty()) continue;
    DimText(Trf(Str::kSeq2SeqPatchHeads, {Tr(kStackTitle[st])}));
    SignedGrid g;
    g.rows = layers, g.cols = n_head;
    g.values = heads[st]->data();
    for (int l = 0; l < layers; ++l) g.row_labels.push_back("L" + std::to_string(l));
    for (int h = 0; h < n_head; ++h) g.col_labels.push_back("H" + std::to_string(h));
    g.range = range;
    g.dump_name = head_names[st];
    g.tooltip = [&, st, n_head](int row, int col) {
      return Trf(Str::kSeq2SeqPatchTipHead, {Tr(kStackTitle[st]), std::to_string(row), std::to_string(col),
                                             share((*heads[st])[(size_t)row * n_head + col])});
    };
    DrawSignedGrid(ctx, g);
  }
  // Residual streams: the encoder's over the source tokens, the decoder's over the decoder tokens.
  const std::vector<tokenize::Token>* tokens[2] = {&req.run->source_tokens, &req.run->decoder_tokens};
  const std::vector<double>* streams[2] = {&p.encoder_residual, &p.decoder_residual};
  const char* stream_names[2] = {"patch.encoder_residual", "patch.decoder_residual"};
  for (int st = 0; st < 2; ++st) {
    const int layers = (st == 0 ? p.n_enc_layer : p.n_dec_layer) + 1, n = st == 0 ? p.n_src : p.n_tgt;
    if (streams[st]->empty()) continue;
    DimText(Trf(Str::kSeq2SeqPatchResidual, {Tr(kStreamTitle[st])}));
    SignedGrid g;
    g.rows = layers, g.cols = n;
    g.values = streams[st]->data();
    for (int l = 0; l < layers; ++l) g.row_labels.push_back("L" + std::to_string(l));
    for (int i = 0; i < n; ++i)
      g.col_labels.push_back(i < (int)tokens[st]->size() ? ShownText((*tokens[st])[(size_t)i].display)
                                                         : std::to_string(i));
    for (const std::string& l : g.col_labels) ctx.NeedGlyphs(l);
    g.range = range;
    g.min_cell_w = 44.0f;
    g.dump_name = stream_names[st];
    g.tooltip = [&, st, n](int row, int col) {
      return Trf(Str::kSeq2SeqPatchTipResidual, {Tr(kStreamTitle[st]), std::to_string(row), std::to_string(col),
                                                 "\"" + g.col_labels[(size_t)col] + "\"",
                                                 share((*streams[st])[(size_t)row * n + col])});
    };
    DrawSignedGrid(ctx, g);
  }
  ImGui::EndChild();
}

}  // namespace attnviz
