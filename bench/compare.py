#!/usr/bin/python3
"""Times the same attention forward in PyTorch and numpy, and prints the `make bench` table.

Same config as bench/bench_forward.cpp: d_model 512, 8 heads (d_k = d_v = 64), self-attention, no mask,
n tokens; every head's scores, logits and weights are kept (as attnviz keeps them for the maps).
  forward: qkv = x W_qkv, split into heads, scores = q k^T, logits = scores / sqrt(d_k),
           weights = softmax(logits), z = weights v, out = concat(z) W_o
  toggle:  logits and weights again from the kept scores with the other multiplier

Run it with Debian's /usr/bin/python3 (python3-torch, python3-numpy). bench/run.sh runs it with
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (they pin OpenBLAS to a slower kernel on this machine).

  compare.py [--sizes 64 256 1024 4096] [--reps 5] [--ours build/bench-results/forward.json]
             [--json out.json] [--markdown table.md]
With --ours (the Google Benchmark JSON of attnviz_bench) it prints the combined table. The SGEMM
baseline there is the forward's GEMMs alone (same FLOP count), each shape the faster of the two ways
attnviz_bench runs it; "% of SGEMM" = forward GFLOP/s / baseline GFLOP/s = baseline time / forward time.
"""
import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import time

THREADS = 2
D_MODEL, N_HEAD = 512, 8
HEAD_DIM = D_MODEL // N_HEAD


def gemm_flops(n):
    """GEMM FLOPs of one forward (the count bench_forward.cpp uses)."""
    return 2.0 * n * D_MODEL * 3 * D_MODEL + 2.0 * n * D_MODEL * D_MODEL + 2.0 * N_HEAD * 2.0 * n * n * HEAD_DIM


def loaded_libraries(*needles):
    libs = []
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if any(k in os.path.basename(path) for k in needles) and path not in libs:
                libs.append(path)
    return libs


def openblas_info():
    """Which OpenBLAS is loaded in this process: its config string, core kernel and thread count."""
    for path in loaded_libraries("openblas"):
        try:
            lib = ctypes.CDLL(path)
            lib.openblas_get_config.restype = ctypes.c_char_p
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return {
                "library": os.path.realpath(path),
                "config": lib.openblas_get_config().decode(),
                "core": lib.openblas_get_corename().decode(),
                "threads": lib.openblas_get_num_threads(),
            }
        except (OSError, AttributeError):
            continue
    return None


