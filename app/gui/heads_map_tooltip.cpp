// The tooltip of a Heads panel map's hovered cell: query, key, the weight (exact at any zoom: ExactAt reads the
// full map when kept, else recomputes the row from q and k), the logit before and after scaling, the row's entropy
// and largest weight, and how the drawn texels pool the cells.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "heads_map.h"
#include "io/json.h"
#include "model_analysis.h"
#include "panel_util.h"
#include "sandbox/score.h"
#include "unicode_slots.h"
#include "tokenize/shown_text.h"

namespace attnviz {

namespace {

// The weight line: masked, a pooled rollout's cell (no exact cell: the pooled cell's value, its base level's
// R'[I, J] per covered column, and what it pools), pending exact rows, or the exact weight.
void WeightLines(PanelContext& ctx, const LayerMaps& t, const ExactCell& cell, int i, int j) {
  const bool masked = t.mask.Masked(i, j, t.n_k());
  const bool pooled_rollout = ctx.shown && ctx.shown->model && !KindInfo(ctx.shown->kind).shows.exact_from_qk &&
                              t.pooled && t.pyramid && !t.pyramid->levels().empty() && std::isnan(cell.prob);
  if (masked) {
    ImGui::TextUnformatted(Tr(Str::kTipMasked));
  } else if (pooled_rollout) {
    const PyramidLevel& base = t.pyramid->levels()[0];
    const float value = base.Plane(PoolKind::kMean, 0)[(size_t)(i / base.factor) * base.cols + (size_t)(j / base.factor)];
    ImGui::TextUnformatted(Trf(Str::kTipWeight, {FormatNumber(value)}).c_str());
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(Trf(Str::kRolloutPooled, {std::to_string(t.n_k()), std::to_string(kRolloutMaxTokens),
                                                     std::to_string(base.factor)}).c_str());
    ImGui::PopTextWrapPos();
  } else if (std::isnan(cell.prob)) {  // a streamed layer whose q and k are on their way (wants_exact_rows)
    ImGui::TextUnformatted(Tr(Str::kTipWeightPending));
  } else {
    ImGui::TextUnformatted(Trf(Str::kTipWeight, {FormatNumber(cell.prob)}).c_str());
  }
}

// The run's own score (a trained model's is the scaled dot product, the sandbox's any of five), the logit before
// and after scaling and temperature.
void LogitLines(PanelContext& ctx, const LayerMaps& t, float score_value) {
  const ScoreKind score = ctx.shown && ctx.shown->sandbox ? ctx.shown->sandbox->config.score
                                                          : ScoreKind::kScaledDot;
  ImGui::TextUnformatted(Trf(Str::kTipLogitBefore, {ScoreFormula(score), FormatNumber(score_value)}).c_str());
  // Only scaled-dot divides by sqrt(d_k) (AttentionConfig::logit_multiplier): the scale switch is on under
  // every score, but -|q - k|, cosine, additive and dot logits are never divided.
  const bool divided = t.scaled && score == ScoreKind::kScaledDot;
  std::string how = std::string(divided ? "\xC3\xB7\xE2\x88\x9A" "d_k" : Tr(Str::kUnscaled)) +
                    (t.temperature != 1.0f ? ", \xC3\xB7T" : "");
  const float uncapped = LogitFromScore(score_value, t.multiplier);
  const std::string after = Trf(Str::kTipLogitAfter, {how, FormatNumber(uncapped)});
  ImGui::TextUnformatted(after.c_str());
  ctx.dump.SetField("heads_tip_logit_after", JsonString(after));
  if (t.softcap > 0) {  // the soft cap (Gemma 2, or the sandbox's): the logit the softmax takes
    const std::string capped = Trf(Str::kTipLogitCapped, {FormatNumber(t.softcap), FormatNumber(uncapped),
                                                          FormatNumber(LogitFromScore(score_value, t.multiplier, t.softcap))});
    ImGui::TextUnformatted(capped.c_str());
    ctx.dump.SetField("heads_tip_logit_capped", JsonString(capped));
  }
}

// A raw feature as the query or the key (word length, position: lesson (f)'s "a key from word length"): the numbers
// the score compared, q_i and k_j themselves. Returns them for the hover's dump ("" when neither is a raw feature).
std::string FeatureLines(PanelContext& ctx, const MapDraw& m, int i, int j) {
  if (!ctx.shown || !ctx.shown->sandbox || !m.extras || !m.extras->q || !m.extras->k) return "";
  const AttentionConfig& c = ctx.shown->sandbox->config;
  auto raw = [](FeatureSource f) { return f == FeatureSource::kLength || f == FeatureSource::kPosition; };
  if (!raw(c.query_from) && !raw(c.key_from)) return "";
  const Tensor& q = *m.extras->q;
  const Tensor& k = *m.extras->k;
  if (q.shape.size() != 3 || k.shape.size() != 3 || m.head >= (int)q.dim(0) || i >= (int)q.dim(1) || j >= (int)k.dim(1) ||
      q.dim(2) > 4 || k.dim(2) > 4)
    return "";
  auto vec = [](const Tensor& t, int head, int row) {
    std::string s = "[";
    for (size_t d = 0; d < t.dim(2); ++d)
      s += (d ? ", " : "") + FormatNumber(t.data[((size_t)head * t.dim(1) + row) * t.dim(2) + d], "%.4g");
    return s + "]";
  };
  auto name = [](FeatureSource f) {
    return Tr(f == FeatureSource::kLength ? Str::kFeatureLength
              : f == FeatureSource::kPosition ? Str::kFeaturePosition
              : f == FeatureSource::kOneHot ? Str::kFeatureOneHot : Str::kFeatureEmbedding);
  };
  const std::string qv = vec(q, m.head, i), kv = vec(k, m.head, j);
  ImGui::TextUnformatted(Trf(Str::kTipQkFeatures, {qv, name(c.query_from), kv, name(c.key_from)}).c_str());
  return ", \"q\": " + qv + ", \"k\": " + kv;
}

}  // namespace

void DrawCellTooltip(PanelContext& ctx, const MapDraw& m, const MapFrame& f) {
  const LayerMaps& t = f.t;
  const MapState& ms = f.ms;
  const MapWindow& w = ms.window;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const int j = std::clamp(w.c0 + (int)((mouse.x - f.map_min.x) / f.cell_x), w.c0, w.c1 - 1);
  const int i = std::clamp(w.r0 + (int)((mouse.y - f.map_min.y) / f.cell_y), w.r0, w.r1 - 1);
  if (f.cell_shown >= 2.0f)
    ImGui::GetWindowDrawList()->AddRect(
        ImVec2(f.map_min.x + (float)(j - w.c0) * f.cell_x, f.map_min.y + (float)(i - w.r0) * f.cell_y),
        ImVec2(f.map_min.x + (float)(j - w.c0 + 1) * f.cell_x, f.map_min.y + (float)(i - w.r0 + 1) * f.cell_y),
        IM_COL32(255, 255, 255, 220));
  const ExactCell cell = ExactAt(f.source, m.extras ? m.extras->scores.get() : nullptr, m.head, i, j);  // exact at any zoom
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(Trf(Str::kTipHead, {std::to_string(m.head)}).c_str());
  ImGui::TextUnformatted(Trf(Str::kTipQuery, {std::to_string(i), ToImGui(ShownText(t.query_tokens[(size_t)i].display))}).c_str());
  ImGui::TextUnformatted(Trf(Str::kTipKey, {std::to_string(j), ToImGui(ShownText(t.kv_tokens[(size_t)j].display))}).c_str());
  WeightLines(ctx, t, cell, i, j);
  const std::string features = FeatureLines(ctx, m, i, j);
  if (!std::isnan(cell.score)) LogitLines(ctx, t, cell.score);  // NaN: not kept (a model layer keeps its probs only)
  if (m.head < (int)t.metrics.size() && i < (int)t.metrics[(size_t)m.head].rows.size()) {
    const RowMetrics& row = t.metrics[(size_t)m.head].rows[(size_t)i];
    ImGui::TextUnformatted(
        Trf(Str::kTipRowEntropy, {FormatNumber(row.entropy, "%.3f"), FormatNumber(row.norm_entropy, "%.3f")}).c_str());
    ImGui::TextUnformatted(Trf(Str::kTipRowMax, {FormatNumber(row.max_weight, "%.3f")}).c_str());
  }
  if (!ms.view.exact())
    ImGui::TextUnformatted(Trf(Str::kTipDrawn, {Tr(ctx.views.heads.pool == PoolKind::kMax ? Str::kPoolMax : Str::kPoolMean),
                                                std::to_string((w.cols() + ms.view.width - 1) / ms.view.width),
                                                std::to_string((w.rows() + ms.view.height - 1) / ms.view.height)})
                               .c_str());
  ImGui::EndTooltip();
  ctx.dump.RecordItem(m.dump_name + ".hover", "{\"i\": " + std::to_string(i) + ", \"j\": " + std::to_string(j) +
                                                  ", \"prob\": " + JsonNumber(cell.prob) +
                                                  ", \"score\": " + JsonNumber(cell.score) + features + "}");
}

}  // namespace attnviz
