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

cmake --build "$BUILD" --target attnviz_bench -j"$(nproc)"

# Repetitions of all benchmarks are interleaved at random, so a burst of load elsewhere on the machine
# hits the baseline and the forward alike instead of one of them.
echo "== attnviz_bench (Google Benchmark, $REPS interleaved repetitions, medians) =="
"$BUILD/bench/attnviz_bench" \
  --benchmark_repetitions="$REPS" --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$OUT/forward.json" --benchmark_out_format=json \
  ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"}

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
  echo "== The model's forward on one thread and two, idle and beside a busy core (bench/model/busy_core.sh) =="
  bash "$ROOT/bench/model/busy_core.sh" "$BUILD"
fi

if [ "${LONG_MODEL_BENCH:-1}" != 0 ]; then
  echo
  echo "== Trained models on long inputs: streamed maps, first layer, every layer, peak RSS (bench/model/long.sh) =="
  bash "$ROOT/bench/model/long.sh" "$BUILD"
fi
