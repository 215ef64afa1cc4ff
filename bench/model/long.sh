#!/usr/bin/env bash
# Trained models on long inputs (issue 22's targets): for each (model, n), one line of
#   - attnviz_model_bench --long: the app's streamed run (first layer, all layers), the CLI's forward (each layer's
#     maps made, none kept) and the same GEMMs alone, peak RSS while streaming;
#   - the app under Xvfb (open_to_overview.sh): open -> first layer on screen, open -> every layer, peak RSS;
# then a table (bench-results/model/long.md). OpenMP waits passively, as both programs do.
#   bash bench/model/long.sh [BUILD_DIR]       LONG_CASES="smollm2:1024 smollm2:2048 ..." to pick
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT="$BUILD/bench-results/model"
CASES=${LONG_CASES:-gpt2:1024 smollm2:1024 smollm2:2048 smollm2:4096 smollm2:8192}
mkdir -p "$OUT"
cmake --build "$BUILD" --target attnviz_model_bench attnviz-cli -j"$(nproc)" >/dev/null
cmake --build "$BUILD" --target attnviz -j"$(nproc)" >/dev/null 2>&1 || true
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# The CLI's forward keeps one layer's whole maps: 2.4 GB at 8192 tokens x 9 heads, over the 2 GiB default budget.
export ATTNVIZ_MEMORY_LIMIT=${ATTNVIZ_MEMORY_LIMIT:-12G}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for case in $CASES; do
  arch=${case%%:*} n=${case##*:}
  case $arch in
    gpt2)    dir=/tmp/attnviz_bench_gpt2_small tok=("$ROOT/tests/fixtures/tokenize/gpt2/vocab.json" "$ROOT/tests/fixtures/tokenize/gpt2/merges.txt") ;;
    smollm2) dir=/tmp/attnviz_bench_smollm2 tok=("$ROOT/tests/fixtures/tokenize/llama_style/tokenizer.json") ;;
    *) echo "unknown model $arch"; exit 2 ;;
  esac
  echo "-- $arch, $n tokens --"
  "$BUILD/bench/model/attnviz_model_bench" --arch "$arch" --n "$n" --reps 1 --long --json "$OUT/long_${arch}_$n.json"
  cp "${tok[@]}" "$dir/"
  /usr/bin/python3 "$ROOT/bench/model/make_text.py" --cli "$BUILD/attnviz-cli" --model "$dir" --n "$n" \
    --out "$OUT/text_${arch}_$n.txt"
  if [ -x "$BUILD/attnviz" ]; then
    bash "$ROOT/bench/model/open_to_overview.sh" "$BUILD" "$dir" "$OUT/text_${arch}_$n.txt" "${OVERVIEW_REPS:-1}" \
      | tee "$OUT/app_${arch}_$n.txt"
    # Paired: the CLI's forward right before each app run, so each ratio compares two times of the same minute (a
    # shared machine's speed drifts by more than the targets' margins between the rows above and the app's runs).
    ratios=()
    for r in $(seq "${OVERVIEW_REPS:-1}"); do
      cli=$("$BUILD/bench/model/attnviz_model_bench" --arch "$arch" --n "$n" --reps 1 --cli-forward-only \
            | sed -n 's/^CLI forward: median \([0-9.]*\) ms.*/\1/p')
      app=$(bash "$ROOT/bench/model/open_to_overview.sh" "$BUILD" "$dir" "$OUT/text_${arch}_$n.txt" 1 \
            | sed -n 's/^window -> overview: median \([0-9.]*\) s.*/\1/p')
      ratios+=("$(/usr/bin/python3 -c "print('%.2f' % ($app * 1000 / $cli))")")
      echo "  pair $r: CLI forward $cli ms, window -> overview $app s"
    done
    echo "window -> overview / CLI forward, paired: median $(printf '%s\n' "${ratios[@]}" | sort -n | \
      awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')x (runs: ${ratios[*]})" | tee -a "$OUT/app_${arch}_$n.txt"
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$OUT" $CASES <<'PY' | tee "$OUT/long.md"
import json, os, re, sys
out, cases = sys.argv[1], sys.argv[2:]
print("| model, n | streamed: first layer | all layers | / CLI forward | CLI forward | CLI / GEMMs alone | bench RSS | "
      "app: open -> first layer | open -> all layers | app / CLI forward | window -> all layers | / CLI forward | "
      "paired / CLI forward | app peak RSS | checkpoint |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for case in cases:
    arch, n = case.split(":")
    j = json.load(open(os.path.join(out, "long_%s_%s.json" % (arch, n))))
    app = {}
    path = os.path.join(out, "app_%s_%s.txt" % (arch, n))
    if os.path.exists(path):
        text = open(path).read()
        for key, pat in (("first", r"first layer: median ([\d.]+)"), ("all", r"overview: median ([\d.]+)"),
                         ("rss", r"peak RSS: median (\d+)"), ("window", r"window -> overview: median ([\d.]+)"),
                         ("paired", r"paired: median ([\d.]+)x")):
            m = re.search(pat, text)
            app[key] = float(m.group(1)) if m else None
    s = lambda v: "%.2f s" % (v / 1000)
    cli = j["cli_forward_ms"]
    a = lambda k, f: f(app[k]) if app.get(k) is not None else "-"
    print("| %s, %s | %s | %s | %.2fx | %s | %.2fx | %.0f MB | %s | %s | %s | %s | %s | %s | %s | %.0f MB |" % (
        arch, n, s(j["first_layer_ms"]), s(j["all_layers_ms"]), j["all_layers_ms"] / cli, s(cli),
        cli / j["gemm_floor_ms"], j["streamed_peak_rss_mb"], a("first", lambda v: "%.2f s" % v),
        a("all", lambda v: "%.2f s" % v), a("all", lambda v: "%.2fx" % (v * 1000 / cli)),
        a("window", lambda v: "%.2f s" % v), a("window", lambda v: "%.2fx" % (v * 1000 / cli)),
        a("paired", lambda v: "%.2fx" % v), a("rss", lambda v: "%.0f MB" % v), j["weights_mb"]))
PY