def median_ms(fn, reps):
    fn()  # warm up: allocations, thread pools, page faults
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def reps_for(n, reps):
    # n = 4096 takes seconds per call in numpy; keep the run short but still take a median.
    return max(3, reps // 2) if n >= 4096 else (reps if n >= 1024 else reps * 4)


def bench_numpy(sizes, reps):
    import numpy as np

    rng = np.random.default_rng(0)
    results = {}
    for n in sizes:
        x = rng.standard_normal((n, D_MODEL), dtype=np.float32)
        w_qkv = (rng.standard_normal((D_MODEL, 3 * D_MODEL), dtype=np.float32) / np.sqrt(D_MODEL)).astype(np.float32)
        w_o = (rng.standard_normal((D_MODEL, D_MODEL), dtype=np.float32) / np.sqrt(D_MODEL)).astype(np.float32)
        mult = np.float32(1.0 / np.sqrt(HEAD_DIM))
        kept = {}

        def softmax(logits):
            e = np.exp(logits - logits.max(axis=-1, keepdims=True))
            e /= e.sum(axis=-1, keepdims=True)
            return e

        def forward():
            qkv = x @ w_qkv  # [n, 3*d_model]
            q, k, v = qkv.reshape(n, 3, N_HEAD, HEAD_DIM).transpose(1, 2, 0, 3)  # each [h, n, d]
            scores = q @ k.transpose(0, 2, 1)  # [h, n, n]
            logits = scores * mult
            weights = softmax(logits)
            z = weights @ v  # [h, n, d]
            out = z.transpose(1, 0, 2).reshape(n, D_MODEL) @ w_o
            kept.update(scores=scores, logits=logits, weights=weights, out=out)

        def toggle():
            logits = kept["scores"] * np.float32(1.0)  # unscaled
            kept.update(logits=logits, weights=softmax(logits))

        r = reps_for(n, reps)
        results[n] = {"forward_ms": median_ms(forward, r), "toggle_ms": median_ms(toggle, r)}
        kept.clear()
    return results


def bench_torch(sizes, reps):
    import torch

    torch.set_num_threads(THREADS)
    g = torch.Generator().manual_seed(0)
    results = {}
    with torch.inference_mode():
        for n in sizes:
            x = torch.randn(n, D_MODEL, generator=g)
            w_qkv = torch.randn(D_MODEL, 3 * D_MODEL, generator=g) / D_MODEL ** 0.5
            w_o = torch.randn(D_MODEL, D_MODEL, generator=g) / D_MODEL ** 0.5
            mult = 1.0 / HEAD_DIM ** 0.5
            kept = {}

            def forward():
                qkv = x @ w_qkv  # [n, 3*d_model]
                q, k, v = qkv.view(n, 3, N_HEAD, HEAD_DIM).permute(1, 2, 0, 3)  # each [h, n, d]
                scores = q @ k.transpose(-1, -2)  # [h, n, n]
                logits = scores * mult
                weights = torch.softmax(logits, dim=-1)
                z = weights @ v  # [h, n, d]
                out = z.transpose(0, 1).reshape(n, D_MODEL) @ w_o
                kept.update(scores=scores, logits=logits, weights=weights, out=out)

            def toggle():
                logits = kept["scores"] * 1.0  # unscaled
                kept.update(logits=logits, weights=torch.softmax(logits, dim=-1))

            r = reps_for(n, reps)
            results[n] = {"forward_ms": median_ms(forward, r), "toggle_ms": median_ms(toggle, r)}
            kept.clear()
    return results


def describe_backends():
    import numpy as np
    import torch

    torch.set_num_threads(THREADS)
    info = {
        "python": sys.executable + " " + platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "openblas": openblas_info(),
        "blas_libraries": [os.path.realpath(p) for p in loaded_libraries("blas")],
        "torch_blas_info": next((part.split("=", 1)[1] for part in torch.__config__.show().replace(",", "\n").split()
                                 if part.startswith("BLAS_INFO=")), "?"),
        "env": {k: os.environ.get(k, "(unset)") for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                                                          "OMP_NUM_THREADS")},
    }
    return info


def load_ours(path):
    """Medians from the Google Benchmark JSON: {name: {n: (real_time_ms, flops_per_s)}}."""
    with open(path) as f:
        data = json.load(f)
    ours = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name, n = b["run_name"].split("/")[:2]
        unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        ours.setdefault(name, {})[int(n)] = (b["real_time"] * unit, b.get("FLOPS", 0.0))
    return ours, data.get("context", {})


def sgemm_baseline(ours, n):
    """Baseline SGEMM time (ms) and FLOP/s at n: the forward's GEMMs, each shape the faster of two ways."""
    proj = [ours[k][n][0] for k in ("BM_SgemmProjections", "BM_SgemmProjectionsTiled") if n in ours.get(k, {})]
    heads = [ours[k][n][0] for k in ("BM_SgemmHeads", "BM_SgemmHeadsEigenThreads") if n in ours.get(k, {})]
    if not proj or not heads:
        return float("nan"), float("nan")
    ms = min(proj) + min(heads)
    return ms, gemm_flops(n) / (ms * 1e-3)


def fmt_ms(ms):
    return "-" if ms != ms else (f"{ms:.2f}" if ms < 100 else f"{ms:.0f}")


