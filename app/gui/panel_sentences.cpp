// Sentences: edit the text, pick from the loaded list, open a sentence file (path, recent files,
// or drop it on the window). In cross mode: a query sentence and a key/value sentence.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app.h"
#include "io/json.h"
#include "panel_util.h"
#include "widgets.h"
#include "unicode_slots.h"

namespace attnviz {

void DrawSentencesPanel(App& app) {
  app.layout.PlacePanel(0.0f, 0.59f, 0.258f, 0.41f);
  if (!ImGui::Begin(WindowTitle(Str::kWinSentences, "Sentences").c_str())) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = app.dump;
  bool cross = app.settings.config.mode == AttentionMode::kCross;
  float width = ImGui::GetContentRegionAvail().x;
  float line = ImGui::GetTextLineHeight();

  if (cross) {
    ImGui::TextUnformatted(Tr(Str::kQuerySentence));
    InputTextMultilineAnyUnicode("##query", &app.settings.query_text, ImVec2(width, line * 2.6f));
    dump.RecordItem("sentences.query_text", JsonString(app.settings.query_text));
    ImGui::TextUnformatted(Tr(Str::kKvSentence));
  } else {
    ImGui::TextUnformatted(Tr(Str::kSentence));
  }
  InputTextMultilineAnyUnicode("##kv", &app.settings.kv_text, ImVec2(width, line * 2.6f));
  dump.RecordItem("sentences.kv_text", JsonString(app.settings.kv_text));
  if (app.results.shown) {
    const AttentionTensors& t = app.results.shown->tensors;
    DimText(Trf(Str::kQueriesByKeys, {std::to_string(t.n_q()), std::to_string(t.n_k())}));
  }
  // The text's own errors; the d_q = d_k refusal is the Controls panel's.
  if (const std::string e = app.results.compute_error.Render(); !e.empty() && !IsWidthRefusal(e)) ErrorText(e);

  if (!app.views.sentences.items.empty()) {
    ImGui::TextUnformatted(Tr(Str::kLoadedSentences));
    if (ImGui::BeginListBox("##list", ImVec2(width, line * 5.5f))) {
      for (size_t i = 0; i < app.views.sentences.items.size(); ++i) {
        const SentenceItem& item = app.views.sentences.items[i];
        std::string label = item.is_cross() ? item.query_text + "  |||  " + item.kv_text : item.kv_text;
        if (label.size() > 90) {
          size_t cut = 87;
          while (cut > 0 && ((unsigned char)label[cut] & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
          label = label.substr(0, cut) + "\xE2\x80\xA6";
        }
        label = ToImGui(label) + "##item" + std::to_string(i);  // emoji drawn through their slots
        if (ImGui::Selectable(label.c_str(), app.views.sentences.selected == (int)i)) app.SelectSentence((int)i);
        dump.RecordItem("sentences.item." + std::to_string(i), std::to_string(item.line));
      }
      ImGui::EndListBox();
    }
    dump.RecordItem("sentences.list", std::to_string(app.views.sentences.items.size()));
  }

  ImGui::TextUnformatted(Tr(Str::kSentenceFile));
  ImGui::SetNextItemWidth(width - ImGui::CalcTextSize(Tr(Str::kOpen)).x - ImGui::GetStyle().FramePadding.x * 2 -
                          ImGui::GetStyle().ItemSpacing.x);
  bool enter = InputTextAnyUnicode("##path", &app.views.sentences.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
  dump.RecordItem("sentences.path", JsonString(app.views.sentences.path_input));
  ImGui::SameLine();
  bool open = widget::Button(dump, Str::kOpen, "sentences.open");
  if ((enter || open) && !app.views.sentences.path_input.empty()) {
    if (app.OpenSentenceFile(app.views.sentences.path_input).ok() && !app.views.sentences.items.empty()) app.SelectSentence(0);
  }
  if (!app.views.sentences.message.empty()) {
    if (app.views.sentences.error) ErrorText(app.views.sentences.message.Render());
    else DimText(app.views.sentences.message.Render());
  }
  if (!app.settings.recent_files.empty()) {
    ImGui::TextUnformatted(Tr(Str::kRecent));
    for (size_t i = 0; i < app.settings.recent_files.size(); ++i) {
      std::string path = app.settings.recent_files[i];
      if (ImGui::SmallButton((ToImGui(path) + "##recent" + std::to_string(i)).c_str())) {
        if (app.OpenSentenceFile(path).ok() && !app.views.sentences.items.empty()) app.SelectSentence(0);
      }
      dump.RecordItem("sentences.recent." + std::to_string(i), JsonString(path));
    }
  }
  DimText(Tr(Str::kSentencesTip));
  ImGui::End();
}

}  // namespace attnviz
