#!/usr/bin/python3
"""The model benchmark's table (markdown) from the JSON files bench/model/run.sh wrote into DIR."""
import glob
import json
import os
import re
import sys

NAMES = {"gpt2": "GPT-2 small (124M), 1024 tokens", "smollm2": "SmolLM2-135M shape (llama, GQA 9:3), 2048 tokens"}
# The cases run as alternated pairs (run.sh: pair_cli_CASE.I.json, pair_torch_CASE.I.json).
PAIR_NAMES = {"qwen3": "Qwen3-0.6B shape (28 layers, GQA 16:8, head_dim 128), 2048 tokens",
              "gemma2": "Gemma-2-2B shape cut to 6 layers (GQA 8:4, head_dim 256, soft-cap), 2048 tokens"}


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def spread(v):
    return f"**{median(v):.2f}x** ({min(v):.2f}..{max(v):.2f})"


def pair_table(d):
    """One row per pair case: medians of the pairs' ratios (torch / CLI forward, CLI forward / its GEMMs alone)."""
    rows = []
    for case, name in PAIR_NAMES.items():
        pairs = []
        for path in glob.glob(os.path.join(d, f"pair_cli_{case}.*.json")):
            i = re.search(r"\.(\d+)\.json$", path).group(1)
            cli, tor = load(path), load(os.path.join(d, f"pair_torch_{case}.{i}.json"))
            if cli and tor:
                pairs.append((cli, tor))
        if not pairs:
            continue
        nat = load(os.path.join(d, f"native_{case}.json"))
        row = [name, str(len(pairs)), f"{median([c['median_ms'] for c, _ in pairs]) / 1e3:.2f} s",
               f"{median([t['median_ms'] for _, t in pairs]) / 1e3:.2f} s",
               spread([t["median_ms"] / c["median_ms"] for c, t in pairs]),
               f"{median([c['gemm_floor_ms'] for c, _ in pairs]) / 1e3:.2f} s",
               spread([c["gemm_ratio"] for c, _ in pairs])]
        if nat:
            budget = nat["weights_mb"] + nat["maps_mb"] + 300
            ok = "within" if nat["peak_rss_mb"] <= budget else "**OVER**"
            row += [f"{nat['median_ms'] / 1e3:.2f} s", f"{nat['peak_rss_mb']:.0f} MB ({ok} {budget:.0f} MB)"]
        else:
            row += ["-", "-"]
        row.append(f"{max(t['peak_rss_mb'] for _, t in pairs):.0f} MB")
        rows.append(row)
    if not rows:
        return
    print("\n| model | pairs | CLI forward (median) | PyTorch 1.13 (median) | torch / CLI forward: median (min..max) "
          "| GEMMs alone (median) | CLI forward / GEMMs alone: median (min..max) | attnviz, every map kept "
          "| its peak RSS (budget: weights + maps + 300 MB) | PyTorch peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print("\nPairs alternated (attnviz's CLI forward, its GEMMs alone right after it, then PyTorch), each side one "
          "timed run after a warm-up; each ratio is taken within its pair, the median and spread over the pairs.")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    d = sys.argv[1]
    if not any(os.path.exists(os.path.join(d, f"native_{c}.json")) for c in NAMES):
        pair_table(d)  # MODEL_CASES="qwen3 gemma2" alone
        return
    print("| model | attnviz, every map kept | PyTorch 1.13 | torch / attnviz | CLI forward | torch / CLI forward "
          "| attnviz peak RSS | budget: weights + maps + 300 MB | PyTorch peak RSS | open -> overview (app) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for case, name in NAMES.items():
        nat, tor = load(os.path.join(d, f"native_{case}.json")), load(os.path.join(d, f"torch_{case}.json"))
        if not nat:
            continue
        budget = nat["weights_mb"] + nat["maps_mb"] + 300
        ok = "within" if nat["peak_rss_mb"] <= budget else "**OVER**"
        overview = "-"
        try:
            with open(os.path.join(d, f"overview_{case}.txt")) as f:
                # "open -> first layer: median ..." comes first; the column is the whole overview's
                overview = f.read().split("open -> overview: median ")[1].split(" (")[0]
        except (OSError, IndexError):
            pass
        cli = load(os.path.join(d, f"cli_{case}.json"))
        cli_s = f"{cli['median_ms'] / 1e3:.2f} s" if cli else "-"
        row = [name, f"{nat['median_ms'] / 1e3:.2f} s"]
        if tor:
            row += [f"{tor['median_ms'] / 1e3:.2f} s", f"{tor['median_ms'] / nat['median_ms']:.2f}x", cli_s,
                    f"{tor['median_ms'] / cli['median_ms']:.2f}x" if cli else "-"]
        else:
            row += ["-", "-", cli_s, "-"]
        row += [f"{nat['peak_rss_mb']:.0f} MB ({ok})",
                f"{nat['weights_mb']:.0f} + {nat['maps_mb']:.0f} + 300 = {budget:.0f} MB",
                f"{tor['peak_rss_mb']:.0f} MB" if tor else "-", overview]
        print("| " + " | ".join(row) + " |")
    print(f"\n{nat['threads'] if nat else 2} threads both sides; medians of MODEL_REPS timed runs after a warm-up; "
          f"load average at the end: {os.getloadavg()[0]:.1f}. \"Every map kept\": every layer's maps in new memory, "
          "as PyTorch keeps them (output_attentions); \"CLI forward\": each layer's maps made into one reused buffer, as "
          "attnviz-cli model streams them to disk (issue 22's targets: 3x on GPT-2, 4x on the SmolLM2 shape).")
    pair_table(d)


if __name__ == "__main__":
    main()
