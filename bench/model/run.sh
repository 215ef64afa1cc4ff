#!/usr/bin/env bash
# The trained-model part of `make bench` (called by bench/run.sh; alone: bash bench/model/run.sh [BUILD_DIR]).
# attnviz's forward pass (every layer's maps and hidden states kept) against PyTorch 1.13 running the HF-mirror
# modules (tests/fixtures/models/make_model_fixtures.py) on the same random checkpoint in the same run:
#   GPT-2 small (124M parameters) on 1024 tokens; a SmolLM2-135M-shaped llama (GQA 9:3, 30 layers) on 2048 tokens.
# Peak RSS of each process (getrusage) against weights + maps + 300 MB, and the time from opening the folder to
# the overview on screen in the app (bench/model/open_to_overview.sh, under Xvfb).
# MODEL_REPS timed runs after one warm-up (default 1); MODEL_CASES="gpt2 smollm2" to pick.
# Two more cases, not run by default (each pair takes minutes: a forward is 20-60 s a side at these widths):
# MODEL_CASES="qwen3 gemma2": a Qwen3-0.6B-shaped model (28 layers, GQA 16:8 of 128, q/k norms) and a Gemma-2-2B-shaped
# one cut to 6 layers (GQA 8:4 of 256, soft-caps, (1 + w) norms), both on 2048 tokens: the every-map-kept forward
# once, then MODEL_PAIRS (default 5) alternated pairs of the CLI's forward (with the same GEMMs alone after it,
# --gemms) and PyTorch; table.py gives the median of the pairs' ratios and their spread. No app run for these two.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT="$BUILD/bench-results/model"
REPS=${MODEL_REPS:-1}
CASES=${MODEL_CASES:-gpt2 smollm2}
mkdir -p "$OUT"
cmake --build "$BUILD" --target attnviz_model_bench attnviz-cli -j"$(nproc)" >/dev/null
case " $CASES " in *" gpt2 "*|*" smollm2 "*)  # only these two open the app
  cmake --build "$BUILD" --target attnviz -j"$(nproc)" >/dev/null 2>&1 || true ;;  # the GUI may be off
esac
# Every layer's maps kept: 4.5 GiB at 2048 tokens on the SmolLM2 shape, 7.5 GiB on the Qwen3 shape, over the 2 GiB
# default budget.
export ATTNVIZ_MEMORY_LIMIT=${ATTNVIZ_MEMORY_LIMIT:-12G}
TORCH_ENV=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2)
# attnviz's waiting threads sleep, as in attnviz-cli and the app (UsePassiveOpenMpWaits): a little slower than
# libgomp's default short spin on an idle machine (docs/speed.md), and what a user's run does.
ATTNVIZ_ENV=(env OMP_WAIT_POLICY=passive)

