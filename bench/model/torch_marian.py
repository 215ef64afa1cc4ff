#!/usr/bin/python3
"""PyTorch's side of the encoder-decoder benchmark: MarianMTModel's forward (transformers' modeling_marian.py:
MarianEncoder, MarianDecoder, the LM head + final_logits_bias) re-implemented in float32 on the checkpoint folder
bench/model/make_marian_bench.py writes, returning what output_attentions=True and output_hidden_states=True return
(every encoder, decoder and cross-attention map, both stacks' hidden states) and the logits of every decoder position.

  /usr/bin/python3 bench/model/torch_marian.py --dir DIR [--reps 1] [--threads 2] [--json FILE] [--check DUMP]
  --check DUMP: instead of timing, compare the maps and logits with attnviz_seq2seq_bench --dump DUMP (same folder,
                same ids.json); exit 1 when a map differs by more than 1e-4 (the two would not time the same model).

Eval mode, no dropout, no cache (one forward over the whole decoder input, as MarianMTModel(input_ids,
decoder_input_ids=...) runs it), under torch.no_grad().
"""
import argparse
import json
import math
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
import torch.nn.functional as F  # noqa: E402


def blas_description():
    """The BLAS torch calls (torch's build says BLAS_INFO=generic: libblas.so.3, which Debian's alternatives point at
    OpenBLAS when libopenblas0-pthread is installed, else at the reference BLAS, about 20x slower)."""
    try:
        import ctypes
        lib = ctypes.CDLL("libopenblas.so.0")  # already loaded by torch when it is the BLAS: the same library
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return "%s, kernel %s" % (lib.openblas_get_config().decode(), lib.openblas_get_corename().decode())
    except OSError:
        return "no OpenBLAS (libopenblas0-pthread missing: torch runs the reference BLAS)"


def read_safetensors(path):
    """name -> float32 tensor (F32 files only), memory-mapped."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "F32", "%s: this benchmark reads F32 checkpoints, not %s" % (name, e["dtype"])
        b, en = e["data_offsets"]
        out[name] = torch.from_numpy(np.array(data[b:en].view("<f4")).reshape(e["shape"]))
    return out


def sinusoids(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: sin in the first half, cos in the second (float32)."""
    position_enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)])
    out = torch.empty(n_pos, dim, dtype=torch.float32)
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = torch.FloatTensor(np.sin(position_enc[:, 0::2]))
    out[:, sentinel:] = torch.FloatTensor(np.cos(position_enc[:, 1::2]))
    return out


class Marian:
    def __init__(self, cfg, W):
        self.cfg, self.W = cfg, W
        self.d = cfg["d_model"]
        self.embed_scale = math.sqrt(self.d) if cfg["scale_embedding"] else 1.0
        self.positions = sinusoids(cfg["max_position_embeddings"], self.d)
        assert cfg["activation_function"] in ("swish", "silu"), cfg["activation_function"]
        shared = W["model.shared.weight"]
        self.enc_emb = W.get("model.encoder.embed_tokens.weight", shared)
        self.dec_emb = W.get("model.decoder.embed_tokens.weight", shared)
        self.lm_head = W.get("lm_head.weight", self.dec_emb)
        self.final_logits_bias = W["final_logits_bias"]

    def lin(self, x, prefix):
        return F.linear(x, self.W[prefix + ".weight"], self.W[prefix + ".bias"])

    def ln(self, x, prefix):
        return F.layer_norm(x, (self.d,), self.W[prefix + ".weight"], self.W[prefix + ".bias"], 1e-5)

    def attention(self, prefix, hidden, kv, n_head, mask):
        """MarianAttention + eager_attention_forward: [1, n_q, d] -> output [1, n_q, d], weights [1, h, n_q, n_k]."""
        bsz, n_q, _ = hidden.shape
        n_k = kv.shape[1]
        d_head = self.d // n_head
        q = self.lin(hidden, prefix + ".q_proj").view(bsz, n_q, -1, d_head).transpose(1, 2)
        k = self.lin(kv, prefix + ".k_proj").view(bsz, n_k, -1, d_head).transpose(1, 2)
        v = self.lin(kv, prefix + ".v_proj").view(bsz, n_k, -1, d_head).transpose(1, 2)
        w = torch.matmul(q, k.transpose(2, 3)) * d_head ** -0.5
        if mask is not None:
            w = w + mask
        w = F.softmax(w, dim=-1)
        out = torch.matmul(w, v).transpose(1, 2).reshape(bsz, n_q, -1)
        return self.lin(out, prefix + ".out_proj"), w

    def ffn(self, x, lp):
        return self.lin(F.silu(self.lin(x, lp + ".fc1")), lp + ".fc2")

    def forward(self, source, decoder):
        cfg = self.cfg
        # 1. MarianEncoder: embed_tokens * embed_scale + sinusoidal positions; post-norm layers.
        x = (self.enc_emb[source] * self.embed_scale + self.positions[:source.shape[1]])
        enc_hidden, enc_attn = [x], []
        for i in range(cfg["encoder_layers"]):
            lp = "model.encoder.layers.%d" % i
            a, w = self.attention(lp + ".self_attn", x, x, cfg["encoder_attention_heads"], None)
            x = self.ln(x + a, lp + ".self_attn_layer_norm")
            x = self.ln(x + self.ffn(x, lp), lp + ".final_layer_norm")
            enc_hidden.append(x)
            enc_attn.append(w)
        # 2. MarianDecoder: the causal mask as _prepare_4d_causal_attention_mask makes it (finfo.min above the
        #    diagonal), cross-attention over the encoder output.
        n_tgt = decoder.shape[1]
        causal = torch.full((n_tgt, n_tgt), torch.finfo(torch.float32).min).triu(1)[None, None]
        y = (self.dec_emb[decoder] * self.embed_scale + self.positions[:n_tgt])
        dec_hidden, dec_attn, cross_attn = [y], [], []
        for i in range(cfg["decoder_layers"]):
            lp = "model.decoder.layers.%d" % i
            h = cfg["decoder_attention_heads"]
            a, w = self.attention(lp + ".self_attn", y, y, h, causal)
            y = self.ln(y + a, lp + ".self_attn_layer_norm")
            c, cw = self.attention(lp + ".encoder_attn", y, x, h, None)
            y = self.ln(y + c, lp + ".encoder_attn_layer_norm")
            y = self.ln(y + self.ffn(y, lp), lp + ".final_layer_norm")
            dec_hidden.append(y)
            dec_attn.append(w)
            cross_attn.append(cw)
        # 3. MarianMTModel: lm_head (tied) + final_logits_bias.
        logits = F.linear(y, self.lm_head) + self.final_logits_bias
        return {"logits": logits, "encoder_attentions": tuple(enc_attn), "decoder_attentions": tuple(dec_attn),
                "cross_attentions": tuple(cross_attn), "encoder_hidden_states": tuple(enc_hidden),
                "decoder_hidden_states": tuple(dec_hidden)}


