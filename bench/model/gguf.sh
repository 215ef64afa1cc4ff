#!/usr/bin/env bash
# GGUF in `make bench` (called by bench/run.sh; alone: bash bench/model/gguf.sh [BUILD_DIR]): a random llama of
# SmolLM2-135M's shape as a quantized GGUF (Q4_K for the rows of whole 256-element super-blocks, llama.cpp's Q5_0
# fallback for the 576-wide rows, as its Q4_K_M leaves this shape) beside the same weights dequantized into an F32
# safetensors folder, both written here into BUILD/bench-gguf (never committed) by attnviz_model_bench --make-gguf,
# which also checks that the two give the same maps. Each is then run on 2048 tokens in its own process (the maps
# streamed to a sink that keeps nothing: peak RSS is weights + one layer's maps + workspace): time and peak RSS.
# GGUF_REPS timed runs after one warm-up (default 3).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT="$BUILD/bench-results/gguf"
DATA="$BUILD/bench-gguf"
REPS=${GGUF_REPS:-3}
N=${GGUF_N:-2048}
mkdir -p "$OUT" "$DATA"
cmake --build "$BUILD" --target attnviz_model_bench -j"$(nproc)" >/dev/null
BENCH="$BUILD/bench/model/attnviz_model_bench"
"$BENCH" --make-gguf "$DATA" | tee "$OUT/make.txt"
echo "-- GGUF (dequantized per layer), $N tokens --"
"$BENCH" --gguf "$DATA/smollm2_q4k.gguf" --n "$N" --reps "$REPS" --stream-only --json "$OUT/gguf.json"
echo "-- the same weights as F32 safetensors, $N tokens --"
"$BENCH" --dir "$DATA/smollm2_f32" --n "$N" --reps "$REPS" --stream-only --json "$OUT/f32.json"
echo
/usr/bin/python3 - "$OUT" <<'PY' | tee "$OUT/table.md"
import json, os, sys
d = sys.argv[1]
print("| SmolLM2-135M shape, %d tokens | tensor types | file | forward (median) | peak RSS | weights kept as float |" %
      json.load(open(os.path.join(d, "gguf.json")))["n"])
print("|---|---|---|---|---|---|")
for name, f in (("GGUF, dequantized per layer", "gguf.json"), ("F32 safetensors (mapped in place)", "f32.json")):
    j = json.load(open(os.path.join(d, f)))
    print(f"| {name} | {j['types']} | {j['weights_mb']:.0f} MB | {j['median_ms'] / 1e3:.2f} s | "
          f"{j['peak_rss_mb']:.0f} MB | {j['resident_float_mb']:.1f} MB |")
PY
