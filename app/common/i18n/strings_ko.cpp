// Korean (한국어): every UI string, in the order of Str (ui_strings.h). Technical names (d_k, W_q, softmax,
// probs) stay as in the lecture notes. {0}, {1}: Trf's arguments.
//
// Glossary: one Korean word per concept, here and in messages_ko.cpp, help_ko.cpp (test_i18n.cpp holds the
// retired variants out).
//   query / key / value      쿼리 / 키 / 밸류 (q, k, v in formulas); key/value 키/밸류. 값 is only a number or a
//                            setting's value (기본값, 최댓값, '키 = 값' in the settings file), never v
//   head, layer              헤드, 층: a label 층 {0} / 헤드 {0}, a count 층 {0}개 / 헤드 {0}개 (noun, number, 개)
//   dimension, width         차원 (not 폭)            score, logit      점수, 로짓
//   weight, probability      가중치, 확률              weighted average  가중 평균 (not 가중 혼합)
//   scaled / unscaled        스케일 적용 / 스케일 없음; scaled dot 스케일된 내적; additive 가산
//   q/k norm                 q/k 정규화 (not 노름)     soft cap          소프트 캡
//   spread (sd)              표준편차 (not 퍼짐)       saturation, sweep 포화, 훑기
//   cell (of a map)          칸 (not 셀)               map, colormap     맵 (not 지도), 컬러맵
//   panel                    패널 (설정 패널, 헤드 패널; not 창, which is the program's window)
//   Overview                 한눈에 보기 (not 개요)    what-if, ablate   가정 실험, (헤드) 제거
//   induction, previous-token 인덕션 (not 유도, 귀납), 이전 토큰
//   fused / separate QKV     합친 행렬 / 세 행렬       text, sentence    텍스트 (a model's input), 문장
//   residual stream          잔차 스트림 (not 잔차 흐름); a count of things: 토큰 {0}개, never {0}토큰
#include <iterator>

#include "i18n/ui_strings.h"

