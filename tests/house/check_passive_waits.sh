#!/bin/sh
# PROGRAM sets OMP_WAIT_POLICY=passive for itself when it is unset (app/common/passive_waits.h): libgomp's own
# report (OMP_DISPLAY_ENV=verbose) of the run that does the work says its threads never spin (GOMP_SPINCOUNT 0).
# A user's own OMP_WAIT_POLICY=active is kept (the spin count stays libgomp's).
set -u
prog="$1"
spin() { env "$@" OMP_DISPLAY_ENV=verbose "$prog" --help 2>&1 >/dev/null | grep "GOMP_SPINCOUNT" | tail -n 1; }
unset_run=$(spin -u OMP_WAIT_POLICY)
case "$unset_run" in
  *"'0'"*) ;;
  *) echo "FAIL: $prog with OMP_WAIT_POLICY unset: libgomp reports '$unset_run', want GOMP_SPINCOUNT = '0'"; exit 1 ;;
esac
active_run=$(spin OMP_WAIT_POLICY=active)
case "$active_run" in
  *"'0'"*|"") echo "FAIL: $prog with OMP_WAIT_POLICY=active: libgomp reports '$active_run' (the user's choice was not kept)"; exit 1 ;;
esac
echo "ok: $prog: unset -> $unset_run; active -> $active_run"
