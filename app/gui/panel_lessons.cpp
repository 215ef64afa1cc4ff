// Lessons: the lecture notes' seven questions (a)-(g), one at a time: a few sentences, a button that sets
// the knobs to show the answer (lessons.h ApplyLesson, a pure function) and opens the tab that shows it,
// and a question the student answers by playing with the knobs. Once shown, the lesson's words stay beside
// the evidence tab (DrawLessonBeside), so the text and the picture are on screen together.
#include <imgui.h>

#include <tuple>

#include "app.h"
#include "sandbox_panel_context.h"
#include "i18n/localized.h"
#include "io/json.h"
#include "lessons.h"
#include "panel_util.h"
#include "widgets.h"

namespace attnviz {
namespace {

// Lesson (e) on a trained model: the heads named in words, from the run's role scores.
void DrawNamedHeads(SandboxPanelContext& ctx) {
  if (ctx.settings.source != Source::kModel || !ctx.shown.roles) return;
  const model::HeadRoles& roles = *ctx.shown.roles;
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
  ctx.dump.RecordItem("lessons.named_heads", "{" + json + "}");
}

void DrawQuestion(const Str question) {
  ImGui::PushStyleColor(ImGuiCol_Text, kOkColor);
  ImGui::TextWrapped("%s", Trf(Str::kLessonQuestion, {Tr(question)}).c_str());
  ImGui::PopStyleColor();
}

void DrawMainPart(SandboxPanelContext& ctx, const LessonWords& words, const std::string& letter, bool with_button) {
  // "Show me" under the title, before the words: in sight without scrolling, however long the lesson.
  if (with_button) {
    const std::string show = std::string(Tr(Str::kLessonShow)) + ": " + Tr(words.button);
    if (widget::Button(ctx.dump, show.c_str(), ("lessons.show." + letter).c_str()))
      ctx.verbs.show_lesson(ctx.learn.lesson, LessonPart::kMain);
  }
  ImGui::TextWrapped("%s", Tr(words.text));
  if (ctx.learn.lesson == Lesson::kE) DrawNamedHeads(ctx);
  DrawQuestion(words.question);
}

void DrawSecondPart(SandboxPanelContext& ctx, const LessonPartWords& second, const std::string& letter,
                    bool with_button) {
  ImGui::TextWrapped("%s", Tr(second.text));
  ctx.dump.RecordItem("lessons.second_text", JsonString(Tr(second.text)));
  if (with_button) {
    // (b)'s second part runs the bundled encoder-decoder model: without it, the button says why it is off.
    const bool missing = ctx.learn.lesson == Lesson::kB && ctx.bundled_seq2seq_dir.empty();
    if (missing) ImGui::BeginDisabled();
    const std::string show = std::string(Tr(Str::kLessonShow)) + ": " + Tr(second.button);
    if (widget::Button(ctx.dump, show.c_str(), ("lessons.show." + letter + ".second").c_str()))
      ctx.verbs.show_lesson(ctx.learn.lesson, LessonPart::kSecond);
    if (missing) {
      ImGui::EndDisabled();
      ErrorText(Tr(Str::kLessonNoBundledSeq2Seq));
    }
    ctx.dump.RecordItem("lessons.second_missing", JsonString(missing ? Tr(Str::kLessonNoBundledSeq2Seq) : ""));
  }
  DrawQuestion(second.question);
}

// The Lessons tab (with the buttons) shows the parts in order; beside the evidence (no buttons) the part taken comes
// first, under the title, so its words sit next to its picture without scrolling.
void DrawLessonWords(SandboxPanelContext& ctx, bool with_button) {
  const LessonWords words = WordsOf(ctx.learn.lesson);
  const std::string letter(1, LessonLetter(ctx.learn.lesson));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.3f, 1.0f));
  ImGui::TextWrapped("%s", Tr(words.title));
  ImGui::PopStyleColor();
  ctx.dump.RecordItem("lessons.title", JsonString(Tr(words.title)));
  const bool second_first = !with_button && words.second && ctx.learn.part == LessonPart::kSecond;
  if (second_first) {
    DrawSecondPart(ctx, *words.second, letter, with_button);
    ImGui::Separator();
  }
  DrawMainPart(ctx, words, letter, with_button);
  if (!words.second || second_first) return;
  ImGui::Separator();
  DrawSecondPart(ctx, *words.second, letter, with_button);
}

}  // namespace

void DrawLessonsPanel(SandboxPanelContext& ctx) {
  WidgetDump& dump = ctx.dump;
  DimText(Tr(Str::kLessonsIntro));
  // The lesson picker: (a) .. (g).
  for (int i = 0; i < kLessonCount; ++i) {
    if (i) ImGui::SameLine();
    const std::string letter(1, LessonLetter((Lesson)i));
    const bool current = (int)ctx.learn.lesson == i;
    if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
    if (ImGui::SmallButton(("(" + letter + ")##lesson").c_str()) && !current) {
      ctx.learn.lesson = (Lesson)i;
      ctx.learn.part = LessonPart::kMain;  // another lesson's words: from its first part
    }
    if (current) ImGui::PopStyleColor();
    dump.RecordItem("lessons.pick." + letter, BoolJson(current));
  }
  DrawLessonWords(ctx, true);
}

void DrawLessonBeside(SandboxPanelContext& ctx) {
  // Close first: the words below may run past the column's height (it scrolls).
  if (widget::SmallButton(ctx.dump, Tr(Str::kLessonClose), "lessons.beside.close")) ctx.learn.lesson_beside = false;
  DrawLessonWords(ctx, false);
}

}  // namespace attnviz
