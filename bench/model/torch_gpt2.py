#!/usr/bin/python3
"""PyTorch's side of the model benchmark: the same GPT-2 (or llama, qwen3, gemma2) forward as attnviz_model_bench,
every layer's attention probs kept (as HF's output_attentions=True: a list of [1, n_head, n, n] tensors) and every
hidden state.

  /usr/bin/python3 bench/model/torch_gpt2.py [--dir /tmp/attnviz_bench_gpt2_small] [--n 1024] [--reps 3] [--threads 2]
  (--dir /tmp/attnviz_bench_llama_small after attnviz_model_bench --arch llama; /tmp/attnviz_bench_smollm2 after
   --arch smollm2; /tmp/attnviz_bench_qwen3 and /tmp/attnviz_bench_gemma2 after --arch qwen3 and --arch gemma2)
  --json FILE: the median, every run and the peak RSS (getrusage) for bench/run.sh

The modules are the HF mirrors of tests/fixtures/models/make_model_fixtures.py (gpt2, llama) and
make_score_fixtures.py (qwen3: q/k norms per head; gemma2: (1 + w) norms, scaled embeddings, query_pre_attn_scalar,
the attention soft-cap, the sliding-window mask on its sliding layers), loaded from the same model.safetensors (read
with numpy from its header), run in float32 under torch.inference_mode().
"""
import argparse
import json
import os
import resource
import struct
import sys
import time

# As bench/run.sh: these pin OpenBLAS to a slower kernel on this machine; drop them before OpenBLAS loads.
for _v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
    os.environ.pop(_v, None)

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "fixtures", "models"))
import make_model_fixtures as hf  # noqa: E402


def BlasDescription():
    """The BLAS torch calls and the kernel it picked (torch's build says BLAS_INFO; OpenBLAS names its core)."""
    import re
    info = ["BLAS_INFO=" + m for m in re.findall(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())]
    try:
        import ctypes
        lib = ctypes.CDLL("libopenblas.so.0")  # already loaded by torch: the same library
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        blas = "%s, kernel %s" % (lib.openblas_get_config().decode(), lib.openblas_get_corename().decode())
    except OSError as e:
        blas = "no libopenblas.so.0 (%s)" % e
    return "%s; %s" % ("; ".join(info) or "BLAS_INFO unknown", blas)


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", "this benchmark reads F32 checkpoints"
        b, en = e["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[b:en], dtype="<f4").reshape(e["shape"]).copy())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/tmp/attnviz_bench_gpt2_small")
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--save", help="also write probs_first.npy, probs_last.npy [n_head, n, n] and hidden_last.npy "
                                   "[n, d_model] here (attnviz_model_bench --compare DIR checks them)")
    ap.add_argument("--json", help="write the timings and the peak RSS here")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cfg = json.load(open(os.path.join(a.dir, "config.json")))
    state = read_safetensors(os.path.join(a.dir, "model.safetensors"))
    ids = torch.tensor([[(i * 7919) % cfg["vocab_size"] for i in range(a.n)]])
    if cfg["model_type"] == "gpt2":
        cfg.setdefault("n_inner", None)
        model = hf.GPT2Model(cfg)
        whatif = hf.WhatIf(cfg["n_layer"])

        def forward():
            pos = torch.arange(a.n).unsqueeze(0)
            x = model.wte(ids) + model.wpe(pos)
            hidden, probs = [x], []
            for block in model.h:
                x, p = block(x, whatif)
                hidden.append(x)
                probs.append(p)
            return probs, hidden
    elif cfg["model_type"] in ("qwen3", "gemma2"):
        import make_score_fixtures as sf
        model = sf.ScoreModel(cfg)  # Qwen3Model / Gemma2Model: no lm_head (the forward measured never runs it)
        state = {k[len("model."):]: v for k, v in state.items() if k.startswith("model.")}
        whatif = hf.WhatIf(cfg["num_hidden_layers"])
        types = sf.layer_types(cfg)

        def forward():
            # ScoreModel.forward, with the lists kept as HF's output_attentions (not stacked into one more copy)
            x = model.embed_tokens(ids)
            if cfg["model_type"] == "gemma2":
                x = x * torch.tensor(cfg["hidden_size"] ** 0.5, dtype=x.dtype)
            tables = {t: model.rope(t, a.n, x.dtype) for t in sorted(set(types))}
            hidden, probs = [x], []
            for layer, t in zip(model.layers, types):
                x, p = layer(x, *tables[t], whatif)
                # The fixture module records q, k, v and the scores for its analysis; HF's modules keep none.
                layer.self_attn.saved = None
                hidden.append(x)
                probs.append(p)
            return probs, hidden
    else:  # llama family
        full = hf.LlamaForCausalLM(cfg)
        model = full.model
        state = {k[len("model."):]: v for k, v in state.items() if k.startswith("model.")}
        whatif = hf.WhatIf(cfg["num_hidden_layers"])

        def forward():
            x = model.embed_tokens(ids)
            cos, sin = model.rotary_emb(x, torch.arange(a.n).unsqueeze(0))
            hidden, probs = [x], []
            for layer in model.layers:
                x, p = layer(x, cos, sin, whatif)
                hidden.append(x)
                probs.append(p)
            return probs, hidden
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not [m for m in missing if not m.endswith("attn.bias") and not m.endswith("masked_bias")], missing
    assert not unexpected, unexpected
    model.eval()

    times = []
    with torch.inference_mode():
        for r in range(a.reps + 1):
            t = time.perf_counter()
            probs, hidden = forward()
            ms = (time.perf_counter() - t) * 1e3
            del probs, hidden
            if r:
                times.append(ms)
            print(f"  run {r}: {ms:.1f} ms{' (warm-up)' if r == 0 else ''}")
        if a.save:
            os.makedirs(a.save, exist_ok=True)
            probs, hidden = forward()
            np.save(os.path.join(a.save, "probs_first.npy"), probs[0][0].numpy())
            np.save(os.path.join(a.save, "probs_last.npy"), probs[-1][0].numpy())
            np.save(os.path.join(a.save, "hidden_last.npy"), hidden[-1][0].numpy())
            print(f"saved layer 0 and {len(probs) - 1} probs, last hidden to {a.save}")
    times.sort()
    print(f"torch's BLAS: {BlasDescription()}")
    print(f"torch {torch.__version__} {cfg['model_type']} forward, {a.threads} threads, all probs + hidden kept: "
          f"median {times[len(times) // 2]:.1f} ms")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"torch peak RSS {rss_mb:.0f} MB")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"torch": torch.__version__, "threads": a.threads, "n": a.n, "median_ms": times[len(times) // 2],
                       "runs_ms": times, "peak_rss_mb": rss_mb}, f)
            f.write("\n")


if __name__ == "__main__":
    main()
