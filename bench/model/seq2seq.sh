#!/usr/bin/env bash
# The encoder-decoder part of `make bench` (called by bench/run.sh; alone: bash bench/model/seq2seq.sh [BUILD_DIR]).
# attnviz's forward as attnviz-cli model --dump makes it (RunSeq2Seq, every map of the three stacks kept, + the
# logits of every decoder position) against PyTorch 1.13 running MarianMTModel's forward re-implemented from
# modeling_marian.py (bench/model/torch_marian.py, output_attentions), 2 threads a side, on the same random
# checkpoint of Helsinki-NLP/opus-mt-en-de's shape (bench/model/make_marian_bench.py, written into the build folder):
# 512 source tokens, 64 decoder tokens.
# 1. The maps are checked equal first (max |difference| <= 1e-4, or the run stops): both time the same computation.
# 2. S2S_PAIRS (default 5) alternated pairs (the side that goes first alternates too), idle and then beside a busy
#    core (a shell loop spinning on one core); each side S2S_REPS (default 1) timed runs after a warm-up.
# 3. bench/model/seq2seq_table.py: the median of the pairs' ratios attnviz / torch and their spread.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT="$BUILD/bench-results/seq2seq"
DIR="$BUILD/bench-models/marian_opus_mt_shape"
PAIRS=${S2S_PAIRS:-5} REPS=${S2S_REPS:-1} STATES=${S2S_STATES:-idle busy}
mkdir -p "$OUT"
cmake --build "$BUILD" --target attnviz_seq2seq_bench -j"$(nproc)" >/dev/null
BENCH="$BUILD/bench/model/attnviz_seq2seq_bench"
# Debian's python (python3-torch, python3-numpy); OpenBLAS (libopenblas0-pthread) on its own kernel choice.
TORCH=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2
       /usr/bin/python3 "$ROOT/bench/model/torch_marian.py" --dir "$DIR" --threads 2)
# Waiting threads sleep, as in attnviz-cli and the app (UsePassiveOpenMpWaits).
ATTNVIZ=(env OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 "$BENCH" --dir "$DIR")

# The checkpoint: seeded, rewritten only when missing or older than its script.
if [ ! -f "$DIR/ids.json" ] || [ "$ROOT/bench/model/make_marian_bench.py" -nt "$DIR/ids.json" ]; then
  /usr/bin/python3 "$ROOT/bench/model/make_marian_bench.py" "$DIR"
fi

echo "-- the same computation: attnviz's maps and logits against torch's --"
"${ATTNVIZ[@]}" --reps 1 --dump "$OUT/dump" | tail -n 3
"${TORCH[@]}" --check "$OUT/dump"

BUSY=
trap '[ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null; true' EXIT
rm -f "$OUT"/pair_*.json "$OUT"/load_*.txt
for state in $STATES; do
  if [ "$state" = busy ]; then
    sh -c 'while :; do :; done' &
    BUSY=$!
  fi
  for i in $(seq 1 "$PAIRS"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "$load" >>"$OUT/load_$state.txt"  # the 1-minute load average as each pair starts (seq2seq_table.py)
    echo "-- $state, pair $i (load average $load) --"
    run_attnviz() { "${ATTNVIZ[@]}" --reps "$REPS" --json "$OUT/pair_attnviz_$state.$i.json" | grep -E "^attnviz forward"; }
    run_torch() { "${TORCH[@]}" --reps "$REPS" --json "$OUT/pair_torch_$state.$i.json"; }
    if [ $((i % 2)) = 1 ]; then run_attnviz; run_torch; else run_torch; run_attnviz; fi
  done
  if [ -n "$BUSY" ]; then kill "$BUSY"; wait "$BUSY" 2>/dev/null || true; BUSY=; fi
done
echo
/usr/bin/python3 "$ROOT/bench/model/seq2seq_table.py" "$OUT" | tee "$OUT/table.md"
