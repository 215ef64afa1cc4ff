#!/usr/bin/python3
"""The encoder-decoder benchmark's table (markdown) from the pair files bench/model/seq2seq.sh wrote into DIR:
pair_attnviz_STATE.I.json and pair_torch_STATE.I.json, STATE idle or busy, and load_STATE.txt (the load average as
each pair started)."""
import glob
import json
import os
import re
import sys

STATES = {"idle": "no busy core added", "busy": "beside a busy core"}


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    d = sys.argv[1]
    rows = []
    for state, name in STATES.items():
        pairs = []
        for path in sorted(glob.glob(os.path.join(d, "pair_attnviz_%s.*.json" % state))):
            i = re.search(r"\.(\d+)\.json$", path).group(1)
            ours, torch = load(path), load(os.path.join(d, "pair_torch_%s.%s.json" % (state, i)))
            if ours and torch:
                pairs.append((ours, torch))
        if not pairs:
            continue
        ratios = [o["median_ms"] / t["median_ms"] for o, t in pairs]
        try:
            loads = [float(x) for x in open(os.path.join(d, "load_%s.txt" % state)).read().split()]
            load_range = "%.1f..%.1f" % (min(loads), max(loads))
        except (OSError, ValueError):
            load_range = "-"
        blas = pairs[0][1].get("blas", "?")
        rows.append([name, load_range, str(len(pairs)), "%.2f s" % (median([o["median_ms"] for o, _ in pairs]) / 1e3),
                     "%.2f s" % (median([t["median_ms"] for _, t in pairs]) / 1e3),
                     "**%.2fx** (%.2f..%.2f)" % (median(ratios), min(ratios), max(ratios)),
                     "%.2fx" % (1 / median(ratios)),
                     "%.0f MB" % max(o["peak_rss_mb"] for o, _ in pairs),
                     "%.0f MB" % max(t["peak_rss_mb"] for _, t in pairs)])
    if not rows:
        print("no pairs in %s" % d)
        return
    print("Encoder-decoder forward, Marian opus-mt shape, 512 source tokens (64 decoder tokens; every map of the three "
          "stacks kept + the logits), 2 threads a side")
    print()
    print("| machine | load average (pairs' starts) | pairs | attnviz (median) | PyTorch 1.13 (median) | attnviz / torch: median (min..max) "
          "| torch / attnviz | attnviz peak RSS | PyTorch peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("Pairs alternated (the side going first alternates), each side one timed run after a warm-up (S2S_REPS), "
          "each ratio taken within its pair, the median and spread over the pairs; torch's BLAS: %s; load average at "
          "the end: %.1f." % (blas, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
