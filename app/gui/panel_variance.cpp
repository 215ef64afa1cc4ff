// Variance (seed d): why divide by sqrt(d_k). q.k of random q and k with unit-variance components at the
// current d_k: a histogram of the samples with their std beside sqrt(d_k), and one query's softmax over 16
// keys unscaled and scaled (core/lessons/dot_variance.h). Sampled once per d_k, not per frame, and off the UI
// thread: the last picture stays (dimmed) until the new d_k's samples arrive, so a frame never waits.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>

#include "app.h"
#include "sandbox_panel_context.h"
#include "io/json.h"
#include "lessons/dot_variance.h"
#include "panel_util.h"

namespace attnviz {

namespace {

constexpr int kSamples = 2000, kRowKeys = 16, kBins = 41;
const ImU32 kBarColor = IM_COL32(90, 170, 255, 255);
const ImU32 kUnscaledBar = IM_COL32(255, 140, 60, 255);

// One softmax row as bars (height = weight), labelled with its max weight.
void DrawWeights(const std::vector<float>& weights, ImU32 color, const std::string& caption, ImVec2 size) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeight();
  dl->AddText(p, ImGui::GetColorU32(ImGuiCol_Text), caption.c_str());
  const ImVec2 a(p.x, p.y + line + 2), b(p.x + size.x, p.y + size.y);
  dl->AddRectFilled(a, b, IM_COL32(20, 22, 28, 255));
  const float w = (b.x - a.x) / (float)std::max<size_t>(1, weights.size());
  for (size_t j = 0; j < weights.size(); ++j)
    dl->AddRectFilled(ImVec2(a.x + w * (float)j + 1, b.y - (b.y - a.y) * weights[j]), ImVec2(a.x + w * (float)(j + 1) - 1, b.y),
                      color);
  ImGui::Dummy(size);
}

}  // namespace

void DrawVariancePanel(SandboxPanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  const int d_k = ctx.settings.config.head_dim_k();
  std::shared_ptr<const DotVariance>& v = ctx.learn.variance;
  std::future<std::shared_ptr<const DotVariance>>& job = ctx.learn.variance_job;
  if (job.valid() && job.wait_for(std::chrono::seconds(0)) == std::future_status::ready) v = job.get();
  if ((!v || v->d_k != d_k) && !job.valid())
    job = std::async(std::launch::async,
                     [d_k] { return std::make_shared<const DotVariance>(SampleDotProducts(d_k, kSamples, kRowKeys, 1)); });
  DimText(Tr(Str::kVarIntro));
  if (!v) {
    ImGui::TextUnformatted(Tr(Str::kComputing));
    return;
  }
  // Until the samples of the current d_k arrive, the last picture is shown dimmed and not reported as current.
  const bool current = v->d_k == d_k;
  if (!current) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.5f);
  const float spread = (float)std::max(1.0, v->std);
  const float lo = -4.0f * spread, hi = 4.0f * spread;
  const std::vector<int> counts = HistogramCounts(v->samples, kBins, lo, hi);
  const int most = std::max(1, *std::max_element(counts.begin(), counts.end()));

  const float line = ImGui::GetTextLineHeight();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float half = (avail.x - 12.0f) * 0.5f, height = std::max(80.0f, avail.y - line * 2.0f);
  // Left: the histogram with its std and sqrt(d_k); right: the two softmax rows.
  ImGui::BeginGroup();
  ImGui::TextUnformatted(Trf(Str::kVarHistogram, {std::to_string(kSamples)}).c_str());
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 a(p.x, p.y), b(p.x + half, p.y + height - line * 2.0f);
  dl->AddRectFilled(a, b, IM_COL32(20, 22, 28, 255));
  const float bw = (b.x - a.x) / kBins;
  for (int i = 0; i < kBins; ++i)
    dl->AddRectFilled(ImVec2(a.x + bw * (float)i, b.y - (b.y - a.y) * (float)counts[(size_t)i] / (float)most),
                      ImVec2(a.x + bw * (float)(i + 1) - 1, b.y), kBarColor);
  // +-sqrt(d_k) marks: where the std should be.
  const float root = std::sqrt((float)v->d_k);
  for (float x : {-root, root}) {
    const float px = a.x + (x - lo) / (hi - lo) * (b.x - a.x);
    dl->AddLine(ImVec2(px, a.y), ImVec2(px, b.y), IM_COL32(255, 220, 80, 220), 1.5f);
  }
  const ImU32 dim = ImGui::GetColorU32(kDimColor);
  dl->AddText(ImVec2(a.x, b.y + 1), dim, FormatNumber(lo, "%.3g").c_str());
  const std::string hi_text = FormatNumber(hi, "%.3g");
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(hi_text.c_str()).x, b.y + 1), dim, hi_text.c_str());
  ImGui::Dummy(ImVec2(half, b.y - a.y + line));
  ImGui::TextUnformatted(Trf(Str::kVarStd, {FormatNumber(v->std, "%.3g"), FormatNumber(root, "%.3g")}).c_str());
  ImGui::EndGroup();
  if (current)
    dump.RecordItem("variance.histogram", "{\"d_k\": " + std::to_string(d_k) + ", \"std\": " + JsonNumber(v->std) +
                                              ", \"sqrt_d_k\": " + JsonNumber(root) + "}");
  ImGui::SameLine(0, 12.0f);
  ImGui::BeginGroup();
  ImGui::TextUnformatted(Trf(Str::kVarRow, {std::to_string(kRowKeys)}).c_str());
  const float max_unscaled = *std::max_element(v->row_unscaled.begin(), v->row_unscaled.end());
  const float max_scaled = *std::max_element(v->row_scaled.begin(), v->row_scaled.end());
  const ImVec2 bars(half, (height - line * 1.5f) * 0.5f);
  DrawWeights(v->row_unscaled, kUnscaledBar,
              std::string(Tr(Str::kVarUnscaled)) + "  " + Trf(Str::kVarMaxWeight, {FormatNumber(max_unscaled, "%.3f")}),
              bars);
  DrawWeights(v->row_scaled, kBarColor,
              std::string(Tr(Str::kVarScaled)) + "  " + Trf(Str::kVarMaxWeight, {FormatNumber(max_scaled, "%.3f")}), bars);
  ImGui::EndGroup();
  if (!current) {
    ImGui::PopStyleVar();
    return;
  }
  dump.RecordItem("variance.row", "{\"max_unscaled\": " + JsonNumber(max_unscaled) +
                                      ", \"max_scaled\": " + JsonNumber(max_scaled) + "}");
}

}  // namespace attnviz