def table(ours, py, sizes):
    """The one table `make bench` prints (markdown, so docs/bench.md can take it as is)."""
    fwd, toggle = ours.get("BM_Forward", {}), ours.get("BM_ScaleToggle", {})
    nan = float("nan")
    lines = [
        "| n | ours ms | GFLOP/s | SGEMM GFLOP/s | % of SGEMM | torch ms | numpy ms | torch / ours | numpy / ours "
        "| toggle ms | toggle / forward | torch toggle ms | numpy toggle ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sizes:
        if n not in fwd:
            continue
        ms, flops = fwd[n]
        _, s_flops = sgemm_baseline(ours, n)
        t, p = py["torch"].get(n, {}), py["numpy"].get(n, {})
        tg = toggle.get(n, (nan, 0))[0]
        lines.append(
            f"| {n} | {fmt_ms(ms)} | {flops / 1e9:.1f} | {s_flops / 1e9:.1f} | {100 * flops / s_flops:.0f}% "
            f"| {fmt_ms(t.get('forward_ms', nan))} | {fmt_ms(p.get('forward_ms', nan))} "
            f"| {t.get('forward_ms', nan) / ms:.2f}x | {p.get('forward_ms', nan) / ms:.2f}x "
            f"| {fmt_ms(tg)} | {100 * tg / ms:.1f}% | {fmt_ms(t.get('toggle_ms', nan))} | {fmt_ms(p.get('toggle_ms', nan))} |")
    return "\n".join(lines)


def detail(ours, sizes):
    """The benchmarks behind the table, medians."""
    names = ["BM_SgemmProjections", "BM_SgemmProjectionsTiled", "BM_SgemmHeads", "BM_SgemmHeadsEigenThreads",
             "BM_Forward", "BM_ForwardSteps", "BM_PipelineForward", "BM_ScaleToggle"]
    lines = ["| benchmark | " + " | ".join(f"n={n} ms" for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for name in names:
        if name in ours:
            lines.append(f"| {name} | " + " | ".join(fmt_ms(ours[name].get(n, (float('nan'), 0))[0]) for n in sizes) + " |")
    return "\n".join(lines)


def targets(ours, py, n=1024):
    fwd, toggle = ours.get("BM_Forward", {}), ours.get("BM_ScaleToggle", {})
    if n not in fwd:
        return []
    ms, flops = fwd[n]
    eff = flops / sgemm_baseline(ours, n)[1]
    vs_numpy = py["numpy"][n]["forward_ms"] / ms if n in py["numpy"] else float("nan")
    tg = toggle[n][0] / ms if n in toggle else float("nan")
    mark = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    return [
        f"n={n}: forward at {100 * eff:.0f}% of the SGEMM GFLOP/s (target >= 75%): {mark(eff >= 0.75)}",
        f"n={n}: {vs_numpy:.2f}x faster than numpy + OpenBLAS (target >= 2x): {mark(vs_numpy >= 2.0)}",
        f"n={n}: scaling toggle = {100 * tg:.1f}% of a forward (target <= 10%): {mark(tg <= 0.10)}",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 256, 1024, 4096])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ours", help="Google Benchmark JSON from attnviz_bench (prints the combined table)")
    ap.add_argument("--json", help="write the torch/numpy timings and backends here")
    ap.add_argument("--markdown", help="write the combined table here")
    args = ap.parse_args()

    backends = describe_backends()
    py = {"torch": bench_torch(args.sizes, args.reps), "numpy": bench_numpy(args.sizes, args.reps),
          "backends": backends}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(py, f, indent=1)

    ob = backends["openblas"]
    print("BLAS used by numpy and torch (both link libblas.so.3):", ", ".join(backends["blas_libraries"]))
    if ob:
        print(f"  OpenBLAS: {ob['library']}  [{ob['config']}]  kernel {ob['core']}, {ob['threads']} threads")
    print(f"  numpy {backends['numpy']}, torch {backends['torch']} (BLAS_INFO={backends['torch_blas_info']}, "
          f"{backends['torch_threads']} threads); env: " + ", ".join(f"{k}={v}" for k, v in backends["env"].items()))
    if not args.ours:
        for lib in ("torch", "numpy"):
            for n, r in py[lib].items():
                print(f"{lib:6s} n={n:5d} forward {r['forward_ms']:9.2f} ms ({gemm_flops(n) / r['forward_ms'] / 1e6:6.1f} "
                      f"GFLOP/s)  toggle {r['toggle_ms']:8.2f} ms")
        return
    ours, context = load_ours(args.ours)
    text = table(ours, py, args.sizes)
    print()
    print(detail(ours, args.sizes))
    print()
    print(text)
    print()
    for line in targets(ours, py):
        print(line)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n\n" + detail(ours, args.sizes) + "\n")


if __name__ == "__main__":
    main()