namespace attnviz {

constexpr StringEntry kStringsKoTable[] = {
    // ---- window titles
    {Str::kWinControls, "설정"},
    {Str::kWinSentences, "문장"},
    {Str::kWinHeads, "헤드"},
    {Str::kWinShapes, "모양 · 배우기"},
    {Str::kWinSaturation, "포화"},
    {Str::kWinExport, "내보내기"},
    {Str::kWinModel, "모델"},
    {Str::kWinOverview, "한눈에 보기"},
    // ---- menu bar
    {Str::kMenuFile, "파일"},
    {Str::kMenuQuit, "끝내기"},
    {Str::kMenuView, "보기"},
    {Str::kMenuResetLayout, "배치 초기화"},
    {Str::kMenuStartHere, "여기서 시작: 수업 (a)-(g)"},
    // ---- shared words
    {Str::kLanguage, "언어"},
    {Str::kComputing, "계산 중…"},
    {Str::kNoResultYet, "아직 결과가 없습니다."},
    {Str::kOpen, "열기"},
    {Str::kNotApplied, "적용하지 못했습니다: {0}"},
    {Str::kNa, "없음"},
    // ---- Controls
    {Str::kTrainedModelButton, "학습된 모델…"},
    {Str::kAttention, "어텐션"},
    {Str::kDModel, "d_model"},
    {Str::kHeadsKnob, "헤드 수"},
    {Str::kDkTip, "헤드마다 쿼리/키의 차원 (로그 슬라이더; Ctrl+클릭으로 입력)"},
    {Str::kAuto, "자동"},
    {Str::kDkAutoTip, "d_k = d_model / 헤드 수"},
    {Str::kDvAutoTip, "d_v = d_k"},
    {Str::kScaleCheckbox, "로짓을 √d_k로 나누기  (S)"},
    {Str::kScaleOnlyScaledDotTip, "√d_k로 나누는 점수는 스케일된 내적뿐이며, 지금 고른 점수({0})는 나누지 않습니다 "
                                  "(설정은 스케일된 내적을 다시 고를 때를 위해 남겨 둡니다)"},
    {Str::kTemperature, "온도"},
    {Str::kQkNormCheckbox, "q/k 정규화 (RMS)"},
    {Str::kQkNormTip, "점수를 내기 전에 q와 k를 각각의 RMS로 나눕니다. Qwen3, OLMo 2, Gemma 3가 이렇게 합니다. 그러면 입력의 "
                      "크기와 상관없이 q와 k의 길이는 \xE2\x88\x9A" "d_k가 됩니다. 그래도 \xE2\x88\x9A" "d_k로 나누지 않으면 "
                      "로짓은 \xE2\x88\x9A" "d_k에 비례해 커집니다"},
    {Str::kSoftcapCheckbox, "소프트 캡"},
    {Str::kSoftcapTip, "로짓 = 캡 \xC2\xB7 tanh(로짓 / 캡). Gemma 2가 이렇게 합니다. 모든 로짓이 \xC2\xB1" "캡 안에 머무르므로 "
                       "d_k가 아무리 커도 키 하나가 행 전체를 가져가지 못합니다"},
    {Str::kSoftcapValue, "캡"},
    {Str::kMask, "마스크"},
    {Str::kMaskNone, "없음"},
    {Str::kMaskCausal, "인과"},
    {Str::kMode, "방식"},
    {Str::kModeSelf, "셀프"},
    {Str::kModeCross, "크로스"},
    {Str::kQkv, "QKV"},
    {Str::kQkvFused, "합친 행렬"},
    {Str::kQkvSeparate, "세 행렬"},
    {Str::kSeed, "시드"},
    {Str::kPositional, "위치 인코딩"},
    {Str::kPicture, "그림"},
    {Str::kColormap, "컬러맵"},
    {Str::kColour, "색"},
    {Str::kColourLinear, "선형"},
    {Str::kColourLog, "로그"},
    {Str::kRange, "범위"},
    {Str::kRangeFixed, "고정 0..1"},
    {Str::kRangeAuto, "자동"},
    {Str::kQueryFrom, "쿼리 출처"},
    {Str::kKeyFrom, "키 출처"},
    {Str::kValueFrom, "밸류 출처"},
    {Str::kScore, "점수"},
    {Str::kFeatureEmbedding, "임베딩"},
    {Str::kFeatureLength, "단어 길이"},
    {Str::kFeaturePosition, "위치"},
    {Str::kFeatureOneHot, "원-핫 토큰"},
    {Str::kScoreScaledDot, "스케일된 내적"},
    {Str::kScoreDot, "내적"},
    {Str::kScoreAdditive, "가산"},
    {Str::kScoreCosine, "코사인"},
    {Str::kScoreNegDistance, "−|q − k|"},
    {Str::kFeaturesTip, "q, k, v를 무엇으로 만들지 고릅니다. 점수를 내려면 d_q와 d_k가 같아야 합니다"},
    // ---- Sentences
    {Str::kQuerySentence, "쿼리 문장 (행)"},
    {Str::kKvSentence, "키/밸류 문장 (열)"},
    {Str::kSentence, "문장"},
    {Str::kQueriesByKeys, "쿼리 {0}개 × 키 {1}개"},
    {Str::kLoadedSentences, "불러온 문장"},
    {Str::kSentenceFile, "문장 파일"},
    {Str::kRecent, "최근:"},
    {Str::kSentencesTip, "팁: 문장 파일을 창에 끌어다 놓으면 열립니다. 한 줄에 항목 하나를 쓰고, '쿼리 ||| 키/밸류' "
                         "꼴의 줄은 크로스 어텐션 항목입니다."},
    {Str::kLoadedSentencesFrom, "{1}에서 문장 {0}개를 불러왔습니다"},
    // ---- Heads
    {Str::kDismiss, "닫기"},
    {Str::kComputingStage, "{0} 계산 중"},
    {Str::kHeadsStatusKeys, "←/→: 헤드, S: 스케일"},
    {Str::kShowingLastGood, "{0} (마지막으로 성공한 결과를 보여 줍니다)"},
    {Str::kSettingsNotApplied, "설정을 적용하지 못했습니다: {0}"},
    {Str::kShow, "표시:"},
    {Str::kViewGrid, "격자"},
    {Str::kViewEnlarged, "크게"},
    {Str::kViewSideBySide, "스케일 적용/없음 나란히"},
    {Str::kPoolMax, "최댓값"},
    {Str::kPoolMean, "평균"},
    {Str::kEveryHeadHidden, "모든 헤드가 숨겨져 있습니다: 위의 상자를 체크해 하나 이상 보이게 하십시오."},
    {Str::kClickBackToGrid, "(클릭: 격자로 돌아가기)"},
    {Str::kClickForNeuron, "(칸 클릭: 그 칸의 뉴런 뷰)"},
    {Str::kComputingOtherScaling, "반대 스케일을 계산 중…"},
    {Str::kUnscaledPrefix, "스케일 없음: "},
    {Str::kTipHead, "헤드 {0}"},
    {Str::kTipQuery, "쿼리 {0}: {1}"},
    {Str::kTipKey, "키 {0}: {1}"},
    {Str::kTipQkFeatures, "q = {0} ({1}), k = {2} ({3})"},
    {Str::kTipMasked, "마스크됨 (인과): 가중치 0"},
    {Str::kTipWeight, "가중치: {0}"},
    {Str::kTipLogitBefore, "점수 {0}: {1}"},
    {Str::kTipLogitAfter, "스케일 후 로짓 ({0}): {1}"},
    {Str::kTipLogitCapped, "캡 적용: {0} \xC2\xB7 tanh({1} / {0}) = {2}"},
    {Str::kUnscaled, "스케일 없음"},
    {Str::kTipRowEntropy, "행 엔트로피: {0} nats (정규화 {1})"},
    {Str::kTipRowMax, "행 최대 가중치: {0}"},
    {Str::kTipDrawn, "그린 방법: 텍셀마다 {1}x{2}칸의 {0}"},
    {Str::kCaptionHead, "헤드 {0}"},
    {Str::kCaptionLayer, "층 {0}"},
    {Str::kMaskedLegend, "마스크됨"},
    // ---- Saturation
    {Str::kNowDk, "| 지금: d_k {0}"},
    {Str::kCurveMaxWeight, "평균 최대 가중치 (1 = 키 하나에 집중)"},
    {Str::kCurveEntropy, "정규화 엔트로피 (1 = 균등)"},
    {Str::kCurveGrad, "softmax 기울기 크기 ||J||"},
    {Str::kSweeping, "d_k를 훑는 중…"},
    {Str::kSweepSummary, "훑기: d_k {0}개, {1} ms; 점: 지금의 헤드들"},
    {Str::kTipScaled, "스케일:      {0}"},
    {Str::kTipUnscaled, "스케일 없음: {0}"},
    {Str::kColHead, "헤드"},
    {Str::kColMaxW, "최대 w"},
    {Str::kColHNorm, "정규화 H"},
    {Str::kColGrad, "∇ 크기"},
    {Str::kColLogitSd, "로짓 σ"},
    // ---- Shapes
    {Str::kNoModelOpen, "열린 모델이 없습니다."},
    {Str::kModelLayers, "{0}, 층 {1}개 각각:"},
    {Str::kGroupedQueryShapes, "그룹 쿼리 어텐션: 쿼리 헤드 {0}개, 키/밸류 헤드 {1}개. 키와 밸류는 언제나 짝으로 "
                               "옵니다 (k 행마다 v 행 하나). 쿼리의 수는 달라도 됩니다: 쿼리 헤드 h가 읽는 k/v "
                               "헤드는 h / {2}입니다."},
    {Str::kEveryHeadOwnKv, "쿼리 헤드마다 자기 키/밸류 헤드가 있습니다 (n_head = n_kv_head = {0}). 키와 밸류는 "
                           "짝으로 오고, q와 k는 d_head를 함께 씁니다 (점수는 q·k)."},
    {Str::kShapesRules, "q와 k는 같은 d_k(= {0})를 써야 합니다 (점수가 둘을 성분마다 비교합니다: {3}). d_v(= {1})는 "
                        "자유롭게 정할 수 있습니다 (밸류는 가중 평균될 뿐입니다). 키와 밸류는 짝으로 옵니다 (둘 다 "
                        "n_k = {2}행이고, 가중치 j는 밸류 행 j에 곱해집니다)."},
    {Str::kColStep, "단계"},
    {Str::kColTensor, "텐서"},
    {Str::kColShape, "모양"},
    {Str::kNoteQuerySentence, "쿼리 문장"},
    {Str::kNoteKvSentence, "키/밸류 문장"},
    {Str::kNoteTokensPositions, "토큰 + 위치"},
    {Str::kNoteRowsSumToOne, "행마다 모든 키의 합이 1"},
    {Str::kNoteOneMapPerHead, "쿼리 헤드마다 맵 하나"},
    {Str::kResidualStream, "x (잔차 스트림)"},
    {Str::kTabShapes, "모양"},
    {Str::kTabNumbers, "숫자"},
    {Str::kTabLessons, "수업"},
    {Str::kTabDictionary, "사전"},
    {Str::kTabVariance, "분산"},
    {Str::kFusedNote, "합친 행렬: 행렬 하나 W [d_model, {0}] = [W_q | W_k | W_v]; x W를 계산한 다음 열을 나눕니다"},
    {Str::kSeparateNote, "세 행렬: W_q, W_k, W_v (Linear 세 개). 합친 W의 열 블록과 같은 숫자입니다"},
    // ---- Export
    {Str::kExportHead, "헤드"},
    {Str::kExportHeads, "헤드들"},
    {Str::kExportSaturation, "포화"},
    {Str::kExportOverview, "한눈에 보기"},
    {Str::kFolder, "폴더"},
    {Str::kFile, "파일"},
    {Str::kExportHeadHint, "헤드 {0} (맵을 클릭하거나 ←/→로 고르십시오)"},
    {Str::kExportButton, "내보내기"},
    {Str::kExporting, "내보내는 중…"},
    {Str::kExportingPath, "{0} 내보내는 중…"},
    {Str::kWrote, "저장했습니다: {0}"},
    {Str::kExportFailed, "내보내기 실패: {0}"},
    {Str::kNoFileName, "파일 이름이 없습니다"},
    {Str::kExportTitle, "제목"},
    {Str::kExportTitleHint, "자동: 설정에서"},
    {Str::kExportSize, "크기"},
    {Str::kExportSizeTip, "비우면 자동; 또는 가로x세로 (in, cm, mm 단위, 예: 3.3x3in, 8x7cm)"},
    {Str::kExportDpi, "dpi"},
    {Str::kExportAnnotate, "수치 표시"},
    {Str::kExportAnnotateTooSmall, "칸이 작아 수치를 넣을 수 없습니다: 지금 {0} px, 필요한 크기 {1} px"},
    {Str::kExportFileExists, "{0} 파일이 이미 있습니다"},
    {Str::kExportOverwrite, "덮어쓰기"},
    {Str::kExportSaveAsNext, "{0}(으)로 저장"},
    // ---- Model
    {Str::kSourceSandbox, "샌드박스 (무작위 층, 모든 설정)"},
    {Str::kSourceModel, "학습된 모델"},
    {Str::kModelFolderHint, "모델 폴더 (config.json, model.safetensors, 토크나이저) 또는 .gguf 파일"},
    {Str::kBundledTiny, "내장: tiny"},
    {Str::kBundledRepeatedWhy, "같은 문장을 두 번 씁니다. 두 번째에는 층 1의 인덕션 헤드가, 첫 번째에 같은 단어 "
                               "다음에 왔던 토큰을 되돌아봅니다 (수업 (e)). 한 번만 쓴 짧은 문장에서는 이 작은 "
                               "모델의 헤드가 잡음에 가까운 것만 보여 줍니다."},
    {Str::kOpeningModel, "{0} 여는 중…"},
    {Str::kDropModelHint, "모델 폴더를 창에 끌어다 놓거나 경로를 입력하십시오. save_pretrained로 저장한 Hugging Face "
                          "폴더나 모델 저장소를 복제한 폴더를 읽습니다: GPT-2, BERT, Llama, Qwen2, Mistral. .gguf "
                          "파일도 됩니다 (llama.cpp, Ollama, LM Studio; 양자화된 파일도)."},
    {Str::kGgufWhatWasRead, "GGUF 파일: 아키텍처 {0}, 텐서 형식 {1}, 디스크 크기 {2}"},
    {Str::kLayer, "층"},
    {Str::kHideSpecial, "특수 토큰 숨기기 ([CLS], [SEP], BOS)"},
    {Str::kWhatIf, "가정 실험"},
    {Str::kNoScaling, "1/√d_head 스케일 없이"},
    {Str::kOnLayers, "적용할 층"},
    {Str::kOnLayersHint, "전부 (또는 예: 0,2,5)"},
    {Str::kRunning, "{0} 실행 중"},
    {Str::kHeadRoleLine, "층 {0}, 헤드 {1}: {2} {3}. {4}"},
    {Str::kHeadRoleChance, "(고르게 나눈 어텐션이라면 {0})"},
    {Str::kTokensAsModelSees, "모델이 보는 토큰 {0}개 ({1}초):"},
    {Str::kSpecialToken, "(특수)"},
    {Str::kUseFirstTokens, "앞 토큰 {0}개만 쓰기"},
    // ---- Overview
    {Str::kComputingFirstMaps, "첫 맵을 계산하는 중…"},
    {Str::kOpenModelForOverview, "모델 패널에서 학습된 모델을 열면 여기에 모든 층과 헤드가 보입니다."},
    {Str::kGroupedQueryOverview, "그룹 쿼리 어텐션: 쿼리 헤드 {0}개가 키/밸류 헤드 {1}개를 나눠 씁니다 (각 {2}개). "
                                 "키와 밸류는 언제나 짝으로 오고, 쿼리의 수는 달라도 됩니다"},
    {Str::kRoleFilter, "역할 거르기"},
    {Str::kRoleFilterHint, "예: 인덕션 >= 0.4"},
    {Str::kOverviewTip, "층 {0}, 헤드 {1}{2}\n평균 최대 어텐션 {3}, 엔트로피 {4} nats"},
    // ---- Lessons
    {Str::kLessonsIntro, "강의 노트에서 나온 질문 일곱 가지입니다. 버튼을 누르면 답이 보이도록 설정이 맞춰집니다. "
                         "그다음 설정을 직접 바꿔 보며 아래 질문에 답해 보십시오."},
    {Str::kLessonShow, "보여 주기"},
    {Str::kLessonQuestion, "해 보기: {0}"},
    {Str::kLessonNow, "수업 {0}"},
    {Str::kLessonATitle, "(a) 왜 d_q는 d_k와 같아야 하고, d_v는 달라도 됩니까?"},
    {Str::kLessonAText, "점수는 내적 q·k입니다: 쿼리의 성분과 키의 성분을 하나씩 곱하므로 둘은 같은 차원 d_k여야 "
                        "합니다. 밸류는 가중치와만 곱해집니다: 출력은 밸류 행들의 가중 평균이고, d_v차원 행들의 "
                        "평균은 d_v가 얼마든 d_v차원입니다."},
    {Str::kLessonAButton, "d_k = 16, d_v = 48, 그리고 모양 탭"},
    {Str::kLessonAQuestion, "d_v를 끌어 보십시오: 모양 표의 어느 행이 바뀌고, probs도 바뀝니까? 그다음 d_k를 끌어 "
                            "보십시오: probs의 모양은 왜 그대로입니까?"},
    {Str::kLessonBTitle, "(b) 왜 쿼리의 수는 키의 수와 달라도 됩니까?"},
    {Str::kLessonBText, "인코더-디코더 (크로스) 어텐션에서 쿼리는 한 문장에서, 키와 밸류는 다른 문장에서 옵니다. "
                        "probs는 쿼리마다 행 하나, 키마다 열 하나이므로 n_q와 n_k는 서로 달라도 됩니다. 키와 밸류는 "
                        "짝으로 옵니다: 가중치 j가 밸류 행 j에 곱해지므로, 키마다 밸류가 꼭 하나 있어야 합니다."},
    {Str::kLessonBButton, "크로스 어텐션, n_q != n_k"},
    {Str::kLessonBQuestion, "쿼리 문장에 단어를 하나 더해 보십시오: probs의 어느 차원이 커집니까? 키/밸류 문장에 "
                            "더하면 어떤 텐서들이 커집니까?"},
    {Str::kLessonCTitle, "(c) Linear(d, 3d) 하나로 만들고 나누는 것은 Linear 세 개와 같습니까? 헤드는 어떻게 나눕니까?"},
    {Str::kLessonCText, "합친 W는 W_q, W_k, W_v를 옆으로 붙인 것입니다: x W를 한 번 곱하면 [q | k | v]가 나오고, 그 "
                        "열을 나누면 Linear 세 개의 결과와 float32 반올림 범위에서 같은 숫자가 됩니다 (덧셈 순서가 "
                        "다를 수 있습니다). 그다음 q를 [batch, seq, head, d/head]로 보고 [batch, head, seq, "
                        "d/head]로 전치합니다: 헤드는 열의 한 조각일 뿐, 새 숫자는 없습니다."},
    {Str::kLessonCButton, "합친 행렬, 헤드 4개, 그리고 숫자 탭"},
    {Str::kLessonCQuestion, "QKV를 '합친 행렬'과 '세 행렬' 사이에서 바꿔 보십시오: 가장 큰 차이가 float32 반올림 "
                            "범위 안에 머뭅니까? W의 어느 열이 q의 헤드 1입니까?"},
    {Str::kLessonDTitle, "(d) 왜 √d_k로 나눕니까?"},
    {Str::kLessonDText, "성분의 분산이 1이면 q·k는 d_k개 곱의 합이라 분산이 d_k, 표준편차가 √d_k입니다. 나누지 않으면 "
                        "로짓이 d_k와 함께 커지고, softmax가 키 하나에 몰리며, 기울기가 사라집니다. √d_k로 나누면 "
                        "어떤 d_k에서도 표준편차가 1로 돌아옵니다."},
    {Str::kLessonDButton, "d_k = 512, 스케일 적용/없음 나란히"},
    {Str::kLessonDQuestion, "포화 패널에서 스케일하지 않은 주황색 곡선(최대 가중치의 평균)을 보십시오: d_k가 얼마일 때 처음으로 0.9를 넘습니까? (맵 하나의 최대 가중치는 가중치를 새로 뽑을 때마다 달라지지만, 정해진 뽑기들의 평균인 이 곡선은 언제나 같습니다)"},
    {Str::kLessonDTodayText, "요즘 모델은 두 가지 안전장치를 더 둡니다. Qwen3, OLMo 2, Gemma 3는 점수를 내기 전에 "
                             "q와 k를 각각의 RMS로 나눕니다 (q/k 정규화). 그러면 입력의 크기와 상관없이 길이가 "
                             "√d_k가 되므로 은닉 상태가 커졌다고 로짓이 커지지는 않습니다. 그러나 q·k의 표준편차는 "
                             "여전히 √d_k에 비례하므로 이 모델들도 √d_k로 계속 나눕니다. Gemma 2는 모든 로짓에 "
                             "소프트 캡을 씌웁니다: 로짓 = 캡 · tanh(로짓 / 캡). 로짓이 ±캡 안에 머무르므로 d_k가 "
                             "아무리 커도 키 하나가 행 전체를 가져가지 못합니다. 로짓이 캡에 닿은 키들은 가중치를 "
                             "나누어 가지며, 캡을 넘어서면 tanh가 더는 그 키들을 구별하지 못합니다. Gemma 2의 캡은 "
                             "50으로 보통의 로짓보다 훨씬 큽니다. 스케일(query_pre_attn_scalar)을 대신하지 않고 그 "
                             "곁에 더한 안전장치입니다."},
    {Str::kLessonDTodayButton, "d_k = 4096, 스케일 없이 소프트 캡 5"},
    {Str::kLessonDTodayQuestion, "캡을 켜면 스케일 없는 최대 가중치가 d_k 4096에서 여전히 1에 닿습니까? 캡 대신 q/k 정규화를 "
                                 "켜 보십시오: 스케일 없는 softmax의 포화를 막습니까?"},
    {Str::kLessonETitle, "(e) 헤드가 여러 개면 무엇이 좋습니까?"},
    {Str::kLessonEText, "헤드마다 자기 W_q, W_k, W_v가 있어 저마다 맵을 그립니다. 헤드들의 출력 z를 이어 붙인 뒤 "
                        "W_o로 섞습니다. 학습된 모델에서는 헤드마다 맡는 일이 생깁니다. 같은 말을 되풀이한 문장에서 "
                        "이전 토큰 헤드 (층 0)는 바로 앞 토큰을 보고, 인덕션 헤드 (층 1)는 이를 이용해 지금 토큰이 "
                        "앞서 나왔을 때 바로 뒤에 온 토큰을 봅니다. 곧 반복을 예측합니다. 버튼을 누르면 내장된 학습 "
                        "모델이 그런 문장으로 열립니다. 헤드 패널에는 층 1이, 한눈에 보기 패널에는 모든 층이 "
                        "헤드마다의 역할과 함께 보입니다."},
    {Str::kLessonEButton, "내장 모델, 되풀이한 문장, 층 1"},
    {Str::kLessonEQuestion, "되풀이된 두 번째 문장에서 인덕션 헤드는 각 행의 가중치를 어디에 둡니까? 반복이 없는 "
                            "문장을 입력해 보십시오: 인덕션 점수는 어떻게 됩니까?"},
    {Str::kLessonFTitle, "(f) Q, K, V가 서로 다른 특징에서 와도 됩니까?"},
    {Str::kLessonFText, "네: 점수에 필요한 것은 차원이 같은 쿼리와 키뿐입니다. 어느 강의 노트는 단어의 길이로 점수를 "
                        "매깁니다: 키는 단어 길이, 쿼리도 길이이고, 점수는 둘의 차이에 마이너스를 붙인 것입니다. "
                        "임베딩에서 온 쿼리 (d_k차원)와 길이에서 온 키 (1차원)는 함께 쓸 수 없습니다: 차원이 맞아야 "
                        "합니다."},
    {Str::kLessonFButton, "q와 k를 단어 길이로, 점수 −|q − k|"},
    {Str::kLessonFQuestion, "쿼리를 다시 임베딩으로 바꾸고 키는 길이로 두십시오: 오류 메시지는 무엇이라고 하며, 왜 "
                            "그렇습니까?"},
    {Str::kLessonGTitle, "(g) 어텐션은 어떤 뜻에서 부드러운 사전입니까?"},
    {Str::kLessonGText, "파이썬 dict는 쿼리와 같은 키의 밸류를 돌려줍니다. 어텐션은 쿼리를 모든 키와 비교해 점수를 "
                        "매기고, softmax로 점수를 가중치로 바꾸어 밸류들의 가중 평균을 돌려줍니다. 온도가 낮으면 "
                        "가장 잘 맞는 키가 가중치를 전부 가져갑니다: 정확한 조회입니다. 어느 키와도 맞지 않는 쿼리는 "
                        "여러 밸류의 가중 평균을 받습니다."},
    {Str::kLessonGButton, "사전 탭"},
    {Str::kLessonGQuestion, "{'a': 1, 'b': 2, 'c': 3}에서 'b'를 찾고, 그다음 'z' (없는 키)를 찾아보십시오: 온도 "
                            "0.01에서는, 10에서는 무엇이 돌아옵니까?"},
    {Str::kLessonPrevHeads, "이전 토큰 헤드 (바로 앞 토큰을 봅니다): {0}"},
    {Str::kLessonInductionHeads, "인덕션 헤드 (앞서 나온 같은 토큰의 다음 토큰을 봅니다): {0}"},
    {Str::kLessonHeadAt, "층 {0} 헤드 {1} ({2})"},
    {Str::kLessonNoSuchHead, "이 문장에서는 아직 없습니다"},
    {Str::kLessonClose, "수업 닫기"},
    // ---- Dictionary
    {Str::kDictIntro, "부드럽게 맞추는 사전입니다. 각 키의 가중치는 softmax(점수(쿼리, 키) / T)이고, 답은 밸류들의 "
                      "가중 평균입니다."},
    {Str::kDictTable, "표"},
    {Str::kDictQuery, "쿼리"},
    {Str::kDictKey, "키"},
    {Str::kDictValue, "밸류"},
    {Str::kDictScore, "점수"},
    {Str::kDictWeight, "가중치"},
    {Str::kDictBlended, "밸류의 가중 평균: {0}"},
    {Str::kDictExact, "정확한 조회: 키 {0}에 가중치가 {1} 실립니다"},
    {Str::kDictSoft, "부드러운 조회: 가장 잘 맞는 키 {0}에도 가중치가 {1}만 실립니다"},
    {Str::kDictTie, "동점: 가장 잘 맞는 키가 없습니다. 키 {0}개({1})에 가중치가 {2}씩 똑같이 실립니다"},
    {Str::kDictAddRow, "행 추가"},
    {Str::kDictRemoveRow, "마지막 행 지우기"},
    {Str::kDictWords, "키를 단어로 비교 (원-핫)"},
    {Str::kDictNumbers, "키를 숫자로 비교"},
    // ---- Variance
    {Str::kVarIntro, "성분의 분산이 1인 무작위 q와 k로 만든 q·k입니다: 표준편차가 √d_k에 비례해 커집니다."},
    {Str::kVarDk, "d_k (이 그림)"},
    {Str::kVarHistogram, "무작위 쌍 {0}개의 q·k 히스토그램"},
    {Str::kVarStd, "표준편차 {0}   √d_k = {1}"},
    {Str::kVarRow, "쿼리 하나와 키 {0}개: softmax 가중치"},
    {Str::kVarUnscaled, "스케일 없음"},
    {Str::kVarScaled, "÷√d_k"},
    {Str::kVarMaxWeight, "최대 가중치 {0}"},
    // ---- Numbers
    {Str::kNumFused, "합친 W [{0}, {1}] (앞쪽 행) = [ W_q | W_k | W_v ]"},
    {Str::kNumSplit, "열 블록: W_q {0} | W_k {1} | W_v {2}"},
    {Str::kNumThreeLinears, "Linear 세 개 (x W_q, x W_k, x W_v)와 합친 x W를 나눈 것을 비교합니다"},
    {Str::kNumEqual, "q, k, v가 같습니다 (float32 반올림 범위 안): 가장 큰 차이 {0} (반올림 허용 {1})"},
    {Str::kNumDiffer, "q, k, v가 다릅니다: 가장 큰 차이 {0}, float32 반올림 허용 ({1})보다 큽니다"},
    {Str::kNumReshape, "Linear 하나가 내놓는 q {0}, view + transpose로 헤드를 나누면 {1}"},
    {Str::kNumBatch, "배치 {0}"},
    {Str::kNumQueryRow, "쿼리 행"},
    {Str::kNumHead, "헤드"},
    {Str::kNumReadValues, "z_i = Σ_j p_ij v_j: 밸류 행마다 가중치를 곱해 더합니다"},
    {Str::kNumConcat, "헤드를 이어 붙이면 {0}, W_o로 섞으면 출력 {1}"},
    {Str::kNumOut, "출력 행 {0}"},
    {Str::kNumNoSandbox, "숫자는 샌드박스의 것입니다: 샌드박스로 돌아가면 보입니다."},
    {Str::kNumRows, "({1}행 중 앞 {0}행)"},
    {Str::kNumWeightsLoaded, "--weights 파일에서 읽은 가중치"},
    {Str::kNumWeightsRandom, "이번 계산이 뽑은 무작위 초기값 (시드)"},
    {Str::kNumRawSide, "{1}에서 온 {0} ({2}차원): 투영이 없으므로 W_{0} 단계는 적용하지 않습니다. 계산에 쓰인 "
                       "{0} 행:"},
    // ---- attnviz-cli
    {Str::kCliErrorPrefix, "attnviz-cli {0}: 오류: {1}"},
    {Str::kCliSeeHelp, "attnviz-cli: 모르는 명령 '{0}' (명령: compute, sweep, export, model; attnviz-cli --help를 "
                       "보십시오)"},
    {Str::kCliUnknownOption, "모르는 옵션 '{0}' (attnviz-cli {1} --help를 보십시오)"},
    // ---- the engine's words (localized.h)
    {Str::kTitleScaled, "스케일 적용"},
    {Str::kTitleUnscaled, "스케일 없음"},
    {Str::kTitleNoPositions, "위치 인코딩 없음"},
    {Str::kTitleSaturation, "softmax 포화"},
    {Str::kTitleHead, "헤드 {0}"},
    {Str::kTitleHeads, "헤드 {0}개"},
    {Str::kTitleFrom, "{1}에서 온 {0}"},
    {Str::kTitleScore, "점수 {0}"},
    {Str::kTitleQueriesKeys, "쿼리 {0}, 키 {1}"},
    {Str::kModelLayerOf, "층 {0} / {1}"},
    {Str::kTitleLayer, "층 {0}"},
    {Str::kTitleBidirectional, "양방향"},
    {Str::kTitleCausalWindow, "인과, 윈도 {0}"},
    {Str::kTitleNoSqrtScale, "1/√d_head 스케일 없음"},
    {Str::kTitleNoSoftcap, "소프트 캡 없음"},
    {Str::kTitleSoftcap, "캡 {0}"},
    {Str::kTitleQkNorm, "q/k 정규화"},
    {Str::kTitleOnLayer, "{0} (층 {1})"},
    {Str::kTitleOnLayers, "{0} (층 {1})"},
    {Str::kTitleOnEveryLayer, "{0} (모든 층)"},
    {Str::kTitleSpecialHidden, "특수 토큰 숨김"},
    // ---- export panel, settings file, command lines, a model's description, raw sources in Shapes
    {Str::kExportSweepBusy, "d_k 훑기를 아직 계산하고 있습니다; 잠시 뒤 다시 하십시오"},
    {Str::kExportNoModelResult, "내보낼 모델 결과가 없습니다"},
    {Str::kExportOverviewStreamed, "한눈에 보기 그림에는 모든 맵이 통째로 필요합니다. 이 입력은 깁니다 (토큰 {0}개, "
                                   "맵을 풀링해 두었습니다). 현재 헤드나 한 층의 모든 헤드를 내보내십시오"},
    {Str::kHideSpecialStreamed, "긴 입력은 맵 전체가 아니라 풀링한 맵만 보관하므로 특수 토큰이 그대로 보입니다"},
    {Str::kExportNothingComputed, "아직 계산한 것이 없습니다"},
    {Str::kExportEveryHeadHidden, "모든 헤드가 숨겨져 있습니다: 내보내려면 하나 이상 보이게 하십시오"},
    {Str::kExportNoFigureLibrary, "이 빌드에는 그림 라이브러리가 없어 내보낼 수 없습니다"},
    {Str::kExportOverviewTitle, "{0} ({1}) \xC2\xB7 층 {2}개 \xC3\x97 헤드 {3}개"},
    {Str::kExportPanelLayerHead, "층 {0} 헤드 {1}"},
    {Str::kSettingsCannotRead, "설정 파일 {0}: 읽을 수 없습니다 ({1})."},
    {Str::kSettingsReadFailed, "설정 파일 {0}."},
    {Str::kSettingsLeftAlone, " 파일은 그대로 두고 덮어쓰지 않습니다; 기본값으로 시작했습니다."},
    {Str::kSettingsProblems, "설정 파일 {0}: {1}."},
    {Str::kSettingsLineProblem, "{0}번째 줄 ({1}): {2}; 기본값을 씁니다"},
    {Str::kSettingsConfigProblem, "{0}; 어텐션 설정은 기본값을 씁니다"},
    {Str::kSettingsCorruptMoved, "설정 파일 {0}: 손상되어 있었습니다 ({1}). {2}(으)로 옮겨 두고 기본값으로 "
                                 "시작했습니다."},
    {Str::kSettingsCorruptStuck, "설정 파일 {0}: 손상되어 있었고 ({1}) 다른 곳으로 옮겨 둘 수도 없었습니다 ({2})."},
    {Str::kAppUnknownOption, "모르는 옵션 '{0}' (attnviz --help를 보십시오)"},
    {Str::kAppBadLesson, "--lesson: 그런 수업은 없습니다: '{0}'. a..g 중 한 글자를 쓰십시오"},
    {Str::kCliHeadAndHeads, "--head N과 --heads all|LIST 중 하나만 주십시오. 둘을 함께 줄 수는 없습니다"},
    {Str::kCliOneSizeOption, "--cell-size, --width, --size 중 하나만 주십시오. 여러 개를 함께 줄 수는 없습니다"},
    {Str::kCliRandomAndText, "--random-tokens와 문장 중 하나만 주십시오. 둘을 함께 줄 수는 없습니다"},
    {Str::kCliNoOut, "출력 파일이 없습니다: --out FILE로 정하십시오"},
    {Str::kCliUnknownRange, "--range: 알 수 없는 범위 '{0}': 허용 fixed|auto"},
    {Str::kCliHeadOutOfRange, "--head {0}: 범위를 벗어났습니다 (허용 범위 0..{1}, --heads {2})"},
    {Str::kCliPlotExtension, "--plot {0}: 알 수 없는 확장자 '{1}': 허용 .png, .svg, .pdf"},
    {Str::kCliNoFigureLibrary, "--plot: 이 빌드에는 그림 라이브러리가 없습니다"},
    {Str::kCliWrote, "저장했습니다: {0}"},
    {Str::kCliAnnotateTooSmall, "참고: --annotate가 수치를 표시하지 않았습니다: 칸이 {0} px인데 수치에는 {1} px 칸이 "
                                "필요합니다 (더 큰 --size, 더 적은 토큰, 또는 --cell-size {1})"},
    {Str::kCliWroteRows, "저장했습니다: {0} ({1}행)"},
    {Str::kCliDumpWritten, "덤프를 저장했습니다: {0}/"},
    {Str::kCliModelPerHead, "토큰 {0}개; 헤드마다: 평균 최대 어텐션 / 평균 엔트로피 (nats)"},
    {Str::kCliPooled, "풀링 방식: 맵 칸 {0} x {1} x {2}; 전체 맵은 두지 않습니다 (피라미드 {3} MiB)"},
    {Str::kCliPredictLoss, "손실 {0} nats (다음 토큰 예측 {1}개의 평균), 퍼플렉서티 {2}"},
    {Str::kCliPredictMasked, "마스크 언어 모델: [MASK]마다 상위 {0}개, 다음 토큰 손실은 없습니다"},
    {Str::kCliPredictOneToken, "토큰이 하나뿐입니다: 뒤따라 예측할 토큰이 없어 다음 토큰 손실이 없습니다; 그 뒤에 올 상위 {0}개"},
    {Str::kCliNeuronMasked, "마스크되었습니다: 쿼리 {0}의 행에서 키 {1}의 칸은 보이지 않으므로 확률이 0입니다"},
    {Str::kCliNoPiece, "(id {0}: 토크나이저 어휘에 조각이 없습니다)"},
    {Str::kModelDescribeLayers, "{0}: 층 {1}개, 헤드 {2}개 x {3}"},
    {Str::kModelDescribeKvHeads, " (키/밸류 헤드 {0}개)"},
    {Str::kModelDescribeSizes, ", d_model {0}, d_ff {1}, 어휘 {2}, 위치 {3}개, {4}"},
    {Str::kModelDescribeLinear, " (선형 스케일링)"},
    {Str::kModelDescribeLlama3, " (llama3 스케일링)"},
    {Str::kModelDescribeFreqFactors, " (주파수별 계수)"},
    {Str::kModelDescribeWindow, ", 슬라이딩 윈도 {0}"},
    {Str::kStepRawSource, "{0} (W 없음)"},
    {Str::kNoteRawSource, "그대로 씁니다: 모든 헤드가 같은 수를 받습니다"},
    {Str::kCliComputeSummary,
     "방식 {0} · n_q={1} n_k={2} · d_model={3} n_head={4} d_k={5} d_v={6} · {7} · 마스크 {8}"},
    // ---- the settings file's syntax and values
    {Str::kSettingsExpectedKeyValue, "{0}번째 줄: '키 = 값' 꼴이 아닙니다"},
    {Str::kSettingsBadKey, "{0}번째 줄: 잘못된 키 '{1}'"},
    {Str::kSettingsLineValue, "{0}번째 줄 ({1}): {2}"},
    {Str::kSettingsConfig, "설정: {0}"},
    {Str::kSettingsNotOneOf, "'{0}': {1} 중 하나가 아닙니다"},
    {Str::kSettingsLoneBackslash, "값 끝에 백슬래시 하나만 있습니다"},
    {Str::kSettingsUnknownEscape, "알 수 없는 이스케이프 \\{0}"},
    // ---- 히트맵 그림의 낱말
    {Str::kFigQuery, "쿼리"},
    {Str::kFigKey, "키"},
    {Str::kFigWeight, "가중치"},
    {Str::kFigWeightLog, "가중치 (로그)"},
    {Str::kFigMasked, "마스크됨"},
    {Str::kFigHead, "헤드 {0}"},
    {Str::kFigScaled, "스케일 적용 (q·k / √d_k)"},
    {Str::kFigUnscaled, "스케일 없음 (q·k)"},
    {Str::kFigUndivided, "{0}, √d_k로 나누지 않음"},
    {Str::kFigMaxWeight, "최대 가중치"},
    {Str::kFigMaxWeightAxis, "평균 최대 가중치"},
    {Str::kFigEntropy, "엔트로피"},
    {Str::kFigEntropyAxis, "정규화 엔트로피"},
    {Str::kFigGradient, "기울기 크기"},
    {Str::kFigGradientAxis, "softmax 기울기 크기"},
    {Str::kFigDkLogAxis, "d_k (로그 눈금)"},
    {Str::kHeadsStatusKeysNoScale, "←/→: 헤드"},
    {Str::kSideBySideSameMapsTip, "√d_k로 나누는 점수는 스케일된 내적뿐입니다: 점수 {0}에서는 스케일 적용 맵과 스케일 "
                                  "없음 맵이 같은 맵입니다 (스케일된 내적을 다시 고르면 두 맵이 다시 달라집니다)"},
    // ---- 학습자 시험에서 더한 것
    {Str::kWidthRefusalSeeControls, "그리지 않았습니다: 쿼리와 키의 차원이 다릅니다 (설정 패널을 보십시오)."},
    {Str::kFaintMapsHint, "맵이 비어 보입니다: 한 행의 가장 큰 가중치가 평균 {0}뿐이라 (가중치가 많은 키에 퍼져 "
                          "있습니다) 선형 0..1 눈금에서는 어둡습니다."},
    {Str::kUseLogScale, "로그 눈금 쓰기"},
    {Str::kSinkHint, "이 층의 어텐션은 대부분 첫 토큰에 놓입니다 (헤드 평균 {0}: 어텐션 싱크). 그래서 선형 눈금에서는 "
                     "맵마다 밝은 열 하나만 보입니다. 로그 눈금으로 바꾸면 각 행의 나머지가 보입니다."},
    {Str::kSinkOverview, "첫 토큰에 놓인 가중치 (어텐션 싱크): 평균 {0}. 헤드 {2}개 중 {1}개가 각 행의 절반 이상을 "
                         "첫 토큰에 둡니다."},
    {Str::kShapePooled, "{0} 풀링됨 (보관하지 않고 피라미드에서 읽습니다)"},
    {Str::kCaptionMax, "최대"},
    {Str::kRoleShortPrev, "이전"},
    {Str::kRoleShortInduction, "인덕션"},
    {Str::kRoleShortSink, "첫"},
    {Str::kRoleShortSelf, "같은"},
    {Str::kRoleShortLocal, "근처"},
    {Str::kRoleShortBroad, "넓은"},
    {Str::kTokByteLevel, "바이트 단위"},
    {Str::kTokByteFallback, "바이트 대체"},
    {Str::kTokLowercase, "소문자로"},
    {Str::kTokCased, "대소문자 구분"},
    {Str::kTokPre, "사전 분할 "},
    {Str::kTokCount, "토큰 {0}개"},
    {Str::kMenuOpenModel, "모델 열기"},
    {Str::kMenuBundledModel, "내장 모델 (tiny)"},
    {Str::kMenuOpenSentences, "문장 파일 열기"},
    {Str::kMenuNothingRecent, "(최근 항목 없음)"},
    {Str::kMenuSandbox, "샌드박스로 돌아가기"},
    {Str::kMenuExport, "내보내기\xE2\x80\xA6"},
    {Str::kMenuLessons, "수업"},
    {Str::kNumReshapeRaw, "계산에 쓰인 q {0} (투영 없는 원래 특징), view + transpose로 헤드를 나누면 {1}"},
    {Str::kActivationTanhApprox, "gelu (tanh 근사)"},
    {Str::kStepEmbed, "임베딩"},
    {Str::kModelPredictingOf, "다음 토큰 예측: 위치 {1}개 중 {0}개"},
    {Str::kNoLmHead, "이 체크포인트에는 LM 헤드가 없습니다: 토큰을 예측할 수 없습니다"},
    {Str::kPredictNextTip, "위치 {0} 다음에 모델이 예상하는 토큰:"},
    {Str::kPredictMaskTip, "위치 {0} ([MASK])에 모델이 추측하는 토큰:"},
    {Str::kPredictNoMask, "텍스트에 [MASK]를 넣으면 bert가 그 자리의 토큰을 추측합니다"},
    {Str::kPredictHowTo, "토큰 위에 마우스를 올리면 모델의 추측이 보입니다. 클릭하면 여기에 고정됩니다"},
    {Str::kPredictPinned, "고정됨:"},
    {Str::kLossLine, "손실 {0} nats, 퍼플렉서티 {1}"},
    {Str::kLossChange, "손실 {0} → {1} nats (가정 실험과 헤드 제거를 뺀 값 → 넣은 값)"},
    {Str::kLossBaselineUnknown, "가정 실험을 뺀 손실은 아직 모릅니다. 한 번 끄면 측정합니다"},
    {Str::kLossExplain, "평균 다음 토큰 손실: 모델이 텍스트의 각 다음 토큰에 얼마나 놀라는지를 나타냅니다"},
    {Str::kLossMasked, "손실 없음: bert는 다음 토큰이 아니라 가려진 토큰을 예측합니다"},
    {Str::kAblateHead, "헤드 L{0} H{1} 제거"},
    {Str::kRestoreHead, "헤드 L{0} H{1} 복원"},
    {Str::kAblatedHeads, "제거한 헤드 (헤드를 오른쪽 클릭하여 추가):"},
    {Str::kRestoreAll, "모두 복원"},
    {Str::kScanButton, "헤드마다 한 번씩 제거"},
    {Str::kScanCancel, "취소"},
    {Str::kScanProgress, "헤드 {1}개 중 {0}번째"},
    {Str::kScanRefused, "이 검사에는 LM 헤드로 다음 토큰을 예측하는 모델이 필요합니다 (bert는 가려진 토큰을 예측합니다)"},
    {Str::kScanBase, "지금 보이는 실행의 손실 {0} nats. 아래는 여기에 헤드를 하나씩 더 제거한 결과이며, 이 텍스트가 "
                     "가장 많이 기대는 헤드부터 나옵니다"},
    {Str::kScanAt, "손실을 읽을 위치"},
    {Str::kScanAtHint, "전체 (또는 예: 12, 14)"},
    {Str::kScanAtShown, "손실은 위치 {0}에서만 읽습니다(위치 i는 토큰 i + 1을 예측합니다)"},
    {Str::kScanPartial, "취소됨: 헤드 {1}개 중 {0}개를 살펴본 순위가 아래에 있고, 나머지는 한눈에 보기에서 비어 있습니다"},
    {Str::kScanColLayer, "층"},
    {Str::kScanColHead, "헤드"},
    {Str::kScanColLoss, "손실"},
    {Str::kScanColDelta, "Δ 손실"},
    {Str::kScanColorOverview, "한눈에 보기를 Δ 손실로 칠하기"},
    {Str::kScanOtherWhatIfs, "지금과 다른 가정 실험 설정으로 검사했습니다"},
    {Str::kOverviewAblatedTip, "제거됨 (오른쪽 클릭으로 복원)"},
    {Str::kOverviewDeltaTip, "제거하면: Δ 손실 {0} nats"},
    {Str::kOverviewDeltaLegend, "색: 헤드를 제거했을 때의 손실 변화(nats)입니다. 파랑은 감소, 빨강은 증가를 뜻합니다"},
    {Str::kOverviewBadgeChance, "회색 배지: 가장 강한 역할의 점수가 우연 수준에 가깝습니다(이 텍스트에서 고르게 나눈 어텐션의 점수에서 1까지의 3분의 1에 못 미칩니다)"},
    // ---- the neuron view and the other map kinds
    {Str::kMapKindLabel, "맵:"},
    {Str::kMapKindAttention, "어텐션"},
    {Str::kMapKindRollout, "롤아웃"},
    {Str::kMapKindValueWeighted, "밸류 가중"},
    {Str::kRolloutExplain, "롤아웃: 행 i는 이 층까지 모든 층의 어텐션과 잔차 연결을 거쳐 각 입력 토큰이 위치 i에 얼마나 도달했는지 보여 줍니다 (Abnar & Zuidema 2020). 층마다 맵이 하나입니다."},
    {Str::kValueWeightedExplain, "밸류 가중: 각 가중치에 그 키가 더하는 밸류의 크기 ‖v_j W_o‖를 곱한 맵입니다. "
                                 "밸류가 아주 작은 키에 큰 가중치가 실려도 아무것도 움직이지 않습니다 (Kobayashi et "
                                 "al. 2020)."},
    {Str::kRolloutPooled, "이 텍스트는 토큰이 {0}개로 {1}개를 넘습니다. 롤아웃 맵은 칸마다 토큰 {2}개로 풀링되며, 각 "
                          "칸은 모든 층을 거친 블록의 평균입니다 (근사값이라 마우스를 올려도 정확한 값 없이 칸의 "
                          "값만 보입니다)."},
    {Str::kRolloutRefusedMemory, "롤아웃을 계산하지 않습니다: {0}"},
    {Str::kValueWeightedMaking, "층 {0}의 밸류 가중 맵을 만들고 있습니다 (긴 입력: q와 k에서 다시 계산합니다). "
                                "그동안 어텐션 맵을 보여 줍니다."},
    {Str::kRolloutMaking, "롤아웃은 모든 층이 끝난 뒤에 만듭니다 (층에 걸친 곱입니다)."},
    {Str::kModelRolloutOf, "롤아웃: 층 {0} / {1}"},
    {Str::kValueWeightedOverviewStreamed, "긴 입력이라 밸류 가중 축소 맵을 층마다 차례로 만들고 있습니다 (층 {1}개 "
                                          "중 {0}개 완료). 층이 만들어지는 대로 칸이 채워집니다."},
    {Str::kExportExactRowsPending, "긴 입력이라 층 {0}의 정확한 칸을 화면에 맞게 아직 다시 계산하고 있습니다 (정확한 "
                                   "칸은 q와 k에서 나옵니다). 잠시 뒤 다시 내보내십시오"},
    {Str::kTipWeightPending, "가중치: 다시 계산하는 중입니다 (긴 입력의 정확한 칸은 q와 k에서 나옵니다)"},
    {Str::kTitleRollout, "롤아웃"},
    {Str::kTitleValueWeighted, "밸류 가중"},
    {Str::kTitleTokensPerCell, "칸마다 토큰 {0}개"},
    {Str::kWinNeuron, "뉴런 뷰"},
    {Str::kNeuronHint, "헤드 패널에서 맵의 칸을 클릭하면 그 쿼리가 키와 어떻게 만나는지 볼 수 있습니다."},
    {Str::kNeuronWhat, "층 {0}, 헤드 {1}: 쿼리 {2} \"{3}\", 키 {4} \"{5}\""},
    {Str::kNeuronExplain, "점수는 차원별 q·k의 합입니다. 스케일을 곱하면 로짓이 되고, 키들에 걸친 softmax가 이를 "
                          "맵에 보이는 확률로 바꿉니다."},
    {Str::kNeuronRopeNote, "RoPE는 차원 쌍마다 위치만큼 회전합니다: 회전 전의 q와 k도 보여 줍니다. 점수는 회전한 q와 "
                           "k로 계산합니다."},
    {Str::kNeuronRowQBefore, "RoPE 전 q_i"},
    {Str::kNeuronRowKBefore, "RoPE 전 k_j"},
    {Str::kNeuronRowProduct, "차원별 q\xC2\xB7k"},
    {Str::kNeuronScore, "점수 = \xCE\xA3 q\xC2\xB7k = {0}"},
    {Str::kNeuronScale, "스케일 = {0}"},
    {Str::kNeuronLogit, "로짓 = 점수 \xC3\x97 스케일 = {0}"},
    {Str::kNeuronProb, "확률 = {0}"},
    {Str::kNeuronMasked, "마스크되었습니다: 쿼리 {0}의 행에서 키 {1}의 칸은 보이지 않으므로 확률은 0입니다"},
    {Str::kNeuronNoHead, "롤아웃은 모든 헤드를 섞습니다: 뉴런 뷰를 열려면 맵을 어텐션이나 밸류 가중으로 바꾸십시오."},
    {Str::kNoSoftcap, "어텐션 소프트 캡 없이"},
    {Str::kNoQkNorm, "q/k 정규화 없이"},
    {Str::kNeuronQkNormNote, "이 모델은 RoPE 전에 q와 k를 정규화합니다 (차원 {0}개의 RMS): 길이가 입력이 아니라 "
                             "정규화 층의 가중치로 정해지므로 점수가 범위 안에 머뭅니다. 투영한 그대로의 q와 k를 "
                             "먼저 보여 줍니다."},
    {Str::kNeuronRowQBeforeNorm, "정규화 전 q_i"},
    {Str::kNeuronRowKBeforeNorm, "정규화 전 k_j"},
    {Str::kNeuronScaleFrom, "스케일 = 1/sqrt({0}) = {1}"},
    {Str::kNeuronSoftcapped, "로짓 = {0} \xC3\x97 tanh(점수 \xC3\x97 스케일 / {0}) = {1} (캡 전 {2})"},
    {Str::kModelDescribeLayerWindow, ", 슬라이딩 윈도 {0} (해당 층: {1})"},
    {Str::kModelDescribeQkNormHead, ", 헤드별 q/k 정규화"},
    {Str::kModelDescribeQkNormWhole, ", 투영 전체의 q/k 정규화"},
    {Str::kModelDescribeScalar, ", 스케일 1/sqrt(query_pre_attn_scalar {0})"},
    {Str::kModelDescribeSoftcaps, ", 소프트 캡 {0} (어텐션), {1} (최종)"},
    {Str::kModelDescribeLocalRope, ", 슬라이딩 층의 로컬 RoPE 기저 {0}"},
    {Str::kOverviewShowMaps, "맵"},
    {Str::kOverviewShowLens, "로짓 렌즈"},
    {Str::kChipColorLabel, "토큰 색칠 기준"},
    {Str::kChipColorNone, "없음"},
    {Str::kChipColorLoss, "손실"},
    {Str::kChipColorDelta, "손실 변화"},
    {Str::kTokenLossExplain, "토큰 손실: 각 토큰은 앞의 토큰들만 보고 그 토큰을 예측할 때의 손실(확률의 음의 로그, nats)로 칠해지므로, 밝은 토큰은 모델이 놀란 곳입니다. 첫 토큰에는 손실이 없습니다."},
    {Str::kTokenLossDeltaExplain, "손실 변화: 가정 실험과 헤드 제거를 넣었을 때의 각 토큰 손실에서 넣지 않았을 때의 "
                                  "손실을 뺀 값입니다. 빨간색은 그 토큰의 예측을 해친 곳, 파란색은 도운 곳입니다."},
    {Str::kTokenLossMasked, "토큰별 손실이 없습니다: {0}은(는) 가려진 토큰을 예측하는 모델이라 다음 토큰을 예측하지 않습니다."},
    {Str::kTokenLossShort, "토큰별 손실이 없습니다: 텍스트에 토큰이 2개 이상 있어야 합니다."},
    {Str::kTokenLossLegend, "손실(nats)"},
    {Str::kTokenLossDeltaLegend, "손실 변화(nats)"},
    {Str::kTokenLossTip, "손실 {0} nats, p = {1}"},
    {Str::kTokenLossTipDelta, "가정 실험 없이: 손실 {0} nats, p = {1}\n변화 {2} nats"},
    {Str::kTokenLossFirstTip, "첫 토큰: 앞에 이 토큰을 예측할 토큰이 없습니다"},
    {Str::kLensExplain, "로짓 렌즈: 각 칸은 모델이 그 층에서 멈췄다면 예측했을 토큰이며(행: 층, 0 = 임베딩, 열: 위치), 색은 실제 다음 토큰에 준 확률입니다."},
    {Str::kLensMaskedNote, "{0}은(는) 다음 토큰이 아니라 각 위치의 자기 토큰을 읽으므로, 색은 1위 토큰의 확률입니다."},
    {Str::kLensWindow, "위치 {0}–{1} / {2}: 렌즈는 한 번에 위치 {3}개를 읽습니다"},
    {Str::kLensFirst, "첫 위치"},
    {Str::kLensProgress, "층 {1}개 중 {0}개를 읽었습니다"},
    {Str::kLensCancelled, "중지했습니다: 이 구간의 렌즈는 읽지 않았습니다."},
    {Str::kLensTip, "층 {0}, 위치 {1}: {2}"},
    {Str::kLensTipNext, "p(다음 {0}) = {1}"},
    {Str::kLensLegend, "p(실제 다음 토큰)"},
    {Str::kLensLegendTop, "p(1위 토큰)"},
    {Str::kAblateModeLabel, "제거한 헤드의 출력"},
    {Str::kAblateModeZero, "0으로 지움"},
    {Str::kAblateModeMean, "텍스트 전체의 평균"},
};
static_assert(TableIsComplete(kStringsKoTable, std::size(kStringsKoTable)),
              "strings_ko.cpp: every Str id once, in order, none empty");
extern const StringEntry* const kStringsKo;
const StringEntry* const kStringsKo = kStringsKoTable;

}  // namespace attnviz
