// Dictionary (seed g): attention as a soft dictionary. A small editable table of keys and values, a query
// and a temperature; each key's score and weight and the blended value, from core/lessons/dictionary.h
// (LookUpSoftly). At a low temperature the best key takes all the weight (an exact lookup); a query that
// matches no key gets a blend.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <string>

#include "app.h"
#include "sandbox_panel_context.h"
#include "io/json.h"
#include "lessons/dictionary.h"
#include "i18n/localized.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {

namespace {

std::string FormatVector(const std::vector<float>& v) {
  std::string s = v.size() == 1 ? "" : "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + FormatNumber(v[i], "%.3g");
  return v.size() == 1 ? s : s + "]";
}

}  // namespace

void DrawDictionaryPanel(SandboxPanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  DictionaryView& d = ctx.learn.dictionary;
  DimText(Tr(Str::kDictIntro));
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.3f);
  widget::InputText(dump, Str::kDictQuery, "dictionary.query", &d.query);
  ImGui::SameLine();
  widget::SliderFloat(dump, Str::kTemperature, "dictionary.temperature", &d.temperature, 0.01f, 100.0f, "%.3g",
                      ImGuiSliderFlags_Logarithmic);
  if (!(d.temperature >= 0.01f && d.temperature <= 100.0f)) d.temperature = 1.0f;  // a typed "nan" or 0
  ImGui::PopItemWidth();

  SoftDictionary table;
  Status error;
  for (const auto& [key, value] : d.rows) {
    Result<std::vector<float>> numbers = ParseNumberList(value);
    if (!numbers && error.ok()) error = Status::Prefixed(MsgId::kPrefixContext, {key}, numbers.status());
    table.keys.push_back(key);
    table.values.push_back(numbers ? *numbers : std::vector<float>{});
  }
  Result<DictionaryLookup> lookup = error.ok() ? LookUpSoftly(table, d.query, d.temperature)
                                               : Result<DictionaryLookup>(error);
  if (ImGui::BeginTable("dictionary", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    for (Str column : {Str::kDictKey, Str::kDictValue, Str::kDictScore, Str::kDictWeight})
      ImGui::TableSetupColumn(Tr(column));
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < d.rows.size(); ++i) {
      ImGui::PushID((int)i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(-1);
      widget::TextField("##key", &d.rows[i].first);
      dump.RecordItem("dictionary.key." + std::to_string(i), JsonString(d.rows[i].first));
      ImGui::TableNextColumn();
      ImGui::SetNextItemWidth(-1);
      widget::TextField("##value", &d.rows[i].second);
      dump.RecordItem("dictionary.value." + std::to_string(i), JsonString(d.rows[i].second));
      if (lookup) {
        const float w = lookup->weights[i];
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(FormatNumber(lookup->scores[i], "%.3g").c_str());
        ImGui::TableNextColumn();
        // The weight as a bar with its number: the lookup's answer at a glance.
        ImGui::ProgressBar(w, ImVec2(-1, 0), FormatNumber(w, "%.3f").c_str());
        dump.RecordItem("dictionary.weight." + std::to_string(i), JsonNumber(w));
      }
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (widget::SmallButton(dump, Str::kDictAddRow, "dictionary.add"))
    d.rows.emplace_back(std::string(1, (char)('a' + d.rows.size() % 26)), std::to_string(d.rows.size() + 1));
  ImGui::SameLine();
  if (widget::SmallButton(dump, Str::kDictRemoveRow, "dictionary.remove") && d.rows.size() > 1) d.rows.pop_back();
  if (!lookup) {
    ErrorText(Localized(lookup));
    dump.SetField("dictionary", "{\"error\": " + JsonString(Localized(lookup)) + "}");  // as shown
    return;
  }
  const DictionaryLookup& r = *lookup;
  const float best = r.weights[(size_t)r.best];
  ImGui::SameLine();
  DimText(Tr(r.words ? Str::kDictWords : Str::kDictNumbers));
  ImGui::PushStyleColor(ImGuiCol_Text, kOkColor);
  ImGui::TextWrapped("%s", Trf(Str::kDictBlended, {FormatVector(r.blended)}).c_str());
  ImGui::PopStyleColor();
  if (r.tied.size() > 1) {  // no best key: name them all and their equal share
    std::string keys, tied_json;
    for (size_t t = 0; t < r.tied.size(); ++t) {
      keys += (t ? ", '" : "'") + d.rows[(size_t)r.tied[t]].first + "'";
      tied_json += (t ? ", " : "") + std::to_string(r.tied[t]);
    }
    DimText(Trf(Str::kDictTie, {std::to_string(r.tied.size()), keys, FormatNumber(best, "%.3f")}));
    dump.SetField("dictionary_tie", "[" + tied_json + "]");
  } else {
    const std::string key = "'" + d.rows[(size_t)r.best].first + "'";
    DimText(Trf(best > 0.99f ? Str::kDictExact : Str::kDictSoft, {key, FormatNumber(best, "%.3f")}));
    dump.SetField("dictionary_tie", "[]");
  }
  dump.SetField("dictionary", "{\"best\": " + std::to_string(r.best) + ", \"best_weight\": " + JsonNumber(best) +
                                  ", \"blended\": [" + [&] {
                                    std::string s;
                                    for (size_t i = 0; i < r.blended.size(); ++i) s += (i ? ", " : "") + JsonNumber(r.blended[i]);
                                    return s;
                                  }() + "]}");
}

}  // namespace attnviz