def check(out, dump):
    """Max |difference| of each map kind and the logits against attnviz's dump; False when a map is over 1e-4."""
    ok = True
    for key, name in (("encoder_attentions", "encoder_attention"), ("decoder_attentions", "decoder_attention"),
                      ("cross_attentions", "cross_attention")):
        ours = torch.stack([w[0] for w in out[key]]).numpy()
        theirs = np.load(os.path.join(dump, name + ".npy"))
        if ours.shape != theirs.shape:
            print("check %s: shapes differ: torch %s, attnviz %s" % (name, ours.shape, theirs.shape))
            ok = False
            continue
        diff = float(np.abs(ours - theirs).max())
        ok &= diff <= 1e-4
        print("check %s %s: max |torch - attnviz| = %.2e (%s 1e-4)" % (name, list(ours.shape), diff,
                                                                      "within" if diff <= 1e-4 else "OVER"))
    logits = out["logits"][0].numpy()
    theirs = np.load(os.path.join(dump, "logits.npy"))
    scale = float(np.abs(logits).max())
    print("check logits %s: max |torch - attnviz| = %.2e (largest |logit| %.1f); argmax agrees on %d of %d positions"
          % (list(logits.shape), float(np.abs(logits - theirs).max()), scale,
             int((logits.argmax(-1) == theirs.argmax(-1)).sum()), logits.shape[0]))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", help="write the median, every run and the peak RSS here")
    ap.add_argument("--check", help="attnviz_seq2seq_bench --dump folder to compare with")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    cfg = json.load(open(os.path.join(a.dir, "config.json")))
    ids = json.load(open(os.path.join(a.dir, "ids.json")))
    model = Marian(cfg, read_safetensors(os.path.join(a.dir, "model.safetensors")))
    source = torch.tensor([ids["source"]])
    decoder = torch.tensor([ids["decoder"]])
    times = []
    with torch.no_grad():
        if a.check:  # the check alone, no timing
            print("torch %s, BLAS: %s" % (torch.__version__, blas_description()))
            sys.exit(0 if check(model.forward(source, decoder), a.check) else 1)
        for r in range(a.reps + 1):  # one warm-up
            t = time.perf_counter()
            out = model.forward(source, decoder)
            if r > 0:
                times.append((time.perf_counter() - t) * 1e3)
            del out
    times.sort()
    median = times[len(times) // 2] if len(times) % 2 else (times[len(times) // 2 - 1] + times[len(times) // 2]) / 2
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print("torch %s Marian forward (every map kept) + logits, %d threads, %d source, %d decoder tokens: median %.0f ms "
          "(runs: %s); peak RSS %.0f MB" % (torch.__version__, a.threads, source.shape[1], decoder.shape[1], median,
                                            " ".join("%.0f" % t for t in times), rss_mb))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"torch": torch.__version__, "blas": blas_description(), "threads": a.threads, "median_ms": median, "runs_ms": times,
                       "peak_rss_mb": rss_mb}, f)


if __name__ == "__main__":
    main()
