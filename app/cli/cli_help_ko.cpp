// attnviz-cli's help in Korean (the English texts stay next to their commands). Under --lang ko a help with
// a Korean text here is shown in Korean; the others (sweep, export, model) are shown in English.
#include "cli_help_ko.h"

#include "ui_strings.h"

namespace attnviz {

namespace {

const char* kUsageKo =
    "사용법: attnviz-cli 명령 [옵션]\n"
    "명령:\n"
    "  compute   어텐션 층 하나를 계산하고 모양과 포화를 출력합니다; --dump DIR 는 모든 텐서를 씁니다\n"
    "  sweep     d_k (1..4096)에 따른 포화 표, 스케일 적용과 없음, CSV로 (--plot 도)\n"
    "  export    히트맵 그림 (PNG, SVG)과 데이터 (CSV, NPY, JSON)\n"
    "  model     학습된 모델의 어텐션 (GPT-2, BERT, Llama 계열): 토큰, 층별 맵, --dump\n"
    "'attnviz-cli 명령 --help' 는 명령의 옵션을 보여 줍니다; 문장 파일은 그냥 인자로 줄 수도 있습니다\n"
    "('attnviz-cli compute FILE' 은 'attnviz-cli compute --text-file FILE' 과 같습니다).\n"
    "  --print-paths   예문과 내장 모델을 어디서 읽는지 출력합니다\n"
    "  --version       버전을 출력합니다\n"
    "  --lang en|ko    메시지와 그림 제목의 언어 (기본: LC_ALL, LC_MESSAGES 또는 LANG 이 ko 로 시작하면 ko)\n";

const char* kComputeHelpKo =
    "사용법: attnviz-cli compute (--text 문장 | --text-file FILE [--line N]) [옵션] [--dump DIR]\n"
    "멀티헤드 어텐션 층 하나를 계산하고 헤드마다 모양과 포화 수치를 출력합니다.\n"
    "  --dump DIR             tokens.json, x.npy, xq.npy, q.npy, k.npy, v.npy, logits.npy,\n"
    "                         probs.npy (softmax 출력; weights.npy 가 이것을 가리킵니다), z.npy, out.npy\n"
    "                         (float32, PyTorch 순서)와 metrics.json 을 씁니다. 긴 입력 (맵 칸이 2^24 보다 많음)은\n"
    "                         전체 맵을 두지 않습니다: logits.npy 와 probs.npy 는 행 묶음씩 흘려 씁니다\n";

const char* kInputOptionsHelpKo =
    "문장 (하나만):\n"
    "  --text TEXT            문장 (키와 값; 셀프 방식에서는 쿼리도)\n"
    "  --text-file FILE       문장 파일 (한 줄에 항목 하나; 크로스는 쿼리 ||| 키/값)\n"
    "  FILE                   --text-file FILE 과 같습니다\n"
    "  --samples              attnviz 에 딸린 예문 (--print-paths 참고)\n"
    "  --line N               --text-file 의 N번째 줄 항목 (기본: 첫 항목)\n"
    "  --query-text TEXT      크로스 방식: 쿼리는 TEXT 에서, 키와 값은 --text 에서\n"
    "어텐션 설정:\n"
    "  --d-model N            임베딩 폭, 1..4096 (기본 64)\n"
    "  --heads N              헤드 수, 1..64 (기본 4)\n"
    "  --dk N                 헤드마다 쿼리/키의 폭, 1..4096 (기본 d_model/헤드 수)\n"
    "  --dv N                 헤드마다 값의 폭, 1..4096 (기본 d_k)\n"
    "  --no-scale             로짓을 sqrt(d_k)로 나누지 않습니다\n"
    "  --temperature T        로짓을 T로 나눕니다, 1e-06..1e+06 (기본 1)\n"
    "  --mask none|causal     causal: 쿼리 i는 키 0..i만 봅니다 (셀프 방식만)\n"
    "  --seed N               임베딩과 가중치 초기화 (기본 0)\n"
    "  --no-positional        사인 위치 인코딩을 쓰지 않습니다\n"
    "  --qkv fused|separate   [d_model, n_head*(2*d_k+d_v)] 행렬 하나 또는 셋 (기본 fused)\n"
    "  --query-from F         쿼리가 어디서 오는지: embedding (투영, 기본), length (글자 수, 폭 1),\n"
    "                         position (순서, 폭 1), onehot (토큰 정체, 폭 n_vocab);\n"
    "                         원시 특징은 투영을 건너뜁니다. 점수를 내려면 d_q = d_k 여야 합니다\n"
    "  --key-from F           키가 어디서 오는지 (같은 선택지)\n"
    "  --value-from F         값이 어디서 오는지 (같은 선택지; d_v 는 달라도 됩니다)\n"
    "  --score S              scaled-dot (기본), dot, additive (v^T tanh(W_q q + W_k k)), cosine,\n"
    "                         neg-distance (-|q - k|)\n"
    "  --weights DIR          wq.npy wk.npy wv.npy wo.npy 를 읽습니다 (float32/float64, C 순서)\n"
    "  MODEL_DIR              모델 폴더 (config.json 이 있는)\n";

}  // namespace

const char* HelpText(Help help, const char* english) {
  if (CurrentLang() != Lang::kKo) return english;
  switch (help) {
    case Help::kUsage: return kUsageKo;
    case Help::kCompute: return kComputeHelpKo;
    case Help::kInputOptions: return kInputOptionsHelpKo;
  }
  return english;
}

}  // namespace attnviz
