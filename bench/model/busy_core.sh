#!/usr/bin/env bash
# The model's forward (every map made, into one reused buffer: attnviz_model_bench --stream-only) on one thread and
# on two, on an idle machine and beside a busy process (a shell loop spinning on one core): waiting threads must
# sleep, so two threads beside a busy core are never slower than one (issue "long contexts"; docs/speed.md).
#   bash bench/model/busy_core.sh [BUILD=build]      ARCH=gpt2 N=1024 REPS=5 to change the case;
#   BENCH=path/to/attnviz_model_bench to measure another build (e.g. an older commit's) the same way.
# Prints one markdown table: machine state | threads | forward median ms | / one thread in the same state.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
BENCH=${BENCH:-$BUILD/bench/model/attnviz_model_bench}
ARCH=${ARCH:-gpt2} N=${N:-1024} REPS=${REPS:-5}
[ -x "$BENCH" ] || cmake --build "$BUILD" --target attnviz_model_bench -j"$(nproc)" >/dev/null
BUSY=
trap '[ -n "$BUSY" ] && kill "$BUSY" 2>/dev/null; true' EXIT
forward_ms() {  # threads -> the median forward in ms
  OMP_NUM_THREADS=$1 OMP_WAIT_POLICY=passive "$BENCH" --arch "$ARCH" --n "$N" --reps "$REPS" --stream-only |
    sed -n 's/.*keeps nothing: median \([0-9.]*\) ms.*/\1/p'
}
echo "$ARCH, $N tokens, $(nproc) cores, $REPS runs each (median); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| machine | threads | forward ms | / one thread |"
echo "|---|---|---|---|"
for state in idle "beside a busy core"; do
  if [ "$state" != idle ]; then
    sh -c 'while :; do :; done' &
    BUSY=$!
  fi
  one=$(forward_ms 1)
  two=$(forward_ms 2)
  echo "| $state | 1 | $one | 1.00x |"
  echo "| $state | 2 | $two | $(awk -v a="$two" -v b="$one" 'BEGIN { printf "%.2fx", a / b }') |"
  if [ -n "$BUSY" ]; then kill "$BUSY"; wait "$BUSY" 2>/dev/null || true; BUSY=; fi
done
