// Korean templates of the engine's messages (core/base/messages.h) and of the programs' own (app_messages.h), {0},
// {1} as there. An id missing here is shown in English (Localized); test_i18n fails when one is missing, so the
// fallback is for ids added later.
#include "i18n/localized.h"

#include <cctype>
#include <cstring>
#include <optional>
#include <iterator>

#include "i18n/app_messages.h"

namespace attnviz {

namespace {
struct MessageEntry {
  MsgId id;
  const char* text;
};
constexpr MessageEntry kMessagesKo[] = {
    {MsgId::kPrefixContext, "{0}: "},
    {MsgId::kPrefixFileLine, "{0}:{1}: "},
    {MsgId::kPrefixKeyValueText, "키/밸류 문장: "},
    {MsgId::kPrefixQueryText, "쿼리 문장: "},
    {MsgId::kPrefixLeftOfSep, "쿼리 문장 ('|||' 왼쪽): "},
    {MsgId::kPrefixRightOfSep, "키/밸류 문장 ('|||' 오른쪽): "},
    {MsgId::kPrefixSweep, "d_k 훑기: "},
    {MsgId::kPrefixSweepDk, "d_k 훑기: d_k={0}: "},
    {MsgId::kOutOfRange, "{0} = {1} 은(는) 범위를 벗어났습니다: 허용 범위 {2}..{3}"},
    {MsgId::kTemperatureRange, "온도 = {0} 은(는) 범위를 벗어났습니다: 허용 범위 {1}..{2} (0보다 커야 합니다)"},
    {MsgId::kSoftcapRange, "소프트 캡 = {0} 은(는) 범위를 벗어났습니다: 허용 범위 0..{1} (0이면 캡을 씌우지 않습니다)"},
    {MsgId::kCausalNeedsSelf, "인과 마스크는 셀프 어텐션에만 씁니다 (쿼리 i는 자기 문장의 키 0..i만 봅니다); "
                              "크로스 방식에서는 마스크를 없음으로 하십시오"},
    {MsgId::kProjectionTooLarge, "d_model * n_head * (2*d_k + d_v) = {0}개의 투영 가중치는 너무 많습니다: 최대 {1}개 "
                                 "(d_model, 헤드 수, d_k 또는 d_v를 줄이십시오)"},
    {MsgId::kUnknownName, "{0} '{1}' 은(는) 알 수 없는 값입니다: 허용 값 {2}"},
    {MsgId::kWidthMismatch, "점수를 내려면 d_q = d_k여야 합니다: {0}에서 온 쿼리의 차원은 {1}{2}, {3}에서 온 키의 차원은 "
                            "{4}{5}입니다 (모든 점수는 q의 성분 하나하나를 k의 성분 하나와 짝짓습니다: q\xC2\xB7k, 코사인, \xE2\x88\x92|q \xE2\x88\x92 k|, 가산)"},
    {MsgId::kNotWholeNumber, "'{0}' 은(는) 정수가 아닙니다 (허용 범위 {1}..{2})"},
    {MsgId::kNumberOutOfRange, "{0} 은(는) 범위를 벗어났습니다: 허용 범위 {1}"},
    {MsgId::kNotANumber, "'{0}' 은(는) 수가 아닙니다 (허용 범위 {1})"},
    {MsgId::kTextEmpty, "문장이 비어 있습니다: 낱말을 하나 이상 입력하십시오"},
    {MsgId::kTextOnlySpaces, "문장에 공백만 있습니다: 낱말을 하나 이상 입력하십시오"},
    {MsgId::kTooManyTokens, "문장의 토큰이 {0}개보다 많습니다 (허용 범위 1..{0})"},
    {MsgId::kInvalidUtf8, "바이트 오프셋 {0}에 잘못된 UTF-8이 있습니다 (바이트 0x{1})"},
    {MsgId::kControlCharacter, "바이트 오프셋 {1}의 제어 문자는 쓸 수 없습니다: {0}"},
    {MsgId::kFileInvalidUtf8, "파일의 바이트 오프셋 {0}에 잘못된 UTF-8이 있습니다 (줄의 {1}번째 바이트)"},
    {MsgId::kMoreThanOneSeparator, "'|||' 구분자가 둘 이상입니다 (크로스 항목은 쿼리 ||| 키/밸류 꼴입니다)"},
    {MsgId::kNoSentences, "{0}: 문장이 없습니다 (빈 줄과 # 주석뿐입니다)"},
    {MsgId::kCannotOpen, "{0}: 열 수 없습니다: {1}"},
    {MsgId::kIsAFolder, "{0}: 파일이 아니라 폴더입니다"},
    {MsgId::kPrefixTensor, "텐서 '{0}': "},
    {MsgId::kPrefixCheckpoint, "{0} 체크포인트: "},
    {MsgId::kJsonInvalidAtByte, "바이트 {0}에서 올바른 JSON이 아닙니다: {1}"},
    {MsgId::kJsonInvalid, "올바른 JSON이 아닙니다: {0}"},
    {MsgId::kMustBeJsonObject, "JSON 객체여야 합니다"},
    {MsgId::kConfigMissingInt, "키 \"{0}\"이(가) 없습니다 ([{1}, {2}] 범위의 정수)"},
    {MsgId::kConfigNotInt, "\"{0}\"의 값 {1}은(는) 쓸 수 없습니다; 허용: [{2}, {3}] 범위의 정수"},
    {MsgId::kConfigMissingKey, "키 \"{0}\"이(가) 없습니다"},
    {MsgId::kConfigNotNumber, "\"{0}\"의 값 {1}은(는) 쓸 수 없습니다; 허용: [{2}, {3}] 범위의 수"},
    {MsgId::kConfigNotBool, "\"{0}\"의 값 {1}은(는) 쓸 수 없습니다; 허용: true, false"},
    {MsgId::kConfigNotString, "\"{0}\"의 값 {1}은(는) 쓸 수 없습니다; 허용: 문자열"},
    {MsgId::kConfigActivation, "\"{0}\"의 값 \"{1}\"은(는) 지원하지 않습니다; 지원: gelu_new, gelu_pytorch_tanh, gelu_fast (tanh 근사), gelu (erf), "
     "silu, swish, relu"},
    {MsgId::kConfigNotMultiple, "{0} {1}은(는) {2} {3}의 배수가 아닙니다"},
    {MsgId::kConfigNoHeadDim, "hidden_size {0}은(는) num_attention_heads {1}의 배수가 아니고 \"head_dim\"도 없습니다"},
    {MsgId::kConfigPositionEmbedding, "\"position_embedding_type\"의 값 \"{0}\"은(는) 지원하지 않습니다; 지원: absolute"},
    {MsgId::kConfigRopeScalingForm, "{0} rope_scaling은(는) null이거나 객체여야 합니다"},
    {MsgId::kConfigRopeTypeMissing, "\"rope_type\"(또는 예전 이름 \"type\")이 없습니다"},
    {MsgId::kConfigRopeFreqOrder, "high_freq_factor는 low_freq_factor보다 커야 합니다"},
    {MsgId::kConfigRopeType, "rope 종류 \"{0}\"은(는) 지원하지 않습니다: 그 주파수 조정은 구현되지 않았습니다 (지원: {1})"},
    {MsgId::kConfigHeadDimOdd, "회전 위치 임베딩(RoPE)을 쓰려면 head_dim {0}이(가) 짝수여야 합니다"},
    {MsgId::kConfigSlidingWindow, "\"use_sliding_window\"가 true입니다; qwen2의 슬라이딩 윈도 어텐션은 지원하지 않습니다 (허용: false)"},
    {MsgId::kConfigNoModelType, "\"model_type\"이 없습니다 (지원: {0})"},
    {MsgId::kConfigModelType, "model_type \"{0}\"은(는) 지원하지 않습니다 (지원: {1})"},
    {MsgId::kConfigHeadsTooWide, "헤드 수 x 헤드 차원 {0}이(가) {1}보다 큽니다"},
    {MsgId::kConfigTooLarge, "config.json으로 보기에는 너무 큽니다"},
    {MsgId::kConfigRotaryDims, "\"{0}\" {1}와(과) 헤드 차원 {2}에서 회전 차원이 {3}개입니다; RoPE에는 2 이상의 짝수가 필요합니다"},
    {MsgId::kConfigLongRopeFactors, "rope_scaling \"{0}\"의 값이 {1}개입니다; 회전 주파수마다 하나씩 {2}개가 필요합니다"},
    {MsgId::kConfigRefusedMoe, "{0} \"{1}\"은(는) 지원하지 않습니다: 전문가 혼합 피드포워드 층(토큰마다 몇몇 전문가를 고르는 "
                               "라우터)은 구현되지 않았습니다 (지원: {2})"},
    {MsgId::kConfigGemma3Multimodal, "model_type \"gemma3\"은(는) 멀티모달 묶음입니다 (비전 타워 옆의 text_config): "
                                     "config.json의 model_type이 \"gemma3_text\"인 텍스트 모델 폴더를 지정해야 합니다 (지원: {0})"},
    {MsgId::kConfigLayerType, "layer_types[{0}]의 값 \"{1}\"은(는) 쓸 수 없습니다; 허용: sliding_attention, full_attention"},
    {MsgId::kConfigLayerTypesCount, "layer_types의 항목이 {0}개입니다; num_hidden_layers {1}개와 같아야 합니다 (층마다 하나)"},
    {MsgId::kConfigEncoderDecoder, "model_type \"{0}\"은(는) 인코더-디코더 모델입니다 (인코더, 그리고 교차 어텐션이 있는 "
                                   "디코더): 인코더-디코더 모델로 열어야 합니다 ({1})"},
    {MsgId::kConfigNotEncoderDecoder, "model_type \"{0}\"은(는) 인코더-디코더 모델이 아닙니다 (인코더-디코더: {1})"},
    {MsgId::kConfigRefusedUmt5, "model_type \"umt5\"은(는) 지원하지 않습니다: 층마다 상대 위치 편향을 따로 가집니다 "
                                "(t5와 mt5는 첫 층의 것을 함께 씁니다) (지원: {0})"},
    {MsgId::kConfigRefusedLinearAttention, "{0} \"{1}\"은(는) 지원하지 않습니다: 선형 어텐션 층(그릴 softmax 맵이 없음)은 "
                                           "구현되지 않았습니다 (지원: {2})"},
    {MsgId::kCannotStat, "파일 정보를 읽을 수 없습니다: {0}"},
    {MsgId::kNotRegularToMap, "일반 파일이 아닙니다 (장치, FIFO, 폴더는 매핑하지 않습니다)"},
    {MsgId::kCannotMmap, "{0}바이트를 메모리에 매핑할 수 없습니다: {1}"},
    {MsgId::kStTruncated, "잘린 파일입니다: {0}바이트로, safetensors 파일의 8바이트 헤더 길이보다 짧습니다"},
    {MsgId::kStHeaderPastEnd, "헤더 길이 {0}이(가) 파일보다 깁니다 (파일은 {1}바이트이므로 헤더는 최대 {2}바이트); 잘렸거나 safetensors 파일이 아닙니다"},
    {MsgId::kStHeaderTooLong, "헤더 길이 {0}이(가) 한도 100 MiB를 넘습니다"},
    {MsgId::kStHeaderTooShort, "{0}바이트 헤더에는 JSON 객체가 들어갈 수 없습니다"},
    {MsgId::kStHeaderJsonAt, "헤더가 헤더의 바이트 {0}(파일 오프셋 {1})에서 올바른 JSON이 아닙니다: {2}"},
    {MsgId::kStHeaderJson, "헤더가 올바른 JSON이 아닙니다: {0}"},
    {MsgId::kStHeaderNotObject, "헤더는 텐서들의 JSON 객체여야 합니다"},
    {MsgId::kStMetadataForm, "__metadata__는 문자열들의 객체여야 합니다"},
    {MsgId::kStMetadataValue, "__metadata__의 '{0}' 값은 문자열이어야 합니다"},
    {MsgId::kStEntryForm, "항목은 {dtype, shape, data_offsets} 객체여야 합니다"},
    {MsgId::kStDtypeMissing, "\"dtype\"이 없거나 문자열이 아닙니다"},
    {MsgId::kStDtypeUnknown, "알 수 없는 dtype \"{0}\" (safetensors의 dtype: F32 F16 BF16 F64 I64 I32 I16 I8 U8 U16 U32 U64 BOOL F8_E4M3 F8_E5M2)"},
    {MsgId::kStShapeMissing, "\"shape\"이 없거나 배열이 아닙니다"},
    {MsgId::kStShapeNegative, "shape {0}에는 음이 아닌 정수만 있어야 합니다"},
    {MsgId::kStShapeElements, "비정상적인 shape {0} (원소 수가 넘칩니다)"},
    {MsgId::kStShapeBytes, "비정상적인 shape {0} (바이트 수가 넘칩니다)"},
    {MsgId::kStOffsetsForm, "\"data_offsets\"는 음이 아닌 정수 [begin, end]여야 합니다"},
    {MsgId::kStOffsetsReversed, "data_offsets {0}의 begin이 end보다 뒤에 있습니다"},
    {MsgId::kStOffsetsOutside, "data_offsets {0}이(가) 범위를 벗어났습니다: 데이터 구역은 {1}바이트뿐입니다 (파일이 잘렸습니까?)"},
    {MsgId::kStOffsetsSpan, "data_offsets {0}은(는) {1}바이트를 가리키지만 shape {2} x {3}에는 {4}바이트가 필요합니다"},
    {MsgId::kStOverlap, "텐서 '{0}'와(과) '{1}'이(가) 데이터 구역에서 겹칩니다 (바이트 {2}..{3})"},
    {MsgId::kTensorDtype, "텐서 '{0}'의 dtype이 {1}입니다; 가중치는 F32, F16, BF16이어야 합니다"},
    {MsgId::kTensorInTwoFiles, "텐서 '{0}'이(가) {1}과(와) {2} 양쪽에 있습니다"},
    {MsgId::kNoSafetensors, "model.safetensors도 model.safetensors.index.json도 없습니다 (safetensors 체크포인트만 읽습니다; pytorch_model.bin은 "
     "먼저 변환하십시오)"},
    {MsgId::kIndexTooLarge, "{0}바이트는 인덱스로 보기에는 너무 큽니다"},
    {MsgId::kIndexNoWeightMap, "\"weight_map\" 객체 {텐서 이름: 조각 파일}이 없습니다"},
    {MsgId::kIndexEntryNotString, "weight_map 항목 '{0}'은(는) 파일 이름 문자열이어야 합니다"},
    {MsgId::kIndexShardName, "weight_map 항목 '{0}'이(가) 조각 파일 \"{1}\"을(를) 가리킵니다; 조각 파일은 인덱스와 같은 폴더의 파일 이름이어야 합니다"},
    {MsgId::kIndexEmpty, "weight_map이 비어 있습니다"},
    {MsgId::kIndexTensorAbsent, "텐서 '{0}'이(가) weight_map에는 있지만 {1}에는 없습니다"},
    {MsgId::kIndexTensorElsewhere, "텐서 '{0}'은(는) {1}에 있다고 되어 있지만 {2}에 저장되어 있습니다"},
    {MsgId::kTensorNotFound, "텐서 '{0}'을(를) 찾을 수 없습니다"},
    {MsgId::kTensorShape, "{1}의 텐서 '{0}'의 shape는 {2}이지만 config.json에 따르면 {3}이어야 합니다"},
    {MsgId::kTensorMissing, "텐서 '{0}'이(가) 없습니다"},
    {MsgId::kTensorAlsoTried, " ({0}도 찾아보았습니다)"},
    {MsgId::kTensorMissingIn, " (찾아본 파일: {0})"},
    {MsgId::kTensorMissingInShards, " (찾아본 파일: {0}과(와) 나머지 조각 파일)"},
    {MsgId::kVocabJsonForm, "토큰: id 형식의 JSON 객체여야 합니다"},
    {MsgId::kVocabEntryNoId, "항목 '{0}'에 정수 id가 없습니다"},
    {MsgId::kMergeLineForm, "'{0}'은(는) 공백 하나로 나뉜 두 토큰이 아닙니다"},
    {MsgId::kVocabEmpty, "어휘가 비어 있습니다"},
    {MsgId::kKeyMustBeBool, "'{0}'은(는) true 또는 false여야 합니다"},
    {MsgId::kNotInVocab, "'{0}'이(가) 어휘에 없습니다"},
    {MsgId::kBpeFileMissing, "없습니다 ({0}은(는) 있습니다; GPT-2 방식 BPE에는 둘 다 필요합니다)"},
    {MsgId::kNoSuchFolder, "그런 폴더가 없습니다"},
    {MsgId::kNoTokenizerFiles, "토크나이저 파일이 없습니다 (찾아본 파일: tokenizer.json, vocab.json + merges.txt, vocab.txt)"},
    {MsgId::kJsonInvalidAtOffset, "바이트 오프셋 {0}({1}번째 줄, {2}번째 열)에서 JSON이 잘못되었습니다: {3}"},
    {MsgId::kJsonInvalidShort, "JSON이 잘못되었습니다: {0}"},
    {MsgId::kRegexCompile, "정규식 /{0}/을(를) 컴파일할 수 없습니다: {1} (패턴의 바이트 {2})"},
    {MsgId::kRegexMatch, "정규식 /{0}/이(가) 찾는 도중 실패했습니다: {1}"},
    {MsgId::kUnknownTokenAbsent, "미지 토큰 '{0}'이(가) 어휘에 없습니다"},
    {MsgId::kMergeNotInVocab, "병합 규칙 {0} ('{1}' '{2}'): '{3}'이(가) 어휘에 없습니다"},
    {MsgId::kVocabNegativeId, "토큰 '{0}'의 id {1}이(가) 음수입니다"},
    {MsgId::kVocabImplausibleId, "토큰 '{0}'의 id {1}은(는) 비정상적으로 큽니다"},
    {MsgId::kVocabIdTwice, "id {0}이(가) '{1}'과(와) '{2}' 둘 다에 주어졌습니다"},
    {MsgId::kTokenizerTopLevel, "맨 바깥은 JSON 객체여야 합니다"},
    {MsgId::kTokenizerNoModel, "'model' 부분이 없습니다"},
    {MsgId::kTokenizerType, "{0} 종류 '{1}'은(는) 지원하지 않습니다; 지원: {2}"},
    {MsgId::kTokenizerTypeAt, "{0} 종류 '{1}'은(는) 지원하지 않습니다 (위치: {2}); 지원: {3}"},
    {MsgId::kTokenizerNoType, "\"type\"이 없습니다"},
    {MsgId::kKeyMustBeString, "'{0}'은(는) 문자열이어야 합니다"},
    {MsgId::kKeyMustBeChar, "'{0}'은(는) 문자 하나여야 합니다"},
    {MsgId::kTokenizerPattern, "'pattern'은 {\"String\": ...} 또는 {\"Regex\": ...}여야 합니다"},
    {MsgId::kKeyMustBeList, "'{0}'은(는) 리스트여야 합니다"},
    {MsgId::kMustBeList, "리스트여야 합니다"},
    {MsgId::kMustBeObject, "객체여야 합니다"},
    {MsgId::kTokenizerBehavior, "behavior '{0}'은(는) Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous 중 하나가 아닙니다"},
    {MsgId::kTokenizerPrependScheme, "prepend_scheme '{0}'은(는) always, first, never 중 하나가 아닙니다"},
    {MsgId::kTokenizerPrefixSpace, "add_prefix_space가 선언된 prepend_scheme과 맞지 않습니다"},
    {MsgId::kTokenizerVocabForm, "'vocab'은 토큰: id 형식의 객체여야 합니다"},
    {MsgId::kTokenizerVocabEntry, "vocab 항목 '{0}'에 정수 id가 없습니다"},
    {MsgId::kTokenizerDropout, "BPE dropout은 지원하지 않습니다 (id가 무작위로 바뀝니다)"},
    {MsgId::kTokenizerMergeForm, "병합 규칙 {0} ('{1}')은(는) 공백 하나로 나뉜 두 토큰이 아닙니다"},
    {MsgId::kTokenizerMergeShape, "병합 규칙 {0}은(는) \"a b\"도 [\"a\", \"b\"]도 아닙니다"},
    {MsgId::kTokenizerIdForm, "'id'는 음이 아닌 정수여야 합니다"},
    {MsgId::kTokenizerPairToken, "'{0}'은(는) [토큰, id]여야 합니다"},
    {MsgId::kTokenizerSpecialAbsent, "특수 토큰 '{0}'이(가) 'special_tokens'에 없습니다"},
    {MsgId::kTokenizerSpecialLengths, "special_tokens['{0}']에는 길이가 같은 'ids'와 'tokens'가 필요합니다"},
    {MsgId::kTokenizerSpecialBad, "special_tokens['{0}']에 잘못된 id나 토큰이 있습니다"},
    {MsgId::kTokenizerTemplateItem, "{\"SpecialToken\": {...}} 또는 {\"Sequence\": {...}}여야 합니다"},
    {MsgId::kTokenizerUnexpected, "예상하지 못한 내용입니다: {0}"},
    {MsgId::kTextTooLongToTokenize, "{0}바이트의 문장은 토큰으로 나누기에 너무 깁니다 (최대 {1})"},
    {MsgId::kJsonTooDeep, "JSON이 바이트 오프셋 {1} (줄 {2}, 열 {3})에서 {0}단계보다 깊게 중첩되어 있습니다"},
    {MsgId::kTokenizerTooDeep, "{0}의 Sequence가 {1}단계보다 깊게 중첩되어 있습니다"},
    {MsgId::kTokenizerGrowth, "{0}이(가) 코드 포인트 {2}개에서 {1}개를 만들려 합니다: 최대 입력의 {3}배 + {4}개입니다"},
    {MsgId::kRegexBudget, "정규식 /{0}/이(가) {2}바이트 문장에서 {1}단계보다 많이 매칭했습니다 (바이트당 최대 {3}단계)"},
    {MsgId::kWordPieceMaxChars, "max_input_chars_per_word = {0}은(는) 너무 큽니다: 최대 {1}입니다"},
    {MsgId::kTokenizerIdRange, "id {0}이(가) 범위를 벗어났습니다: 허용 0..{1}"},
    {MsgId::kTokenizerIdNamesNoToken, "{0} = {1}에 해당하는 토큰이 없습니다: 허용 0..{2}"},
    {MsgId::kTokenizerUnigramEntry, "vocab 항목 {0}은(는) [조각, 점수] 쌍이어야 합니다"},
    {MsgId::kSentencePieceModel, "SentencePiece 모델 파일이 아닙니다: {0}"},
    {MsgId::kWeightsShape, "shape {0}이(가) d_model={3}, n_head={4}, d_k={5}, d_v={6}일 때의 {1} = {2}와(과) 맞지 않습니다"},
    {MsgId::kPrefixNpyInvalid, "올바른 .npy 파일이 아닙니다: "},
    {MsgId::kNpyNoMagic, "\\x93NUMPY 매직 바이트가 없습니다"},
    {MsgId::kNpyTruncatedHeader, "헤더가 잘렸습니다"},
    {MsgId::kNpyVersion, "지원하지 않는 형식 버전 {0}"},
    {MsgId::kNpyHeaderPastEnd, "헤더가 파일 끝을 넘어갑니다"},
    {MsgId::kNpyHeaderKeys, "헤더에 descr, fortran_order 또는 shape가 없습니다"},
    {MsgId::kNpyShapeNotTuple, "shape {0}은(는) (3, 4) 같은 튜플이 아닙니다"},
    {MsgId::kPrefixNpyBadShape, "잘못된 shape {0}: "},
    {MsgId::kNpyShapeOverflow, "shape {0}의 원소가 너무 많습니다 (데이터 크기가 넘칩니다)"},
    {MsgId::kNpyShapeDims, "shape {0}의 차원이 32개보다 많습니다"},
    {MsgId::kNpyBadShape, "잘못된 shape {0}"},
    {MsgId::kNpyDtype, "dtype {0}은(는) 지원하지 않습니다: 허용 float32 ('<f4') 또는 float64 ('<f8')"},
    {MsgId::kNpyFortran, "Fortran 순서 배열은 지원하지 않습니다: C 순서로 저장하십시오"},
    {MsgId::kNpyDataSize, "데이터는 {0}바이트인데 shape {1}에는 {2}바이트가 필요합니다 (잘렸거나 손상된 파일)"},
    {MsgId::kNpyNotFinite, "원소 {0}이(가) {1}입니다: 유한한 float32 값만 쓸 수 있습니다"},
    {MsgId::kNpyBeyondFloat32, "원소 {0}의 값 {1}은(는) float32 범위를 벗어납니다: 유한한 float32 값만 쓸 수 있습니다"},
    {MsgId::kUnknownRole, "알 수 없는 헤드 역할 '{0}'; 역할은 다음 중 하나입니다: {1}"},
    {MsgId::kRoleFilterEmpty, "역할 거르기가 비어 있습니다"},
    {MsgId::kRoleFilterNoComparison, "'{0}'에 비교 연산자가 없습니다"},
    {MsgId::kRoleFilterNoRole, "'{0}' 앞에 역할이 없습니다"},
    {MsgId::kRoleFilterNoNumber, "'{0}'에서 비교 연산자 뒤에 수가 없습니다"},
    {MsgId::kRoleFilterNotNumber, "'{0}'은(는) 수가 아닙니다"},
    {MsgId::kRoleFilterOutside, "기준값 {0}이(가) 0..1을 벗어납니다 (점수는 [0, 1] 안에 있습니다)"},
    {MsgId::kRoleFilterSyntax, ": 역할 연산자 수의 꼴로 쓰십시오, 예: '인덕션 >= 0.4' (연산자: >=, >, <=, <, =; 수: 0..1; 역할: {0})"},
    {MsgId::kRoleFilterSyntaxParens, " (역할 연산자 수의 꼴로 쓰십시오, 예: '인덕션 >= 0.4' (연산자: >=, >, <=, <, =; 수: 0..1; 역할: {0}))"},
    {MsgId::kNoOutputPath, "출력 경로가 없습니다"},
    {MsgId::kIsAFolderGiveFile, "{0}: 폴더입니다; 파일 이름을 주십시오"},
    {MsgId::kCannotWriteInFolder, "{0}: 폴더 '{1}' 에 쓸 수 없습니다: {2}"},
    {MsgId::kWriteFailedNothingWritten, "{0}: 쓰기에 실패했습니다: {1} (아무것도 쓰지 않았습니다)"},
    {MsgId::kWriteFailed, "{0}: 쓰기에 실패했습니다: {1}"},
    {MsgId::kCannotOpenForWriting, "{0}: 쓰려고 열 수 없습니다: {1}"},
    {MsgId::kNoFolderGiven, "폴더가 없습니다"},
    {MsgId::kExistsNotFolder, "{0}: 이미 있고 폴더가 아닙니다"},
    {MsgId::kCannotCreateFolder, "{0}: 폴더를 만들 수 없습니다: {1}"},
    {MsgId::kCannotWrite, "{0}: 쓸 수 없습니다"},
    {MsgId::kSizeNoUnit, "크기 '{0}' 에 단위 in, cm, mm 가 없습니다: 단위와 함께 가로x세로로 주십시오, 예: 3.3x3in 또는 8.4x7.6cm (각각 0.5..40 in)"},
    {MsgId::kSizeNotWxH, "크기 '{0}': 가로x세로 꼴이 아닙니다: 단위와 함께 가로x세로로 주십시오, 예: 3.3x3in 또는 8.4x7.6cm (각각 0.5..40 in)"},
    {MsgId::kSizeNotANumber, "크기 '{0}': '{1}' 은(는) 수가 아닙니다: 단위와 함께 가로x세로로 주십시오, 예: 3.3x3in 또는 8.4x7.6cm (각각 0.5..40 in)"},
    {MsgId::kSizeOutOfRange, "크기 '{0}' 은(는) 범위를 벗어났습니다: 단위와 함께 가로x세로로 주십시오, 예: 3.3x3in 또는 8.4x7.6cm (각각 0.5..40 in)"},
    {MsgId::kSizeTooManyPixels, "{0} dpi 에서 그 크기는 {1}x{2} 픽셀로 16384x16384 보다 큽니다: dpi 를 낮추거나 크기를 줄이십시오"},
    {MsgId::kFigureTooSmall, "그림 크기 {0} 픽셀은 {1} dpi 에서 이 그림에 너무 작습니다: 적어도 {2}x{3} 픽셀이 필요합니다 (더 큰 크기, 더 낮은 dpi 또는 더 적은 헤드)"},
    {MsgId::kSvgTooManyCells, "칸이 {0}개 (헤드 x 쿼리 x 키)인 SVG 는 거절합니다: 최대 {1}개 (예: 헤드 하나에 1024 x 1024 토큰, 512 x 512 헤드 4개); PNG (수치는 NPY)로 내보내거나 헤드나 토큰을 줄이십시오"},
    {MsgId::kPngTooLarge, "그림이 {0}x{1} 픽셀로 16384x16384 보다 커집니다: 더 작은 --cell-size 를 쓰십시오"},
    {MsgId::kTitleTooWide, "제목({0}자) 때문에 그림이 {1}x{2} 픽셀로 16384x16384 보다 커집니다: 제목을 줄이십시오"},
    {MsgId::kLongExportTooLarge, "긴 입력 (헤드마다 {1} x {2} 칸; 전체 맵은 두지 않습니다)의 {0} 은(는) {3} 칸으로 최대 {4} 칸보다 많습니다: .npy (흘려 쓰기, 헤드 수 무관)나 헤드 하나의 .csv 로 내보내거나, 더 작은 창으로 확대하십시오"},
    {MsgId::kNothingToExport, "내보낼 것이 없습니다: 어텐션 맵이 비어 있습니다 (먼저 계산하십시오)"},
    {MsgId::kHeadOutOfRange, "헤드 {0} 은(는) 범위를 벗어났습니다: 허용 범위 0..{1} (n_head = {2})"},
    {MsgId::kCellSizeRange, "칸 크기 {0} 은(는) 범위를 벗어났습니다: 허용 범위 1..400"},
    {MsgId::kFigureWidthRange, "너비 {0}: 범위를 벗어났습니다 (허용 범위 1..16384)"},
    {MsgId::kDpiRange, "dpi {0} 은(는) 범위를 벗어났습니다: 허용 범위 10..2400"},
    {MsgId::kNoOutputFile, "출력 파일이 없습니다 (--out FILE)"},
    {MsgId::kUnknownFormat, "알 수 없는 형식 '{0}': 허용 png|svg|pdf|csv|npy|json"},
    {MsgId::kNoExtension, "{0}: 형식을 정할 파일 확장자가 없습니다: 허용 .png .svg .pdf .csv .npy .json (또는 --format 을 주십시오)"},
    {MsgId::kUnknownExtension, "{0}: 알 수 없는 확장자 '{1}': 허용 .png .svg .pdf .csv .npy .json (또는 --format 을 주십시오)"},
    {MsgId::kPlotUnknownExtension, "{0}: 포화 그림에 알 수 없는 확장자 '{1}': 허용 .png .svg .pdf"},
    {MsgId::kPdfNoGlyph, "PDF 그림은 표준 Helvetica 글꼴을 쓰는데, 이 글꼴에는 '{0}' ({1}, \"{2}\" 안)가 없습니다: 이 텍스트는 PNG 나 SVG 로 내보내십시오"},
    {MsgId::kReadStatFailed, "{0}: 읽을 수 없습니다: {1}"},
    {MsgId::kNotRegularFileToRead, "{0}: 일반 파일이 아닙니다 (장치, FIFO 또는 소켓): {1}(으)로 읽지 않습니다"},
    {MsgId::kFileTooLargeFor, "{0}: {1}바이트는 {2}(으)로 너무 큽니다 (최대 {3})"},
    {MsgId::kFileGrewWhileRead, "{0}: 읽는 동안 {1}을(를) 넘게 커졌습니다: {2}(으)로 너무 큽니다"},
    {MsgId::kReadError, "{0}: 읽기 오류: {1}"},
    {MsgId::kCannotReadLink, "{0}: 심볼릭 링크를 읽을 수 없습니다: {1}"},
    {MsgId::kTooManyLinks, "{0}: 심볼릭 링크가 너무 여러 단계로 이어집니다"},
    {MsgId::kCannotCreateStaging, "{0}: '{1}' 에 임시 폴더를 만들 수 없습니다: {2}"},
    {MsgId::kCannotMoveIntoPlace, "{0}: 제자리로 옮길 수 없습니다: {1}"},
    {MsgId::kHeadsEmptyItem, "헤드 '{0}': 빈 항목이 있습니다; all, 목록 또는 범위로 주십시오, 예: 0,2,5 또는 0-3,7"},
    {MsgId::kHeadsNotNumber, "헤드 '{0}': '{1}' 은(는) 헤드 번호가 아닙니다; all, 목록 또는 범위로 주십시오, 예: 0,2,5 또는 0-3,7"},
    {MsgId::kHeadsNotRange, "헤드 '{0}': '{1}' 은(는) A-B 꼴의 범위가 아닙니다; all, 목록 또는 범위로 주십시오, 예: 0,2,5 또는 0-3,7"},
    {MsgId::kHeadsBackwards, "헤드 '{0}': 범위 '{1}' 이(가) 거꾸로입니다; all, 목록 또는 범위로 주십시오, 예: 0,2,5 또는 0-3,7"},
    {MsgId::kHeadInListOutOfRange, "헤드 {0} 은(는) 범위를 벗어났습니다: 허용 범위 0..{1} (n_head = {2})"},
    {MsgId::kUnknownColormap, "알 수 없는 컬러맵 '{0}': 허용 {1}"},
    {MsgId::kUnknownColorScale, "알 수 없는 색 눈금 '{0}': 허용 linear|log"},
    {MsgId::kFontNotFoundInDir, "글꼴 {0} ({1}) 이(가) ATTNVIZ_FONT_DIR={2} 에 없습니다: 데비안 패키지 {3} 을(를) 설치하십시오 (apt-get install {3})"},
    {MsgId::kFontNotFound, "글꼴 {0} ({1}) 을(를) 찾을 수 없습니다: 데비안 패키지 {2} 을(를) 설치하십시오 (apt-get install {2})"},
    {MsgId::kFontNotTrueType, "글꼴 {0} 은(는) stb_truetype 이 읽을 수 있는 트루타입 글꼴이 아닙니다: {1} 을(를) 다시 설치하십시오"},
    {MsgId::kDictNotNumbers, "'{0}' 은(는) 수나 수의 목록이 아닙니다"},
    {MsgId::kDictNoNumber, "'{0}': 수가 없습니다"},
    {MsgId::kDictUnclosedBrace, "사전: '{'를 닫는 '}'가 없습니다"},
    {MsgId::kDictEntryEmpty, "사전 항목 (바이트 {0}): 비어 있습니다 (키: 밸류 꼴로 쓰십시오)"},
    {MsgId::kDictEntryNoColon, "사전 항목 (바이트 {0}) '{1}': ':' 가 없습니다 (키: 밸류 꼴로 쓰십시오)"},
    {MsgId::kDictEntryEmptyKey, "사전 항목 (바이트 {0}) '{1}': 키가 비어 있습니다"},
    {MsgId::kDictEntryKeyTwice, "사전 항목 (바이트 {0}): 같은 키가 두 번 나옵니다: '{1}'"},
    {MsgId::kPrefixDictEntryValue, "사전 항목 (바이트 {0}, 키 '{1}'): 밸류 "},
    {MsgId::kDictNoEntry, "사전: 항목이 없습니다 (예: {'a': 1, 'b': 2} 처럼 쓰십시오)"},
    {MsgId::kDictNoKey, "사전: 키가 없습니다"},
    {MsgId::kDictKeysButValues, "사전: 키는 {0}개인데 밸류는 {1}개입니다"},
    {MsgId::kDictAdditive, "사전: additive 점수는 학습된 가중치가 필요합니다; dot, scaled-dot, cosine 또는 neg-distance 를 쓰십시오"},
    {MsgId::kDictTemperature, "사전: 온도 {0} 은(는) 범위를 벗어났습니다: 허용 범위 {1}..{2}"},
    {MsgId::kDictValueWidths, "사전: '{0}'의 밸류는 수 {1}개, '{2}'의 밸류는 수 {3}개입니다 (모든 밸류의 차원 d_v가 같아야 합니다)"},
    {MsgId::kDictWidthMismatch, "사전: 점수를 내려면 d_q = d_k여야 합니다: 쿼리 '{0}'의 차원은 {1}, 키 '{2}'의 차원은 {3}"},
    {MsgId::kJsonNestsTooDeep, "JSON이 {0}단계보다 깊게 중첩되어 있어 거부합니다 (이런 파일은 실제로 그렇게 깊지 않습니다)"},
    {MsgId::kRunMemory, "토큰 {2}개의 실행에는 약 {0}의 메모리가 필요해 한도 {1}을(를) 넘습니다 (ATTNVIZ_MEMORY_LIMIT, 예: 8G 로 바꿀 수 있습니다; 토큰이 적으면 덜 듭니다)"},
    {MsgId::kOutOfMemory, "{0} 중에 메모리가 부족합니다"},
    {MsgId::kTensorNotFinite, "원소 {0}이(가) {1}입니다: 가중치는 유한한 수여야 합니다"},
    {MsgId::kActivationNotFinite, "층 {0}: {1}에 유한하지 않은 값(NaN 또는 Inf)이 있습니다: 가중치나 설정(예: 상수 행에 layer_norm_epsilon 0)이 넘쳤습니다; 깨진 실행의 결과는 보여 주지 않습니다"},
    {MsgId::kNotRegularToWrite, "{0}: 일반 파일이 아닙니다 (장치, FIFO 또는 소켓): 쓰지 않습니다 (파일 이름을 주십시오)"},
    {MsgId::kDumpNameIsFolder, "{0}: 폴더입니다; 덤프는 이 이름의 파일을 씁니다 (폴더를 지우거나 이름을 바꾸십시오)"},
    {MsgId::kCannotRestore, "{0}: 실패한 덤프 뒤에 되돌려 놓지 못했습니다: {1}"},
    {MsgId::kStSymlinkLoop, "{0}: 심볼릭 링크가 너무 많이 이어집니다 (링크 고리)"},
    {MsgId::kTextTooManyBytesForModel, "문장이 {0}바이트입니다; 위치 {2}개의 모델이 받을 수 있는 {1}바이트(토큰당 최대 {3}바이트)보다 깁니다; 문장을 줄이십시오"},
    {MsgId::kTextNoTokens, "문장에서 토큰이 하나도 나오지 않습니다"},
    {MsgId::kTextTooLongForModel, "문장이 토큰 {1}개보다 깁니다; {0} 모델은 토큰을 최대 {1}개까지 받습니다 (max_position_embeddings)"},
    {MsgId::kTokenOutsideVocab, "토큰 '{0}'의 id {1}이(가) 모델 어휘 크기({2})를 벗어납니다 (토크나이저와 체크포인트가 맞지 않습니다)"},
    {MsgId::kSandboxTooLarge, "단어 {2}개의 층에는 약 {0}의 메모리가 필요해 한도 {1}을(를) 넘습니다 (ATTNVIZ_MEMORY_LIMIT, 예: 8G 로 바꿀 수 있습니다; 단어나 크기가 작으면 덜 듭니다)"},
    {MsgId::kOneHotTooWide, "onehot 특징의 차원({0}, 서로 다른 단어마다 하나)이 {1}보다 큽니다: q\xC2\xB7k 하나에 차원 수만큼 곱셈이 들어 층이 단어 수의 세제곱으로 커집니다; 서로 다른 단어를 줄이거나 다른 출처를 쓰십시오"},
    {MsgId::kGgufNotGguf, "GGUF 파일이 아닙니다: {0}(으)로 시작하며, 매직 'GGUF' 가 아닙니다"},
    {MsgId::kGgufVersion, "GGUF 버전 {0}은(는) 지원하지 않습니다 (지원: 2, 3)"},
    {MsgId::kGgufBigEndian, "빅 엔디언 GGUF 파일입니다 (버전 {0}의 바이트 순서가 뒤집혀 있습니다); attnviz는 리틀 엔디언 GGUF 파일만 읽습니다"},
    {MsgId::kGgufTruncated, "바이트 {0}에서 잘렸습니다: {1}에 {2}바이트가 필요하지만 {3}바이트만 남았습니다"},
    {MsgId::kGgufCountTooLarge, "바이트 {2}의 {0} = {1}은(는) 파일이 담을 수 있는 것보다 큽니다 (최대 {3})"},
    {MsgId::kGgufValueType, "바이트 {1}의 키 '{0}': 값 형식 {2}은(는) 알 수 없습니다 (허용 0..12)"},
    {MsgId::kGgufArrayDepth, "바이트 {1}의 키 '{0}': 배열이 {2}단계보다 깊게 중첩되어 있습니다"},
    {MsgId::kGgufKeyTwice, "바이트 {1}의 키 '{0}'이(가) 두 번 나옵니다"},
    {MsgId::kGgufKeyType, "키 '{0}'의 형식이 {1}입니다; {2}이어야 합니다"},
    {MsgId::kGgufAlignment, "general.alignment = {0}은(는) 1..65536 사이의 2의 거듭제곱이어야 합니다"},
    {MsgId::kGgufNameLength, "바이트 {0}의 텐서 이름 길이가 {1}바이트입니다; 최대 {2}바이트까지 허용합니다"},
    {MsgId::kGgufTensorDims, "바이트 {1}의 텐서 '{0}': 차원이 {2}개입니다; 1..4개를 허용합니다"},
    {MsgId::kGgufTensorDim, "바이트 {1}의 텐서 '{0}': ne[{2}] = {3}은(는) 범위를 벗어났습니다 (허용 1..{4})"},
    {MsgId::kGgufTensorElements, "바이트 {1}의 텐서 '{0}': ne {2}의 원소가 너무 많습니다"},
    {MsgId::kGgufTensorType, "바이트 {1}의 텐서 '{0}': ggml 형식 {2}은(는) 알 수 없습니다"},
    {MsgId::kGgufTensorRow, "바이트 {1}의 텐서 '{0}': 행 길이 ne[0] = {2}은(는) {3}의 블록 {4}의 배수가 아닙니다"},
    {MsgId::kGgufTensorAlign, "바이트 {1}의 텐서 '{0}': 데이터 오프셋 {2}은(는) 정렬 {3}의 배수가 아닙니다"},
    {MsgId::kGgufTensorPastEnd, "텐서 '{0}': 바이트 {1}..{2} ({4} 형식의 ne {3})이(가) 파일 끝({5}바이트)을 넘습니다"},
    {MsgId::kGgufTensorTwice, "바이트 {1}의 텐서 '{0}'이(가) 두 번 나옵니다 (처음은 바이트 {2})"},
    {MsgId::kGgufQuantType, "텐서 '{0}'은(는) {1} 형식으로 저장되어 있습니다; 지원: f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, q2_K, q3_K, q4_K, q5_K, q6_K"},
    {MsgId::kGgufArch, "general.architecture 가 \"{0}\"입니다; 지원: {1}"},
    {MsgId::kGgufMissingKey, "키 '{0}'이(가) 없습니다"},
    {MsgId::kGgufKeyRange, "키 '{0}' = {1}은(는) 범위를 벗어났습니다: 허용 범위 {2}..{3}"},
    {MsgId::kGgufKeysDiffer, "{0} = {1}인데 {2} = {3}입니다; attnviz에서는 둘이 같아야 합니다"},
    {MsgId::kGgufRopeScaling, "{0} = \"{1}\"은(는) 지원하지 않습니다; 지원: none, linear"},
    {MsgId::kGgufRopeFreqs, "텐서 '{2}'의 {1}번째 값이 {0}입니다; rope 주파수 배율은 유한하고 0보다 커야 합니다"},
    {MsgId::kGgufTensorShape, "{1}의 텐서 '{0}'의 ne 가 {2}이지만 메타데이터에 따르면 ne {3}이어야 합니다 (ne[0] = 행 길이)"},
    {MsgId::kGgufTensorMissing, "{1}에 텐서 '{0}'이(가) 없습니다"},
    {MsgId::kGgufTokenizerModel, "tokenizer.ggml.model 이 \"{0}\"입니다; 지원: gpt2 (바이트 수준 BPE), llama (SentencePiece BPE)"},
    {MsgId::kGgufTokenizerPre, "tokenizer.ggml.pre 가 \"{0}\"입니다. llama.cpp가 자체 코드로 나누는 이름이라 지원하지 않습니다; 지원: 정규식으로 나누는 이름({1})"},
    {MsgId::kGgufArrayLengths, "키 '{0}'의 항목은 {1}개인데 '{2}'의 항목은 {3}개입니다"},
    {MsgId::kGgufTokenId, "키 '{0}' = {1}은(는) 토큰 id 가 아닙니다 (허용 0..{2})"},
    {MsgId::kNoLmHead, "이 {0} 체크포인트에는 LM 헤드가 없습니다 (lm_head.weight 도, 묶인 임베딩도, cls.predictions.* 도 없습니다): 토큰을 예측할 수 없습니다"},
    {MsgId::kTopKRange, "top-k {0} 은(는) 범위를 벗어났습니다: 허용 범위 1..{1} (어휘 크기)"},
    {MsgId::kPositionRange, "{0} {1} 은(는) 범위를 벗어났습니다: 허용 범위 0..{2} (문장의 토큰은 {3}개입니다)"},
    {MsgId::kAblateLayerRange, "ablate: 층 {0} 은(는) 범위를 벗어났습니다: 허용 범위 0..{1} (모델의 층은 {2}개입니다)"},
    {MsgId::kAblateHeadRange, "ablate: 층 {1}의 헤드 {0} 은(는) 범위를 벗어났습니다: 허용 범위 0..{2} (모델의 헤드는 {3}개입니다)"},
    {MsgId::kNoSoftcapToRemove, "이 {0} 모델에는 없앨 어텐션 소프트 캡이 없습니다 (config.json의 attn_logit_softcapping이 null입니다)"},
    {MsgId::kNoQkNorms, "q/k 정규화를 끄는 가정 실험에는 q/k 정규화 층(q_norm, k_norm)이 필요한데 model_type {0}에는 없습니다: 허용되는 모델: {1}"},
    {MsgId::kAnalysisMemory, "토큰 {3}개의 {0}에는 약 {1}의 메모리가 필요해 한도 {2}을(를) 넘습니다 (ATTNVIZ_MEMORY_LIMIT, 예: 8G 로 바꿀 수 있습니다; 토큰이 적으면 덜 듭니다)"},
    {MsgId::kGgufCountLimit, "바이트 {2}의 {0} = {1}은(는) 실제 파일에 필요한 것보다 큽니다 (최대 {3})"},
    {MsgId::kGgufMemory, "바이트 {2}의 {0} = {1}에는 약 {3}의 메모리가 필요해 한도 {4}을(를) 넘습니다 (ATTNVIZ_MEMORY_LIMIT, 예: 8G 로 바꿀 수 있습니다)"},
    {MsgId::kGgufTensorOverlap, "텐서 '{0}'(바이트 {1}..{2})와(과) '{3}'(바이트 {4}..{5})이(가) 바이트를 함께 씁니다; 텐서마다 자기 바이트가 있어야 합니다"},
    {MsgId::kMappedFileChanged, "파일을 읽는 동안 파일이 바뀌었습니다: 열 때의 {0}바이트보다 짧아졌습니다 (다른 프로그램이 다시 쓰는 중이거나 내려받기가 끝나지 않았습니다); 이 파일로 계산한 것은 보여 주지 않습니다: 파일이 다 되면 다시 여십시오"},
    {MsgId::kLayerRange, "층 {0}은(는) 범위를 벗어났습니다: 허용 0..{1} (모델의 층은 {2}개)"},
    {MsgId::kHeadRange, "층 {1}의 헤드 {0}은(는) 범위를 벗어났습니다: 허용 0..{2} (모델의 헤드는 {3}개)"},
    {MsgId::kSpmCharacterNotInVocab, "텍스트의 문자 {0}이(가) 어휘에 없고, 이 문자를 나타낼 바이트 토큰 {1}도 미지 토큰도 없습니다 (llama.cpp도 이런 텍스트에서 멈춥니다)"},
    {MsgId::kGgufNotBuilt, "'{0}'이(가) 있지만 attnviz는 이것이 뜻하는 구조를 만들지 않습니다"},
    {MsgId::kTokenLossMaskedLm, "토큰별 손실은 다음 토큰 각각의 손실인데, 이 {0} 모델은 마스크 언어 모델입니다: 다음 토큰이 아니라 [MASK] 토큰을 예측합니다 (로짓 렌즈와 top-k 예측은 이 모델에서도 쓸 수 있습니다)"},
    {MsgId::kTokenLossTooShort, "토큰별 손실에는 토큰이 2개 이상 있어야 합니다 (첫 토큰 다음 토큰 각각의 손실); 텍스트의 토큰은 {0}개입니다"},
    {MsgId::kAttributionPostNorm, "직접 로짓 기여도는 잔차 스트림을 로짓으로 더해지는 부분들로 나누는데, 이 {0} 모델에는 그런 부분이 없습니다: 매 하위 층 뒤에 스트림을 다시 정규화하고 비선형 마스크 언어 모델 헤드로 예측합니다. 정규화가 하위 층 앞에 있고 다음 토큰을 예측하는 모델에서 쓸 수 있습니다"},
    {MsgId::kPatchTokenCounts, "활성값 패칭에는 깨끗한 텍스트와 오염된 텍스트의 토큰 수가 같아야 합니다: 깨끗한 텍스트(--patch-from)는 {0}개, 오염된 텍스트는 {1}개입니다"},
    {MsgId::kPatchNoDifference, "깨끗한 실행과 오염된 실행의 지표가 같습니다({0}): 패칭 비율 (패칭 - 오염) / (깨끗 - 오염)이 0으로 나누게 됩니다. 두 실행이 구별하는 텍스트나 토큰 A,B를 고르십시오"},
    {MsgId::kScanPositionRange, "스캔의 손실 위치 {0}: 범위를 벗어났습니다. 허용 범위는 0..{1}입니다(위치 i는 토큰 i + 1을 예측하는 손실이며, 마지막 토큰은 아무것도 예측하지 않습니다)"},
    {MsgId::kScanPositionTwice, "스캔의 손실 위치 {0}: 같은 위치가 두 번 주어졌습니다"},
};
// The programs' own messages (i18n/app_messages.h), in AppMsgId order.
struct AppMessageEntry {
  AppMsgId id;
  const char* text;
};
constexpr AppMessageEntry kAppMessagesKo[] = {
    {AppMsgId::kMissingValue, "{0}: 값이 없습니다"},
    {AppMsgId::kTextAndTextFile, "--text와 --text-file 중 하나만 주십시오. 둘을 함께 줄 수는 없습니다"},
    {AppMsgId::kLineNeedsTextFile, "--line 은 --text-file 과 함께 씁니다"},
    {AppMsgId::kNoText, "문장이 없습니다: --text 문장 또는 --text-file FILE로 주십시오"},
    {AppMsgId::kNoSentenceOnLine, "{0}:{1}: 이 줄에는 문장이 없습니다 (문장이 있는 줄: {2})"},
    {AppMsgId::kFolderWithoutConfig, "{0}: config.json 이 없는 폴더입니다 (모델 폴더에는 있습니다; 문장 파일은 폴더가 아니라 파일입니다)"},
    {AppMsgId::kTwoModelFolders, "모델 폴더가 둘 주어졌습니다: '{0}', '{1}' (한 번에 하나씩)"},
    {AppMsgId::kTwoSentenceFiles, "문장 파일이 둘 주어졌습니다: '{0}', '{1}' (한 번에 하나씩)"},
    {AppMsgId::kModelFolderForSandbox, "{0}: 모델 폴더입니다 (config.json 이 있습니다); attnviz-cli {1} 은(는) 모델이 아니라 샌드박스 층을 실행합니다: attnviz-cli model --model {0} 을(를) 실행하십시오"},
    {AppMsgId::kStrayArgument, "뜻밖의 인자 '{0}' (attnviz-cli {1} --help 를 보십시오)"},
    {AppMsgId::kModelFolderNeedsOption, "뜻밖의 인자 '{0}': 모델 폴더(config.json이 있는 폴더)는 --model 옵션으로 줍니다: --model {0}"},
    {AppMsgId::kModelEmpty, "--model: 비어 있습니다; 모델 폴더나 'tiny'(함께 들어 있는 모델)를 주십시오"},
    {AppMsgId::kBundledNoDataDir, "함께 들어 있는 모델 'tiny'를 찾지 못했습니다: 데이터 폴더가 없습니다 (찾아본 곳: {0})"},
    {AppMsgId::kBundledNoConfig, "함께 들어 있는 모델 'tiny'를 찾지 못했습니다: {0}/config.json이 없습니다"},
    {AppMsgId::kModelPathMissing, "{0}: 그런 폴더나 파일이 없습니다 (모델은 config.json 이 있는 폴더이거나 .gguf 파일입니다)"},
    {AppMsgId::kNotModelFolderOrGguf, "{0}: 모델 폴더(config.json 이 있는)도 .gguf 파일도 아닙니다"},
    {AppMsgId::kModelLayerOutOfRange, "{0}: {1} 은(는) 범위를 벗어났습니다: 허용 범위 0..{2} (모델의 층은 {3}개입니다)"},
    {AppMsgId::kModelHeadOutOfRange, "{0}: {1} 은(는) 범위를 벗어났습니다: 허용 범위 0..{2} (모델의 헤드는 {3}개입니다)"},
    {AppMsgId::kModelRequired, "--model DIR 이 필요합니다 (또는 함께 들어 있는 모델, --model tiny)"},
    {AppMsgId::kJsonNeedsRoles, "--json 은 --roles, --predict, --neuron, --ablate-scan, --token-loss 또는 --logit-lens 와 함께 씁니다 (출력을 JSON으로)"},
    {AppMsgId::kCrossNeedsSandbox, "크로스 항목 (쿼리 ||| 키/밸류)은 샌드박스에서만 씁니다: 모델은 문장 하나를 읽습니다"},
    {AppMsgId::kNoLayerGiven, "층이 하나도 없습니다"},
    {AppMsgId::kFigureNeedsLayerHead, "--figure 에는 --layer L 과 --head H 가 필요합니다 (그릴 층의 헤드)"},
    {AppMsgId::kOptionNeedsFigure, "{0} 은(는) --figure OUT.png|OUT.svg|OUT.pdf 와 함께 씁니다"},
    {AppMsgId::kFigureNoExtension, "{0}: 파일 확장자가 없습니다: 그림 파일의 확장자는 .png, .svg, .pdf 중 하나여야 합니다"},
    {AppMsgId::kFigureExtension, "{0}: 알 수 없는 그림 확장자 '{1}': 허용 .png .svg .pdf"},
    {AppMsgId::kAblateSpec, "--ablate: '{0}' 은(는) L:H 가 아닙니다 (층과 헤드, 0부터; 여러 개: 0:1,2:3)"},
    {AppMsgId::kNeuronSpec, "--neuron: '{0}' 은(는) L:H:I:J 가 아닙니다 (층, 헤드, 쿼리 토큰, 키 토큰; 각각 0부터)"},
    {AppMsgId::kOneOutputAtATime, "{0}, {1}: 둘 다 표준 출력에 씁니다. 하나만 지정하십시오"},
    {AppMsgId::kNeedsDump, "{0} 은(는) OUT/{1} 을(를) 씁니다: --dump OUT 을 지정하십시오"},
    {AppMsgId::kPredictNeedsMask, "이 마스크 언어 모델 (bert)은 [MASK] 토큰을 예측합니다: 문장에 [MASK] 를 넣으십시오"},
    {AppMsgId::kTitleTooLong, "{0}자는 제목으로 너무 깁니다: 최대 {1}자입니다 (제목은 그림을 가로지르는 한 줄입니다)"},
    {AppMsgId::kTemperatureNotFinite, "온도는 유한한 수여야 합니다"},
    {AppMsgId::kPrefixWhatIfLayers, "가정 실험 층: "},
    {AppMsgId::kGgufFileForSandbox, "{0}: GGUF 모델 파일입니다; attnviz-cli {1} 은(는) 모델이 아니라 샌드박스 층을 실행합니다: attnviz-cli model --model {0} 을(를) 실행하십시오"},
    {AppMsgId::kGgufFileNeedsOption, "뜻밖의 인자 '{0}': GGUF 모델 파일은 --model 옵션으로 줍니다: --model {0}"},
    {AppMsgId::kLayersNeedWhatIf, "--layers 는 가정 실험이 작용할 층을 고르는데, 가정 실험이 하나도 없습니다: --no-scale, --no-softcap, --temperature T, --no-qk-norm 중 하나를 더하거나 --layers 를 빼십시오 (--ablate L:H 는 제 층을 스스로 정합니다)"},
    {AppMsgId::kAblateModeNeedsAblate, "--ablate-mode 는 --ablate L:H,... 와 함께 씁니다 (출력을 바꿀 헤드)"},
    {AppMsgId::kTokenNotOne, "{0}: '{1}' 은(는) 어휘의 토큰 하나가 아닙니다 (토큰 {2}개로 나뉩니다). 토큰 하나의 글자나 id 0..{3} 을(를) 주십시오"},
    {AppMsgId::kAttributeSpec, "--attribute: '{0}' 은(는) POS 나 POS:TOKEN 이 아닙니다 (위치는 0부터, TOKEN 은 토큰의 글자나 id)"},
    {AppMsgId::kMetricSpec, "--metric: '{0}' 은(는) A,B 가 아닙니다 (토큰 둘, 각각 토큰의 글자나 id)"},
    {AppMsgId::kPatchNeedsMetric, "--patch-from 은 --metric A,B (재는 로짓 차이)와 함께 쓰고, --metric 은 --patch-from 과 함께 씁니다"},
    {AppMsgId::kWhatIfWithAttribution, "{0} 은(는) 모델을 그대로 실행합니다: 가정 실험(--ablate, --no-scale, --temperature 등)과 함께 쓸 수 없습니다"},
    {AppMsgId::kScanAtNeedsScan, "--scan-at 은 --ablate-scan 과 함께 씁니다 (헤드의 순위를 매기는 손실의 위치)"},
    {AppMsgId::kSeq2SeqNeedsTarget, "{0} 은(는) 인코더-디코더 모델입니다: 원문과 대상 텍스트를 읽습니다; 대상 텍스트를 --target-text TEXT 로 주거나 --generate N 으로 만드십시오"},
    {AppMsgId::kSeq2SeqTargetOrGenerate, "--target-text 와 --generate 는 함께 쓸 수 없습니다 (대상 텍스트는 주거나 만듭니다)"},
    {AppMsgId::kSeq2SeqAblateSpec, "--ablate: '{0}' 은(는) S:L:H 가 아닙니다 (스택 encoder, decoder, cross, 이어서 층과 헤드, 0부터; 여러 개: encoder:0:1,cross:1:0)"},
    {AppMsgId::kSeq2SeqOptionUnbuilt, "{0} 은(는) 인코더-디코더 모델에는 아직 없습니다; --tokens, --dump (--rollout, --value-norm 과 함께), --predict, --token-loss, --generate, --ablate S:L:H, --ablate-scan, --neuron, --logit-lens, --attribute, --patch-from 과 --metric, --figure 와 --stack 을 쓸 수 있습니다"},
    {AppMsgId::kSeq2SeqFigureNeedsStack, "인코더-디코더 모델의 --figure 에는 --stack encoder|decoder|cross, --layer L, --head H 가 필요합니다"},
    {AppMsgId::kSeq2SeqEmptySide, "{0} 에서 토큰이 나오지 않았습니다"},
    {AppMsgId::kSeq2SeqOnly, "{0} 은(는) 인코더-디코더 모델({2})에 씁니다; {1} 은(는) 그런 모델이 아닙니다"},
    {AppMsgId::kFigureRefusedBeforeRun, "토큰 {0}개의 --figure 는 실행 전에 거절됩니다 (맞는 설정: {1}): "},
    {AppMsgId::kFigureRefusedNothingFits, "토큰 {0}개의 --figure 는 실행 전에 거절됩니다: "},
    {AppMsgId::kPoolValue, "--pool: '{0}' 은(는) 풀링 배수가 아닙니다: 정수 1..65536 (칸 한 변의 토큰 수; 1: 풀링 없음) 또는 auto (그림이 맞는 가장 작은 배수)를 주십시오"},
    {AppMsgId::kPoolPastTokens, "--pool {0} 이(가) 텍스트의 토큰 {1}개보다 큽니다: 최대 {1}"},
    {AppMsgId::kPoolModeNeedsPool, "--pool-mode 는 --pool F|auto 와 함께 씁니다 (그 풀링의 방식)"},
    {AppMsgId::kDumpPastDisk, "--dump: 파일이 {0} 을(를) 차지하는데 {1} 에는 빈 공간이 {2} 있습니다 (실행 전에 확인): 이 토큰 {3}개 중 최대 {4}개가 들어갑니다. 아니면 공간이 더 있는 디스크의 폴더를 주십시오"},
    {AppMsgId::kSeq2SeqNeuronNeedsStack, "인코더-디코더 모델의 --neuron 에는 --stack encoder|decoder|cross 가 필요합니다 (층과 헤드가 속한 어텐션)"},
};
static_assert(std::size(kAppMessagesKo) == (size_t)((int)AppMsgId::kCount - (int)MsgId::kAppFirst),
              "messages_ko.cpp: one Korean template per AppMsgId");
// The kinds of file ReadFile's callers name (its `what`), in Korean: the noun in the read errors above.
constexpr const char* kFileKindsKo[][2] = {
    {"file", "파일"},           {"sentence file", "문장 파일"},   {"tokenizer file", "토크나이저 파일"},
    {".npy file", ".npy 파일"}, {"settings file", "설정 파일"},   {"font file", "글꼴 파일"},
};
// Which argument of a read error names the kind of file; -1 for every other message.
int FileKindArg(MsgId id) {
  if (id == MsgId::kNotRegularFileToRead) return 1;
  if (id == MsgId::kFileTooLargeFor || id == MsgId::kFileGrewWhileRead) return 2;
  return -1;
}
// In HeadRole order: the name and the sentence (English: core/model/roles.cpp).
constexpr const char* kRolesKo[model::kHeadRoleCount][2] = {
    {"이전 토큰", "각 토큰이 바로 앞 토큰을 봅니다. 그래서 다음 층은 한 칸 앞에 무엇이 있었는지 압니다."},
    {"인덕션", "지금 토큰이 전에도 나왔다면, 헤드는 그때 그 뒤에 왔던 토큰을 봅니다. 같은 이어짐이 다시 올 것을 "
             "예측하려는 것입니다 (A B ... A -> B)."},
    {"첫 토큰", "어텐션 대부분이 첫 토큰에 머뭅니다. 문장에서 읽을 만한 것이 없을 때 헤드가 쉬어 가는 곳(어텐션 "
                "싱크)입니다."},
    {"같은 토큰", "각 토큰이 주로 자기 자신(대각선)을 봅니다. 다른 것을 섞기보다 자기 정보를 지킵니다."},
    {"근처", "각 토큰이 가까이 있는 몇 토큰(2~5칸 떨어진)에 어텐션을 나눕니다. 짧은 구절을 모으는 것입니다."},
    {"넓은 분포", "어텐션이 많은 토큰에 고르게 퍼집니다(엔트로피가 높습니다). 토큰 하나를 고르기보다 문맥 전체를 "
             "평균합니다."},
};

// What the pipeline's progress reports (core/sandbox/pipeline.cpp Run) and the worker's phase in front of it
// (app/gui/worker.cpp), in Korean.
constexpr const char* kStagesKo[][2] = {
    {"embedding the tokens", "토큰 임베딩"}, {"projecting q, k, v", "q, k, v 투영"},
    {"attention maps", "어텐션 맵"},        {"values (z)", "밸류의 가중 평균 (z)"},
};
constexpr const char* kOtherScaling[2] = {"other scaling: ", "다른 스케일: "};

}  // namespace

std::string LocalizedRoleName(model::HeadRole role) {
  return CurrentLang() == Lang::kKo ? kRolesKo[(int)role][0] : model::RoleName(role);
}
std::string LocalizedRoleSentence(model::HeadRole role) {
  return CurrentLang() == Lang::kKo ? kRolesKo[(int)role][1] : model::RoleSentence(role);
}

namespace {
// Text without its spaces: "이전 토큰" and "이전토큰" name the same role.
std::string WithoutSpaces(std::string_view text) {
  std::string s;
  for (char c : text)
    if (!std::isspace((unsigned char)c)) s += c;
  return s;
}
// A role by the Korean words the UI shows for it: the name (the role line, the tooltip) or the short badge.
std::optional<model::HeadRole> KoreanRole(std::string_view text) {
  const std::string s = WithoutSpaces(text);
  for (model::HeadRole role : model::AllHeadRoles()) {
    const Str badge = (Str)((int)Str::kRoleShortPrev + (int)role);  // the badges are in HeadRole order
    if (s == WithoutSpaces(kRolesKo[(int)role][0]) || s == WithoutSpaces(Tr(badge, Lang::kKo))) return role;
  }
  return std::nullopt;
}
// "previous-token, induction, ..." (the list the role errors carry) and its Korean twin.
std::string RoleList(bool korean) {
  std::string s;
  for (model::HeadRole role : model::AllHeadRoles())
    s += (s.empty() ? "" : ", ") + std::string(korean ? kRolesKo[(int)role][0] : model::RoleName(role));
  return s;
}
}  // namespace

// The Korean names are read back here, not in core (core/model/roles.cpp knows English only).
Result<model::HeadRole> ParseLocalizedRoleName(std::string_view text) {
  if (std::optional<model::HeadRole> role = KoreanRole(text)) return *role;
  return model::ParseRoleName(text);
}
Result<model::RoleFilter> ParseLocalizedRoleFilter(std::string_view text) {
  return model::ParseRoleFilter(text, ParseLocalizedRoleName);  // its errors quote the Korean as typed
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
  for (const AppMessageEntry& e : kAppMessagesKo) out.push_back(e.text);
  for (const auto& role : kRolesKo) out.insert(out.end(), {role[0], role[1]});
  for (const auto& stage : kStagesKo) out.push_back(stage[1]);
  for (const auto& kind : kFileKindsKo) out.push_back(kind[1]);
  return out;
}

std::vector<std::string> ProgressStagesForTests() {
  std::vector<std::string> out;
  for (const auto& pair : kStagesKo) out.push_back(pair[0]);
  return out;
}

const char* MessageTemplate(MsgId id, Lang lang) {
  if (lang == Lang::kEn) return id == MsgId::kNone ? nullptr : AnyEnglishTemplate(id);
  if (IsAppMsgId(id)) {
    for (const AppMessageEntry& e : kAppMessagesKo)
      if (ToMsgId(e.id) == id) return e.text;
    return nullptr;
  }
  for (const MessageEntry& e : kMessagesKo)
    if (e.id == id) return e.text;
  return nullptr;
}

std::vector<std::string> MessageArgs(const MessagePart& part, Lang lang) {
  std::vector<std::string> args = part.args;
  // The width refusal names the features q and k come from (ToString: "length"): in Korean, the UI's words for
  // them, so no English sits inside the Korean sentence.
  if (lang == Lang::kKo && part.id == MsgId::kWidthMismatch)
    for (int i : {0, 3})
      if (i < (int)args.size())
        for (FeatureSource source : kFeatureSources)
          if (args[(size_t)i] == ToString(source))
            args[(size_t)i] = Tr((Str)((int)Str::kFeatureEmbedding + (int)source), Lang::kKo);
  // The allowed roles the role errors list: the Korean names, which the filter reads too.
  if (lang == Lang::kKo) {
    const int list = part.id == MsgId::kUnknownRole ? 1
                     : part.id == MsgId::kRoleFilterSyntax || part.id == MsgId::kRoleFilterSyntaxParens ? 0 : -1;
    if (list >= 0 && list < (int)args.size() && args[(size_t)list] == RoleList(false)) args[(size_t)list] = RoleList(true);
  }
  const int kind = FileKindArg(part.id);
  if (lang == Lang::kEn || kind < 0 || kind >= (int)args.size()) return args;
  for (const auto& [en, ko] : kFileKindsKo)
    if (args[kind] == en) args[kind] = ko;
  return args;
}

}  // namespace attnviz