for c in $CASES; do
  case $c in
    prefix|prefix_session|scan|whatif) continue ;;  # below
    gpt2)    n=1024 dir=/tmp/attnviz_bench_gpt2_small tok=("$ROOT/tests/fixtures/tokenize/gpt2/vocab.json" "$ROOT/tests/fixtures/tokenize/gpt2/merges.txt") ;;
    smollm2) n=2048 dir=/tmp/attnviz_bench_smollm2 tok=("$ROOT/tests/fixtures/tokenize/llama_style/tokenizer.json") ;;
    qwen3|gemma2) n=2048 dir=/tmp/attnviz_bench_$c tok=() ;;
    *) echo "unknown case $c"; exit 2 ;;
  esac
  if [ ${#tok[@]} -eq 0 ]; then  # qwen3, gemma2: alternated pairs, the machine drifts between minutes
    echo "-- $c, $n tokens: attnviz (native) --"
    "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/attnviz_model_bench" --arch "$c" --n "$n" --reps "$REPS" --no-stream \
      --json "$OUT/native_$c.json"
    rm -f "$OUT/pair_cli_$c".*.json "$OUT/pair_torch_$c".*.json
    for i in $(seq 1 "${MODEL_PAIRS:-5}"); do
      echo "-- $c, $n tokens, pair $i: attnviz (CLI forward, then its GEMMs alone), then PyTorch --"
      "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/attnviz_model_bench" --arch "$c" --n "$n" --reps "$REPS" \
        --cli-forward-only --gemms --json "$OUT/pair_cli_$c.$i.json"
      "${TORCH_ENV[@]}" /usr/bin/python3 "$ROOT/bench/model/torch_gpt2.py" --dir "$dir" --n "$n" --reps "$REPS" \
        --threads 2 --json "$OUT/pair_torch_$c.$i.json"
    done
    continue
  fi
  echo "-- $c, $n tokens: attnviz (native) --"
  "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/attnviz_model_bench" --arch "$c" --n "$n" --reps "$REPS" --no-stream \
    --json "$OUT/native_$c.json"
  # The CLI's forward (each layer's maps made into one reused buffer, as attnviz-cli model streams them out): what
  # issue 22's "at least 3x / 4x PyTorch" compares. Right before torch, so the two share the minute.
  "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/attnviz_model_bench" --arch "$c" --n "$n" --reps "$REPS" --cli-forward-only \
    --json "$OUT/cli_$c.json"
  echo "-- $c, $n tokens: PyTorch --"
  "${TORCH_ENV[@]}" /usr/bin/python3 "$ROOT/bench/model/torch_gpt2.py" --dir "$dir" --n "$n" --reps "$REPS" \
    --threads 2 --json "$OUT/torch_$c.json"
  # The app needs a tokenizer in the folder: GPT-2's own files; the small SentencePiece fixture for the llama.
  cp "${tok[@]}" "$dir/"
  /usr/bin/python3 "$ROOT/bench/model/make_text.py" --cli "$BUILD/attnviz-cli" --model "$dir" --n "$n" \
    --out "$OUT/text_$c.txt"
  if [ -x "$BUILD/attnviz" ]; then
    bash "$ROOT/bench/model/open_to_overview.sh" "$BUILD" "$dir" "$OUT/text_$c.txt" "${OVERVIEW_REPS:-3}" \
      "$OUT/overview_$c.png" | tee "$OUT/overview_$c.txt"
  fi
done
# Activation patching of every head (issue 41) on the GPT-2-small shape at 256 tokens, beside 2 x n_layer x n_head
# forwards (patching each head by two runs from the start).
case " $CASES " in *" gpt2 "*)
  echo "-- gpt2, 256 tokens: patching every head --"
  "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/attnviz_model_bench" --arch gpt2 --n 256 --reps "$REPS" --patching \
    --json "$OUT/patching_gpt2.json" ;;
esac
# Issue 42's targets, each a ratio to the full run in the same process (alternated pairs, the median and the range;
# not in the default cases: each takes minutes): MODEL_CASES="... prefix prefix_session scan whatif".
# pair_case NAME ARCH TITLE BENCH ARGS...: the random ARCH checkpoint, then BENCH's alternated pairs into NAME_ARCH.txt.
pair_case() {
  local name=$1 arch=$2 title=$3 bench=$4
  shift 4
  case " $CASES " in *" $name "*) ;; *) return 0 ;; esac
  echo "-- $title --"
  cmake --build "$BUILD" --target "$bench" -j"$(nproc)" >/dev/null
  "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/attnviz_model_bench" --arch "$arch" --n 16 --reps 1 >/dev/null
  "${ATTNVIZ_ENV[@]}" "$BUILD/bench/model/$bench" "$@" --pairs "${MODEL_PAIRS:-5}" | tee "$OUT/${name}_$arch.txt"
}
pair_case prefix smollm2 "smollm2, 2000 tokens + 2: prefix reuse" attnviz_prefix_bench --n 2000 --append 2
pair_case prefix_session smollm2 "smollm2, 2000 tokens + 2: prefix reuse as the session makes it (streamed maps)" \
  attnviz_prefix_bench --n 2000 --append 2 --session
pair_case whatif smollm2 "smollm2, 2000 tokens: a what-if on the last quarter of the layers" attnviz_whatif_bench --n 2000
pair_case scan gpt2 "gpt2, 512 tokens: ablate each head once" attnviz_scan_bench --n 512
echo
/usr/bin/python3 "$ROOT/bench/model/table.py" "$OUT" | tee "$OUT/table.md"
