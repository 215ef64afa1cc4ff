#!/usr/bin/env bash
# `make bench`: Google Benchmark of the engine, then PyTorch and numpy on the same configs in the same
# run, and one table of the ratios. Usage: bash bench/run.sh [BUILD_DIR]   (REPS=5 by default)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
REPS=${REPS:-5}
OUT="$BUILD/bench-results"
mkdir -p "$OUT"

cmake --build "$BUILD" --target attnviz_bench attnviz_bench_sgemm -j"$(nproc)"

# Repetitions are interleaved at random inside each program, and the two programs (the forward; the SGEMM baseline,
# which needs Eigen's own threading, compiled out of the engine) alternate in halves, so a burst of load elsewhere
# on the machine hits the baseline and the forward alike instead of one of them.
echo "== attnviz_bench and attnviz_bench_sgemm (Google Benchmark, $REPS interleaved repetitions, medians) =="
HALF=$(( (REPS + 1) / 2 ))
parts=()  # this run's JSON files only (an earlier run's with other REPS may lie beside them)
for reps_part in "$HALF" $(( REPS - HALF )); do
  [ "$reps_part" -gt 0 ] || continue
  for prog in attnviz_bench_sgemm attnviz_bench; do
    parts+=("$OUT/${prog}_${#parts[@]}.json")
    "$BUILD/bench/$prog" \
      --benchmark_repetitions="$reps_part" --benchmark_enable_random_interleaving=true \
      --benchmark_out="${parts[-1]}" --benchmark_out_format=json \
      ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} >/dev/null
  done
done
# One file of every repetition of both programs, with the medians recomputed over all of them (what compare.py reads).
/usr/bin/python3 - "$OUT/forward.json" "${parts[@]}" <<'PY'
import json, statistics, sys
runs, context = {}, None
for path in sys.argv[2:]:
    j = json.load(open(path))
    context = context or j["context"]
    for b in j["benchmarks"]:
        if b.get("run_type") == "iteration":
            runs.setdefault(b["run_name"], []).append(b)
benchmarks = []
for run_name, reps in runs.items():
    median = dict(reps[0])
    for key in ("real_time", "cpu_time", "FLOPS"):
        if key in median:
            median[key] = statistics.median(r[key] for r in reps)
    median.update(name=run_name + "_median", run_type="aggregate", aggregate_name="median", repetitions=len(reps))
    benchmarks.append(median)
json.dump({"context": context, "benchmarks": benchmarks}, open(sys.argv[1], "w"), indent=1)
for b in benchmarks:
    print("%-40s %10.3f ms  %8.1f GFLOP/s  (%d runs)" % (b["name"], b["real_time"], b.get("FLOPS", 0) / 1e9, b["repetitions"]))
PY

echo
echo "== PyTorch and numpy, same configs (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE unset for these only) =="
# Debian's python (python3-torch, python3-numpy), not the pyenv python3 on PATH.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 \
  /usr/bin/python3 "$ROOT/bench/compare.py" --reps "$REPS" \
  --ours "$OUT/forward.json" --json "$OUT/compare.json" --markdown "$OUT/table.md"

if [ -x "$BUILD/bench/attnviz_bench_long" ]; then
  echo
  echo "== Long inputs: first maps, toggle, sweep, peak RSS beside their floors (bench/long_inputs.sh) =="
  bash "$ROOT/bench/long_inputs.sh" "$BUILD"
fi

if [ -f "$ROOT/bench/frame_time.sh" ]; then
  echo
  echo "== GUI frame time (bench/frame_time.sh) =="
  bash "$ROOT/bench/frame_time.sh" "$BUILD"
fi

if [ "${MODEL_BENCH:-1}" != 0 ]; then
  echo
  echo "== GGUF: a quantized SmolLM2-135M-shaped file beside the same weights in F32 (bench/model/gguf.sh) =="
  bash "$ROOT/bench/model/gguf.sh" "$BUILD"
fi

if [ "${MODEL_BENCH:-1}" != 0 ]; then
  echo
  echo "== Trained models: attnviz vs PyTorch 1.13 on the same random weights (bench/model/run.sh) =="
  bash "$ROOT/bench/model/run.sh" "$BUILD"
fi

if [ "${MODEL_BENCH:-1}" != 0 ]; then
  echo
  echo "== Encoder-decoder: Marian opus-mt shape, 512 source tokens, attnviz vs PyTorch 1.13 in pairs (bench/model/seq2seq.sh) =="
  bash "$ROOT/bench/model/seq2seq.sh" "$BUILD"
fi

if [ "${MODEL_BENCH:-1}" != 0 ]; then
  echo
  echo "== The model's forward on one thread and two, idle and beside a busy core (bench/model/busy_core.sh) =="
  bash "$ROOT/bench/model/busy_core.sh" "$BUILD"
fi

if [ "${LONG_MODEL_BENCH:-1}" != 0 ]; then
  echo
  echo "== Trained models on long inputs: streamed maps, first layer, every layer, peak RSS (bench/model/long.sh) =="
  bash "$ROOT/bench/model/long.sh" "$BUILD"
fi
