#!/usr/bin/env bash
# Runs every libFuzzer harness of BUILD_DIR for SECONDS each (the committed corpus first, then new inputs), one
# after another, and fails when any finds a crash, a leak, a timeout (an input over 10 s) or an input over 2 GB.
#   fuzz/run.sh build-fuzz 10
# New inputs go to BUILD_DIR/corpus/NAME (the committed fuzz/corpus/NAME is only read); a failing input is saved as
# BUILD_DIR/crashes/NAME-crash-* (commit it to fuzz/corpus/NAME/ as regress-* once fixed).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
seconds=${2:-10}
mkdir -p "$build/crashes"
failed=()
for harness in "$build"/fuzz_*; do
  [ -x "$harness" ] || continue
  name=$(basename "$harness")
  mkdir -p "$build/corpus/$name"
  start=$(date +%s)
  # -timeout: one input; the outer timeout: the whole run (libFuzzer stops itself at max_total_time).
  if timeout -k 10 $((seconds + 120)) "$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$build/crashes/$name-" \
       "$build/corpus/$name" "fuzz/corpus/$name" >"$build/$name.log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$name.log" | grep -o '[0-9]*$')
    echo "fuzz: $name ok ($((($(date +%s) - start))) s, ${runs:-?} inputs)"
  else
    echo "fuzz: $name FAILED (log: $build/$name.log)"
    grep -E 'ERROR|SUMMARY|expectation failed|runtime error|Test unit written' "$build/$name.log" | head -8
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} harness(es) failed: ${failed[*]}" >&2
  exit 1
fi
