// Sentences: edit the text, pick from the loaded list, open a sentence file (path, recent files,
// or drop it on the window). In cross mode: a query sentence and a key/value sentence.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app.h"
#include "io/json.h"
#include "panel_util.h"
#include "unicode_slots.h"

namespace attnviz {

void DrawSentencesPanel(App& app) {
  app.layout.PlacePanel(0.0f, 0.59f, 0.258f, 0.41f);
  if (!ImGui::Begin(WindowTitle(Str::kWinSentences, "Sentences").c_str())) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = app.dump;
  bool cross = app.state.config.mode == AttentionMode::kCross;
  float width = ImGui::GetContentRegionAvail().x;
  float line = ImGui::GetTextLineHeight();

  if (cross) {
    ImGui::TextUnformatted(Tr(Str::kQuerySentence));
    InputTextMultilineAnyUnicode("##query", &app.state.query_text, ImVec2(width, line * 2.6f));
    dump.RecordItem("sentences.query_text", JsonString(app.state.query_text));
    ImGui::TextUnformatted(Tr(Str::kKvSentence));
  } else {
    ImGui::TextUnformatted(Tr(Str::kSentence));
  }
  InputTextMultilineAnyUnicode("##kv", &app.state.kv_text, ImVec2(width, line * 2.6f));
  dump.RecordItem("sentences.kv_text", JsonString(app.state.kv_text));
  if (app.shown) {
    const AttentionTensors& t = app.shown->tensors;
    DimText(Trf(Str::kQueriesByKeys, {std::to_string(t.n_q()), std::to_string(t.n_k())}));
  }
  if (!app.compute_error.empty()) ErrorText(app.compute_error.Render());

  if (!app.sentences.empty()) {
    ImGui::TextUnformatted(Tr(Str::kLoadedSentences));
    if (ImGui::BeginListBox("##list", ImVec2(width, line * 5.5f))) {
      for (size_t i = 0; i < app.sentences.size(); ++i) {
        const SentenceItem& item = app.sentences[i];
        std::string label = item.is_cross() ? item.query_text + "  |||  " + item.kv_text : item.kv_text;
        if (label.size() > 90) {
          size_t cut = 87;
          while (cut > 0 && ((unsigned char)label[cut] & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
          label = label.substr(0, cut) + "\xE2\x80\xA6";
        }
        label = ToImGui(label) + "##item" + std::to_string(i);  // emoji drawn through their slots
        if (ImGui::Selectable(label.c_str(), app.selected_sentence == (int)i)) app.SelectSentence((int)i);
        dump.RecordItem("sentences.item." + std::to_string(i), std::to_string(item.line));
      }
      ImGui::EndListBox();
    }
    dump.RecordItem("sentences.list", std::to_string(app.sentences.size()));
  }

  ImGui::TextUnformatted(Tr(Str::kSentenceFile));
  ImGui::SetNextItemWidth(width - ImGui::CalcTextSize(Tr(Str::kOpen)).x - ImGui::GetStyle().FramePadding.x * 2 -
                          ImGui::GetStyle().ItemSpacing.x);
  bool enter = InputTextAnyUnicode("##path", &app.sentence_path_input, ImGuiInputTextFlags_EnterReturnsTrue);
  dump.RecordItem("sentences.path", JsonString(app.sentence_path_input));
  ImGui::SameLine();
  bool open = ImGui::Button(Labeled(dump, Str::kOpen, "open").c_str());
  dump.RecordItem("sentences.open");
  if ((enter || open) && !app.sentence_path_input.empty()) {
    if (app.OpenSentenceFile(app.sentence_path_input).ok() && !app.sentences.empty()) app.SelectSentence(0);
  }
  if (!app.sentences_message.empty()) {
    if (app.sentences_error) ErrorText(app.sentences_message.Render());
    else DimText(app.sentences_message.Render());
  }
  if (!app.state.recent_files.empty()) {
    ImGui::TextUnformatted(Tr(Str::kRecent));
    for (size_t i = 0; i < app.state.recent_files.size(); ++i) {
      std::string path = app.state.recent_files[i];
      if (ImGui::SmallButton((ToImGui(path) + "##recent" + std::to_string(i)).c_str())) {
        if (app.OpenSentenceFile(path).ok() && !app.sentences.empty()) app.SelectSentence(0);
      }
      dump.RecordItem("sentences.recent." + std::to_string(i), JsonString(path));
    }
  }
  DimText(Tr(Str::kSentencesTip));
  ImGui::End();
}

}  // namespace attnviz
