// Sentences: edit the text, pick from the loaded list, open a sentence file (path, recent files,
// or drop it on the window). In cross mode: a query sentence and a key/value sentence.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app.h"
#include "sandbox_panel_context.h"
#include "io/json.h"
#include "panel_util.h"
#include "widgets.h"
#include "unicode_slots.h"

namespace attnviz {
namespace {
// Enter ends the edit (what is typed applies at once) and Ctrl+Enter writes a newline: a newline Enter left at the
// end of the text would be a model's last token ("\n").
constexpr ImGuiInputTextFlags kSentenceBoxFlags = ImGuiInputTextFlags_CtrlEnterForNewLine;
}  // namespace

void DrawSentencesPanel(SandboxPanelContext& ctx) {
  ctx.layout.PlacePanel(0.0f, 0.59f, 0.258f, 0.41f);
  if (!ImGui::Begin(WindowTitle(Str::kWinSentences, "Sentences").c_str())) {
    ImGui::End();
    return;
  }
  WidgetDump& dump = ctx.dump;
  SentencesPanelView& view = ctx.sentences;
  bool cross = ctx.settings.config.mode == AttentionMode::kCross;
  float width = ImGui::GetContentRegionAvail().x;
  float line = ImGui::GetTextLineHeight();

  if (cross) {
    ImGui::TextUnformatted(Tr(Str::kQuerySentence));
    InputTextMultilineAnyUnicode("##query", &ctx.settings.query_text, ImVec2(width, line * 2.6f), kSentenceBoxFlags);
    dump.RecordItem("sentences.query_text", JsonString(ctx.settings.query_text));
    ImGui::TextUnformatted(Tr(Str::kKvSentence));
  } else {
    ImGui::TextUnformatted(Tr(Str::kSentence));
  }
  InputTextMultilineAnyUnicode("##kv", &ctx.settings.kv_text, ImVec2(width, line * 2.6f), kSentenceBoxFlags);
  dump.RecordItem("sentences.kv_text", JsonString(ctx.settings.kv_text));
  if (ctx.shown.maps) {
    const LayerMaps& t = *ctx.shown.maps;
    DimText(Trf(Str::kQueriesByKeys, {std::to_string(t.n_q()), std::to_string(t.n_k())}));
  }
  // The text's own errors; the d_q = d_k refusal is the Controls panel's.
  if (const std::string e = ctx.shown.compute_error.Render(); !e.empty() && !IsWidthRefusal(e)) ErrorText(e);

  if (!view.items.empty()) {
    ImGui::TextUnformatted(Tr(Str::kLoadedSentences));
    if (ImGui::BeginListBox("##list", ImVec2(width, line * 5.5f))) {
      for (size_t i = 0; i < view.items.size(); ++i) {
        const SentenceItem& item = view.items[i];
        std::string label = item.is_cross() ? item.query_text + "  |||  " + item.kv_text : item.kv_text;
        if (label.size() > 90) {
          size_t cut = 87;
          while (cut > 0 && ((unsigned char)label[cut] & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
          label = label.substr(0, cut) + "\xE2\x80\xA6";
        }
        label = ToImGui(label) + "##item" + std::to_string(i);  // emoji drawn through their slots
        if (ImGui::Selectable(label.c_str(), view.selected == (int)i)) ctx.verbs.select_sentence((int)i);
        dump.RecordItem("sentences.item." + std::to_string(i), std::to_string(item.line));
      }
      ImGui::EndListBox();
    }
    dump.RecordItem("sentences.list", std::to_string(view.items.size()));
  }

  ImGui::TextUnformatted(Tr(Str::kSentenceFile));
  ImGui::SetNextItemWidth(width - ImGui::CalcTextSize(Tr(Str::kOpen)).x - ImGui::GetStyle().FramePadding.x * 2 -
                          ImGui::GetStyle().ItemSpacing.x);
  bool enter = InputTextAnyUnicode("##path", &view.path_input, ImGuiInputTextFlags_EnterReturnsTrue);
  dump.RecordItem("sentences.path", JsonString(view.path_input));
  ImGui::SameLine();
  bool open = widget::Button(dump, Str::kOpen, "sentences.open");
  if ((enter || open) && !view.path_input.empty()) {
    if (ctx.verbs.open_sentence_file(view.path_input).ok() && !view.items.empty()) ctx.verbs.select_sentence(0);
  }
  if (!view.message.empty()) {
    if (view.error) ErrorText(view.message.Render());
    else DimText(view.message.Render());
  }
  if (!ctx.settings.recent_files.empty()) {
    ImGui::TextUnformatted(Tr(Str::kRecent));
    for (size_t i = 0; i < ctx.settings.recent_files.size(); ++i) {
      std::string path = ctx.settings.recent_files[i];
      if (ImGui::SmallButton((ToImGui(path) + "##recent" + std::to_string(i)).c_str())) {
        if (ctx.verbs.open_sentence_file(path).ok() && !view.items.empty()) ctx.verbs.select_sentence(0);
      }
      dump.RecordItem("sentences.recent." + std::to_string(i), JsonString(path));
    }
  }
  DimText(Tr(Str::kSentencesTip));
  ImGui::End();
}

}  // namespace attnviz
