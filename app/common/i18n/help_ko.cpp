// attnviz-cli's and attnviz's help in Korean (the English texts stay next to their commands and options). Under
// --lang ko a help with a Korean text here is shown in Korean.
#include "i18n/help_ko.h"

#include <utility>

#include "i18n/ui_strings.h"
#include "model/arch/family.h"
#include "session/map_kind.h"

namespace attnviz {

namespace {

const char* kUsageKo =
    "사용법: attnviz-cli 명령 [옵션]\n"
    "명령:\n"
    "  compute   어텐션 층 하나를 계산하고 모양과 포화를 출력합니다; --dump DIR 는 모든 텐서를 씁니다\n"
    "  sweep     d_k (1..4096)에 따른 포화 표, 스케일 적용과 없음, CSV로 (--plot 도)\n"
    "  export    히트맵 그림 (PNG, SVG)과 데이터 (CSV, NPY, JSON)\n"
    "  model     학습된 모델의 어텐션 (GPT-2, BERT, Llama 계열): 토큰, 층별 맵, --dump, --figure\n"
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
    "                         (float32, PyTorch 순서)와 metrics.json 을 씁니다. 긴 입력 (맵 칸이 2^24개보다 많을 때)은\n"
    "                         전체 맵을 두지 않습니다: logits.npy 와 probs.npy 는 행 묶음씩 흘려 씁니다\n";

const char* kSweepHelpKo =
    "사용법: attnviz-cli sweep (--text 문장 | --text-file FILE [--line N] | --random-tokens N) [옵션]\n"
    "d_k = 1, 2, 4 ... 4096 에서 층을 스케일 적용과 없음으로 계산해 시드에 걸쳐 평균하고, 평균 최대 가중치,\n"
    "엔트로피, 정규화 엔트로피, 유효 키 수, softmax 기울기 크기, 로짓 표준편차를 씁니다.\n"
    "  --out FILE.csv         표를 그 파일에 씁니다 (기본: 화면에 출력)\n"
    "  --plot FILE.png|.svg|.pdf  포화 그림을 그립니다\n"
    "  --seeds N              점마다 평균할 시드 수, 1..64 (기본 2, 쿼리 행이 1024 보다 많으면 1:\n"
    "                         앱의 sweep, StandardSweepOptions)\n"
    "  --dks LIST             쉼표로 나눈 d_k 값들, 각각 1..4096 (기본 1,2,4,...,4096)\n"
    "  --random-tokens N      문장 대신 서로 다른 합성 토큰 N개, 1..8192\n"
    "  --dk N                 그림에서 그 d_k 를 표시합니다 (앱이 지금의 d_k 를 표시하듯이)\n"
    "  (sweep 은 d_k 와 d_v 를 스스로 정하고 시드마다 헤드 2개를 계산합니다)\n";

const char* kExportHelpKo =
    "사용법: attnviz-cli export (--text 문장 | --text-file FILE [--line N]) [옵션] --out FILE\n"
    "어텐션 층 하나를 계산하고 헤드의 어텐션 맵을 그림이나 데이터로 씁니다.\n"
    "내보내기:\n"
    "  --out FILE             출력 파일; 형식은 확장자에서 정합니다:\n"
    "                         .png .svg .pdf (그림), .csv .npy .json (가중치)\n"
    "  --format F             png|svg|pdf|csv|npy|json, 확장자보다 우선합니다\n"
    "  --head N               내보낼 헤드, 0부터 (기본 0)\n"
    "  --heads all|LIST       모든 헤드, 또는 범위를 쓴 목록 (0,2,5  0-3,7): 색 막대 하나를 함께 쓰는 맵 격자\n"
    "                         (그림), [heads, n_q, n_k] (npy), 블록 (csv, json)\n"
    "                         (--heads N 처럼 수 하나면 여전히 헤드 수를 정합니다)\n"
    "  --colormap NAME        viridis|magma|cividis|gray|blue-white-red (기본 viridis)\n"
    "  --color-scale S        linear|log (log: 바닥 1e-4 의 log10, 그래서 0은 맨 아래 색)\n"
    "  --range fixed|auto     fixed: 가중치 0..1 (기본); auto: 보이는 헤드의 최소..최대\n"
    "  --cell-size PX         칸 하나의 픽셀, 1..400 (기본: 맵 하나에 약 440 px)\n"
    "  --width PX             --cell-size 대신 그림 너비 (픽셀)\n"
    "  --size WxH             단위를 붙인 그림 크기: 3.3x3in, 8.4x7.6cm (각각 0.5..40 in);\n"
    "                         그림은 --dpi 에서 정확히 그 인치가 됩니다\n"
    "  --dpi N                인치당 픽셀, 10..2400 (기본 96): 글자 크기는 포인트 (라벨 9 pt)라서\n"
    "                         같은 크기로 인쇄됩니다; PNG 에 기록됩니다 (pHYs)\n"
    "  --annotate             칸이 충분히 크면 칸마다 가중치를 적습니다 (마스크된 칸은 비워 둡니다)\n"
    "  --title TEXT           그림 제목 (기본 예: '헤드 2 · d_k=512 · 스케일 없음 · T=1 · 인과':\n"
    "                         마스크와 기본값이 아닌 모든 설정)\n";

const char* kInputOptionsHelpKo =
    "문장 (하나만):\n"
    "  --text TEXT            문장 (키와 밸류; 셀프 방식에서는 쿼리도)\n"
    "  --text-file FILE       문장 파일 (한 줄에 항목 하나; 크로스는 쿼리 ||| 키/밸류)\n"
    "  FILE                   --text-file FILE 과 같습니다\n"
    "  --samples              attnviz 에 딸린 예문 (--print-paths 참고)\n"
    "  --line N               --text-file 의 N번째 줄 항목 (기본: 첫 항목)\n"
    "  --query-text TEXT      크로스 방식: 쿼리는 TEXT 에서, 키와 밸류는 --text 에서\n"
    "어텐션 설정:\n"
    "  --d-model N            임베딩 차원, 1..4096 (기본 64)\n"
    "  --heads N              헤드 수, 1..64 (기본 4)\n"
    "  --dk N                 헤드마다 쿼리/키의 차원, 1..4096 (기본 d_model/헤드 수)\n"
    "  --dv N                 헤드마다 밸류의 차원, 1..4096 (기본 d_k)\n"
    "  --no-scale             로짓을 sqrt(d_k)로 나누지 않습니다\n"
    "  --temperature T        로짓을 T로 나눕니다, 1e-06..1e+06 (기본 1)\n"
    "  --qk-norm              점수를 내기 전에 q와 k를 d_k에 걸친 RMS로 나눕니다 (Qwen3, OLMo 2, Gemma 3)\n"
    "  --softcap C            로짓을 C \xC2\xB7 tanh(로짓 / C)로 제한합니다 (Gemma 2), 0..10000 (기본 0: 없음)\n"
    "  --mask none|causal     causal: 쿼리 i는 키 0..i만 봅니다 (셀프 방식만)\n"
    "  --seed N               임베딩과 가중치 초기화 (기본 0)\n"
    "  --no-positional        사인 위치 인코딩을 쓰지 않습니다\n"
    "  --qkv fused|separate   [d_model, n_head*(2*d_k+d_v)] 행렬 하나 또는 셋 (기본 fused)\n"
    "  --query-from F         쿼리가 어디서 오는지: embedding (투영, 기본), length (글자 수, 1차원),\n"
    "                         position (순서, 1차원), onehot (토큰 정체, n_vocab차원);\n"
    "                         원시 특징은 투영을 건너뜁니다. 점수를 내려면 d_q = d_k여야 합니다\n"
    "  --key-from F           키가 어디서 오는지 (같은 선택지)\n"
    "  --value-from F         밸류가 어디서 오는지 (같은 선택지; d_v 는 달라도 됩니다)\n"
    "  --score S              scaled-dot (기본), dot, additive (v^T tanh(W_q q + W_k k)), cosine,\n"
    "                         neg-distance (-|q - k|)\n"
    "  --weights DIR          wq.npy wk.npy wv.npy wo.npy 를 읽습니다 (float32/float64, C 순서)\n"
    "  MODEL_DIR              모델 폴더 (config.json 이 있는) 또는 .gguf 파일\n";

const char* kModelHelpKo =
    "사용법: attnviz-cli model --model DIR|FILE.gguf|tiny (--text 문장 | --text-file FILE [--line N]) [옵션]\n"
    "학습된 모델 (Hugging Face 폴더: config.json, model.safetensors, 토크나이저 파일; 또는 토크나이저가 든\n"
    ".gguf 파일)을 문장에 돌리고, 층마다 각 헤드의 평균 최대 어텐션과 엔트로피를 출력합니다.\n"
    "인코더-디코더 폴더 ({seq2seq_types})는 옵션이 따로 있습니다: attnviz-cli model --model DIR\n"
    "--help 가 보여 줍니다.\n"
    "  --model DIR|FILE.gguf|tiny\n"
    "                         모델 폴더 ({model_types}), 또는 .gguf 파일\n"
    "                         ({gguf_types}; F32, F16, BF16 또는 양자화); tiny = 함께 들어 있는 모델\n"
    "  --text TEXT            문장\n"
    "  --text-file FILE       문장 파일; --line N 은 N번째 줄의 항목을 고릅니다 (기본: 첫 항목)\n"
    "  --tokens               {\"ids\": [...], \"tokens\": [...]} 를 JSON으로 출력하고 끝냅니다\n"
    "  --roles                요약 대신 모든 헤드의 역할 점수를 CSV로 출력합니다: layer, head,\n"
    "                         previous_token, induction, first_token, same_token, local, broad (각각 0..1),\n"
    "                         strongest, strongest_score\n"
    "  --json                 --roles 와 함께: 표를 JSON으로, 역할마다 한 문장 뜻풀이를 붙여;\n"
    "                         --predict, --neuron, --ablate-scan, --token-loss, --logit-lens 와 함께:\n"
    "                         그 출력을 JSON으로\n"
    "  --dump OUT             OUT/tokens.json, OUT/attention.npy [n_layer, n_head, n, n] (softmax 확률),\n"
    "                         OUT/hidden.npy [n_layer + 1, n, d_model] (임베딩 뒤와 각 블록 뒤의 잔차 스트림,\n"
    "                         마지막 정규화 전)와 OUT/roles.csv (--roles 표)를 씁니다\n"
    "  --no-scale             가정 실험: 1/sqrt(d_head) 스케일을 뺍니다\n"
    "  --no-softcap           가정 실험: 어텐션 로짓의 소프트 캡을 뺍니다 (gemma2; 마지막 로짓 캡은 남깁니다)\n"
    "  --temperature T        가정 실험: 로짓을 T로 나눕니다 (1e-06..1e+06)\n"
    "  --no-qk-norm           가정 실험: q/k 정규화를 건너뜁니다 (q/k 정규화가 있는 모델: {qk_norm_types})\n"
    "  --layers L1,L2,...     가정 실험을 적용할 층 (기본: 모두)\n"
    "  --ablate L:H,...       가정 실험: 층 L 의 헤드 H 의 출력을 0으로 (출력 투영 전; 그 편향은 남깁니다);\n"
    "                         뒤의 모든 층, 맵과 예측이 따라 바뀝니다\n"
    "  --ablate-mode zero|mean\n"
    "                         --ablate 와 함께: zero (기본)는 헤드의 출력을 0으로; mean 은 모든 위치에서\n"
    "                         문장의 위치들에 대한 그 평균으로 바꿉니다\n"
    "  --predict K            위치마다 다음 토큰 상위 K개 (bert: [MASK] 마다)와 문장의 평균 다음 토큰\n"
    "                         손실 (nats), 퍼플렉서티를 출력합니다; --json: JSON으로\n"
    "  --token-loss           위치마다 실제 다음 토큰의 손실 (nats)과 확률을 출력합니다 (다음 토큰을\n"
    "                         예측하는 모델; 가정 실험 아래에서는 그 실험의 손실)\n"
    "  --logit-lens K         로짓 렌즈: 층마다 (0: 임베딩; 마지막: 모델 자신의 예측) 마지막 정규화와 LM\n"
    "                         헤드를 적용해 위치마다 상위 K개 토큰 (1..어휘 크기)과 실제 다음 토큰의 확률을\n"
    "                         출력합니다 (bert: 모든 위치에서 마스크 언어 모델 헤드로,\n"
    "                         다음 토큰 없이)\n"
    "  --attribute POS[:TOKEN]\n"
    "                         직접 로짓 기여도: 위치 POS (0부터)에서 임베딩, 헤드 각각, 어텐션 편향, 다층\n"
    "                         퍼셉트론 각각, 마지막 정규화의 편향이 TOKEN (토큰의 글자나 id; 기본값: 다음 토큰, 마지막\n"
    "                         위치에서는 가장 높은 예측)의 로짓에 더하는 몫을 출력합니다. 마지막 정규화는 전체\n"
    "                         스트림에서 고정합니다. gemma2: 마지막 소프트 캡 전의 로짓. 정규화가 하위 층\n"
    "                         앞에 있는 모델만;\n"
    "                         --json: JSON으로\n"
    "  --patch-from CLEAN     활성값 패칭: 주어진 텍스트가 오염된 실행, CLEAN이 깨끗한 실행입니다 (토큰 수가\n"
    "                         같아야 합니다). 헤드 출력 각각과 층마다 위치마다의 잔차 스트림을 깨끗한 실행의\n"
    "                         값으로 바꿔 --metric의 (패칭 - 오염) / (깨끗 - 오염) 비율을 출력합니다;\n"
    "                         --json: JSON으로\n"
    "  --metric A,B           --patch-from과 함께: 마지막 위치에서 A의 로짓 - B의 로짓 (토큰의 글자나 id)\n"
    "  --ablate-scan          헤드를 하나씩 제거해 보고 남는 손실을 CSV로 출력합니다: layer, head, loss,\n"
    "                         delta (원래 손실과의 차이); --json: JSON으로\n"
    "  --scan-at POS,...      --ablate-scan과 함께: 텍스트 전체의 평균이 아니라 이 위치들의 손실만 봅니다\n"
    "                         (위치 i는 토큰 i + 1을 예측합니다; 0..n-2)\n"
    "  --neuron L:H:I:J       층 L 헤드 H 에서 쿼리 토큰 I 가 키 토큰 J 를 만나는 방식: q, k (RoPE 모델은\n"
    "                         회전 전도, q/k 정규화 모델은 정규화 전도), 차원마다 q*k, 점수, 스케일, 로짓,\n"
    "                         확률; --json: JSON으로\n"
    "  --kind K[,K...]        --dump 와 함께: 이 종류의 맵도 ({map_kinds}) 각각 .npy 로 씁니다:\n"
    "                         rollout -> OUT/rollout.npy, value_weighted -> OUT/value_norm.npy (아래와 같습니다)\n"
    "  --rollout              --dump 와 함께: OUT/rollout.npy [n_layer, n, n], 어텐션 롤아웃 (헤드 평균에\n"
    "                         항등 행렬을 더해 층을 거치며 곱한 것); 토큰이 1024개를 넘으면 토큰 f개씩 묶어\n"
    "                         [n_layer, nb, nb] 로 풀링합니다 (f 와 nb 는 OUT/rollout.json 에 씁니다)\n"
    "  --value-norm           --dump 와 함께: OUT/value_norm.npy [n_layer, n_head, n, n], 각 가중치 곱하기\n"
    "                         키의 밸류가 더하는 크기 (||v_j W_o^h||)\n"
    "  --figure OUT           헤드 하나의 히트맵을 OUT.png, OUT.svg 또는 OUT.pdf 로 씁니다 (앱의 내보내기와 같은 그림);\n"
    "                         제목에 모델, 층, 헤드, 마스크 (인과, 슬라이딩 윈도가 있는 인과, 양방향)와\n"
    "                         가정 실험이 들어갑니다\n"
    "  --layer L, --head H    --figure 와 함께 (둘 다 필요): 그릴 층과 헤드, 0부터; 그림만 쓸 때는\n"
    "                         (--dump, --roles, 표 없이) 층 L 까지만 실행합니다 (요약은 층 0..L)\n"
    "  --pool F|auto          --figure 와 함께: 토큰 F x F 를 한 칸으로 그립니다 (긴 텍스트를 논문의 단 하나에:\n"
    "                         토큰 8000개는 --pool 8 에서 한 변 1000칸); auto: 그림의 크기에 맞는 가장 작은 F;\n"
    "                         제목에 \"8x8 최대 풀링\" 이 들어갑니다\n"
    "  --pool-mode max|mean   --pool 과 함께: 칸은 블록의 가장 큰 가중치 (max, 기본: 하나뿐인 뾰족한 값도\n"
    "                         보입니다) 또는 평균 (가려진 칸은 0 으로)\n"
    "  --size WxH, --dpi N, --title TEXT, --colormap NAME, --color-scale S, --range fixed|auto,\n"
    "  --cell-size PX, --width PX, --annotate\n"
    "                         --figure 와 함께: attnviz-cli export --help 와 같습니다\n";

const char* kAppHeadKo =
    "사용법: attnviz [옵션] [FILE] [MODEL_DIR]\n"
    "문장과 어텐션 설정 (attnviz-cli 와 같습니다):\n";

const char* kAppOptionsKo =
    "\n앱 옵션:\n"
    "  --model DIR|FILE.gguf|tiny\n"
    "                        학습된 모델 폴더 (config.json, model.safetensors, 토크나이저 파일) 또는 .gguf\n"
    "                        파일 ({gguf_types})을 엽니다; tiny: 내장 모델\n"
    "  --shader-dir DIR      heatmap.vert 와 heatmap.frag 가 있는 곳 (기본: 실행 파일 옆의\n"
    "                        <설치 경로>/share/attnviz/shaders, 또는 빌드 폴더에서 소스 트리의 것; --print-paths)\n"
    "  --screenshot FILE     --frames 프레임 뒤 창을 PNG (또는 .ppm)로 저장하고 끝냅니다\n"
    "  --frames N            N 프레임 뒤 끝냅니다 (첫 결과가 화면에 나온 때부터 셉니다)\n"
    "  --widgets-json FILE   이름 붙은 위젯의 사각형과 값을 프레임마다 그 파일에 씁니다 (테스트용)\n"
    "  --snapshot-path FILE  SIGUSR1 을 받으면 그 파일에 화면을 저장합니다 (PNG 또는 .ppm)\n"
    "  --bench-frames N      프레임 시간 벤치마크 (단계마다 N 프레임), 표를 출력하고 끝냅니다\n"
    "  --no-settings         설정을 되살리지도 저장하지도 않습니다\n"
    "  --lang en|ko          화면 언어 (기본: 저장된 선택, 없으면 LC_ALL, LC_MESSAGES 또는 LANG 이 ko 로\n"
    "                        시작할 때 ko)\n"
    "  --lesson a..g         그 수업으로 엽니다: 설정을 맞추고, 근거가 되는 탭을 보이고, 수업 설명을 옆에 둡니다\n"
    "  --print-paths         셰이더, 예문, 내장 모델을 어디서 읽는지 출력하고 끝냅니다\n"
    "  --version             버전을 출력하고 끝냅니다\n"
    "키: 왼쪽/오른쪽 화살표는 헤드를 넘기고, S 는 sqrt(d_k) 스케일을 켜고 끄며, Ctrl+Q 는 끝냅니다.\n";

const char* kSeq2SeqHelpKo =
    "사용법: attnviz-cli model --model DIR --text SOURCE (--target-text TARGET | --generate N) [옵션]\n"
    "인코더-디코더 모델({seq2seq_types}의 Hugging Face 폴더)을 원문과 그 대상 텍스트로 실행하고,\n"
    "스택과 층마다 각 헤드의 평균 최대 어텐션을 출력합니다. 디코더는 디코더 시작 토큰을 읽고, 이어서 대상 텍스트의\n"
    "토큰을 문장 끝 토큰 없이 읽습니다 (레이블: 문장 끝 토큰까지 포함한 대상 텍스트의 토큰).\n"
    "  --model DIR|tiny-seq2seq\n"
    "                         모델 폴더; tiny-seq2seq = 함께 설치된 모델 (영어나 한국어로 쓴 날짜를 ISO 8601로\n"
    "                         씁니다: --text \"2026년 12월 1일\" --generate 12)\n"
    "  --text SOURCE          원문 (인코더의 텍스트); --text-file FILE [--line N]: 문장 파일에서\n"
    "  --target-text TARGET   대상 텍스트 (디코더의 텍스트), 디코더의 토크나이저가 나누는 대로\n"
    "  --generate N           탐욕적 디코딩으로 만든 대상 텍스트, 새 토큰 최대 N개 (문장 끝에서 멈춤);\n"
    "                         텍스트로, --json 이면 {\"ids\", \"text\"} 로 출력합니다\n"
    "  --tokens               {\"source\": {\"ids\", \"tokens\"}, \"target\": {\"ids\", \"tokens\"}} 를 출력하고 끝냅니다\n"
    "                         (대상은 디코더가 읽는 대로, 디코더 시작 토큰부터)\n"
    "  --dump OUT             OUT/tokens.json, encoder_attention.npy [n_enc_layer, n_head, n_src, n_src],\n"
    "                         decoder_attention.npy [n_dec_layer, n_head, n_tgt, n_tgt], cross_attention.npy\n"
    "                         [n_dec_layer, n_head, n_tgt, n_src], encoder_hidden.npy [n_enc_layer + 1, n_src,\n"
    "                         d_model], decoder_hidden.npy [n_dec_layer + 1, n_tgt, d_model] (마지막 정규화 전)을 씁니다\n"
    "  --rollout              --dump 와 함께: OUT/encoder_rollout.npy [n_enc_layer, n_src, n_src] 와\n"
    "                         OUT/decoder_rollout.npy [n_dec_layer, n_tgt, n_tgt], 어텐션 롤아웃 (헤드 평균에 항등\n"
    "                         행렬을 더해 층을 거치며 곱한 것); 교차 어텐션은 행과 열이 다른 토큰이라 없습니다\n"
    "  --value-norm           --dump 와 함께: OUT/encoder_value_norm.npy, decoder_value_norm.npy,\n"
    "                         cross_value_norm.npy (어텐션 파일과 같은 모양), 각 가중치 곱하기 키의 밸류가 더하는\n"
    "                         크기 (||v_j W_o^h||; 교차: 인코더 출력의 v)\n"
    "  --neuron L:H:I:J       --stack S 와 함께: 스택 S 의 층 L 헤드 H 에서 쿼리 토큰 I 가 키 토큰 J 를 만나는\n"
    "                         방식 (교차: I 는 대상 토큰, J 는 원문 토큰): q, k, 차원마다 q*k, 점수, 스케일,\n"
    "                         위치 편향 (t5), 로짓, 확률; --json: JSON으로\n"
    "  --ablate-scan          스택마다 헤드를 하나씩 제거해 보고 남는 레이블의 손실을 CSV로 출력합니다: stack,\n"
    "                         layer, head, loss, delta (대상 텍스트 원래 손실과의 차이); --json: JSON으로\n"
    "  --scan-at POS,...      --ablate-scan 과 함께: 대상 전체의 평균이 아니라 이 디코더 위치들의 손실만 봅니다\n"
    "                         (위치 i 는 레이블 i 를 예측합니다; 0..n_tgt-1)\n"
    "  --predict K            디코더의 위치마다 상위 K개 토큰과 레이블의 평균 손실 (nats); --json: JSON으로\n"
    "  --token-loss           레이블마다 손실 (nats)과 확률, 디코더의 위치 순서로\n"
    "  --logit-lens K         디코더의 로짓 렌즈: 층마다 (0: 임베딩; 마지막: 모델 자신의 예측) 디코더 스트림에\n"
    "                         마지막 정규화와 LM 헤드를 적용해 디코더의 위치마다 상위 K개 토큰과 레이블의 확률을\n"
    "                         출력합니다\n"
    "  --attribute POS[:TOKEN]\n"
    "                         직접 로짓 기여도: 디코더 위치 POS 에서 임베딩, 디코더 셀프 어텐션과 교차 어텐션의\n"
    "                         헤드 각각, 출력 편향, 다층 퍼셉트론 각각, 마지막 정규화의 편향이 TOKEN (기본값: 그\n"
    "                         위치의 레이블)의 로짓에 더하는 몫; 정규화가 하위 층 앞에 있는 모델만\n"
    "  --patch-from CLEAN     활성값 패칭: --text 가 오염된 원문, CLEAN이 깨끗한 원문입니다 (토큰 수가 같아야\n"
    "                         합니다), 대상 텍스트는 같습니다. 스택마다 헤드 각각과 두 스트림의 위치 각각을\n"
    "                         깨끗한 실행의 값으로 바꿔 --metric의 (패칭 - 오염) / (깨끗 - 오염) 비율을 출력합니다\n"
    "  --metric A,B           --patch-from과 함께: 마지막 디코더 위치에서 A의 로짓 - B의 로짓 (대상 토큰의\n"
    "                         글자나 id)\n"
    "  --json                 --predict, --token-loss, --generate, --neuron, --ablate-scan, --logit-lens,\n"
    "                         --attribute, --patch-from 과 함께: JSON으로\n"
    "  --ablate S:L:H,...     가정 실험: 스택 S (encoder, decoder, cross)의 층 L 헤드 H 의 출력을 출력 투영 전에\n"
    "                         0으로 만듭니다; 뒤의 모든 층과 예측이 따라 바뀝니다\n"
    "  --ablate-mode zero|mean\n"
    "                         --ablate 나 --ablate-scan 과 함께: zero (기본) 또는 위치들에 대한 그 헤드의 평균\n"
    "  --figure OUT           헤드 하나의 맵을 OUT.png, OUT.svg, OUT.pdf 로 씁니다; 제목이 스택을 말합니다\n"
    "  --stack S, --layer L, --head H\n"
    "                         --figure 와 함께 (모두 필요): encoder, decoder, cross; 층과 헤드, 0부터;\n"
    "                         --stack 은 --neuron 과도 함께\n"
    "  --size WxH, --dpi N, --title TEXT, --colormap NAME, --color-scale S, --range fixed|auto,\n"
    "  --cell-size PX, --width PX, --annotate\n"
    "                         --figure 와 함께: attnviz-cli export --help 와 같습니다\n"
    "  --pool F|auto, --pool-mode max|mean\n"
    "                         --figure 와 함께: 토큰 F x F 를 한 칸으로, attnviz-cli model --help 와 같습니다\n"
    "                         (긴 원문을 논문의 단 하나에); auto: 그림의 크기에 맞는 가장 작은 F\n";

}  // namespace

const char* HelpText(Help help, const char* english) {
  if (CurrentLang() != Lang::kKo) return english;
  switch (help) {
    case Help::kUsage: return kUsageKo;
    case Help::kCompute: return kComputeHelpKo;
    case Help::kInputOptions: return kInputOptionsHelpKo;
    case Help::kSweep: return kSweepHelpKo;
    case Help::kExport: return kExportHelpKo;
    case Help::kModel: return kModelHelpKo;
    case Help::kSeq2Seq: return kSeq2SeqHelpKo;
    case Help::kAppHead: return kAppHeadKo;
    case Help::kAppOptions: return kAppOptionsKo;
  }
  return english;
}

std::string WithModelTypes(std::string text) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{model_types}", model::SupportedModelTypes()},
                                   {"{gguf_types}", model::SupportedModelTypes(/*gguf=*/true)},
                                   {"{qk_norm_types}", model::QkNormModelTypes()},
                                   {"{seq2seq_types}", model::SupportedSeq2SeqModelTypes()},
                                   {"{map_kinds}", MapKindNames()}})
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

}  // namespace attnviz
