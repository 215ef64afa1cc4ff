// Korean templates of the engine's messages (core/messages.h), {0}, {1} as there. An id missing here is shown
// in English (Localized); test_i18n fails when one is missing, so the fallback is for ids added later.
#include "localized.h"

#include <cstring>

namespace attnviz {

namespace {
struct MessageEntry {
  MsgId id;
  const char* text;
};
constexpr MessageEntry kMessagesKo[] = {
    {MsgId::kPrefixContext, "{0}: "},
    {MsgId::kPrefixFileLine, "{0}:{1}: "},
    {MsgId::kPrefixKeyValueText, "키/값 문장: "},
    {MsgId::kPrefixQueryText, "쿼리 문장: "},
    {MsgId::kPrefixLeftOfSep, "쿼리 문장 ('|||' 왼쪽): "},
    {MsgId::kPrefixRightOfSep, "키/값 문장 ('|||' 오른쪽): "},
    {MsgId::kPrefixSweep, "d_k 훑기: "},
    {MsgId::kPrefixSweepDk, "d_k 훑기: d_k={0}: "},
    {MsgId::kOutOfRange, "{0} = {1} 은(는) 범위를 벗어났습니다: 허용 범위 {2}..{3}"},
    {MsgId::kTemperatureRange, "온도 = {0} 은(는) 범위를 벗어났습니다: 허용 범위 {1}..{2} (0보다 커야 합니다)"},
    {MsgId::kCausalNeedsSelf, "인과 마스크는 셀프 어텐션에만 씁니다 (쿼리 i는 자기 문장의 키 0..i만 봅니다); "
                              "크로스 방식에서는 마스크를 없음으로 하세요"},
    {MsgId::kProjectionTooLarge, "d_model * n_head * (2*d_k + d_v) = {0}개의 투영 가중치는 너무 많습니다: 최대 {1}개 "
                                 "(d_model, 헤드 수, d_k 또는 d_v를 줄이세요)"},
    {MsgId::kUnknownName, "{0} '{1}' 은(는) 알 수 없는 값입니다: 허용 값 {2}"},
    {MsgId::kWidthMismatch, "점수를 내려면 d_q = d_k 여야 합니다: {0}에서 온 쿼리의 폭은 {1}{2}, {3}에서 온 키의 폭은 "
                            "{4}{5} 입니다 (q · k는 q의 성분 하나하나를 k의 성분 하나와 짝지어 곱합니다)"},
    {MsgId::kTemperatureNotFinite, "온도는 유한한 수여야 합니다"},
    {MsgId::kNotWholeNumber, "'{0}' 은(는) 정수가 아닙니다 (허용 범위 {1}..{2})"},
    {MsgId::kNumberOutOfRange, "{0} 은(는) 범위를 벗어났습니다: 허용 범위 {1}"},
    {MsgId::kNotANumber, "'{0}' 은(는) 수가 아닙니다 (허용 범위 {1})"},
    {MsgId::kMissingValue, "{0}: 값이 없습니다"},
    {MsgId::kTextEmpty, "문장이 비어 있습니다: 낱말을 하나 이상 입력하세요"},
    {MsgId::kTextOnlySpaces, "문장에 공백만 있습니다: 낱말을 하나 이상 입력하세요"},
    {MsgId::kTooManyTokens, "문장의 토큰이 {0}개보다 많습니다 (허용 범위 1..{0})"},
    {MsgId::kInvalidUtf8, "바이트 오프셋 {0}에 잘못된 UTF-8이 있습니다 (바이트 0x{1})"},
    {MsgId::kControlCharacter, "바이트 오프셋 {1}의 제어 문자 {0}는 쓸 수 없습니다"},
    {MsgId::kFileInvalidUtf8, "파일의 바이트 오프셋 {0}에 잘못된 UTF-8이 있습니다 (줄의 {1}번째 바이트)"},
    {MsgId::kMoreThanOneSeparator, "'|||' 구분자가 둘 이상입니다 (크로스 항목은 쿼리 ||| 키/값 입니다)"},
    {MsgId::kNoSentences, "{0}: 문장이 없습니다 (빈 줄과 # 주석뿐입니다)"},
    {MsgId::kCannotOpen, "{0}: 열 수 없습니다: {1}"},
    {MsgId::kIsAFolder, "{0}: 파일이 아니라 폴더입니다"},
};
// In HeadRole order: the name and the sentence (English: core/model/roles.cpp).
constexpr const char* kRolesKo[model::kHeadRoleCount][2] = {
    {"이전 토큰", "각 토큰이 바로 앞 토큰을 봅니다. 그래서 다음 층은 한 칸 앞에 무엇이 있었는지 압니다."},
    {"귀납", "지금 토큰이 전에도 나왔다면, 헤드는 그때 그 뒤에 왔던 토큰을 봅니다. 같은 이어짐이 다시 올 것을 "
             "예측하려는 것입니다 (A B ... A -> B)."},
    {"첫 토큰", "어텐션 대부분이 첫 토큰에 머뭅니다. 문장에서 읽을 만한 것이 없을 때 헤드가 쉬어 가는 곳(어텐션 "
                "싱크)입니다."},
    {"같은 토큰", "각 토큰이 주로 자기 자신(대각선)을 봅니다. 다른 것을 섞기보다 자기 정보를 지킵니다."},
    {"가까운 곳", "각 토큰이 가까이 있는 몇 토큰(2~5칸 떨어진)에 어텐션을 나눕니다. 짧은 구절을 모으는 것입니다."},
    {"넓게", "어텐션이 많은 토큰에 고르게 퍼집니다(엔트로피가 높음). 토큰 하나를 고르기보다 문맥 전체를 "
             "평균합니다."},
};

// What the pipeline's progress reports (core/sandbox/pipeline.cpp Run) and the worker's phase in front of it
// (app/gui/worker.cpp), in Korean.
constexpr const char* kStagesKo[][2] = {
    {"embedding the tokens", "토큰 임베딩"}, {"projecting q, k, v", "q, k, v 투영"},
    {"attention maps", "어텐션 맵"},        {"values (z)", "값 (z)"},
};
constexpr const char* kOtherScaling[2] = {"other scaling: ", "다른 스케일: "};

}  // namespace

std::string LocalizedRoleName(model::HeadRole role) {
  return CurrentLang() == Lang::kKo ? kRolesKo[(int)role][0] : model::RoleName(role);
}
std::string LocalizedRoleSentence(model::HeadRole role) {
  return CurrentLang() == Lang::kKo ? kRolesKo[(int)role][1] : model::RoleSentence(role);
}

std::string LocalizedStage(const std::string& stage) {
  if (CurrentLang() == Lang::kEn) return stage;
  const size_t prefix = std::strlen(kOtherScaling[0]);
  if (stage.compare(0, prefix, kOtherScaling[0]) == 0) return kOtherScaling[1] + LocalizedStage(stage.substr(prefix));
  for (const auto& [en, ko] : kStagesKo)
    if (stage == en) return ko;
  return stage;
}

std::vector<std::string> KoreanEngineTexts() {
  std::vector<std::string> out = {kOtherScaling[1]};
  for (const MessageEntry& e : kMessagesKo) out.push_back(e.text);
  for (const auto& role : kRolesKo) out.insert(out.end(), {role[0], role[1]});
  for (const auto& stage : kStagesKo) out.push_back(stage[1]);
  return out;
}

std::vector<std::string> ProgressStagesForTests() {
  std::vector<std::string> out;
  for (const auto& pair : kStagesKo) out.push_back(pair[0]);
  return out;
}

const char* MessageTemplate(MsgId id, Lang lang) {
  if (lang == Lang::kEn) return id == MsgId::kNone ? nullptr : EnglishTemplate(id);
  for (const MessageEntry& e : kMessagesKo)
    if (e.id == id) return e.text;
  return nullptr;
}

}  // namespace attnviz
