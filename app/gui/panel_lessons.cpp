// Lessons: the lecture notes' seven questions (a)-(g), one at a time: a few sentences, a button that sets
// the knobs to show the answer (lessons.h ApplyLesson, a pure function) and opens the tab that shows it,
// and a question the student answers by playing with the knobs.
#include <imgui.h>

#include "app.h"
#include "io/json.h"
#include "lessons.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {

void DrawLessonsPanel(App& app) {
  WidgetDump& dump = app.dump;
  DimText(Tr(Str::kLessonsIntro));
  // The lesson picker: (a) .. (g).
  for (int i = 0; i < kLessonCount; ++i) {
    if (i) ImGui::SameLine();
    const std::string letter(1, (char)('a' + i));
    const bool current = (int)app.lesson() == i;
    if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(("(" + letter + ")##lesson").c_str()) && !current) app.PickLesson((Lesson)i);
    if (current) ImGui::PopStyleColor();
    dump.RecordItem("lessons.pick." + letter, BoolJson(current));
  }
  const LessonWords words = WordsOf(app.lesson());
  const std::string letter(1, (char)('a' + (int)app.lesson()));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::TextWrapped("%s", Tr(words.title));
  ImGui::PopStyleColor();
  dump.RecordItem("lessons.title", JsonString(Tr(words.title)));
  ImGui::TextWrapped("%s", Tr(words.text));
  const std::string show = std::string(Tr(Str::kLessonShow)) + ": " + Tr(words.button);
  const std::string name = "lessons.show." + letter;
  if (widget::Button(dump, show.c_str(), name.c_str())) app.ShowLesson(app.lesson());
  ImGui::PushStyleColor(ImGuiCol_Text, kOkColor);
  ImGui::TextWrapped("%s", Trf(Str::kLessonQuestion, {Tr(words.question)}).c_str());
  ImGui::PopStyleColor();
}

}  // namespace attnviz
