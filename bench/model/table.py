#!/usr/bin/python3
"""The model benchmark's table (markdown) from the JSON files bench/model/run.sh wrote into DIR."""
import json
import os
import sys

NAMES = {"gpt2": "GPT-2 small (124M), 1024 tokens", "smollm2": "SmolLM2-135M shape (llama, GQA 9:3), 2048 tokens"}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    d = sys.argv[1]
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


if __name__ == "__main__":
    main()
