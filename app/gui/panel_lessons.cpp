// Lessons: the lecture notes' seven questions (a)-(g), one at a time: a few sentences, a button that sets
// the knobs to show the answer (lessons.h ApplyLesson, a pure function) and opens the tab that shows it,
// and a question the student answers by playing with the knobs. Once shown, the lesson's words stay beside
// the evidence tab (DrawLessonBeside), so the text and the picture are on screen together.
#include <imgui.h>

#include <tuple>

#include "app.h"
#include "i18n/localized.h"
#include "io/json.h"
#include "lessons.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {
namespace {

// Lesson (e) on a trained model: the heads named in words, from the run's role scores.
void DrawNamedHeads(App& app) {
  if (app.settings.source != Source::kModel || !app.results.model || !app.results.model->status.ok()) return;
  const model::HeadRoles& roles = app.results.model->roles;
  std::string json;
  for (auto [role, line, key] : {std::tuple{model::HeadRole::kPreviousToken, Str::kLessonPrevHeads, "previous_token"},
                                 std::tuple{model::HeadRole::kInduction, Str::kLessonInductionHeads, "induction"}}) {
    std::string list, list_json;
    for (const NamedHead& h : HeadsWithRole(roles, role)) {
      list += std::string(list.empty() ? "" : ", ") +
              Trf(Str::kLessonHeadAt, {std::to_string(h.layer), std::to_string(h.head), FormatNumber(h.score, "%.2f")});
      list_json += std::string(list_json.empty() ? "" : ", ") + "[" + std::to_string(h.layer) + ", " +
                   std::to_string(h.head) + "]";
    }
    ImGui::TextWrapped("%s", Trf(line, {list.empty() ? Tr(Str::kLessonNoSuchHead) : list}).c_str());
    json += std::string(json.empty() ? "" : ", ") + "\"" + key + "\": [" + list_json + "]";
  }
  app.dump.RecordItem("lessons.named_heads", "{" + json + "}");
}

void DrawLessonWords(App& app, bool with_button) {
  const LessonWords words = WordsOf(app.lesson());
  const std::string letter(1, LessonLetter(app.lesson()));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::TextWrapped("%s", Tr(words.title));
  ImGui::PopStyleColor();
  app.dump.RecordItem("lessons.title", JsonString(Tr(words.title)));
  ImGui::TextWrapped("%s", Tr(words.text));
  if (app.lesson() == Lesson::kE) DrawNamedHeads(app);
  if (with_button) {
    const std::string show = std::string(Tr(Str::kLessonShow)) + ": " + Tr(words.button);
    if (widget::Button(app.dump, show.c_str(), ("lessons.show." + letter).c_str())) app.ShowLesson(app.lesson());
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kOkColor);
  ImGui::TextWrapped("%s", Trf(Str::kLessonQuestion, {Tr(words.question)}).c_str());
  ImGui::PopStyleColor();
}

}  // namespace

void DrawLessonsPanel(App& app) {
  WidgetDump& dump = app.dump;
  DimText(Tr(Str::kLessonsIntro));
  // The lesson picker: (a) .. (g).
  for (int i = 0; i < kLessonCount; ++i) {
    if (i) ImGui::SameLine();
    const std::string letter(1, LessonLetter((Lesson)i));
    const bool current = (int)app.lesson() == i;
    if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(("(" + letter + ")##lesson").c_str()) && !current) app.PickLesson((Lesson)i);
    if (current) ImGui::PopStyleColor();
    dump.RecordItem("lessons.pick." + letter, BoolJson(current));
  }
  DrawLessonWords(app, true);
}

void DrawLessonBeside(App& app) {
  // Close first: the words below may run past the column's height (it scrolls).
  if (widget::SmallButton(app.dump, Tr(Str::kLessonClose), "lessons.beside.close")) app.views.learn.lesson_beside = false;
  DrawLessonWords(app, false);
}

}  // namespace attnviz
