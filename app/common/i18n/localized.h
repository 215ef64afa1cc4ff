// The engine's words in the UI's language: its messages (core/base/messages.h parts), head roles, the config
// summary line and the progress stages. core/ knows only English; these render what it returns through the
// language tables. Fallback rule: a message part without an id or without a translation shows the whole
// English message (Status::message()), never a half-translated one.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "figure/figure_words.h"
#include "sandbox/config.h"
#include "base/messages.h"
#include "model/config.h"
#include "model/roles.h"
#include "base/status.h"
#include "i18n/ui_strings.h"

namespace attnviz {

// The template of a message in `lang`, core's id or the programs' own (i18n/app_messages.h); nullptr when there is
// none (kNone, or no translation).
const char* MessageTemplate(MsgId id, Lang lang);
// The arguments of `part` for `lang`: as given, except the kind of file in a read error ("sentence file"),
// which is a word and is said in `lang` ("문장 파일").
std::vector<std::string> MessageArgs(const MessagePart& part, Lang lang);
// status's text in the current language, or in `lang` (see the fallback rule above). Ok: "".
std::string Localized(const Status& status);
std::string Localized(const Status& status, Lang lang);
template <typename T>
std::string Localized(const Result<T>& result) {
  return Localized(result.status());
}
// A title or summary line made of " · "-separated segments (FigureTitle, SweepTitle, Describe) in the current
// language: "head 2 · d_k=16 · scaled · causal" -> "헤드 2 · d_k=16 · 스케일 적용 · 인과". A segment it does not
// know stays as it is (numbers and names such as d_k=16, T=1, seed=3 stay anyway).
std::string LocalizedTitle(const std::string& title);
// Describe(config) in the current language ("d_k=16 · 스케일 · T=1 · 길이에서 온 q").
std::string LocalizedDescribe(const AttentionConfig& config);
// A feature source's name in the UI ("word length" / "단어 길이").
const char* FeatureSourceLabel(FeatureSource source);
// model::ModelConfig::Describe() in the current language ("gpt2: 층 12개, 헤드 12개 x 64, d_model 768, ...");
// in English the same text as Describe().
std::string LocalizedModelDescribe(const model::ModelConfig& config);
// A progress stage as the worker reports it ("attention maps", "other scaling: attention maps") in the current
// language ("어텐션 맵", "다른 스케일: 어텐션 맵"); a stage it does not know: as given.
std::string LocalizedStage(const std::string& stage);
// Every Korean text of this file's tables (messages, roles, stages): the font atlas takes their Hangul from the
// start, as it does the UI tables' (a glyph missing from the atlas draws as a box).
std::vector<std::string> KoreanEngineTexts();
// The English stages LocalizedStage knows (for the test that each is reported by the pipeline).
std::vector<std::string> ProgressStagesForTests();
// A head role's name and its sentence for a learner (core/model/roles.h) in the current language.
std::string LocalizedRoleName(model::HeadRole role);
std::string LocalizedRoleSentence(model::HeadRole role);
// A role, or the Overview's role filter, written with the English names (model::ParseRoleName) or the Korean ones
// the UI shows ("인덕션 >= 0.4", "이전 토큰 > 0.5"), in either language.
Result<model::HeadRole> ParseLocalizedRoleName(std::string_view text);
Result<model::RoleFilter> ParseLocalizedRoleFilter(std::string_view text);
// A tokenizer's Describe() ("GPT-2 vocab.json + merges.txt: BPE (byte-level), 1025 tokens") in the current language:
// its words translated ("바이트 단위", "토큰 1025개"), the file and algorithm names (BPE, WordPiece) kept.
std::string LocalizedTokenizerDescribe(const std::string& described);
// The words a heatmap figure prints (axes, colorbar, masked legend, "head 2") in the current language.
FigureWords LocalizedFigureWords();
// The words the saturation figure prints (legend, panel titles, axes) in the current language, for a sweep of
// `score`: a score never divided by sqrt(d_k) gets the one-line legend that names it by its formula.
SaturationWords LocalizedSaturationWords(ScoreKind score);

}  // namespace attnviz
