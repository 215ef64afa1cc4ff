#!/usr/bin/env bash
# Time from opening a model folder to its overview on screen, in the real app under Xvfb:
#   attnviz --model DIR --text-file TEXT --widgets-json W --snapshot-path PPM
# started, and two times read from the widgets JSON the app writes every frame it draws: overview_t_s, the app's own
# t_s of the first frame that drew the first layer's maps in the Overview and of the first that drew every layer
# (the app stamps them: a watcher reading the JSON now and then would see a later frame's t_s). That is
# process start + window + folder open (mmap, tokenizer) + the forward pass + the overview frame. The app's peak RSS
# (VmHWM) is read before it is stopped. The first frame's t_s (window_t_s) is the window: "window -> overview" leaves
# out process start, GL and font setup (the model folder opens beside them, so its time stays in).
#   bash bench/model/open_to_overview.sh BUILD_DIR MODEL_DIR TEXT_FILE [REPS=3] [PNG]
# Prints "open -> first layer: median S s (runs: ...)", "open -> overview: ...", "open -> window: ...",
# "window -> overview: ..." and
# "app peak RSS: median M MB (runs: ...)"; PNG (optional) keeps a screenshot of the last run.
set -euo pipefail
BUILD=$1 DIR=$2 TEXT=$3 REPS=${4:-3} KEEP_PNG=${5:-}
APP="$BUILD/attnviz"
LIMIT=${OVERVIEW_TIMEOUT:-900}
command -v Xvfb >/dev/null || { echo "open -> overview: skipped (no Xvfb)"; exit 0; }
[ -x "$APP" ] || { echo "open -> overview: skipped (no $APP)"; exit 0; }
TMP=$(mktemp -d)
APP_PID=
exec 3>"$TMP/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
XVFB=$!
cleanup() {
  set +e  # stop everything even when the app has already gone
  if [ -n "$APP_PID" ]; then kill "$APP_PID" 2>/dev/null; wait "$APP_PID" 2>/dev/null; fi
  kill $XVFB 2>/dev/null || true; wait $XVFB 2>/dev/null || true; rm -rf "$TMP"
}
trap cleanup EXIT
for _ in $(seq 100); do [ -s "$TMP/display" ] && break; sleep 0.1; done
export DISPLAY=":$(head -1 "$TMP/display")"
export XDG_CONFIG_HOME="$TMP/config"
times=()
windows=()
from_window=()
firsts=()
rss=()
for r in $(seq "$REPS"); do
  rm -rf "$XDG_CONFIG_HOME" "$TMP/w.json"
  "$APP" --model "$DIR" --text-file "$TEXT" --widgets-json "$TMP/w.json" --snapshot-path "$TMP/shot.ppm" \
    >"$TMP/log" 2>&1 &
  APP_PID=$!
  # overview_t_s.all_layers turns from -1 to the t_s (seconds since the app's start) of the frame that first drew
  # every layer. One watcher process reads the JSON a few times a second (a python3 started every poll would itself
  # take most of a core beside the app); how late it reads does not change the times.
  if ! read -r first all window < <(/usr/bin/python3 - "$TMP/w.json" "$APP_PID" "$LIMIT" <<'PY'
import json, os, sys, time
path, pid, limit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
start, stamp = time.time(), None
while time.time() - start < limit:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(1)
    try:
        st = os.stat(path)
        if (st.st_mtime_ns, st.st_size) != stamp:
            stamp = (st.st_mtime_ns, st.st_size)
            w = json.load(open(path))
            t = w["fields"].get("overview_t_s")
            if t and t["all_layers"] >= 0:
                print(t["first_layer"], t["all_layers"], w["fields"].get("window_t_s", 0))
                sys.exit(0)
    except (OSError, ValueError, KeyError):
        pass  # not written yet, or caught mid-write
    time.sleep(0.2)
sys.exit(2)
PY
  ); then
    kill -0 "$APP_PID" 2>/dev/null || { echo "open -> overview: attnviz exited:"; cat "$TMP/log"; exit 1; }
    echo "open -> overview: not on screen after $LIMIT s"; exit 1
  fi
  firsts+=("$first")
  times+=("$all")
  windows+=("$window")
  from_window+=("$(awk -v a="$all" -v w="$window" 'BEGIN { printf "%.3f", a - w }')")
  rss+=("$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' /proc/$APP_PID/status)")
  if [ -n "$KEEP_PNG" ] && [ "$r" = "$REPS" ]; then
    kill -USR1 "$APP_PID"
    for _ in $(seq 200); do [ -s "$TMP/shot.ppm" ] && break; sleep 0.05; done
    sleep 0.5
    cp "$TMP/shot.ppm" "${KEEP_PNG%.png}.ppm" 2>/dev/null || true
  fi
  kill "$APP_PID"; wait "$APP_PID" 2>/dev/null || true; APP_PID=
done
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
printf 'open -> first layer: median %.2f s (runs: %s)\n' "$(median "${firsts[@]}")" "$(printf '%.2f ' "${firsts[@]}")"
printf 'open -> overview: median %.2f s (runs: %s)\n' "$(median "${times[@]}")" "$(printf '%.2f ' "${times[@]}")"
printf 'open -> window: median %.2f s (runs: %s)\n' "$(median "${windows[@]}")" "$(printf '%.2f ' "${windows[@]}")"
printf 'window -> overview: median %.2f s (runs: %s)\n' "$(median "${from_window[@]}")" "$(printf '%.2f ' "${from_window[@]}")"
printf 'app peak RSS: median %s MB (runs: %s)\n' "$(median "${rss[@]}")" "${rss[*]}"
