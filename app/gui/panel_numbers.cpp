// Numbers (seeds c, e, g): the pipeline as actual rows of the sandbox's last result, with the weights that run
// used (the --weights files or the random init it drew)
// (core/lessons/pipeline_numbers.h): the fused W and its column blocks W_q | W_k | W_v, the same q, k, v
// through three Linears; q as one Linear's output [batch, seq, n_head*d_k] and as heads [batch, head, seq,
// d_k]; one query row's weights times the value rows summing into z_i; the heads concatenated and mixed by
// W_o. A side whose source is a raw feature (length, position, one-hot) skips the projection: its W step is
// marked as not applying, and its rows are shown as used. Long rows show their first kCols numbers.
#include <imgui.h>

#include <algorithm>
#include <utility>

#include "app.h"
#include "sandbox_panel_context.h"
#include "io/json.h"
#include "lessons/pipeline_numbers.h"
#include "panel_util.h"
#include "widgets.h"
#include "sandbox/qkv_source.h"

namespace attnviz {

namespace {

constexpr int kCols = 8, kRows = 4;

// The first kCols numbers of row `row` of a row-major [rows, width] block starting at `data`.
std::string RowText(const float* data, size_t width) {
  std::string s;
  for (size_t j = 0; j < std::min<size_t>(width, kCols); ++j) s += (j ? " " : "") + FormatNumber(data[j], "%+.2f");
  return width > (size_t)kCols ? s + " \xE2\x80\xA6" : s;
}

std::string RowJson(const float* data, size_t width) {
  std::string s = "[";
  for (size_t j = 0; j < std::min<size_t>(width, kCols); ++j) s += (j ? ", " : "") + JsonNumber(data[j]);
  return s + "]";
}

void Heading(const std::string& text) {
  ImGui::Spacing();
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

}  // namespace

void DrawNumbersPanel(SandboxPanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  if (ctx.settings.source == Source::kModel) {
    DimText(Tr(Str::kNumNoSandbox));
    return;
  }
  const SandboxExtras* shown = ctx.shown.sandbox;
  if (!shown || !shown->numbers->q || shown->numbers->q->empty()) {
    ImGui::TextUnformatted(Tr(ctx.shown.computing ? Str::kComputing : Str::kNoResultYet));
    return;
  }
  const AttentionTensors& t = *shown->numbers;
  const AttentionConfig& c = shown->config;
  const bool cross = c.mode == AttentionMode::kCross;
  const Tensor& x = *t.x;
  const Tensor& xq = cross && t.xq ? *t.xq : x;
  // Made once per result: the weights the run used, and the two projections.
  NumbersCache& cache = ctx.learn.numbers;
  if (cache.generation != shown->generation) {
    ProjectionWeights weights;
    const std::shared_ptr<const ProjectionWeights>& loaded = ctx.shown.loaded_weights;
    if (loaded) weights = *loaded;
    else InitWeights(WeightsConfig(c, (int)Vocabulary(t.query_tokens, t.kv_tokens).size()), &weights);
    cache.loaded = loaded != nullptr;
    cache.split = SplitFusedWeights(weights);
    cache.check = FusedVersusThreeLinears(xq, x, weights);
    cache.merged_q = MergeHeads(*t.q);
    cache.generation = shown->generation;
  }
  const FusedSplit& w = cache.split;
  const int n_head = (int)t.q->dim(0), n_q = (int)t.q->dim(1), d_k = (int)t.q->dim(2);

  // 1. The fused W and its column blocks.
  Heading(Trf(Str::kNumFused, {std::to_string(w.w_fused.dim(0)), std::to_string(w.w_fused.dim(1))}));
  for (size_t r = 0; r < std::min<size_t>(w.w_fused.dim(0), kRows); ++r)
    ImGui::TextUnformatted(RowText(w.w_fused.data.data() + r * w.w_fused.dim(1), w.w_fused.dim(1)).c_str());
  DimText(Trf(Str::kNumSplit, {ShapeString(w.w_q.shape), ShapeString(w.w_k.shape), ShapeString(w.w_v.shape)}));
  DimText(Tr(cache.loaded ? Str::kNumWeightsLoaded : Str::kNumWeightsRandom));
  dump.RecordItem("numbers.weights", JsonString(cache.loaded ? "loaded" : "random"));
  dump.RecordItem("numbers.w_row0", RowJson(w.w_fused.data.data(), w.w_fused.dim(1)));
  // A raw feature skips the projection: its W block is not used, its rows are the feature itself.
  static const Str kFeatureLabels[] = {Str::kFeatureEmbedding, Str::kFeatureLength, Str::kFeaturePosition,
                                       Str::kFeatureOneHot};
  const std::pair<const char*, FeatureSource> sides[] = {{"q", c.query_from}, {"k", c.key_from}, {"v", c.value_from}};
  const Tensor* side_rows[] = {t.q.get(), t.k.get(), t.v.get()};
  std::string raw_json;
  const ImVec4 raw_note_color = kDimColor;  // a choice the user made, not an error
  for (int i = 0; i < 3; ++i) {
    const auto& [side, source] = sides[i];
    if (source == FeatureSource::kEmbedding) continue;
    const Tensor& rows = *side_rows[i];
    ImGui::PushStyleColor(ImGuiCol_Text, raw_note_color);
    ImGui::TextWrapped("%s", Trf(Str::kNumRawSide, {side, Tr(kFeatureLabels[(int)source]),
                                                    std::to_string(rows.dim(2))}).c_str());
    ImGui::PopStyleColor();
    for (size_t r = 0; r < std::min<size_t>(rows.dim(1), kRows); ++r)
      ImGui::TextUnformatted((std::string(side) + "_" + std::to_string(r) + " = " +
                              RowText(rows.data.data() + r * rows.dim(2), rows.dim(2))).c_str());
    raw_json += std::string(raw_json.empty() ? "" : ", ") + "\"" + side + "\": " + RowJson(rows.data.data(), rows.dim(2));
  }
  dump.RecordItem("numbers.raw_rows", "{" + raw_json + "}");
  dump.SetField("numbers_raw_note_color", "[" + JsonNumber(raw_note_color.x) + ", " + JsonNumber(raw_note_color.y) + ", " +
                                              JsonNumber(raw_note_color.z) + "]");
  // 2. Three Linears give the same q, k, v.
  Heading(Tr(Str::kNumThreeLinears));
  const bool same = cache.check.equal_to_rounding();  // by a tolerance: the sums run in another order
  const std::string verdict = Trf(same ? Str::kNumEqual : Str::kNumDiffer,
                                  {ShortExponent(cache.check.max_abs_diff), ShortExponent(cache.check.rounding_tolerance)});
  ImGui::PushStyleColor(ImGuiCol_Text, same ? kOkColor : kErrorColor);
  ImGui::TextWrapped("%s", verdict.c_str());
  ImGui::PopStyleColor();
  dump.RecordItem("numbers.max_abs_diff", JsonNumber(cache.check.max_abs_diff));
  dump.RecordItem("numbers.linears_verdict", "{\"same\": " + BoolJson(same) + ", \"text\": " + JsonString(verdict) + "}");

  // 3. q split into heads: the same numbers, viewed as [batch, head, seq, d/head].
  const Tensor& merged = cache.merged_q;
  // A raw q (word length, position, one-hot) is no Linear's output: the heading says what it is.
  const std::string q_heading =
      Trf(c.query_from == FeatureSource::kEmbedding ? Str::kNumReshape : Str::kNumReshapeRaw,
          {ShapeString(merged.shape), "[1, " + std::to_string(n_head) + ", " + std::to_string(n_q) + ", " + std::to_string(d_k) + "]"});
  Heading(q_heading);
  dump.SetField("numbers_q_heading", JsonString(q_heading));
  DimText(Trf(Str::kNumBatch, {"0"}) + ", " + Tr(Str::kNumQueryRow) + " 0: " + RowText(merged.data.data(), merged.dim(2)));
  for (int h = 0; h < std::min(n_head, kRows); ++h)
    ImGui::TextUnformatted((std::string(Tr(Str::kNumHead)) + " " + std::to_string(h) + ": " +
                            RowText(t.q->data.data() + (size_t)h * n_q * d_k, (size_t)d_k))
                               .c_str());
  dump.RecordItem("numbers.q_shapes", "[" + JsonString(ShapeString(merged.shape)) + ", " +
                                          JsonString(ShapeString(t.q->shape)) + "]");

  // 4. One query row reads the values: z_i = sum_j p_ij v_j.
  if (t.probs && !t.probs->empty() && t.v && !t.v->empty()) {
    Heading(Tr(Str::kNumReadValues));
    const int head = std::clamp(ctx.settings.selected_head, 0, n_head - 1);
    cache.query = std::clamp(cache.query, 0, n_q - 1);
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.4f);
    widget::SliderInt(dump, Str::kNumQueryRow, "numbers.query", &cache.query, 0, n_q - 1);
    const ValueRead read = ReadValues(*t.probs, *t.v, head, cache.query);
    const size_t d_v = read.weighted_values.dim(1);
    for (size_t j = 0; j < read.weights.size() && j < 12; ++j)
      ImGui::TextUnformatted((FormatNumber(read.weights[j], "%.3f") + " \xC3\x97 v_" + std::to_string(j) + " (" +
                              t.kv_tokens[j].display + ") = " + RowText(read.weighted_values.data.data() + j * d_v, d_v))
                                 .c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, kOkColor);
    ImGui::TextUnformatted(("\xCE\xA3 = z_" + std::to_string(cache.query) + " = " + RowText(read.z.data(), d_v)).c_str());
    ImGui::PopStyleColor();
    std::string z = "[";
    for (size_t i = 0; i < read.z.size(); ++i) z += (i ? ", " : "") + JsonNumber(read.z[i]);
    dump.RecordItem("numbers.z", "{\"head\": " + std::to_string(head) + ", \"z\": " + z + "]}");
  }
  // 5. The heads concatenated, mixed by W_o.
  if (t.concat && t.out && !t.out->empty()) {
    Heading(Trf(Str::kNumConcat, {ShapeString(t.concat->shape), ShapeString(t.out->shape)}));
    const size_t i = (size_t)std::clamp(cache.query, 0, (int)t.out->dim(0) - 1);
    ImGui::TextUnformatted(("concat " + RowText(t.concat->data.data() + i * t.concat->dim(1), t.concat->dim(1))).c_str());
    ImGui::TextUnformatted((Trf(Str::kNumOut, {std::to_string(i)}) + ": " +
                            RowText(t.out->data.data() + i * t.out->dim(1), t.out->dim(1)))
                               .c_str());
  }
}

}  // namespace attnviz
