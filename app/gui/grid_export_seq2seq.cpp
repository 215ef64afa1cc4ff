// The Overview's grids of an encoder-decoder run as files (grid_export.h): what panel_seq2seq_readouts.cpp draws,
// the same numbers, titled with the model and, for patching, the stack.
#include <cmath>

#include "grid_export.h"
#include "i18n/localized.h"
#include "tokenize/shown_text.h"

namespace attnviz {
namespace {

using model::ComponentKind;
using model::Seq2SeqStack;

// Column labels "index:token" of a stack's tokens.
std::vector<std::string> PositionLabels(const std::vector<tokenize::Token>& tokens) {
  std::vector<std::string> out;
  for (size_t i = 0; i < tokens.size(); ++i) out.push_back(std::to_string(i) + ":" + ShownText(tokens[i].display));
  return out;
}

std::vector<std::string> Numbered(const char* prefix, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

}  // namespace

std::vector<ExportGrid> Seq2SeqOverviewGrids(PanelContext& ctx, int* figure_grid, UiMessage* refusal) {
  *figure_grid = 0;
  using View = OverviewPanelView::View;
  const View view = ctx.views.overview.view;
  const Str name = view == View::kLens ? Str::kOverviewShowLens
                   : view == View::kAttribution ? Str::kOverviewShowAttribution
                                                : Str::kOverviewShowPatching;
  std::vector<ExportGrid> grids;
  const std::shared_ptr<const Seq2SeqResult>& run = ctx.results.seq2seq;
  *refusal = UiMessage(Str::kExportNoGrid, {Tr(name)});
  if (!run || !run->complete() || !run->folder) return grids;
  const Seq2SeqFolder& folder = *run->folder;
  const std::string model = ModelName(folder.dir);
  if (view == View::kLens) {
    const std::shared_ptr<const Seq2SeqLensResult>& lens = ctx.results.seq2seq_lens;
    if (!lens || !lens->status.ok() || lens->layers.empty()) return grids;
    ExportGrid g = LensExportGrid(lens->layers, PositionLabels(run->decoder_tokens), model);
    grids.push_back(std::move(g));
  } else if (view == View::kAttribution) {
    const std::shared_ptr<const Seq2SeqAttributionResult>& a = ctx.results.seq2seq_attribution;
    if (!a || !a->status.ok()) return grids;
    const int L = folder.model->config().decoder.n_layer, H = folder.model->config().decoder.n_head;
    ExportGrid g;
    g.rows = L, g.cols = 2 * H + 1;
    g.values.assign((size_t)L * g.cols, 0.0);
    g.corner = "layer";
    g.row_labels = Numbered("L", L);
    g.col_labels = Numbered("D", H);
    for (const std::string& x : Numbered("X", H)) g.col_labels.push_back(x);
    g.col_labels.push_back("MLP");
    ExportGrid parts;
    parts.rows = 1, parts.cols = 3;
    parts.values.assign(3, 0.0);
    parts.corner = "part";
    parts.col_labels = {"embed", "attn_bias", "norm_bias"};
    parts.row_labels = {"value"};
    for (const model::Seq2SeqLogitComponent& c : a->attribution.components) {
      if (c.kind == ComponentKind::kEmbed) parts.values[0] += c.value;
      else if (c.kind == ComponentKind::kAttnBias) parts.values[1] += c.value;
      else if (c.kind == ComponentKind::kNormBias) parts.values[2] += c.value;
      else if (c.layer >= 0 && c.layer < L && c.kind == ComponentKind::kMlp) g.values[(size_t)c.layer * g.cols + 2 * H] = c.value;
      else if (c.layer >= 0 && c.layer < L && c.head >= 0 && c.head < H)
        g.values[(size_t)c.layer * g.cols + (c.stack == Seq2SeqStack::kCross ? H : 0) + c.head] = c.value;
    }
    g.row_axis = Tr(Str::kLayer), g.col_axis = Tr(Str::kColHead), g.value_axis = Tr(Str::kAttribLegend);
    g.symmetric = parts.symmetric = true;
    g.title = parts.title = Trf(Str::kGridTitleAttribution, {model, TargetTokenText(folder, a->attribution.target),
                                                             std::to_string(a->attribution.position)});
    grids.push_back(std::move(g));
    grids.push_back(std::move(parts));
  } else {
    const std::shared_ptr<const Seq2SeqPatchingResult>& p = ctx.results.seq2seq_patching;
    if (!p || !p->status.ok() || !p->request.run) return grids;
    const model::Seq2SeqPatching& pt = p->patching;
    const std::string a_text = TargetTokenText(folder, p->request.token_a), b_text = TargetTokenText(folder, p->request.token_b);
    const Str stack_titles[3] = {Str::kSeq2SeqEncoderAttention, Str::kSeq2SeqDecoderAttention,
                                 Str::kSeq2SeqCrossAttention};
    const std::vector<double>* heads[3] = {&pt.encoder_heads, &pt.decoder_heads, &pt.cross_heads};
    for (int s = 0; s < 3; ++s) {
      ExportGrid g;
      g.rows = s == 0 ? pt.n_enc_layer : pt.n_dec_layer, g.cols = s == 0 ? pt.n_enc_head : pt.n_dec_head;
      g.values = *heads[s];
      g.corner = std::string(model::Seq2SeqStackName((Seq2SeqStack)s)) + " layer";
      g.row_labels = Numbered("L", g.rows), g.col_labels = Numbered("H", g.cols);
      g.row_axis = Tr(Str::kLayer), g.col_axis = Tr(Str::kColHead), g.value_axis = Tr(Str::kPatchLegend);
      g.title = Trf(Str::kGridTitlePatching, {model + " \u00B7 " + Tr(stack_titles[s]), a_text, b_text});
      g.symmetric = true;
      grids.push_back(std::move(g));
    }
    const std::vector<tokenize::Token>* tokens[2] = {&p->request.run->source_tokens, &p->request.run->decoder_tokens};
    const std::vector<double>* streams[2] = {&pt.encoder_residual, &pt.decoder_residual};
    const Str sides[2] = {Str::kSeq2SeqEncoderSide, Str::kSeq2SeqDecoderSide};
    for (int s = 0; s < 2; ++s) {
      ExportGrid g;
      g.rows = (s == 0 ? pt.n_enc_layer : pt.n_dec_layer) + 1, g.cols = s == 0 ? pt.n_src : pt.n_tgt;
      g.values = *streams[s];
      g.corner = std::string(s == 0 ? "encoder" : "decoder") + " layer";
      g.row_labels = Numbered("L", g.rows);
      g.col_labels = PositionLabels(*tokens[s]);
      g.col_labels.resize((size_t)g.cols);
      g.row_axis = Tr(Str::kLayer), g.col_axis = Tr(Str::kAttribPosition), g.value_axis = Tr(Str::kPatchLegend);
      g.title = Trf(Str::kGridTitlePatchingResidual, {model + " \u00B7 " + Tr(sides[s]), a_text, b_text});
      g.symmetric = true;
      grids.push_back(std::move(g));
    }
    // A figure: the cross-attention heads (the only way the source reaches the decoder), or the encoder's stream.
    *figure_grid = ctx.views.overview.patching_figure == OverviewPanelView::PatchingFigure::kResidual ? 3 : 2;
  }
  *refusal = UiMessage();
  return grids;
}

}  // namespace attnviz
