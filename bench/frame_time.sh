#!/usr/bin/env bash
# Frame-time benchmark of the desktop app under Xvfb + Mesa (llvmpipe): median frame time with
# 8 visible heads at n = 256 against an empty ImGui frame measured in the same run.
#   bash bench/frame_time.sh [BUILD_DIR] [FRAMES_PER_PHASE]
# Prints a table (see `attnviz --bench-frames`); exits 1 if the heatmaps add more than 50 %.
set -euo pipefail
BUILD=${1:-build}
FRAMES=${2:-120}
APP="$BUILD/attnviz"
[ -x "$APP" ] || { echo "frame_time.sh: $APP not built (make build)" >&2; exit 2; }
command -v Xvfb >/dev/null || { echo "frame_time.sh: Xvfb missing (apt-get install xvfb)" >&2; exit 2; }

# 256 tokens: words drawn from a small vocabulary so some keys repeat.
WORDS=(the a cat dog sat ran on under mat rug because it was warm tired and then slept quietly near door)
TEXT=""
for ((i = 0; i < 256; i++)); do TEXT+="${WORDS[$(( (i * 7 + i / 3) % ${#WORDS[@]} ))]} "; done

TMP=$(mktemp -d)
exec 3> "$TMP/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
XVFB_PID=$!
trap 'kill $XVFB_PID 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/display" ] && break; sleep 0.1; done
DISPLAY=":$(head -n1 "$TMP/display")"
export DISPLAY
export XDG_CONFIG_HOME="$TMP/config"

"$APP" --no-settings --bench-frames "$FRAMES" --heads 8 --d-model 64 --text "$TEXT" | tee "$TMP/out.txt"
grep -q "PASS" "$TMP/out.txt"
